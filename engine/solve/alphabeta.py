"""Minimax with alpha-beta pruning to the end of the game, with a transposition table.

Negamax over the side to move's value, fail-soft; the table keeps bounds on
Black's value and each position's best move, tried first. Moves that decide the
goal are tried before the others, pass last.
"""

from __future__ import annotations

import sys

from ...go.rules import BLACK, HASH, PASS
from .game import OPEN, Problem, State
from .table import FREE, OutOfBudget, Result, Search


def alphabeta(problem: Problem, max_nodes: int = 1_000_000, seconds: float | None = None,
              window: tuple[int, int] | None = None) -> Result:
    """Black's exact value of the problem and the best first move, or None when the budget runs out.

    With ``window`` (alpha, beta on Black's value) the value is exact only inside it, else a bound."""
    search = Search(max_nodes, seconds)
    best: dict[int, int] = {}
    root = problem.root
    search.path[int(root.m[HASH])] = 0

    def negamax(s: State, alpha: int, beta: int) -> tuple[int, int, int]:
        search.visit()
        sign = 1 if s.color == BLACK else -1
        key = problem.key(s)
        lo, hi = search.bounds(key, problem.lo, problem.hi)
        lo, hi = (lo, hi) if sign == 1 else (-hi, -lo)
        if lo >= beta or hi <= alpha or lo == hi:
            return (lo if lo >= beta or lo == hi else hi), FREE, best.get(key, PASS)
        alpha, beta = max(alpha, lo), min(beta, hi)
        alpha0 = alpha
        own = search.path[int(s.m[HASH])]
        moves, hashes, _, values = problem.expand(s)
        first = best.get(key)
        order = sorted(range(len(moves)), key=lambda i: (
            moves[i] != first, -(sign * values[i]) if values[i] != OPEN else 0, moves[i] != PASS))
        value, move, dep = -FREE, PASS, FREE
        for i in order:
            mv, h = int(moves[i]), int(hashes[i])
            if mv != PASS and h in search.path:
                dep = min(dep, search.path[h])
                continue
            if values[i] != OPEN:
                v = sign * int(values[i])
            else:
                child = problem.child(s, mv)
                if mv != PASS:
                    search.path[h] = len(search.path)
                try:
                    cv, cdep, _ = negamax(child, -beta, -alpha)
                finally:
                    if mv != PASS:
                        del search.path[h]
                v = -cv
                dep = min(dep, cdep)
            if v > value:
                value, move = v, mv
            alpha = max(alpha, v)
            if alpha >= beta:
                break
        best[key] = move
        if dep >= own:
            lo = value if value > alpha0 else problem.lo * 2
            hi = value if value < beta else problem.hi * 2
            if sign == -1:
                lo, hi = -hi, -lo
            search.store(key, max(lo, problem.lo), min(hi, problem.hi))
        return value, dep, move

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 100_000))  # games under superko run long
    try:
        alpha, beta = window or (problem.lo - 1, problem.hi + 1)
        if root.color != BLACK:
            alpha, beta = -beta, -alpha
        v, _, move = negamax(root, alpha, beta)
    except OutOfBudget:
        return search.result(None, None)
    finally:
        sys.setrecursionlimit(limit)
    return search.result(v if root.color == BLACK else -v, move)


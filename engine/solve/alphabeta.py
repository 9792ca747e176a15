"""Minimax with alpha-beta pruning to the end of the game: null windows, iterative deepening,
a transposition table under the board's symmetries.

Negamax over the side to move's value, fail-soft. The value is found by bisecting the
range with null-window tests ("Black gets at least g"). For a score, each test is an
iteratively deepened search: a node at the depth limit is a win for its parent's mover, and
the results built on it are *tainted*. They go into a table of their own with the depth they
searched (reused at that depth or a shallower one: within an iteration a position met again
is not searched again), never into the table of exact bounds; the next iteration goes twice
as deep, until the root's result is not tainted.
The table keeps bounds on Black's value and each position's best move (in the frame of
the symmetry the position was looked up under), tried first; then the moves that decide
the goal, pass before the others.
"""

from __future__ import annotations

import sys

import numpy as np

from ...go.rules import BLACK, HASH, PASS
from .game import KIND, OPEN, SCORE, Problem, State
from .table import FREE, OutOfBudget, Progress, Result, Search

#: First depth limit of the iterative deepening (whole-board scores only: on the shapes of the
#: tests it took 163,058 nodes against 116,365 searching to the end at once).
FIRST_DEPTH = 8
UNLIMITED = 1 << 30


def alphabeta(problem: Problem, max_nodes: int = 1_000_000, seconds: float | None = None,
              history: tuple[int, ...] = (), tables: tuple[dict, dict] | None = None,
              progress: Progress | None = None) -> Result:
    """Black's exact value of the problem and the best first move, or None when the budget runs out.

    ``history``: board hashes of the positions before the root (superko bans them);
    ``tables``: the bounds and best-move tables of an earlier search to go on from;
    ``progress``: called with the nodes and seconds so far, every few seconds."""
    search = Search(max_nodes, seconds, progress)
    if tables is not None:
        search.table, best = tables
    else:
        best: dict[int, int] = {}
    root = problem.root
    for h in (*history, int(root.m[HASH])):
        search.path.setdefault(h, len(search.path))

    cutoffs = np.zeros((3, root.b.shape[1]), dtype=np.int64)  # by colour and point
    shallow: dict[int, tuple[int, int, int]] = {}  # tainted bounds: key -> (lo, hi, depth)

    def negamax(s: State, alpha: int, beta: int, depth: int) -> tuple[int, int, int, bool]:
        """Side to move's value (fail-soft), the shallowest path index a superko ban referred
        to, the best move, and whether the value rests on the depth limit."""
        search.visit()
        sign = 1 if s.color == BLACK else -1
        key, t = problem.canonical(s)
        stored = best.get(key)
        first = None if stored is None else int(problem.inverse[t, stored])
        # the root searches its moves whatever the table holds: a stored best move may be a
        # superko ban after this root's history, and the move returned must be legal here
        lo, hi = search.bounds(key, problem.lo, problem.hi) if s is not root else (problem.lo, problem.hi)
        tainted = False
        e = shallow.get(key)
        if s is not root and e is not None and e[2] >= depth and (e[0] > lo or e[1] < hi):
            lo, hi, tainted = max(lo, e[0]), min(hi, e[1]), True
        lo, hi = (lo, hi) if sign == 1 else (-hi, -lo)
        if lo >= beta or hi <= alpha or lo == hi:
            return (lo if lo >= beta or lo == hi else hi), FREE, PASS if first is None else first, tainted
        if depth == 0:
            return alpha, FREE, PASS, True
        alpha, beta = max(alpha, lo), min(beta, hi)
        alpha0 = alpha
        own = search.path[int(s.m[HASH])]
        moves, hashes, _, values = problem.expand(s)
        order = sorted(range(len(moves)), key=lambda i: (
            moves[i] != first, -(sign * values[i]) if values[i] != OPEN else 0,
            moves[i] != PASS, -cutoffs[s.color, moves[i]]))
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
                    cv, cdep, _, ctainted = negamax(child, -beta, -alpha, depth - 1)
                finally:
                    if mv != PASS:
                        del search.path[h]
                v = -cv
                dep = min(dep, cdep)
                tainted |= ctainted
            if v > value:
                value, move = v, mv
            alpha = max(alpha, v)
            if alpha >= beta:
                cutoffs[s.color, mv] += min(depth, 32) ** 2
                break
        best[key] = int(problem.maps[t, move])
        if dep >= own:
            lo = value if value > alpha0 else problem.lo * 2
            hi = value if value < beta else problem.hi * 2
            if sign == -1:
                lo, hi = -hi, -lo
            lo, hi = max(lo, problem.lo), min(hi, problem.hi)
            if not tainted:
                search.store(key, lo, hi)
            elif e is None or e[2] <= depth:
                shallow[key] = (lo, hi, depth)
        return value, dep, move, tainted

    def test(goal: int) -> tuple[int, int]:
        """Black's value tested against ``goal`` (a bound: at least ``goal`` or below it) and the
        root's best move, deepening until no result rests on the depth limit."""
        alpha, beta = (goal - 1, goal) if root.color == BLACK else (-goal, -goal + 1)
        depth = FIRST_DEPTH if problem.goal[KIND] == SCORE else UNLIMITED
        while True:
            v, _, move, tainted = negamax(root, alpha, beta, depth)
            if not tainted:
                return (v if root.color == BLACK else -v), move
            depth *= 2

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 100_000))  # games under superko run long
    lo, hi, move = problem.lo, problem.hi, None
    try:
        while lo < hi:
            goal = (lo + hi + 1) // 2
            v, m = test(goal)
            if v >= goal:
                lo = min(hi, v)
            else:
                hi = max(lo, v)
            if move is None or (v >= goal) == (root.color == BLACK):
                move = m
    except OutOfBudget:
        return search.result(None, None)
    finally:
        sys.setrecursionlimit(limit)
    return search.result(lo, move)

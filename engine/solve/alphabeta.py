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

#: First depth limit of the iterative deepening (whole-board scores only: on the local
#: shapes, searching to the end at once takes fewer nodes; bench/RESULTS.md, issue 35).
FIRST_DEPTH = 8
UNLIMITED = 1 << 30


class _Negamax:
    """One alpha-beta search: the problem, the node budget and path (``Search``), the best
    moves, the history heuristic's cutoffs and the tainted bounds."""

    def __init__(self, problem: Problem, search: Search, best: dict[int, int]) -> None:
        self.problem, self.search, self.best = problem, search, best
        self.root = problem.root
        self.cutoffs = np.zeros((3, self.root.b.shape[1]), dtype=np.int64)  # by colour and point
        self.shallow: dict[int, tuple[int, int, int]] = {}  # tainted bounds: key -> (lo, hi, depth)

    def negamax(self, s: State, alpha: int, beta: int, depth: int) -> tuple[int, int, int, bool]:
        """Side to move's value (fail-soft), the shallowest path index a superko ban referred
        to, the best move, and whether the value rests on the depth limit."""
        problem, search = self.problem, self.search
        search.visit()
        sign = 1 if s.color == BLACK else -1
        key, t = problem.canonical(s)
        stored = self.best.get(key)
        first = None if stored is None else int(problem.inverse[t, stored])
        # the table's exact bounds, narrowed by tainted ones searched at least this deep; the
        # root searches its moves whatever the table holds: a stored best move may be a
        # superko ban after this root's history, and the move returned must be legal here
        root = s is self.root
        lo, hi = search.bounds(key, problem.lo, problem.hi) if not root else (problem.lo, problem.hi)
        tainted = False
        e = self.shallow.get(key)
        if not root and e is not None and e[2] >= depth and (e[0] > lo or e[1] < hi):
            lo, hi, tainted = max(lo, e[0]), min(hi, e[1]), True
        lo, hi = (lo, hi) if sign == 1 else (-hi, -lo)
        if lo >= beta or hi <= alpha or lo == hi:
            return (lo if lo >= beta or lo == hi else hi), FREE, PASS if first is None else first, tainted
        if depth == 0:
            return alpha, FREE, PASS, True
        alpha, beta = max(alpha, lo), min(beta, hi)
        own = search.path[int(s.m[HASH])]
        value, move, dep, below = self.search_moves(s, alpha, beta, depth, first, sign)
        tainted |= below
        self.best[key] = int(problem.maps[t, move])
        if dep >= own:
            self.remember(key, value, alpha, beta, sign, tainted, e, depth)
        return value, dep, move, tainted

    def search_moves(self, s: State, alpha: int, beta: int, depth: int, first: int | None,
                     sign: int) -> tuple[int, int, int, bool]:
        """The best value and move among ``s``'s moves (the stored best first, then those
        that decide the goal, pass, and the history heuristic's order), the shallowest
        superko ban met, and whether a child's value rests on the depth limit."""
        problem, search = self.problem, self.search
        moves, hashes, _, values = problem.expand(s)
        cutoffs = self.cutoffs
        order = sorted(range(len(moves)), key=lambda i: (
            moves[i] != first, -(sign * values[i]) if values[i] != OPEN else 0,
            moves[i] != PASS, -cutoffs[s.color, moves[i]]))
        value, move, dep, tainted = -FREE, PASS, FREE, False
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
                    cv, cdep, _, ctainted = self.negamax(child, -beta, -alpha, depth - 1)
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
        return value, move, dep, tainted

    def remember(self, key: int, value: int, alpha: int, beta: int, sign: int, tainted: bool,
                 e: tuple | None, depth: int) -> None:
        """Store what the search of a position within (``alpha``, ``beta``) proved as bounds on
        Black's value: exact ones in the table, tainted ones with their depth."""
        problem = self.problem
        lo = value if value > alpha else problem.lo * 2
        hi = value if value < beta else problem.hi * 2
        if sign == -1:
            lo, hi = -hi, -lo
        lo, hi = max(lo, problem.lo), min(hi, problem.hi)
        if not tainted:
            self.search.store(key, lo, hi)
        elif e is None or e[2] <= depth:
            self.shallow[key] = (lo, hi, depth)

    def test(self, goal: int) -> tuple[int, int]:
        """Black's value tested against ``goal`` (a bound: at least ``goal`` or below it) and the
        root's best move, deepening until no result rests on the depth limit."""
        root = self.root
        alpha, beta = (goal - 1, goal) if root.color == BLACK else (-goal, -goal + 1)
        depth = FIRST_DEPTH if self.problem.goal[KIND] == SCORE else UNLIMITED
        while True:
            v, _, move, tainted = self.negamax(root, alpha, beta, depth)
            if not tainted:
                return (v if root.color == BLACK else -v), move
            depth *= 2


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
    tree = _Negamax(problem, search, best)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 100_000))  # games under superko run long
    lo, hi, move = problem.lo, problem.hi, None
    try:
        while lo < hi:
            goal = (lo + hi + 1) // 2
            v, m = tree.test(goal)
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

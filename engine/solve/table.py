"""What every search shares: the transposition table, the budget, the path and the result.

The table holds bounds on Black's value (``lo``, ``hi``) per transposition key;
a search stores a result only when it does not depend on the path that led to
it (graph-history interaction, see docs/solve.md): each search result carries
the shallowest path index a superko ban in its subtree referred to (``dep``),
and it is stored only when that index is not above the node's own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

#: ``dep`` of a result no superko ban touched.
FREE = 1 << 30


class OutOfBudget(Exception):
    """The search ran out of nodes or time."""


@dataclass
class Result:
    """A search's answer: Black's value (None when unknown), the best move for the
    side to move at the root (a board point, PASS, or None), nodes and seconds."""

    value: int | None
    move: int | None
    nodes: int
    seconds: float


class Search:
    """The budget, the transposition table and the superko path of one search."""

    def __init__(self, max_nodes: int, seconds: float | None) -> None:
        self.max_nodes = max_nodes
        self.deadline = time.perf_counter() + seconds if seconds else None
        self.start = time.perf_counter()
        self.nodes = 0
        self.table: dict[int, tuple[int, int]] = {}
        self.path: dict[int, int] = {}

    def visit(self) -> None:
        """Count one node; raise ``OutOfBudget`` when the nodes or the time are spent."""
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise OutOfBudget
        if self.deadline is not None and self.nodes % 1024 == 0 and time.perf_counter() > self.deadline:
            raise OutOfBudget

    def bounds(self, key: int, lo: int, hi: int) -> tuple[int, int]:
        """Stored bounds on Black's value at ``key``, within ``lo..hi``."""
        e = self.table.get(key)
        return (max(lo, e[0]), min(hi, e[1])) if e else (lo, hi)

    def store(self, key: int, lo: int, hi: int) -> None:
        """Narrow the stored bounds at ``key``."""
        e = self.table.get(key)
        self.table[key] = (max(lo, e[0]), min(hi, e[1])) if e else (lo, hi)

    def result(self, value: int | None, move: int | None) -> Result:
        return Result(value, move, self.nodes, time.perf_counter() - self.start)

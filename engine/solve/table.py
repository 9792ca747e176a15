"""What every search shares: the transposition table, the budget, the path and the result.

The table holds bounds on Black's value (``lo``, ``hi``) per transposition key;
a search stores a result only when it does not depend on the path that led to
it (graph-history interaction, see docs/solve.md): each search result carries
the shallowest path index a superko ban in its subtree referred to (``dep``),
and it is stored only when that index is not above the node's own.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

#: ``dep`` of a result no superko ban touched.
FREE = 1 << 30
#: Seconds between two progress reports of a long search.
PROGRESS_EVERY = 10.0
#: Nodes between two looks at the clock.
CHECK_EVERY = 1024

#: A progress report: nodes so far, seconds so far.
Progress = Callable[[int, float], None]


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

    def __init__(self, max_nodes: int, seconds: float | None, progress: Progress | None = None) -> None:
        self.max_nodes = max_nodes
        self.start = time.perf_counter()
        self.deadline = self.start + seconds if seconds is not None else None
        self.progress = progress
        self.next_report = self.start + PROGRESS_EVERY
        self.nodes = 0
        self.table: dict[int, tuple[int, int]] = {}
        self.path: dict[int, int] = {}

    def visit(self) -> None:
        """Count one node; raise ``OutOfBudget`` when the nodes or the time are spent, and
        report progress every ``PROGRESS_EVERY`` seconds."""
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise OutOfBudget
        if self.nodes % CHECK_EVERY == 0:
            self.check_clock()

    def check_clock(self) -> None:
        """Raise ``OutOfBudget`` past the time limit; report progress when it is due."""
        if self.deadline is None and self.progress is None:
            return
        now = time.perf_counter()
        if self.deadline is not None and now > self.deadline:
            raise OutOfBudget
        if self.progress is not None and now >= self.next_report:
            self.progress(self.nodes, now - self.start)
            self.next_report = now + PROGRESS_EVERY

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

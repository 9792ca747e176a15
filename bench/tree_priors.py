"""Seconds per move of the search on 19x19 with the ratings table's priors: none, at the root
only, at every node (``--prior-visits 2``: at expansion) or once a node has more visits,
with the pattern cache, and at expansion without it (the engine before the cache and
``--prior-visits``: the "before" row of the same run).

Positions: the empty board and the positions after 10 and 30 moves of a fixed opening
(Black to move in each); ``--playouts`` per move, a fresh search each time, after a
warm-up that compiles the kernels. The machine's other load counts too: compare rows of one
run only.

    python bench/tree_priors.py [--playouts 1000 5000] [--prior-visits 2 8 32]
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from shapemill.engine.search import search as search_module
from shapemill.engine.search import Search, SearchConfig
from shapemill.go import rules
from shapemill.go.board import Board
from shapemill.patterns.prior import MovePrior
from shapemill.patterns.defaults import RATINGS, default_table

#: A 19x19 opening (row, column from the top left), Black first.
OPENING = [(3, 15), (15, 3), (2, 3), (16, 15), (14, 16), (16, 12), (9, 16), (4, 2), (2, 13), (5, 3),
           (3, 4), (2, 9), (13, 2), (12, 3), (12, 2), (11, 3), (10, 2), (16, 16), (14, 15), (15, 17),
           (9, 3), (16, 6), (2, 6), (9, 9), (5, 9), (13, 13), (7, 15), (6, 2), (8, 2), (2, 2)]


def positions() -> list[tuple[Board, int]]:
    """The empty board and the positions after 10 and 30 opening moves, with the colour to move."""
    out = []
    board = Board(19)
    for i, point in enumerate(OPENING + [None]):
        if i in (0, 10, 30):
            out.append((board.copy(), rules.BLACK if i % 2 == 0 else rules.WHITE))
        if point is not None:
            board.play("b" if i % 2 == 0 else "w", point)
    return out


def seconds_per_move(config: SearchConfig, prior: MovePrior | None, tree: bool, slots: int) -> float:
    """Mean wall-clock seconds of one fresh search of each position, the pattern cache
    holding ``slots`` positions (1: as good as none)."""
    search_module.CACHE_SLOTS, kept = slots, search_module.CACHE_SLOTS
    total = 0.0
    cases = positions()
    for board, color in cases:
        root = prior(board.b, board.m, color) if prior else None
        knowledge = prior.knowledge(19) if prior and tree else None
        start = time.perf_counter()
        Search(config).run(board, color, root, knowledge)
        total += time.perf_counter() - start
    search_module.CACHE_SLOTS = kept
    return total / len(cases)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--playouts", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--prior-visits", type=int, nargs="+", default=[2, 8, 32])
    args = parser.parse_args()
    prior = MovePrior(default_table(RATINGS))
    for knowledge in (prior.knowledge(19), None):  # compile both kernels (with and without a table)
        Search(SearchConfig(playouts=64)).run(Board(19), rules.BLACK, None, knowledge)
    print("| playouts | priors | s/move |")
    print("|---|---|---|")
    for playouts in args.playouts:
        base = SearchConfig(playouts=playouts, seed=1)
        slots = search_module.CACHE_SLOTS
        rows = [("none", base, None, False, slots), ("root only", base, prior, False, slots),
                ("every node at expansion, no cache (as before)", base, prior, True, 1)]
        for visits in args.prior_visits:
            config = dataclasses.replace(base, prior_visits=visits)
            rows.append((f"every node, from {visits} visits, cache", config, prior, True, slots))
        for name, config, table, tree, n in rows:
            print(f"| {playouts:,} | {name} | {seconds_per_move(config, table, tree, n):.2f} |", flush=True)


if __name__ == "__main__":
    main()

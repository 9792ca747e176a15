"""Nodes and seconds of each exact search on the tiny boards and the eye-shape set, in one run.

    python bench/solve.py [--big SECONDS] [--priors]

Alpha-beta is the reference the others are compared with in the same run. Every shape of
``tests/test_solve.py`` (with Black and with White to move), 2x2 and 3x3 from the empty
board (2,000,000 nodes), then 4x4 after Black's B2 (an optimal first move, van der Werf et
al. 2003: Black by 2) and 5x5 after Black's C3 (Black by 25); every board search within
``--big`` seconds. ``--priors``: alpha-beta on every shape without and with the bundled
ratings table's move ordering (``solve --ratings``), instead.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from shapemill.engine.solve.alphabeta import alphabeta
from shapemill.engine.solve.dfpn import dfpn
from shapemill.engine.solve.pns import pns
from shapemill.engine.solve.position import make_problem
from shapemill.engine.solve.ubfm import ubfm

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_solve import SHAPES, shape_problem

ALGORITHMS = (alphabeta, pns, dfpn, ubfm)


def row(name: str, algo, problem, nodes: int, seconds: float | None, size: int) -> None:
    t = time.perf_counter()
    r = algo(problem, nodes, seconds)
    w = size + 2
    move = "-" if r.move is None else "pass" if r.move == 0 else "ABCDEFGHJ"[r.move % w - 1] + str(r.move // w)
    print(f"| {name} | {algo.__name__} | {r.value} | {move} | {r.nodes:,} | {time.perf_counter() - t:.2f} |",
          flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--big", type=float, default=45.0, help="seconds a search on a board")
    parser.add_argument("--priors", action="store_true", help="alpha-beta with and without move priors")
    args = parser.parse_args()
    if args.priors:
        from dataclasses import replace

        from shapemill.patterns.prior import MovePrior
        from shapemill.patterns.defaults import RATINGS, default_table

        prior = MovePrior(default_table(RATINGS))
        warm = shape_problem("straight three", "b").root
        prior(warm.b, warm.m, warm.color)  # read the table, compile
        print("| problem | alpha-beta: value, nodes, seconds | with priors |")
        print("|---|---|---|")
        for name in SHAPES:
            for to_play in "bw":
                p = shape_problem(name, to_play)
                cells = []
                for q in (p, replace(p, prior=prior, maps=p.maps)):
                    t = time.perf_counter()
                    r = alphabeta(q, 400_000)
                    cells.append(f"{r.value}, {r.nodes:,}, {time.perf_counter() - t:.2f}")
                print(f"| {name}, {'Black' if to_play == 'b' else 'White'} to play | {cells[0]} | {cells[1]} |",
                      flush=True)
        sys.exit(0)
    for algo in ALGORITHMS:  # compile first
        algo(make_problem(2, [], [], "b", "score"), 100_000)
    print("| problem | algorithm | Black's value | move | nodes | seconds |")
    print("|---|---|---|---|---|---|")
    for name in SHAPES:
        for to_play in "bw":
            p = shape_problem(name, to_play)
            for algo in ALGORITHMS:
                row(f"{name}, {'Black' if to_play == 'b' else 'White'} to play", algo, p, 400_000, None, p.size)
    for size in (2, 3):
        for algo in ALGORITHMS:
            row(f"{size}x{size}", algo, make_problem(size, [], [], "b", "score"), 2_000_000, args.big, size)
    for size, first in ((4, (1, 1)), (5, (2, 2))):
        for algo in ALGORITHMS:
            p = make_problem(size, [first], [], "w", "score")
            row(f"{size}x{size} after Black's first move", algo, p, 100_000_000, args.big, size)

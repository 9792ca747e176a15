"""Nodes and seconds of each exact search on the tiny boards and the eye-shape set, in one run.

    PYTHONPATH=... flock /work/bench.lock python bench/solve.py [--big SECONDS]

Alpha-beta is the reference the others are compared with in the same run. Every shape of
``tests/test_solve.py`` (with Black and with White to move), 2x2 and 3x3 from the empty
board, then 4x4 after Black's B2 (an optimal first move, van der Werf et al. 2003: Black
by 2) and 5x5 after Black's C3 (Black by 25) within ``--big`` seconds a search.
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
    parser.add_argument("--big", type=float, default=45.0, help="seconds a search on 4x4 and 5x5")
    args = parser.parse_args()
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
            row(f"{size}x{size}", algo, make_problem(size, [], [], "b", "score"), 2_000_000, None, size)
    for size, first in ((4, (1, 1)), (5, (2, 2))):
        for algo in ALGORITHMS:
            p = make_problem(size, [first], [], "w", "score")
            row(f"{size}x{size} after Black's first move", algo, p, 100_000_000, args.big, size)

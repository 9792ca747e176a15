"""Nodes and seconds of each exact search on 2x2 and the eye-shape set, in one run.

    PYTHONPATH=... flock /work/cpu.lock python bench/solve.py
"""

from __future__ import annotations

import time

from shapemill.engine.solve.alphabeta import alphabeta
from shapemill.engine.solve.dfpn import dfpn
from shapemill.engine.solve.pns import pns
from shapemill.engine.solve.position import make_problem, parse_diagram
from shapemill.engine.solve.run import parse_points

STRAIGHT_THREE = [". . . . .", ". . . . .", "X X X X X", "O O O O X", ". . . O X"]
BENT_THREE = [". . . . .", "X X X X .", "O O O X .", ". O O X .", ". . O X ."]


def shape(rows, to_play, goal, target):
    size, black, white = parse_diagram(rows)
    return make_problem(size, black, white, to_play, goal, parse_points(target, size))


PROBLEMS = {
    "2x2 score": make_problem(2, [], [], "b", "score"),
    "3x3 score (budget)": make_problem(3, [], [], "b", "score"),
    "straight three kill": shape(STRAIGHT_THREE, "b", "kill", "A2"),
    "straight three live": shape(STRAIGHT_THREE, "w", "live", "A2"),
    "bent three kill": shape(BENT_THREE, "b", "kill", "A3"),
}

if __name__ == "__main__":
    make_problem(2, [], [], "b", "score")
    alphabeta(PROBLEMS["2x2 score"])  # compile first
    print("| problem | algorithm | value | move | nodes | seconds |")
    print("|---|---|---|---|---|---|")
    for name, p in PROBLEMS.items():
        for algo in (alphabeta, pns, dfpn):
            t = time.perf_counter()
            r = algo(p, 200_000)
            print(f"| {name} | {algo.__name__} | {r.value} | {r.move} | {r.nodes} | {time.perf_counter() - t:.2f} |")

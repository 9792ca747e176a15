"""Solve every enclosed eye space of 3 to 7 points and write ``go/eye_space_table.py``.

    python tools/make_eye_spaces.py [--max-points 7] [--nodes 2000000]

Then clear numba's caches (HACKING.md): the search's kernels keep the table they were
compiled with.

Each shape (a connected set of points, placed on a 9 x 9 board at every offset, so that
the edges give every pattern of which points touch the string) is a board with the
space empty and every other point the owner's (White's), one string with no liberty
but the space's. df-pn solves ``kill`` of that string with the opponent (Black) moving
first, holding a ko threat for every ko (``game.KO_FREE``), and the string must end
unconditionally alive (``game.STRICT``: a seki is a death), so that a listed shape lives
in any position.
``decided``'s use of the table is off while it is made (``game.SEARCH_ONLY``). A shape
not proved within ``--nodes`` is not listed. See ``go/eye_spaces.py``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from shapemill.engine.solve.dfpn import dfpn
from shapemill.engine.solve.game import KO_FREE, SEARCH_ONLY, STRICT
from shapemill.engine.solve.position import make_problem
from shapemill.go.eye_spaces import SPACE_MAX, SPACE_MIN, space_key
from shapemill.go.rules import BLACK, HEAD
from shapemill.go.vertices import flat_index

SIZE = 9
OUT = Path(__file__).resolve().parents[1] / "go" / "eye_space_table.py"


def polyominoes(n: int) -> set[frozenset]:
    """Every fixed polyomino of ``n`` cells (translated so its least row and column are 0)."""
    shapes = {frozenset({(0, 0)})}
    for _ in range(n - 1):
        grown = set()
        for s in shapes:
            for r, c in s:
                for q in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    if q not in s:
                        t = s | {q}
                        r0, c0 = min(x for x, _ in t), min(y for _, y in t)
                        grown.add(frozenset((x - r0, y - c0) for x, y in t))
        shapes = grown
    return shapes


def _connected(points: set) -> bool:
    start = next(iter(points))
    seen, stack = {start}, [start]
    while stack:
        r, c = stack.pop()
        for q in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if q in points and q not in seen:
                seen.add(q)
                stack.append(q)
    return len(seen) == len(points)


def placements(max_points: int):
    """(space, owner's stones) for every shape at every offset on the board whose other
    points make one string."""
    board = {(r, c) for r in range(SIZE) for c in range(SIZE)}
    for n in range(SPACE_MIN, max_points + 1):
        for shape in polyominoes(n):
            rows, cols = max(r for r, _ in shape) + 1, max(c for _, c in shape) + 1
            for dr in range(SIZE - rows + 1):
                for dc in range(SIZE - cols + 1):
                    space = {(r + dr, c + dc) for r, c in shape}
                    rest = board - space
                    if _connected(rest):
                        yield sorted(space), sorted(rest)


def lives(space: list, rest: list, nodes: int) -> bool:
    """Whether the owner's string lives with the opponent to move (proved within ``nodes``)."""
    problem = make_problem(SIZE, [], rest, "b", "kill", [rest[0]], space + rest)  # the string may be taken
    for field, value in ((KO_FREE, BLACK), (STRICT, 1), (SEARCH_ONLY, 1)):
        problem.goal[field] = value
    return dfpn(problem, nodes, None).value == -1


def solve_shapes(max_points: int, nodes: int) -> tuple[int, list]:
    """The number of shapes, and the keys of those that live with the opponent to move,
    sorted."""
    shapes: dict[tuple[int, int], tuple[list, list]] = {}
    for space, rest in placements(max_points):
        problem = make_problem(SIZE, [], rest, "b", "kill", [rest[0]], space)
        pts = np.array([flat_index(p, SIZE) for p in space], dtype=np.int64)
        b, m = problem.root.b, problem.root.m
        key = space_key(b, m, pts, len(pts), np.int64(b[HEAD, flat_index(rest[0], SIZE)]))
        shapes.setdefault((int(key[0]), int(key[1])), (space, rest))
    return len(shapes), [key for key, (space, rest) in sorted(shapes.items()) if lives(space, rest, nodes)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-points", type=int, default=SPACE_MAX)
    ap.add_argument("--nodes", type=int, default=2_000_000)
    args = ap.parse_args()
    start = time.perf_counter()
    count, alive = solve_shapes(args.max_points, args.nodes)
    print(f"{count} shapes: {len(alive)} live with the opponent to move ({time.perf_counter() - start:.0f} s)")
    OUT.write_text(_module(alive, args.max_points))


def _module(alive: list, max_points: int) -> str:
    """The table module's text."""
    body = "".join(f"    ({a}, {f}),\n" for a, f in alive)
    return (f'"""Generated by ``tools/make_eye_spaces.py --max-points {max_points}``: do not edit. The eye\n'
            'spaces of ``eye_spaces`` that live with the opponent to move, as (points, points next to\n'
            'the string) keys, sorted."""\n\n'
            "import numpy as np\n\n"
            f"ALIVE = np.array([\n{body}], dtype=np.int64).reshape(-1, 2)\n")


if __name__ == "__main__":
    main()

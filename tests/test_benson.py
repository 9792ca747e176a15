"""Benson's unconditional life against hand-made positions and a plain-Python reference."""

from __future__ import annotations

import random

import pytest
from diagrams import board_from_diagram
from sgfmill import boards
from shapemill.go.benson import unconditionally_alive
from shapemill.go.rules import BLACK, HEAD, WHITE, new_board, place_setup
from shapemill.go.vertices import flat_index


def setup(diagram: str):
    """Board arrays of a diagram (top row first, X black, O white) and its size."""
    return board_from_diagram(diagram)


def alive_at(diagram: str, color: int, point: tuple[int, int]) -> bool:
    b, m, size = setup(diagram)
    return bool(unconditionally_alive(b, m, color)[b[HEAD, flat_index(point, size)]])


TWO_EYES = """
. . . . .
. . . . .
O O O O O
O . O . O
O O O O O
"""

ONE_EYE = """
. . . . .
. . . . .
O O O O O
O . O O O
O O O O O
"""

# two strings that share both eyes: neither has two eyes alone, both together
SHARED_EYES = """
. . . . .
O O O O O
. O . O .
O . O . O
O O . O O
"""

# the eye A1-B1 holds a black stone with a liberty inside: still vital (its empty point is a liberty)
EYE_WITH_STONE = """
. . . . .
. . . . .
O O O O O
O O . O .
X . O . O
"""

# a big eye whose middle point touches no white stone: not vital, one eye left
BIG_EYE = """
. . . . . .
O O O O O .
O . . . O .
O . . . O .
O . . . O .
O O O O O .
"""


@pytest.mark.parametrize("diagram, point, alive", [
    (TWO_EYES, (2, 0), True),
    (ONE_EYE, (2, 0), False),
    (SHARED_EYES, (0, 0), True),
    (SHARED_EYES, (3, 0), True),
    (EYE_WITH_STONE, (2, 0), True),
    (BIG_EYE, (4, 0), False),
])
def test_hand_made_groups(diagram, point, alive):
    assert alive_at(diagram, WHITE, point) == alive


def test_black_stones_in_a_white_diagram_are_not_alive():
    assert not alive_at(EYE_WITH_STONE, BLACK, (0, 0))


def reference(size: int, stones: dict, color: str) -> set:
    """Benson's algorithm on plain Python sets: the points of ``color``'s unconditionally
    alive strings. ``stones`` maps (row, col) to 'b' or 'w'."""
    def near(p):
        r, c = p
        return [q for q in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if 0 <= q[0] < size and 0 <= q[1] < size]

    def flood(start, inside):
        seen, todo = {start}, [start]
        while todo:
            for q in near(todo.pop()):
                if q not in seen and inside(q):
                    seen.add(q)
                    todo.append(q)
        return frozenset(seen)

    points = [(r, c) for r in range(size) for c in range(size)]
    strings = {flood(p, lambda q: stones.get(q) == color) for p in points if stones.get(p) == color}
    regions = {flood(p, lambda q: stones.get(q) != color) for p in points if stones.get(p) != color}

    def vital(region, string):
        return all(any(q in string for q in near(p)) for p in region if p not in stones)

    def touches(region, string):
        return any(q in string for p in region for q in near(p))

    x, r = set(strings), set(regions)
    while True:
        x2 = {s for s in x if sum(1 for reg in r if touches(reg, s) and vital(reg, s)) >= 2}
        r2 = {reg for reg in r if all(s in x2 for s in strings if touches(reg, s))}
        if x2 == x and r2 == r:
            return {p for s in x for p in s}
        x, r = x2, r2


def random_playout(rng: random.Random, size: int) -> boards.Board:
    """A board after random moves that fill no point whose neighbours are all the mover's
    (so that groups with eyes arise), stopped at a random length."""
    board = boards.Board(size)
    color = "b"
    for _ in range(rng.randrange(size * size, 3 * size * size)):
        empty = [(r, c) for r in range(size) for c in range(size) if board.get(r, c) is None]
        rng.shuffle(empty)
        for r, c in empty:
            near = [(r + dr, c + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
                    if 0 <= r + dr < size and 0 <= c + dc < size]
            if all(board.get(*q) == color for q in near):
                continue
            trial = board.copy()
            trial.play(r, c, color)
            if trial.get(r, c) == color:  # not a suicide
                board = trial
                break
        color = "w" if color == "b" else "b"
    return board


@pytest.mark.parametrize("seed", range(40))
def test_agrees_with_a_plain_python_reference_on_random_positions(seed):
    rng = random.Random(seed)
    size = rng.choice([5, 6, 7])
    board = random_playout(rng, size)
    stones = {p: c for c, p in board.list_occupied_points()}
    b, m = new_board(size)
    for p, c in stones.items():
        place_setup(b, m, BLACK if c == "b" else WHITE, flat_index(p, size))
    for color, code in (("b", BLACK), ("w", WHITE)):
        flags = unconditionally_alive(b, m, code)
        ours = {p for p in stones if stones[p] == color and flags[b[HEAD, flat_index(p, size)]]}
        assert ours == reference(size, stones, color)

"""Living eye spaces: the textbook shapes (Davies, "Life and Death", 1975) by hand, with
the opponent to move, and a check against df-pn on positions from random play."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from diagrams import board_from_diagram
from shapemill.engine.solve.dfpn import dfpn
from shapemill.engine.solve.game import (
    DEFENDER, GOAL_FIELDS, KIND, KO_FREE, LIFE, SEARCH_ONLY, STRICT, TARGET, Problem, State)
from shapemill.go.eye_space_table import ALIVE
from shapemill.go.eye_spaces import SPACE_MAX, lives_by_space
from shapemill.go.rules import BLACK, COLOR, EMPTY, HEAD, OK, WHITE, illegal_reason, is_eye, play
from shapemill.go.vertices import flat_index

# White's spaces, each enclosed by one string, Black to move; whether White lives with no
# liberty outside the space (the worst case: a shortage of liberties counts) and Black
# holding every ko threat it wants (the bent four and the rectangular six in the corner
# are then dead; the straight three, the pyramid four and the bulky five die at their
# vital point).
CASES = {
    # name: (diagram, White lives)
    "straight three": ("""
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
O O O O O . .
. . . O O . .
O O O O O . .
""", False),
    "square four": ("""
. . . . . . .
. . . . . . .
. . . . . . .
O O O O . . .
. . O O . . .
. . O O . . .
O O O O . . .
""", False),
    "straight four": ("""
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
O O O O O O .
. . . . O O .
O O O O O O .
""", True),
    "pyramid four": ("""
. . . . . . .
. . . . . . .
. . . . . . .
O O O O O . .
O . O O O . .
. . . O O . .
O O O O O . .
""", False),
    "bent four": ("""
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
O O O O O . .
O . . . O . .
O O O . O . .
""", True),
    "bent four in the corner": ("""
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
O O . . . . .
. O O O . . .
. . . O . . .
""", False),
    "bulky five": ("""
. . . . . . .
. . . . . . .
. . . . . . .
O O O O O . .
O . . O O . .
. . . O O . .
O O O O O . .
""", False),
    "rectangular six in the corner": ("""
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
O O O O . . .
. . . O . . .
. . . O . . .
""", False),
    "rectangular six on the side": ("""
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
O O O O O . .
O . . . O . .
O . . . O . .
""", True),
    "straight five on the side": ("""
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
O O O O O O O
O . . . . . O
""", True),
}


def _target(b, size):
    """A stone of White's string (the first White stone from the top left)."""
    return next(flat_index((r, c), size) for r in range(size - 1, -1, -1) for c in range(size)
                if b[COLOR, flat_index((r, c), size)] == WHITE)


@pytest.mark.parametrize("name", list(CASES))
def test_textbook_shapes(name):
    diagram, lives = CASES[name]
    b, m, size = board_from_diagram(diagram)
    playable = np.ones(b.shape[1], dtype=np.uint8)
    assert lives_by_space(b, m, playable, np.int64(b[HEAD, _target(b, size)])) == lives


#: A straight four on the side whose wall is two strings: (1,0)-(1,3) with (2,3), and (0,4)
#: with the stones above it, sharing the two empty points (1,4) and (2,4) off the space.
TWO_STRINGS = """
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
. . . O . O .
O O O O . O .
. . . . O O .
"""


def test_not_enclosed():
    """A Black stone inside, a point off the playable mask, or two White strings with one
    shared point (Black cuts there, and the space holds a false eye): no enclosed space."""
    stone_inside = CASES["straight four"][0].replace(". . . . O O .\nO O O O O O .", ". X . . O O .\nO O O O O O .")
    b, m, size = board_from_diagram(stone_inside)
    playable = np.ones(b.shape[1], dtype=np.uint8)
    h = np.int64(b[HEAD, _target(b, size)])
    assert not lives_by_space(b, m, playable, h)
    b, m, size = board_from_diagram(CASES["straight four"][0])
    off = playable.copy()
    off[flat_index((1, 0), size)] = 0
    assert not lives_by_space(b, m, off, np.int64(b[HEAD, _target(b, size)]))
    b, m, size = board_from_diagram(TWO_STRINGS.replace(". . . O . O .\nO O O O", ". . . O X O .\nO O O O"))
    assert not lives_by_space(b, m, playable, np.int64(b[HEAD, _target(b, size)]))


def test_joined_by_miai():
    """The same wall with both shared points empty: Black's cut at one is answered at the
    other, and the straight four lives."""
    b, m, size = board_from_diagram(TWO_STRINGS)
    playable = np.ones(b.shape[1], dtype=np.uint8)
    for h in (flat_index((1, 0), size), flat_index((0, 4), size)):
        assert lives_by_space(b, m, playable, np.int64(b[HEAD, h]))


def test_agrees_with_search_on_random_play():
    """Positions from random moves (of either colour, White's more often) in a White corner
    group's space, where the test says White lives: df-pn without the table, Black to move
    with every ko threat and life by Benson's test at the end, never proves that Black
    kills it."""
    start = """
. . . . . . .
. . . . . . .
X X X X X . .
O O O O X . .
. . . O X . .
. . . O X . .
. . . O X . .
"""
    rng = np.random.default_rng(7)
    found = 0
    for _ in range(300):
        b, m, size = board_from_diagram(start)
        region = np.zeros(b.shape[1], dtype=np.uint8)
        for r in range(4):
            for c in range(4):
                region[flat_index((r, c), size)] = 1
        target = flat_index((3, 0), size)
        for _ in range(int(rng.integers(1, 5))):
            color = BLACK if rng.random() < 0.3 else WHITE
            moves = [p for p in range(b.shape[1]) if region[p] and b[COLOR, p] == EMPTY
                     and illegal_reason(b, m, color, p) == OK and not is_eye(b, m, color, p)]
            if moves:
                play(b, m, color, int(rng.choice(moves)))
        if b[COLOR, target] != WHITE or not lives_by_space(b, m, region, np.int64(b[HEAD, target])):
            continue
        found += 1
        goal = np.zeros(GOAL_FIELDS, dtype=np.int64)
        goal[[KIND, TARGET, DEFENDER, KO_FREE, STRICT, SEARCH_ONLY]] = LIFE, target, WHITE, BLACK, 1, 1
        problem = Problem(State(b, m, BLACK), goal, region)
        assert dfpn(problem, 200_000, None).value != 1
    assert found >= 20


def test_table_is_the_generators():
    """The table in go/ is what tools/make_eye_spaces.py makes today (df-pn without it)."""
    path = Path(__file__).resolve().parents[1] / "tools" / "make_eye_spaces.py"
    spec = importlib.util.spec_from_file_location("make_eye_spaces", path)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    _, alive = tool.solve_shapes(SPACE_MAX, 2_000_000)
    assert alive == [tuple(map(int, row)) for row in ALIVE]

"""Shut-in eye spaces: the nakade shapes of one to three points, by hand, with and without
liberties next to the opponent's wall (points that never become eyes)."""

from __future__ import annotations

import numpy as np
import pytest
from diagrams import board_from_diagram
from shapemill.go.eyespace import dead_shape, shut_in_eye_space
from shapemill.go.vertices import flat_index


def setup(diagram: str, playable_rows: int, playable_cols: int):
    """Board arrays of a diagram (top row first, X black, O white) and a playable mask of
    the lower left ``playable_rows`` x ``playable_cols`` box."""
    b, m, size = board_from_diagram(diagram)
    mask = np.zeros(b.shape[1], dtype=np.uint8)
    for r in range(playable_rows):
        for c in range(playable_cols):
            mask[flat_index((r, c), size)] = 1
    return b, m, mask, flat_index((0, 0), size)


# White's two-point eye A2 B2, shut in by Black's wall, which has liberties off the box A1-D3
TWO = """
. . . . . . .
. . . . . . .
. . . . . . .
X X X X . . .
O O O X . . .
. . O X . . .
O O O X . . .
"""

# a straight three A2 B2 C2
THREE = """
. . . . . . .
. . . . . . .
. . . . . . .
X X X X X . .
O O O O X . .
. . . O X . .
O O O O X . .
"""

# the two-point eye with a way out: D2 is empty, and E2 beyond it is off the box
OPEN = """
. . . . . . .
. . . . . . .
. . . . . . .
X X X X . . .
O O O X . . .
. . O . . . .
O O O X . . .
"""

# a black stone in the eye, with its only liberty inside: it might be captured
STONE_INSIDE = """
. . . . . . .
. . . . . . .
. . . . . . .
X X X X . . .
O O O X . . .
X . O X . . .
O O O X . . .
"""


@pytest.mark.parametrize("opponent_to_move", [True, False])
def test_a_shut_in_two_point_eye_is_dead_whoever_moves(opponent_to_move):
    b, m, mask, a1 = setup(TWO, 3, 4)
    assert shut_in_eye_space(b, m, mask, a1, 10) == 2
    assert dead_shape(b, m, mask, a1, opponent_to_move)


@pytest.mark.parametrize("opponent_to_move, dead", [(True, True), (False, False)])
def test_a_straight_three_is_dead_only_with_the_opponent_to_move(opponent_to_move, dead):
    b, m, mask, a1 = setup(THREE, 3, 5)
    assert shut_in_eye_space(b, m, mask, a1, 10) == 3
    assert dead_shape(b, m, mask, a1, opponent_to_move) == dead


# the two-point eye, and White's A4 off the box joined to the group (Black's A5 and B4 take
# its liberties there): no move may capture a string with a stone off the box, so the
# group cannot die
OWN_STONE_OUTSIDE = """
. . . . . . .
. . . . . . .
X . . . . . .
O X X X . . .
O O O X . . .
. . O X . . .
O O O X . . .
"""


@pytest.mark.parametrize("diagram", [OPEN, STONE_INSIDE, OWN_STONE_OUTSIDE])
def test_a_way_out_a_capturable_stone_or_an_own_stone_outside_is_not_shut_in(diagram):
    b, m, mask, a1 = setup(diagram, 3, 4)
    assert shut_in_eye_space(b, m, mask, a1, 10) == -1
    assert not dead_shape(b, m, mask, a1, True)


def test_more_space_than_the_limit_is_not_counted():
    b, m, mask, a1 = setup(THREE, 3, 5)
    assert shut_in_eye_space(b, m, mask, a1, 2) == -1


# White's two-point eye A2 B2 and a liberty D3 next to Black's wall: D3 can never be an
# eye (Black's D4 and E3 stay), so White has one eye whoever moves. By hand: White to move
# gets nothing from D3, A2 or B2; Black fills D3 (joined to the wall), then plays inside
# the eye, and White's capture leaves a one-point eye that Black fills.
TWO_AND_A_LIBERTY = """
. . . . . . .
. . . . . . .
. . . . . . .
X X X X X . .
O O O . X . .
. . O O X . .
O O O O X . .
"""

# the same group with two eye points apart, A2 and C2: two eyes
TWO_EYES = """
. . . . . . .
. . . . . . .
. . . . . . .
X X X X X . .
O O O O X . .
. O . O X . .
O O O O X . .
"""


@pytest.mark.parametrize("opponent_to_move", [True, False])
def test_a_liberty_next_to_the_wall_is_no_eye(opponent_to_move):
    b, m, mask, a1 = setup(TWO_AND_A_LIBERTY, 3, 5)
    assert shut_in_eye_space(b, m, mask, a1, 10) == 3
    assert dead_shape(b, m, mask, a1, opponent_to_move)


@pytest.mark.parametrize("opponent_to_move", [True, False])
def test_two_eye_points_apart_are_not_dead(opponent_to_move):
    b, m, mask, a1 = setup(TWO_EYES, 3, 5)
    assert shut_in_eye_space(b, m, mask, a1, 10) == 2
    assert not dead_shape(b, m, mask, a1, opponent_to_move)


def walled_block(eyes: list[tuple[int, int]]) -> str:
    """A 9x9 diagram: White's block of rows 0-4 and columns 0-5 with the empty ``eyes``
    ((row, column) inside it), Black's wall on row 5 and column 6."""
    rows = []
    for r in range(8, -1, -1):
        row = []
        for c in range(9):
            if r < 5 and c < 6:
                row.append("." if (r, c) in eyes else "O")
            elif (r == 5 and c <= 6) or (c == 6 and r < 5):
                row.append("X")
            else:
                row.append(".")
        rows.append(" ".join(row))
    return "\n".join(rows)


# Davies, "Life and Death": the eye spaces that die with the opponent to move (it takes the
# vital point) and live with their owner to move, the square four that dies whoever
# moves, and the straight four that lives whoever moves
NAKADE = {
    "pyramid four": ([(1, 1), (1, 2), (1, 3), (2, 2)], True, False),
    "bulky five": ([(1, 1), (1, 2), (2, 1), (2, 2), (3, 1)], True, False),
    "crossed five": ([(1, 2), (2, 1), (2, 2), (2, 3), (3, 2)], True, False),
    "rabbity six": ([(1, 2), (1, 3), (2, 1), (2, 2), (2, 3), (3, 2)], True, False),
    "square four": ([(1, 1), (1, 2), (2, 1), (2, 2)], True, True),
    "straight four": ([(2, 1), (2, 2), (2, 3), (2, 4)], False, False),
    "bent four": ([(1, 1), (2, 1), (2, 2), (2, 3)], False, False),
}


@pytest.mark.parametrize("name", sorted(NAKADE))
def test_the_nakade_shapes_of_four_to_six_points(name):
    eyes, dead_opponent_to_move, dead_owner_to_move = NAKADE[name]
    b, m, mask, a1 = setup(walled_block(eyes), 5, 7)
    assert shut_in_eye_space(b, m, mask, a1, 10) == len(eyes)
    assert dead_shape(b, m, mask, a1, True) == dead_opponent_to_move
    assert dead_shape(b, m, mask, a1, False) == dead_owner_to_move

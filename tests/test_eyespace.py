"""Shut-in eye spaces: the nakade shapes of one to three points, by hand."""

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


@pytest.mark.parametrize("diagram", [OPEN, STONE_INSIDE])
def test_a_way_out_or_a_capturable_stone_is_not_shut_in(diagram):
    b, m, mask, a1 = setup(diagram, 3, 4)
    assert shut_in_eye_space(b, m, mask, a1, 10) == -1
    assert not dead_shape(b, m, mask, a1, True)


def test_more_space_than_the_limit_is_not_counted():
    b, m, mask, a1 = setup(THREE, 3, 5)
    assert shut_in_eye_space(b, m, mask, a1, 2) == -1

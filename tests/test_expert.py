"""MoGo's expert knowledge (MoGo 2008, section 4) on hand-made positions: the eight
shapes' virtual AMAF results as the paper lists them, and the chain distance to the
last move (a string counts as one point), labelled by hand."""

from __future__ import annotations

import numpy as np
import pytest
from shapemill.engine.search.expert import near_last_bonus, shape_amaf
from shapemill.go import rules
from shapemill.go.board import Board
from shapemill.go.chains import FAR, chain_distances
from shapemill.go.vertices import flat_index

# The paper's virtual results, (AMAF visits, of them won), by shape.
THIRD_LINE, FIRST_LINE = (6.67, 6.67), (6.67, 0.0)
PEEP_CONNECT, HANE, CONNECT = (5.0, 5.0), (5.0, 5.0), (5.0, 5.0)
WALL, BAD_KOGEIMA, EMPTY_TRIANGLE = (3.33, 3.33), (2.5, 0.0), (5.0, 0.0)


def amaf_of(board: Board, color: int, point: tuple[int, int]) -> tuple[float, float]:
    moves = np.array([flat_index(point, board.size)], dtype=np.int64)
    visits, wins = np.zeros(1), np.zeros(1)
    shape_amaf(board.b, board.m, color, moves, visits, wins, True)
    return float(visits[0]), float(wins[0])


def total(*shapes: tuple[float, float]) -> tuple[float, float]:
    return sum(s[0] for s in shapes), sum(s[1] for s in shapes)


def position(black, white, last=None, size=19) -> Board:
    board = Board(size)
    board.setup("b", black)
    board.setup("w", white)
    if last is not None:
        board.play(*last)
    return board


# (what a Go player sees, black, white, White's last move or None, Black's move, expected)
SHAPES = [
    ("third line, nothing near", [(15, 15)], [], None, (2, 9), total(THIRD_LINE)),
    ("first line, nothing near", [(15, 15)], [], None, (0, 9), total(FIRST_LINE)),
    ("second line, nothing near: no shape", [(15, 15)], [], None, (1, 9), total()),
    ("connects two strings", [(9, 8), (9, 10)], [], None, (9, 9), total(CONNECT)),
    ("connects the two strings White peeps at", [(9, 8), (9, 10)], [], ("w", (8, 9)), (9, 9),
     total(CONNECT, PEEP_CONNECT)),
    ("hane at the head of White's contact stone", [(9, 9)], [(9, 10)], None, (10, 10), total(HANE)),
    ("extends a line of two", [(9, 8), (9, 9)], [], None, (9, 10), total(WALL)),
    ("empty triangle", [(9, 9), (9, 10)], [], None, (10, 9), total(EMPTY_TRIANGLE)),
    ("knight's move with White between", [(9, 9)], [(9, 10)], None, (10, 11), total(BAD_KOGEIMA)),
]


@pytest.mark.parametrize("label, black, white, last, move, expected", SHAPES, ids=[s[0] for s in SHAPES])
def test_the_eight_shapes_give_the_papers_virtual_amaf_results(label, black, white, last, move, expected):
    board = position(black, white, last)
    assert amaf_of(board, rules.BLACK, move) == pytest.approx(expected)


def test_chain_distance_counts_a_string_as_one_point():
    # Black's last move (4, 4) joins (4, 2)-(4, 3): the three stones are at 0. White's
    # string (5, 0)-(5, 2) touches (4, 2): 1 for all three stones, so (6, 0), three
    # columns and two rows away, is at 2.
    board = position([(4, 2), (4, 3)], [(5, 0), (5, 1), (5, 2)], ("b", (4, 4)), size=9)
    dist = np.empty(board.b.shape[1], dtype=np.int64)
    chain_distances(board.b, board.m, board.m[rules.LAST], 3, dist)
    expected = {(4, 2): 0, (4, 3): 0, (4, 4): 0, (3, 2): 1, (4, 1): 1, (4, 5): 1, (5, 0): 1, (5, 2): 1,
                (6, 0): 2, (4, 0): 2, (2, 2): 2, (3, 0): 3, (7, 0): 3, (8, 0): FAR, (0, 2): FAR}
    assert {p: int(dist[flat_index(p, board.size)]) for p in expected} == expected
    assert dist[rules.PASS] == FAR  # a border point


def test_the_near_last_bonus_follows_the_chain_distance():
    from shapemill.engine.search.expert import NEAR_LAST_BONUS

    board = position([(4, 2), (4, 3)], [(5, 0), (5, 1), (5, 2)], ("b", (4, 4)), size=9)
    points = [(3, 2), (6, 0), (3, 0), (8, 8)]  # chain distances 1, 2, 3, far
    moves = np.array([flat_index(p, board.size) for p in points], dtype=np.int64)
    bonus = np.empty(len(moves))
    near_last_bonus(board.b, board.m, moves, bonus)
    assert list(bonus) == [NEAR_LAST_BONUS[1], NEAR_LAST_BONUS[2], NEAR_LAST_BONUS[3], 0.0]
    assert NEAR_LAST_BONUS[1] > NEAR_LAST_BONUS[2] > NEAR_LAST_BONUS[3] > 0
    board.play("w", None)  # after a pass there is no last move to be near
    near_last_bonus(board.b, board.m, moves, bonus)
    assert not bonus.any()

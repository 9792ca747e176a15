"""MoGo's playout rules in the seed's order (MoGo 2008 section 6: save atari, nakade
inside the opponent's stones, fill board, patterns around the last move, capture
anywhere, random) and in ``mogo-local``'s: on hand-made positions where a rule and
every later one have candidates, the rule must fire first."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from shapemill.engine.playouts.mogo import (
    capture_anywhere_moves,
    capture_moves,
    mogo_move,
    mogo_playout,
    nakade_point,
    pattern_moves,
    save_atari_moves,
)
from shapemill.go import rules
from shapemill.go.board import Board
from shapemill.go.nbr3x3 import colour_code
from shapemill.go.vertices import flat_index

SEEDS = range(40)


def seed_order(b, m, color, cands):
    return mogo_move(b, m, color, cands, False)


def local_order(b, m, color, cands):
    return mogo_move(b, m, color, cands, True)


@njit(cache=True)
def seed(s: int) -> None:
    """Seed numba's random generator (separate from numpy's)."""
    np.random.seed(s)


def moves_of(board: Board, policy, color: int) -> set[int]:
    """The moves ``policy`` chooses for ``color`` over ``SEEDS`` (the board untouched)."""
    chosen = set()
    for s in SEEDS:
        seed(s)
        chosen.add(int(policy(board.b.copy(), board.m.copy(), color, np.empty(64, dtype=np.int64))))
    return chosen


def candidates(board: Board, rule, color: int) -> set[int]:
    cands = np.empty(64, dtype=np.int64)
    return {int(p) for p in cands[: rule(board.b, board.m, color, cands)]}


def fill_board_points(board: Board) -> set[int]:
    """Empty points whose eight neighbours are all empty points of the board."""
    w = board.size + 2
    return {p for p in np.flatnonzero(board.b[rules.COLOR] == rules.EMPTY)
            if colour_code(board.b, w, int(p)) == 0}


def corner_three() -> Board:
    """White encloses the three points (0, 0)-(0, 2) of the corner with its last move
    (0, 3); Black's wall is outside. The middle (0, 1) is the vital point. The rest
    of the 9x9 board is empty: fill-board candidates abound."""
    board = Board(9)
    board.setup("b", [(0, 4), (1, 4), (2, 0), (2, 1), (2, 2), (2, 3), (2, 4)])
    board.setup("w", [(1, 0), (1, 1), (1, 2), (1, 3)])
    board.play("w", (0, 3))
    return board


def lattice() -> Board:
    """A 9x9 board with a stone on every (r, c), r and c in (1, 4, 7), so that every
    3x3 block holds a stone (no fill-board point); White's (7, 7) is in atari at
    (7, 8), far from everything else; no move has been played yet."""
    board = Board(9)
    points = [(r, c) for r in (1, 4, 7) for c in (1, 4, 7)]
    board.setup("b", [p for p in points if p not in ((7, 7), (1, 1), (1, 4))] + [(6, 7), (7, 6), (8, 7)])
    board.setup("w", [(7, 7), (1, 1), (1, 4)])
    return board


@pytest.mark.parametrize("policy", [seed_order, local_order])
def test_saving_a_string_in_atari_comes_first(policy):
    # White's last move (5, 4) puts Black's (4, 4) in atari; extending at (4, 5) gives
    # it three liberties. The board is otherwise empty (fill-board, patterns).
    board = Board(9)
    board.setup("b", [(4, 4)])
    board.setup("w", [(3, 4), (4, 3)])
    board.play("w", (5, 4))
    assert fill_board_points(board) and candidates(board, pattern_moves, rules.BLACK)
    assert moves_of(board, policy, rules.BLACK) == {flat_index((4, 5), board.size)}


@pytest.mark.parametrize("policy", [seed_order, local_order])
def test_the_nakade_vital_point_of_the_opponents_space_comes_before_fill_board(policy):
    board = corner_three()
    assert candidates(board, save_atari_moves, rules.BLACK) == set()
    assert fill_board_points(board)
    assert moves_of(board, policy, rules.BLACK) == {flat_index((0, 1), board.size)}


def test_the_seed_plays_nakade_only_inside_the_opponents_stones():
    board = corner_three()
    vital = flat_index((0, 1), board.size)
    assert nakade_point(board.b, board.m, rules.BLACK, False) == vital  # White's space: Black kills
    assert nakade_point(board.b, board.m, rules.WHITE, False) == rules.PASS  # its own space: not the seed's rule
    assert nakade_point(board.b, board.m, rules.WHITE, True) == vital  # mogo-local: White lives there


def test_fill_board_comes_before_the_patterns_in_the_seeds_order_only():
    # 19x19, two stones: the points next to White's last move (3, 4) match 3x3
    # shapes, and almost every other point has an empty 3x3 block.
    board = Board(19)
    board.setup("b", [(3, 3)])
    board.play("w", (3, 4))
    patterns = candidates(board, pattern_moves, rules.BLACK)
    fill = fill_board_points(board)
    assert patterns and not patterns & fill
    assert moves_of(board, seed_order, rules.BLACK) <= fill
    assert moves_of(board, local_order, rules.BLACK) <= patterns


def test_patterns_come_before_a_capture_far_from_the_last_move():
    board = lattice()
    board.play("w", (3, 4))
    far_capture = flat_index((7, 8), board.size)
    patterns = candidates(board, pattern_moves, rules.BLACK)
    assert not fill_board_points(board) and patterns
    assert candidates(board, capture_anywhere_moves, rules.BLACK) == {far_capture}
    assert moves_of(board, seed_order, rules.BLACK) <= patterns


def test_the_seed_captures_anywhere_and_mogo_local_only_next_to_the_last_two_moves():
    board = lattice()  # no last move: no pattern, no local capture, no fill-board point
    far_capture = flat_index((7, 8), board.size)
    assert candidates(board, pattern_moves, rules.BLACK) == set()
    assert candidates(board, capture_moves, rules.BLACK) == set()
    assert moves_of(board, seed_order, rules.BLACK) == {far_capture}
    assert len(moves_of(board, local_order, rules.BLACK)) > 1  # a random move


def test_otherwise_a_random_move_that_fills_no_own_eye():
    # Black owns the 3x3 board but for its two eyes (0, 0) and (2, 2): nothing to play.
    board = Board(3)
    board.setup("b", [(0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1)])
    for policy in (seed_order, local_order):
        assert moves_of(board, policy, rules.BLACK) == {rules.PASS}
    # 5x5: two eyes and two empty points side by side, (2, 2) and (2, 3): those two.
    board = Board(5)
    open_points = {(0, 0), (4, 4), (2, 2), (2, 3)}
    board.setup("b", [(r, c) for r in range(5) for c in range(5) if (r, c) not in open_points])
    for policy in (seed_order, local_order):
        assert moves_of(board, policy, rules.BLACK) == {flat_index((2, 2), board.size), flat_index((2, 3), board.size)}


@pytest.mark.parametrize("local", [False, True])
def test_mogo_playouts_in_either_order_end_with_a_score(local):
    seed(3)
    for _ in range(10):
        b, m = rules.new_board(9)
        moves = np.empty(3 * 81, dtype=np.int64)
        score, n = mogo_playout(b, m, rules.BLACK, 7.5, moves, local)
        assert 0 < n <= 243 and score == rules.area_score(b, m, 7.5)
        for color in (rules.BLACK, rules.WHITE):  # only eyes and illegal points are left
            for p in np.flatnonzero(b[rules.COLOR] == rules.EMPTY):
                assert rules.is_eye(b, m, color, p) or rules.illegal_reason(b, m, color, p) != rules.OK

"""Uniform random playouts: the move draw is uniform, playouts fill no true eye,
end when neither side has a move left and return the area score."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from shapemill.engine.playouts.random import random_move, random_playout, run_playouts
from shapemill.go import Board, rules
from shapemill.go.vertices import flat_index


@njit(cache=True)
def seed(s: int) -> None:
    """Seed numba's random generator (separate from numpy's)."""
    np.random.seed(s)


def test_random_move_is_uniform_over_candidates() -> None:
    # Black has three eyes on the top edge; the 15 points below are its candidates.
    board = Board(5)
    board.setup("b", [(3, c) for c in range(5)] + [(4, 1), (4, 3)])
    b, m = board.b, board.m
    eyes = [flat_index((4, c), board.size) for c in (0, 2, 4)]
    assert all(rules.is_eye(b, m, rules.BLACK, p) for p in eyes)
    candidates = [flat_index((r, c), board.size) for r in range(3) for c in range(5)]
    # Put the eyes first in the empty list: a draw that scanned on from a random
    # start would pick the first candidate after them four times as often.
    order = eyes + candidates
    b[rules.EMPTIES, : len(order)] = order
    b[rules.EMPTY_AT, order] = np.arange(len(order))
    seed(1)
    draws = 30_000
    counts = dict.fromkeys(candidates, 0)
    for _ in range(draws):
        counts[random_move(b.copy(), m, rules.BLACK)] += 1
    expected = draws / len(candidates)
    assert all(abs(n - expected) < 0.15 * expected for n in counts.values()), counts


def test_random_move_passes_when_only_eyes_are_left() -> None:
    board = Board(3)
    board.setup("b", [(1, 0), (1, 1), (1, 2), (0, 1), (2, 1)])
    assert random_move(board.b, board.m, rules.BLACK) == rules.PASS  # four eyes
    assert random_move(board.b, board.m, rules.WHITE) == rules.PASS  # all suicide


@pytest.mark.parametrize("size", [5, 9, 19])
def test_playout_ends_with_only_eyes_and_illegal_points(size: int) -> None:
    seed(size)
    for _ in range(20):
        b, m = rules.new_board(size)
        score = random_playout(b, m, rules.BLACK, 7.5)
        assert score == rules.area_score(b, m, 7.5)
        assert abs(score + 7.5) <= size * size
        empties = b[rules.EMPTIES, : m[rules.N_EMPTY]]
        assert sorted(empties) == list(np.flatnonzero(b[rules.COLOR] == rules.EMPTY))
        for color in (rules.BLACK, rules.WHITE):
            for p in empties:
                assert rules.is_eye(b, m, color, p) or rules.illegal_reason(b, m, color, p) != rules.OK
        assert m[rules.LAST] == m[rules.LAST2] == rules.PASS


def test_run_playouts_is_reproducible() -> None:
    rate = run_playouts(9, 200, 7.5, 7)
    assert 0.0 <= rate <= 1.0
    assert run_playouts(9, 200, 7.5, 7) == rate

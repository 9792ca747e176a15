"""Playout Policy Adaptation: Cazenave's update rule, and a search that adapts its playouts."""

from __future__ import annotations

import math

import numpy as np
from shapemill.engine.search.search import Search, SearchConfig
from shapemill.engine.playouts.gamma import gamma_move, gamma_playout, gamma_state, ppa_update, ppa_weights
from shapemill.go import rules
from shapemill.go.board import Board
from shapemill.patterns.features import FEATURE_LEVELS, N_FEATURES
from shapemill.go.vertices import flat_index
from test_mcts import capturing_race
from test_playout import seed

ONES = np.ones((N_FEATURES, max(FEATURE_LEVELS)))


def three_empty_points() -> tuple[Board, list[int]]:
    """A 5x5 board full of Black but three points in a row on the top edge: each
    has an empty neighbour (no eye) and leaves Black a liberty, so they are Black's
    only moves, all legal."""
    board = Board(5)
    board.setup("b", [(r, c) for r in range(5) for c in range(5) if r > 0 or c > 2])
    return board, [flat_index((0, c), board.size) for c in range(3)]


def test_update_by_hand_three_moves_one_won():
    """Weights 0, ln 2, 0 draw the three moves with probabilities 1/4, 1/2, 1/4. Black
    played the second and won; rate 0.5: w += 0.5 on it, w -= 0.5 * probability on
    each of the three: -0.125, ln 2 + 0.25, -0.125. White's weights stay; the masses empty."""
    board, points = three_empty_points()
    b, m = board.b, board.m
    adapt = ppa_weights(b.shape[1], 0.5)
    adapt.weights[rules.BLACK, points[1]] = math.log(2)
    adapt.bias[rules.BLACK] = np.exp(adapt.weights[rules.BLACK])
    state = gamma_state(b, m, ONES)
    seed(1)
    played = gamma_move(b, m, rules.BLACK, ONES, state, 0, adapt)
    assert played in points
    assert np.allclose(adapt.mass[rules.BLACK, points], [0.25, 0.5, 0.25]) and adapt.mass.sum() == 1.0
    ppa_update(adapt, np.array([points[1]]), 1, rules.BLACK, rules.BLACK)
    assert np.allclose(adapt.weights[rules.BLACK, points], [-0.125, math.log(2) + 0.25, -0.125])
    assert np.allclose(adapt.bias[rules.BLACK, points], np.exp([-0.125, math.log(2) + 0.25, -0.125]))
    assert not adapt.weights[rules.WHITE].any() and not adapt.mass.any()


def test_the_losers_weights_stay():
    board, points = three_empty_points()
    adapt = ppa_weights(board.b.shape[1], 0.5)
    adapt.mass[rules.BLACK, points] = [0.25, 0.5, 0.25]
    ppa_update(adapt, np.array([points[1]]), 1, rules.BLACK, rules.WHITE)
    assert not adapt.weights.any() and np.all(adapt.bias == 1.0)


def test_weights_move_toward_the_winners_moves():
    """In the capturing race whoever plays G5 wins (komi 20.5): after playouts adapting
    the weights, G5 has the largest weight of both colours, and playouts play it first
    more often than the mined gammas alone do."""
    board = capturing_race()
    g5 = flat_index((4, 6), board.size)
    moves = np.empty(243, dtype=np.int64)
    adapt = ppa_weights(board.b.shape[1], 0.32)
    seed(11)
    for _ in range(300):
        gamma_playout(board.b.copy(), board.m.copy(), rules.BLACK, 20.5, moves, ONES, adapt)
    for color in (rules.BLACK, rules.WHITE):
        assert np.argmax(adapt.weights[color]) == g5 and adapt.weights[color, g5] > 1.0
    frozen = adapt._replace(rate=0.0)
    first = {}
    for name, a in (("mined", ppa_weights(board.b.shape[1], 0.0)), ("adapted", frozen)):
        seed(12)
        hits = 0
        for _ in range(200):
            gamma_playout(board.b.copy(), board.m.copy(), rules.BLACK, 20.5, moves, ONES, a)
            hits += moves[0] == g5
        first[name] = hits
    assert first["adapted"] > 2 * first["mined"], first


def test_a_ppa_search_returns_a_legal_move_and_adapts():
    board = Board(9)
    board.play("b", (4, 4))
    search = Search(SearchConfig(playouts=200, seed=2, playout_policy="ppa-paper", gammas=ONES))
    result = search.run(board, rules.WHITE)
    assert board.is_legal("w", (result.move // 11 - 1, result.move % 11 - 1))
    weights = search.adapted[0].weights
    assert weights[rules.BLACK].any() and weights[rules.WHITE].any()
    assert search.run(board, rules.WHITE).playouts == 200  # a second search starts from fresh weights
    assert search.adapted[0].weights is not weights

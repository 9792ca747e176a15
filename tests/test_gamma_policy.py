"""The gamma playout policy: incremental gammas equal fresh ones, draws follow the
gammas, playouts are legal games that end with a score."""

from __future__ import annotations

import numpy as np
import pytest
from shapemill.engine.mcts import Search, SearchConfig
from shapemill.engine.playout_gamma import (
    _base_gamma,
    _draw,
    _play_drawn,
    _refresh,
    gamma_playout,
    gamma_state,
    playout_gammas,
)
from shapemill.go import rules
from shapemill.go.board import Board
from shapemill.go.reading import string_libs3
from shapemill.miner.features import FEATURE_LEVELS, FEATURES, N_FEATURES
from shapemill.patterns.defaults import RATINGS, default_table
from test_mcts import best_move, capturing_race
from test_playout import seed

# Levels that read ladders or the ko flag, which the policy leaves stale on
# purpose: within each group they get one gamma, so staleness cannot show (the
# ladder feature, on or off by a reading, gets gamma 1 throughout).
READ_LEVELS = {"capture": (5, 6), "extension": (1, 2), "atari": (1, 2, 3), "ladder": (0, 1, 2)}
READ_LEVELS_2 = {"extension": (3, 4)}


def distinct_gammas(rng: np.random.Generator) -> np.ndarray:
    """A random gamma for every level, equal within the ladder / ko groups."""
    gammas = np.ones((N_FEATURES, max(FEATURE_LEVELS)))
    for f, name in enumerate(FEATURES):
        gammas[f, 1:FEATURE_LEVELS[f]] = rng.uniform(0.2, 5.0, FEATURE_LEVELS[f] - 1)
        for groups in (READ_LEVELS, READ_LEVELS_2):
            levels = groups.get(name)
            if levels:
                gammas[f, list(levels)] = gammas[f, levels[0]]  # level 0's gamma is 1
    return gammas


@pytest.mark.parametrize("size,game", [(9, 1), (9, 2), (13, 3), (19, 4)])
def test_incremental_gammas_equal_fresh_ones_all_playout_long(size, game):
    """After every move the kept gammas of the colour to move are those a fresh
    feature read gives, over whole playouts with captures and ko fights."""
    gammas = distinct_gammas(np.random.default_rng(game))
    b, m = rules.new_board(size)
    state = gamma_state(b, m, gammas)
    levels, base = state[1], state[2]
    seed(game)
    color, passes, n = rules.BLACK, 0, 0
    fresh_scratch = gamma_state(b, m, gammas)[0].scratch
    while passes < 2 and n < 3 * size * size:
        _refresh(b, m, color, gammas, state, n)
        string_libs3(b, m, fresh_scratch[0])
        for i in range(m[rules.N_EMPTY]):
            p = b[rules.EMPTIES, i]
            assert base[color, p] == _base_gamma(b, m, color, p, gammas, fresh_scratch, levels), (n, p)
        p = _play_drawn(b, m, color, gammas, state, n)
        passes = passes + 1 if p == rules.PASS else 0
        n += 1
        color = 3 - color
    assert m[rules.CAPS_B] + m[rules.CAPS_W] > 0  # the check went through captures


def test_draws_follow_the_gammas():
    """Three candidates left with gammas 1, 2 and 5 (no last move, so no distance
    factor): drawn about 1/8, 2/8 and 5/8 of the time."""
    board = Board(5)
    board.setup("b", [(r, c) for r in range(5) for c in range(5) if (r, c) not in ((0, 0), (0, 2), (4, 4), (2, 2))])
    b, m = board.b, board.m
    points = [board._point(x) for x in ((0, 0), (0, 2), (4, 4))]
    base = np.zeros(b.shape[1])
    base[points] = [1.0, 2.0, 5.0]
    gammas = np.ones((N_FEATURES, max(FEATURE_LEVELS)))
    seed(3)
    weight = np.empty(b.shape[1])
    draws = 16_000
    counts = dict.fromkeys(points, 0)
    for _ in range(draws):
        counts[_draw(b, m, rules.BLACK, base, gammas, weight)] += 1
    for p, share in zip(points, (1 / 8, 2 / 8, 5 / 8)):
        assert abs(counts[p] / draws - share) < 0.02, counts


def test_a_point_that_weighs_nothing_is_never_drawn():
    board = Board(5)
    b, m = board.b, board.m
    base = np.zeros(b.shape[1])
    gammas = np.ones((N_FEATURES, max(FEATURE_LEVELS)))
    weight = np.empty(b.shape[1])
    assert _draw(b, m, rules.BLACK, base, gammas, weight) == rules.PASS
    base[board._point((2, 2))] = 1e-9
    assert _draw(b, m, rules.BLACK, base, gammas, weight) == board._point((2, 2))


def test_capture_gamma_makes_the_playout_capture():
    """With a huge gamma on capturing, the first playout move takes the white
    stone in atari; with the capture gamma tiny, it almost never does."""
    board = Board(9)
    board.setup("b", [(4, 3), (4, 5), (3, 4)])
    board.setup("w", [(4, 4)])
    capture = board._point((5, 4))
    f = FEATURES.index("capture")
    taken = {}
    for g in (1e6, 1e-6):
        gammas = np.ones((N_FEATURES, max(FEATURE_LEVELS)))
        gammas[f, 1:] = g
        seed(5)
        moves = np.empty(243, dtype=np.int64)
        hits = 0
        for _ in range(200):
            gamma_playout(board.b.copy(), board.m.copy(), rules.BLACK, 7.5, moves, gammas)
            hits += moves[0] == capture
        taken[g] = hits
    assert taken[1e6] == 200 and taken[1e-6] <= 2, taken


def test_playouts_are_legal_games_that_end_with_a_score():
    """Every move of a playout is legal by the rules (replayed on a Board, which
    also checks superko-free play is not required: simple ko and suicide are)."""
    gammas = distinct_gammas(np.random.default_rng(7))
    for game in range(5):
        b, m = rules.new_board(9)
        moves = np.empty(243, dtype=np.int64)
        seed(game)
        score, n = gamma_playout(b, m, rules.BLACK, 7.5, moves, gammas)
        assert 0 < n <= 243 and abs(score) <= 81 + 7.5
        b2, m2 = rules.new_board(9)
        color = rules.BLACK
        for p in moves[:n]:
            if p != rules.PASS:
                assert rules.illegal_reason(b2, m2, color, p) == 0
                assert not rules.is_eye(b2, m2, color, p)
            rules.play(b2, m2, color, p)
            color = 3 - color
        assert np.array_equal(b2[rules.COLOR], b[rules.COLOR])


@pytest.fixture(scope="module")
def bundled_gammas() -> np.ndarray:
    return playout_gammas(default_table(RATINGS))


def test_the_bundled_table_gives_gammas_of_its_rows(bundled_gammas):
    import pyarrow.parquet as pq

    rows = pq.read_table(default_table(RATINGS), columns=["feature", "value", "gamma"]).to_pylist()
    capture = next(r for r in rows if r["feature"] == "capture" and r["value"] == 1)
    assert bundled_gammas[FEATURES.index("capture"), 1] == capture["gamma"]
    assert (bundled_gammas[:, 0] == 1.0).all()
    assert len({r["feature"] for r in rows} - set(FEATURES)) == 2  # pattern and pass are not playout features


def test_a_gamma_search_needs_its_gammas():
    with pytest.raises(ValueError, match="gamma"):
        Search(SearchConfig(policy="gamma"))


@pytest.mark.parametrize("color", [rules.BLACK, rules.WHITE])
def test_the_search_with_gamma_playouts_captures_to_win_the_race(color, bundled_gammas):
    assert best_move(capturing_race(), color, playouts=1000, komi=20.5, policy="gamma",
                     gammas=bundled_gammas) == (4, 6)


def test_gamma_search_same_seed_same_move(bundled_gammas):
    board = Board(9)
    for color, point in (("b", (4, 4)), ("w", (2, 6)), ("b", (6, 2))):
        board.play(color, point)
    config = SearchConfig(playouts=400, seed=7, policy="gamma", gammas=bundled_gammas)
    first, second = Search(config).run(board, rules.WHITE), Search(config).run(board, rules.WHITE)
    assert first.move == second.move
    assert np.array_equal(first.visits, second.visits)

"""The gamma playout policy: incremental gammas equal fresh ones, draws follow the
gammas, playouts are legal games that end with a score."""

from __future__ import annotations

import numpy as np
import pytest
from shapemill.engine.search import Search, SearchConfig
from scipy.stats import chisquare
from shapemill.engine.playouts.gamma import gamma_move, gamma_playout, gamma_state, playout_gammas, ppa_weights
from shapemill.go import rules
from shapemill.go.board import Board
from shapemill.patterns.features import FEATURE_LEVELS, FEATURES, N_FEATURES
from shapemill.patterns.defaults import RATINGS, default_table
from shapemill.go.vertices import flat_index
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
    """Before every move the kept gammas of the colour to move are those a fresh
    state read from scratch on that position gives, over whole playouts with
    captures and ko fights (a move only marks points: the gammas it was drawn by
    are those of the position before it)."""
    gammas = distinct_gammas(np.random.default_rng(game))
    b, m = rules.new_board(size)
    state = gamma_state(b, m, gammas)
    seed(game)
    alone = ppa_weights(b.shape[1], 0.0)
    color, passes, n = rules.BLACK, 0, 0
    while passes < 2 and n < 3 * size * size:
        fresh = gamma_state(b.copy(), m.copy(), gammas).base[color]
        p = gamma_move(b, m, color, gammas, state, n, alone)
        assert np.array_equal(state.base[color], fresh), (n, np.flatnonzero(state.base[color] != fresh))
        passes = passes + 1 if p == rules.PASS else 0
        n += 1
        color = 3 - color
    assert m[rules.CAPS_B] + m[rules.CAPS_W] > 0  # the check went through captures


def two_white_stones_in_atari() -> tuple[Board, set[int]]:
    """A 5x5 board: white stones in two corners, (0, 0) and (4, 4), each left one
    liberty by a black stone, (0, 1) and (3, 4); Black to move, no last move. The
    capturing points, by hand: (1, 0) and (4, 3), as flat indices of the 7-wide
    padded board."""
    board = Board(5)
    board.setup("w", [(0, 0), (4, 4)])
    board.setup("b", [(0, 1), (3, 4)])
    return board, {(r + 1) * 7 + c + 1 for r, c in ((1, 0), (4, 3))}


def test_first_draws_follow_the_gammas():
    """Every gamma 1 but capturing's, 6: of the 21 empty points, the two captures
    weigh 6 and the 19 others 1 (no eye, no illegal move), so a playout's first
    move is each capture with probability 6/31 and each other point 1/31. 6,200
    first moves pass a chi-square test against those shares (fixed seed; the
    bound rejects a right policy one time in a thousand)."""
    board, captures = two_white_stones_in_atari()
    gammas = np.ones((N_FEATURES, max(FEATURE_LEVELS)))
    gammas[FEATURES.index("capture"), 1:] = 6.0
    w = 7
    empties = [(r + 1) * w + c + 1 for r in range(5) for c in range(5)
               if board.get((r, c)) is None]
    assert len(empties) == 21 and captures <= set(empties)
    expected = np.array([6.0 if p in captures else 1.0 for p in empties])
    expected /= expected.sum()
    moves = np.empty(75, dtype=np.int64)
    draws = 6_200
    counts = dict.fromkeys(empties, 0)
    seed(3)
    alone = ppa_weights(board.b.shape[1], 0.0)  # the gamma policy's weights: the gammas alone
    for _ in range(draws):
        gamma_playout(board.b.copy(), board.m.copy(), rules.BLACK, 0.5, moves, gammas, alone)
        counts[int(moves[0])] += 1
    observed = np.array([counts[p] for p in empties])
    assert chisquare(observed, expected * draws).pvalue > 1e-3, counts


def test_a_point_that_weighs_nothing_is_never_drawn():
    """A capture gamma of 0 strikes out both captures; a board where Black has only
    its own eyes left gives a pass."""
    board, captures = two_white_stones_in_atari()
    gammas = np.ones((N_FEATURES, max(FEATURE_LEVELS)))
    gammas[FEATURES.index("capture"), 1:] = 0.0
    moves = np.empty(75, dtype=np.int64)
    seed(4)
    firsts = set()
    alone = ppa_weights(board.b.shape[1], 0.0)
    for _ in range(1000):
        gamma_playout(board.b.copy(), board.m.copy(), rules.BLACK, 0.5, moves, gammas, alone)
        firsts.add(int(moves[0]))
    assert not firsts & captures and len(firsts) == 19
    eyes = Board(5)
    eyes.setup("b", [(r, c) for r in range(5) for c in range(5) if (r, c) not in ((0, 0), (2, 2), (4, 4))])
    state = gamma_state(eyes.b, eyes.m, gammas)
    assert gamma_move(eyes.b, eyes.m, rules.BLACK, gammas, state, 0, ppa_weights(eyes.b.shape[1], 0.0)) == rules.PASS


def test_capture_gamma_makes_the_playout_capture():
    """With a huge gamma on capturing, the first playout move takes the white
    stone in atari; with the capture gamma tiny, it almost never does."""
    board = Board(9)
    board.setup("b", [(4, 3), (4, 5), (3, 4)])
    board.setup("w", [(4, 4)])
    capture = flat_index((5, 4), board.size)
    f = FEATURES.index("capture")
    taken = {}
    for g in (1e6, 1e-6):
        gammas = np.ones((N_FEATURES, max(FEATURE_LEVELS)))
        gammas[f, 1:] = g
        seed(5)
        moves = np.empty(243, dtype=np.int64)
        hits = 0
        for _ in range(200):
            gamma_playout(board.b.copy(), board.m.copy(), rules.BLACK, 7.5, moves, gammas,
                          ppa_weights(board.b.shape[1], 0.0))
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
        score, n = gamma_playout(b, m, rules.BLACK, 7.5, moves, gammas, ppa_weights(b.shape[1], 0.0))
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
    # a pattern, its near twin and the pass are not playout features
    assert {r["feature"] for r in rows} - set(FEATURES) == {"pattern", "near_pattern", "pass"}


def test_a_gamma_search_needs_its_gammas():
    with pytest.raises(ValueError, match="gamma"):
        Search(SearchConfig(playout_policy="gamma"))


@pytest.mark.parametrize("color", [rules.BLACK, rules.WHITE])
def test_the_search_with_gamma_playouts_captures_to_win_the_race(color, bundled_gammas):
    assert best_move(capturing_race(), color, playouts=1000, komi=20.5, playout_policy="gamma",
                     gammas=bundled_gammas) == (4, 6)


def test_gamma_search_same_seed_same_move(bundled_gammas):
    board = Board(9)
    for color, point in (("b", (4, 4)), ("w", (2, 6)), ("b", (6, 2))):
        board.play(color, point)
    config = SearchConfig(playouts=400, seed=7, playout_policy="gamma", gammas=bundled_gammas)
    first, second = Search(config).run(board, rules.WHITE), Search(config).run(board, rules.WHITE)
    assert first.move == second.move
    assert np.array_equal(first.visits, second.visits)

"""The incremental counting passes give exactly the straightforward ones' counts: the
patterns table (``mine.count``) and the tactical-feature levels (``feature_counts``)."""


import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import mine_game
from shapemill.datasets.corpus import Corpus, load_corpus
from shapemill.go.reading import legal_moves
from shapemill.go.rules import (
    BLACK,
    KO_BAN,
    OCCUPIED,
    OK,
    PASS,
    SUICIDE,
    WHITE,
    illegal_reason,
    play,
    to_point,
)
from shapemill.miner import counts, mine
from shapemill.miner.feature_counts import feature_counts
from shapemill.patterns.features import FEATURE_LEVELS, N_FEATURES, tactical_features
from shapemill.miner.pattern_counts import INSERTS, count_game

COLUMNS = ("pattern_id", "ring", "seen", "played", "witness")


def straightforward(corpus: Corpus, dictionary: counts.Table, params: mine.MineParams) -> counts.Table:
    """The reference: pass 2 with ``oracles.mine_game``, every ring of every candidate."""
    table = mine._gate(dictionary)
    for i in range(len(corpus)):
        table = mine_game(corpus, i, params, table)
    return table


def assert_same(expected: counts.Table, got: counts.Table | dict) -> None:
    """The same patterns seen, with the same counts (``got``: a table, or the
    columns ``mine.count`` gives)."""
    a = mine._CountPatterns.end(expected)
    b = got if isinstance(got, dict) else mine._CountPatterns.end(got)
    for name in COLUMNS:
        assert np.array_equal(a[name], b[name]), name


def check(corpus: Corpus, params: mine.MineParams, workers: int = 1) -> None:
    dictionary, _ = mine.discover(corpus, params)
    assert_same(straightforward(corpus, dictionary, params), mine.count(corpus, dictionary, params, workers))


def make_corpus(games: list[tuple]) -> Corpus:
    """``games``: (size, first colour, black setup, white setup, moves), record indices."""
    return Corpus(
        ids=[f"g{i}" for i in range(len(games))],
        board_size=np.array([g[0] for g in games], dtype=np.int16),
        first_color=np.array([g[1] for g in games], dtype=np.int8),
        moves=np.array([m for g in games for m in g[4]], dtype=np.int16),
        offsets=np.concatenate([[0], np.cumsum([len(g[4]) for g in games])]).astype(np.int64),
        setup_black=[np.array(g[2], dtype=np.int16) for g in games],
        setup_white=[np.array(g[3], dtype=np.int16) for g in games],
    )


def reasons(b, m, color: int, size: int) -> list[int]:
    """Why ``color`` may not play at each record index (OK where it may)."""
    return [illegal_reason(b, m, color, to_point(i, size)) for i in range(size * size)]


def random_game(size, first, black, white, n_moves, rng, passes=0.05, illegal_end=False) -> tuple:
    """A game of ``n_moves`` legal moves drawn at random (a pass with probability
    ``passes``), then an illegal one (a stone's point) if ``illegal_end``."""
    game = (size, first, black, white, [])
    b, m = make_corpus([game]).start_position(0)
    color = first
    for _ in range(n_moves):
        legal = [i for i, r in enumerate(reasons(b, m, color, size)) if r == OK]
        index = int(rng.choice(legal)) if legal and rng.random() >= passes else -1
        game[4].append(index)
        play(b, m, color, to_point(index, size))
        color = 3 - color
    occupied = [i for i, r in enumerate(reasons(b, m, color, size)) if r == OCCUPIED]
    if illegal_end and occupied:
        game[4].append(occupied[0])
    return game


@st.composite
def games(draw, sizes=st.integers(5, 9)):
    """A game played at random, long enough on a small board for many captures, ko
    and suicide points; with passes, setup stones, either colour first, and
    sometimes an illegal last move (counting stops there)."""
    size = draw(sizes)
    stones = st.tuples(st.integers(0, size * size - 1), st.booleans())
    setup = draw(st.lists(stones, max_size=6, unique_by=lambda s: s[0]))
    return random_game(
        size,
        draw(st.sampled_from([BLACK, WHITE])),
        [i for i, w in setup if not w],
        [i for i, w in setup if w],
        draw(st.integers(1, 3 * size * size)),
        np.random.default_rng(draw(st.integers(0, 2**32 - 1))),
        draw(st.sampled_from([0.0, 0.05, 0.3])),
        draw(st.booleans()),
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    games=st.lists(games(), min_size=1, max_size=3),
    min_count=st.integers(2, 6),
    max_ring=st.sampled_from([4, 7, 54]),
)
def test_random_games_give_the_same_table(games, min_count, max_ring):
    check(make_corpus(games), mine.MineParams(min_count=min_count, max_ring=max_ring, discovery_games=len(games)))


def test_random_play_reaches_the_hard_cases():
    # Guards the generator above: its games have captures, ko bans and suicide points.
    size, first, _, _, moves = random_game(5, BLACK, [], [], 300, np.random.default_rng(0))
    b, m = make_corpus([(size, first, [], [], [])]).start_position(0)
    seen = set()
    for n, index in enumerate(moves):
        color = first if n % 2 == 0 else 3 - first
        seen.update(reasons(b, m, color, size))
        if play(b, m, color, to_point(index, size)):
            seen.add("capture")
    assert {KO_BAN, SUICIDE, "capture"} <= seen


def test_tiny_boards_handicap_and_white_first():
    games = [
        (2, BLACK, [], [], [0, 3, -1, 1]),
        (3, WHITE, [4], [], [0, 8, 2, -1, 6]),
        (4, BLACK, [0, 15], [5], [3, 12, 6, 9, -1, -1, 10]),
        (1, BLACK, [], [], [-1, -1]),
    ]
    check(make_corpus(games), mine.MineParams(min_count=2, discovery_games=4))


def test_empty_board_patterns_count_only_where_seen():
    # Every game starts from the empty board's chains: its patterns must not reach
    # the table when no position has them (here the setup stones cover them).
    check(make_corpus([(2, WHITE, [0], [3], [-1, -1, -1])]), mine.MineParams(min_count=2, discovery_games=1))


def test_a_table_that_fills_up_mid_game_is_grown_without_changing_counts():
    corpus = make_corpus([random_game(9, BLACK, [], [], 120, np.random.default_rng(seed)) for seed in (1, 2)])
    params = mine.MineParams(min_count=2, discovery_games=1)
    dictionary, _ = mine.discover(make_corpus([(9, BLACK, [], [], [40, 30, 31, 39])]), params)
    table = mine._gate(dictionary)
    capacity = counts.capacity(table)
    # Say the table is all but full: the first pattern inserted, mid-game, makes the
    # kernel stop for room, with instances open whose slots are the old table's.
    table[2][0] = capacity // 2 - INSERTS * 81
    cache: dict = {}
    for i in range(len(corpus)):
        table = count_game(corpus, i, params, table, cache)
    assert counts.capacity(table) > capacity
    assert_same(straightforward(corpus, dictionary, params), table)


def test_workers_share_the_games_with_the_same_result():
    games = [(9, BLACK, [], [], [20, 60, 24, 56, 40, 30, 31, 39]), (7, WHITE, [24], [], [10, 38, 11, 17, 12])] * 2
    check(make_corpus(games), mine.MineParams(min_count=2, discovery_games=4), workers=2)


@pytest.mark.shared_data
def test_real_games_give_the_same_table(shared_data):
    corpus = load_corpus([shared_data / "tygem9d"], split="all", limit=20)
    check(corpus, mine.MineParams(min_count=10, discovery_games=20))


def features_read_afresh(corpus: Corpus) -> tuple[np.ndarray, np.ndarray]:
    """The reference for ``feature_counts``: every legal move's features read
    at every position (``tactical_features``), up to a game's first illegal move."""
    seen = np.zeros((N_FEATURES + 1, max(FEATURE_LEVELS)), dtype=np.int64)
    played = np.zeros_like(seen)
    for i in range(len(corpus)):
        b, m = corpus.start_position(i)
        size, first = int(corpus.board_size[i]), int(corpus.first_color[i])
        for n, index in enumerate(corpus.game_moves(i).tolist()):
            color, chosen = first if n % 2 == 0 else 3 - first, to_point(index, size)
            if illegal_reason(b, m, color, chosen) != OK:
                break
            points = legal_moves(b, m, color)
            levels = np.zeros((len(points), N_FEATURES), dtype=np.int32)
            tactical_features(b, m, color, points, levels)
            for f in range(N_FEATURES):
                np.add.at(seen[f], levels[:, f], 1)
                np.add.at(played[f], levels[points == chosen, f], 1)
            seen[N_FEATURES, 1] += 1
            played[N_FEATURES, 1] += chosen == PASS
            play(b, m, color, chosen)
    seen[:, 0] = played[:, 0] = 0  # level 0 is "absent", not counted
    return seen, played


def check_features(corpus: Corpus) -> None:
    seen, played = feature_counts(corpus)
    seen[:, 0] = played[:, 0] = 0
    expected_seen, expected_played = features_read_afresh(corpus)
    assert np.array_equal(seen, expected_seen) and np.array_equal(played, expected_played)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(games=st.lists(games(st.integers(5, 13)), min_size=1, max_size=2))
def test_random_games_give_the_feature_counts_of_a_fresh_read(games):
    check_features(make_corpus(games))


@pytest.mark.shared_data
def test_real_games_give_the_feature_counts_of_a_fresh_read(shared_data):
    # strong players' games: ladders read and broken, ko fights, big captures
    check_features(load_corpus([shared_data / "tygem9d"], split="all", limit=30))

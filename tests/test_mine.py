"""Mining: counts checked by hand, invariance, determinism, the command and its table."""

from dataclasses import replace
from pathlib import Path

import duckdb
import numba
import numpy as np
import pytest
from click.testing import CliRunner
from shapemill.cli import main
from shapemill.datasets.corpus import Corpus, load_corpus
from shapemill.go.rings import (
    PATTERN_ZOBRIST,
    RELATIVE,
    RING_END,
    fill_padded,
    geometry,
    padded_point,
)
from shapemill.go.rules import play, to_point
from shapemill.miner.feature_counts import count_features
from shapemill.miner.keys import witness_keys
from shapemill.miner.mine import MineParams, mine_patterns
from shapemill.miner.shards import Job, map_games, map_shards
from shapemill.tables import read_table

FIXTURES = Path(__file__).parent / "fixtures" / "games"


def corpus(games: list[list[int]], size: int, first: int = 1) -> Corpus:
    return Corpus(
        ids=[f"g{i}" for i in range(len(games))],
        board_size=np.full(len(games), size, dtype=np.int16),
        first_color=np.full(len(games), first, dtype=np.int8),
        moves=np.array([m for g in games for m in g], dtype=np.int16),
        offsets=np.concatenate([[0], np.cumsum([len(g) for g in games])]).astype(np.int64),
        setup_black=[np.zeros(0, dtype=np.int16)] * len(games),
        setup_white=[np.zeros(0, dtype=np.int16)] * len(games),
    )


def by_counts(rows) -> list[tuple[int, int, int]]:
    return sorted(zip(rows["ring"].tolist(), rows["seen"].tolist(), rows["played"].tolist()))


def test_counts_of_a_tiny_game_checked_by_hand():
    # 2x2 board, Black a1 (index 0), White b2 (index 3). Rings: 2 (neighbours), 3 (+diagonal).
    # Position 1, Black to move, empty board: 4 candidates, all the same shape
    #   P2 (two empty neighbours, two off-board) and P3 (its empty diagonal added).
    # Position 2, White to move: b2 sees P2 again (its neighbours are empty), a2 and b1
    #   are mirror images: Q2 (an opponent neighbour, one empty, two off-board).
    #   b2's ring 3 is R3 (opponent diagonal); a2's and b1's is Q3.
    # The game is played twice, both games in one discovery shard. Discovery
    # (threshold: its floor, 2) counts each
    # candidate's rings up to its frontier, the first ring whose pattern had not been
    # seen twice when the candidate's rings last changed. Round 1, game 1: nothing is
    # frequent yet, every frontier is ring 2; P2 ends it seen 5 times (4 + b2), Q2
    # twice. Game 2 starts from an empty board whose candidates now reach P3; a2 and
    # b1 grow from Q2 to Q3 when a1 is played; b2's ring 3 becomes R3, seen once: not
    # discovered in round 1. Round 2, gated by round 1's P2, reaches R3 in both
    # games: seen twice, discovered. The counting pass then counts all five exactly:
    # P2 (4 + 1) x 2 seen, played by a1 and b2; P3 4 x 2, by a1; Q2, Q3 2 x 2; R3 2, by b2.
    games = corpus([[0, 3], [0, 3]], 2)
    rows = mine_patterns(games, MineParams(min_count=1, discovery_games=2, discovery_shards=1))
    assert by_counts(rows) == [(2, 4, 0), (2, 10, 4), (3, 2, 2), (3, 4, 0), (3, 8, 2)]
    assert len(set(rows["key"].to_pylist())) == 5
    one_round = mine_patterns(games, MineParams(min_count=1, discovery_games=2, discovery_shards=1, discovery_rounds=0))
    assert by_counts(one_round) == [(2, 4, 0), (2, 10, 4), (3, 4, 0), (3, 8, 2)]
    # In two shards, a game each, no ring grows within round 1 (its patterns are
    # counted when the game ends); summed, P2 and Q2 are frequent, so round 2
    # counts every ring 3 once a game: P3 8, Q3 4 and R3 2 times, all discovered.
    sharded = MineParams(min_count=1, discovery_games=2, discovery_shards=2, discovery_rounds=0)
    assert by_counts(mine_patterns(games, sharded)) == [(2, 4, 0), (2, 10, 4)]
    assert by_counts(mine_patterns(games, replace(sharded, discovery_rounds=1))) == by_counts(rows)


def test_feature_counts_of_a_tiny_game_checked_by_hand():
    # The same 2x2 game: Black a1, White b2. Position 1: four first-line moves with two
    # liberties each. Position 2 (White): b2 has two liberties and is 3 (gridcular) from
    # a1; a2 and b1 touch a1 (distance 2) and would have one liberty: self-atari.
    rows = count_features(corpus([[0, 3]], 2))
    got = {(f, int(lv)): (int(s), int(p)) for f, lv, s, p in zip(rows["feature"], rows["level"], rows["seen"], rows["played"])}
    assert got[("pass", 1)] == (2, 0)
    assert got[("border", 1)] == (7, 2)
    assert got[("libs_after", 2)] == (5, 2)
    assert got[("libs_after", 1)] == (2, 0)
    assert got[("self_atari", 1)] == (2, 0)
    assert got[("last_dist", 2)] == (2, 0)
    assert got[("last_dist", 3)] == (1, 1)
    assert ("capture", 1) not in got


def test_discovery_rounds_find_every_shape_of_a_game_played_three_times():
    # Every shape of a game played three times occurs three times, so every ring of
    # every candidate is frequent; each round reaches at least one ring further, so
    # with a round per ring (2 .. 12 on 5x5) every ring of every candidate is counted:
    # each ring's patterns are seen as often as the smallest's, once per legal move.
    game = [12, 6, 8, 16, 7, 11, 18, 13, 17, 3]
    full = mine_patterns(corpus([game] * 3, 5), MineParams(min_count=1, discovery_games=3, discovery_rounds=11))
    seen = np.bincount(full["ring"], weights=full["seen"])
    assert len(seen) == 13 and (seen[2:] == seen[2]).all()
    first = mine_patterns(corpus([game] * 3, 5), MineParams(min_count=1, discovery_games=3, discovery_rounds=0))
    assert np.bincount(first["ring"], weights=first["seen"], minlength=13)[12] < seen[12]


def test_the_table_does_not_change_under_symmetry_colour_swap_or_workers():
    # Two 9x9 games; the second is the first mirrored left-right with colours swapped.
    game = [20, 60, 24, 56, 40, 30, 31, 39, 49, 48, 50, 41, 32, 22, 23, 33]
    mirrored = [(i // 9) * 9 + 8 - i % 9 for i in game]
    params = MineParams(min_count=2, discovery_games=4)
    once = mine_patterns(corpus([game], 9), params)
    swapped = mine_patterns(corpus([mirrored], 9, first=2), params)
    assert by_counts(once) == by_counts(swapped)
    assert set(once["pattern_id"].tolist()) == set(swapped["pattern_id"].tolist())
    both = corpus([game, mirrored, game[:10]], 9)
    one, two = mine_patterns(both, params, workers=1), mine_patterns(both, params, workers=2)
    for name in ("pattern_id", "ring", "seen", "played", "witness"):
        assert (one[name] == two[name]).all()
    assert one["key"].equals(two["key"])


def test_smallest_ring_counts_every_legal_move(tmp_path):
    game = [20, 60, 24, 56, 40, 30, 31, 39]
    rows = mine_patterns(corpus([game], 9), MineParams(min_count=10**9, discovery_games=1))
    assert set(rows["ring"].tolist()) == {2}
    # Legal moves of the positions before each move: 81, 80, ..., 74 (no captures).
    assert rows["seen"].sum() == sum(range(74, 82))
    assert rows["played"].sum() == len(game)


def replayed_key(games: Corpus, witness: int, ring: int) -> bytes:
    """A pattern's key the plain way: its game replayed move by move up to its first
    occurrence, its ring's states read there in all eight symmetries, those of the
    smallest hash kept, packed four to a byte."""
    g, n, p = witness >> 24, (witness >> 12) & 0xFFF, witness & 0xFFF
    size, first = int(games.board_size[g]), int(games.first_color[g])
    b, m = games.start_position(g)
    for i, move in enumerate(games.game_moves(g)[:n].tolist()):
        play(b, m, first if i % 2 == 0 else 3 - first, to_point(move, size))
    geo = geometry(size)
    state = np.empty(geo.stride**2, dtype=np.int8)
    fill_padded(b, m, geo.pad, state)
    end = RING_END[ring]
    states = RELATIVE[first if n % 2 == 0 else 3 - first][state[padded_point(p, m, geo.pad) + geo.delta[:, :end]]]
    hashes = np.bitwise_xor.reduce(PATTERN_ZOBRIST[np.arange(end), states], axis=1)
    states = states[np.argmin(hashes)]
    quads = np.pad(states, (0, -len(states) % 4)).reshape(-1, 4)
    return bytes(quads[:, 0] | quads[:, 1] << 2 | quads[:, 2] << 4 | quads[:, 3] << 6)


def test_witness_keys_are_those_of_a_plain_replay_of_real_games():
    games = load_corpus([FIXTURES], split="all")
    rows = mine_patterns(games, MineParams(min_count=2, discovery_games=len(games)))
    picked = np.arange(0, len(rows["ring"]), max(1, len(rows["ring"]) // 300))
    assert len(np.unique(rows["witness"][picked] >> 24)) > 3 and rows["ring"][picked].max() > 8
    for j in picked.tolist():
        assert rows["key"][j].as_py() == replayed_key(games, int(rows["witness"][j]), int(rows["ring"][j]))
    # in the order of the rows asked for, whatever it is
    shuffled = np.random.default_rng(1).permutation(len(rows["ring"]))
    keys = witness_keys(games, {"witness": rows["witness"][shuffled], "ring": rows["ring"][shuffled]})
    assert keys.equals(rows["key"].take(shuffled))
    # and in worker processes, each replaying its share of the games
    assert witness_keys(games, {"witness": rows["witness"][shuffled], "ring": rows["ring"][shuffled]}, 3).equals(keys)


SGF = b"(;GM[1]FF[4]SZ[9]KM[7.5];B[cc];W[gg];B[cg];W[gc];B[ee];W[dd];B[de];W[ed])"


def test_mine_command_writes_a_table_duckdb_can_query(tmp_path):
    (tmp_path / "a.sgf").write_bytes(SGF)
    out = tmp_path / "patterns.parquet"
    result = CliRunner().invoke(
        main, ["mine", str(tmp_path / "a.sgf"), "-o", str(out), "--split", "all", "--min-count", "2"]
    )
    assert result.exit_code == 0, result.output
    assert "peak memory" in result.output
    table, meta = read_table(out, "patterns")
    assert meta["params"]["games"] == 1 and meta["params"]["positions"] == 8
    assert len(meta["fingerprint"]) == 32
    top = duckdb.sql(
        f"select size, seen, played from '{out}' where feature = 'pattern' and size = 2 "
        "order by played desc limit 20"
    ).fetchall()
    assert sum(r[2] for r in top) == 8
    features = duckdb.sql(
        f"select seen, played from '{out}' where feature = 'pass' and level = 1"
    ).fetchall()
    assert features == [(8, 0)]
    shown = CliRunner().invoke(main, ["show", str(out), "--top", "1", "--size", "3"])
    assert shown.exit_code == 0 and "*" in shown.output and "ring 3" in shown.output


def test_mine_command_errors_are_one_line(tmp_path):
    result = CliRunner().invoke(main, ["mine", str(tmp_path / "missing.sgf"), "-o", str(tmp_path / "p.parquet")])
    assert result.exit_code != 0
    assert "missing.sgf" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("kind", ["games"])
def test_show_refuses_a_table_of_another_kind(tmp_path, kind):
    import pyarrow as pa
    from shapemill.tables import table_metadata, write_table

    path = tmp_path / "t.parquet"
    write_table(pa.table({"id": ["x"]}), path, table_metadata(kind))
    result = CliRunner().invoke(main, ["show", str(path)])
    assert result.exit_code != 0 and "expected a 'patterns' table" in result.output


class _FailingJob(Job):
    """A ``map_games`` job that counts games and fails on game 3."""

    def start(self) -> int:
        return 0

    def game(self, state: int, i: int) -> int:
        if i == 3:
            raise ValueError("game 3 is broken")
        return state + 1

    @staticmethod
    def merge(a: int, b: int) -> int:
        return a + b


class _ListJob(Job):
    """A ``map_shards`` job whose merge is not commutative: each shard's games in order."""

    def start(self) -> list:
        return []

    def game(self, state: list, i: int) -> list:
        return state + [i]

    @staticmethod
    def merge(a: list, b: list) -> list:
        return a + b


def test_shards_merge_in_shard_order_whatever_the_workers():
    shards = [np.array([5, 1]), np.array([0]), np.array([4, 2, 3])]
    for workers in (1, 2, 3):
        assert map_shards(_ListJob(), shards, workers) == [5, 1, 0, 4, 2, 3]
    assert map_shards(_ListJob(), [], 2) == []


@numba.njit  # not cached: each process compiles it unless it inherits it compiled
def _double(x):
    return 2 * x


class _CompiledJob(Job):
    """A job whose games call a kernel; each shard says whether the kernel was compiled
    when its worker first called it."""

    def start(self) -> list:
        return []

    def game(self, state: list, i: int) -> list:
        compiled = len(_double.signatures) > 0
        _double(i)
        return state + [compiled]

    @staticmethod
    def merge(a: list, b: list) -> list:
        return a + b


def test_the_workers_fork_with_the_kernels_compiled_once_in_the_parent():
    shards = [np.array([0, 1]), np.array([2, 3]), np.array([4])]
    assert map_shards(_CompiledJob(), shards, 2) == [True] * 5


def test_a_failing_worker_stops_the_run_with_its_error():
    games = corpus([[0]] * 8, 2)
    with pytest.raises(RuntimeError, match="mining worker failed: ValueError: game 3 is broken"):
        map_games(_FailingJob(), games, workers=2)
    assert map_games(_FailingJob(), corpus([[0]] * 3, 2), workers=2) == 3

"""``shapemill find`` against a brute-force oracle over sgfmill boards (tests/find_oracle.py)."""

from __future__ import annotations

import json
import random
import re
import zipfile
from collections import Counter
from functools import lru_cache
from itertools import islice

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from sgfmill import sgf, sgf_moves

import find_oracle as oracle
from shapemill.cli import main
from shapemill.datasets import read_games
from shapemill.datasets.scanner import games_table
from shapemill.find import Filters, build_index, find, load_index, write_index
from shapemill.find.query import Query, edge_offs
from shapemill.tables import read_metadata

GAMES = 30
FRAGMENTS = 12
SIZE = 19


@pytest.fixture(scope="module")
def records(tygem_archives):
    return list(islice(read_games(tygem_archives[0]), GAMES))


@pytest.fixture(scope="module")
def index(records):
    return build_index(games_table(records))


@lru_cache(maxsize=None)
def sgf_game(source: str):
    """The game as sgfmill reads it from its archive member: setup, moves."""
    archive, member = source.split("!", 1)
    with zipfile.ZipFile(archive) as z:
        game = sgf.Sgf_game.from_bytes(z.read(member))
    board, plays = sgf_moves.get_setup_and_moves(game)
    setup = [(c, col, row) for c, (row, col) in board.list_occupied_points()]
    moves = [(c, None if m is None else (m[1], m[0])) for c, m in plays]
    return setup, moves


def query_of(points: dict, **options) -> Query:
    pts = np.array(sorted(points), dtype=np.int64)
    colors = np.array([{None: 0, "b": 1, "w": 2}[points[tuple(p)]] for p in pts], dtype=np.int8)
    return Query(SIZE, pts, colors, off=edge_offs(pts, SIZE), **options)


def draw_fragment(rng: random.Random, records) -> tuple[int, int, dict]:
    """A rectangle of a real position: a corner, side or centre region with stones."""
    while True:
        g = rng.randrange(len(records))
        setup, moves = sgf_game(records[g].source)
        t = rng.randrange(5, min(len(moves), 160))
        board = oracle.positions(SIZE, setup, moves[:t])[t]
        w, h = rng.randint(3, 8), rng.randint(3, 8)
        kind = rng.choice(["corner", "side", "centre"])
        x0 = 0 if kind != "centre" else rng.randrange(1, SIZE - w)
        y0 = SIZE - h if kind == "corner" else rng.randrange(1, SIZE - h)
        points = {(x, y): board.get((x, y)) for x in range(x0, x0 + w) for y in range(y0, y0 + h)}
        if any(points.values()):
            return g, t, points


def oracle_hits(records, points, **options):
    hits = []
    for rec in records:
        setup, moves = sgf_game(rec.source)
        hits += oracle.search(rec.id, SIZE, setup, moves, points, **dict(options))
    return hits


def played_vertex(result, index):
    """The board point of each hit's continuation, as played (from the game's moves)."""
    out = []
    for g, at in zip(result.hits["game"].to_pylist(), result.hits["continuation_move"].to_pylist()):
        if at is None:
            out.append(None)
        else:
            x = int(index.moves[index.offsets[g] + at])
            out.append(oracle.vertex((x % SIZE, x // SIZE)))
    assert out == result.hits["played"].to_pylist()
    return out


def compare(records, index, points, **options):
    """find and the oracle: the same hits (game, move, continuation as played), and
    the same continuation in the query's orientation and colours where it is unambiguous."""
    moves = options.pop("moves", None)
    next_color = options.pop("next_color", None)
    q = query_of(points, next={None: 0, "b": 1, "w": 2}[next_color], **options)
    result = find([index], q, Filters(moves=moves) if moves else None)
    kw = {"symmetry": q.symmetry, "swap": q.swap, "anywhere": q.anywhere, "next_color": next_color}
    if moves:
        kw["move_range"] = moves
    expected = oracle_hits(records, points, **kw)
    got = Counter(zip(result.hits["id"].to_pylist(), result.hits["move"].to_pylist(), played_vertex(result, index)))
    want = Counter((h.game, h.move, oracle.vertex(h.played)) for h in expected)
    assert got == want
    oriented = Counter((h.game, h.move, oracle.vertex(h.continuation), h.continuation_color)
                       for h in expected if h.continuation is not None)
    mine = Counter(zip(result.hits["id"].to_pylist(), result.hits["move"].to_pylist(),
                       result.hits["continuation"].to_pylist(), result.hits["continuation_color"].to_pylist()))
    assert not oriented - mine
    return result, expected


@pytest.mark.shared_data
def test_random_fragments_agree_with_the_oracle_and_find_their_game(records, index):
    rng = random.Random(30)
    for _ in range(FRAGMENTS):
        g, t, points = draw_fragment(rng, records)
        result, _ = compare(records, index, points)
        hits = set(zip(result.hits["id"].to_pylist(), result.hits["move"].to_pylist()))
        assert any(gid == records[g].id and m <= t for gid, m in hits)
        # at exactly that move, the fragment as drawn is there
        at = find([index], query_of(points), Filters(moves=(t, t)))
        rows = at.hits.filter(pa.compute.equal(at.hits["id"], records[g].id)).to_pylist()
        assert any(r["move"] == t and r["symmetry"] == 0 and not r["swapped"] for r in rows)


@pytest.mark.shared_data
def test_switches_agree_with_the_oracle(records, index):
    rng = random.Random(7)
    for options in ({"symmetry": False}, {"swap": False}, {"symmetry": False, "swap": False},
                    {"next_color": "b"}, {"next_color": "w"}, {"moves": (20, 80)}):
        _, _, points = draw_fragment(rng, records)
        compare(records, index, points, **options)


@pytest.mark.shared_data
def test_opening_corner_agrees_with_the_oracle(records, index):
    """A common corner (many hits, decided by the index without replay)."""
    setup, moves = sgf_game(records[0].source)
    board = oracle.positions(SIZE, setup, moves[:12])[12]
    for x0, y0 in ((0, 0), (12, 0), (0, 12), (12, 12)):
        points = {(x, y): board.get((x, y)) for x in range(x0, x0 + 7) for y in range(y0, y0 + 7)}
        if any(points.values()):
            result, expected = compare(records, index, points)
            assert result.hits.num_rows == len(expected) > 0


@pytest.mark.shared_data
def test_anywhere_agrees_with_the_oracle(records, index):
    few = records[:6]
    small = build_index(games_table(few))
    rng = random.Random(3)
    for _ in range(2):
        g, t, points = draw_fragment(rng, few)
        xs = [x for x, _ in points]
        ys = [y for _, y in points]
        if max(xs) - min(xs) > 3 or max(ys) - min(ys) > 3:  # a small shape keeps the oracle quick
            points = {p: c for p, c in points.items() if p[0] < min(xs) + 3 and p[1] < min(ys) + 3}
            if not any(points.values()):
                continue
        compare(few, small, points, anywhere=True)


def turned(points: dict, f, swap: bool) -> dict:
    other = {"b": "w", "w": "b", None: None}
    return {f(*p): (other[c] if swap else c) for p, c in points.items()}


@pytest.mark.shared_data
def test_turned_and_swapped_queries_find_the_same_hits(records, index):
    rng = random.Random(11)
    _, _, points = draw_fragment(rng, records)
    base = find([index], query_of(points))
    base_hits = Counter(zip(base.hits["id"].to_pylist(), base.hits["move"].to_pylist()))
    syms = oracle.symmetries(SIZE)
    for s, swap in ((1, False), (4, False), (7, True), (0, True)):
        other = find([index], query_of(turned(points, syms[s], swap)))
        assert Counter(zip(other.hits["id"].to_pylist(), other.hits["move"].to_pylist())) == base_hits
        # each continuation is the same move, seen in the turned query's orientation and colours
        flip = {"b": "w", "w": "b", None: None}
        want = Counter(
            (m if m is None else oracle.vertex(syms[s](oracle.COLUMNS.index(m[0]), int(m[1:]) - 1)), flip[c] if swap else c)
            for m, c in zip(base.hits["continuation"].to_pylist(), base.hits["continuation_color"].to_pylist()))
        got = Counter(zip(other.hits["continuation"].to_pylist(), other.hits["continuation_color"].to_pylist()))
        assert got == want


CAPTURE_GAME = "(;GM[1]FF[4]SZ[19]DT[2020-01-01]RE[B+R]PB[Kuro]PW[Shiro];B[aa];W[ba];B[pd];W[ab];B[dp];W[cc];B[pp])"
RULED_GAME = ("(;GM[1]FF[4]SZ[19]KM[6.5]RU[Japanese]DT[2020-01-01]RE[W+2.5]PB[Kuro]PW[Shiro]BR[3d]WR[4d]"
              ";B[aa];W[ba];B[pd];W[ab];B[dp];W[cc];B[pp])")
# White captures the corner stone at a1 (SGF aa) with b1 and a2: the region A1:C3 then has
# white at B1 and A2 and empty A1, which the index cannot decide (a stone was captured there).


def test_captures_inside_the_region(tmp_path):
    games = tmp_path / "g.sgf"
    games.write_text(CAPTURE_GAME)
    frag = tmp_path / "f.sgf"
    frag.write_text("(;GM[1]FF[4]SZ[19]AW[ba][ab]AE[aa])")
    runner = CliRunner()
    out = runner.invoke(main, ["find", str(games), "--sgf", str(frag), "--region", "A17:C19", "--json"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    # the capture happens with white's second move (move 4); the next move near A17:C19 is W C17 (cc)
    assert got["hits"] == 1 and got["games"] == 1
    assert got["continuations"][0]["move"] == "C17" and got["continuations"][0]["by_white"] == 1


def test_outputs_and_bad_input(tmp_path):
    games = tmp_path / "g.sgf"
    games.write_text(CAPTURE_GAME)
    frag = tmp_path / "f.sgf"
    frag.write_text("(;GM[1]FF[4]SZ[19];B[pd])")
    hits, pic, coll = tmp_path / "h.parquet", tmp_path / "h.svg", tmp_path / "h.sgf"
    runner = CliRunner()
    out = runner.invoke(main, ["find", str(games), "--sgf", str(frag), "-o", str(hits), "--svg", str(pic),
                               "--sgf-out", str(coll), "--games", "5"])
    assert out.exit_code == 0, out.output
    assert read_metadata(hits)["kind"] == "hits" and pq.read_table(hits).num_rows >= 1
    assert pic.read_text().startswith("<svg") and "Kuro" in out.output
    back = sgf.Sgf_game.from_bytes(coll.read_bytes())
    assert any(n.has_property("C") and n.has_property("TR") for n in back.get_main_sequence())

    empty = tmp_path / "empty.sgf"
    empty.write_text("(;GM[1]FF[4]SZ[19])")
    junk = tmp_path / "junk.sgf"
    junk.write_text("not sgf at all")
    out_file = tmp_path / "never.parquet"
    for args, code, word in (
        (["--sgf", str(junk)], 1, "junk.sgf"),
        (["--sgf", str(empty)], 1, "no stones"),
        (["--sgf", str(frag), "--region", "A1:Z30"], 2, "--region"),
        (["--sgf", str(frag), "--region", "Z30"], 2, "--region"),
        (["--sgf", str(frag), "--region", "A1:T1"], 2, "no stones inside"),
        (["--sgf", str(frag), "--since", "notadate"], 2, "--since"),
        (["--sgf", str(frag), "--since", "2016", "--until", "2015-12"], 2, "--since"),
        (["--pattern-id", "0123456789abcdef"], 1, "--pattern-id"),
        (["--pattern-id", "12", "--patterns", str(hits)], 1, "hits"),
        (["--sgf", str(frag), "--pattern-id", "12"], 2, "one of"),
        (["--pattern-id", "12", "--no-symmetry"], 2, "--no-symmetry"),
        (["--sgf", str(frag), "--moves", "9:3"], 2, "--moves"),
    ):
        out = runner.invoke(main, ["find", str(games), *args, "-o", str(out_file)])
        assert out.exit_code == code, (args, out.output)
        assert word in out.output and "Traceback" not in out.output
        assert not out_file.exists()
    # no match is no error
    far = tmp_path / "far.sgf"
    far.write_text("(;GM[1]FF[4]SZ[19]AB[jj][jk][kj][kk]AW[ij])")
    out = runner.invoke(main, ["find", str(games), "--sgf", str(far), "--json"])
    assert out.exit_code == 0 and json.loads(out.stdout)["hits"] == 0


def test_find_saves_the_index_it_builds_and_says_so_or_keeps_it_in_memory(tmp_path, monkeypatch):
    from shapemill.find import find_command

    games = tmp_path / "g.sgf"
    games.write_text(RULED_GAME)
    table = tmp_path / "games.parquet"
    runner = CliRunner()
    assert runner.invoke(main, ["scan", str(games), "-o", str(table), "--min-moves", "0", "-q"]).exit_code == 0
    frag = tmp_path / "f.sgf"
    frag.write_text("(;GM[1]FF[4]SZ[19];B[pd])")
    args = ["find", str(table), "--sgf", str(frag)]
    # a full disk: the index is built in memory, the search answers all the same
    monkeypatch.setattr(find_command, "write_index",
                        lambda *a: (_ for _ in ()).throw(OSError(28, "No space left on device")))
    full = runner.invoke(main, args)
    assert full.exit_code == 0 and "in memory only" in full.stderr and "No space left" in full.stderr
    assert not load_index(table) and sorted(p.name for p in tmp_path.iterdir()) == ["f.sgf", "g.sgf", "games.parquet"]
    monkeypatch.undo()
    no_save = runner.invoke(main, [*args, "--no-save-index"])
    assert no_save.exit_code == 0 and load_index(table) is None
    coll = tmp_path / "hits.sgf"
    first = runner.invoke(main, [*args, "--sgf-out", str(coll)])
    assert first.exit_code == 0 and "saved" in first.stderr and load_index(table) is not None
    # the collection's games keep the root properties the games table holds of them (sgfmill reads both)
    original = sgf.Sgf_game.from_string(RULED_GAME).get_root()
    root = sgf.Sgf_game.from_bytes(coll.read_bytes()).get_root()
    for prop in ("KM", "RU", "PB", "PW", "BR", "WR", "DT", "RE"):
        assert root.get(prop) == original.get(prop), prop
    coll.unlink()
    again = runner.invoke(main, args)
    assert again.exit_code == 0 and "index" not in again.stderr

    def answer(result) -> str:
        return re.sub(r"\(\d+\.\d+ s\)", "", result.stdout)  # the search's seconds
    assert answer(full) == answer(no_save) == answer(first) == answer(again) and "hits in 1 of 1 games" in answer(first)


@pytest.mark.shared_data
def test_saved_index_gives_the_same_hits_and_goes_stale(records, tmp_path):
    table = tmp_path / "games.parquet"
    from shapemill.tables import table_metadata, write_table

    write_table(games_table(records), table, table_metadata("games"))
    built = build_index(games_table(records))
    write_index(table)
    loaded = load_index(table)
    rng = random.Random(5)
    _, _, points = draw_fragment(rng, records)
    a, b = find([built], query_of(points)), find([loaded], query_of(points))
    assert a.hits.equals(b.hits)
    write_table(games_table(records[:5]), table, table_metadata("games"))
    assert load_index(table) is None


@pytest.mark.shared_data
def test_pattern_id_agrees_with_the_oracle(records):
    """A mined shape from ``show``'s hint: its ring anywhere, own stones black to move."""
    from shapemill.find.fragment import query_from_pattern
    from shapemill.patterns.defaults import PATTERNS, default_table

    shown = CliRunner().invoke(main, ["show", "--top", "3", "--size", "3"])
    ids = [line.split("--pattern-id ")[1].split()[0] for line in shown.output.splitlines() if "--pattern-id" in line]
    assert ids
    few = records[:3]
    small = build_index(games_table(few))
    q = query_from_pattern(ids[0], default_table(PATTERNS))
    points = {(int(x), int(y)): {0: None, 1: "b", 2: "w"}[int(c)] for (x, y), c in zip(q.points, q.colors)}
    result = find([small], q)
    expected = oracle_hits(few, points, symmetry=True, swap=True, anywhere=True, next_color="b")
    got = Counter(zip(result.hits["id"].to_pylist(), result.hits["move"].to_pylist(), played_vertex(result, small)))
    assert got == Counter((h.game, h.move, oracle.vertex(h.played)) for h in expected)
    assert result.hits.num_rows > 0


def test_a_stone_captured_before_the_shape_completes_is_not_there(tmp_path):
    """Black A19 is captured (move 4) before White D19 arrives (move 6): the two are
    never on the board together, though each was there once; the oracle agrees."""
    game = "(;GM[1]FF[4]SZ[19];B[aa];W[ba];B[pd];W[ab];B[pp];W[da];B[dp])"
    games = tmp_path / "g.sgf"
    games.write_text(game)
    frag = tmp_path / "f.sgf"
    frag.write_text("(;GM[1]FF[4]SZ[19]AB[aa]AW[da]SQ[aa][da])")
    out = CliRunner().invoke(main, ["find", str(games), "--sgf", str(frag), "--json"])
    assert out.exit_code == 0, out.output
    moves = [("b", (0, 18)), ("w", (1, 18)), ("b", (15, 15)), ("w", (0, 17)), ("b", (15, 3)), ("w", (3, 18)),
             ("b", (3, 3))]
    expected = oracle.search("g", SIZE, [], moves, {(0, 18): "b", (3, 18): "w"})
    assert json.loads(out.stdout)["hits"] == len(expected) == 0
    # with White D19 played first and no capture, the shape is there from move 2
    early = tmp_path / "e.sgf"
    early.write_text("(;GM[1]FF[4]SZ[19];W[da];B[aa];W[pd];B[pp])")
    out = CliRunner().invoke(main, ["find", str(early), "--sgf", str(frag), "--json"])
    assert json.loads(out.stdout)["hits"] == 1


def test_an_anywhere_continuation_stays_on_the_querys_board(tmp_path):
    """The fragment B K2, W K3 (region J2:L3, one line above the edge) found anywhere, at
    K10 / K11 (eight rows up). The next move, B K8, is two rows below the found shape: in
    the query's orientation that is row 0, off its board, so it is no continuation; the
    one after, W K13, two rows above, is K5 in the query's orientation (by hand)."""
    games = tmp_path / "g.sgf"
    games.write_text("(;GM[1]FF[4]SZ[19];B[jj];W[ji];B[jl];W[jg])")
    frag = tmp_path / "f.sgf"
    frag.write_text("(;GM[1]FF[4]SZ[19]AB[jr]AW[jq])")
    out = CliRunner().invoke(main, ["find", str(games), "--sgf", str(frag), "--region", "J2:L3", "--anywhere",
                                    "--no-symmetry", "--no-color-swap", "--json"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    assert got["hits"] == 1
    assert [(c["move"], c["by_black"], c["by_white"]) for c in got["continuations"]] == [("K5", 0, 1)]

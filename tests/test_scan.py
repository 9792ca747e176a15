"""The scan stage: SGF files / folders / archives -> games and errors tables."""

from __future__ import annotations

import io
import re
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from shapemill.cli import main
from shapemill.datasets import (
    GameRecord,
    InputError,
    ScanError,
    ScanOptions,
    read_games,
    scan,
    split_of,
)
from shapemill.datasets.sgf import parse_games
from shapemill.datasets.text import decode_values, normalize_rank, parse_komi
from shapemill.tables import TableError, read_table


def sgf(moves: str = ";B[pd];W[dd];B[pq];W[dp];B[fq];W[cn];B[qj];W[nc];B[pf];W[jd];B[cf];W[ch]",
        size: int = 19, **props: str) -> str:
    """A small SGF game: header properties then ``moves`` (raw node text)."""
    head = {"GM": "1", "FF": "4", "SZ": str(size), **props}
    return "(;" + "".join(f"{k}[{v}]" for k, v in head.items()) + moves + ")"


def idx(point: str, size: int = 19) -> int:
    """Board index of an SGF point (row 0 = bottom)."""
    col, row_top = ord(point[0]) - 97, ord(point[1]) - 97
    return (size - 1 - row_top) * size + col


def games_of(data: bytes | str, source: str = "t.sgf") -> list[tuple[GameRecord | None, list[ScanError]]]:
    if isinstance(data, str):
        data = data.encode()
    return list(parse_games(data, source))


def one(data: bytes | str) -> GameRecord:
    (rec, errs), = games_of(data)
    assert rec is not None and errs == [], errs
    return rec


# ---------------------------------------------------------------- parsing


def test_moves_are_board_indices_row0_bottom_and_pass_minus_one():
    rec = one(sgf(";B[aa];W[ss];B[];W[tt];B[as]", PB="x"))
    assert rec.moves.dtype == np.int16
    assert rec.moves.tolist() == [18 * 19, 18, -1, -1, 0]
    assert rec.first_color == "b" and rec.n_moves == 5


def test_collection_with_two_games_names_each():
    data = sgf(PB="First") + "\n" + sgf(";W[aa];B[bb]", PB="Second")
    (r1, e1), (r2, e2) = games_of(data, "c.sgf")
    assert (r1.source, r1.black) == ("c.sgf#1", "First")
    assert (r2.source, r2.black, r2.first_color) == ("c.sgf#2", "Second", "w")
    assert r2.moves.tolist() == [idx("aa"), idx("bb")]


def test_only_the_main_line_is_read():
    data = "(;GM[1]SZ[19];B[aa](;W[bb];B[cc](;W[dd])(;W[ee]))(;W[ff];B[gg]))"
    assert one(data).moves.tolist() == [idx(p) for p in ("aa", "bb", "cc", "dd")]


def test_same_colour_twice_inserts_a_pass():
    rec = one(sgf(";B[aa];B[bb];W[cc];W[dd]"))
    assert rec.moves.tolist() == [idx("aa"), -1, idx("bb"), idx("cc"), -1, idx("dd")]
    # the same through the slow path (comments in nodes)
    rec2 = one(sgf(";B[aa]C[x];B[bb]C[y];W[cc]C[z];W[dd]"))
    assert rec2.moves.tolist() == rec.moves.tolist()


def test_setup_handicap_and_first_colour():
    rec = one(sgf(";W[qq];B[cc]", HA="2", AB="[dd][pp]".strip("[]")))
    assert rec.handicap == 2
    assert sorted(rec.setup_black.tolist()) == sorted([idx("dd"), idx("pp")])
    assert rec.first_color == "w"
    rect = one("(;GM[1]SZ[9]AB[aa:bb]AW[ii];B[ee])")
    assert sorted(rect.setup_black.tolist()) == sorted(idx(p, 9) for p in ("aa", "ab", "ba", "bb"))
    assert rect.handicap == 0  # AW present: not a handicap placement


@pytest.mark.parametrize(("km", "komi"), [("650", 6.5), ("750", 7.5), ("0", 0.0), ("6.5", 6.5),
                                          ("-650", -6.5), ("0.5", 0.5), ("", 0.0), ("x", None)])
def test_komi(km, komi):
    got = parse_komi(km)
    assert (np.isnan(got) if komi is None else got == komi)


def test_komi_from_record():
    assert one(sgf(KM="650")).komi == 6.5
    assert one(sgf()).komi == 0.0


@pytest.mark.parametrize(("raw", "rank"), [
    ("9d", "9d"), ("9p", "9p"), ("5k", "5k"), ("P9段", "9p"), ("P9", "9p"), ("9段", "9d"),
    ("1級", "1k"), ("3级", "3k"), ("9단", "9d"), ("1급", "1k"), ("프로9단", "9p"), ("pro", "p"),
    ("2 dan", "2d"), ("3D*", "3d"), ("九段", "9d"), ("", ""), ("?", ""), ("40k", ""),
    ("10d", ""), ("abc", ""),
])
def test_rank_normalization(raw, rank):
    assert normalize_rank(raw) == rank


def test_header_fields():
    rec = one(sgf(PB="Lee Sedol", PW="Gu Li", BR="9p", WR="P9段", RE="W+2.5", RU="Chinese",
                  DT="2014-01-01", KM="7.5"))
    assert (rec.black, rec.white, rec.black_rank, rec.white_rank) == ("Lee Sedol", "Gu Li", "9p", "9p")
    assert (rec.result, rec.winner, rec.rules, rec.date, rec.komi) == ("W+2.5", "w", "Chinese", "2014-01-01", 7.5)
    assert one(sgf(RE="B+R")).winner == "b"
    assert one(sgf(RE="0")).winner == ""


@pytest.mark.parametrize(("names", "encoding"), [
    (("이세돌", "박정환"), "euc-kr"),
    (("井山裕太", "一力遼"), "shift_jis"),
    (("柯洁", "常昊"), "gb18030"),
    (("José", "Sørensen"), "latin-1"),
])
@pytest.mark.parametrize("with_ca", [True, False])
def test_encoded_names(names, encoding, with_ca):
    head = f"(;GM[1]SZ[19]{'CA[' + encoding + ']' if with_ca else ''}PB[".encode()
    data = head + names[0].encode(encoding) + b"]PW[" + names[1].encode(encoding) + b"];B[pd];W[dd])"
    rec = one(data)
    assert (rec.black, rec.white) == names


def test_ca_utf8_that_is_not_utf8():
    # labelled UTF-8, really GB18030: the label is not trusted
    data = "(;CA[UTF-8]GM[1]SZ[19]PB[柯洁]PW[古力];B[pd])".encode("gb18030")
    assert one(data).black == "柯洁"


def test_truncated_utf8_and_mojibake_names_are_repaired():
    cut = "小心我捶".encode()[:-1]  # a name cut inside its last character (Fox)
    rec = one(b"(;CA[UTF-8]GM[1]SZ[19]PB[" + cut + "]PW[骊龙];B[pd])".encode())
    assert (rec.black, rec.white) == ("小心我", "骊龙")
    moji = "绝艺".encode().decode("gbk")  # UTF-8 read as GBK and saved again
    assert one(f"(;CA[UTF-8]GM[1]SZ[19]PB[{moji}];B[pd])".encode()).black == "绝艺"


def test_decode_values_reports_the_encoding():
    assert decode_values([b"abc"], None) == (["abc"], "ascii")
    assert decode_values(["이세돌".encode("euc-kr")], b"EUC-KR") == (["이세돌"], "cp949")


def test_illegal_move_keeps_prefix_and_reports():
    data = sgf(";B[pd];W[dd];B[pq];W[pd];B[dp]")
    (rec, errs), = games_of(data)
    assert rec.moves.tolist() == [idx("pd"), idx("dd"), idx("pq")]
    assert [e.kind for e in errs] == ["illegal-move"]
    assert "occupied" in errs[0].reason and "move 4" in errs[0].reason
    # suicide
    (rec, errs), = games_of("(;GM[1]SZ[9]AW[ba][ab];B[ee];W[ff];B[aa])")
    assert rec.n_moves == 2 and "suicide" in errs[0].reason


def test_bad_coordinate_and_bad_board_size():
    (rec, errs), = games_of(sgf(";B[pd];W[zz];B[dd]"))
    assert rec.moves.tolist() == [idx("pd")] and errs[0].kind == "bad-move"
    (rec, errs), = games_of(sgf(size=52))
    assert rec is None and errs[0].kind == "bad-board-size"
    (rec, errs), = games_of("(;GM[1]SZ[19:13];B[aa])")
    assert rec is None and errs[0].kind == "bad-board-size"
    (rec, errs), = games_of("(;GM[2]SZ[8];B[aa])")
    assert rec is None and errs[0].kind == "not-go"


@pytest.mark.parametrize("junk", [
    b"", b"hello", b"(;", b"(;GM[1]SZ[19];B[aa", b"(;B[aa]", b"((((((", b"))))", b"(;GM[1][x])",
    b"(;GM[1]SZ[x])", b"(;AB[zz])", b"\xff\xfe\x00(", b"(;SZ[19]\\", b"(;GM[1]B)",
])
def test_garbage_never_raises(junk):
    out = games_of(junk)
    assert out and all(rec is not None or errs for rec, errs in out)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["(", ")", ";", "B", "W", "AB", "SZ", "[", "]", "[aa]", "[19]",
                                 "[tt]", "\\", "x", "[]", " ", "\n", "(;", "[9]", "é"]), max_size=40))
def test_fuzzed_sgf_never_raises(parts):
    for rec, errs in games_of("".join(parts)):
        assert rec is not None or errs


def test_matches_sgfmill_on_handwritten_games():
    from sgfmill import sgf as sgfmill_sgf

    data = "(;GM[1]FF[4]SZ[13]AB[cc][dd]AW[jj];W[kk]C[a comment [with\\] bracket];B[]\n;W[aa]  ;B[bb](;W[ee])(;W[ff]))"
    rec = one(data)
    game = sgfmill_sgf.Sgf_game.from_bytes(data.encode())
    ref = []
    for node in game.get_main_sequence():
        colour, move = node.get_move()
        if colour is not None:
            ref.append(-1 if move is None else move[0] * 13 + move[1])
    assert rec.moves.tolist() == ref
    assert rec.board_size == 13 and rec.first_color == "w"


# ---------------------------------------------------------------- sources


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def distinct_game(k: int) -> str:
    """A legal game unique to ``k``."""
    pts = [chr(97 + a) + chr(97 + b) for a in range(19) for b in range(19)]
    first = pts[k % 361]
    rest = [p for p in ("pd", "dd", "pq", "dp", "fq", "cn", "qj", "nc", "pf", "jd", "cf") if p != first]
    colours = "BW"
    return sgf("".join(f";{colours[i % 2]}[{p}]" for i, p in enumerate([first, *rest])))


def test_broken_file_next_to_good_one_in_a_zip(tmp_path):
    z = make_zip(tmp_path / "a.zip", {
        "2011/good.sgf": distinct_game(1).encode(),
        "2011/broken.sgf": b"(;GM[1]SZ[19];B[aa];W[",
        "2011/readme.txt": b"not a game",
        "2011/UPPER.SGF": distinct_game(2).encode(),
    })
    errors: list[ScanError] = []
    games = list(read_games(z, on_error=errors.append))
    assert sorted(g.source for g in games) == [f"{z}!2011/UPPER.SGF", f"{z}!2011/good.sgf"]
    kinds = {e.source: e.kind for e in errors}
    assert kinds == {f"{z}!2011/broken.sgf": "parse-error", f"{z}!2011/readme.txt": "not-sgf"}


def test_member_over_size_limit_and_lying_header(tmp_path):
    big = b"(;GM[1]SZ[19]C[" + b"x" * 3_000_000 + b"];B[aa])"
    z = make_zip(tmp_path / "b.zip", {"big.sgf": big, "ok.sgf": distinct_game(3).encode()})
    errors: list[ScanError] = []
    games = list(read_games(z, on_error=errors.append, max_bytes=1_000_000))
    assert [g.source for g in games] == [f"{z}!ok.sgf"]
    assert [(e.source, e.kind) for e in errors] == [(f"{z}!big.sgf", "too-large")]
    # a header that declares 100 bytes for the 3 MB member: the read is still capped
    raw = z.read_bytes()
    size = len(big).to_bytes(4, "little")
    assert raw.count(size) == 2  # local header and central directory
    liar = tmp_path / "liar.zip"
    liar.write_bytes(raw.replace(size, (100).to_bytes(4, "little")))
    errors.clear()
    games = list(read_games(liar, on_error=errors.append, max_bytes=1_000_000))
    assert [g.source for g in games] == [f"{liar}!ok.sgf"]
    assert len(errors) == 1 and errors[0].kind in ("too-large", "unreadable")


@pytest.mark.parametrize("mode", ["w:gz", "w:bz2", "w:xz", "w"])
def test_tar_archives(tmp_path, mode):
    path = tmp_path / f"g.tar{'.' + mode[2:] if ':' in mode else ''}"
    with tarfile.open(path, mode) as tf:
        for name, data in (("x/1.sgf", distinct_game(4).encode()), ("x/2.sgf", b"junk"),
                           ("x/notes.md", b"# hi")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    errors: list[ScanError] = []
    games = list(read_games(path, on_error=errors.append))
    assert [g.source for g in games] == [f"{path}!x/1.sgf"]
    assert sorted(e.kind for e in errors) == ["not-sgf", "parse-error"]


def test_folder_recursive_mixed_with_archives(tmp_path):
    (tmp_path / "d" / "sub").mkdir(parents=True)
    (tmp_path / "d" / "sub" / "a.sgf").write_text(distinct_game(5))
    (tmp_path / "d" / "b.SGF").write_text(distinct_game(6))
    make_zip(tmp_path / "d" / "c.zip", {"c.sgf": distinct_game(7).encode()})
    (tmp_path / "d" / "notes.txt").write_text("hello")
    single = tmp_path / "single.sgf"
    single.write_text(distinct_game(8))
    errors: list[ScanError] = []
    games = list(read_games([tmp_path / "d", single], on_error=errors.append))
    d = tmp_path / "d"
    assert [g.source for g in games] == [str(d / "b.SGF"), f"{d / 'c.zip'}!c.sgf",
                                         str(d / "sub" / "a.sgf"), str(single)]
    assert [(e.source, e.kind) for e in errors] == [(str(d / "notes.txt"), "not-sgf")]


def test_missing_path_raises_input_error(tmp_path):
    with pytest.raises(InputError, match="nope"):
        list(read_games(tmp_path / "nope"))


# ---------------------------------------------------------------- scan


def test_duplicates_filters_and_counts(tmp_path):
    g1, g2 = distinct_game(10), distinct_game(11)
    (tmp_path / "a.sgf").write_text(g1)
    (tmp_path / "b.sgf").write_text(g1.replace("GM[1]", "GM[1]PB[someone else]"))  # same moves
    (tmp_path / "c.sgf").write_text(g2)
    (tmp_path / "d.sgf").write_text(sgf(";B[ee];W[cc];B[gg];W[cg];B[gc];W[dd]", size=9))  # size 9
    (tmp_path / "e.sgf").write_text(sgf(HA="2", AB="dd][pp", moves="".join(
        f";W[{p}];B[{q}]" for p, q in zip("qq qp qo qn qm qk".split(), "cc cd ce cf cg ch".split()))))
    (tmp_path / "f.sgf").write_text(sgf(";B[aa];W[bb]"))  # too short
    (tmp_path / "g.sgf").write_text("garbage")
    res = scan([tmp_path], ScanOptions(no_handicap=True, min_moves=10))
    assert [g.source for g in res.games] == [str(tmp_path / "a.sgf"), str(tmp_path / "c.sgf")]
    assert res.duplicates == 1
    assert dict(res.filtered) == {"board-size": 1, "handicap": 1, "too-short": 1}
    assert dict(res.unusable) == {"parse-error": 1}
    assert res.games_found == 7 == res.kept + res.duplicates + sum(res.filtered.values()) + sum(res.unusable.values())
    # --size 0 keeps every size, and no filter keeps the handicap game
    res = scan([tmp_path], ScanOptions(size=0, min_moves=0))
    assert res.kept == 5 and res.duplicates == 1 and not res.truncated


def test_ids_and_split_are_stable(tmp_path):
    (tmp_path / "a.sgf").write_text(distinct_game(20))
    renamed = tmp_path / "elsewhere" / "other name.sgf"
    renamed.parent.mkdir()
    renamed.write_text(distinct_game(20).replace("GM[1]", "GM[1]PB[x]"))
    a, = read_games(tmp_path / "a.sgf")
    b, = read_games(renamed)
    assert a.id == b.id and re.fullmatch(r"[0-9a-f]{16}", a.id)  # content, not path
    assert a.split == b.split == split_of(a.id, 0.1)
    assert split_of(a.id, 0.0) == "train" and split_of(a.id, 1.0) == "test"
    ids = [f"{k:016x}" for k in range(4000)]
    share = sum(split_of(i, 0.1) == "test" for i in ids) / len(ids)
    assert 0.08 < share < 0.12


# ---------------------------------------------------------------- CLI and tables


def run_cli(*args: str):
    return CliRunner().invoke(main, ["scan", *args], catch_exceptions=False)


SUMMARY_RE = re.compile(
    r"games found: ([\d,]+) = kept ([\d,]+) \+ duplicates ([\d,]+) \+ filtered ([\d,]+) \+ unusable ([\d,]+)"
)


def summary_numbers(text: str) -> list[int]:
    m = SUMMARY_RE.search(text)
    assert m, text
    return [int(x.replace(",", "")) for x in m.groups()]


def test_cli_tables_metadata_and_duckdb(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    src = tmp_path / "in"
    src.mkdir()
    for k in range(5):
        (src / f"{k}.sgf").write_text(distinct_game(30 + k))
    (src / "dup.sgf").write_text(distinct_game(30))
    (src / "bad.sgf").write_text("(;GM[1]SZ[19];B[pd];W[pd]" + ";B[aa];W[ab]" * 10 + ")")
    out, err = tmp_path / "games.parquet", tmp_path / "errors.parquet"
    res = run_cli(str(src), "-o", str(out), "--errors", str(err), "--min-moves", "1")
    assert res.exit_code == 0, res.output
    found, kept, dups, filtered, unusable = summary_numbers(res.stderr)
    assert (found, kept, dups, filtered, unusable) == (7, 6, 1, 0, 0)
    table, meta = read_table(out, "games")
    assert table.num_rows == kept
    assert meta["kind"] == "games" and meta["params"]["min_moves"] == 1
    assert re.fullmatch(r"[0-9a-f]{32}", meta["fingerprint"])
    assert table.schema.field("moves").type.value_type.bit_width == 16
    errors, emeta = read_table(err, "errors")
    assert errors.column("kind").to_pylist() == ["illegal-move"]
    assert emeta["fingerprint"] == meta["fingerprint"]
    with pytest.raises(TableError):
        read_table(out, "errors")
    rows = duckdb.sql(f"select source, n_moves, len(moves) as m, split from '{out}' order by source").fetchall()
    assert all(n == m for _, n, m, _ in rows)
    bad = [n for source, n, _, _ in rows if source.endswith("bad.sgf")]
    assert bad == [1]  # the legal prefix of the illegal game is kept
    # the same scan again: same fingerprint (stable), and order of PATHs does not matter to it
    files = sorted(str(p) for p in src.iterdir())
    out2 = tmp_path / "g2.parquet"
    assert run_cli(*reversed(files), "-o", str(out2), "--min-moves", "1").exit_code == 0
    assert read_table(out2, "games")[1]["fingerprint"] == meta["fingerprint"]


def test_partitioned_dataset_round_trip(tmp_path):
    from shapemill.datasets.corpus import load_corpus
    from shapemill.tables import DATASET_MARKER, is_dataset

    src = tmp_path / "in"
    src.mkdir()
    for k in range(7):
        (src / f"{k}.sgf").write_text(distinct_game(70 + k))
    single, folder = tmp_path / "games.parquet", tmp_path / "games"
    assert run_cli(str(src), "-o", str(single), "--min-moves", "1", "-q").exit_code == 0
    res = run_cli(str(src), "-o", str(folder), "--min-moves", "1", "--partition-size", "3")
    assert res.exit_code == 0, res.output
    parts = sorted(p.name for p in folder.iterdir())
    assert parts == [DATASET_MARKER, "part-00000.parquet", "part-00001.parquet", "part-00002.parquet"]
    # every part is a games table of its own, the parts in order are the single table
    whole, meta = read_table(single, "games")
    tables = [read_table(folder / name, "games") for name in parts[1:]]
    assert [t.num_rows for t, _ in tables] == [3, 3, 1]
    assert sum((t.column("id").to_pylist() for t, _ in tables), []) == whole.column("id").to_pylist()
    assert [m["params"]["part"] for _, m in tables] == [0, 1, 2]
    assert len({m["fingerprint"] for _, m in tables} | {meta["fingerprint"]}) == 4
    # every command that reads games takes the folder: the same corpus as the single table
    for split in ("train", "all"):
        a, b = load_corpus([single], split=split), load_corpus([folder], split=split)
        assert a.ids == b.ids and (a.moves == b.moves).all() and a.fingerprint() == b.fingerprint()
    # scanning again replaces the dataset (atomically: no temporary folder is left)
    assert run_cli(str(src / "0.sgf"), "-o", str(folder), "--min-moves", "1", "--partition-size", "3", "-q").exit_code == 0
    assert len(load_corpus([folder], split="all")) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games", "games.parquet", "in"]
    # a folder of SGF files is still read as SGF; one that is neither is never overwritten
    assert is_dataset(folder) and not is_dataset(src)
    assert len(load_corpus([src], split="all")) == 7
    res = CliRunner().invoke(main, ["scan", str(src), "-o", str(src), "--partition-size", "3"])
    assert res.exit_code == 1 and "the output is the input" in res.output and len(list(src.iterdir())) == 7
    res = CliRunner().invoke(main, ["scan", str(src), "-o", str(folder)])
    assert res.exit_code == 1 and "--partition-size" in res.output


def test_a_damaged_dataset_is_a_one_line_error(tmp_path):
    src = tmp_path / "a.sgf"
    src.write_text(distinct_game(80))
    folder = tmp_path / "games"
    assert run_cli(str(src), "-o", str(folder), "--partition-size", "5", "-q").exit_code == 0
    (folder / "part-00000.parquet").unlink()
    res = CliRunner().invoke(main, ["mine", str(folder), "-o", str(tmp_path / "p.parquet")])
    assert res.exit_code == 1 and "part-00000.parquet" in res.output and "missing" in res.output
    assert "Traceback" not in res.output


def test_cli_garbage_input_no_traceback(tmp_path):
    src = tmp_path / "mess"
    src.mkdir()
    (src / "random.sgf").write_bytes(bytes(range(256)) * 4)
    (src / "empty.sgf").write_bytes(b"")
    (src / "fake.zip").write_bytes(b"PK\x03\x04 not really a zip")
    (src / "trunc.tar.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    (src / "good.sgf").write_text(distinct_game(40))
    (src / "deep.sgf").write_text("(" * 5000 + ";B[aa]" + ")" * 5000)
    out, err = tmp_path / "g.parquet", tmp_path / "e.parquet"
    res = run_cli(str(src), "-o", str(out), "--errors", str(err))
    assert res.exit_code == 0
    assert "Traceback" not in res.output
    found, kept, dups, filtered, unusable = summary_numbers(res.stderr)
    assert found == kept + dups + filtered + unusable
    assert kept == 1
    errors = read_table(err, "errors")[0].to_pydict()
    # error rows = unusable + cut short (none here) + skipped
    assert len(errors["source"]) == unusable + sum(k == "not-sgf" for k in errors["kind"])
    assert "errors: {} = unusable {}".format(len(errors["source"]), unusable) in res.stderr
    assert {Path(s).name for s in errors["source"]} >= {"random.sgf", "empty.sgf", "fake.zip", "trunc.tar.gz"}
    assert all("\n" not in r for r in errors["reason"])


def test_cli_top_level_errors_are_one_line(tmp_path):
    res = CliRunner().invoke(main, ["scan", str(tmp_path / "missing"), "-o", str(tmp_path / "g.parquet")])
    assert res.exit_code == 1 and "missing" in res.output and "Traceback" not in res.output
    (tmp_path / "a.sgf").write_text(distinct_game(50))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = CliRunner().invoke(main, ["scan", str(tmp_path / "a.sgf"), "-o", str(blocker / "g.parquet")])
    assert res.exit_code == 1 and "cannot write" in res.output and "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1


# ---------------------------------------------------------------- real archives


def tygem_sample(shared_data: Path, tmp_path: Path, n: int = 200) -> Path:
    src = shared_data / "tygem9d" / "tygem9d-2015-05.zip"
    with zipfile.ZipFile(src) as zf:
        names = sorted(zf.namelist())[:n]
        return make_zip(tmp_path / "sample.zip", {name: zf.read(name) for name in names})


@pytest.mark.shared_data
def test_real_tygem_sample_matches_sgfmill_and_workers(shared_data, tmp_path, monkeypatch):
    import shapemill.datasets.sources as sources
    from sgfmill import sgf as sgfmill_sgf

    sample = tygem_sample(shared_data, tmp_path)
    monkeypatch.setattr(sources, "BATCH_FILES", 40)  # several batches for the workers
    one_proc = scan([sample], ScanOptions(workers=1))
    two_proc = scan([sample], ScanOptions(workers=2))
    assert [g.id for g in one_proc.games] == [g.id for g in two_proc.games]
    assert one_proc.games_found == 200
    assert one_proc.kept + one_proc.duplicates + sum(one_proc.filtered.values()) + sum(one_proc.unusable.values()) == 200
    assert one_proc.kept >= 195
    with zipfile.ZipFile(sample) as zf:
        for g in one_proc.games:
            game = sgfmill_sgf.Sgf_game.from_bytes(zf.read(g.source.split("!", 1)[1]))
            ref = [m[0] * 19 + m[1] if m else -1
                   for c, m in (n.get_move() for n in game.get_main_sequence()) if c is not None]
            assert g.moves.tolist() == ref[: g.n_moves]
            assert g.komi == 6.5 and g.board_size == 19 and g.handicap == 0
            assert g.black_rank == g.white_rank == "9d"
            assert g.black == game.get_player_name("b")


@pytest.mark.shared_data
def test_real_fox_zip_every_file_read_or_reported(shared_data):
    path = shared_data / "wild" / "fox-ai-games.zip"
    with zipfile.ZipFile(path) as zf:
        members = [i.filename for i in zf.infolist() if not i.is_dir()]
    res = scan([path], ScanOptions(workers=1, min_moves=0))
    assert res.files_read + res.skipped == len(members)
    reported = {e.source for e in res.errors}
    read = {g.source for g in res.games}
    assert res.games_found == res.files_read  # one game per file in this set
    assert res.games_found == res.kept + res.duplicates + sum(res.filtered.values()) + sum(res.unusable.values())
    for name in members:
        if not name.lower().endswith(".sgf"):
            assert f"{path}!{name}" in reported
    assert {g.komi for g in res.games} <= {0.0, 5.5, 6.5, 7.5}
    assert all(re.fullmatch(r"(\d+[dkp]|p|)", g.black_rank) for g in res.games)
    assert sum(g.black_rank == "9p" for g in res.games) > 100
    by_name = {g.source.split("!", 1)[1]: g for g in res.games}
    li = by_name["Li Long/2016.10.25 pooryou01 vs 骊龙 (66460705).SGF"]
    assert (li.black, li.white) == ("小心我捶", "骊龙")  # UTF-8 name cut inside a 5th character
    fa = by_name["FineArt/2017.03.10 FineArt vs kongm (74299498).SGF"]
    assert fa.black == "绝艺"  # mojibake repaired
    assert len(read) + res.duplicates >= 3890


def test_a_run_of_moves_longer_than_a_chunk_reads_as_sgfmill_reads_it():
    # scan tokenizes runs of plain move nodes 1,024 at a time (a regular expression's repeated
    # group costs memory by the repetition: 250 MB on a run of a million passes); the moves,
    # across the chunks' seams, and where a bad move cuts the line are sgfmill's
    from sgfmill import sgf

    spread = [bytes([97 + c, 97 + r]) for r in range(0, 9, 2) for c in range(0, 9, 2)]  # no two adjacent
    at_seams = [n for seam in (1024, 2048) for n in range(seam - 12, seam + 12)][: len(spread)]
    points = [spread[at_seams.index(n)] if n in at_seams else b"tt" for n in range(2600)]
    body = b"".join(b";" + b"BW"[n % 2 : n % 2 + 1] + b"[" + p + b"]" for n, p in enumerate(points))
    data = b"(;GM[1]SZ[9]" + body + b";B[zz];W[hh])"
    expected = []
    for node in sgf.Sgf_game.from_bytes(data).get_main_sequence()[1:]:
        try:
            _, point = node.get_move()
        except ValueError:  # B[zz] is off the 9x9 board
            break
        expected.append(-1 if point is None else point[0] * 9 + point[1])
    assert len(expected) == 2600 and sum(p >= 0 for p in expected) == 25
    [(record, errors)] = list(parse_games(data, "long.sgf"))
    assert record.moves.tolist() == expected
    assert [e.reason for e in errors] == [f"bad-move: bad move coordinate 'zz' at move {len(expected) + 1} "
                                          "(moves kept up to there)"]

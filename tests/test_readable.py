"""The tables, readable: ids that a DuckDB join finds, tactical levels in words, pictures
and exports of both table kinds, provenance in ``info``, ``rate``'s sweeps above its bar,
``play --sgf``."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from click.testing import CliRunner
from sgfmill import sgf

from shapemill.cli import main
from shapemill.engine.search import SearchConfig
from shapemill.engine.frontends.terminal import run_play
from shapemill.miner import rate_command
from shapemill.patterns.defaults import PATTERNS, RATINGS, default_table
from shapemill.tables import read_table
from test_rate import SGFS, rated

duckdb = pytest.importorskip("duckdb")
ID = re.compile(r"pattern (\d+) \(hex ([0-9a-f]{16})\)")


def _run(*args: str):
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_printed_ratings_ids_join_the_stored_column_in_duckdb() -> None:
    table = default_table(RATINGS)
    text = _run("show", table, "--top", "5")
    shown = [(int(d), int(h, 16), float(g)) for d, h, g in
             re.findall(r"pattern (\d+) \(hex ([0-9a-f]{16})\).*?gamma (\S+)", text)]
    assert len(shown) >= 5
    for decimal, hexadecimal, gamma in shown:
        assert decimal == hexadecimal
        rows = duckdb.sql(f"SELECT gamma FROM read_parquet('{table}') "
                          f"WHERE feature = 'pattern' AND value = {decimal}").fetchall()
        assert len(rows) == 1 and f"{rows[0][0]:.3g}" == f"{gamma:.3g}"


def test_printed_pattern_ids_join_the_patterns_table_in_duckdb() -> None:
    table = default_table(PATTERNS)
    text = _run("show", table, "--top", "3", "--sort", "p_played")
    for decimal, played in re.findall(r"pattern (\d+) \(hex [0-9a-f]{16}\).*?played ([\d,]+)", text):
        rows = duckdb.sql(f"SELECT played FROM read_parquet('{table}') WHERE pattern_id = {decimal}").fetchall()
        assert rows == [(int(played.replace(",", "")),)]


def test_tactical_features_are_shown_in_words() -> None:
    text = _run("show", default_table(RATINGS), "--top", "40")
    lines = text.splitlines()
    tactical = [i for i, line in enumerate(lines) if re.match(r"#\d+  \w+ = \d+", line)]
    assert tactical
    for i in tactical:
        if " nbr3x3 = " in lines[i]:
            assert lines[i + 1].startswith("3x3 neighbourhood") and len(lines[i + 2].split()) == 3
        else:
            assert re.match(r"#\d+  \w+ = \d+ \(.+\)  ", lines[i]), lines[i]


def test_svg_pictures_of_a_ratings_table(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    _run("show", default_table(RATINGS), "--top", "3", "--svg", str(tmp_path))
    pictures = sorted(tmp_path.glob("*.svg"))
    # a picture for each spatial pattern among the three highest and the three lowest gammas
    rows = pq.read_table(default_table(RATINGS), columns=["feature", "gamma"]).to_pylist()
    by_gamma = sorted(rows, key=lambda row: -row["gamma"])
    drawn = [end for end, three in (("highest", by_gamma[:3]), ("lowest", by_gamma[-3:]))
             for row in three if row["feature"] == "pattern"]
    assert [p.name.split("-")[0] for p in pictures] == drawn and drawn
    for picture in pictures:
        assert ElementTree.parse(picture).getroot().tag.endswith("svg")


def test_patterns_table_exports_and_provenance(tmp_path: Path) -> None:
    games, patterns, ratings = rated(tmp_path)
    table, _ = read_table(patterns, "patterns")
    _run("export", patterns, "--format", "csv", "-o", str(tmp_path / "p.csv"))
    with open(tmp_path / "p.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == table.num_rows
    stored = [v for v in table["pattern_id"].to_pylist()]
    assert [int(r["pattern_id"]) if r["pattern_id"] else None for r in rows] == stored
    _run("export", patterns, "--format", "json", "-o", str(tmp_path / "p.json"))
    lines = (tmp_path / "p.json").read_text().splitlines()
    assert [json.loads(line)["pattern_id"] for line in lines] == stored
    assert CliRunner().invoke(main, ["export", patterns, "--format", "mm", "-o", str(tmp_path / "x")]).exit_code == 2
    for written, stage in ((patterns, "shapemill mine"), (ratings, "shapemill rate")):
        assert json.loads(_run("info", written, "--json"))["command"] == stage


def test_rate_on_a_terminal_prints_each_sweep_above_the_bar(tmp_path: Path, monkeypatch) -> None:
    from tqdm import tqdm

    bars = io.StringIO()
    monkeypatch.setattr(rate_command, "progress_bar",
                        lambda quiet, total, unit, desc="": tqdm(total=total, unit=unit, desc=desc, file=bars))
    for i, game in enumerate(SGFS):
        (tmp_path / f"{i}.sgf").write_bytes(game)
    games = [str(tmp_path / f"{i}.sgf") for i in range(3)]
    patterns = str(tmp_path / "p.parquet")
    _run("mine", *games, "-o", patterns, "--split", "all", "--min-count", "2", "-q")
    out = _run("rate", *games, "--patterns", patterns, "-o", str(tmp_path / "r.parquet"), "--split", "all",
               "--max-iter", "3", "--tol", "0")
    sweeps = re.findall(r"iteration +(\d+)  log-likelihood/position \S+  change +(\S+)", out)
    assert [int(n) for n, _ in sweeps] == [1, 2, 3] and sweeps[0][1] == "-" and float(sweeps[2][1]) > -1
    assert "sweep" in bars.getvalue()


def test_play_saves_the_game_as_sgf(tmp_path: Path) -> None:
    path = tmp_path / "game.sgf"
    moves = iter(["C3", "B2", "undo", "D2", "quit"])
    out = io.StringIO()
    run_play(SearchConfig(playouts=50, seed=3), 5, "b", None, read=lambda: next(moves), out=out, sgf_path=str(path))
    replies = re.findall(r"shapemill plays (\S+)", out.getvalue())
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    played = [node.get_move() for node in game.get_main_sequence()[1:]]
    letters = "ABCDE"
    as_text = [f"{letters[p[1]]}{p[0] + 1}" if p else "pass" for _, p in played]
    # Black C3, White's reply, Black D2 (B2 and the reply to it taken back), White's reply.
    assert as_text == ["C3", replies[0], "D2", replies[2]]
    assert [c for c, _ in played] == ["b", "w", "b", "w"]
    assert game.get_size() == 5 and game.get_player_name("b") == "you"


def test_evaluate_on_one_sgf_file_evaluates_its_every_move(tmp_path: Path) -> None:
    game = tmp_path / "mine.sgf"
    game.write_bytes(SGFS[0])
    report = json.loads(_run("evaluate", str(game), "--json", "-j", "1"))
    assert report["positions"] == SGFS[0].count(b";") - 1  # every move of the game, whatever its split
    # asked for a split, the game is in exactly one: the other answers in one line with the option to add
    answers = [CliRunner().invoke(main, ["evaluate", str(game), "--split", s, "-j", "1"]) for s in ("test", "train")]
    failed = [a for a in answers if a.exit_code != 0]
    assert len(failed) == 1 and failed[0].exit_code == 1
    assert failed[0].output.strip().endswith("(--split all takes every game)")

"""`shapemill info`: kind, provenance, size and accuracy of every table kind."""

import json

from click.testing import CliRunner
from shapemill.cli import main
from shapemill.tables import read_metadata, read_table, write_table
from test_rate import rated


def info(*args: str) -> dict:
    out = CliRunner().invoke(main, ["info", *args, "--json"])
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def test_info_tells_the_kind_origin_and_size_of_games_patterns_ratings_and_datasets(tmp_path):
    games, patterns, ratings = rated(tmp_path)
    run = CliRunner().invoke
    table, folder = str(tmp_path / "g.parquet"), str(tmp_path / "g")
    assert run(main, ["scan", *games, "-o", table, "--size", "9", "-q"]).exit_code == 0
    assert run(main, ["scan", *games, "-o", folder, "--size", "9", "--partition-size", "2", "-q"]).exit_code == 0

    scanned, dataset = info(table), info(folder)
    assert scanned["kind"] == dataset["kind"] == "games" and scanned["rows"] == dataset["rows"] == 3
    assert dataset["files"] == 2 and scanned["fingerprint"] == dataset["fingerprint"] == read_metadata(table)["fingerprint"]
    assert scanned["games"] == games

    mined = info(patterns)
    assert mined["kind"] == "patterns" and mined["rows"] == read_table(patterns, "patterns")[0].num_rows
    rating = info(ratings)
    assert rating["kind"] == "ratings" and rating["positions"] == 30 and rating["games"] == games
    assert rating["accuracy"] == {} and rating["bytes"] == (tmp_path / "r.parquet").stat().st_size

    data, meta = read_table(ratings, "ratings")
    measured = str(tmp_path / "measured.parquet")
    curve = [{"tolerance": 0, "rows": 900, "mb": 2.5, "top1": 0.41}, {"tolerance": 3, "rows": 400, "mb": 1.0, "top1": 0.39}]
    write_table(data, measured, {**meta, "top1": 0.41, "evaluated_positions": 1234, "command": "make it", "curve": curve})
    text = CliRunner().invoke(main, ["info", measured]).output
    assert "ratings table" in text and "top1 41.0% on 1,234 positions" in text and "command     make it" in text
    assert "tolerance 3: 400 rows, 1.0 MB, top1 39.0%" in text
    assert "accuracy    not measured" in CliRunner().invoke(main, ["info", ratings]).output
    refused = CliRunner().invoke(main, ["info", games[0]])
    assert refused.exit_code == 1 and "not a readable Parquet table" in refused.output

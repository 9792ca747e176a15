"""Every long stage shows a progress bar while standard error is a terminal, and none with
``-q`` (README: "progress on a terminal"; issue 45 item 4).

The stages run on the three small hostile-battery games (9x9), with ``progress.on_terminal``
answering as a terminal would; a tqdm bar is recognised by its elapsed-time bracket, which
every render of it holds (``[00:00<...`` or ``[00:00, ...``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from shapemill import progress
from shapemill.cli import main

GAMES = sorted(str(p) for p in (Path(__file__).parent / "fixtures" / "hostile").glob("*.sgf"))
#: A fragment of the fixture games (a.sgf's first moves: Black C7 and C3, White G3), searched by find.
FRAGMENT = "(;GM[1]FF[4]SZ[9]AB[cc][cg]AW[gg])"


@pytest.fixture
def tables(small_tables, tmp_path) -> dict[str, str]:
    """The small tables, and the fragment find searches."""
    (tmp_path / "fragment.sgf").write_text(FRAGMENT, encoding="utf-8")
    return {**small_tables, "fragment": str(tmp_path / "fragment.sgf")}


COMMANDS = {
    "scan": ["scan", *GAMES, "-o", "{out}.parquet", "--size", "9", "-j", "1"],
    "mine": ["mine", "{games}", "-o", "{out}.parquet", "--split", "all", "--min-count", "2", "-j", "1"],
    "rate": ["rate", "{games}", "--patterns", "{patterns}", "-o", "{out}.parquet", "--split", "all",
             "--max-iter", "2", "-j", "1"],
    "evaluate": ["evaluate", "{games}", "--ratings", "{ratings}", "--split", "all", "-j", "1"],
    "export mm": ["export", "{ratings}", "--format", "mm", "-o", "{out}.mm"],
    "review --engine": ["review", GAMES[0], "--engine", "--playouts", "20", "--threads", "1"],
    "find (building the index)": ["find", "{fresh}", "--sgf", "{fragment}"],
    "index": ["index", "{fresh}"],
}


@pytest.mark.parametrize("quiet", [False, True], ids=["terminal", "-q"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_long_stage_shows_a_bar_on_a_terminal_and_none_with_q(tables, tmp_path, monkeypatch, command, quiet):
    monkeypatch.setattr(progress, "on_terminal", lambda: True)
    fresh = tmp_path / "fresh.parquet"  # a games table without an index, for find and index to build one
    shutil.copy(tables["games"], fresh)
    args = [a.format(out=tmp_path / "out", fresh=fresh, **tables) for a in COMMANDS[command]]
    result = CliRunner().invoke(main, args + (["-q"] if quiet else []))
    assert result.exit_code == 0, result.output
    assert ("[00:" in result.stderr) != quiet, result.stderr

"""shapemill match: refereed games between GTP programs, SGF files, resume, tallies."""

import sys

from click.testing import CliRunner
from shapemill.cli import main
from shapemill.engine.match import wilson

ENGINE = f"{sys.executable} -m shapemill.cli gtp --no-priors --playouts 40 --size 7"


def test_match_plays_saves_and_resumes(tmp_path):
    folder = tmp_path / "games"
    args = ["match", "--black", ENGINE + " --seed 1{game}", "--white", ENGINE + " --seed 2",
            "--size", "7", "--sgf-dir", str(folder), "--alternate"]
    first = CliRunner().invoke(main, [*args, "--games", "2"])
    assert first.exit_code == 0, first.output
    files = sorted(p.name for p in folder.iterdir())
    assert files == ["game-0001.sgf", "game-0002.sgf", "match.json"]
    sgf = (folder / "game-0002.sgf").read_text()
    assert "SZ[7]" in sgf and "RE[" in sgf and "--seed 2" in sgf.split("PB[")[1].split("]")[0]
    assert "--seed 12" in sgf.split("PW[")[1].split("]")[0]  # {game}: the game's number
    again = CliRunner().invoke(main, [*args, "--games", "3"])
    assert again.exit_code == 0, again.output
    assert again.output.count("(from the folder)") == 2 and len(list(folder.glob("game-*.sgf"))) == 3
    tallies = [line for line in again.output.splitlines() if "/3 wins" in line]
    assert len(tallies) == 2
    wins = [float(line.split(": ")[1].split("/")[0]) for line in tallies]
    assert sum(wins) == 3


def test_wilson_interval():
    low, high = wilson(30, 40)
    assert 0.59 < low < 0.61 and 0.85 < high < 0.87
    assert wilson(0, 0) == (0.0, 1.0)


def test_games_played_two_at_once_are_the_games_played_one_by_one(tmp_path):
    """Seeded engines play the same games whether the match runs them one by one or two
    at once, and the tallies count each game once, with its colours."""
    from shapemill.engine.match import run_match

    first, second = ENGINE + " --seed 1{game}", ENGINE + " --seed 2{game}"
    tallies = {}
    for concurrency in (1, 2):
        folder = tmp_path / str(concurrency)
        tallies[concurrency] = run_match(first, second, 2, 7, 7.5, str(folder), alternate=True,
                                         report=lambda line: None, concurrency=concurrency)
    for name in ("game-0001.sgf", "game-0002.sgf"):
        assert (tmp_path / "1" / name).read_text() == (tmp_path / "2" / name).read_text()
    for one, two in zip(tallies[1], tallies[2]):
        assert (one.games, one.wins, one.moves) == (two.games, two.wins, two.moves) and one.games == 2

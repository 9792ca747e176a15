"""The bundled tables and ``shapemill demo``: knowledge that works out of the box."""

import os

import numpy as np
from click.testing import CliRunner
from sgfmill import sgf
from shapemill.cli import main
from shapemill.go.board import Board
from shapemill.patterns.defaults import PATTERNS, RATINGS, default_table
from shapemill.tables import read_table


def test_bundled_tables_say_how_they_were_made():
    for name, kind in ((RATINGS, "ratings"), (PATTERNS, "patterns")):
        table, meta = read_table(default_table(name), kind)
        assert table.num_rows > 1000
        assert meta["command"].startswith("python tools/make_default_tables.py")
        assert meta["games_used"] > 0 and "train split" in meta["corpus"]
        assert 0.2 < meta["top1"] < 1 and meta["evaluated_positions"] > 1000
    size = sum(os.path.getsize(default_table(name)) for name in (RATINGS, PATTERNS))
    assert size <= 30 * 2**20  # issue 17's budget for the bundled tables together
    ratings, _ = read_table(default_table(RATINGS), "ratings")
    features = set(ratings["feature"].to_pylist())
    assert {"pattern", "capture", "atari", "pass"} <= features


def test_demo_plays_a_legal_game_and_writes_it(tmp_path):
    path = tmp_path / "demo.sgf"
    result = CliRunner().invoke(main, ["demo", "--sgf", str(path), "--playouts", "60", "--gnugo-level", "0"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.count("Elo") >= 10 and "strongest moves:" in out and f"wrote the game to {path}" in out
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    assert game.get_size() == 9 and game.get_root().get("RE")
    board = Board(9)
    moves = [node.get_move() for node in game.get_main_sequence()[1:]]
    assert len(moves) >= 10
    result = game.get_root().get("RE")
    forfeit = moves.pop() if result.endswith("+F") else None  # GnuGo's move illegal under superko ends it
    for color, point in moves:
        board.play(color, point)  # raises on an illegal move
    if forfeit is not None:
        assert result[0].lower() != forfeit[0] and "illegal move" in game.get_root().get("C")
        assert not board.is_legal(*forfeit)


def _prior_heat(*options: str) -> np.ndarray:
    """The prior heat map (gogui analyze command) of the position after one move each on 9x9."""
    commands = "boardsize 9\nclear_board\nplay b E5\ngenmove w\nshapemill-prior\nquit\n"
    result = CliRunner().invoke(main, ["gtp", "--size", "9", "--playouts", "50", *options], input=commands)
    assert result.exit_code == 0, result.output
    heat = result.output.split("\n\n")[4].split()  # = INFLUENCE A1 0.242 B1 ...
    assert heat[:2] == ["=", "INFLUENCE"]
    return np.array([float(v) for v in heat[3::2]])


def test_gtp_uses_the_bundled_priors_unless_told_not_to():
    rated = _prior_heat()
    assert len(rated) == 79 and rated.max() == 1.0 and rated.min() < 0.5  # Black's moves after W's, rated
    assert np.all(_prior_heat("--no-priors") == 1.0)  # no table: every move alike


def test_gtp_prior_n_sets_what_the_table_is_worth_against_the_playouts():
    """With the table worth 10,000 visits a move, 50 playouts cannot overrule it: the
    engine plays the table's first choice; worth nothing, the search alone chooses."""
    commands = "boardsize 9\nclear_board\nplay b E5\nplay w C3\nplay b G6\nshapemill-prior\ngenmove w\nquit\n"
    moves = {}
    for worth in ("10000", "0"):
        result = CliRunner().invoke(main, ["gtp", "--size", "9", "--playouts", "50", "--seed", "3",
                                           "--prior-n", worth], input=commands)
        assert result.exit_code == 0, result.output
        answers = result.output.split("\n\n")
        heat = answers[5].split()[2:]
        values = [float(v) for v in heat[1::2]]
        assert values.count(1.0) == 1  # one first choice
        moves[worth] = (answers[6].split()[1], heat[2 * values.index(1.0)])
    assert moves["10000"][0] == moves["10000"][1]
    assert moves["0"][0] != moves["0"][1]

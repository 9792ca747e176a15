"""Hostile use of the engine commands: bad tables, failing programs, hostile GTP input.

``gtp`` refuses a bad ratings table at start-up and never lets a command take it
down; ``match`` gives the game of a program that crashes, hangs or answers garbage
to its opponent and goes on; ``loadsgf`` is all or nothing. The fuzz test feeds
the engine random, truncated, oversized and hostile lines and checks that every
one is answered and a legal ``genmove`` still follows.
"""

from __future__ import annotations

import io
import json
import random
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner
from sgfmill import sgf
from shapemill.cli import main
from shapemill.engine.frontends import match as match_module
from shapemill.engine.frontends.gtp import GtpEngine
from shapemill.engine.frontends.protocol import parse_vertex
from shapemill.engine.search import warm_up
from shapemill.engine.search import SearchConfig
from shapemill.patterns.features import FEATURES
from shapemill.patterns.prior import MovePrior
from shapemill.patterns.defaults import RATINGS, default_table
from shapemill.tables import TableError, read_table, table_metadata, write_table

FIXTURES = Path(__file__).parent / "fixtures" / "games"

# --- gtp: the ratings table is checked whole at start-up ----------------------


@pytest.fixture(scope="module")
def small_ratings() -> pa.Table:
    """The first rows of the bundled ratings table: a valid table to spoil."""
    return read_table(default_table(RATINGS), "ratings")[0].slice(0, 300)


def _gtp_with(path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["gtp", "--ratings", str(path), "--playouts", "5"],
                                input="name\ngenmove b\nquit\n")
    return result.exit_code, result.output


def test_gtp_refuses_a_ratings_table_of_another_schema_version_before_any_command(tmp_path, small_ratings):
    path = tmp_path / "future.parquet"
    write_table(small_ratings, path, {**table_metadata("ratings"), "schema_version": 99})
    code, output = _gtp_with(path)
    assert code == 1 and "= shapemill" not in output
    assert output.strip().count("\n") == 0 and str(path) in output and "schema version 99" in output


def test_gtp_refuses_a_ratings_table_without_a_column_it_needs(tmp_path, small_ratings):
    path = tmp_path / "nogamma.parquet"
    write_table(small_ratings.drop(["gamma"]), path, table_metadata("ratings"))
    code, output = _gtp_with(path)
    assert code == 1 and "= shapemill" not in output and "Traceback" not in output
    assert output.strip().count("\n") == 0 and str(path) in output and "gamma" in output


def test_gtp_refuses_a_ratings_table_with_a_column_of_the_wrong_type(tmp_path, small_ratings):
    path = tmp_path / "textgamma.parquet"
    table = small_ratings.set_column(small_ratings.column_names.index("gamma"), "gamma",
                                     small_ratings["gamma"].cast(pa.string()))
    write_table(table, path, table_metadata("ratings"))
    with pytest.raises(TableError, match="'gamma' holds string"):
        MovePrior(str(path))
    code, output = _gtp_with(path)
    assert code == 1 and "= shapemill" not in output and str(path) in output


@pytest.mark.parametrize("feature, level, reason", [
    ("no-such-feature", None, "unknown feature 'no-such-feature'"),
    (FEATURES[0], 1000, f"feature '{FEATURES[0]}' has level 1000, past its levels"),
    ("pass", 2, "the pass has a level other than 1"),
])
def test_a_table_whose_rows_cannot_be_used_fails_warm_up_in_one_line_and_genmove_with_a_reason(
        tmp_path, small_ratings, capsys, feature, level, reason):
    path = tmp_path / "badrows.parquet"
    bad = small_ratings.set_column(0, "feature", pa.array([feature] * small_ratings.num_rows))
    if level is not None:
        bad = bad.set_column(1, "value", pa.array([level] * bad.num_rows, pa.uint64()))
    write_table(bad, path, table_metadata("ratings"))
    prior = MovePrior(str(path))  # the columns are right: only the rows are wrong
    failure = warm_up(SearchConfig(playouts=5, seed=1), 9, prior)
    assert "Traceback" not in failure and "\n" not in failure and str(path) in failure
    engine = GtpEngine(SearchConfig(playouts=5, seed=1), 9, prior)
    response, done = engine.handle("genmove b")
    assert response.startswith(f"? {path}: unusable ratings (ValueError: {reason})") and response.endswith("\n\n")
    assert not done
    assert engine.state.movers == [] and not engine.state.board.stones("b")


# --- gtp: no command takes the engine down --------------------------------------


@pytest.fixture
def engine() -> GtpEngine:
    return GtpEngine(SearchConfig(playouts=5, seed=1), size=7)


def test_an_internal_error_answers_in_one_line_and_puts_the_position_back(engine):
    engine.handle("play b D4")
    engine.handle("komi 5.5")

    def plays_then_breaks(args: list[str]) -> str:
        engine.state.board.play("w", (0, 0))
        engine.state.movers.append("w")
        engine.state.config.komi = 0.0
        raise RuntimeError("a bug\nover two lines")

    engine.commands["play"] = plays_then_breaks
    response, done = engine.handle("7 play w A1")
    assert response == "?7 internal error: RuntimeError: a bug over two lines\n\n" and not done
    assert engine.state.board.stones("w") == set() and engine.state.board.stones("b") == {(3, 3)}
    assert engine.state.movers == ["b"] and engine.state.config.komi == 5.5
    assert engine.handle("genmove w")[0].startswith("= ")


def test_loadsgf_is_all_or_nothing(engine, tmp_path):
    engine.handle("play b D4")
    engine.handle("komi 5.5")
    path = tmp_path / "illegal.sgf"
    path.write_text("(;GM[1]SZ[9]KM[0.5];B[aa];W[bb];B[aa])")  # move 3 on an occupied point
    response = engine.handle(f"loadsgf {path}")[0]
    assert response.startswith("? cannot load file: move 3 is illegal")
    assert engine.state.size == 7 and engine.state.board.size == 7 and engine.state.board.stones("b") == {(3, 3)}
    assert engine.state.movers == ["b"] and engine.state.config.komi == 5.5


def test_loadsgf_without_komi_keeps_the_current_komi_and_says_so(engine, tmp_path, capsys):
    engine.handle("komi 6.5")
    path = tmp_path / "nokm.sgf"
    path.write_text("(;GM[1]SZ[9];B[ee];W[cc])")
    assert engine.handle(f"loadsgf {path}")[0] == "= black\n\n"
    assert engine.state.config.komi == 6.5 and "no komi" in capsys.readouterr().err
    path.write_text("(;GM[1]SZ[9]KM[0];B[ee])")
    engine.handle(f"loadsgf {path}")
    assert engine.state.config.komi == 0.0  # an explicit KM still counts


def test_time_settings_that_would_make_a_move_search_forever_are_refused_or_capped(engine):
    from shapemill.engine.frontends.clock import MAX_MOVE_SECONDS

    for line in ("time_left b inf 0", "time_settings nan 0 0", "time_left b -5 -1", "kgs-time_settings absolute inf",
                 "komi nan"):
        assert engine.handle(line)[0] == "? syntax error\n\n", line
    assert engine.handle("time_settings 1e308 1e308 1")[0] == "=\n\n"
    assert engine.clock.move_seconds("b") == MAX_MOVE_SECONDS


# --- match: a failing program loses its game, the match goes on ----------------

FAKE = '''
import sys, time
mode = sys.argv[1]
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "quit":
        if mode == "hangquit":
            time.sleep(600)
        print("=\\n", flush=True)
        break
    if words[0] == "genmove":
        if mode == "crash":
            sys.exit(3)
        if mode == "hang":
            time.sleep(600)
        if mode == "garbage":
            print("= Z99 and more\\n", flush=True)
            continue
        if mode == "notgtp":
            print("hello there\\n", flush=True)
            continue
        if mode == "refuse":
            print("? no\\n", flush=True)
            continue
        print("= pass\\n", flush=True)
        continue
    print("=\\n", flush=True)
'''


@pytest.fixture
def fake(tmp_path) -> callable:
    """The command line of a tiny GTP program that passes, or fails in ``mode``."""
    script = tmp_path / "fake_gtp.py"
    script.write_text(FAKE)
    return lambda mode, *extra: " ".join([sys.executable, str(script), mode, *extra])


def _match(fake_black: str, fake_white: str, folder: Path, *extra: str):
    return CliRunner().invoke(main, ["match", "--black", fake_black, "--white", fake_white, "--size", "5",
                                     "--sgf-dir", str(folder), *extra])


@pytest.mark.parametrize("mode, why", [
    ("crash", "closed its output after 'genmove"),
    ("garbage", "answered genmove with 'Z99 and more'"),
    ("notgtp", "not GTP"),
    ("refuse", "refused 'genmove"),
    ("hang", "gave no answer to 'genmove"),
])
def test_a_failing_program_loses_each_game_and_the_match_goes_on(fake, tmp_path, mode, why):
    folder = tmp_path / "games"
    result = _match(fake(mode), fake("pass"), folder, "--games", "2", "--alternate", "--move-timeout", "1")
    assert result.exit_code == 0, result.output
    for n, loser, re_ in ((1, "Black", "W+F"), (2, "White", "B+F")):
        root = sgf.Sgf_game.from_bytes((folder / f"game-{n:04d}.sgf").read_bytes()).get_root()
        assert root.get("RE") == re_ and root.get("C").startswith(f"{loser} forfeits:") and why in root.get("C")
        assert f"game {n}: " in result.output and f": {re_} ({loser} forfeits:" in result.output
    winner = [line for line in result.output.splitlines() if line.startswith(fake("pass") + ":")]
    assert winner and "2/2 wins" in winner[0]


def test_games_a_program_crashed_in_are_tallied_apart_from_games_decided_on_the_board(fake, tmp_path):
    from shapemill.engine.frontends.match import run_match

    crashing, passing = run_match(fake("crash"), fake("pass"), 2, 5, 7.5, str(tmp_path / "crash"),
                                  alternate=True, report=lambda line: None)
    assert (crashing.games, crashing.failures, crashing.wins) == (2, 2, 0)
    assert (passing.wins, passing.wins_by_failure) == (2, 2)
    one, other = run_match(fake("pass"), fake("pass"), 2, 5, 7.5, str(tmp_path / "played"),
                           alternate=True, report=lambda line: None)
    assert (one.failures, other.failures, one.wins_by_failure + other.wins_by_failure) == (0, 0, 0)
    assert one.wins + other.wins == 2


def test_a_program_that_does_not_quit_is_killed_and_its_result_stands(fake, tmp_path, monkeypatch):
    monkeypatch.setattr(match_module, "QUIT_SECONDS", 0.5)
    folder = tmp_path / "games"
    result = _match(fake("hangquit"), fake("pass"), folder, "--games", "2")
    assert result.exit_code == 0, result.output
    assert result.output.count("gave no answer to 'quit' within 0.5 s; killed it") == 2
    assert "game 2: " in result.output and "forfeits" not in result.output


def test_a_resumed_match_refuses_a_folder_of_other_programs_or_settings(fake, tmp_path):
    folder = tmp_path / "games"
    assert _match(fake("pass"), fake("pass"), folder, "--games", "1").exit_code == 0
    manifest = json.loads((folder / "match.json").read_text())
    assert manifest["komi"] == 7.5 and manifest["size"] == 5
    for changed in (["--komi", "6.5"], ["--alternate"]):
        result = _match(fake("pass"), fake("pass"), folder, "--games", "2", *changed)
        assert result.exit_code == 1 and "holds the games of another match" in result.output
        assert result.output.strip().count("\n") == 0
    other = _match(fake("pass", "--other"), fake("pass"), folder, "--games", "2")
    assert other.exit_code == 1 and "black" in other.output
    assert sorted(p.name for p in folder.iterdir()) == ["game-0001.sgf", "match.json"]  # nothing played
    again = _match(fake("pass"), fake("pass"), folder, "--games", "2")
    assert again.exit_code == 0 and "(from the folder)" in again.output


def test_an_equal_time_match_resumes_with_other_starting_seconds(fake, tmp_path):
    # bench/strength.py measures GnuGo's time afresh on every run and starts the match's
    # equal time there: a run must resume the games of the one before.
    folder = tmp_path / "games"
    assert _match(fake("pass"), fake("pass"), folder, "--games", "1", "--equal-time", "0.1").exit_code == 0
    again = _match(fake("pass"), fake("pass"), folder, "--games", "2", "--equal-time", "0.3")
    assert again.exit_code == 0 and "(from the folder)" in again.output, again.output
    without = _match(fake("pass"), fake("pass"), folder, "--games", "3")
    assert without.exit_code == 1 and "equal_time True, not False" in without.output


def test_a_match_refuses_a_folder_of_games_it_did_not_make(fake, tmp_path):
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "game-0001.sgf").write_text("(;GM[1]SZ[5]RE[B+R])")
    result = _match(fake("pass"), fake("pass"), folder, "--games", "2")
    assert result.exit_code == 1 and "no match.json" in result.output


def test_program_names_are_escaped_in_the_sgf(fake, tmp_path):
    folder = tmp_path / "games"
    black = fake("pass", "'a]b\\c'")  # shlex: the argument a]b\c
    assert _match(black, fake("pass"), folder, "--games", "1").exit_code == 0
    root = sgf.Sgf_game.from_bytes((folder / "game-0001.sgf").read_bytes()).get_root()
    assert root.get("PB") == black and root.get("PW") == fake("pass")


def test_demo_survives_an_opponent_that_crashes_and_checks_its_output_first(fake, tmp_path, monkeypatch):
    from shapemill.engine.frontends import demo

    crasher = tmp_path / "crasher"
    crasher.write_text(f"#!/bin/sh\nexec {fake('crash')}\n")
    crasher.chmod(0o755)
    monkeypatch.setattr(demo, "GNUGO", str(crasher))
    lines: list[str] = []
    path = tmp_path / "demo.sgf"
    demo.run_demo(str(path), 5, 5, 0, lines.append)
    root = sgf.Sgf_game.from_bytes(path.read_bytes()).get_root()
    assert root.get("RE") == "B+F" and "White forfeits" in root.get("C")
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    lines.clear()
    with pytest.raises(OSError):
        demo.run_demo(str(blocked / "demo.sgf"), 5, 5, 0, lines.append)
    assert lines == []  # refused before any of the work


# --- the GTP fuzz test -----------------------------------------------------------

COMMANDS = ["protocol_version", "name", "version", "known_command play", "list_commands", "boardsize 9",
            "clear_board", "komi 6.5", "play b C3", "play w pass", "genmove b", "reg_genmove w", "undo",
            "fixed_handicap 4", "place_free_handicap 5", "set_free_handicap A1 B2", "time_settings 1 0.1 1",
            "time_left b 0.2 1", "kgs-time_settings byoyomi 0.5 0.1 3", "final_score", "final_status_list dead",
            "list_stones b", "komi inf", "time_left w nan 1", "showboard", "gogui-analyze_commands", "shapemill-visits", "shapemill-prior"]


def _hostile_sgfs(folder: Path) -> list[Path]:
    texts = {
        "big.sgf": "(;GM[1]SZ[26];B[aa])", "one.sgf": "(;GM[1]SZ[1];B[aa])", "huge.sgf": "(;GM[1]SZ[99])",
        "rect.sgf": "(;GM[1]SZ[9:5];B[aa])", "illegal.sgf": "(;GM[1]SZ[9];B[aa];W[aa])",
        "off.sgf": "(;GM[1]SZ[5];B[hh])", "badkm.sgf": "(;GM[1]SZ[9]KM[abc];B[aa])",
        "nokm.sgf": "(;GM[1]SZ[7];B[dd])", "empty.sgf": "", "garbage.sgf": "((((;;;[[",
        "setup.sgf": "(;GM[1]SZ[5]AB[ab][ba]AW[aa][aa];W[cc])", "binary.sgf": "\x00\xff(;SZ[5]",
        "suicide.sgf": "(;GM[1]SZ[5]AB[ab][ba];W[aa])", "deep.sgf": "(" * 5000 + ";SZ[5]" + ")" * 5000,
    }
    paths = []
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8", errors="surrogateescape")
        paths.append(folder / name)
    return paths + sorted(FIXTURES.glob("*.sgf")) + sorted(FIXTURES.glob("*.SGF"))


def _hostile_line(rng: random.Random, sgfs: list[Path]) -> str:
    kind = rng.randrange(9)
    if kind == 0:  # random bytes, as text
        return "".join(chr(rng.choice([rng.randrange(32), rng.randrange(32, 127), rng.randrange(127, 0x3000)]))
                       for _ in range(rng.randrange(1, 40))).replace("\n", " ").replace("\r", " ")
    if kind == 1:  # a command cut short
        command = rng.choice(COMMANDS)
        return command[: rng.randrange(1, len(command) + 1)]
    if kind == 2:  # oversized
        return rng.choice(["play b ", "boardsize ", "name ", "", "known_command "]) + "A1" * rng.randrange(1000, 200_000)
    if kind == 3:  # out-of-board and illegal moves
        letter = rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return f"play {rng.choice(['b', 'w', 'black', 'x'])} {letter}{rng.randrange(-2, 32)}"
    if kind == 4:
        return f"boardsize {rng.randrange(1, 31)}"
    if kind == 5:
        return "undo"
    if kind == 6:
        return f"loadsgf {rng.choice(sgfs)} {rng.choice(['', '0', '2', '-1', '999'])}"
    if kind == 7:
        return f"{rng.randrange(100)} {rng.choice(COMMANDS)} {rng.choice(['', 'x', '-1', '1e999', 'nan'])}"
    return rng.choice(COMMANDS)


def _legal_genmove_follows(engine: GtpEngine, color: str) -> None:
    before = engine.state.board.copy()
    response, done = engine.handle(f"genmove {color}")
    assert response.startswith("= ") and response.endswith("\n\n") and not done, response
    move = response[2:].strip()
    if move != "resign":
        assert before.is_legal(color, parse_vertex(move, engine.state.size)), (move, str(before))


def test_fuzzed_gtp_input_is_answered_line_by_line_and_a_legal_genmove_follows(tmp_path):
    rng = random.Random(19)
    sgfs = _hostile_sgfs(tmp_path)
    engine = GtpEngine(SearchConfig(playouts=3, seed=1), size=5)
    for chunk in range(40):
        for _ in range(12):
            line = _hostile_line(rng, sgfs)
            out = io.StringIO()
            engine.loop(io.StringIO(line + "\n"), out)
            response = out.getvalue()
            words = "".join(ch for ch in line.split("#", 1)[0] if ch >= " ").split()
            if not words:
                assert response == "", repr(line[:80])
                continue
            assert response[:1] in "=?" and response.endswith("\n\n"), (line[:80], response[:200])
            assert "\n\n" not in response[:-2], (line[:80], response[:200])
        _legal_genmove_follows(engine, rng.choice("bw"))


def test_genmove_on_a_board_without_an_empty_point_passes(engine):
    engine.handle("boardsize 2")
    assert engine.handle("set_free_handicap A1 A2 B1 B2")[0] == "? bad vertex list\n\n"  # GTP: at most size²-1
    engine.state.board.setup("b", [(0, 0), (0, 1), (1, 0), (1, 1)])  # as the fuzz test reached it
    assert engine.handle("genmove w")[0] == "= pass\n\n"

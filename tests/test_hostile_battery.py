"""The hostile battery, round two (issue 34): every command under damaged tables, extreme
options, special files, Ctrl-C and another user gives exit 0, 1 or 2 as README's table
says (1: one line naming the file and the reason; 2: usage), never a traceback, never a
hang (each case runs under a deadline), never a lost or replaced output."""

from __future__ import annotations

import errno
import io
import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import click
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from shapemill import cli
from shapemill.cli import main
from shapemill.datasets.text import parse_komi
from shapemill.engine.frontends.analysis import AnalysisSettings, run_analysis
from shapemill.engine.frontends.gtp import GtpEngine
from shapemill.engine.search import SearchConfig
from shapemill import tables
from shapemill.patterns.defaults import RATINGS, default_table
from shapemill.tables import read_table, table_metadata, write_table
from katago_protocol import check_error, parse_json_line
from test_hostile_commands import at_most, said

GAMES = sorted(str(p) for p in (Path(__file__).parent / "fixtures" / "hostile").glob("*.sgf"))
ROOT = Path(__file__).resolve().parent.parent
PREVIOUS = b"the previous output\n"
#: Seconds any one case may take before it counts as a hang.
DEADLINE = 60
#: The seed of the battery's random choices (which bytes are flipped).
SEED = 34
#: A 5x5 problem: the white string at A4 (three points) dies with Black to play.
PROBLEM = "(;GM[1]SZ[5]PL[B]AB[ac][bc][cc][dc][ec][eb][ea]AW[ab][bb][cb][db][da])"


def run(*args: str, input: str | None = None):
    with at_most(DEADLINE):
        return CliRunner().invoke(main, list(args), input=input)


def clean(result, code: int) -> str:
    """The output of a command that ended as README's exit-code table says: ``code``, no
    traceback, and for a failure exactly one ``Error`` line, which is returned."""
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == code, result.output
    if code == 0:
        return ""
    lines = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(lines) == 1, result.output
    assert result.output.rstrip("\n").splitlines()[-1] == lines[0], "the error goes on past its line"
    return lines[0]


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, str]:
    """A games table of the three fixture games, their patterns, the bundled ratings
    table's first 300 rows (less the near twins whose pattern is not among them), without
    its latent vectors (``ratings``) and with them (``vectors``), and a 5x5 problem: small
    inputs to spoil."""
    folder = tmp_path_factory.mktemp("made")
    paths = {kind: str(folder / f"{kind}.parquet") for kind in ("games", "patterns", "ratings", "vectors")}
    clean(run("scan", *GAMES, "-o", paths["games"], "--size", "9", "-j", "1", "-q"), 0)
    clean(run("mine", paths["games"], "-o", paths["patterns"], "--split", "all", "--min-count", "2", "-j", "1", "-q"),
          0)
    first = read_table(default_table(RATINGS), "ratings")[0].slice(0, 300)
    rows = list(zip(first["feature"].to_pylist(), first["value"].to_pylist()))
    patterns = {v for f, v in rows if f == "pattern"}
    keep = [f != "near_pattern" or v in patterns for f, v in rows]
    write_table(first.filter(pa.array(keep)), paths["vectors"], table_metadata("ratings"))
    write_table(first.filter(pa.array(keep)).drop_columns(["vector"]), paths["ratings"], table_metadata("ratings"))
    paths["problem"] = str(folder / "problem.sgf")
    Path(paths["problem"]).write_text(PROBLEM)
    return paths


# -- every numeric option is range-checked when parsed (exit 2) ---------------------------

def base_args(made: dict[str, str], tmp: Path) -> dict[str, list[str]]:
    """Arguments with which each command would run: a bad option is then the only fault."""
    out = str(tmp / "out.parquet")
    return {
        "scan": [GAMES[0], "-o", out], "mine": [made["games"], "-o", out],
        "rate": [made["games"], "--patterns", made["patterns"], "-o", out], "evaluate": [made["games"]],
        "vectors": [made["games"], "--ratings", made["ratings"], "-o", out],
        "show": [], "info": [], "gtp": [], "export": [made["ratings"], "--format", "csv", "-o", out],
        "match": ["--black", "a", "--white", "b", "--sgf-dir", str(tmp / "m")], "play": [],
        "demo": ["--sgf", str(tmp / "demo.sgf")], "solve": [made["problem"], "--goal", "kill A4"],
        "analysis": [], "find": [made["games"], "--sgf", made["problem"]], "review": [GAMES[0]],
    }


def numeric_options() -> list[tuple[str, click.Option]]:
    return [(name, p) for name, command in sorted(main.commands.items()) for p in command.params
            if isinstance(p, click.Option) and isinstance(p.type, cli.Ranged)]


def test_every_numeric_option_has_the_shared_ranged_type():
    loose = [f"{name} {p.opts[-1]}" for name, command in main.commands.items() for p in command.params
             if isinstance(p.type, (click.types.IntParamType, click.types.FloatParamType))
             and p.name != "max_size"]  # --max-size: a ring or 361, checked by its callback
    assert loose == [] and len(numeric_options()) > 40


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "1e300", str(10**30)])
def test_every_numeric_option_refuses_nan_infinity_negative_and_huge_values(made, tmp_path, value):
    args = base_args(made, tmp_path)
    tried = 0
    for name, option in numeric_options():
        t = option.type
        if value == "-1" and t.low <= -1:
            continue  # komi: -1 is a komi
        if t.kind is int and value in ("1e300", "nan", "inf", "-inf"):
            expected = "is not a valid integer"
        else:
            expected = "is not a finite number" if value in ("nan", "inf", "-inf") else "is not in the range"
        result = run(name, *args[name], option.opts[-1], value, input="quit\n")
        line = clean(result, 2)
        assert f"'{option.opts[-1]}'" in result.output and expected in result.output, (name, line)
        tried += 1
    assert tried > 40


@pytest.mark.parametrize("args", [
    ["solve", "{problem}", "--goal", ""], ["solve", "{problem}", "--goal", "nothing A4"],
    ["solve", "{problem}", "--goal", "kill A4", "--region", ",,,"],
    ["solve", "{problem}", "--goal", "kill A4", "--region", "A1-"],
    ["mine", "{games}", "-o", "{out}", "--scheduler", "nowhere"],
    ["mine", "{games}", "-o", "{out}", "--scheduler", "local:0"],
    ["match", "--black", "", "--white", "gnugo"], ["match", "--black", "gnugo", "--white", "a 'b"],
])
def test_bad_goal_region_scheduler_and_program_values_are_usage_errors(made, tmp_path, args):
    fill = {**made, "out": str(tmp_path / "out.parquet")}
    line = clean(run(*(a.format(**fill) for a in args)), 2)
    assert "Invalid value" in line and not (tmp_path / "out.parquet").exists()


# -- a missing path, a FIFO, a device: one line, exit 1, at once --------------------------

INPUTS = [
    ["scan", "{x}", "-o", "{out}"], ["mine", "{x}", "-o", "{out}"],
    ["rate", "{x}", "--patterns", "{ratings}", "-o", "{out}"], ["rate", "{games}", "--patterns", "{x}", "-o", "{out}"],
    ["evaluate", "{x}"], ["evaluate", "{games}", "--ratings", "{x}"], ["show", "{x}"], ["info", "{x}"],
    ["export", "{x}", "--format", "csv", "-o", "{out}"], ["gtp", "--ratings", "{x}"], ["play", "--ratings", "{x}"],
    ["solve", "{x}", "--goal", "kill A4"], ["solve", "{problem}", "--goal", "kill A4", "--ratings", "{x}"],
    ["find", "{x}", "--sgf", "{problem}"], ["find", "{games}", "--sgf", "{x}"], ["index", "{x}"], ["review", "{x}"],
    ["review", "{game0}", "--ratings", "{x}"], ["analysis", "--ratings", "{x}"],
]


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "pipe.sgf"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("args", INPUTS, ids=lambda a: " ".join(a[:2]))
@pytest.mark.parametrize("what", ["missing", "fifo", "/dev/zero"])
def test_a_missing_or_special_input_is_one_line_and_exit_1_in_every_command(made, tmp_path, fifo, args, what):
    x = {"missing": str(tmp_path / "nowhere.parquet"), "fifo": str(fifo), "/dev/zero": "/dev/zero"}[what]
    fill = {**made, "x": x, "out": str(tmp_path / "out.parquet"), "game0": GAMES[0]}
    line = clean(run(*(a.format(**fill) for a in args), input="quit\n"), 1)
    reason = "no such file or folder" if what == "missing" else "not a regular file"
    assert f"Error: {x}: " in line and reason in line and not (tmp_path / "out.parquet").exists()


def test_scan_reports_a_fifo_inside_a_folder_as_an_errors_row_and_goes_on(tmp_path, fifo):
    folder = tmp_path / "games"
    folder.mkdir()
    shutil.copy(GAMES[0], folder)
    os.mkfifo(folder / "stuck.sgf")
    out, errors = tmp_path / "g.parquet", tmp_path / "e.parquet"
    clean(run("scan", str(folder), "-o", str(out), "--errors", str(errors), "--size", "9", "-j", "1", "-q"), 0)
    rows = pq.read_table(errors).to_pylist()
    assert [(Path(r["source"]).name, r["kind"]) for r in rows] == [("stuck.sgf", "unreadable")]
    assert "FIFO" in rows[0]["reason"] and pq.read_table(out).num_rows == 1


def test_gtp_loadsgf_refuses_a_fifo_and_an_endless_device_at_once(fifo):
    engine = GtpEngine(SearchConfig(playouts=5, seed=1), size=9)
    with at_most(10):
        for path in (fifo, "/dev/zero"):
            response, done = engine.handle(f"loadsgf {path}")
            assert response.startswith("? cannot load file: ") and "not a regular file" in response and not done


def test_gtp_loadsgf_reads_komi_as_scan_does(tmp_path):
    # KM[650] is Fox's komi x 100: scan's reader makes it 6.5; loadsgf must agree.
    path = tmp_path / "fox.sgf"
    path.write_text("(;GM[1]SZ[9]KM[650];B[ee];W[cc])")
    engine = GtpEngine(SearchConfig(playouts=5, seed=1), size=9)
    assert engine.handle(f"loadsgf {path}")[0] == "= black\n\n"
    assert engine.state.config.komi == parse_komi("650") == 6.5


def test_lz_analyze_with_a_huge_interval_reports_without_an_error(monkeypatch):
    failed = []
    monkeypatch.setattr(threading, "excepthook", lambda args: failed.append(args.exc_value))
    engine = GtpEngine(SearchConfig(playouts=5, seed=1), size=9)
    out = io.StringIO()
    assert engine.handle("lz-analyze 100000000000000000000", stdout=out) == ("", False)  # 1e18 seconds asked
    time.sleep(0.5)
    engine.analysis.stop(out)
    assert failed == [] and out.getvalue().startswith("=")


# -- outputs: never over an input, through special files, all or none ---------------------

SAME = [
    ["scan", "{games}", "-o", "{games}"], ["scan", "{game0}", "-o", "{out}", "--errors", "{game0}"],
    ["scan", "{game0}", "-o", "{out}", "--errors", "{out}"],
    ["mine", "{games}", "-o", "{games_alias}"], ["rate", "{games}", "--patterns", "{ratings}", "-o", "{ratings}"],
    ["rate", "{games}", "--patterns", "{ratings}", "-o", "{games}"],
    ["evaluate", "{games}", "--ratings", "{ratings}", "--plot", "{ratings}"],
    ["export", "{ratings}", "--format", "csv", "-o", "{ratings_link}"],
    ["solve", "{problem}", "--goal", "kill A4", "--sgf", "{problem}"],
    ["find", "{games}", "--sgf", "{game0}", "--sgf-out", "{game0}"], ["review", "{game0}", "-o", "{game0}"],
]


@pytest.mark.parametrize("args", SAME, ids=lambda a: " ".join(a[:1] + a[-2:]))
def test_an_output_that_is_an_input_or_another_output_is_refused_and_nothing_is_written(made, tmp_path, args,
                                                                                       plot_extra):
    copies = {k: tmp_path / Path(v).name for k, v in made.items()}
    for k, v in made.items():
        shutil.copy(v, copies[k])
    shutil.copy(GAMES[0], tmp_path / "a.sgf")
    (tmp_path / "link.parquet").symlink_to(copies["ratings"])
    fill = {**{k: str(v) for k, v in copies.items()}, "game0": str(tmp_path / "a.sgf"),
            "games_alias": str(tmp_path / "." / ".." / tmp_path.name / "games.parquet"),
            "ratings_link": str(tmp_path / "link.parquet"), "out": str(tmp_path / "out.parquet")}
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    line = clean(run(*(a.format(**fill) for a in args)), 1)
    assert "not overwriting it" in line
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before


def read_fifo_in_background(path: Path) -> tuple[threading.Thread, list[bytes]]:
    got: list[bytes] = []

    def read() -> None:
        with open(path, "rb") as f:
            got.append(f.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader, got


@pytest.mark.parametrize("command", ["export", "scan --errors"])
def test_a_fifo_given_as_output_is_written_through_and_stays_a_fifo(made, tmp_path, fifo, command):
    # As /dev/null would be: renaming a file over it would replace the device for everyone.
    reader, got = read_fifo_in_background(fifo)
    if command == "export":
        args = ["export", made["ratings"], "--format", "csv", "-o", str(fifo)]
    else:
        args = ["scan", *GAMES, "-o", str(tmp_path / "g.parquet"), "--errors", str(fifo), "-j", "1", "-q"]
    clean(run(*args), 0)
    reader.join(DEADLINE)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and len(got) == 1
    if command == "export":
        lines = got[0].decode().splitlines()
        assert lines[0].startswith("\"feature\",") and len(lines) == 1 + pq.read_metadata(made["ratings"]).num_rows
    else:
        assert got[0][:4] == b"PAR1" and sorted(os.listdir(tmp_path)) == ["g.parquet", "pipe.sgf"]


def test_scan_on_a_full_disk_keeps_both_previous_tables(tmp_path, monkeypatch):
    written = []

    def second_write_fails(table, path, meta):
        written.append(path)
        if len(written) == 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        Path(path).write_bytes(b"new")

    monkeypatch.setattr(tables, "_write_parquet", second_write_fails)
    games, errors = tmp_path / "games.parquet", tmp_path / "errors.parquet"
    games.write_bytes(PREVIOUS)
    errors.write_bytes(PREVIOUS)
    line = clean(run("scan", *GAMES, "-o", str(games), "--errors", str(errors), "-j", "1", "-q"), 1)
    assert "No space left on device" in line and len(written) == 2
    assert games.read_bytes() == errors.read_bytes() == PREVIOUS
    assert sorted(os.listdir(tmp_path)) == ["errors.parquet", "games.parquet"]


# -- damaged and mislabelled tables: one line naming the file and the column ---------------

def spoil_games(table: pa.Table, how: str) -> pa.Table:
    def set_(name, array):
        return table.set_column(table.column_names.index(name), name, array)

    n = table.num_rows
    if how == "board size 0":
        return set_("board_size", pa.array([0] * n, pa.int16()))
    if how == "board size 30000":
        return set_("board_size", pa.array([30000] * n, pa.int16()))
    if how == "null moves":
        return set_("moves", pa.array([None] * n, pa.list_(pa.int16())))
    if how == "moves off the board":
        return set_("moves", pa.array([[0, 81, 5000]] * n, pa.list_(pa.int16())))
    if how == "text board size":
        return set_("board_size", pa.array(["nine"] * n))
    raise ValueError(how)


GAMES_DAMAGE = {"board size 0": "'board_size'", "board size 30000": "'board_size'", "null moves": "'moves'",
                "moves off the board": "'moves'", "text board size": "'board_size'"}


@pytest.mark.parametrize("how", GAMES_DAMAGE)
def test_a_damaged_games_table_is_one_line_naming_the_file_and_the_column(made, tmp_path, how):
    bad = tmp_path / "bad.parquet"
    write_table(spoil_games(read_table(made["games"], "games")[0], how), bad, table_metadata("games"))
    for args in (["mine", str(bad), "-o", str(tmp_path / "p.parquet"), "--split", "all", "-j", "1", "-q"],
                 ["rate", str(bad), "--patterns", made["patterns"], "-o", str(tmp_path / "r.parquet"), "--split", "all"],
                 ["evaluate", str(bad), "--ratings", made["ratings"], "--split", "all", "-j", "1"]):
        line = clean(run(*args), 1)
        assert str(bad) in line and GAMES_DAMAGE[how] in line, line
    assert sorted(os.listdir(tmp_path)) == ["bad.parquet"]


def test_mine_on_moves_off_the_board_with_one_worker_is_one_line_not_a_segfault(made, tmp_path):
    bad = tmp_path / "bad.parquet"
    write_table(spoil_games(read_table(made["games"], "games")[0], "moves off the board"), bad,
                table_metadata("games"))
    done = subprocess.run([sys.executable, "-m", "shapemill.cli", "mine", str(bad), "-o", str(tmp_path / "p.parquet"),
                           "--split", "all", "-j", "1", "-q"], capture_output=True, text=True, timeout=DEADLINE)
    assert done.returncode == 1 and done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and str(bad) in done.stderr and "'moves'" in done.stderr


def spoil_ratings(table: pa.Table, how: str) -> pa.Table:
    gamma = table.column_names.index("gamma")
    if how in ("nan", "0", "1e300"):
        values = table["gamma"].to_pylist()
        values[len(values) // 2] = float(how)
        return table.set_column(gamma, "gamma", pa.array(values, pa.float64()))
    if how == "no gamma":
        return table.drop(["gamma"])
    if how == "no feature":
        return table.drop(["feature"])
    raise ValueError(how)


@pytest.mark.parametrize("how", ["nan", "0", "1e300", "no gamma", "no feature"])
def test_bad_gammas_and_missing_columns_are_refused_by_every_reader_of_ratings(made, tmp_path, how):
    bad = tmp_path / "bad.parquet"
    write_table(spoil_ratings(read_table(made["ratings"], "ratings")[0], how), bad, table_metadata("ratings"))
    column = "feature" if how == "no feature" else "gamma"
    for args in (["evaluate", made["games"], "--ratings", str(bad), "--split", "all", "-j", "1"],
                 ["solve", made["problem"], "--goal", "kill A4", "--ratings", str(bad)],
                 ["export", str(bad), "--format", "csv", "-o", str(tmp_path / "r.csv")],
                 ["show", str(bad)]):
        line = clean(run(*args), 1)
        assert str(bad) in line and column in line, (args[0], line)
    result = run("gtp", "--ratings", str(bad), "--playouts", "5", "--size", "9", input="genmove b\nquit\n")
    assert "Traceback" not in result.output and str(bad) in result.output and column in result.output
    assert "= " not in result.output.split("genmove")[0] or "?" in result.output  # no move from a bad table
    assert not any(line.startswith("= ") and line[2:].strip() for line in result.output.splitlines())


@pytest.mark.parametrize("how", ["negative seen", "played over seen", "ring 0", "ring 500"])
def test_impossible_counts_and_rings_are_refused_in_patterns_and_ratings_tables(made, tmp_path, how):
    """A count below zero, a move played more often than it was available, a ring no
    pattern has: one line naming the file and the column, before any row is used."""
    column = {"negative seen": "seen", "played over seen": "played", "ring 0": "size", "ring 500": "size"}[how]
    for kind, args in (("patterns", lambda bad: ["show", bad]), ("ratings", lambda bad: ["show", bad]),
                       ("ratings", lambda bad: ["export", bad, "--format", "csv", "-o", str(tmp_path / "r.csv")])):
        table = read_table(made[kind], kind)[0]
        values = table[column].to_pylist()
        values[0] = {"negative seen": -5, "played over seen": table["seen"][0].as_py() + 1,
                     "ring 0": 0, "ring 500": 500}[how]
        bad = tmp_path / f"{kind}.parquet"
        spoiled = table.set_column(table.column_names.index(column), column,
                                   pa.array(values, type=table.schema.field(column).type))
        write_table(spoiled, bad, table_metadata(kind))
        line = clean(run(*args(str(bad))), 1)
        assert str(bad) in line and repr(column) in line, (kind, line)


def flip_bytes(path: Path, where: float, n: int = 16) -> None:
    data = bytearray(path.read_bytes())
    rng = random.Random(SEED)
    start = min(int(len(data) * where), len(data) - n)
    for k in range(start, start + n):
        data[k] ^= rng.randrange(1, 256)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("where", [0.3, 0.5, 0.999])  # pages, then the footer
def test_flipped_bytes_in_a_table_are_one_line(made, tmp_path, where):
    for kind in ("games", "ratings"):
        bad = tmp_path / f"{kind}.parquet"
        shutil.copy(made[kind], bad)
        flip_bytes(bad, where)
        commands = (["mine", str(bad), "-o", str(tmp_path / "out.parquet"), "--split", "all", "-j", "1", "-q"],
                    ["info", str(bad)]) if kind == "games" else (
                    ["export", str(bad), "--format", "csv", "-o", str(tmp_path / "out.csv")], ["show", str(bad)],
                    ["evaluate", made["games"], "--ratings", str(bad), "--split", "all", "-j", "1"])
        for args in commands:
            result = run(*args)
            if result.exit_code == 0:  # the bytes were in a part no reader checks (statistics)
                continue
            line = clean(result, 1)
            assert str(bad) in line, line


# -- solve's problems ---------------------------------------------------------------------

def test_solve_refuses_black_and_white_stones_on_one_point(tmp_path):
    sgf = tmp_path / "both.sgf"
    sgf.write_text("(;GM[1]SZ[5]PL[B]AB[aa][bb]AW[aa][cc])")
    line = clean(run("solve", str(sgf), "--goal", "kill C3"), 1)
    assert f"{sgf}: AB and AW both set a stone on A5" in line


def test_solve_names_points_as_gtp_vertices_and_never_gives_an_empty_reason(made, tmp_path):
    line = clean(run("solve", made["problem"], "--goal", "kill A1"), 2)  # a usage error, before any search
    assert line.endswith("--goal kill: no stone at A1")
    for text in ("(;GM[1]SZ[30])", "(;GM[1]SZ[5];B[cc];W[dd];B[cc])", "not SGF"):  # no game solve can read
        unread = tmp_path / "unread.sgf"
        unread.write_text(text)
        line = clean(run("solve", str(unread), "--goal", "kill A1"), 1)
        assert line.startswith(f"Error: {unread}: ") and len(line) > len(f"Error: {unread}: ") + 3


SOLVE_DAMAGED = {  # PROBLEM damaged: what is added, the warnings; the position stays PROBLEM's
    "move off the board": (";B[zz]", ["move 1: B[zz] is not a point of the 5x5 board; ignored"]),
    "move as a vertex": (";W[P4]", ["move 1: W[P4] is not a point of the 5x5 board; ignored"]),
    "KM[nan]": ("KM[nan]", ["KM[nan] is no komi of a 5x5 board"]),
    "bytes not UTF-8": ("CA[UTF-8]PB[\xff\xfe]C[\xc3\x28]", []),
    "CA of two values": ("CA[UTF-8][UTF-8]PB[\xe9\xa3\x8e]", []),
    "setup after the root": ("AW[da]", []),  # D1 taken off the root and set in a later node
}


@pytest.mark.parametrize("damage", SOLVE_DAMAGED)
def test_solve_reads_a_damaged_game_as_review_does_warns_and_goes_on(tmp_path, damage):
    added, warnings = SOLVE_DAMAGED[damage]
    clean_file, damaged = tmp_path / "problem.sgf", tmp_path / "damaged.sgf"
    clean_file.write_text(PROBLEM)
    root, rest = PROBLEM[:-1], ""
    if damage == "setup after the root":
        root, rest = root.replace("[da]", ""), ";" + added
    elif added.startswith(";"):
        rest = added
    else:
        root += added
    damaged.write_bytes((root + rest + ")").encode("latin-1"))
    reference, result = (run("solve", str(f), "--goal", "kill A4", "--json") for f in (clean_file, damaged))
    clean(reference, 0)
    clean(result, 0)
    answer, reference = json.loads(result.stdout), json.loads(reference.stdout)
    assert (answer["result"], answer["move"]) == (reference["result"], reference["move"]) == ("win", "B5")
    said = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert [w[: len(f"warning: {damaged}: ") + len(m)] for w, m in zip(said, warnings)] == [
        f"warning: {damaged}: {m}" for m in warnings] and len(said) == len(warnings)


@pytest.mark.parametrize("goal, reason", [
    ("kill A3", "A3 is Black's string and Black is to play"),  # the solver's own stone
    ("capture C3", "C3 is Black's string and Black is to play"),
    ("live A4", "A4 is White's string and Black is to play"),
    ("kill Z9", "bad points"), ("kill A6", "bad points"),  # off the 5x5 board
])
def test_a_goal_off_the_board_or_on_the_wrong_side_s_string_is_a_usage_error_before_any_search(
        tmp_path, monkeypatch, goal, reason):
    from shapemill.engine.solve import run as solve_run

    sgf = tmp_path / "three.sgf"
    sgf.write_text("(;GM[1]SZ[5]PL[B]AB[ac][bc][cc][dc][ec][eb][ea]AW[ab][bb][cb][db][da])")
    monkeypatch.setattr(solve_run, "ALGORITHMS", {})  # any search would fail with a KeyError
    line = clean(run("solve", str(sgf), "--goal", goal), 2)
    assert reason in line


# -- signals -----------------------------------------------------------------------------

def patched_cli(setup: str) -> list[str]:
    """A ``shapemill`` command line that first runs ``setup`` (Python) in the process."""
    return [sys.executable, "-c", textwrap.dedent(setup) + "\nfrom shapemill.cli import main\nmain()"]


def wait_for(path: Path, proc: subprocess.Popen, seconds: int = DEADLINE) -> None:
    end = time.monotonic() + seconds
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, "the command never got there"
        time.sleep(0.05)


SPIN = """
    import numba, numpy as np
    from pathlib import Path
    @numba.njit(nogil=True)
    def spin(n):  # a kernel of many seconds: numba checks no signal inside
        x = np.zeros(8)
        for i in range(n):
            x[i % 8] += np.sqrt(i + x[(i + 3) % 8])
        return x
    def slow(kernel):
        def run(*args):
            Path({marker!r}).touch()
            spin(4_000_000_000)
            return kernel(*args)
        return run
"""


@pytest.mark.parametrize("command", ["rate", "evaluate", "evaluate with vectors"])
def test_ctrl_c_inside_a_kernel_stops_the_command_at_once_in_one_line(made, tmp_path, command):
    marker, out = tmp_path / "in-the-kernel", tmp_path / "r.parquet"
    out.write_bytes(PREVIOUS)
    setup = textwrap.dedent(SPIN).format(marker=str(marker)) + {
        "rate": "from shapemill.miner import team_shards\nteam_shards._pass = slow(team_shards._pass)",
        "evaluate": "from shapemill.miner import evaluate\nevaluate.ranks_and_logp = slow(evaluate.ranks_and_logp)",
        "evaluate with vectors": "from shapemill.miner import evaluate\nevaluate.rank_latent = slow(evaluate.rank_latent)",
    }[command]
    args = {"rate": ["rate", made["games"], "--patterns", made["patterns"], "-o", str(out), "--split", "all",
                     "--max-iter", "1", "-j", "1"],
            "evaluate": ["evaluate", made["games"], "--ratings", made["ratings"], "--split", "all", "-j", "1"],
            "evaluate with vectors": ["evaluate", made["games"], "--ratings", made["vectors"], "--split", "all", "-j",
                                      "1"]}
    proc = subprocess.Popen(patched_cli(textwrap.dedent(setup)) + args[command], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        wait_for(marker, proc)
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        _, stderr = proc.communicate(timeout=DEADLINE)
        took = time.monotonic() - sent
    finally:
        proc.kill()
    assert proc.returncode == 1 and "Traceback" not in stderr and "SystemError" not in stderr
    (line,) = [line for line in stderr.splitlines() if line.startswith("Error")]
    assert "interrupted (Ctrl-C) during" in line and command.split()[0] in line
    assert took < 10, f"{took:.1f} s after Ctrl-C"  # the kernel alone would run for minutes
    assert out.read_bytes() == PREVIOUS


@pytest.mark.parametrize("algorithm", ["alphabeta", "pns"])
def test_ctrl_c_during_a_solver_search_is_one_line(tmp_path, algorithm):
    empty, marker = tmp_path / "empty.sgf", tmp_path / "searching"
    empty.write_text("(;GM[1]SZ[5]PL[B])")  # 5x5 from the empty board: far too long to finish
    setup = f"""
        from pathlib import Path
        from shapemill.engine.solve import run
        def searching(real):
            def search(*args):
                Path({str(marker)!r}).touch()
                return real(*args)
            return search
        run.alphabeta = searching(run.alphabeta)
        run.ALGORITHMS["pns"] = searching(run.ALGORITHMS["pns"])
    """
    proc = subprocess.Popen(patched_cli(setup) + ["solve", str(empty), "--goal", "score", "--algorithm", algorithm],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        wait_for(marker, proc)
        time.sleep(1)  # well into the search
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=DEADLINE)
    finally:
        proc.kill()
    assert proc.returncode == 1 and "Traceback" not in stderr and "SystemError" not in stderr, stderr
    assert [line for line in stderr.splitlines() if line.startswith("Error")] == [
        "Error: solve: interrupted (Ctrl-C); nothing written"]


def test_an_orphaned_mine_worker_ends_without_a_traceback(made, tmp_path):
    marker = tmp_path / "working"
    setup = f"""
        import time
        from pathlib import Path
        from shapemill.miner import shards
        real = shards._run_shard
        def slow(*args):
            Path({str(marker)!r}).touch()
            time.sleep(3)
            return real(*args)
        shards._run_shard = slow
    """
    proc = subprocess.Popen(patched_cli(textwrap.dedent(setup)) + [
        "mine", made["games"], "-o", str(tmp_path / "p.parquet"), "--split", "all", "-j", "2", "-q"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(marker, proc)
        proc.kill()  # the parent, as the out-of-memory killer would; its workers live on
        _, stderr = proc.communicate(timeout=DEADLINE)  # until the last worker closes stderr
    finally:
        proc.kill()
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr


FAKE_GTP = """
import sys, time
from pathlib import Path
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "genmove":
        Path({marker!r}).touch()
        time.sleep(600)
    print("= " + ("fake" if word == "name" else ""), end="\\n\\n", flush=True)
    if word == "quit":
        break
"""


def test_ctrl_c_during_a_match_never_saves_the_game_in_play_as_a_forfeit(tmp_path):
    marker = tmp_path / "thinking"
    program = tmp_path / "fake_gtp.py"
    program.write_text(FAKE_GTP.format(marker=str(marker)))
    folder = tmp_path / "games"
    command = f"{sys.executable} {program}"
    # SIGINT as at a terminal: a test run started in the background (`cmd &`) inherits it
    # ignored, and Python then never raises KeyboardInterrupt (the game would end by timeout)
    proc = subprocess.Popen([sys.executable, "-m", "shapemill.cli", "match", "--black", command, "--white", command,
                             "--games", "1", "--sgf-dir", str(folder), "--move-timeout", "5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        wait_for(marker, proc)
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C at a terminal: the whole foreground group
        _, stderr = proc.communicate(timeout=DEADLINE)
    finally:
        proc.kill()
    assert proc.returncode == 1 and "Traceback" not in stderr, stderr
    assert [line for line in stderr.splitlines() if line.startswith("Error")] == [
        "Error: match: interrupted (Ctrl-C); the game in play is not saved"]
    assert sorted(os.listdir(folder)) == ["match.json"]


# -- another user, a read-only install -----------------------------------------------------

@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root to become nobody")
def test_a_read_only_install_works_for_another_user(tmp_path):
    base = Path(os.environ.get("TMPDIR", "/tmp"))
    place = Path(__import__("tempfile").mkdtemp(prefix="shapemill-ro-", dir=base))
    try:
        install = place / "site" / "shapemill"
        shutil.copytree(ROOT, install, ignore=shutil.ignore_patterns(".git", "tests", "bench", "__pycache__", "*.nbi",
                                                                     "*.nbc"))
        work = place / "work"
        (work / "sgf" / "locked").mkdir(parents=True)
        shutil.copy(GAMES[0], work / "sgf")
        for folder, _, files in os.walk(place / "site"):
            os.chmod(folder, 0o555)
            for name in files:
                os.chmod(Path(folder) / name, 0o444)
        os.chmod(place, 0o755)
        os.chmod(work / "sgf" / "locked", 0o000)  # root's, unreadable to nobody
        os.chmod(work / "sgf", 0o755)
        os.chown(work, 65534, 65534)
        env = {**os.environ, "PYTHONPATH": str(place / "site"), "HOME": "/nonexistent"}
        env.pop("NUMBA_CACHE_DIR", None)
        env.pop("XDG_CACHE_HOME", None)
        done = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                               "shapemill.cli", "scan", str(work / "sgf"), "-o", str(work / "g.parquet"), "--errors",
                               str(work / "e.parquet"), "--size", "9", "-q"],
                              capture_output=True, text=True, timeout=300, env=env, cwd=work)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert pq.read_table(work / "g.parquet").num_rows == 1
        errors = pq.read_table(work / "e.parquet").to_pylist()
        assert [(Path(e["source"]).name, e["kind"]) for e in errors] == [("locked", "unreadable")]
        assert "Permission denied" in errors[0]["reason"]
        assert not any(p.suffix in (".nbi", ".nbc") for p in (place / "site").rglob("*"))
    finally:
        for folder, _, _ in os.walk(place):
            os.chmod(folder, 0o755)
        shutil.rmtree(place)


# -- analysis: any line answered in KataGo's form, the engine goes on (issue 46) ---------

QUERY = {"id": "ok", "moves": [["B", "C3"]], "rules": "tromp-taylor", "komi": 7.5, "boardXSize": 5,
         "boardYSize": 5, "maxVisits": 5}


def analysis_answers(*lines: str) -> list[dict]:
    """What ``run_analysis`` answers to ``lines`` (one search thread, 5 visits a turn)."""
    out = io.StringIO()
    with at_most(DEADLINE):
        run_analysis(SearchConfig(seed=1), AnalysisSettings(max_visits=5, workers=1), None,
                     io.StringIO("".join(line + "\n" for line in lines)), out, ready=lambda text: None)
    return [parse_json_line(line) for line in out.getvalue().splitlines()]


@pytest.mark.parametrize(("line", "field"), [
    ("[" * 100_000 + "]" * 100_000, None),  # RecursionError inside json
    ('{"id": "deep", "moves": ' + "[" * 100_000 + "]" * 100_000 + "}", None),
    ('{"id": "a", "action": "clear_cache", "x": ' + "[" * 990 + "]" * 990 + "}", None),  # echoed too deep
    (json.dumps({**QUERY, "id": "a", "reportDuringSearchEvery": 1e300}), "reportDuringSearchEvery"),
    (json.dumps({**QUERY, "id": "a", "moves": [], "initialPlayer": "X"}), "initialPlayer"),
    (json.dumps({**QUERY, "id": "a", "moves": [], "initialPlayer": [[[]]]}), "initialPlayer"),
    (json.dumps({**QUERY, "id": "a"}).replace('"maxVisits": 5', '"maxVisits": 1e400'), "maxVisits"),
    (json.dumps({**QUERY, "id": "a", "boardXSize": 10**50, "boardYSize": 10**50}), "boardXSize"),
    ('{"id": "a", "maxVisits": ' + "9" * 5000 + "}", None),  # past Python's 4,300 digits
])
def test_analysis_answers_any_line_with_one_error_and_goes_on(line, field):
    *errors, last = analysis_answers(line, json.dumps(QUERY))
    assert len(errors) == 1 and "error" in errors[0], errors
    if field is not None:
        check_error(errors[0], "a", field)
    assert last["id"] == "ok" and last["turnNumber"] == 1 and not last["isDuringSearch"]


@pytest.mark.parametrize(("source", "text"), [
    ("config", "maxVisits = -5"), ("config", "numAnalysisThreads = 0"), ("config", "numAnalysisThreads = 100000"),
    ("config", "maxVisits = 1e20"), ("config", "analysisPVLen = 1000"), ("config", "reportAnalysisWinratesAs = X"),
    ("override", "maxVisits=-5"), ("override", "numAnalysisThreads=100000"), ("override", "maxVisits"),
])
def test_analysis_config_values_are_checked_as_the_options_of_the_same_meaning(tmp_path, source, text):
    config = tmp_path / "analysis.cfg"
    config.write_text(text + "\n" if source == "config" else "maxVisits = 40\n")
    extra = ["-override-config", text] if source == "override" else []
    line = clean(run("analysis", "-config", str(config), *extra, input=""), 2)
    assert "-config" in line and (text.split("=")[0].strip() in line), line
    assert any(why in line for why in ("not in the range", "not a valid", "is not one of", "expected KEY=VALUE")), line


# -- find: a source without games, a fragment off the board (issue 46) --------------------

def no_games(tmp_path: Path, what: str) -> Path:
    """A source of ``find`` that holds no game."""
    source = tmp_path / "source"
    if what == "empty folder":
        source.mkdir()
    elif what == "empty file":
        source = tmp_path / "empty.sgf"
        source.write_bytes(b"")
    elif what == "not SGF":
        source = tmp_path / "notes.txt"
        source.write_text("hello\n")
    elif what == "zip without SGF":
        import zipfile

        source = tmp_path / "games.zip"
        with zipfile.ZipFile(source, "w") as z:
            z.writestr("readme.txt", "no games here")
    elif what == "symlink loop":
        source.mkdir()
        (source / "a.sgf").symlink_to("b.sgf")
        (source / "b.sgf").symlink_to("a.sgf")
    elif what == "table of no games":
        (tmp_path / "none").mkdir()
        source = tmp_path / "none.parquet"
        clean(run("scan", str(tmp_path / "none"), "-o", str(source), "-q"), 0)
    return source


@pytest.mark.parametrize("what", ["empty folder", "empty file", "not SGF", "zip without SGF", "symlink loop",
                                  "table of no games"])
def test_find_on_a_source_without_games_is_one_line(tmp_path, what):
    fragment = tmp_path / "fragment.sgf"
    fragment.write_text("(;GM[1]SZ[19]AB[dd][dp])")
    source = no_games(tmp_path, what)
    out = tmp_path / "hits.parquet"
    line = clean(run("find", str(source), "--sgf", str(fragment), "-o", str(out)), 1)
    assert line.startswith(f"Error: {source}: no game to search") and not out.exists()


@pytest.mark.parametrize("setup", ["AB[zz]", "AB[tt]", "AW[dd:zz]", "AE[a]"])
def test_a_fragment_with_a_point_off_the_board_names_it(tmp_path, setup):
    fragment = tmp_path / "fragment.sgf"
    fragment.write_text(f"(;GM[1]SZ[19]{setup};B[pp])")
    line = clean(run("find", GAMES[0], "--sgf", str(fragment)), 1)
    assert line == f"Error: {fragment}: {setup} is not a point of the 19x19 board"


# -- review and loadsgf read damaged games alike: warn, skip, go on (issue 46) --------------

DAMAGED = {  # the game, the warning, the moves reviewed
    "move off the board": (b"(;GM[1]SZ[9]KM[6.5];B[ee];W[ss];B[cc])", "move 2: W[ss] is not a point of the 9x9 board", 2),
    "move as a vertex": (b"(;GM[1]SZ[9];B[ee];W[P4];B[cc])", "move 2: W[P4] is not a point of the 9x9 board", 2),
    "setup off the board": (b"(;GM[1]SZ[9]AB[zz];B[ee];W[cc])", "AB[zz] holds a point off the 9x9 board", 2),
    "setup over two lines": (b"(;GM[1]SZ[9]AB[\nzz];B[ee];W[cc])", "AB[zz] holds a point off the 9x9 board", 2),
    "KM[nan]": (b"(;GM[1]SZ[9]KM[nan];B[ee];W[cc])", "KM[nan] is no komi of a 9x9 board", 2),
    "KM[1e400]": (b"(;GM[1]SZ[9]KM[1e400];B[ee];W[cc])", "KM[1e400] is no komi of a 9x9 board", 2),
    "KM[-100000]": (b"(;GM[1]SZ[9]KM[-100000];B[ee];W[cc])", "KM[-100000] is no komi of a 9x9 board", 2),
    "bytes not UTF-8": (b"(;GM[1]CA[UTF-8]SZ[9]PB[\xff\xfe]C[\xc3\x28];B[ee]C[\xff];W[cc])", None, 2),
    "CA of two values": (b"(;GM[1]CA[UTF-8][UTF-8]SZ[9]PB[\xe9\xa3\x8e];B[ee];W[cc])", None, 2),  # 204 Fox files
    "moves after two passes": (b"(;GM[1]SZ[9];B[ee];W[];B[tt];W[cc];B[dd])",
                               "the game ends at two passes (moves 2 and 3); the moves after them are ignored", 3),
}


@pytest.mark.parametrize("damage", DAMAGED)
def test_review_of_a_damaged_game_warns_and_goes_on(tmp_path, damage):
    data, warning, n = DAMAGED[damage]
    game, out = tmp_path / "game.sgf", tmp_path / "reviewed.sgf"
    game.write_bytes(data)
    result = run("review", str(game), "--json", "-o", str(out))
    clean(result, 0)
    report = json.loads(result.stdout)
    assert len(report["moves"]) == n
    assert [w[: len(warning)] for w in report["warnings"]] == ([warning] if warning else [])
    if warning:
        assert f"warning: {game}: {warning}" in result.stderr
    if damage == "CA of two values":
        assert report["players"]["b"] == "\u98ce"  # read as the UTF-8 it is
    from sgfmill import sgf

    sgf.Sgf_game.from_bytes(out.read_bytes())  # the annotated game reads back


def test_setup_stones_after_the_root_apply_in_review_as_ff4_says(tmp_path):
    # AE empties E5 and AB sets D6 after move 2: B E5 is legal again; D6 is then occupied
    game = tmp_path / "game.sgf"
    game.write_text("(;GM[1]SZ[9];B[ee];W[cc]AE[ee]AB[dd];B[ee];W[dd])")
    result = run("review", str(game), "--json")
    line = clean(result, 1)
    report = json.loads(result.stdout.splitlines()[0])
    assert [m["move"] for m in report["moves"]] == ["E5", "C7", "E5"]
    assert line == f"Error: {game}: move 4 (W D6) is illegal: occupied; reviewed the 3 moves before it"


def test_review_of_a_record_of_many_passes_is_bounded_by_its_moves(tmp_path):
    game = tmp_path / "passes.sgf"
    game.write_bytes(b"(;GM[1]FF[4]SZ[19]" + b";B[];W[]" * 100_000 + b")")  # 200,000 passes
    result = run("review", str(game), "--json")  # run() fails past DEADLINE
    clean(result, 0)
    assert len(json.loads(result.stdout)["moves"]) == 2


def sgf_tree(node) -> list:
    """A node and its subtree as sgfmill reads them, in pre-order: each node's properties
    with their raw values and its number of children (no recursion: a game may be deep)."""
    out, stack = [], [node]
    while stack:
        node = stack.pop()
        out.append((sorted((p, node.get_raw_list(p)) for p in node.properties()), len(node)))
        stack.extend(reversed(list(node)))
    return out


def test_a_game_read_for_replay_holds_no_node_after_two_passes_and_writes_them_back(tmp_path):
    # memory bounded by the game played: sgfmill built every node of a million passes (700 MB)
    from sgfmill import sgf
    from shapemill.datasets.sgf_game import read_game_line

    data = (b"(;GM[1]FF[4]SZ[19]KM[6.5](;B[pd]C[first];W[];B[tt]" + b";W[tt];B[]" * 50_000
            + b"(;W[dd])(;W[pp]))(;B[dp]C[a variation of move 1]))")
    line = read_game_line(data, 25)
    assert len(line.game.get_main_sequence()) == 4  # the root, B Q16 and the two passes
    assert [s.point for s in line.moves] == [(15, 15), None, None]
    assert line.warnings == ["the game ends at two passes (moves 2 and 3); the moves after them are ignored"]
    original = sgf.Sgf_game.from_bytes(data)
    assert sgf_tree(sgf.Sgf_game.from_bytes(line.serialise()).get_root()) == sgf_tree(original.get_root())
    game = tmp_path / "passes.sgf"
    game.write_bytes(data)
    out = tmp_path / "reviewed.sgf"
    result = run("review", str(game), "--json", "-o", str(out))
    clean(result, 0)
    reviewed = sgf.Sgf_game.from_bytes(out.read_bytes())  # the review's comments, and every node of the game
    assert len(reviewed.get_main_sequence()) == len(original.get_main_sequence()) == 100_005
    assert [len(n) for n in (reviewed.get_root(), reviewed.get_main_sequence()[-1])] == [2, 0]
    assert reviewed.get_main_sequence()[1].get("C").startswith("first")


# -- a full or closed standard output: one line, or silence for a closed pipe (issue 46) ----

STDOUT_COMMANDS = {
    "review": ["review", GAMES[0]], "find --json": ["find", *GAMES, "--sgf", GAMES[0], "--json"],
    "info": ["info"], "gtp": ["gtp", "--size", "9", "--playouts", "5"], "--help": ["--help"],
}


@pytest.mark.parametrize("command", STDOUT_COMMANDS)
def test_a_full_standard_output_is_one_line_and_exit_1(command):
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "shapemill.cli", *STDOUT_COMMANDS[command]], stdout=full,
                              stderr=subprocess.PIPE, input="name\nquit\n", text=True, timeout=DEADLINE)
    assert done.returncode == 1, done.stderr
    assert said(done.stderr) == ["Error: standard output: No space left on device"], done.stderr


@pytest.mark.parametrize("command", STDOUT_COMMANDS)
def test_a_closed_standard_output_ends_the_command_in_silence(command):
    proc = subprocess.Popen([sys.executable, "-m", "shapemill.cli", *STDOUT_COMMANDS[command]], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # the reader is gone before a line is written (the start takes longer)
    _, stderr = proc.communicate("name\nquit\n", timeout=DEADLINE)
    assert proc.returncode == 1 and said(stderr) == [], (proc.returncode, stderr)


@pytest.mark.parametrize("command, ending", [("gtp", "a closed standard output"), ("gtp", "quit"),
                                             ("analysis", "the end of its input")])
def test_an_engine_leaving_while_its_kernels_compile_exits_cleanly(tmp_path, command, ending):
    """An empty numba cache: the warm-up thread is compiling (a minute) when the engine
    leaves; the process must not finalize under it (it aborted, exit -6, PyGILState_Release)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "shapemill.cli", command], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if ending == "a closed standard output":
        proc.stdout.close()
        _, stderr = proc.communicate("name\nquit\n", timeout=DEADLINE)
        assert proc.returncode == 1, (proc.returncode, stderr)
    else:
        _, stderr = proc.communicate("quit\n" if command == "gtp" else "", timeout=DEADLINE)
        assert proc.returncode == 0, (proc.returncode, stderr)
    assert "Fatal Python error" not in stderr, stderr


# -- paths that are not UTF-8 (issue 46) -------------------------------------------------------

def not_utf8(folder: Path, name: bytes) -> Path:
    """``folder / name`` for a name of bytes that are not UTF-8 (held as surrogates)."""
    return folder / os.fsdecode(name)


def test_sgf_files_named_in_bytes_not_utf8_are_scanned_and_searched(tmp_path):
    games = tmp_path / "games"
    games.mkdir()
    shutil.copy(GAMES[0], not_utf8(games, b"g\xff.sgf"))
    shutil.copy(GAMES[1], games / "ok.sgf")
    fragment = not_utf8(tmp_path, b"f\xfe.sgf")
    shutil.copy(GAMES[0], fragment)
    table, errors = tmp_path / "games.parquet", tmp_path / "errors.parquet"
    clean(run("scan", str(games), "-o", str(table), "--errors", str(errors), "--size", "9", "-j", "1", "-q"), 0)
    assert sorted(pq.read_table(table)["source"].to_pylist()) == [f"{games}/g\\xff.sgf", f"{games}/ok.sgf"]
    assert pq.read_table(errors).num_rows == 0
    for source in (str(games), str(table)):
        result = run("find", source, "--sgf", str(fragment), "--json", "--games", "2")
        clean(result, 0)
        assert json.loads(result.stdout)["games_searched"] == 2


@pytest.mark.parametrize("args", [
    ["scan", "{game}", "-o", "{bad}.parquet"], ["scan", "{game}", "-o", "{out}", "--errors", "{bad}.parquet"],
    ["find", "{game}", "--sgf", "{game}", "-o", "{bad}.parquet"], ["find", "{game}", "--sgf", "{game}", "--sgf-out", "{bad}.sgf"],
    ["review", "{game}", "-o", "{bad}.sgf"], ["export", "{ratings}", "--format", "csv", "-o", "{bad}.csv"],
])
def test_an_output_named_in_bytes_not_utf8_is_refused_in_one_line_before_the_work(made, tmp_path, args):
    bad = not_utf8(tmp_path, b"out\xfd")
    fill = {"game": GAMES[0], "bad": str(bad), "out": str(tmp_path / "g.parquet"), "ratings": made["ratings"]}
    line = clean(run(*(a.format(**fill) for a in args)), 1)
    assert line.startswith(f"Error: {tmp_path}/out\\xfd.") and "the name is not UTF-8" in line
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("command", [["find", "{table}", "--sgf", "{game}"], ["info", "{table}"], ["index", "{table}"],
                                     ["mine", "{table}", "-o", "{out}"]])
def test_a_table_named_in_bytes_not_utf8_is_refused_in_one_line(made, tmp_path, command):
    table = not_utf8(tmp_path, b"g\xfa.parquet")
    shutil.copy(made["games"], table)
    fill = {"table": str(table), "game": GAMES[0], "out": str(tmp_path / "p.parquet")}
    line = clean(run(*(a.format(**fill) for a in command)), 1)
    assert line == f"Error: {tmp_path}/g\\xfa.parquet: the name is not UTF-8, which a table's path must be; rename it"


# -- signals: all of a command's outputs or none; SIGTERM as Ctrl-C (issue 46) ----------------

def test_ctrl_c_while_find_writes_its_outputs_leaves_every_previous_one(made, tmp_path, monkeypatch):
    from shapemill.find import find_command

    def interrupted(*args):
        raise KeyboardInterrupt  # the hits table and the picture are written by now

    monkeypatch.setattr(find_command, "sgf_collection", interrupted)
    outs = [tmp_path / "hits.parquet", tmp_path / "fragment.svg", tmp_path / "hits.sgf"]
    for out in outs:
        out.write_bytes(PREVIOUS)
    line = clean(run("find", *GAMES, "--sgf", GAMES[0], "-o", str(outs[0]), "--svg", str(outs[1]),
                     "--sgf-out", str(outs[2])), 1)
    assert line == "Error: find: interrupted (Ctrl-C); nothing written"
    assert [out.read_bytes() for out in outs] == [PREVIOUS] * 3 and sorted(os.listdir(tmp_path)) == sorted(
        out.name for out in outs)


def test_find_writes_all_its_outputs_together(tmp_path):
    outs = [tmp_path / "hits.parquet", tmp_path / "fragment.svg", tmp_path / "hits.sgf"]
    clean(run("find", *GAMES, "--sgf", GAMES[0], "-o", str(outs[0]), "--svg", str(outs[1]), "--sgf-out", str(outs[2])),
          0)
    assert pq.read_table(outs[0]).num_rows >= 1 and outs[1].read_text().startswith("<svg")
    assert outs[2].read_text().startswith("(;") and sorted(os.listdir(tmp_path)) == sorted(o.name for o in outs)


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_or_ctrl_c_during_index_leaves_no_temporary_file(made, tmp_path, how):
    table, marker = tmp_path / "games.parquet", tmp_path / "indexing"
    shutil.copy(made["games"], table)
    setup = f"""
        import time
        from pathlib import Path
        from shapemill.find import index
        def slow(*args):
            Path({str(marker)!r}).touch()
            time.sleep(600)
        index.build_index = slow
    """
    proc = subprocess.Popen(patched_cli(textwrap.dedent(setup)) + ["index", str(table)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        wait_for(marker, proc)
        assert len(os.listdir(tmp_path)) == 3  # the table, the marker, the index's temporary file
        proc.send_signal(how)
        _, stderr = proc.communicate(timeout=DEADLINE)
    finally:
        proc.kill()
    name = "SIGTERM" if how == signal.SIGTERM else "Ctrl-C"
    assert proc.returncode == 1 and said(stderr) == [f"Error: index: interrupted ({name}); nothing written"], stderr
    assert sorted(os.listdir(tmp_path)) == ["games.parquet", "indexing"]


# -- symbolic links as outputs: written through, loops and dangling chains refused (issue 46) --

WRITERS = {
    "review -o": (["review", "{game}", "-o", "{out}"], "sgf"), "find --sgf-out": (
        ["find", "{game}", "--sgf", "{game}", "--sgf-out", "{out}"], "sgf"),
    "export -o": (["export", "{ratings}", "--format", "csv", "-o", "{out}"], "csv"),
    "scan -o": (["scan", "{game}", "-o", "{out}", "-q", "-j", "1"], "parquet"),
    "solve --sgf": (["solve", "{problem}", "--goal", "kill A4", "--sgf", "{out}"], "sgf"),
}


def written(kind: str, path: Path) -> bool:
    """Whether ``path`` holds what a command writes of ``kind``, not the previous bytes."""
    data = path.read_bytes()
    return {"sgf": data.startswith(b"(;"), "csv": data.startswith(b'"feature"'), "parquet": data[:4] == b"PAR1"}[kind]


def bad_chain(link: Path, chain: str) -> str:
    """Make ``link`` a loop of two links or a chain that ends at no file (through ``other``
    beside it); the one line that refuses to write through it."""
    other = link.parent / "other"
    other.symlink_to(link if chain == "loop" else link.parent / "nowhere")
    link.symlink_to(other)
    why = "a loop of symbolic links" if chain == "loop" else "a symbolic link to no file (dangling)"
    return f"Error: {link}: {why}; not writing through it"


@pytest.mark.parametrize("command", WRITERS)
def test_an_output_that_is_a_symlink_is_written_through_to_its_target(made, tmp_path, command):
    args, kind = WRITERS[command]
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / f"target.{kind}"
    target.write_bytes(PREVIOUS)
    (tmp_path / "middle").symlink_to(target)
    link = tmp_path / f"link.{kind}"
    link.symlink_to(tmp_path / "middle")  # a chain of two links
    fill = {"game": GAMES[0], "ratings": made["ratings"], "problem": made["problem"], "out": str(link)}
    clean(run(*(a.format(**fill) for a in args)), 0)
    assert link.is_symlink() and (tmp_path / "middle").is_symlink() and written(kind, target)
    assert sorted(os.listdir(tmp_path / "real")) == [target.name]  # no temporary file left


@pytest.mark.parametrize("command", WRITERS)
@pytest.mark.parametrize("chain", ["loop", "dangling"])
def test_an_output_that_is_a_symlink_loop_or_dangling_chain_is_refused_in_one_line(made, tmp_path, command, chain):
    args, kind = WRITERS[command]
    link = tmp_path / f"link.{kind}"
    refused = bad_chain(link, chain)
    fill = {"game": GAMES[0], "ratings": made["ratings"], "problem": made["problem"], "out": str(link)}
    assert clean(run(*(a.format(**fill) for a in args)), 1) == refused
    assert link.is_symlink() and sorted(os.listdir(tmp_path)) == [link.name, "other"]


RESIGNING_GTP = """
import sys
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    print("= " + ("resign" if word == "genmove" else ""), end="\\n\\n", flush=True)
    if word == "quit":
        break
"""

FOLDER_WRITERS = {  # commands that write a folder, and what the folder holds after them
    "scan --partition-size": (["scan", "{game}", "-o", "{out}", "--partition-size", "1", "--size", "9", "-q",
                               "-j", "1"],
                              [tables.DATASET_MARKER, "part-00000.parquet"]),
    "match --sgf-dir": (["match", "--black", "{program}", "--white", "{program}", "--games", "1", "--size", "5",
                         "--sgf-dir", "{out}"], ["game-0001.sgf", "match.json"]),
    "rate --work-dir": (["rate", "{games}", "--patterns", "{patterns}", "-o", "{ratings}", "--split", "all",
                         "--work-dir", "{out}", "-j", "1"], []),
}


def folder_args(command: str, made: dict[str, str], tmp_path: Path, out: Path) -> list[str]:
    program = tmp_path / "resigning_gtp.py"
    program.write_text(RESIGNING_GTP)
    fill = {"game": GAMES[0], "program": f"{sys.executable} {program}", "games": made["games"],
            "patterns": made["patterns"], "ratings": str(tmp_path / "ratings.parquet"), "out": str(out)}
    return [a.format(**fill) for a in FOLDER_WRITERS[command][0]]


@pytest.mark.parametrize("command", ["scan --partition-size", "match --sgf-dir"])
@pytest.mark.parametrize("before", ["empty", "written before"])
def test_an_output_folder_that_is_a_symlink_is_written_through_to_its_target(made, tmp_path, command, before):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "target"
    link = tmp_path / "link"
    args = folder_args(command, made, tmp_path, link)
    if before == "written before":  # the same command's folder (a dataset is replaced, a match resumed)
        clean(run(*folder_args(command, made, tmp_path, target)), 0)
    else:
        target.mkdir()
    (tmp_path / "middle").symlink_to(target)
    link.symlink_to(tmp_path / "middle")  # a chain of two links
    clean(run(*args), 0)
    assert link.is_symlink() and (tmp_path / "middle").is_symlink() and target.is_dir() and not target.is_symlink()
    assert sorted(os.listdir(target)) == FOLDER_WRITERS[command][1]
    assert sorted(os.listdir(tmp_path / "real")) == ["target"]  # no temporary folder left
    if command.startswith("scan"):
        assert read_table(target / "part-00000.parquet", "games")[0].num_rows == 1


@pytest.mark.parametrize("command", FOLDER_WRITERS)
@pytest.mark.parametrize("chain", ["loop", "dangling"])
def test_an_output_folder_that_is_a_symlink_loop_or_dangling_chain_is_refused_in_one_line(made, tmp_path, command,
                                                                                         chain):
    link = tmp_path / "link"
    args = folder_args(command, made, tmp_path, link)
    refused = bad_chain(link, chain)
    assert clean(run(*args), 1) == refused
    assert link.is_symlink() and sorted(os.listdir(tmp_path)) == [link.name, "other", "resigning_gtp.py"]


def test_a_work_folder_that_is_a_symlink_is_worked_in_through_it_and_emptied_not_removed(tmp_path):
    from shapemill.miner.team_shards import WorkFolder

    target = tmp_path / "scratch"
    target.mkdir()
    link = tmp_path / "work"
    link.symlink_to(target)
    work = WorkFolder(link, {"fit": 1})
    work.open()
    assert json.loads((target / "identity.json").read_text()) == {"fit": 1}
    work.remove()
    assert link.is_symlink() and target.is_dir() and not os.listdir(target)


# -- the API and match's clock (issue 46) ------------------------------------------------------

@pytest.mark.parametrize("special", ["fifo", "/dev/zero"])
def test_knowledge_load_refuses_a_fifo_or_a_device_at_once(fifo, special):
    from shapemill.patterns.knowledge import Knowledge
    from shapemill.tables import TableError

    path = str(fifo) if special == "fifo" else special
    with at_most(10), pytest.raises(TableError, match="not a regular file; not reading it"):
        Knowledge.load(path)


@pytest.mark.parametrize("timeout", ["--move-timeout 2", "default"])
def test_match_under_a_long_clock_never_waits_the_clock_for_a_move(tmp_path, monkeypatch, timeout):
    # a program that never answers genmove forfeits after --move-timeout; without it, after
    # what the clock holds, at most CLOCK_MOVE_SECONDS (600 s; 2 here, so that the test does
    # not wait ten minutes): not the million seconds of the clock
    from shapemill.engine.frontends import match

    if timeout == "default":
        monkeypatch.setattr(match, "CLOCK_MOVE_SECONDS", 2, raising=False)
        assert "under --clock a move may take what the clock holds, at most 600" in " ".join(
            run("match", "--help").output.split())
    program = tmp_path / "fake_gtp.py"
    program.write_text(FAKE_GTP.format(marker=str(tmp_path / "thinking")))  # never answers genmove
    command = f"{sys.executable} {program}"
    folder = tmp_path / "games"
    start = time.monotonic()
    result = run("match", "--black", command, "--white", command, "--games", "1", "--size", "5", "--sgf-dir",
                 str(folder), "--clock", "1000000", *(timeout.split() if timeout != "default" else []))
    clean(result, 0)
    assert time.monotonic() - start < 30 and "gave no answer to 'genmove b' within 2 s" in result.output
    from sgfmill import sgf

    root = sgf.Sgf_game.from_bytes((folder / "game-0001.sgf").read_bytes()).get_root()
    assert root.get("RE") == "W+F" and root.get("C").startswith("Black forfeits:")


SLOW_GTP = """
import sys, time
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "genmove":
        time.sleep(2)
    print("= " + ("pass" if word == "genmove" else ""), end="\\n\\n", flush=True)
    if word == "quit":
        break
"""


def test_match_under_a_clock_lets_a_slow_move_take_its_clock_not_the_command_bound(tmp_path, monkeypatch):
    # the command bound (120 s; 1 here) is not a move's under a clock: 2 s a move of a 30 s clock is in time
    from shapemill.engine.frontends import match

    monkeypatch.setattr(match, "COMMAND_SECONDS", 1, raising=False)
    program = tmp_path / "slow_gtp.py"
    program.write_text(SLOW_GTP)
    command = f"{sys.executable} {program}"
    folder = tmp_path / "games"
    clean(run("match", "--black", command, "--white", command, "--games", "1", "--size", "5", "--sgf-dir",
              str(folder), "--clock", "30"), 0)
    from sgfmill import sgf

    root = sgf.Sgf_game.from_bytes((folder / "game-0001.sgf").read_bytes()).get_root()
    assert not root.get("RE").endswith(("+F", "+T")), root.get("RE")


# -- GTP's bounds: komi, clocks, move numbers, huge numbers; `?` in one line (issue 46) ---------

LONG = "9" * 5000


@pytest.mark.parametrize(("command", "reason"), [
    ("komi 1e308", "komi 1e308 is not within the 9x9 board's 81 points"), ("komi -82", "is not within"),
    ("komi nan", "is not a finite number"), ("komi inf", "is not a finite number"),
    ("time_settings 1e300 0 0", "not a number of seconds from 0 to 1000000"),
    ("time_settings 10000000000000000000000 0 0", "not a number of seconds"),
    ("kgs-time_settings byoyomi 0 1e300 1", "not a number of seconds"), ("time_left b 1e300 0", "not a number of"),
    ("time_settings 10 10 1e300", "is not a whole number"), ("kgs-time_settings canadian 10 10 2.5", "whole number"),
    ("loadsgf {game} -5", "move number '-5' is not a positive integer"), ("loadsgf {game} nan", "positive integer"),
    ("loadsgf {game} 0", "is not a positive integer"), ("loadsgf {game} 1.5", "is not a positive integer"),
    (f"boardsize {LONG}", "a number longer than 40 characters"), (f"komi {LONG}", "longer than 40 characters"),
    (f"time_left b {LONG} 0", "longer than 40"), (f"loadsgf {{game}} {LONG}", "longer than 40"),
    (f"fixed_handicap {LONG}", "longer than 40"), (f"lz-analyze {LONG}", "longer than 40"),
])
def test_gtp_refuses_numbers_out_of_bounds_in_one_line_and_goes_on(command, reason):
    engine = GtpEngine(SearchConfig(playouts=30, seed=1), size=9)
    with at_most(DEADLINE):
        response, done = engine.handle(command.format(game=GAMES[0]))
        assert response.startswith("? ") and reason in response and response.count("\n") == 2 and not done, response
        assert engine.handle("genmove b")[0].startswith("= ")  # at once: no clock of 1e300 seconds
        assert engine.handle("final_score")[0][2:4] in ("B+", "W+", "0\n")


def test_gtp_takes_the_largest_values_within_the_bounds(tmp_path):
    engine = GtpEngine(SearchConfig(playouts=5, seed=1), size=9)
    for command in ("komi 81", "komi -81", "time_settings 1000000 1000000 2147483647", "time_left b 1000000 0",
                    f"loadsgf {GAMES[0]} 1"):
        assert engine.handle(command)[0].startswith("="), command


def test_gtp_printsgf_names_its_file_not_the_temporary_one(tmp_path):
    engine = GtpEngine(SearchConfig(playouts=5, seed=1), size=9)
    (tmp_path / "file").write_text("")
    blocked = tmp_path / "file" / "game.sgf"  # its folder is a file
    response, done = engine.handle(f"printsgf {blocked}")
    assert response.startswith(f"? cannot write {blocked}: ") and ".tmp" not in response and not done
    loop = tmp_path / "loop.sgf"
    loop.symlink_to(loop)
    assert engine.handle(f"printsgf {loop}")[0] == f"? {loop}: a loop of symbolic links; not writing through it\n\n"


@pytest.mark.parametrize("damage", DAMAGED)
def test_gtp_loadsgf_reads_damaged_games_as_review_does(tmp_path, capfd, damage):
    data, warning, n = DAMAGED[damage]
    game = tmp_path / "game.sgf"
    game.write_bytes(data)
    engine = GtpEngine(SearchConfig(playouts=5, seed=1), size=9)
    assert engine.handle(f"loadsgf {game}")[0].startswith("= ")
    assert len(engine.state.movers) == n
    if warning:
        assert f"loadsgf: {game}: {warning}" in capfd.readouterr().err


def test_gtp_loadsgf_applies_setup_stones_after_the_root(tmp_path):
    game = tmp_path / "game.sgf"
    game.write_text("(;GM[1]SZ[9];B[ee];W[cc]AE[ee]AB[dd];B[ee])")
    engine = GtpEngine(SearchConfig(playouts=5, seed=1), size=9)
    assert engine.handle(f"loadsgf {game}")[0] == "= white\n\n"
    assert engine.handle("list_stones b")[0] == "= E5 D6\n\n" and engine.handle("list_stones w")[0] == "= C7\n\n"
    assert engine.handle(f"loadsgf {game} 3")[0] == "= black\n\n"  # before move 3: the setup is applied
    assert engine.handle("list_stones b")[0] == "= D6\n\n"


def test_a_name_that_cannot_be_printed_or_an_escaped_os_error_is_one_line(monkeypatch):
    from shapemill.datasets import info

    monkeypatch.setattr(info, "describe", lambda found: "source " + os.fsdecode(b"g\xff.sgf"))
    line = clean(run("info"), 1)  # a UTF-8 standard output refuses the surrogate
    assert line == "Error: info: a name that is not UTF-8 cannot be written here (source g\\xff.sgf)"

    def denied(path):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), "locked.parquet")

    monkeypatch.setattr(info, "table_info", denied)
    assert clean(run("info"), 1) == "Error: locked.parquet: Permission denied"

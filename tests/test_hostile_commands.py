"""Hostile use of the table commands: each failure is one line naming the file and the
reason, exit 1 (2 for usage), no traceback, and the previous output intact."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
import types
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from shapemill import tables
from shapemill.cli import main
from shapemill.datasets import scanner
from shapemill.go.rings import MAX_RING
from shapemill.miner import export, mine_command, rate_command, shards

GAMES = sorted(str(p) for p in (Path(__file__).parent / "fixtures" / "hostile").glob("*.sgf"))
PREVIOUS = b"the previous output\n"


@pytest.fixture(scope="module")
def made(small_tables) -> dict[str, str]:
    """The three fixture games scanned, mined and rated (2 sweeps): paths by kind."""
    return small_tables


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def one_line_error(result, code: int = 1) -> str:
    """The error line of a failed command, after checking the failure is clean."""
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output and not isinstance(result.exception, (AssertionError, OSError))
    lines = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(lines) == 1, result.output
    return lines[0]


def previous(path: Path) -> Path:
    path.write_bytes(PREVIOUS)
    return path


def disk_full(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def half_then_disk_full(path) -> None:
    """A writer that gets half way into ``path`` and finds the disk full."""
    Path(path).write_bytes(b"half a fi")
    disk_full()


# -- outputs checked before the work ------------------------------------------------------

def blocked(tmp_path: Path) -> str:
    """An output path that cannot be written: its folder is a file."""
    (tmp_path / "file").write_text("")
    return str(tmp_path / "file" / "out.parquet")


@pytest.mark.parametrize("command", ["mine", "rate", "evaluate"])
def test_an_unwritable_output_is_refused_before_the_work(made, tmp_path, monkeypatch, command, plot_extra):
    worked = []
    monkeypatch.setattr(mine_command, "_mine_here", lambda *a: worked.append("mined"))
    monkeypatch.setattr(rate_command, "command_corpus", lambda *a: worked.append("read the games"))
    out = blocked(tmp_path)
    args = {
        "mine": ["mine", made["games"], "-o", out, "-q"],
        "rate": ["rate", made["games"], "--patterns", made["patterns"], "-o", out],
        "evaluate": ["evaluate", made["games"], "--ratings", made["ratings"], "--plot", out],
    }[command]
    line = one_line_error(run(*args))
    assert f"cannot write {out}" in line and not worked


# -- a full disk or a dead worker: one line, the previous output intact -------------------

def test_mine_and_rate_on_a_full_disk_say_so_and_keep_the_previous_table(made, tmp_path, monkeypatch):
    monkeypatch.setattr(tables.pq, "write_table", lambda table, path, **kw: half_then_disk_full(path))
    out = previous(tmp_path / "out.parquet")
    line = one_line_error(run("mine", made["games"], "-o", str(out), "--split", "all", "-j", "1", "-q"))
    assert f"cannot write {out}: No space left on device" in line
    line = one_line_error(run("rate", made["games"], "--patterns", made["patterns"], "-o", str(out),
                              "--split", "all", "--max-iter", "1", "-j", "1"))
    assert f"cannot write {out}: No space left on device" in line
    # the shards and the last sweep's gammas are kept: the same command resumes from them
    assert out.read_bytes() == PREVIOUS and sorted(os.listdir(tmp_path)) == ["out.parquet", "out.parquet.work"]


@contextmanager
def at_most(seconds: int):
    """Fail, rather than hang, if the block takes longer than ``seconds``."""
    def late(*_):
        raise TimeoutError(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, late)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def said(stderr: str) -> list[str]:
    """A command's standard error less the notices of kernels compiled on a cold numba cache
    (an editable install's first run prints them; they are no error)."""
    return [line for line in stderr.splitlines() if not line.startswith("shapemill: compiling ")]


def test_a_killed_mining_worker_stops_mine_in_one_line_and_keeps_the_previous_table(made, tmp_path, monkeypatch):
    # The forked workers inherit this stand-in for a shard's work: the worker is
    # killed as the kernel's out-of-memory killer would (SIGKILL, no clean-up).
    monkeypatch.setattr(shards, "_run_shard", lambda *a: os.kill(os.getpid(), signal.SIGKILL))
    out = previous(tmp_path / "out.parquet")
    with at_most(120):
        result = run("mine", made["games"], "-o", str(out), "--split", "all", "-j", "2", "-q")
    line = one_line_error(result)
    assert f"{out}: not written, a worker process died: killed by signal 9 (out of memory?)" in line
    assert out.read_bytes() == PREVIOUS


def test_a_killed_scanning_worker_stops_scan_in_one_line_and_keeps_the_previous_table(tmp_path, monkeypatch):
    # As for mine: the forked workers inherit this stand-in for parsing a file's games.
    monkeypatch.setattr(scanner, "parse_games", lambda *a: os.kill(os.getpid(), signal.SIGKILL))
    out = previous(tmp_path / "games.parquet")
    with at_most(120):
        result = run("scan", *GAMES, "-o", str(out), "--size", "9", "-j", "2", "-q")
    line = one_line_error(result)
    assert f"{out}: not written, a worker process died: killed by signal 9 (out of memory?)" in line
    assert out.read_bytes() == PREVIOUS and os.listdir(tmp_path) == ["games.parquet"]


def test_a_pool_s_workers_are_forked_with_ctrl_c_and_sigterm_held_until_they_set_their_own(tmp_path, monkeypatch):
    """A worker forked with the parent's SIGTERM handler (raising ``Terminated``) that gets
    SIGTERM before its initializer runs (a pool's ``terminate`` just after a fork) would
    unwind through the parent's code as a second copy of the command (seen under
    pytest-xdist: it printed "mine: interrupted" and waited as a test worker). The kernel's
    signal mask says they are held from the fork until ``init_worker`` lets them through,
    and the parent's mask is as it was."""
    import multiprocessing

    from shapemill import workers

    real, seen = workers.init_worker, tmp_path / "mask"

    def recording() -> None:
        seen.write_text(" ".join(str(int(s)) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])))
        real()

    monkeypatch.setattr(workers, "init_worker", recording)
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    pool = workers.worker_pool(multiprocessing.get_context("fork"), 1)
    try:
        after_init = pool.apply(signal.pthread_sigmask, (signal.SIG_BLOCK, []))
    finally:
        pool.terminate()
        pool.join()
    assert {int(signal.SIGINT), int(signal.SIGTERM)} <= {int(s) for s in seen.read_text().split()}
    assert not {signal.SIGINT, signal.SIGTERM} & set(after_init)
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_stops_scan_with_exit_1_in_one_line_and_keeps_the_previous_table(tmp_path, workers):
    # Parsing stood in by a wait (inherited by the forked workers with -j 2): Ctrl-C comes
    # once scan is at work (a named pipe did this before; scan now refuses one at once).
    marker = tmp_path / "parsing"
    setup = (f"import time; from pathlib import Path; from shapemill.datasets import scanner\n"
             f"def stuck(*a):\n    Path({str(marker)!r}).touch(); time.sleep(600)\n"
             f"scanner.parse_games = stuck\nfrom shapemill.cli import main\nmain()")
    out = previous(tmp_path / "games.parquet")
    scan = subprocess.Popen(
        [sys.executable, "-c", setup, "scan", *GAMES, "-o", str(out), "-j", workers],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # Ctrl-C as a terminal sends it, even where this test runs with SIGINT ignored
        # (a shell's background job), which the child would inherit
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        with at_most(120):
            while not marker.exists():
                assert scan.poll() is None, scan.communicate()
                time.sleep(0.05)
            scan.send_signal(signal.SIGINT)
            stdout, stderr = scan.communicate()
    finally:
        scan.kill()
    assert scan.returncode == 1, stderr
    assert stdout == "" and said(stderr) == ["Error: scan: interrupted (Ctrl-C); nothing written"]
    assert out.read_bytes() == PREVIOUS and sorted(os.listdir(tmp_path)) == ["games.parquet", "parsing"]


# -- every file written atomically ---------------------------------------------------------

def csv_half_written(monkeypatch) -> None:
    monkeypatch.setattr(export.pacsv, "write_csv", lambda table, path: half_then_disk_full(path))


def json_half_written(monkeypatch) -> None:
    rows = []

    def dumps_until_full(row, **kw):
        rows.append(row)
        if len(rows) > 2:
            disk_full()
        return "{}"

    monkeypatch.setattr(json, "dumps", dumps_until_full)


def mm_half_written(monkeypatch) -> None:
    def write_half(teams, group, stream, progress=None):
        stream.write("! 12\n")
        stream.flush()
        disk_full()

    monkeypatch.setattr(export, "write_mm", write_half)


@pytest.mark.parametrize(
    ("fmt", "half_written"), [("csv", csv_half_written), ("json", json_half_written), ("mm", mm_half_written)]
)
def test_export_on_a_full_disk_keeps_the_previous_file(made, tmp_path, monkeypatch, fmt, half_written):
    out = previous(tmp_path / f"ratings.{fmt}")
    half_written(monkeypatch)
    line = one_line_error(run("export", made["ratings"], "--format", fmt, "-o", str(out)))
    assert f"cannot write {out}: No space left on device" in line and out.read_bytes() == PREVIOUS
    assert os.listdir(tmp_path) == [out.name]


def test_show_svg_on_a_full_disk_keeps_the_previous_picture(made, tmp_path, monkeypatch):
    first = run("show", made["patterns"], "--top", "1", "--svg", str(tmp_path))
    assert first.exit_code == 0, first.output
    (picture,) = tmp_path.iterdir()
    picture.write_bytes(PREVIOUS)
    monkeypatch.setattr(Path, "write_text", lambda self, text, **kw: half_then_disk_full(self))
    line = one_line_error(run("show", made["patterns"], "--top", "1", "--svg", str(tmp_path)))
    assert f"cannot write {picture}: No space left on device" in line
    assert picture.read_bytes() == PREVIOUS and list(tmp_path.iterdir()) == [picture]


def test_evaluate_plot_on_a_full_disk_keeps_the_previous_picture(made, tmp_path, monkeypatch):
    # matplotlib stood in by a figure whose savefig gets half way and finds the disk full.
    figure = types.SimpleNamespace(tight_layout=lambda: None,
                                   savefig=lambda path, **kw: half_then_disk_full(path))
    axes = types.SimpleNamespace(**{name: (lambda *a, **kw: None) for name in
                                    ("plot", "set_xlabel", "set_ylabel", "set_ylim", "grid")})
    pyplot = types.ModuleType("matplotlib.pyplot")
    pyplot.subplots = lambda **kw: (figure, axes)
    pyplot.close = lambda fig: None
    matplotlib = types.ModuleType("matplotlib")
    matplotlib.use = lambda backend: None
    matplotlib.pyplot = pyplot
    monkeypatch.setitem(sys.modules, "matplotlib", matplotlib)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", pyplot)
    out = previous(tmp_path / "curve.png")
    line = one_line_error(run("evaluate", made["games"], "--ratings", made["ratings"], "--split", "all",
                              "--plot", str(out), "-j", "1"))
    assert f"cannot write {out}: No space left on device" in line
    assert out.read_bytes() == PREVIOUS and os.listdir(tmp_path) == ["curve.png"]


# -- the wrong table, a corrupt table --------------------------------------------------------

@pytest.mark.parametrize("kind", ["patterns", "ratings"])
def test_a_table_of_another_kind_given_as_games_is_named_for_what_it_is(made, kind, tmp_path):
    line = one_line_error(run("mine", made[kind], "-o", str(tmp_path / "p.parquet"), "-q"))
    assert f"{made[kind]} is a {kind} table, not a games table" in line


def corrupt_metadata_table(path: Path, raw: bytes) -> Path:
    pq.write_table(pa.table({"x": [1]}).replace_schema_metadata({b"shapemill": raw}), path)
    return path


@pytest.mark.parametrize("raw", [b'{"kind": "rat', b'["ratings"]'])
def test_corrupt_table_metadata_is_one_line_naming_the_file(tmp_path, raw):
    table = corrupt_metadata_table(tmp_path / "bad.parquet", raw)
    for args in (["info", str(table)], ["show", str(table)], ["mine", str(table), "-o", str(tmp_path / "p.parquet")]):
        line = one_line_error(run(*args))
        assert f"{table}: corrupt shapemill metadata" in line


def test_evaluate_json_is_valid_json_with_null_for_an_empty_band(made):
    result = run("evaluate", made["games"], "--ratings", made["ratings"], "--split", "all", "--json", "-j", "1")
    assert result.exit_code == 0, result.output

    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    report = json.loads(result.stdout, parse_constant=refuse)
    assert report["positions"] == 30 and report["bands"]["1-30"]["positions"] == 30
    assert report["bands"]["31-80"] == {"positions": 0, "top1": None, "top5": None, "top10": None,
                                        "mean_log_likelihood": None}
    text = run("evaluate", made["games"], "--ratings", made["ratings"], "--split", "all", "-j", "1")
    assert text.exit_code == 0 and "31-80" in text.output and "nan" not in text.output


# -- options that would be ignored or clamped are refused -----------------------------------

@pytest.mark.parametrize("option", [["--size", "3"], ["--sort", "seen"]])
def test_show_refuses_pattern_options_for_a_ratings_table(made, option, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = one_line_error(run("show", made["ratings"], *option), code=2)
    assert f"{option[0]}: for a patterns table; {made['ratings']} is a ratings table" in line
    assert not (tmp_path / "pictures").exists()


@pytest.mark.parametrize("size", ["1", str(MAX_RING + 1), "360"])
def test_mine_refuses_a_max_size_out_of_range_stating_the_range(made, size, tmp_path, monkeypatch):
    mined = []
    monkeypatch.setattr(mine_command, "_mine_here", lambda *a: mined.append(1))
    line = one_line_error(run("mine", made["games"], "-o", str(tmp_path / "p.parquet"), "--max-size", size), code=2)
    assert f"{size} is not a ring 2..{MAX_RING}, nor 361 (the whole board)" in line and not mined


@pytest.mark.parametrize("command", ["gtp", "play"])
def test_ratings_with_no_priors_is_a_usage_error(made, command):
    result = CliRunner().invoke(main, [command, "--ratings", made["ratings"], "--no-priors"], input="quit\n")
    line = one_line_error(result, code=2)
    assert "--ratings and --no-priors contradict each other" in line


@pytest.mark.parametrize("command", ["evaluate", "review"])
def test_plot_without_matplotlib_is_refused_before_any_work_with_exit_2(tmp_path, monkeypatch, command):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # what an install without the plot extra finds
    monkeypatch.setattr(rate_command, "command_corpus", lambda *a: pytest.fail("the games were read"))
    result = CliRunner().invoke(main, [command, GAMES[0], "--plot", str(tmp_path / "p.png")])
    assert result.exit_code == 2 and "needs matplotlib" in result.output
    assert list(tmp_path.iterdir()) == []

"""A numba compile that lasts says so in one line; a quick one (or a cache load) says nothing."""

from __future__ import annotations

import io

import numpy as np
from numba.core import event

from shapemill.compiling import _Notice, kernel_name


class _Dispatcher:  # what a compile event carries: the dispatcher, whose py_func names the kernel
    def __init__(self, func) -> None:
        self.py_func = func


def _kernel_a() -> None: ...


def _kernel_b() -> None: ...


def _event(status: event.EventStatus, func) -> event.Event:
    return event.Event("numba:compile", status, {"dispatcher": _Dispatcher(func)})


def test_a_compile_past_the_threshold_prints_one_line_naming_the_outer_kernel():
    out = io.StringIO()
    notice = _Notice(out, 0.0)
    notice.on_start(_event(event.EventStatus.START, _kernel_a))
    notice.local.timer.join()  # the compile "lasts" past the threshold
    notice.on_start(_event(event.EventStatus.START, _kernel_b))  # a callee compiled inside: no line of its own
    notice.on_end(_event(event.EventStatus.END, _kernel_b))
    notice.on_end(_event(event.EventStatus.END, _kernel_a))
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    assert "compiling test_compiling._kernel_a " in lines[0] and "once" in lines[0]


def test_a_compile_that_ends_before_the_threshold_prints_nothing():
    out = io.StringIO()
    notice = _Notice(out, 3600.0)
    notice.on_start(_event(event.EventStatus.START, _kernel_a))
    timer = notice.local.timer
    notice.on_end(_event(event.EventStatus.END, _kernel_a))
    timer.join()  # cancelled: it ends without printing
    assert out.getvalue() == ""


def test_a_real_cold_compile_reaches_the_notice_with_the_kernel_s_name():
    from numba import njit

    started = []

    class Recording(_Notice):
        def on_start(self, ev):
            started.append(kernel_name(ev.data["dispatcher"]))
            super().on_start(ev)

    notice = Recording(io.StringIO(), 3600.0)
    event.register("numba:compile", notice)
    try:
        @njit
        def _sum(a):
            return a.sum()
        assert _sum(np.arange(4)) == 6
    finally:
        event.unregister("numba:compile", notice)
    assert started[0] == "test_compiling.test_a_real_cold_compile_reaches_the_notice_with_the_kernel_s_name.<locals>._sum"
    assert notice.local.depth == 0 and notice.local.timer is None


# -- what `shapemill compile` (and so the package's build) compiles ahead ------------------

_FIRST_ANSWERS = r"""
import json, sys
from numba.core import event

compiled = []

class Count(event.Listener):
    def on_start(self, ev):
        compiled.append(str(ev.data["dispatcher"].py_func.__qualname__))
    def on_end(self, ev):
        pass

event.register("numba:compile", Count())
from shapemill.compiling import lock_cache
lock_cache()  # as a shapemill command does: the suite's other workers may compile at once
from shapemill.engine.frontends.gtp import GtpEngine
from shapemill.engine.search import SearchConfig
from shapemill.go.board import Board
from shapemill.patterns.defaults import RATINGS, default_table
from shapemill.patterns.knowledge import Knowledge

knowledge = Knowledge.load(default_table(RATINGS))
engine = GtpEngine(SearchConfig(playouts=50), 19, knowledge)
end = "play b B1 play w A1 play b A2 play w H8 play b C2 play w G8 play b D2 play w G9 play b D1 final_score"
for line in ["boardsize 19", "clear_board", "play b Q16", "genmove w", "boardsize 9", "genmove b", "clear_board",
             *[" ".join(end.split()[i:i + 3]) for i in range(0, 27, 3)], "final_score", "final_status_list dead"]:
    engine.handle(line)
knowledge.probabilities(Board(13), "b")
from shapemill.engine.solve.run import solve_file
open("rabbity.sgf", "w").write("(;FF[4]AB[ac][ad][bc][cc][dc][ec][ed][fd][fe][ff][fg]"
                               "AW[ae][af][ag][bd][be][bg][cd][dd][de][ee][ef][eg]GM[1]PL[B]SZ[7])")
assert solve_file("rabbity.sgf", ["kill", "A1"], None, None, "dfpn", 100000, None)["move"] == "C2"
ordered = solve_file("rabbity.sgf", ["kill", "A1"], None, None, "dfpn", 100000, None,
                     ratings=str(default_table(RATINGS)))
assert ordered["move"] == "C2"
print(json.dumps(compiled))
"""


def _installed_from_a_wheel() -> bool:
    """shapemill imported from site-packages (``pip install .``: built, so its kernels compiled
    ahead), not from a checkout (an editable install compiles on first use)."""
    import sysconfig
    from pathlib import Path

    import shapemill

    here = Path(shapemill.__file__).resolve().parent
    return any(here.is_relative_to(Path(sysconfig.get_path(kind)).resolve()) for kind in ("purelib", "platlib"))


def test_after_shapemill_compile_a_first_genmove_and_a_review_compile_nothing(tmp_path):
    """What `compile --part engine` covers is what gtp's first genmove (19x19 and 9x9), a game's scoring with
    a dead stone, the table's judgement of a move and a solve with a goal (README's rabbity
    six, whose answer C2 is the book's; with --ratings too) need: a later process compiles nothing (numba says so);
    on a package built from a wheel, `compile` itself compiles nothing either (the build did)."""
    import json
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    compile_engine = "from shapemill.cli import main; main(['compile', '--part', 'engine'])"
    ahead = subprocess.run([sys.executable, "-c", compile_engine],
                           capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)
    assert ahead.returncode == 0, ahead.stderr
    if _installed_from_a_wheel() and os.environ.get("SHAPEMILL_COMPILE") != "0":
        assert "shapemill: compiling" not in ahead.stderr, ahead.stderr
    later = subprocess.run([sys.executable, "-c", _FIRST_ANSWERS], capture_output=True, text=True, env=env,
                           cwd=tmp_path, timeout=900)
    assert later.returncode == 0, later.stderr
    assert json.loads(later.stdout.splitlines()[-1]) == []


def test_compile_s_tables_part_runs_every_table_stage_on_its_sample_games(tmp_path):
    """The build's second process (`compile --part tables`) runs scan, mine, rate, evaluate,
    vectors, evaluate with them, export, index and find on its generated games: a stage whose options drift would leave
    the build's compile failing, and those kernels compiling on first use. Its games are
    legal as sgfmill's own board plays them (captures included)."""
    import subprocess
    import sys

    from sgfmill import boards, sgf

    from shapemill.miner.precompile import write_sample_games

    captured = 0
    for path in write_sample_games(tmp_path):
        game = sgf.Sgf_game.from_bytes(path.read_bytes())
        board = boards.Board(game.get_size())
        for node in game.get_main_sequence()[1:]:
            colour, point = node.get_move()
            before = len(board.list_occupied_points())
            board.play(point[0], point[1], colour)  # raises on an occupied point
            assert board.get(*point) == colour, f"{path.name}: suicide at {point}"
            captured += before + 1 - len(board.list_occupied_points())
    assert captured > 0
    compile_tables = "from shapemill.cli import main; main(['compile', '--part', 'tables'])"
    done = subprocess.run([sys.executable, "-c", compile_tables], capture_output=True, text=True, cwd=tmp_path,
                          timeout=900)
    assert done.returncode == 0, done.stderr
    steps = [line for line in done.stderr.splitlines() if line.startswith("compiling ")]
    assert [s.split()[1] for s in steps] == ["scan", "mine", "rate", "evaluate", "vectors", "evaluate", "export",
                                             "index", "find"]


_TOY_KERNEL = """
from numba import njit


@njit(cache=True)
def plus_one(x):
    return x + 1
"""


def test_a_process_reads_numba_s_cache_only_when_no_other_holds_the_cache_folder_s_lock(tmp_path):
    """``lock_cache``: while another process holds the cache folder's exclusive ``flock`` (as
    a save does), a kernel's cache is neither read nor written; once it is released the kernel
    compiles, saves and loads again. (A process that ignored the lock would finish at once.)"""
    import fcntl
    import os
    import subprocess
    import sys

    (tmp_path / "toy.py").write_text(_TOY_KERNEL)
    folder = tmp_path / "__pycache__"
    folder.mkdir()
    run = ("from shapemill.compiling import lock_cache; lock_cache(); "
           "import toy; print(toy.plus_one(41), sum(toy.plus_one.stats.cache_hits.values()))")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    lock = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        waiting = subprocess.Popen([sys.executable, "-c", run], cwd=tmp_path, env=env, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            waiting.wait(timeout=5)  # could only end early if the lock were ignored
        except subprocess.TimeoutExpired:
            pass
        assert waiting.returncode is None, waiting.communicate()
        assert not list(folder.iterdir())
    finally:
        os.close(lock)
    out, err = waiting.communicate(timeout=300)
    assert waiting.returncode == 0, err
    assert out.split() == ["42", "0"] and len(list(folder.glob("toy.plus_one-*.nbi"))) == 1
    again = subprocess.run([sys.executable, "-c", run], cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=300)
    assert again.stdout.split() == ["42", "1"], again.stderr  # loaded from the cache it saved

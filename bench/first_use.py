"""Seconds to a fresh install's first answer, each command as a user meets it, in one run.

The package is built once from a checkout (``pip wheel``: the build compiles the kernels,
tools/build_kernels.py, timed), then, for each command, installed afresh into an empty folder
and run three times:

- ``install``: the first run after the install (the build's numba cache, an empty home);
- ``warm``: the same command again (the reference: what every later run takes);
- ``no cache``: with an empty ``NUMBA_CACHE_DIR``, so every kernel is compiled as a first
  run did before the build compiled them (the reference of the change).

The commands:

- ``analysis``: ``shapemill analysis``, one 19x19 query of ten moves (``--visits``):
  seconds from the start to the first response line;
- ``gtp``: ``shapemill gtp --playouts P``, ``boardsize 19``, ``clear_board``, ``genmove b``:
  seconds from the start to the answer;
- ``review``: ``shapemill review GAME`` (the table's judgement of each move), to its exit;
- ``demo``: ``shapemill demo`` (a 9x9 game against GnuGo level 1), to its exit.

Each run's standard error is kept, for the compile notices (``shapemill.compiling``).

    python bench/first_use.py [--commands analysis,gtp,review,demo] [--visits 100] [--code CHECKOUT]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

SHAPEMILL = [sys.executable, "-c", "from shapemill.cli import main; main()"]
#: A 19x19 game's opening (the review's and the analysis query's position).
OPENING = ["Q16", "D4", "Q3", "D16", "R5", "C10", "O17", "R14", "P14", "F17"]
COMMANDS = ("analysis", "gtp", "review", "demo")
#: The three runs of each command, in order.
STATES = ("install", "warm", "no cache")


def build_wheel(code: Path, folder: Path) -> tuple[Path, float]:
    """The wheel of ``code`` as ``pip install`` builds it (kernels compiled), and the seconds it took."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(folder), str(code)],
                   check=True, env={k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"})
    return next(folder.glob("shapemill-*.whl")), time.perf_counter() - start


def install(wheel: Path, folder: Path) -> dict[str, str]:
    """The environment of a fresh install of ``wheel`` into ``folder`` (its dependencies: this Python's)."""
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(folder / "site"),
                    str(wheel)], check=True)
    (folder / "home").mkdir()
    env = dict(os.environ, HOME=str(folder / "home"), PYTHONPATH=str(folder / "site"))
    for name in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME"):
        env.pop(name, None)
    return env


def _first_line_after(args: list[str], stdin_text: str, env: dict, want) -> tuple[float, str]:
    """Seconds from starting ``args`` to the first stdout line for which ``want`` holds; and its stderr."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.extend(proc.stderr), daemon=True)
    reader.start()
    proc.stdin.write(stdin_text)
    proc.stdin.flush()
    seconds = float("nan")
    for line in proc.stdout:
        if want(line):
            seconds = time.perf_counter() - start
            break
    proc.stdin.close()
    proc.kill()
    proc.wait()
    reader.join(5)
    return seconds, "".join(err)


def analysis(env: dict, visits: int) -> tuple[float, str]:
    moves = [["B" if i % 2 == 0 else "W", v] for i, v in enumerate(OPENING)]
    query = {"id": "q", "moves": moves, "rules": "chinese", "komi": 7.5, "boardXSize": 19, "boardYSize": 19,
             "maxVisits": visits}
    return _first_line_after(SHAPEMILL + ["analysis"], json.dumps(query) + "\n", env,
                             lambda line: line.startswith("{") and '"moveInfos"' in line)


def gtp(env: dict, visits: int) -> tuple[float, str]:
    return _first_line_after(SHAPEMILL + ["gtp", "--playouts", str(visits)],
                             "boardsize 19\nclear_board\ngenmove b\n", env,
                             lambda line: line.startswith("= ") and len(line.strip()) > 1)


def _exit(args: list[str], env: dict, cwd: str) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        return float("nan"), done.stderr
    return seconds, done.stderr


def review(env: dict, visits: int, folder: Path) -> tuple[float, str]:
    game = folder / "game.sgf"
    moves = "".join(f";{'B' if i % 2 == 0 else 'W'}[{_sgf(v)}]" for i, v in enumerate(OPENING))
    game.write_text(f"(;GM[1]FF[4]SZ[19]KM[6.5]RU[Chinese]{moves})", encoding="utf-8")
    return _exit(SHAPEMILL + ["review", str(game)], env, str(folder))


def demo(env: dict, visits: int, folder: Path) -> tuple[float, str]:
    return _exit(SHAPEMILL + ["demo", "--sgf", str(folder / "demo.sgf")], env, str(folder))


def _sgf(vertex: str) -> str:
    letters = "ABCDEFGHJKLMNOPQRST"
    col, row = letters.index(vertex[0]), int(vertex[1:])
    return "abcdefghijklmnopqrs"[col] + "abcdefghijklmnopqrs"[19 - row]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", default=",".join(COMMANDS), help="comma-separated, of " + ", ".join(COMMANDS))
    parser.add_argument("--visits", type=int, default=100, help="analysis maxVisits and gtp --playouts")
    parser.add_argument("--stderr", action="store_true", help="print each run's standard error")
    parser.add_argument("--code", type=Path, default=Path(__file__).resolve().parents[1],
                        help="the checkout to build and install (default: this one)")
    args = parser.parse_args()
    rows = []
    with os.popen("uptime") as f:
        load = f.read().strip().split("load average:")[-1].strip()
    with tempfile.TemporaryDirectory(prefix="first-use-wheel-") as wheels:
        wheel, build_seconds = build_wheel(args.code, Path(wheels))
        print(f"build (pip wheel, kernels compiled): {build_seconds:.1f} s", flush=True)
        for name in args.commands.split(","):
            with tempfile.TemporaryDirectory(prefix=f"first-use-{name}-") as tmp:
                folder = Path(tmp)
                env = install(wheel, folder)
                run = globals()[name]
                timed = []
                for state in STATES:
                    if state == "no cache":
                        env = dict(env, NUMBA_CACHE_DIR=str(folder / "empty-numba-cache"))
                    seconds, err = run(env, args.visits) if name in ("analysis", "gtp") else run(env, args.visits, folder)
                    timed.append(seconds)
                    notices = [line for line in err.splitlines() if line.startswith("shapemill: compiling")]
                    print(f"{name:9} {state:8}: {seconds:7.1f} s, {len(notices)} compile notice(s)", flush=True)
                    if args.stderr:
                        print(err, flush=True)
                rows.append((name, *timed))
    print(f"\nload average at the start: {load}; the build {build_seconds:.0f} s")
    print("| command | first run after install, s | warm, s | no cache (every kernel compiled), s |\n|---|---|---|---|")
    for name, *seconds in rows:
        print("| " + name + " | " + " | ".join(f"{s:.1f}" for s in seconds) + " |")


if __name__ == "__main__":
    main()

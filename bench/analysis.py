"""The JSON analysis engine's speed: its first answer, a whole game, and kata-analyze beside it.

1. First answer: ``shapemill analysis`` started afresh (kernels cached, the bundled
   table read in the background), one 19x19 query of 1 visit sent at once; seconds
   until its response line, and the CPU seconds of the whole process (a fairer
   measure on a loaded machine). Reference, same run: a fresh ``shapemill gtp``'s first
   ``genmove`` of 1 playout (what a referee waits for, ``bench/first_move.py``).
2. A game: the first game of a Tygem archive (``../shared/data/tygem9d``), ``--turns``
   turns in one query at ``--visits`` visits a turn, with 2 workers (both cores) and,
   for reference in the same run, 1 worker over the first ``--reference-turns`` turns;
   seconds per turn of wall clock.
3. ``kata-analyze`` over GTP on the same game's position at turn 100 for ``--seconds``:
   the visits per second the last ``info`` line reports.

    python bench/analysis.py [--turns 250] [--visits 200] [--reference-turns 60] [--seconds 10]

The machine is shared: other work on it slows every row alike; compare rows of one run.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

from sgfmill import sgf, sgf_moves

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "tygem9d"
LETTERS = "ABCDEFGHJKLMNOPQRST"
ENGINE = [sys.executable, "-m", "shapemill.cli"]


def first_game() -> list[list[str]]:
    """The moves of the first game of the first archive, as the analysis engine takes them."""
    archive = sorted(DATA.glob("*.zip"))[0]
    with zipfile.ZipFile(archive) as z:
        name = next(n for n in z.namelist() if n.endswith(".sgf"))
        game = sgf.Sgf_game.from_bytes(z.read(name))
    _, moves = sgf_moves.get_setup_and_moves(game)
    return [[c.upper(), "pass" if p is None else f"{LETTERS[p[1]]}{p[0] + 1}"] for c, p in moves]


def timed_lines(args: list[str], lines: list[str], until: int) -> tuple[float, list[str], float]:
    """Start ``args``, send ``lines``; seconds until ``until`` output lines came, those lines,
    and the CPU seconds (user and system) of the process's whole life."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            bufsize=1)
    for line in lines:
        proc.stdin.write(line + "\n")
    proc.stdin.flush()
    got = []
    while len(got) < until:
        line = proc.stdout.readline()
        if not line:
            break
        if line.strip():
            got.append(line)
    seconds = time.perf_counter() - start
    proc.stdin.close()
    proc.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, got, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def analyse_game(moves: list[list[str]], turns: int, visits: int, workers: int) -> float:
    """Seconds of wall clock per turn for one query of ``turns`` turns."""
    query = {"id": "g", "moves": moves[:turns], "rules": "chinese", "komi": 6.5, "boardXSize": 19, "boardYSize": 19,
             "analyzeTurns": list(range(turns)), "maxVisits": visits}
    timed_lines(ENGINE + ["analysis", "--workers", "1"],
                [json.dumps({**query, "analyzeTurns": [0], "maxVisits": 1})], 1)  # kernels loaded and cached
    seconds, got, _ = timed_lines(ENGINE + ["analysis", "--workers", str(workers)], [json.dumps(query)], turns)
    final = [json.loads(line) for line in got]
    assert len(final) == turns and all("moveInfos" in obj for obj in final), final[:1]
    return seconds / turns


def kata_analyze_rate(moves: list[list[str]], turn: int, seconds: float) -> float:
    """Visits per second of ``kata-analyze`` on the position after ``turn`` moves."""
    proc = subprocess.Popen(ENGINE + ["gtp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)
    lines: list[str] = []
    threading.Thread(target=lambda: [lines.append(x) for x in proc.stdout], daemon=True).start()
    commands = ["boardsize 19", "komi 6.5"] + [f"play {c} {v}" for c, v in moves[:turn]]
    proc.stdin.write("\n".join(commands) + "\ngenmove b\nundo\n")  # warm: the kernels loaded
    proc.stdin.flush()
    while sum(1 for x in lines if x.startswith("=")) < len(commands) + 2:
        time.sleep(0.05)
    proc.stdin.write("kata-analyze 50\n")
    proc.stdin.flush()
    time.sleep(seconds)
    infos = [x for x in lines if x.startswith("info ")]
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait()
    words = infos[-1].split()
    visits = sum(int(words[i + 1]) for i, w in enumerate(words) if w == "visits")
    return visits / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=250)
    parser.add_argument("--visits", type=int, default=200)
    parser.add_argument("--reference-turns", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    query = {"id": "first", "moves": [], "rules": "chinese", "komi": 6.5, "boardXSize": 19, "boardYSize": 19,
             "maxVisits": 1}
    first = [timed_lines(ENGINE + ["analysis"], [json.dumps(query)], 1) for _ in range(3)]
    gtp = [timed_lines(ENGINE + ["gtp", "--playouts", "1"], ["genmove b"], 1) for _ in range(3)]
    moves = first_game()
    turns = min(args.turns, len(moves))
    two = analyse_game(moves, turns, args.visits, 2)
    one = analyse_game(moves, min(args.reference_turns, turns), args.visits, 1)
    rate = kata_analyze_rate(moves, min(100, len(moves)), args.seconds)
    print("| measure | result | reference, same run |")
    print("|---|---|---|")
    print(f"| first JSON answer after start-up (3 runs; CPU s of the process) "
          f"| {', '.join(f'{s:.2f} ({c:.2f})' for s, _, c in first)} s "
          f"| gtp's first genmove: {', '.join(f'{s:.2f} ({c:.2f})' for s, _, c in gtp)} s |")
    print(f"| {turns}-turn game at {args.visits} visits, 2 workers | {two:.3f} s a turn ({two * turns:.0f} s) "
          f"| 1 worker, first {min(args.reference_turns, turns)} turns: {one:.3f} s a turn ({one / two:.2f}x) |")
    print(f"| kata-analyze, turn 100, {args.seconds:g} s | {rate:,.0f} visits/s "
          f"| the game's 2 workers: {args.visits / two:,.0f} visits/s |")


if __name__ == "__main__":
    main()

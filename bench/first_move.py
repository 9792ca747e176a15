"""Seconds of a fresh engine's first ``genmove``, as a match's referee sees it.

A referee starts the programs, sets up the game (``boardsize``, ``clear_board``,
``komi``) and asks for a move at once: whatever the engine has not loaded by then
(the ratings table, the kernels from numba's cache) is charged to its first move,
and under equal time to the moves after it. Each of ``--runs`` fresh processes of
``--engine`` plays ``--moves`` moves at ``--seconds`` a move (``time_settings 0 S 1``,
as ``EqualTime`` sends); the reference, in the same run, is GnuGo's first move. Run it
once before measuring, so that numba's cache is warm (a cold cache compiles for a minute).

    python bench/first_move.py [--size 9] [--seconds 0.24] [--runs 3]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time

from shapemill.engine.frontends.match import GtpClient


def move_seconds(command: str, size: int, seconds: float | None, moves: int) -> list[float]:
    """Wall seconds of each of the first ``moves`` genmoves of a fresh ``command``
    (told ``seconds`` a move; None: not told, as GnuGo is not)."""
    client = GtpClient(command)
    try:
        for line in (f"boardsize {size}", "clear_board", "komi 7.5"):
            client.send(line)
        took = []
        for i in range(moves):
            if seconds is not None:
                client.send(f"time_settings 0 {seconds} 1")
            start = time.perf_counter()
            client.send(f"genmove {'bw'[i % 2]}")
            took.append(time.perf_counter() - start)
        return took
    finally:
        client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--seconds", type=float, default=0.24, help="time a move (9x9 matches: GnuGo's 0.24 s)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--moves", type=int, default=4)
    parser.add_argument("--engine", default=f"{sys.executable} -m shapemill.cli gtp --threads 2")
    parser.add_argument("--gnugo", default=shutil.which("gnugo") or "/usr/games/gnugo")
    args = parser.parse_args()
    print("| program | first genmove, s (each run) | later genmoves, mean s |")
    print("|---|---|---|")
    for name, command, seconds in (
            ("shapemill", f"{args.engine} --size {args.size}", args.seconds),
            ("GnuGo (reference; its own time)", f"{args.gnugo} --mode gtp --level 10 --chinese-rules", None)):
        runs = [move_seconds(command, args.size, seconds, args.moves) for _ in range(args.runs)]
        first = ", ".join(f"{r[0]:.2f}" for r in runs)
        later = statistics.mean(t for r in runs for t in r[1:])
        print(f"| {name} | {first} | {later:.2f} |", flush=True)


if __name__ == "__main__":
    main()

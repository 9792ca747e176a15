"""Search playouts per second and a fresh engine's first genmove, this checkout against another.

A refactoring of the search must not slow it: each of ``--rounds`` rounds measures,
in fresh processes, this checkout and the reference (``--before``: a folder holding a
``shapemill`` package, e.g. ``git archive`` of an older commit unpacked into
``DIR/shapemill``), one after the other so the machine's load falls on both alike.
Search: one thread, fixed playouts, seed 1, with and without the bundled ratings
table's priors, on the empty board and (19x19, "move 120") after 120 moves drawn from
the table's own strengths (seed 1: the same game for both checkouts), best of three
searches after a warm-up (numba's cache warm), in CPU seconds of the process (the
search is one thread), so that other work on the machine counts less. A change that
keeps the search's moves (fixed playouts and seed give the same root visits) shows here
only as speed. First genmove: seconds of
``genmove b`` after ``boardsize 9``, ``clear_board``, ``time_settings 0 0.24 1``.

    python bench/search_speed.py --before DIR [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

#: (board size, playouts, with the table, moves played before the search).
CASES = ((9, 3000, False, 0), (9, 3000, True, 0), (19, 600, True, 0), (19, 1500, True, 120))

MEASURE = """
import json, time
import numpy as np
try:  # this layout; a checkout before the engine's job folders (issue 43) had engine/mcts.py and gtp.py
    from shapemill.engine.search import Search, SearchConfig
    from shapemill.patterns.prior import MovePrior
    def search_priors(config, table, board, color):
        return Search(config, table).priors(board, color)
except ImportError:
    from shapemill.engine.mcts import Search, SearchConfig
    from shapemill.engine.gtp import search_priors
    from shapemill.miner.prior import MovePrior
from shapemill.go import rules
from shapemill.go.board import Board
from shapemill.go.vertices import point_at
from shapemill.patterns.defaults import RATINGS, default_table
table = MovePrior(default_table(RATINGS))
rates = {}
for size, playouts, with_table, moves in %r:
    config = SearchConfig(playouts=playouts, seed=1)
    board, rng = Board(size), np.random.default_rng(1)
    for i in range(moves):
        strength = table(board.b, board.m, rules.BLACK if i %% 2 == 0 else rules.WHITE)
        board.play("bw"[i %% 2], point_at(int(rng.choice(len(strength), p=strength / strength.sum())), size))
    color = rules.BLACK if moves %% 2 == 0 else rules.WHITE
    prior, knowledge = search_priors(config, table if with_table else None, board, color)
    Search(SearchConfig(playouts=64, seed=1)).run(board, color, prior, knowledge)
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        Search(config).run(board, color, prior, knowledge)
        best = min(best, time.process_time() - start)
    rates[f"{size}x{size}" + (" table" if with_table else "") + (f" move {moves}" if moves else "")] = playouts / best
print(json.dumps(rates))
""" % (CASES,)


def search_rates(path: str) -> dict[str, float]:
    """Playouts per second of each case, measured in a fresh process importing from ``path``."""
    env = {**os.environ, "PYTHONPATH": path}
    out = subprocess.run([sys.executable, "-c", MEASURE], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def first_genmove(path: str) -> float:
    """Seconds of a fresh engine's first genmove on 9x9 at 0.24 s a move."""
    engine = subprocess.Popen([sys.executable, "-m", "shapemill.cli", "gtp", "--size", "9"], text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": path})

    def send(line: str) -> None:
        engine.stdin.write(line + "\n")
        engine.stdin.flush()
        while engine.stdout.readline().strip():  # the response ends with a blank line
            pass

    try:
        for line in ("boardsize 9", "clear_board", "komi 7.5", "time_settings 0 0.24 1"):
            send(line)
        start = time.perf_counter()
        send("genmove b")
        return time.perf_counter() - start
    finally:
        engine.stdin.close()
        engine.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="a folder holding the reference's shapemill package")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    here = Path(__file__).resolve().parents[1]  # this checkout, imported as shapemill through PYTHONPATH
    checkouts = {"before": args.before, "after": os.environ.get("PYTHONPATH", str(here.parent))}
    rows: dict[str, dict[str, list[float]]] = {name: {} for name in checkouts}
    for _ in range(args.rounds):
        for name, path in checkouts.items():
            for case, rate in search_rates(path).items():
                rows[name].setdefault(case, []).append(rate)
            rows[name].setdefault("first genmove, s", []).append(first_genmove(path))
    cases = list(rows["before"])
    print("| checkout | " + " | ".join(f"{c} playouts/s" if "genmove" not in c else c for c in cases) + " |")
    print("|---|" + "---|" * len(cases))
    for name in checkouts:
        cells = [f"{max(v):,.0f}" if "genmove" not in c else ", ".join(f"{x:.2f}" for x in v)
                 for c, v in rows[name].items()]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

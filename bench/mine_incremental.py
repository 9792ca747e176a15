"""Benchmark of the counting pass: the incremental kernel against the straightforward one.

    python bench/mine_incremental.py                           # the first 100 train games of tygem9d
    python bench/mine_incremental.py --games 300 -r 3          # a bigger slice, best of 3
    python bench/mine_incremental.py --dictionary-games 1000   # a bigger dictionary (slow to discover)
    python bench/mine_incremental.py --json                    # one JSON object instead of the table

Both kernels count the same games with the same dictionary, discovered on the
first ``--dictionary-games`` train games (default: the slice), in this process,
and must give the same table. Times are CPU seconds (``time.process_time``),
the best of ``--reps``: the machine may be shared. A pass's setup, the zeroed
copy of the dictionary it counts into (``mine._gate``), is timed apart: it is
paid once per worker, whatever the number of games. The straightforward
kernel, ``tests/oracles.py`` walking every ring of every candidate, is the
reference measured in the same run. The extrapolation to the train split
assumes the slice's positions are typical; a bigger corpus makes a bigger
dictionary, deeper chains and a table that no cache holds, for both kernels.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the oracle

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "data" / "tygem9d"
TRAIN_POSITIONS = 17_000_000  # train split of tygem9d, about 78,200 games


class Straightforward:
    """The reference pass as a job: the oracle in COUNT mode for every game."""

    def __init__(self, corpus, dictionary, params):
        self.corpus, self.dictionary, self.params = corpus, dictionary, params

    def start(self):
        from shapemill.miner import mine

        return mine._gate(self.dictionary)

    def game(self, table, i: int):
        from oracles import mine_game

        return mine_game(self.corpus, i, self.params, table)


def timed_pass(job, n_games: int) -> tuple[float, float, object]:
    """CPU seconds of the job's setup and of its games, and its table."""
    t = time.process_time()
    table = job.start()
    setup = time.process_time() - t
    t = time.process_time()
    for i in range(n_games):
        table = job.game(table, i)
    return setup, time.process_time() - t, table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100, help="games in the slice (default 100)")
    parser.add_argument("--dictionary-games", type=int, help="games the dictionary is discovered on")
    parser.add_argument("--min-count", type=int, default=50)
    parser.add_argument("-r", "--reps", type=int, default=1, help="timed passes per kernel; the best counts")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    import numpy as np
    from shapemill.datasets.corpus import load_corpus
    from shapemill.miner import counts, mine

    corpus = load_corpus([CORPUS], split="train", limit=args.games)
    sample = load_corpus([CORPUS], split="train", limit=args.dictionary_games) if args.dictionary_games else corpus
    params = mine.MineParams(min_count=args.min_count, discovery_games=len(sample))
    dictionary, _ = mine.discover(sample, params)
    kernels = {
        "straightforward": Straightforward,
        "incremental": lambda corpus, dictionary, params: mine._CountPatterns(corpus, mine._gate(dictionary), params),
    }
    setup, seconds, tables = {}, {}, {}
    for name, job in kernels.items():
        timed_pass(job(corpus, dictionary, params), 1)  # compile outside the timing
    for _ in range(args.reps):
        for name, job in kernels.items():
            s, g, table = timed_pass(job(corpus, dictionary, params), len(corpus))
            setup[name] = min(setup.get(name, np.inf), s)
            seconds[name] = min(seconds.get(name, np.inf), g)
            tables[name] = counts.entries(table)
    same = all(np.array_equal(tables["straightforward"][k], tables["incremental"][k]) for k in tables["incremental"])

    positions = corpus.n_positions
    result = {
        "games": len(corpus),
        "positions": positions,
        "dictionary_games": len(sample),
        "dictionary": counts.used(dictionary),
        "same_table": same,
        "setup_s": round(setup["straightforward"], 2),  # the incremental job's start copies a ready gate
        **{f"{name}_positions_per_s": round(positions / s) for name, s in seconds.items()},
        **{f"{name}_us_per_position": round(s / positions * 1e6, 1) for name, s in seconds.items()},
        "speedup": round(seconds["straightforward"] / seconds["incremental"], 1),
        "train_split_core_hours": {
            name: round(s / positions * TRAIN_POSITIONS / 3600, 2) for name, s in seconds.items()
        },
    }
    if args.json:
        print(json.dumps(result))
        return 0 if same else 1
    print(f"counting pass, first {len(corpus):,} train games of tygem9d ({positions:,} positions), "
          f"dictionary of {result['dictionary']:,} patterns from {len(sample):,} games (min_count {args.min_count}), "
          f"1 process, best of {args.reps}")
    print(f"{'':30}{'positions/s':>12}{'us/position':>13}{'CPU s':>8}{'train split, core-h':>21}")
    for name, s in seconds.items():
        label = "reference: straightforward" if name == "straightforward" else "incremental"
        print(f"{label:30}{positions / s:>12,.0f}{s / positions * 1e6:>13.1f}{s:>8.2f}"
              f"{result['train_split_core_hours'][name]:>21}")
    print(f"speed-up {result['speedup']}x; tables {'identical' if same else 'DIFFER'}; "
          f"setup (zeroed dictionary, once per worker, either kernel) {result['setup_s']} s")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())

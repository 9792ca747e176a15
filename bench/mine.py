"""Benchmark of ``shapemill mine`` on a fixed slice of the Tygem 9-dan corpus.

    python bench/mine.py                      # the first 1,000 train games, 2 workers
    python bench/mine.py --games 10000        # the issue's 10,000-game slice
    python bench/mine.py --games 0            # the whole train split
    python bench/mine.py --json               # one JSON object instead of the table
    python bench/mine.py --scheduler local:2  # on Dask, against one process

Times each step of the command on the slice -- discovery (on its sample of at
most 2,000 games, whatever the corpus, in shards shared by the ``-j`` workers),
the pattern counting pass and the tactical-feature pass (on every game), and the
rebuilding of the kept patterns' keys -- next to two references measured in the same run:
replaying the same games with the rules alone (``replay_check``), the floor no
miner can go under, and random updates of a table as big as the counting pass's
(``table_updates``), the memory's pace: discovery and counting wait on it, and a
shared machine's memory speed drifts more than its cores' (a 1.5x swing within
a day has been seen). Peak memory is that of the process plus its largest worker.

Extrapolation to 10,000 games and to the whole train split: discovery costs
per sample game times the sample size of the bigger corpus (at most
``discovery_games``), the counting passes per game times its games.
It is a lower bound: a bigger corpus makes more large patterns frequent.

With ``--scheduler`` (``local:N`` or a scheduler's address) it writes the slice as
a partitioned games dataset in a temporary folder and times the whole of ``mine``
(patterns and tactical features) on the Dask cluster against one process on the
same dataset, after warming up both (numba kernels loaded in every worker), checks
that both found the same counts and keys, and prints the speed-up next to the
machine's parallel capacity measured right after (N processes spinning at once
against one: on a shared machine, other jobs take part of the cores). Discovery
runs in a task per shard and round: ``--discovery-games`` sets its sample.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "data" / "tygem9d"
TRAIN_GAMES = 78_155  # train split of tygem9d (shapemill scan, default --test-fraction)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000, help="games in the slice, 0 for all (default 1000)")
    parser.add_argument("-j", "--workers", type=int, default=2)
    parser.add_argument("--min-count", type=int, default=50)
    parser.add_argument("--discovery-games", type=int, default=None, help="discovery sample (default: mine's)")
    parser.add_argument("--scheduler", help="compare one process with a Dask cluster: local:N or tcp://HOST:PORT")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if args.scheduler:
        return compare_with_dask(args)

    import numpy as np
    from shapemill.datasets.corpus import load_corpus
    from shapemill.go.rules import replay_check
    from shapemill.miner.feature_counts import count_features
    from shapemill.miner.mine import MineParams, discovery_sample, mine_patterns

    corpus = load_corpus([CORPUS], split="train", limit=args.games or None)
    empty = np.zeros(0, dtype=np.int16)
    replay_check(19, empty, empty, corpus.game_moves(0), 1)  # compile outside the timing
    t = time.perf_counter()
    for i in range(len(corpus)):
        replay_check(19, corpus.setup_black[i], corpus.setup_white[i], corpus.game_moves(i), int(corpus.first_color[i]))
    replay_s = time.perf_counter() - t
    updates_per_s = table_updates()

    params = MineParams(min_count=args.min_count, **_discovery(args))
    warm = load_corpus([CORPUS], split="train", limit=2)
    mine_patterns(warm, params)  # compile outside the timing
    count_features(warm)
    seconds: dict[str, float] = {}
    rows = mine_patterns(corpus, params, workers=args.workers, seconds=seconds)
    t = time.perf_counter()
    count_features(corpus, workers=args.workers)
    seconds["features"] = time.perf_counter() - t
    peak_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss + resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024

    positions = corpus.n_positions
    total = sum(seconds.values())
    sample = len(discovery_sample(len(corpus), params))

    def extrapolated(games: int) -> float:
        scaled = seconds["discovery"] / sample * len(discovery_sample(games, params))
        return (scaled + (total - seconds["discovery"]) * games / len(corpus)) / 60

    result = {
        "games": len(corpus),
        "positions": positions,
        "workers": args.workers,
        "discovery_games": sample,
        "seconds": {step: round(s, 1) for step, s in seconds.items()},
        "total_s": round(total, 1),
        "games_per_s": round(len(corpus) / total, 1),
        "positions_per_s": round(positions / total),
        "peak_mb": round(peak_mb),
        "dictionary": int(rows["dictionary"]),
        "patterns_kept": int(len(rows["seen"])),
        "replay_positions_per_s": round(positions / replay_s),
        "table_updates_per_s": round(updates_per_s),
        "extrapolated_10k_games_min": round(extrapolated(10_000), 1),
        "extrapolated_train_split_min": round(extrapolated(TRAIN_GAMES), 1),
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"shapemill mine, first {len(corpus):,} train games of tygem9d ({positions:,} positions), "
          f"{args.workers} worker(s), min_count {args.min_count}, discovery on {sample:,} games")
    print(f"{'':36}{'positions/s':>14}{'seconds':>10}")
    print(f"{'reference: replay with the rules':36}{result['replay_positions_per_s']:>14,}{replay_s:>10.1f}")
    print(f"{'reference: random table updates':36}{result['table_updates_per_s']:>14,}{'(per s)':>10}")
    rates = {"discovery": sample * positions / len(corpus) * (1 + params.discovery_rounds)}
    for step, s in seconds.items():
        rate = "" if step == "keys" else f"{rates.get(step, positions) / s:,.0f}"
        print(f"{'  ' + step:36}{rate:>14}{s:>10.1f}")
    print(f"{'mine, all steps':36}{result['positions_per_s']:>14,}{total:>10.1f}")
    print(f"games/s {result['games_per_s']}, peak memory {result['peak_mb']:,} MB, dictionary "
          f"{result['dictionary']:,} patterns, {result['patterns_kept']:,} kept")
    print(f"extrapolated (lower bound): 10,000 games {result['extrapolated_10k_games_min']} min "
          f"(target 5), train split {result['extrapolated_train_split_min']} min (target 30)")
    return 0


def table_updates(slots: int = 1 << 23, updates: int = 1 << 24) -> float:
    """Random read-modify-writes a second into a table of ``slots`` 32-byte rows (the
    counting pass's table on 10,000 games), each waiting for the one before: the
    memory's latency, which the hash-table passes pay at every probe they cannot
    overlap."""
    import numpy as np
    from numba import njit

    @njit
    def update(rows, n, shift):
        x = np.uint64(1)
        i = 0
        for _ in range(n):
            x = x * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
            i = int(x >> np.uint64(shift)) ^ (i & 1)
            rows[i, 1] += 1
            i = int(rows[i, 1] > rows[i, 3])  # the next row waits for this one
        return i

    rows = np.zeros((slots, 4), dtype=np.int64)
    shift = 64 - (slots.bit_length() - 1)
    update(rows, 10, shift)
    t = time.perf_counter()
    update(rows, updates, shift)
    return updates / (time.perf_counter() - t)


def _discovery(args) -> dict:
    """The discovery sample asked for, if any, as MineParams arguments."""
    return {} if args.discovery_games is None else {"discovery_games": args.discovery_games}


def _warm_up(dataset: str) -> None:
    """Load or compile every mining kernel in this process, on two games."""
    from shapemill.datasets.corpus import load_corpus
    from shapemill.miner.feature_counts import count_features
    from shapemill.miner.mine import MineParams, mine_patterns

    warm = load_corpus([dataset], split="train", limit=2)
    mine_patterns(warm, MineParams(min_count=2, discovery_games=2))
    count_features(warm)


def _spin(_: int) -> float:
    """Seconds of a fixed pure-Python loop: the unit of the machine's parallel capacity."""
    t = time.perf_counter()
    x = 0
    for i in range(20_000_000):
        x += i
    return time.perf_counter() - t


def parallel_capacity(processes: int) -> float:
    """How many times more work ``processes`` processes do at once than one alone,
    right now: the most any parallel run can gain (other jobs take the rest)."""
    import multiprocessing

    alone = _spin(0)
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        together = pool.map(_spin, range(processes))
    return processes * alone / max(together)


def compare_with_dask(args) -> int:
    """Time ``mine`` (both passes) on a Dask cluster against one process."""
    import tempfile
    from itertools import islice

    import numpy as np
    from shapemill.datasets import read_games
    from shapemill.datasets.corpus import load_corpus
    from shapemill.datasets.scanner import write_games_dataset
    from shapemill.go.rings import MAX_RING
    from shapemill.miner.cluster import dask_client, mine_on_cluster
    from shapemill.miner.feature_counts import count_features
    from shapemill.miner.mine import MineParams, discovery_sample, mine_patterns

    with tempfile.TemporaryDirectory() as tmp:
        dataset = f"{tmp}/games"
        games = list(islice((g for g in read_games([CORPUS]) if g.split == "train"), args.games or None))
        write_games_dataset(games, dataset, partition_size=5000)
        params = MineParams(min_count=args.min_count, max_ring=MAX_RING, **_discovery(args))

        _warm_up(dataset)
        corpus = load_corpus([dataset], split="train")
        t = time.perf_counter()
        rows = mine_patterns(corpus, params)
        features = count_features(corpus)
        one_s = time.perf_counter() - t

        t = time.perf_counter()
        with dask_client(args.scheduler) as client:
            client.run(_warm_up, dataset)
            start_s = time.perf_counter() - t
            t = time.perf_counter()
            mined = mine_on_cluster(client, [dataset], params, "train", None)
            dask_s = time.perf_counter() - t
        capacity = parallel_capacity(mined.workers)
        same = (
            rows["dictionary"] == mined.dictionary and
            all(np.array_equal(rows[k], mined.rows[k]) for k in ("pattern_id", "ring", "seen", "played", "witness"))
            and rows["key"].equals(mined.rows["key"])
            and all(np.array_equal(np.asarray(features[k]), np.asarray(mined.features[k])) for k in features)
        )
    result = {
        "games": len(corpus),
        "positions": corpus.n_positions,
        "discovery_games": len(discovery_sample(len(corpus), params)),
        "scheduler": args.scheduler,
        "dask_workers": mined.workers,
        "one_process_s": round(one_s, 2),
        "dask_s": round(dask_s, 2),
        "cluster_start_s": round(start_s, 2),
        "speedup": round(one_s / dask_s, 2),
        "machine_parallel_capacity": round(capacity, 2),
        "same_table": same,
    }
    if args.json:
        print(json.dumps(result))
        return 0 if same else 1
    print(f"shapemill mine (patterns and features), first {len(corpus):,} train games of tygem9d "
          f"({corpus.n_positions:,} positions), min_count {args.min_count}, discovery on {result['discovery_games']:,} games")
    print(f"{'':40}{'seconds':>10}{'positions/s':>14}")
    print(f"{'reference: one process':40}{one_s:>10.2f}{corpus.n_positions / one_s:>14,.0f}")
    print(f"{f'Dask {args.scheduler} ({mined.workers} workers)':40}{dask_s:>10.2f}{corpus.n_positions / dask_s:>14,.0f}")
    print(f"{f'reference: {mined.workers} spinning processes':40}{'':>10}{capacity:>13.2f}x  "
          "(the machine's parallel capacity now: the most any speed-up can be)")
    print(f"speed-up {one_s / dask_s:.2f}x (target 1.7x on 2 cores); cluster start and warm-up {start_s:.1f} s, "
          f"not counted; same counts and keys: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())

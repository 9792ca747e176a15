"""Benchmark of ``shapemill mine`` on a fixed slice of the Tygem 9-dan corpus.

    python bench/mine.py                    # the first 200 train games, 1 worker
    python bench/mine.py --games 1000 -j 2  # a bigger slice, 2 workers
    python bench/mine.py --json             # one JSON object instead of the table
    python bench/mine.py --games 1000 --scheduler local:2   # on Dask, against one process

Prints games/s, positions/s and peak memory of both mining passes on the slice,
next to the reference measured in the same run: replaying the same games with
the rules alone (``replay_check``), the floor no miner can go under. Extrapolates
linearly to the 10,000-game slice and to the whole train split; the extrapolation
is a lower bound, since a bigger corpus makes more large patterns frequent and
candidates grow further.

With ``--scheduler`` (``local:N`` or a scheduler's address) it writes the slice as
a partitioned games dataset in a temporary folder and times the whole of ``mine``
(patterns and tactical features) on the Dask cluster against one process on the
same dataset, after warming up both (numba kernels loaded in every worker), checks
that both found the same counts and keys, and prints the speed-up. Discovery runs
in one task, so it bounds the speed-up: ``--discovery-games`` sets its sample.
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
TRAIN_GAMES = 78_200  # train split of tygem9d (90% of 86,915 less duplicates), see README


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games in the slice (default 200)")
    parser.add_argument("-j", "--workers", type=int, default=1)
    parser.add_argument("--min-count", type=int, default=50)
    parser.add_argument("--discovery-games", type=int, default=4000, help="discovery sample (default 4000)")
    parser.add_argument("--scheduler", help="compare one process with a Dask cluster: local:N or tcp://HOST:PORT")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if args.scheduler:
        return compare_with_dask(args)

    import numpy as np

    from shapemill.datasets.corpus import load_corpus
    from shapemill.engine.rules import replay_check
    from shapemill.miner.mine import MineParams, mine_patterns

    corpus = load_corpus([CORPUS], split="train", limit=args.games)
    empty = np.zeros(0, dtype=np.int16)
    replay_check(19, empty, empty, corpus.game_moves(0), 1)  # compile outside the timing

    t = time.perf_counter()
    for i in range(len(corpus)):
        replay_check(19, corpus.setup_black[i], corpus.setup_white[i], corpus.game_moves(i), int(corpus.first_color[i]))
    replay_s = time.perf_counter() - t

    warm = load_corpus([CORPUS], split="train", limit=2)
    mine_patterns(warm, MineParams(min_count=args.min_count, discovery_games=2))  # compile
    params = MineParams(min_count=args.min_count, discovery_games=min(len(corpus), args.discovery_games))
    t = time.perf_counter()
    rows = mine_patterns(corpus, params, workers=args.workers)
    mine_s = time.perf_counter() - t
    peak_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss + resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024

    positions = corpus.n_positions
    per_game = mine_s / len(corpus)
    result = {
        "games": len(corpus),
        "positions": positions,
        "workers": args.workers,
        "seconds": round(mine_s, 2),
        "games_per_s": round(len(corpus) / mine_s, 2),
        "positions_per_s": round(positions / mine_s, 1),
        "peak_mb": round(peak_mb),
        "patterns_kept": int(len(rows["seen"])),
        "replay_positions_per_s": round(positions / replay_s),
        "extrapolated_10k_games_min": round(per_game * 10_000 / 60, 1),
        "extrapolated_train_split_min": round(per_game * TRAIN_GAMES / 60, 1),
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"shapemill mine, first {len(corpus):,} train games of tygem9d ({positions:,} positions), "
          f"{args.workers} worker(s), min_count {args.min_count}")
    print(f"{'':34}{'positions/s':>14}{'seconds':>10}")
    print(f"{'reference: replay with the rules':34}{result['replay_positions_per_s']:>14,}{replay_s:>10.2f}")
    print(f"{'mine (discovery + counting)':34}{result['positions_per_s']:>14,.0f}{mine_s:>10.2f}")
    print(f"games/s {result['games_per_s']}, peak memory {result['peak_mb']:,} MB, "
          f"{result['patterns_kept']:,} patterns kept")
    print(f"extrapolated (lower bound): 10,000 games {result['extrapolated_10k_games_min']} min "
          f"(target 5), train split {result['extrapolated_train_split_min']} min (target 30)")
    return 0


def _warm_up(dataset: str) -> None:
    """Load or compile every mining kernel in this process, on two games."""
    from shapemill.datasets.corpus import load_corpus
    from shapemill.miner.mine import MineParams, count_features, mine_patterns

    warm = load_corpus([dataset], split="train", limit=2)
    mine_patterns(warm, MineParams(min_count=2, discovery_games=2))
    count_features(warm)


def compare_with_dask(args) -> int:
    """Time ``mine`` (both passes) on a Dask cluster against one process."""
    import tempfile
    from itertools import islice

    import numpy as np

    from shapemill.datasets import read_games
    from shapemill.datasets.corpus import load_corpus
    from shapemill.datasets.scanner import write_games_dataset
    from shapemill.miner.cluster import dask_client, mine_on_cluster
    from shapemill.miner.mine import MineParams, count_features, mine_patterns
    from shapemill.miner.spatial import MAX_RING

    with tempfile.TemporaryDirectory() as tmp:
        dataset = f"{tmp}/games"
        games = list(islice((g for g in read_games([CORPUS]) if g.split == "train"), args.games))
        write_games_dataset(games, dataset, partition_size=5000)
        params = MineParams(min_count=args.min_count, max_ring=MAX_RING, discovery_games=min(len(games), args.discovery_games))

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
        rows.pop("discovery_threshold")
        same = (
            all(np.array_equal(rows[k], mined.rows[k]) for k in ("pattern_id", "ring", "seen", "played", "witness"))
            and rows["key"] == mined.rows["key"]
            and all(np.array_equal(np.asarray(features[k]), np.asarray(mined.features[k])) for k in features)
        )
    result = {
        "games": len(corpus),
        "positions": corpus.n_positions,
        "discovery_games": params.discovery_games,
        "scheduler": args.scheduler,
        "dask_workers": mined.workers,
        "one_process_s": round(one_s, 2),
        "dask_s": round(dask_s, 2),
        "cluster_start_s": round(start_s, 2),
        "speedup": round(one_s / dask_s, 2),
        "same_table": same,
    }
    if args.json:
        print(json.dumps(result))
        return 0 if same else 1
    print(f"shapemill mine (patterns and features), first {len(corpus):,} train games of tygem9d "
          f"({corpus.n_positions:,} positions), min_count {args.min_count}, discovery on {params.discovery_games:,} games")
    print(f"{'':40}{'seconds':>10}{'positions/s':>14}")
    print(f"{'reference: one process':40}{one_s:>10.2f}{corpus.n_positions / one_s:>14,.0f}")
    print(f"{f'Dask {args.scheduler} ({mined.workers} workers)':40}{dask_s:>10.2f}{corpus.n_positions / dask_s:>14,.0f}")
    print(f"speed-up {one_s / dask_s:.2f}x (target 1.7x on 2 cores); cluster start and warm-up {start_s:.1f} s, "
          f"not counted; same counts and keys: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())

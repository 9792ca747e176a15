"""Search playouts per second (wall clock) with 1 and 2 threads, root, tree and leaf parallelism.

From the empty board, MoGo playouts, no ratings table, each configuration
searching ``--playouts`` per move for ``--moves`` fresh searches after a warm-up;
the reference is the one-thread search measured in the same run. The machine's
other load counts too: compare rows of one run only.

    python bench/search_threads.py [--sizes 9 19] [--moves 3]
"""

from __future__ import annotations

import argparse
import time

from shapemill.engine.search import Search, SearchConfig
from shapemill.go import rules
from shapemill.go.board import Board

PLAYOUTS = {9: 8000, 19: 2000}


def rate(size: int, threads: int, parallel: str, moves: int) -> float:
    """Playouts per wall-clock second of ``moves`` fresh searches of the empty board."""
    config = SearchConfig(playouts=PLAYOUTS[size], threads=threads, parallel=parallel, seed=1)
    Search(SearchConfig(playouts=64, threads=threads, parallel=parallel)).run(Board(size), rules.BLACK)
    done, start = 0, time.perf_counter()
    for _ in range(moves):
        done += Search(config).run(Board(size), rules.BLACK).playouts
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[9, 19])
    parser.add_argument("--moves", type=int, default=3)
    args = parser.parse_args()
    print("| size | threads | parallel | playouts/s | x 1 thread |")
    print("|---|---|---|---|---|")
    for size in args.sizes:
        base = rate(size, 1, "root", args.moves)
        print(f"| {size}x{size} | 1 | - | {base:,.0f} | 1.00 |")
        for parallel in ("root", "tree", "leaf"):
            r = rate(size, 2, parallel, args.moves)
            print(f"| {size}x{size} | 2 | {parallel} | {r:,.0f} | {r / base:.2f} |", flush=True)


if __name__ == "__main__":
    main()

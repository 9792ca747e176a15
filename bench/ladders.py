"""The miner's ladders against the solver's on real games, position by position.

    python bench/ladders.py GAMES [--games 1000] [--cpu 600] [--max-nodes 20000]

GAMES is a games table or SGF sources (``shapemill scan ARCHIVE -o GAMES``). The first
``--games`` games of the test split are replayed (until ``--cpu`` seconds of this
process's CPU are spent), and every ladder question the miner's features ask is put to
the miner's reader and to PNS on the solver's ``ladder`` goal
(``engine.solve.ladders.compare_ladders``). Prints the tally and each disagreement,
unread reading the solver calls caught, and unfinished proof.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from shapemill.datasets.corpus import load_corpus
from shapemill.engine.solve.ladders import compare_ladders


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("games")
    parser.add_argument("--games", dest="n_games", type=int, default=1000)
    parser.add_argument("--cpu", type=float, default=600.0, help="CPU seconds before no new game starts")
    parser.add_argument("--max-nodes", type=int, default=20_000)
    args = parser.parse_args()
    corpus = load_corpus([args.games], "test", args.n_games)
    start = time.process_time()
    t = compare_ladders(corpus, args.max_nodes, lambda line: print(line, flush=True),
                        lambda: time.process_time() - start < args.cpu)
    nodes = t.solver_nodes
    print(f"games {t.games}, positions {t.positions}, ladder questions {t.questions}: both caught {t.caught}, "
          f"both escaped {t.escaped}, disagree {t.disagree}; the miner's budget cut {t.unread_caught + t.unread_escaped} "
          f"readings (the solver: {t.unread_caught} caught, {t.unread_escaped} escaped); unfinished proofs "
          f"{t.unfinished}; solver nodes mean {np.mean(nodes) if nodes else 0:.1f}, max {max(nodes, default=0)}; "
          f"CPU {time.process_time() - start:.0f} s")


if __name__ == "__main__":
    main()

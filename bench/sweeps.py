"""Benchmark of the MM sweeps: what each sweep buys, on the training objective and on test games.

    python bench/sweeps.py GAMES.parquet --positions 200000 --test-games 200 --sweeps 30 -j 2

Builds in memory the teams of ``--positions`` positions sampled (seed 0) from the train
games of GAMES and of every position of the first ``--test-games`` test games, with the
patterns table ``--patterns`` (the bundled one by default), fits ``--sweeps`` MM sweeps
(``tol`` 0), plain MM then accelerated (SQUAREM, ``fit_competitions``), and prints after
each sweep the objective per position (log-posterior of the train positions, what MM
raises), the top-1 and the mean log-likelihood of the moves of the test positions with the
gammas of that sweep, the passes over the candidates so far and the seconds so far (the
evaluations included: the test positions are few): how many sweeps a fit needs before the
next ones change nothing measurable, and how many the acceleration saves.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from shapemill.datasets.corpus import load_corpus
from shapemill.miner.evaluate import evaluate_teams
from shapemill.miner.positions import build_teams, sample_mask, use_threads
from shapemill.miner.rate import InMemory, fit_competitions
from shapemill.miner.rate_command import VOCABULARY_COLUMNS
from shapemill.patterns.candidates import Vocabulary
from shapemill.tables import read_table


class Watched(InMemory):
    """In-memory competitions that keep the gammas of the last first pass of a sweep (the
    gammas whose objective the sweep reports) and count the passes (evaluations excluded)."""

    def __init__(self, teams, n_blocks: int) -> None:
        super().__init__(teams, n_blocks)
        self.start, self.passes = np.zeros(0), 0

    def sweep_pass(self, gamma, cs, by_pattern):
        if by_pattern:
            self.start = gamma.copy()
        self.passes += 1
        return super().sweep_pass(gamma, cs, by_pattern)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", help="a games table")
    parser.add_argument("--patterns", default=None, help="patterns table (default: the bundled one)")
    parser.add_argument("--positions", type=int, default=200_000)
    parser.add_argument("--test-games", type=int, default=200)
    parser.add_argument("--sweeps", type=int, default=30)
    parser.add_argument("-j", "--workers", type=int, default=2)
    args = parser.parse_args()
    if args.patterns is None:
        from shapemill.patterns.defaults import PATTERNS, default_table

        args.patterns = default_table(PATTERNS)
    vocab = Vocabulary.from_patterns(read_table(args.patterns, "patterns", VOCABULARY_COLUMNS)[0])
    train = load_corpus([args.games], split="train")
    test = load_corpus([args.games], split="test", limit=args.test_games)
    start = time.perf_counter()
    teams = build_teams(train, vocab, sample_mask(train, args.positions, 0), workers=args.workers)
    held_out = build_teams(test, vocab, sample_mask(test, None), workers=args.workers)
    built = time.perf_counter() - start
    use_threads(args.workers)
    runs = {}
    for accelerate in (False, True):
        competitions = Watched(teams, max(1, args.workers))
        rows: list[tuple] = []

        def report(it: int, objective: float, ll: float, seconds: float) -> None:
            result = evaluate_teams(held_out, competitions.start[: vocab.size])
            rows.append((it, objective, result["top1"], result["mean_log_likelihood"], competitions.passes,
                         time.perf_counter() - begin))

        begin = time.perf_counter()
        fit_competitions(competitions, args.sweeps, 0.0, report=report, accelerate=accelerate)
        runs["accelerated (SQUAREM)" if accelerate else "plain MM"] = rows
    print(f"MM sweeps: {teams.n_positions:,} train positions sampled from {args.games} ({teams.n_candidates:,} "
          f"candidates, built with the test positions in {built:.0f} s), test: {held_out.n_positions:,} positions "
          f"of its first {len(test)} test games; -j {args.workers}; the two fits one after the other")
    print(f"{'':>22} {'sweep':>5} {'objective':>10} {'test top-1':>10} {'test log-lik':>12} {'passes':>6} {'s':>6}")
    for name, rows in runs.items():
        for it, objective, top1, ll, passes, seconds in rows:
            print(f"{name:>22} {it:>5} {objective:>10.5f} {top1:>10.2%} {ll:>12.5f} {passes:>6} {seconds:>6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

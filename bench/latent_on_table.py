"""Latent vectors over a ratings table: what the factorization model adds to gammas fitted on every position.

    python bench/latent_on_table.py --games games.parquet
    python bench/latent_on_table.py --games G --positions 300000 --configs 8:50:1000,8:200:1000 --iterations 60
    python bench/latent_on_table.py --games G --positions 300000 --configs 8:50:200,8:50:200:100

The product's gammas are MM's on every train position (the bundled table: 16.3 million);
the factorization model (``miner/latent.py``) fits its latent vectors by L-BFGS on
a batch held in memory, so in the product they would be fitted on a sample, over gammas
fitted on far more positions. This bench measures that: the table's gammas held, the
vectors fitted on ``--positions`` train positions (seeded) for each ``k:lambda:played``
of ``--configs`` (``k`` numbers a vector, ``lambda`` the weight of the vectors' squares,
and which features get one: every tactical level, and the patterns and near twins the
table says were played at least ``played`` times; ``all`` gives every feature one; an
optional fourth field, ``lam_w``, lets the gammas of the features with a vector move too,
``lam_w`` the weight of their squared moves from the table's), with
the move-number bands of ``--bands`` as context features. One table: top-1, top-5 and
mean log-likelihood on the first ``--test-games`` test games, top-1 on the test positions
whose move played has a pattern with a vector and on the others (that row's vectors; the
first row's split is the first config's), top-1 on the fitted positions (the
overfitting), L-BFGS's iterations and the fit's seconds; its first row is the table
alone, the same-run reference. Measurements go to bench/RESULTS.md ("Latent vectors over
the bundled table's gammas", "The bundled table with latent vectors").
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from model_variants import sample_arguments, train_and_test

from shapemill.miner.evaluate import Ranked, rank_moves, ranked_report
from shapemill.miner.latent import fit_factors, flatten, rank_factors
from shapemill.miner.vectors_command import vector_flags
from shapemill.patterns.defaults import RATINGS, default_table
from shapemill.patterns.knowledge import Knowledge
from shapemill.tables import read_table


def main() -> None:
    ap = sample_arguments(__doc__.split("\n")[0])
    ap.add_argument("--ratings", default=default_table(RATINGS), help="the ratings table (the bundled one)")
    ap.add_argument("--configs", default="8:50:1000", help="k:lambda:played (or all)[:lam_w], comma-separated")
    ap.add_argument("--iterations", type=int, default=60, help="L-BFGS iterations")
    ap.add_argument("--bands", default="20,60,120,200", help="move numbers starting a band, past the first ('': none)")
    args = ap.parse_args()
    knowledge = Knowledge.load(args.ratings)
    vocab, gamma = knowledge.vocabulary, knowledge.gamma
    bands = [int(x) for x in args.bands.split(",")] if args.bands else None
    train, test = train_and_test(args.games, vocab, args.positions, args.test_games, args.seed, args.workers,
                                 Path(args.ratings).name)
    flat, flat_test = flatten(train, bands), flatten(test, bands)
    table = read_table(args.ratings, "ratings", ["feature", "value", "size", "played"])[0]
    configs = [config.split(":") for config in args.configs.split(",")]

    def flags_of(played: str) -> np.ndarray:
        return np.ones(vocab.size, dtype=bool) if played == "all" else vector_flags(table, vocab, int(played))

    def split(rank: np.ndarray, flags: np.ndarray) -> str:
        has = np.append(flags, False)[flat_test.pattern[flat_test.pos_start[:-1] + flat_test.chosen]]
        return f"{(rank[has] == 1).mean():.2%} ({has.mean():.0%}) | {(rank[~has] == 1).mean():.2%}"

    print("| model | vectors | top-1 | top-5 | log-lik | top-1, played pattern with a vector (share) | without "
          "| train top-1 | iterations | fit s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    alone = rank_moves(test, gamma)
    here, seen = ranked_report(alone), ranked_report(rank_moves(train, gamma))
    print(f"| the table's gammas alone | 0 | {here['top1']:.2%} | {here['top5']:.2%} | "
          f"{here['mean_log_likelihood']:.4f} | {split(alone.rank, flags_of(configs[0][2]))} | {seen['top1']:.2%} "
          "| - | - |", flush=True)
    for k, lam, played, *moving in configs:
        flags = flags_of(played)
        start = time.perf_counter()
        lam_w = float(moving[0]) if moving else None
        model = fit_factors(flat, gamma, int(k), float(lam), lam_w, args.iterations, args.seed, args.workers, flags)
        ranked = Ranked(*rank_factors(flat_test, model), flat_test.move_number)
        here = ranked_report(ranked)
        seen = ranked_report(Ranked(*rank_factors(flat, model), flat.move_number))
        moved = "" if lam_w is None else f", gammas moving (lambda {lam_w:g})"
        print(f"| k {k}, lambda {lam}, played >= {played}{moved} | {int(flags.sum()):,} | {here['top1']:.2%} | "
              f"{here['top5']:.2%} | {here['mean_log_likelihood']:.4f} | {split(ranked.rank, flags)} | "
              f"{seen['top1']:.2%} | {model.iterations} | {time.perf_counter() - start:.0f} |", flush=True)


if __name__ == "__main__":
    main()

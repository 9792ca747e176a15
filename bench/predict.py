"""Benchmark of move prediction: mine, rate and evaluate on slices of tygem9d.

    python bench/predict.py                       # 200 train games, 20,000 positions
    python bench/predict.py --games 1000 --positions 100000 -j 2
    python bench/predict.py --json

Mines the first ``--games`` train games, fits the ratings on ``--positions``
positions sampled from them, and evaluates on the first ``--test-games`` test
games. Prints top-1 / top-5 / top-10 accuracy and the mean log-likelihood, the
time of the fit (and per MM sweep) and of the evaluation, next to the reference
measured in the same run: the same fit with the tactical features only (no
spatial patterns). Published marks for comparison: Stern et al. 2006 34%,
Coulom 2007 34.9%, Pachi's MM patterns about 34% on Tygem 9-dan games.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "tygem9d"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--test-games", type=int, default=100)
    parser.add_argument("--positions", type=int, default=20_000)
    parser.add_argument("--min-count", type=int, default=20)
    parser.add_argument("--max-iter", type=int, default=30)
    parser.add_argument("-j", "--workers", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    import pyarrow.compute as pc

    from shapemill.datasets.corpus import load_corpus
    from shapemill.miner.mine import MineParams, count_features, mine_patterns
    from shapemill.miner.predict import evaluate_teams
    from shapemill.miner.rate import fit
    from shapemill.miner.run import patterns_table
    from shapemill.miner.teams import Vocabulary, build_teams, sample_mask

    train = load_corpus([CORPUS], split="train", limit=args.games)
    test = load_corpus([CORPUS], split="test", limit=args.test_games)
    t = time.perf_counter()
    params = MineParams(min_count=args.min_count, discovery_games=min(len(train), 4000))
    table = patterns_table(mine_patterns(train, params, args.workers), count_features(train, args.workers))
    mine_s = time.perf_counter() - t

    results = {}
    for name, tab in (("patterns + features", table), ("reference: features only", table.filter(pc.not_equal(table["feature"], "pattern")))):
        vocab = Vocabulary.from_patterns(tab)
        t = time.perf_counter()
        teams = build_teams(train, vocab, sample_mask(train, args.positions, 0))
        model = fit(teams, vocab.group, max_iter=args.max_iter)
        rate_s = time.perf_counter() - t
        t = time.perf_counter()
        report = evaluate_teams(build_teams(test, vocab, sample_mask(test, None)), model.gamma)
        results[name] = {
            "features": vocab.size,
            "rate_s": round(rate_s, 1),
            "s_per_iteration": round(model.seconds_per_iteration, 2),
            "evaluate_s": round(time.perf_counter() - t, 1),
            **{k: report[k] for k in ("positions", "top1", "top5", "top10", "mean_log_likelihood")},
        }
    if args.json:
        print(json.dumps({"train_games": len(train), "fit_positions": args.positions, "mine_s": round(mine_s, 1), **results}))
        return 0
    print(f"trained on {len(train):,} train games ({args.positions:,} positions sampled), mined in {mine_s:.0f} s; "
          f"tested on {len(test):,} test games")
    print(f"{'model':26}{'features':>10}{'top-1':>8}{'top-5':>8}{'top-10':>8}{'log-lik':>9}{'rate s':>8}{'s/sweep':>9}{'eval s':>8}")
    for name, r in results.items():
        print(f"{name:26}{r['features']:>10,}{r['top1']:>8.1%}{r['top5']:>8.1%}{r['top10']:>8.1%}"
              f"{r['mean_log_likelihood']:>9.3f}{r['rate_s']:>8.0f}{r['s_per_iteration']:>9.2f}{r['evaluate_s']:>8.0f}")
    print("published: Stern et al. 2006 34%, Coulom 2007 34.9%, Pachi MM patterns ~34% (Tygem 9d); target 36%, goal 40%")
    return 0


if __name__ == "__main__":
    sys.exit(main())

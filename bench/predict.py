"""Benchmark of move prediction: rate on sampled train positions, evaluate on test games.

    python bench/predict.py --patterns patterns.parquet                # 200,000 positions
    python bench/predict.py --games games.parquet --patterns P --positions 2000000 -j 2
    python bench/predict.py --mine-games 200                            # mine a slice first
    python bench/predict.py --patterns P --min-counts 50,100,200,400   # the table kept at each count
    python bench/predict.py --json

Fits the ratings on ``--positions`` positions sampled (seeded) from all the train
games of ``--games`` (the Tygem 9-dan archives by default) with the patterns of
``--patterns`` (or of the first ``--mine-games`` train games, mined here), and
evaluates them on the first ``--test-games`` test games. Prints one table: top-1 /
top-5 / top-10 accuracy, mean log-likelihood, the time of the team building, of the
fit (and per MM sweep) and of the evaluation, and the peak memory; next to it the
reference measured in the same run (the same fit with the tactical features only)
and the references measured with other programs on the same games: Pachi's MM
patterns (about 34% top-1) and Rémi Coulom's MM tool (C++: 21,149 positions of 100
games, 36,361 gammas, 40 s, 0.155 s per one-feature iteration, from a 132 MB text
input). Published marks: Stern et al. 2006 34%, Coulom 2007 34.9%.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "tygem9d"


def run_model(train, test, table, positions: int, max_iter: int, tol: float, workers: int) -> dict:
    """Rate on ``positions`` train positions and evaluate on ``test``: accuracy and times."""
    from shapemill.patterns.candidates import Vocabulary
    from shapemill.miner.evaluate import evaluate_teams
    from shapemill.miner.positions import build_teams, sample_mask
    from shapemill.miner.rate import fit

    vocab = Vocabulary.from_patterns(table)
    t = time.perf_counter()
    teams = build_teams(train, vocab, sample_mask(train, positions, 0), workers=workers)
    build_s = time.perf_counter() - t
    t = time.perf_counter()
    model = fit(teams, max_iter=max_iter, tol=tol, workers=workers)
    fit_s = time.perf_counter() - t
    candidates, memory_mb = teams.n_candidates, teams.nbytes / 2**20
    del teams
    t = time.perf_counter()
    report = evaluate_teams(build_teams(test, vocab, sample_mask(test, None), workers=workers), model.gamma)
    return {
        "features": vocab.size,
        "positions": positions,
        "candidates": candidates,
        "teams_mb": round(memory_mb),
        "iterations": len(model.objective),
        "build_s": round(build_s, 1),
        "fit_s": round(fit_s, 1),
        "rate_s": round(build_s + fit_s, 1),
        "s_per_iteration": round(model.seconds_per_iteration, 2),
        "evaluate_s": round(time.perf_counter() - t, 1),
        "test_positions": report["positions"],
        **{k: report[k] for k in ("top1", "top5", "top10", "mean_log_likelihood")},
    }


def cut_at(table, min_count: int):
    """The patterns table as ``mine --min-count min_count`` would have kept it: ring-2
    patterns, larger ones seen ``min_count`` times, and every tactical row."""
    import pyarrow.compute as pc

    small = pc.equal(table["size"], 2)
    frequent = pc.greater_equal(table["seen"], min_count)
    return table.filter(pc.or_kleene(pc.not_equal(table["feature"], "pattern"), pc.or_kleene(small, frequent)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=str(CORPUS), help="games: a games table, SGF folder or archives")
    parser.add_argument("--patterns", help="patterns table (default: mine the first --mine-games train games)")
    parser.add_argument("--mine-games", type=int, default=200)
    parser.add_argument("--min-count", type=int, default=20)
    parser.add_argument("--positions", type=int, default=200_000)
    parser.add_argument("--test-games", type=int, default=200)
    parser.add_argument("--max-iter", type=int, default=30)
    parser.add_argument("--tol", type=float, default=1e-4)
    parser.add_argument("-j", "--workers", type=int, default=1)
    parser.add_argument("--min-counts", default="", help="comma-separated: also fit the table cut at each count")
    parser.add_argument("--skip-reference", action="store_true", help="no features-only fit")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    import pyarrow.compute as pc
    from shapemill.datasets.corpus import load_corpus
    from shapemill.miner.mine_command import peak_memory_mb
    from shapemill.tables import read_table

    train = load_corpus([args.games], split="train")
    test = load_corpus([args.games], split="test", limit=args.test_games)
    if args.patterns:
        table, _ = read_table(args.patterns, "patterns")
        source = args.patterns
    else:
        from shapemill.miner.feature_counts import count_features
        from shapemill.miner.mine import MineParams, mine_patterns
        from shapemill.miner.mine_command import patterns_table

        sliced = load_corpus([args.games], split="train", limit=args.mine_games)
        params = MineParams(min_count=args.min_count, discovery_games=len(sliced))
        table = patterns_table(mine_patterns(sliced, params, args.workers), count_features(sliced, args.workers))
        source = f"mined from the first {len(sliced)} train games"

    models = {"shapemill: patterns + tactical": table}
    for count in (int(c) for c in args.min_counts.split(",") if c):
        models[f"  patterns seen >= {count:,}"] = cut_at(table, count)
    if not args.skip_reference:
        models["shapemill: tactical only (same run)"] = table.filter(pc.not_equal(table["feature"], "pattern"))
    results = {name: run_model(train, test, t, args.positions, args.max_iter, args.tol, args.workers) for name, t in models.items()}
    if args.json:
        print(json.dumps({"train_games": len(train), "test_games": len(test), "patterns": source,
                          "peak_memory_mb": round(peak_memory_mb()), **results}))
        return 0
    print(f"fit on {args.positions:,} positions sampled from {len(train):,} train games; patterns: {source}; "
          f"tested on the first {len(test):,} test games; {args.workers} thread(s)")
    head = (f"{'model':38}{'features':>10}{'top-1':>8}{'top-5':>8}{'top-10':>8}{'log-lik':>9}"
            f"{'build s':>9}{'fit s':>8}{'sweeps':>7}{'s/sweep':>9}{'eval s':>8}")
    print(head)
    for name, r in results.items():
        print(f"{name:38}{r['features']:>10,}{r['top1']:>8.1%}{r['top5']:>8.1%}{r['top10']:>8.1%}"
              f"{r['mean_log_likelihood']:>9.3f}{r['build_s']:>9.0f}{r['fit_s']:>8.0f}{r['iterations']:>7}"
              f"{r['s_per_iteration']:>9.2f}{r['evaluate_s']:>8.0f}")
    print(f"{'Pachi MM patterns (Tygem 9d, issue 7)':38}{'':>10}{'~34%':>8}")
    print(f"{'Coulom mm tool (21,149 positions)':38}{36361:>10,}{'':>8}{'':>8}{'':>8}{'':>9}{'':>9}{40:>8}{'':>7}{0.155:>9.3f}")
    print(f"{'published: Stern 2006 / Coulom 2007':38}{'':>10}{'34-34.9%':>8}")
    print(f"target 36% top-1, goal 40%; peak memory {peak_memory_mb():,.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

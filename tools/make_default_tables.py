"""Make the tables bundled with shapemill from the Tygem 9-dan corpus.

    python tools/make_default_tables.py                   # whole train split, every position
    python tools/make_default_tables.py --games 2000 --positions 200000 --test-games 100

Runs the documented commands on ``../shared/data/tygem9d`` in ``build/default-tables``
(a fixed folder, so the paths recorded in the tables' metadata are the same every run):
``scan``; ``mine`` and ``rate`` on the train split (its first ``--games`` games if
given). Then it chooses what ships by measured accuracy per megabyte: the full
ratings table is cut to its compact form (``shapemill.miner.compact``: the engine's
columns, keys only for the shapes ``show`` and ``demo`` draw, patterns whose gamma
their smaller ring already predicts dropped with their whole subtree) at each
``--tolerances`` value, each cut measured with ``evaluate`` on the first
``--test-games`` games of the test split (never trained on), and the smallest cut
within ``--slack`` of the best top-1 among those whose ratings and patterns tables
together fit in ``--budget-mb`` is written
into ``patterns/`` with the patterns table (spatial patterns played at least
``--keep-played`` times, and every feature row). The command line, the games, the
measured accuracy and the whole curve (tolerance, rows, MB, top-1) go into both
tables' metadata. Every step is seeded, so running it again on the same data gives
the same tables; ``--reuse`` keeps the scan, mine and rate outputs an earlier run
with the same options left in that folder, to try other cuts without mining again.

Then the latent vectors (``shapemill vectors``, ``--vector-positions`` train positions)
are fitted over the shipped cut's gammas and measured the same way; the table ships with
them when they predict better (``--vector-mb`` of the budget is kept for them when the cut
is chosen). ``--vectors-only`` fits them over the tables already in ``--out``, with no
mining or fit (it scans the games if they are not in the folder), and ships the patterns
table cut to ``--keep-played`` when that is needed to stay within the budget.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
#: The metadata this tool adds to the tables it ships: how they were made and measured.
MADE_KEYS = ("command", "corpus", "games_used", "top1", "top5", "evaluated_positions", "evaluated_games",
             "compact_tolerance", "curve")


def shapemill(*args: str) -> str:
    """Run one shapemill command (this checkout's), echoing it; returns its output."""
    print("+ shapemill " + " ".join(args), flush=True)
    done = subprocess.run([sys.executable, "-m", "shapemill.cli", *args], check=True, text=True,
                          stdout=subprocess.PIPE, cwd=ROOT)
    return done.stdout


def compact_curve(ratings: Path, games: str, tolerances: list[float], test_games: int) -> list[dict]:
    """Each tolerance's compact table written beside ``ratings`` and measured on the
    test games: tolerance, path, rows, MB, top-1, top-5."""
    from shapemill.miner.compact import compact_ratings
    from shapemill.tables import read_table, write_table

    table, meta = read_table(ratings, "ratings")
    # the fit's timing is the only parameter that differs between runs: left out, the same bytes every run
    params = {k: v for k, v in meta["params"].items() if k != "seconds_per_iteration"}
    curve = []
    for t in tolerances:
        path = ratings.with_name(f"compact-{t:g}.parquet")
        compact = compact_ratings(table, t)
        write_table(compact, path, {**meta, "params": {**params, "compact_tolerance": t}})
        report = json.loads(shapemill("evaluate", games, "--ratings", str(path.relative_to(ROOT)), "--split", "test",
                                      "--limit-games", str(test_games), "--json"))
        curve.append({"tolerance": t, "path": path, "rows": compact.num_rows, "mb": path.stat().st_size / 2**20,
                      "top1": report["top1"], "top5": report["top5"], "positions": report["positions"]})
        print(f"tolerance {t:g}: {compact.num_rows:,} rows, {curve[-1]['mb']:.1f} MB, top-1 {report['top1']:.2%}",
              flush=True)
    return curve


def with_vectors(ratings: Path, games: str, positions: int, test_games: int) -> tuple[Path, dict]:
    """The latent vectors fitted over ``ratings`` on ``positions`` train positions, written
    beside it, and their table's report on the first ``test_games`` test games. A pattern gets
    a vector when the compact table counts it played often (50,922 features with a vector);
    ``vectors --patterns`` with the mined counts gave 83,908 of them 43.63% top-1 against
    43.58%, 0.5 MB past the budget (bench/RESULTS.md)."""
    path = ratings.with_name(f"{ratings.stem}-vectors.parquet")
    print(shapemill("vectors", games, "--ratings", str(ratings.relative_to(ROOT)), "-o", str(path.relative_to(ROOT)),
                    "--positions", str(positions), "-j", "2", "-q"), end="", flush=True)
    report = json.loads(shapemill("evaluate", games, "--ratings", str(path.relative_to(ROOT)), "--split", "test",
                                  "--limit-games", str(test_games), "--json"))
    print(f"with vectors: {path.stat().st_size / 2**20:.1f} MB, top-1 {report['top1']:.2%}", flush=True)
    return path, report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=None, help="train games mined and rated (default: all)")
    parser.add_argument("--min-count", type=int, default=20, help="mine --min-count (default 20)")
    parser.add_argument("--positions", default="all", help="rate --max-positions: a number or all (default all)")
    # SQUAREM's sweeps reach plain MM's 30-sweep fit at sweep 13 (bench/sweeps.py, RESULTS)
    parser.add_argument("--iterations", type=int, default=15, help="rate --max-iter (default 15)")
    parser.add_argument("--test-games", type=int, default=500, help="test games evaluated (default 500)")
    # the cost of a cut counts the fitted candidates: the same tolerance keeps more rows the more
    # positions were fitted; with every position, 30 keeps 1,988,005 rows in 27.9 MB at the uncut
    # fit's 42.55% (float32 gammas written byte-stream-split: 44.6 MB before, bench/RESULTS.md)
    # four cuts around the last choice (45; 30 and 60 within 0.07 points of it) rather than eight:
    # each is an `evaluate` of 500 games, 2-3 minutes, and the whole run must fit a session
    parser.add_argument("--tolerances", default="30,45,60,100",
                        help="compact-table tolerances tried (log-strength per row, summed over the fitted "
                             "candidates; default 30,45,60,100)")
    parser.add_argument("--budget-mb", type=float, default=30.0,
                        help="most MB of the two bundled tables together (default 30)")
    # 0.0005 rather than 0.001: within 30 MB the 0.06 points between tolerance 45 and 60 cost nothing
    parser.add_argument("--slack", type=float, default=0.0005,
                        help="ship the smallest cut within this much top-1 of the best (default 0.0005)")
    # 500 rather than 200: 1.2 MB rather than 2.0, room for the latent vectors (200 rather than 100
    # before them: 2.0 MB rather than 3.0, room for a finer cut of the ratings)
    parser.add_argument("--keep-played", type=int, default=500,
                        help="spatial patterns kept (for diagrams) when played this often (default 500)")
    parser.add_argument("--reuse", action="store_true", help="keep the scan / mine / rate outputs already made")
    # a million rather than `vectors`' 300,000: 43.77% top-1 against 43.58%, at 8.1 GB rather than
    # 4.0 and 37-47 minutes rather than 21 on two cores (bench/RESULTS.md)
    parser.add_argument("--vector-positions", type=int, default=1_000_000,
                        help="train positions the vectors are fitted on (default 1,000,000; 0: none)")
    # 0.9 MB: 50,922 vectors of 8 half-precision floats in the bundled table (bench/RESULTS.md)
    parser.add_argument("--vector-mb", type=float, default=1.0,
                        help="MB of the budget kept for the latent vectors when the cut is chosen (default 1)")
    parser.add_argument("--vectors-only", action="store_true",
                        help="fit the latent vectors over the tables in --out: no mining, fit or cut")
    parser.add_argument("--out", type=Path, default=ROOT / "patterns", help="folder of the tables (patterns/)")
    args = parser.parse_args()

    from shapemill.patterns.defaults import PATTERNS, RATINGS
    from shapemill.tables import read_table, write_table

    start = time.perf_counter()
    # paths relative to the repository root, where the commands run
    games, patterns, ratings = (f"build/default-tables/{name}.parquet" for name in ("games", "patterns", "ratings"))
    limit = ("--limit-games", str(args.games)) if args.games else ()
    steps = (
        (games, ("scan", "../shared/data/tygem9d", "-o", games, "-q")),
        (patterns, ("mine", games, "-o", patterns, "-j", "2", "-q", *limit, "--min-count", str(args.min_count))),
        (ratings, ("rate", games, "--patterns", patterns, "-o", ratings, *limit,
                   "--max-positions", args.positions, "--max-iter", str(args.iterations), "-j", "2")),
    )
    for output, command in steps[:1] if args.vectors_only else steps:
        if not ((args.reuse or args.vectors_only) and (ROOT / output).exists()):
            print(shapemill(*command), end="", flush=True)  # rate's shards, sweeps, seconds and peak memory

    table, meta = read_table(args.out / PATTERNS if args.vectors_only else ROOT / patterns, "patterns")
    is_pattern = np.asarray(table["feature"].to_numpy(zero_copy_only=False) == "pattern")
    shipped_patterns = table.filter(pa.array(~is_pattern | (table["played"].to_numpy() >= args.keep_played)))
    write_table(shipped_patterns, ROOT / "build/default-tables/shipped-patterns.parquet", meta)
    patterns_mb = (ROOT / "build/default-tables/shipped-patterns.parquet").stat().st_size / 2**20
    vector_mb = args.vector_mb if args.vector_positions else 0.0

    if args.vectors_only:
        kept, before = read_table(args.out / RATINGS, "ratings")
        cut = ROOT / "build/default-tables/shipped.parquet"
        write_table(kept, cut, before)
        made = {k: v for k, v in before.items() if k in MADE_KEYS}
        curve = [{"tolerance": made.get("compact_tolerance"), "path": cut, "mb": cut.stat().st_size / 2**20}]
        best = curve[0]
    else:
        n_train = int(pc.sum(pc.equal(pq.read_table(ROOT / games, columns=["split"])["split"], "train")).as_py())
        curve = compact_curve(ROOT / ratings, games, [float(t) for t in args.tolerances.split(",")], args.test_games)
        fitting = [c for c in curve if c["mb"] + patterns_mb + vector_mb <= args.budget_mb]
        if not fitting:
            sys.exit(f"no cut fits {args.budget_mb:g} MB with the {patterns_mb:.1f} MB patterns table and "
                     f"{vector_mb:g} MB of vectors: try larger --tolerances or --keep-played")
        top = max(c["top1"] for c in fitting)
        best = min((c for c in fitting if c["top1"] >= top - args.slack), key=lambda c: c["mb"])
        made = {
            "command": " ".join(["python tools/make_default_tables.py", *(a for a in sys.argv[1:] if a != "--reuse")]),
            "corpus": "tygem9d (../shared/data/tygem9d), train split",
            "games_used": min(args.games or n_train, n_train),
            "top1": best["top1"],
            "top5": best["top5"],
            "evaluated_positions": best["positions"],
            "evaluated_games": f"first {args.test_games} games of the test split",
            "compact_tolerance": best["tolerance"],
            "curve": [{k: c[k] for k in ("tolerance", "rows", "mb", "top1")} for c in curve],
        }
    shipped = best["path"]
    if args.vector_positions:
        path, report = with_vectors(best["path"], games, args.vector_positions, args.test_games)
        total = path.stat().st_size / 2**20 + patterns_mb
        if total > args.budget_mb:
            print(f"the vectors' table and the patterns make {total:.1f} MB, past {args.budget_mb:g}: shipped without "
                  "them (a larger --vector-mb or --keep-played)", flush=True)
        elif "top1" in made and report["top1"] <= made["top1"]:
            print(f"the vectors predict no better ({report['top1']:.2%}): shipped without them", flush=True)
        else:
            shipped = path
            # a --vectors-only run replaces the vectors of an earlier one: its command, not added to theirs
            this = " ".join(["python tools/make_default_tables.py", *sys.argv[1:]])
            made = {**made, "top1": report["top1"], "top5": report["top5"], "evaluated_positions": report["positions"],
                    "evaluated_games": f"first {args.test_games} games of the test split",
                    "command": f"{made['command'].split('; ')[0]}; {this}" if args.vectors_only else made["command"]}
    kept, kept_meta = read_table(shipped, "ratings")
    write_table(kept, args.out / RATINGS, {**kept_meta, **made})
    write_table(shipped_patterns, args.out / PATTERNS, {**meta, **made})

    print(f"{'tolerance':>9} {'rows':>10} {'MB':>6} {'top-1':>7}")
    for c in curve if not args.vectors_only else []:
        print(f"{c['tolerance']:>9g} {c['rows']:>10,} {c['mb']:>6.1f} {c['top1']:>7.2%}" + ("  <- ships" if c is best else ""))
    sizes = {name: (args.out / name).stat().st_size / 2**20 for name in (RATINGS, PATTERNS)}
    print(f"top-1 {made['top1']:.1%} on {made['evaluated_positions']:,} test positions; "
          + ", ".join(f"{name} {mb:.1f} MB" for name, mb in sizes.items())
          + f"; {time.perf_counter() - start:.0f} s")
    return 0

if __name__ == "__main__":
    sys.exit(main())

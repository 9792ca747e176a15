"""Make the tables bundled with shapemill from the Tygem 9-dan corpus.

    python tools/make_default_tables.py            # writes patterns/default_*.parquet
    python tools/make_default_tables.py --games 600 --positions 30000

Runs the documented commands on ``../shared/data/tygem9d`` in ``build/default-tables``
(a fixed folder, so the paths recorded in the tables' metadata are the same every run):
``scan``; ``mine`` and ``rate`` on the first ``--games`` games of the train split;
then keeps the ratings of the patterns mined at least ``--keep-seen`` times (and of
every tactical feature), measures that pruned table with ``evaluate`` on the first
``--test-games`` games of the test split (never trained on), and writes it with the
patterns table (spatial patterns played at least ``--keep-played`` times, and every
feature row) into ``patterns/``. The command line, the games and the measured
accuracy go into both tables' metadata. Every step is seeded, so running it again
on the same data gives the same tables; ``--reuse`` keeps the scan, mine and rate
outputs an earlier run with the same options left in that folder, to try other
pruning thresholds without mining again.
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

ROOT = Path(__file__).resolve().parents[1]


def shapemill(*args: str) -> str:
    """Run one shapemill command (this checkout's), echoing it; returns its output."""
    print("+ shapemill " + " ".join(args), flush=True)
    done = subprocess.run([sys.executable, "-m", "shapemill.cli", *args], check=True, text=True,
                          stdout=subprocess.PIPE, cwd=ROOT)
    return done.stdout


def pruned_ratings(ratings: Path, patterns: Path, min_seen: int):
    """The ratings table less the patterns mined fewer than ``min_seen`` times.

    Pruned by the mined count (how often the shape was available in the corpus),
    which never grows with the ring, so every kept pattern keeps its smaller rings
    and a move still finds its largest known pattern; the fit's own ``seen`` counts
    only the moves whose largest pattern it was, and pruning by it cuts chains."""
    from shapemill.patterns.tables import read_table

    table, meta = read_table(ratings, "ratings")
    mined, _ = read_table(patterns, "patterns", columns=["feature", "pattern_id", "seen"])
    mined = mined.filter(pc.equal(mined["feature"], "pattern"))
    frequent = mined["pattern_id"].to_numpy()[mined["seen"].to_numpy() >= min_seen]
    is_pattern = np.asarray(table["feature"].to_numpy(zero_copy_only=False) == "pattern")
    ids = np.zeros(len(is_pattern), dtype=np.uint64)
    ids[is_pattern] = table.filter(pa.array(is_pattern))["value"].to_numpy()
    return table.filter(pa.array(~is_pattern | np.isin(ids, frequent))), meta


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=600, help="train games mined and rated (default 600)")
    parser.add_argument("--min-count", type=int, default=20, help="mine --min-count (default 20)")
    parser.add_argument("--positions", type=int, default=30000, help="rate --max-positions (default 30000)")
    parser.add_argument("--iterations", type=int, default=20, help="rate --max-iter (default 20)")
    parser.add_argument("--test-games", type=int, default=100, help="test games evaluated (default 100)")
    parser.add_argument("--keep-seen", type=int, default=100,
                        help="pattern ratings kept when the pattern was mined this often (default 100)")
    parser.add_argument("--keep-played", type=int, default=10, help="spatial patterns kept when played this often")
    parser.add_argument("--reuse", action="store_true", help="keep the scan / mine / rate outputs already made")
    parser.add_argument("--out", type=Path, default=ROOT / "patterns", help="folder of the tables (patterns/)")
    args = parser.parse_args()

    from shapemill.patterns.defaults import PATTERNS, RATINGS
    from shapemill.patterns.tables import read_table, write_table

    start = time.perf_counter()
    # paths relative to the repository root, where the commands run
    games, patterns, ratings, pruned = (f"build/default-tables/{name}.parquet"
                                        for name in ("games", "patterns", "ratings", "pruned"))
    steps = (
        (games, ("scan", "../shared/data/tygem9d", "-o", games, "-q")),
        (patterns, ("mine", games, "-o", patterns, "-j", "2", "-q", "--limit-games", str(args.games),
                    "--min-count", str(args.min_count))),
        (ratings, ("rate", games, "--patterns", patterns, "-o", ratings, "--limit-games", str(args.games),
                   "--max-positions", str(args.positions), "--max-iter", str(args.iterations))),
    )
    for output, command in steps:
        if not (args.reuse and (ROOT / output).exists()):
            shapemill(*command)

    kept, kept_meta = pruned_ratings(ROOT / ratings, ROOT / patterns, args.keep_seen)
    write_table(kept, ROOT / pruned, kept_meta)
    report = json.loads(shapemill("evaluate", games, "--ratings", pruned, "--split", "test",
                                  "--limit-games", str(args.test_games), "--json"))

    made = {
        "command": " ".join(["python tools/make_default_tables.py", *(a for a in sys.argv[1:] if a != "--reuse")]),
        "corpus": "tygem9d (../shared/data/tygem9d), train split",
        "games_used": args.games,
        "top1": report["top1"],
        "top5": report["top5"],
        "evaluated_positions": report["positions"],
        "evaluated_games": f"first {args.test_games} games of the test split",
    }
    write_table(kept, args.out / RATINGS, {**kept_meta, **made})
    table, meta = read_table(ROOT / patterns, "patterns")
    is_pattern = np.asarray(table["feature"].to_numpy(zero_copy_only=False) == "pattern")
    keep = ~is_pattern | (table["played"].to_numpy() >= args.keep_played)
    write_table(table.filter(pa.array(keep)), args.out / PATTERNS, {**meta, **made})

    sizes = {name: (args.out / name).stat().st_size / 2**20 for name in (RATINGS, PATTERNS)}
    print(f"top-1 {report['top1']:.1%} on {report['positions']:,} test positions; "
          + ", ".join(f"{name} {mb:.1f} MB" for name, mb in sizes.items())
          + f"; {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

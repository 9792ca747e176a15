"""Benchmark of playing strength: matches against GnuGo and priors against no priors.

    python bench/strength.py                        # the issue's settings (hours)
    python bench/strength.py --games 4 --playouts 500 --skip-priors   # a smoke run
    python bench/strength.py --ratings ratings.parquet --json
    python bench/strength.py --skip-gnugo --ratings R --playouts 2000 --seeds 3,4 --out batch2   # a second batch

1. shapemill (``--no-priors``) against ``gnugo --mode gtp --level 10 --chinese-rules``
   on 9x9, komi 7.5, colours alternating, ``--playouts`` per move (default 10,000),
   ``--games`` games (default 40). Target: at least 60% wins. GnuGo scores by
   Japanese rules unless told otherwise, and its ``final_score`` would then disagree
   with ours on every game that has prisoners.
2. shapemill with ``--ratings`` priors against the same engine with ``--no-priors``
   at equal playouts on 19x19 (default 20 games). Target: at least 60% wins.

``--seeds A,B`` sets the seed prefixes of the two engines (``--seed A{game}``), so that
batches run side by side in separate ``--out`` folders play different games; their
tallies add up. Each line gives wins, win rate and its 95% Wilson interval, and the seconds per
move of each side; games are saved under ``--out`` (a run resumes from there).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path


def engine(args: argparse.Namespace, size: int, priors: str | None, side: int) -> str:
    """The command of engine ``side`` (1: ours, 2: its opponent in part 2); its seed
    changes with the game (``{game}``), so that games against a deterministic opponent differ."""
    source = f"--ratings {priors}" if priors else "--no-priors"
    seed = args.seeds.split(",")[side - 1]
    return (f"{sys.executable} -m shapemill.cli gtp {source} --size {size} --playouts {args.playouts}"
            f" --seed {seed}{{game}}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--prior-games", type=int, default=20)
    parser.add_argument("--playouts", type=int, default=10_000)
    parser.add_argument("--gnugo", default="/usr/games/gnugo --mode gtp --level 10 --chinese-rules")
    parser.add_argument("--ratings", default=None, help="ratings table for part 2")
    parser.add_argument("--skip-priors", action="store_true", help="only part 1")
    parser.add_argument("--skip-gnugo", action="store_true", help="only part 2")
    parser.add_argument("--seeds", default="1,2", help="seed prefixes of our engine and of its opponent in part 2")
    parser.add_argument("--out", default="bench-strength", help="folder of the games")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from shapemill.engine.match import run_match, wilson

    quiet = (lambda line: None) if args.json else print
    rows = []
    matches = []
    if not args.skip_gnugo and shutil.which(args.gnugo.split()[0]):
        matches.append(("vs GnuGo 9x9", engine(args, 9, None, 1), args.gnugo, args.games, 9))
    elif not args.skip_gnugo:
        quiet(f"{args.gnugo.split()[0]} not found: skipping the GnuGo match")
    if not args.skip_priors:
        if not args.ratings:
            parser.error("part 2 needs --ratings (or --skip-priors)")
        matches.append(("priors vs no priors 19x19", engine(args, 19, args.ratings, 1), engine(args, 19, None, 2),
                        args.prior_games, 19))
    for name, ours, theirs, games, size in matches:
        folder = Path(args.out) / name.replace(" ", "-")
        tallies = run_match(ours, theirs, games, size, 7.5, str(folder), alternate=True, report=quiet)
        us, them = tallies
        low, high = wilson(us.wins, us.games)
        rows.append({
            "match": name, "games": us.games, "wins": us.wins, "win_rate": us.wins / us.games,
            "ci_low": low, "ci_high": high,
            "s_per_move": us.seconds / us.moves if us.moves else None,
            "opponent_s_per_move": them.seconds / them.moves if them.moves else None,
        })
    if args.json:
        print(json.dumps({"playouts": args.playouts, "matches": rows}))
        return 0
    print(f"{'match':28}{'games':>7}{'wins':>7}{'win rate':>10}{'95% interval':>18}{'s/move':>9}{'opp s/move':>12}")
    for r in rows:
        per_move = f"{r['s_per_move']:.2f}" if r["s_per_move"] is not None else "-"
        opp = f"{r['opponent_s_per_move']:.2f}" if r["opponent_s_per_move"] is not None else "-"
        interval = f"[{r['ci_low']:.1%}, {r['ci_high']:.1%}]"
        print(f"{r['match']:28}{r['games']:>7}{r['wins']:>7g}{r['win_rate']:>10.1%}"
              f"{interval:>18}{per_move:>9}{opp:>12}")
    print(f"{args.playouts:,} playouts per move; targets: 60% against GnuGo level 10, 60% with priors")
    return 0


if __name__ == "__main__":
    sys.exit(main())

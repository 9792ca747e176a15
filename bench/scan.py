"""Benchmark of ``shapemill scan`` on the Tygem 9-dan corpus.

    python bench/scan.py                 # the whole corpus (86,915 games)
    python bench/scan.py --limit 5000    # the first 5,000 files only
    python bench/scan.py --json          # one JSON object instead of the table

Prints games, seconds and games/s for the full scan (read, parse, rules check,
de-duplicate, write the table) next to the reference measured in the same run
on a small sample: sgfmill's full parse (``Sgf_game.from_bytes``, main sequence,
``get_move``), the straightforward way to read SGF in Python. Also checks that
every game is accounted for (kept + duplicates + filtered + unusable).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "data" / "tygem9d"


def sample_members(corpus: Path, limit: int | None) -> list[tuple[Path, str]]:
    out = []
    for z in sorted(corpus.glob("*.zip")):
        with zipfile.ZipFile(z) as zf:
            for name in sorted(zf.namelist()):
                out.append((z, name))
                if limit is not None and len(out) >= limit:
                    return out
    return out


def write_subset(members: list[tuple[Path, str]], path: Path) -> None:
    zips: dict[Path, zipfile.ZipFile] = {}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as out:
        for z, name in members:
            src = zips.get(z) or zips.setdefault(z, zipfile.ZipFile(z))
            out.writestr(name, src.read(name))
    for zf in zips.values():
        zf.close()


def sgfmill_rate(members: list[tuple[Path, str]]) -> tuple[int, float]:
    """Games and seconds for sgfmill's full parse of ``members`` (one process)."""
    from sgfmill import sgf

    data = []
    zips: dict[Path, zipfile.ZipFile] = {}
    for z, name in members:
        src = zips.get(z) or zips.setdefault(z, zipfile.ZipFile(z))
        data.append(src.read(name))
    t = time.perf_counter()
    for b in data:
        game = sgf.Sgf_game.from_bytes(b)
        for node in game.get_main_sequence():
            node.get_move()
    return len(data), time.perf_counter() - t


def shapemill_parse_rate(members: list[tuple[Path, str]]) -> tuple[int, float]:
    """Games and seconds for shapemill's parser alone on the same sample (one process)."""
    from shapemill.datasets.sgf import parse_games

    data = []
    zips: dict[Path, zipfile.ZipFile] = {}
    for z, name in members:
        src = zips.get(z) or zips.setdefault(z, zipfile.ZipFile(z))
        data.append((name, src.read(name)))
    list(parse_games(data[0][1], "warm-up"))
    t = time.perf_counter()
    for name, b in data:
        for _ in parse_games(b, name):
            pass
    return len(data), time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--limit", type=int, default=None, help="scan only the first N files")
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: cores)")
    ap.add_argument("--sample", type=int, default=1000, help="games for the reference rates")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    if not args.corpus.exists():
        print(f"{args.corpus}: corpus not found", file=sys.stderr)
        return 1

    from shapemill.datasets.scanner import ScanOptions, _warm_up, default_workers, scan, write_tables

    workers = args.workers or default_workers()
    _warm_up()  # numba compile / cache load is not part of the rate
    with tempfile.TemporaryDirectory() as tmp:
        if args.limit is not None:
            subset = Path(tmp) / "subset.zip"
            write_subset(sample_members(args.corpus, args.limit), subset)
            paths = [subset]
        else:
            paths = [args.corpus]
        t0 = time.perf_counter()
        cpu0 = os.times()
        result = scan(paths, ScanOptions(workers=workers))
        write_tables(result, Path(tmp) / "games.parquet", Path(tmp) / "errors.parquet", {})
        seconds = time.perf_counter() - t0
        cpu1 = os.times()
    cpu = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system) + (
        cpu1.children_user - cpu0.children_user) + (cpu1.children_system - cpu0.children_system)

    sample = sample_members(args.corpus, args.sample)
    ref_games, ref_seconds = sgfmill_rate(sample)
    own_games, own_seconds = shapemill_parse_rate(sample)
    accounted = (result.kept + result.duplicates + sum(result.filtered.values())
                 + sum(result.unusable.values()))
    report = {
        "benchmark": "scan",
        "corpus": str(args.corpus),
        "limit": args.limit,
        "workers": workers,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "games_found": result.games_found,
        "games_accounted": accounted,
        "kept": result.kept,
        "duplicates": result.duplicates,
        "filtered": dict(result.filtered),
        "unusable": dict(result.unusable),
        "truncated": dict(result.truncated),
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu, 2),
        "games_per_s": round(result.games_found / seconds, 1),
        "reference_sgfmill_games": ref_games,
        "reference_sgfmill_games_per_s": round(ref_games / ref_seconds, 1),
        "shapemill_parse_1proc_games_per_s": round(own_games / own_seconds, 1),
    }
    if args.json:
        print(json.dumps(report))
    else:
        rows = [
            (f"shapemill scan ({workers} workers, all stages)", result.games_found, seconds),
            ("shapemill parse only, 1 process (sample)", own_games, own_seconds),
            ("reference: sgfmill full parse, 1 process (sample)", ref_games, ref_seconds),
        ]
        print(f"{'what':<52} {'games':>8} {'seconds':>9} {'games/s':>9}")
        for what, games, secs in rows:
            print(f"{what:<52} {games:>8,} {secs:>9.2f} {games / secs:>9,.0f}")
        print(f"accounted for: {accounted:,} of {result.games_found:,} games (kept {result.kept:,}, "
              f"duplicates {result.duplicates:,}, filtered {sum(result.filtered.values()):,}, "
              f"unusable {sum(result.unusable.values()):,}); CPU time {cpu:.1f} s")
    return 0 if accounted == result.games_found else 1


if __name__ == "__main__":
    sys.exit(main())

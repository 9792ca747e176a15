"""Benchmark of the fit out of core: accuracy, time, memory and disk against the positions fitted.

    python bench/fit_scale.py --rows 20000,100000 -j 2          # the small rows
    python bench/fit_scale.py --rows 2000000,all --state S.json  # hours: resumable
    python bench/fit_scale.py --rows 400000 --dask-sweeps 5      # + sweeps on 1 and 2 Dask workers

Each row runs ``shapemill rate`` on that many positions sampled (seed 0) from the
train games of ``--games`` (the Tygem 9-dan archives by default) with the patterns
table ``--patterns`` (the bundled one by default), in a process of its own, then
``shapemill evaluate`` of the table on the first ``--test-games`` test games, and
prints one table: positions fitted | top-1 | top-5 | log-likelihood | build wall |
fit wall (sweeps, s/sweep) | peak memory of ``rate`` | disk of the shards (bytes a
position). Finished rows are kept in ``--state`` (JSON) and not run again; a row
stopped mid-fit resumes from its work folder (``rate`` resumes from the last sweep).
``--in-memory`` adds the in-memory fit (``fit`` on one ``Teams``, as ``rate`` did
before) of the largest row, in the same run, for its peak memory. ``--dask-sweeps``
times the sweeps of the largest row on a local Dask cluster of 1 and of 2 worker
processes, in the same run (the median sweep after the first, which loads the kernels in
each new worker).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "data" / "tygem9d"


def shapemill(*args: str) -> str:
    """Run ``shapemill ARGS`` in a process of its own; its output (stops the bench on an error)."""
    done = subprocess.run([sys.executable, "-m", "shapemill.cli", *args], capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"shapemill {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def number(pattern: str, text: str) -> float:
    found = re.findall(pattern, text)
    return float(found[-1].replace(",", "")) if found else float("nan")


def run_row(args, positions: str, folder: Path) -> dict:
    """Rate on ``positions`` and evaluate: the row's figures."""
    table, work = folder / f"ratings-{positions}.parquet", folder / f"work-{positions}"
    start = time.perf_counter()
    out = shapemill("rate", args.games, "--patterns", args.patterns, "-o", str(table), "--max-positions", positions,
                    "--max-iter", str(args.max_iter), "--tol", str(args.tol), "-j", str(args.workers),
                    "--work-dir", str(work))
    wall = time.perf_counter() - start
    report = json.loads(shapemill("evaluate", args.games, "--ratings", str(table), "--split", "test",
                                  "--limit-games", str(args.test_games), "--json", "-j", str(args.workers)))
    return {
        "positions": int(number(r"([\d,]+) positions of [\d,]+ games in", out)),
        "top1": report["top1"], "top5": report["top5"], "log_likelihood": report["mean_log_likelihood"],
        "build_s": number(r"built in ([\d.]+) s", out),
        "rate_s": round(wall, 1),
        "sweeps": len(re.findall(r"^iteration", out, re.M)),
        "s_per_sweep": number(r"([\d.]+) s/iteration", out),
        "peak_mb": number(r"peak memory ([\d,]+) MB", out),
        "shard_mb": number(r"shards? \(([\d,]+) MB", out),
        "bytes_per_position": number(r"MB, ([\d,]+) bytes a position", out),
        "resumed": "resuming the fit" in out,
    }


IN_MEMORY = """
import json, resource, sys, time
from shapemill.datasets.corpus import load_corpus
from shapemill.miner.rate_command import VOCABULARY_COLUMNS
from shapemill.patterns.candidates import Vocabulary
from shapemill.miner.positions import build_teams, sample_mask
from shapemill.miner.rate import fit
from shapemill.tables import read_table
games, patterns, n, max_iter, tol, workers = sys.argv[1:]
corpus = load_corpus([games], split="train")
vocab = Vocabulary.from_patterns(read_table(patterns, "patterns", VOCABULARY_COLUMNS)[0])
t = time.perf_counter()
teams = build_teams(corpus, vocab, sample_mask(corpus, None if n == "all" else int(n), 0), workers=int(workers))
del vocab.lookup
result = fit(teams, max_iter=int(max_iter), tol=float(tol), workers=int(workers))
print(json.dumps({"rate_s": round(time.perf_counter() - t, 1), "sweeps": len(result.objective),
                  "s_per_sweep": round(result.seconds_per_iteration, 2),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

DASK_SWEEPS = """
import sys, time
from shapemill.datasets.corpus import load_corpus
from shapemill.miner.rate_command import VOCABULARY_COLUMNS
from shapemill.patterns.candidates import Vocabulary
from shapemill.miner.cluster import dask_client
from shapemill.miner.positions import sample_mask
from shapemill.miner.rate_cluster import fit_on_cluster
from shapemill.miner.team_shards import WorkFolder, identity_of
from shapemill.tables import read_table
games, patterns, n, work, sweeps = sys.argv[1:]
corpus = load_corpus([games], split="train")
vocab = Vocabulary.from_patterns(read_table(patterns, "patterns", VOCABULARY_COLUMNS)[0])
mask = sample_mask(corpus, None if n == "all" else int(n), 0)
folder = WorkFolder(work, identity_of(corpus, vocab, mask))
folder.open()
for workers in (1, 2):
    (folder.path / "fit.npz").unlink(missing_ok=True)
    with dask_client(f"local:{workers}") as client:
        seconds = []
        fit_on_cluster(client, folder, corpus, vocab, mask, int(sweeps), 0.0,
                       report=lambda it, o, ll, s: seconds.append(s))
    later = sorted(seconds[1:] or seconds)  # the first sweep loads the kernels in each new worker
    print(f"{workers} {later[len(later) // 2]:.2f}", flush=True)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=str(CORPUS))
    parser.add_argument("--patterns", default=None, help="patterns table (default: the bundled one)")
    parser.add_argument("--rows", default="20000,100000", help="comma-separated positions (or all)")
    parser.add_argument("--test-games", type=int, default=500)
    parser.add_argument("--max-iter", type=int, default=30)
    parser.add_argument("--tol", type=float, default=1e-4)
    parser.add_argument("-j", "--workers", type=int, default=2)
    parser.add_argument("--state", default="fit_scale.json", help="finished rows (JSON), for a resumed run")
    parser.add_argument("--folder", default="fit_scale", help="tables and work folders")
    parser.add_argument("--in-memory", action="store_true", help="the in-memory fit of the largest row beside")
    parser.add_argument("--dask-sweeps", type=int, default=0, metavar="N",
                        help="time N sweeps (3 or more) of the largest row on 1 and 2 local Dask workers")
    args = parser.parse_args()
    if args.patterns is None:
        from shapemill.patterns.defaults import PATTERNS, default_table

        args.patterns = default_table(PATTERNS)
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    state_path = Path(args.state)
    done = json.loads(state_path.read_text()) if state_path.exists() else {}
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    for row in rows:
        if row not in done:
            done[row] = {**run_row(args, row, folder), "date": time.strftime("%Y-%m-%d"),
                         "load": round(__import__("os").getloadavg()[0], 1)}
            state_path.write_text(json.dumps(done, indent=1))
    extra = {}
    if args.in_memory:
        out = subprocess.run([sys.executable, "-c", IN_MEMORY, args.games, args.patterns, rows[-1], str(args.max_iter),
                              str(args.tol), str(args.workers)], capture_output=True, text=True, check=True).stdout
        extra["in_memory"] = json.loads(out)
    if args.dask_sweeps:
        out = subprocess.run([sys.executable, "-c", DASK_SWEEPS, args.games, args.patterns, rows[-1],
                              str(folder / f"dask-{rows[-1]}"), str(args.dask_sweeps)],
                             capture_output=True, text=True, check=True).stdout
        extra["dask_s_per_sweep"] = {int(w): float(s) for w, s in (line.split() for line in out.split("\n") if line)}
    print(f"rate on positions sampled from the train games of {args.games}, patterns {args.patterns}; "
          f"evaluated on the first {args.test_games} test games; -j {args.workers}")
    print(f"{'positions':>10} {'top-1':>7} {'top-5':>7} {'log-lik':>8} {'build s':>8} {'rate s':>8} {'sweeps':>6} "
          f"{'s/sweep':>8} {'peak MB':>8} {'shards MB':>9} {'B/pos':>6}  run")
    for row in rows:
        r = done[row]
        print(f"{r['positions']:>10,} {r['top1']:>7.1%} {r['top5']:>7.1%} {r['log_likelihood']:>8.3f} "
              f"{r['build_s']:>8.0f} {r['rate_s']:>8.0f} {r['sweeps']:>6} {r['s_per_sweep']:>8.2f} "
              f"{r['peak_mb']:>8,.0f} {r['shard_mb']:>9,.0f} {r['bytes_per_position']:>6,.0f}  "
              f"{r['date']}, load {r['load']}{', resumed' if r['resumed'] else ''}")
    if "in_memory" in extra:
        m = extra["in_memory"]
        print(f"{'in memory':>10} {'':>7} {'':>7} {'':>8} {'':>8} {m['rate_s']:>8.0f} {m['sweeps']:>6} "
              f"{m['s_per_sweep']:>8.2f} {m['peak_mb']:>8,.0f}  (the {rows[-1]} row's fit in one process, this run)")
    if "dask_s_per_sweep" in extra:
        one, two = extra["dask_s_per_sweep"][1], extra["dask_s_per_sweep"][2]
        print(f"Dask sweeps of the {rows[-1]} row: 1 worker {one:.2f} s/sweep, 2 workers {two:.2f} s/sweep "
              f"({one / two:.2f}x), this run")
    return 0


if __name__ == "__main__":
    sys.exit(main())

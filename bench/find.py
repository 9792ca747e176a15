"""Benchmark of ``shapemill find`` on a games table (the Tygem 9-dan corpus).

    shapemill scan ../shared/data/tygem9d -o games.parquet && shapemill index games.parquet
    python bench/find.py games.parquet            # 40 fixed queries, a table per class
    python bench/find.py games.parquet --json     # one JSON object

The queries are drawn from the games themselves with a fixed seed: corner, side and
centre fragments (3 to 40 stones, regions of 4x4 to 9x9 points at moves 8 to 120),
whole-board openings (moves 8 to 16), small centre shapes searched ``--anywhere``,
and mined pattern ids of the bundled patterns table (rings 3 to 6, 2 stones or more).
Each query runs three times on the loaded index; the median of its three times
counts. Prints, per class, the median and worst of those, the hits and the games;
also the index's build time, size and peak memory (``shapemill index`` in a fresh
process), and a fresh ``shapemill find`` process's wall time (the best of five, the
median over three corner queries). When ``libkombilo``
is importable (the ``kombilo`` 0.8.4 source package, built outside the repository and
put on ``PYTHONPATH``: its ``kombilo/`` folder holds ``libkombilo.py``),
the fixed-region queries also run there on the same games, and its times, hits and
games are printed beside ours.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
from sgfmill import boards

from shapemill.find import Filters, find, load_index
from shapemill.find.fragment import query_from_pattern
from shapemill.find.query import Query, edge_offs
from shapemill.patterns.defaults import PATTERNS, default_table
from shapemill.tables import read_table

SEED = 30
#: Queries per class.
PER_CLASS = {"corner": 8, "side": 8, "centre": 8, "opening": 6, "anywhere": 5, "pattern": 5}
REPEATS = 3
#: Fresh ``shapemill find`` processes per query; the best counts (the machine is shared).
FRESH_RUNS = 5


def position(index, g: int, t: int) -> np.ndarray:
    """The board (colours, [y, x]) of game ``g`` after ``t`` moves, by sgfmill."""
    size = index.size
    board = boards.Board(size)
    color = "b" if index.first_color[g] == 1 else "w"
    for x in index.moves[index.offsets[g] : index.offsets[g] + t].tolist():
        if x >= 0:
            board.play(x // size, x % size, color)
        color = "w" if color == "b" else "b"
    grid = np.zeros((size, size), dtype=np.int8)
    for c, (row, col) in board.list_occupied_points():
        grid[row, col] = 1 if c == "b" else 2
    return grid


def draw(index, kind: str, rng: random.Random) -> Query:
    """A fragment of a real position of the ``kind`` class."""
    n = index.size
    while True:
        g = rng.randrange(len(index))
        length = int(index.offsets[g + 1] - index.offsets[g])
        if kind == "opening":
            t = rng.randint(8, 16)
            x0 = y0 = 0
            w = h = n
        else:
            t = rng.randint(8, 120)
            w, h = rng.randint(4, 9), rng.randint(4, 9)
            if kind in ("centre", "anywhere"):
                w, h = (min(w, 5), min(h, 5)) if kind == "anywhere" else (w, h)
                x0, y0 = rng.randrange(1, n - w), rng.randrange(1, n - h)
            elif kind == "corner":
                x0, y0 = rng.choice([0, n - w]), rng.choice([0, n - h])
            else:
                x0, y0 = (0, rng.randrange(1, n - h)) if rng.random() < 0.5 else (rng.randrange(1, n - w), 0)
        if t > length:
            continue
        grid = position(index, g, t)
        pts = np.array([(x, y) for y in range(y0, y0 + h) for x in range(x0, x0 + w)], dtype=np.int64)
        colors = grid[pts[:, 1], pts[:, 0]]
        stones = int(np.count_nonzero(colors))
        if 3 <= stones <= 40 and (kind != "anywhere" or stones <= 8):
            return Query(n, pts, colors, off=edge_offs(pts, n), anywhere=kind == "anywhere",
                         source=f"{kind} game {g} move {t}")


def pattern_queries(rng: random.Random, k: int) -> list[Query]:
    table = default_table(PATTERNS)
    data, _ = read_table(table, "patterns", columns=["feature", "pattern_id", "size", "key"])
    data = data.filter(pc.and_(pc.equal(data["feature"], "pattern"),
                               pc.and_(pc.greater_equal(data["size"], 3), pc.less_equal(data["size"], 6))))
    out = []
    while len(out) < k:
        i = rng.randrange(data.num_rows)
        try:
            q = query_from_pattern(f"{data['pattern_id'][i].as_py()}", table)
        except Exception:  # a shape with no stones
            continue
        if q.stones >= 2:
            out.append(q)
    return out


def timed(indexes, q: Query) -> tuple[float, int, int]:
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        r = find(indexes, q, Filters())
        times.append(time.perf_counter() - t0)
    return statistics.median(times), r.hits.num_rows, r.n_games


def fresh_process(games: str, q: Query) -> float:
    """Wall seconds of ``shapemill find GAMES --sgf F`` in a fresh process, the best of ``FRESH_RUNS``."""
    with tempfile.TemporaryDirectory() as d:
        frag = Path(d) / "q.sgf"
        letters = "abcdefghijklmnopqrs"
        ab = "".join(f"[{letters[x]}{letters[q.size - 1 - y]}]" for (x, y), c in zip(q.points, q.colors) if c == 1)
        aw = "".join(f"[{letters[x]}{letters[q.size - 1 - y]}]" for (x, y), c in zip(q.points, q.colors) if c == 2)
        frag.write_text(f"(;GM[1]FF[4]SZ[{q.size}]" + (f"AB{ab}" if ab else "") + (f"AW{aw}" if aw else "") + ")")
        x0, y0, x1, y1 = q.box()
        cols = "ABCDEFGHJKLMNOPQRST"
        times = []
        for _ in range(FRESH_RUNS):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "shapemill.cli", "find", games, "--sgf", str(frag), "--region",
                            f"{cols[x0]}{y0 + 1}:{cols[x1]}{y1 + 1}"], check=True, capture_output=True)
            times.append(time.perf_counter() - t0)
        return min(times)


def index_build(games: str) -> dict:
    """Build the index afresh in a child process: seconds, MB, peak RSS MB."""
    with tempfile.TemporaryDirectory() as d:
        table = Path(d) / "games.parquet"
        table.symlink_to(Path(games).resolve())
        t0 = time.perf_counter()
        out = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-m", "shapemill.cli", "index", "-q",
                              str(table)], check=True, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        size = Path(str(table) + ".findex").stat().st_size
        return {"seconds": round(seconds, 1), "mb": round(size / 1e6), "peak_mb": round(int(out.stderr.split()[-1]) / 1e3)}


def kombilo_db(games: str, folder: str):
    """A libkombilo database of the table's games (read from their sources), with
    the seconds it took; None when libkombilo is not importable."""
    try:
        import libkombilo as lk
    except ImportError:
        return None, None
    import zipfile

    sources = pq.read_table(games, columns=["source"]).column("source").to_pylist()
    pop = lk.ProcessOptions()
    pop.rootNodeTags = "PW,PB,RE,DT"
    pop.sgfInDB = False
    pop.algos = lk.ALGO_FINALPOS | lk.ALGO_MOVELIST | lk.ALGO_HASH_FULL | lk.ALGO_HASH_CORNER
    t0 = time.perf_counter()
    gl = lk.GameList(str(Path(folder) / "kombilo.db"), "DATE", "[[id]],,,", pop, 19, 500)
    gl.start_processing()
    archives: dict[str, zipfile.ZipFile] = {}
    for source in sources:
        path, _, member = source.partition("!")
        if member:
            z = archives.setdefault(path, zipfile.ZipFile(path))
            data = z.read(member)
        else:
            data = Path(path.split("#")[0]).read_bytes()
        gl.process(data.decode("utf-8", "replace"), "p", member or path, lk.vectorGL(), "", lk.CHECK_FOR_DUPLICATES)
    gl.finalize_processing()
    return (lk, gl), time.perf_counter() - t0


def kombilo_search(db, q: Query) -> tuple[float, int, int] | None:
    """The query in libkombilo (a rectangle, anchored where it is, or anywhere it
    fits with its edges kept): median seconds, hits, games."""
    lk, gl = db
    x0, y0, x1, y1 = q.box()
    w, h = x1 - x0 + 1, y1 - y0 + 1
    if len(q.points) != w * h:
        return None
    cells = {(int(x), int(y)): int(c) for (x, y), c in zip(q.points, q.colors)}
    ipos = "".join(".XO"[cells[(x, y)]] for y in range(y1, y0 - 1, -1) for x in range(x0, x1 + 1))
    top = q.size - 1 - y1
    if q.anywhere:
        pin_x, pin_y = x0 == 0 or x1 == q.size - 1, y0 == 0 or y1 == q.size - 1
        left, right = (x0, x0) if pin_x else (0, q.size - w)
        upper, lower = (top, top) if pin_y else (0, q.size - h)
    else:
        left, right, upper, lower = x0, x0, top, top
    times = []
    for _ in range(REPEATS):
        p = lk.Pattern(left, right, upper, lower, q.size, w, h, ipos, lk.vectorMNC())
        so = lk.SearchOptions(0, 0, 10000)
        so.searchInVariations = False
        t0 = time.perf_counter()
        gl.search(p, so)
        times.append(time.perf_counter() - t0)
        hits, games = gl.num_hits, gl.size()
        gl.reset()
    return statistics.median(times), hits, games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("games", help="a games table with its index (shapemill index)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-build", action="store_true", help="skip the index build measurement")
    ap.add_argument("--no-kombilo", action="store_true", help="skip libkombilo even when it is importable")
    args = ap.parse_args()
    index = load_index(args.games)
    if index is None:
        sys.exit(f"{args.games}: no index; run `shapemill index {args.games}` first")
    rng = random.Random(SEED)
    queries = {kind: [draw(index, kind, rng) for _ in range(k)] for kind, k in PER_CLASS.items() if kind != "pattern"}
    queries["pattern"] = pattern_queries(rng, PER_CLASS["pattern"])
    find([index], queries["corner"][0])  # the first call maps the index's pages
    rows, detail = {}, []
    for kind, qs in queries.items():
        res = [timed([index], q) for q in qs]
        for q, (s, h, g) in zip(qs, res):
            detail.append({"class": kind, "query": q.source, "stones": q.stones, "region": q.region_text(),
                           "ms": round(s * 1e3, 2), "hits": h, "games": g})
        ms = [s * 1e3 for s, _, _ in res]
        rows[kind] = {"queries": len(qs), "median_ms": round(statistics.median(ms), 2), "worst_ms": round(max(ms), 2),
                      "hits": sum(h for _, h, _ in res), "games": sum(g for _, _, g in res)}
    with tempfile.TemporaryDirectory() as folder:
        kdb, kbuild = (None, None) if args.no_kombilo else kombilo_db(args.games, folder)
        if kdb is not None:
            k = 0
            for kind, qs in queries.items():
                for q in qs:
                    if kind != "pattern":
                        found = kombilo_search(kdb, q)
                        if found is not None:
                            detail[k]["kombilo"] = {"ms": round(found[0] * 1e3, 2), "hits": found[1], "games": found[2]}
                    k += 1
    fixed = [d["ms"] for d in detail if d["class"] in ("corner", "side", "centre", "opening")]
    summary = {
        "games": len(index), "classes": rows,
        "fixed_median_ms": round(statistics.median(fixed), 2), "fixed_worst_ms": round(max(fixed), 2),
        "fresh_process_s": round(statistics.median(fresh_process(args.games, queries["corner"][i]) for i in range(3)), 2),
        "index": None if args.no_build else index_build(args.games),
        "kombilo": None if kbuild is None else _kombilo_summary(detail, kbuild),
        "queries": detail,
    }
    if args.json:
        print(json.dumps(summary))
        return
    print(f"{len(index):,} games; {sum(PER_CLASS.values())} queries, median of {REPEATS} runs each")
    print(f"{'class':<10}{'queries':>8}{'median ms':>11}{'worst ms':>10}{'hits':>10}{'games':>10}")
    for kind, r in rows.items():
        print(f"{kind:<10}{r['queries']:>8}{r['median_ms']:>11}{r['worst_ms']:>10}{r['hits']:>10,}{r['games']:>10,}")
    print(f"fixed regions (corner, side, centre, opening): median {summary['fixed_median_ms']} ms, "
          f"worst {summary['fixed_worst_ms']} ms")
    print(f"fresh `shapemill find` process: {summary['fresh_process_s']} s")
    if summary["index"]:
        i = summary["index"]
        print(f"index build: {i['seconds']} s, {i['mb']} MB on disk, peak {i['peak_mb']} MB")
    if summary["kombilo"]:
        k = summary["kombilo"]
        anywhere = "" if k["anywhere_median_ms"] is None else f", anywhere median {k['anywhere_median_ms']} ms"
        print(f"libkombilo, same games and queries: database built in {k['build_s']} s; {k['compared']} queries: "
              f"fixed median {k['fixed_median_ms']} ms, worst {k['fixed_worst_ms']} ms{anywhere}; "
              f"same hits and games on {k['same']} of {k['compared']}")
        for d in detail:
            if "kombilo" in d and (d["kombilo"]["hits"], d["kombilo"]["games"]) != (d["hits"], d["games"]):
                print(f"  differs: {d['query']} ({d['region']}): ours {d['hits']} hits / {d['games']} games, "
                      f"libkombilo {d['kombilo']['hits']} / {d['kombilo']['games']}")


def _kombilo_summary(detail: list[dict], build_s: float) -> dict:
    both = [d for d in detail if "kombilo" in d]
    fixed = [d["kombilo"]["ms"] for d in both if d["class"] != "anywhere"]
    anywhere = [d["kombilo"]["ms"] for d in both if d["class"] == "anywhere"]
    return {
        "build_s": round(build_s, 1), "compared": len(both),
        "same": sum((d["kombilo"]["hits"], d["kombilo"]["games"]) == (d["hits"], d["games"]) for d in both),
        "fixed_median_ms": round(statistics.median(fixed), 2) if fixed else None,
        "fixed_worst_ms": round(max(fixed), 2) if fixed else None,
        "anywhere_median_ms": round(statistics.median(anywhere), 2) if anywhere else None,
    }


if __name__ == "__main__":
    main()

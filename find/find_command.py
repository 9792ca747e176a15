"""``shapemill find`` and ``shapemill index``: pattern search over games, and its index."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import ShapemillError, UsageError
from ..files import atomic_paths, check_writable, output_errors
from ..progress import progress_bar, ticker
from ..tables import TableError, table_files
from .fragment import query_from_pattern, query_from_sgf
from .index import GameIndex, build_index, index_in_memory, index_path, load_index, table_games, write_index
from .query import Query
from .report import Summary, sgf_collection, svg, text, write_hits
from .search import LAST_MOVE, Filters, continuation_table, find, top_games


@dataclass
class FindOptions:
    """What ``shapemill find`` was asked, beside its games."""

    sgf: str | None = None
    region: str | None = None
    pattern_id: str | None = None
    patterns: str | None = None
    anywhere: bool = False
    symmetry: bool = True
    swap: bool = True
    next: str = "any"
    moves: str | None = None
    filters: Filters | None = None
    top: int = 20
    games: int = 0
    as_json: bool = False
    output: str | None = None
    svg: str | None = None
    sgf_out: str | None = None
    save_index: bool = True  # a table without an index gets one saved beside it
    quiet: bool = False  # no progress bar nor note of an index built


def _games_tables(path: str) -> list[Path]:
    """The games table files ``path`` stands for (none for SGF input); one line when
    it does not exist or is a table of another kind."""
    if not Path(path).exists():
        raise ShapemillError(f"{path}: no such file or folder")
    try:
        return table_files(path)
    except TableError as exc:
        raise ShapemillError(str(exc)) from None


def load_indexes(paths: list[str], quiet: bool = True, save: bool = True) -> list[GameIndex]:
    """An index for every games table among ``paths`` (saved ones when fresh, else
    built now: ``build_missing``) and one for all SGF input together, built now."""
    indexes, sgf_paths, why = [], [], ""
    for p in paths:
        files = _games_tables(p)
        if not files:
            sgf_paths.append(p)
        for f in files:
            index = load_index(f)
            indexes.append(index if index is not None else build_missing(f, quiet, save))
    if sgf_paths:
        from ..datasets.scanner import ScanOptions, games_table, scan  # numba: SGF input only
        from ..datasets.sources import InputError

        try:
            # SGF input is read whole: every board size, however short the game
            result = scan(sgf_paths, ScanOptions(size=0, min_moves=0))
        except InputError as exc:
            raise ShapemillError(str(exc)) from None
        if result.games:
            indexes.append(build_index(games_table(result.games)))
        elif result.errors:
            why = f" ({result.errors[0].source}: {result.errors[0].reason})"
    indexes = [index for index in indexes if len(index)]
    if not indexes:  # an empty folder, a file or archive of no SGF game, a table of none
        raise ShapemillError(f"{' '.join(paths)}: no game to search{why}")
    return indexes


def build_missing(table: Path, quiet: bool, save: bool) -> GameIndex:
    """The index of a games table that has no fresh one, built now: saved beside it as
    ``shapemill index`` saves it (atomically), so that later searches load it, when
    ``save`` and the folder takes it; else in memory only. Says which on standard
    error unless ``quiet``; a progress bar of the games on a terminal."""
    def say(line: str) -> None:
        if not quiet:
            print(line, file=sys.stderr)

    if save:
        bar = progress_bar(quiet, table_games(table), "game", "index")
        try:
            out, n = write_index(table, ticker(bar))
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            say(f"{table}: no index, and none can be saved beside it ({reason}): built one in memory only")
        else:
            found = load_index(table)
            if found is not None:
                say(f"{table}: no index; built and saved {out} ({n:,} games), which later searches load")
                return found
        finally:
            if bar is not None:
                bar.close()
    else:
        say(f"{table}: no index, built one in memory (`shapemill index {table}` saves it)")
    return index_in_memory(table)


def parse_moves(text: str | None) -> tuple[int, int]:
    """``FROM:TO`` (either side may be left out) as the move numbers kept."""
    if text is None:
        return 0, LAST_MOVE
    parts = text.split(":")
    try:
        if len(parts) != 2:
            raise ValueError
        lo = int(parts[0]) if parts[0].strip() else 0
        hi = int(parts[1]) if parts[1].strip() else LAST_MOVE
    except ValueError:
        raise UsageError(f"--moves: {text!r} is not FROM:TO (move numbers)") from None
    if lo < 0 or hi < lo:
        raise UsageError(f"--moves: {text!r} is an empty range (FROM is after TO)")
    return lo, min(hi, LAST_MOVE)


def make_query(opt: FindOptions) -> Query:
    """The query ``opt`` describes."""
    switches = {"symmetry": opt.symmetry, "swap": opt.swap, "anywhere": opt.anywhere,
                "next": {"any": 0, "b": 1, "w": 2}[opt.next]}
    if opt.pattern_id is not None:
        return query_from_pattern(opt.pattern_id, opt.patterns, **switches)
    return query_from_sgf(opt.sgf, opt.region, **switches)


def run_find(paths: list[str], opt: FindOptions) -> None:
    """The body of ``shapemill find``: every output checked before the search,
    written atomically after it; bad input is one line and nothing is written."""
    t0 = time.perf_counter()
    for out in (opt.output, opt.svg, opt.sgf_out):
        if out is not None:
            with output_errors(out):
                check_writable(out)
    q = make_query(opt)
    filters = opt.filters or Filters()
    filters.moves = parse_moves(opt.moves)
    indexes = load_indexes(paths, quiet=opt.as_json or opt.quiet, save=opt.save_index)
    t1 = time.perf_counter()
    result = find(indexes, q, filters)
    summary = Summary(result, continuation_table(result), top_games(result, opt.games),
                      sum(len(i) for i in indexes), time.perf_counter() - t1)
    params = {"paths": [str(p) for p in paths], "query": opt.sgf or opt.pattern_id, "region": q.region_text(),
              "symmetry": q.symmetry, "color_swap": q.swap, "anywhere": q.anywhere, "next": opt.next,
              "moves": opt.moves, **{k: v for k, v in vars(filters).items() if k != "moves"}}
    writers = {opt.output: lambda tmp: write_hits(result, tmp, params),
               opt.svg: lambda tmp: tmp.write_text(svg(q, summary.continuations, opt.top), encoding="utf-8"),
               opt.sgf_out: lambda tmp: tmp.write_text(sgf_collection(result, indexes), encoding="utf-8")}
    writers = {path: write for path, write in writers.items() if path}
    # all written, then all renamed: Ctrl-C or a full disk leaves every previous output
    with output_errors(" and ".join(writers)), atomic_paths(*writers) as temps:
        for (path, write), tmp in zip(writers.items(), temps):
            with output_errors(path):
                write(tmp)
    if opt.as_json:
        print(json.dumps(summary.as_dict(), ensure_ascii=False, allow_nan=False))
    else:
        print(text(summary, opt.top))
        print(f"({time.perf_counter() - t0:.2f} s in all, loading included)", file=sys.stderr)


def run_index(paths: list[str], quiet: bool = False) -> None:
    """The body of ``shapemill index``: save the index beside each games table
    (each part of a dataset) that has none or a stale one."""
    for p in paths:
        files = _games_tables(p)
        if not files:
            raise ShapemillError(f"{p}: not a games table (run `shapemill scan` first; find reads SGF directly)")
        for f in files:
            t0 = time.perf_counter()
            if load_index(f) is not None:
                if not quiet:
                    print(f"{index_path(f)}: up to date", file=sys.stderr)
                continue
            bar = progress_bar(quiet, table_games(f), "game", "index")
            try:
                with output_errors(index_path(f)):
                    out, n = write_index(f, ticker(bar))
            except TableError as exc:
                raise ShapemillError(str(exc)) from None
            finally:
                if bar is not None:
                    bar.close()
            if not quiet:
                mb = out.stat().st_size / 1e6
                print(f"{out}: {n:,} games, {mb:.0f} MB in {time.perf_counter() - t0:.1f} s", file=sys.stderr)

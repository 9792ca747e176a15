"""The ``scan`` stage: SGF files / folders / archives -> the games table.

:func:`read_games` is the library view (every readable game, in order);
:func:`scan` adds what a training corpus needs -- filters, de-duplication, the
train/test split -- and :func:`write_tables` writes the games and errors tables
(the games table as one file, or as a partitioned dataset of part files).

Parsing runs in worker processes (``workers``), a batch of files or archive
members at a time; results are merged in input order, so the output does not
depend on the number of workers.
"""

from __future__ import annotations

import hashlib
import multiprocessing as mp
import os
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..go.rules import replay_check
from ..workers import Watch, stop, worker_pool
from .records import SKIP_REASONS, TRUNCATING_REASONS, GameRecord, ScanError, game_id, split_of
from .sgf import parse_games
from .sources import DEFAULT_MAX_BYTES, Batch, InputError, plan, read_items

__all__ = [
    "read_games",
    "scan",
    "ScanOptions",
    "ScanResult",
    "games_table",
    "errors_table",
    "write_tables",
    "write_games_dataset",
    "InputError",
    "DEFAULT_MIN_MOVES",
    "DEFAULT_TEST_FRACTION",
]

DEFAULT_MIN_MOVES = 10
DEFAULT_TEST_FRACTION = 0.1

FileResult = list[tuple[GameRecord | None, list[ScanError]]]


def _internal(source: str, exc: BaseException) -> ScanError:
    msg = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
    return ScanError(source, "parse-error", f"parse-error: unexpected failure ({msg})")


def run_batch(batch: Batch, max_bytes: int, test_fraction: float) -> tuple[list[ScanError], list[FileResult]]:
    """Read and parse every file of a batch (runs in a worker process)."""
    results: list[FileResult] = []
    for display, data in read_items(batch, max_bytes):
        if isinstance(data, ScanError):
            results.append([(None, [data])])
            continue
        games: FileResult = []
        try:
            for rec, errs in parse_games(data, display):
                if rec is not None:
                    rec.id = game_id(rec.content_digest())
                    rec.split = split_of(rec.id, test_fraction)
                games.append((rec, errs))
        except Exception as exc:  # never let one file stop the scan
            games.append((None, [_internal(display, exc)]))
        results.append(games)
    return batch.skipped, results


def _warm_up() -> None:
    """Compile (or load) the numba rules check once, before workers fork."""
    e = np.zeros(0, dtype=np.int16)
    replay_check(19, e, e, np.array([72], dtype=np.int16), 1)


def iter_results(
    paths: Iterable[str | os.PathLike],
    *,
    workers: int = 1,
    max_bytes: int = DEFAULT_MAX_BYTES,
    test_fraction: float = DEFAULT_TEST_FRACTION,
) -> Iterator[tuple[list[ScanError], list[FileResult]]]:
    """(skipped files, per-file results) per batch, in input order.

    Raises :class:`InputError` before any work when a PATH does not exist, and
    :class:`~shapemill.workers.WorkerDied` when a worker process dies (killed, out
    of memory), whose files would be missing.
    """
    batches = plan(list(paths), max_bytes)
    head: list[Batch] = []
    for b in batches:  # InputError surfaces here
        head.append(b)
        if len(head) == 2:
            break
    if workers <= 1 or len(head) < 2:
        try:
            for b in head:
                yield run_batch(b, max_bytes, test_fraction)
            for b in batches:
                yield run_batch(b, max_bytes, test_fraction)
        finally:
            from .sources import _OPEN_ZIPS

            for zf in _OPEN_ZIPS.values():
                zf.close()
            _OPEN_ZIPS.clear()
        return
    _warm_up()
    methods = mp.get_all_start_methods()
    ctx = mp.get_context("fork" if "fork" in methods else None)
    pool = worker_pool(ctx, workers)
    watch = Watch(pool)
    try:
        pending: deque = deque()

        def all_batches() -> Iterator[Batch]:
            yield from head
            yield from batches

        for b in all_batches():
            pending.append(pool.apply_async(run_batch, (b, max_bytes, test_fraction)))
            while len(pending) > 2 * workers:
                yield watch.get(pending.popleft())
        while pending:
            yield watch.get(pending.popleft())
        pool.close()
    finally:
        stop(pool)


def read_games(
    paths: str | os.PathLike | Iterable[str | os.PathLike],
    *,
    on_error: Callable[[ScanError], Any] | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    test_fraction: float = DEFAULT_TEST_FRACTION,
    workers: int = 1,
) -> Iterator[GameRecord]:
    """Every game that can be read from ``paths``, as :class:`GameRecord`, in order.

    ``paths``: SGF files (collections too), folders (recursive), zip and tar
    (``.tar``, ``.tar.gz``, ``.tar.bz2``, ``.tar.xz``) archives, in any mix.
    Only the main line of each game is read. Nothing is filtered or
    de-duplicated (:func:`scan` does that).

    Problems never stop the reading: each one is passed to ``on_error`` as a
    :class:`ScanError` (and otherwise ignored). A game cut short by an illegal
    or malformed move is yielded with the moves before it, and reported.
    A PATH that does not exist raises :class:`InputError` at once.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    for skipped, results in iter_results(
        paths, workers=workers, max_bytes=max_bytes, test_fraction=test_fraction
    ):
        if on_error is not None:
            for err in skipped:
                on_error(err)
        for games in results:
            for rec, errs in games:
                if on_error is not None:
                    for err in errs:
                        on_error(err)
                if rec is not None:
                    yield rec


@dataclass
class ScanOptions:
    """What :func:`scan` keeps. ``size`` 0 keeps every board size."""

    size: int = 19
    no_handicap: bool = False
    min_moves: int = DEFAULT_MIN_MOVES
    test_fraction: float = DEFAULT_TEST_FRACTION
    max_bytes: int = DEFAULT_MAX_BYTES
    workers: int = 1


def games_fingerprint(games: Iterable[GameRecord]) -> str:
    """Hash of the games' ids (which hash their moves), order-independent."""
    h = hashlib.blake2b(digest_size=16, person=b"shapemill-games")
    for gid in sorted(g.id for g in games):
        h.update(gid.encode())
    return h.hexdigest()


@dataclass
class ScanResult:
    """The kept games, every error, and the counts of the summary.

    The counts obey ``games_found == kept + duplicates + sum(filtered) +
    sum(unusable)``: a file or archive that cannot be read at all counts as one
    unusable game. ``truncated`` counts games cut short at an illegal or bad
    move; they are *also* in kept, duplicates or filtered (their usable moves
    are kept). ``skipped`` files (not SGF) are not games.
    """

    games: list[GameRecord] = field(default_factory=list)
    errors: list[ScanError] = field(default_factory=list)
    files_read: int = 0
    skipped: int = 0
    games_found: int = 0
    duplicates: int = 0
    filtered: Counter = field(default_factory=Counter)
    unusable: Counter = field(default_factory=Counter)
    truncated: Counter = field(default_factory=Counter)
    truncated_kept: int = 0

    @property
    def kept(self) -> int:
        return len(self.games)

    def fingerprint(self) -> str:
        """Hash of the kept games' ids (which hash their moves), order-independent."""
        return games_fingerprint(self.games)

    def summary_lines(self) -> list[str]:
        def by(c: Counter) -> str:
            return ", ".join(f"{k} {v:,}" for k, v in sorted(c.items())) or "none"

        n_filtered = sum(self.filtered.values())
        n_unusable = sum(self.unusable.values())
        lines = [
            f"files read: {self.files_read:,}; skipped (not SGF): {self.skipped:,}",
            f"games found: {self.games_found:,} = kept {self.kept:,} + duplicates "
            f"{self.duplicates:,} + filtered {n_filtered:,} + unusable {n_unusable:,}",
            f"  filtered: {by(self.filtered)}",
            f"  unusable (no game could be read; an unreadable file counts as one): {by(self.unusable)}",
            f"cut short at a faulty move, usable moves kept: {sum(self.truncated.values()):,} "
            f"({by(self.truncated)}); {self.truncated_kept:,} of them among the kept games",
            f"errors: {len(self.errors):,} = unusable {n_unusable:,} + cut short "
            f"{sum(self.truncated.values()):,} + skipped {self.skipped:,}",
        ]
        return lines


def scan(
    paths: Iterable[str | os.PathLike],
    options: ScanOptions | None = None,
    progress: Callable[[int, int], Any] | None = None,
) -> ScanResult:
    """Read ``paths``, filter, de-duplicate and split the games.

    Order of decisions per game: unusable -> filters (board size, handicap,
    fewer than ``min_moves`` moves) -> duplicate (same board size, first colour,
    setup stones and moves as a game kept before it) -> kept. ``progress`` is
    called with (files read, games kept) after every batch.
    """
    opt = options or ScanOptions()
    res = ScanResult()
    seen: set[str] = set()
    for skipped, results in iter_results(
        paths, workers=opt.workers, max_bytes=opt.max_bytes, test_fraction=opt.test_fraction
    ):
        for err in skipped:  # not SGF (skipped), or a folder or special file that cannot be read
            if err.kind in SKIP_REASONS:
                res.skipped += 1
            else:
                res.unusable[err.kind] += 1
        res.errors.extend(skipped)
        for games in results:
            if len(games) == 1 and games[0][0] is None and games[0][1] and games[0][1][0].kind in SKIP_REASONS:
                res.skipped += 1
                res.errors.extend(games[0][1])
                continue
            res.files_read += 1
            for rec, errs in games:
                res.games_found += 1
                res.errors.extend(errs)
                if rec is None:
                    res.unusable[errs[0].kind if errs else "parse-error"] += 1
                    continue
                cut = [e.kind for e in errs if e.kind in TRUNCATING_REASONS]
                if cut:
                    res.truncated[cut[0]] += 1
                if opt.size and rec.board_size != opt.size:
                    res.filtered["board-size"] += 1
                elif opt.no_handicap and rec.handicap > 0:
                    res.filtered["handicap"] += 1
                elif rec.n_moves < opt.min_moves:
                    res.filtered["too-short"] += 1
                elif rec.id in seen:
                    res.duplicates += 1
                else:
                    seen.add(rec.id)
                    res.games.append(rec)
                    if cut:
                        res.truncated_kept += 1
        if progress is not None:
            progress(res.files_read + res.skipped, res.kept)
    return res


# ---------------------------------------------------------------- tables


def _list_column(arrays: list[np.ndarray]):
    import pyarrow as pa

    lengths = np.fromiter((len(a) for a in arrays), dtype=np.int64, count=len(arrays))
    offsets = np.zeros(len(arrays) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    values = np.concatenate(arrays).astype(np.int16) if arrays else np.zeros(0, np.int16)
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(values, pa.int16()))


def games_table(games: list[GameRecord]):
    """The games table (pyarrow) of ``games``."""
    import pyarrow as pa

    def col(name: str, typ) -> Any:
        return pa.array([getattr(g, name) for g in games], typ)

    columns = {
        "id": col("id", pa.string()),
        "source": col("source", pa.string()),
        "board_size": col("board_size", pa.int16()),
        "komi": col("komi", pa.float32()),
        "handicap": col("handicap", pa.int8()),
        "rules": col("rules", pa.string()),
        "result": col("result", pa.string()),
        "winner": col("winner", pa.string()),
        "black": col("black", pa.string()),
        "white": col("white", pa.string()),
        "black_rank": col("black_rank", pa.string()),
        "white_rank": col("white_rank", pa.string()),
        "date": col("date", pa.string()),
        "n_moves": pa.array([g.n_moves for g in games], pa.int32()),
        "moves": _list_column([g.moves for g in games]),
        "first_color": col("first_color", pa.string()),
        "setup_black": _list_column([g.setup_black for g in games]),
        "setup_white": _list_column([g.setup_white for g in games]),
        "split": col("split", pa.string()),
    }
    return pa.table(columns)


def errors_table(errors: list[ScanError]):
    """The errors table (pyarrow): source, kind, reason (one line)."""
    import pyarrow as pa

    return pa.table({
        "source": pa.array([e.source for e in errors], pa.string()),
        "kind": pa.array([e.kind for e in errors], pa.string()),
        "reason": pa.array([" ".join(e.reason.split()) for e in errors], pa.string()),
    })


def write_tables(
    result: ScanResult,
    games_path: str | os.PathLike,
    errors_path: str | os.PathLike | None = None,
    params: dict[str, Any] | None = None,
    partition_size: int | None = None,
) -> None:
    """Write the games table (and the errors table) atomically and together (a failure
    replaces neither), with metadata; with
    ``partition_size``, the games table as a partitioned dataset (the folder ``games_path``)."""
    from ..tables import table_metadata, write_tables

    fp = result.fingerprint()
    errors = [] if errors_path is None else [
        (errors_table(result.errors), errors_path, table_metadata("errors", fingerprint=fp, params=params))]
    if partition_size is None:
        write_tables([(games_table(result.games), games_path, table_metadata("games", fingerprint=fp, params=params)),
                      *errors])
    else:
        write_tables(errors, lambda: write_games_dataset(result.games, games_path, partition_size, params))


def write_games_dataset(
    games: list[GameRecord], folder: str | os.PathLike, partition_size: int, params: dict[str, Any] | None = None
) -> None:
    """Write ``games`` as a partitioned games dataset: part files of ``partition_size``
    consecutive games (at least one part), each a games table with its own
    fingerprint; the marker holds the fingerprint of them all."""
    from ..tables import table_metadata, write_dataset

    chunks = [games[i : i + partition_size] for i in range(0, len(games), partition_size)] or [[]]
    parts = (
        (games_table(chunk), table_metadata(
            "games", fingerprint=games_fingerprint(chunk), params={**(params or {}), "part": k, "parts": len(chunks)}
        ))
        for k, chunk in enumerate(chunks)
    )
    write_dataset(parts, folder, table_metadata("games", fingerprint=games_fingerprint(games), params=params))


def default_workers() -> int:
    """Worker processes when none are asked for: the CPU cores this process may use, at most 8."""
    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(n, 8))

"""``shapemill scan``: SGF archives in, the games (and errors) table out, with a summary."""

from __future__ import annotations

import sys
import time

from ..errors import ShapemillError
from ..files import check_writable
from ..progress import progress_bar
from ..tables import TableError, check_dataset_output
from ..workers import WorkerDied
from .scanner import ScanOptions, ScanResult, default_workers, scan, write_tables
from .sources import InputError


def _check_outputs(output: str, errors_path: str | None, partition_size: int | None) -> None:
    """Raise ShapemillError, before any work, for an output that cannot be written."""
    for out in (output, errors_path):
        if out is None:
            continue
        try:
            check_writable(out, folder=out is output and partition_size is not None)
        except OSError as exc:
            raise ShapemillError(f"cannot write {out}: {exc.strerror or exc}") from None
    if partition_size is not None:
        try:
            check_dataset_output(output)
        except TableError as exc:
            raise ShapemillError(f"cannot write {exc}") from None


def _parameters(paths: tuple[str, ...], opt: ScanOptions, partition_size: int | None) -> dict:
    """The scan's settings, kept in the games table's metadata."""
    return {
        "paths": [str(p) for p in paths],
        "size": opt.size,
        "no_handicap": opt.no_handicap,
        "min_moves": opt.min_moves,
        "test_fraction": opt.test_fraction,
        "max_member_bytes": opt.max_bytes,
        **({"partition_size": partition_size} if partition_size is not None else {}),
    }


def _progress_bar(quiet: bool) -> tuple:
    """A tqdm bar of the files read on a terminal (None otherwise) and the progress
    callback that moves it."""
    bar = progress_bar(quiet, None, " files", "scan", mininterval=0.5)

    def progress(files: int, kept: int) -> None:
        if bar is not None:
            bar.update(files - bar.n)
            bar.set_postfix(kept=kept, refresh=False)

    return bar, progress


def run_scan(
    paths: tuple[str, ...],
    output: str,
    errors_path: str | None,
    *,
    size: int,
    no_handicap: bool,
    min_moves: int,
    test_fraction: float,
    max_bytes: int,
    workers: int | None,
    quiet: bool,
    partition_size: int | None = None,
) -> None:
    """The body of ``shapemill scan``.

    Problems with the command itself (a PATH that does not exist, an output that
    cannot be written, a dead worker process) raise a one-line
    :class:`ShapemillError`; Ctrl-C raises ``KeyboardInterrupt`` as in every
    command. Either way no table is written and existing files are untouched.
    """
    t0 = time.perf_counter()
    _check_outputs(output, errors_path, partition_size)
    opt = ScanOptions(
        size=size, no_handicap=no_handicap, min_moves=min_moves, test_fraction=test_fraction,
        max_bytes=max_bytes, workers=workers or default_workers(),
    )
    params = _parameters(paths, opt, partition_size)
    bar, progress = _progress_bar(quiet)
    try:
        try:
            result = scan(paths, opt, progress)
        finally:
            if bar is not None:
                bar.close()
        try:
            write_tables(result, output, errors_path, params, partition_size)
        except OSError as exc:
            raise ShapemillError(
                f"cannot write {exc.filename or output}: {exc.strerror or exc}"
            ) from None
        except TableError as exc:
            raise ShapemillError(f"cannot write {exc}") from None
    except InputError as exc:
        raise ShapemillError(str(exc)) from None
    except WorkerDied as exc:
        raise ShapemillError(f"{output}: not written, {exc}") from None
    except ShapemillError:
        raise
    except Exception as exc:  # a bug: still one line, never a traceback
        msg = " ".join(str(exc).split())
        raise ShapemillError(f"unexpected error ({type(exc).__name__}: {msg}); please report it") from None
    if not quiet:
        _print_summary(result, output, errors_path, time.perf_counter() - t0)


def _print_summary(result: ScanResult, output: str, errors_path: str | None, seconds: float) -> None:
    """The scan's summary on stderr: what was kept and dropped, and what was written."""
    for line in result.summary_lines():
        print(line, file=sys.stderr)
    print(
        f"wrote {result.kept:,} games to {output}"
        + (f" and {len(result.errors):,} error rows to {errors_path}" if errors_path else "")
        + f" in {seconds:.1f} s",
        file=sys.stderr,
    )

"""Progress of a long stage on a terminal: one tqdm bar on standard error, or nothing.

Every stage that can take more than a few seconds (scan's files, mine's games, rate's
positions and sweeps, evaluate, export's competitions, the index, review's searched
moves, demo's game) shows one while standard error is a terminal; with ``-q`` or when
it is not (a pipe, a log, a test), it shows none and its output stays what it was.
"""

from __future__ import annotations

import sys


def on_terminal() -> bool:
    """Whether standard error is a terminal (False when it is closed or replaced by a stand-in)."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def progress_bar(quiet: bool, total: int | None, unit: str, desc: str, **options):
    """A tqdm bar of ``total`` ``unit``s named ``desc`` (tqdm's ``options`` besides) on
    stderr when it is a terminal (and not ``quiet``), else None."""
    if quiet or not on_terminal():
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, desc=desc, file=sys.stderr, **options)


def ticker(bar):
    """The callback that moves ``bar`` by its argument (one by default), or None without a bar."""
    if bar is None:
        return None
    return lambda n=1: bar.update(n)

"""All tactical features of candidate moves: one numba function for miner, rater and engine.

``tactical_features(b, m, color, points, out)`` writes, for every candidate point
``points[i]`` (a legal move of ``color``; never PASS, the caller handles the pass
candidate), the level of each feature of ``FEATURE_TABLE`` into ``out[i, f]``.
The position is read, never changed. Hot loops call ``tactical_features_with(...,
reading_scratch(b, m))`` to reuse the scratch arrays across positions of one board
size; ``features_of`` (plain Python) takes a ``shapemill.go.Board``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...go.changes import Tracker, add_short_liberties, stale_points
from ...go.reading import legal_moves, reading_scratch, string_libs3
from ...go.rules import COLOR, EMPTIES, EMPTY, N_EMPTY
from ...go.vertices import color_code
from .distance import distance_features, last_distances
from .shapes import shape_features
from .strings import string_features
from .table import N_FEATURES


@njit(cache=True)
def point_features(b: np.ndarray, m: np.ndarray, color: int, p: int, libs3: np.ndarray,
                  mark: np.ndarray, work: np.ndarray, mwork: np.ndarray,
                  moves: np.ndarray, out: np.ndarray) -> None:
    """The level of every feature of the move ``color`` at ``p`` into ``out``.

    ``libs3`` must hold min(liberties, 3) at the head of every string that
    touches ``p`` or its 3x3 block (``string_libs3`` fills it for the whole
    board); the rest is scratch from ``reading_scratch``."""
    for f in range(N_FEATURES):
        out[f] = 0
    if b[COLOR, p] != EMPTY:
        return
    distance_features(m, p, out)
    n_own = string_features(b, m, color, p, libs3, mark, work, mwork, moves, out)
    shape_features(b, m, color, p, libs3, n_own, out)


@njit(cache=True)
def tactical_features_with(b: np.ndarray, m: np.ndarray, color: int, points: np.ndarray,
                           out: np.ndarray, scratch) -> None:
    """``tactical_features`` with caller-owned scratch from ``reading_scratch``
    (for hot loops; the results are the same)."""
    libs3, mark, work, mwork, moves = scratch
    string_libs3(b, m, libs3)
    for i in range(len(points)):
        point_features(b, m, np.int64(color), np.int64(points[i]), libs3, mark, work, mwork, moves,
                      out[i])


@njit(cache=True)
def tactical_features(b: np.ndarray, m: np.ndarray, color: int, points: np.ndarray,
                      out: np.ndarray) -> None:
    """Write the level of every feature of ``FEATURES`` for each candidate.

    ``points``: board points of legal moves of ``color`` (no PASS; a point that
    is not empty gets all zeros); ``out``: int32 array of shape
    ``(len(points), N_FEATURES)``. The position is unchanged.
    """
    tactical_features_with(b, m, color, points, out, reading_scratch(b, m))


@njit(cache=True)
def tracked_features(b: np.ndarray, m: np.ndarray, color: int, points: np.ndarray, tracker: Tracker, n: int,
                     levels: np.ndarray, afresh: bool) -> None:
    """``levels[p]``: the level of every feature of the move ``color`` at each point ``p``
    of ``points`` (legal moves) before move ``n`` of a game ``tracker`` follows
    (``go.changes``), as ``tactical_features`` reads them. The levels ``color`` had at
    its previous turn, two moves before, are kept where the moves since changed nothing
    (``stale_points``, ``add_short_liberties``) and read again elsewhere; ``afresh``: no
    such turn (the first, or one not read), every empty point is read. The distances to
    the last two moves are set for ``points`` only."""
    libs3, mark, work, mwork, ladder = tracker.scratch
    if afresh:
        for i in range(m[N_EMPTY]):
            p = b[EMPTIES, i]
            point_features(b, m, color, p, libs3, mark, work, mwork, ladder, levels[p])
    else:
        stale = add_short_liberties(b, m, tracker, n, points, stale_points(tracker, n))
        for j in range(stale):
            p = tracker.stale[j]
            point_features(b, m, color, p, libs3, mark, work, mwork, ladder, levels[p])
    for p in points:
        last_distances(m, p, levels[p])


def features_of(board, color: str, points=None) -> tuple[np.ndarray, np.ndarray]:
    """(points, levels) for a ``shapemill.go.Board``: convenience for tests and
    tools. ``points`` are board points (default: every legal move but pass)."""
    c = color_code(color)
    if points is None:
        points = legal_moves(board.b, board.m, c)
    points = np.asarray(points, dtype=np.int32)
    out = np.zeros((len(points), N_FEATURES), dtype=np.int32)
    tactical_features(board.b, board.m, c, points, out)
    return points, out

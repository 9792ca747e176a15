"""The distance family: the move's line (border), its distance to the last two moves and the pair."""

from __future__ import annotations

import numpy as np
from numba import njit

from ...go.rings import gridcular_distance
from ...go.rules import LAST, LAST2, PASS, SIZE, STRIDE
from ...go.vertices import row_col
from .table import F_BORDER, F_LAST2_DIST, F_LAST_DIST, F_LAST_DISTS, MAX_DIST


@njit(cache=True)
def distance_level(p: int, q: int, w: int, floor: int) -> int:
    """The level of the last_dist (``floor`` 0) or last2_dist (``floor`` 1) feature
    of ``p`` for the earlier move ``q``: the gridcular distance, clipped to
    ``[floor, MAX_DIST]``."""
    return max(min(gridcular_distance(p, q, w), MAX_DIST), floor)


@njit(cache=True)
def line_of(m: np.ndarray, p: int) -> int:
    """The line of point ``p``: 1 on the edge, 2 next to it, ..."""
    w = m[STRIDE]
    n = m[SIZE]
    r, c = row_col(p, w)
    return min(min(r, c), min(n - 1 - r, n - 1 - c)) + 1


@njit(cache=True, inline="always")
def pair_level(last: int, last2: int) -> int:
    """The level of last_dists from the levels of last_dist and last2_dist (0 when both are)."""
    return last + (MAX_DIST + 1) * last2


@njit(cache=True)
def last_distances(m: np.ndarray, p: int, out: np.ndarray) -> None:
    """last_dist, last2_dist and last_dists of the move at ``p`` into ``out`` (0 for no such move)."""
    w = m[STRIDE]
    last, last2 = m[LAST], m[LAST2]
    out[F_LAST_DIST] = 0 if last == PASS else distance_level(p, last, w, 0)
    out[F_LAST2_DIST] = 0 if last2 == PASS else distance_level(p, last2, w, 1)
    out[F_LAST_DISTS] = pair_level(out[F_LAST_DIST], out[F_LAST2_DIST])


@njit(cache=True)
def distance_features(m: np.ndarray, p: int, out: np.ndarray) -> None:
    """border and the distances to the last two moves (``last_distances``) of the move at ``p`` into ``out``."""
    line = line_of(m, p)
    if line <= 4:
        out[F_BORDER] = line
    last_distances(m, p, out)

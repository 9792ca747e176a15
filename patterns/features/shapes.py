"""The shape family: the 3x3 neighbourhood and the MoGo expert shapes of a move.

The MoGo expert shapes (Chatriot, Gelly, Hoock, Perez, Rimmel, Teytaud 2008) are
published by name only; the definitions (``FEATURE_TABLE``) are ours.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...go.nbr3x3 import NB_EMPTY, NBR3X3_CODES, NBR3X3_EMPTY, nbr3x3_id, raw_from_libs
from ...go.rules import COLOR, EMPTY, LAST, PASS, SIZE, STRIDE
from ...go.vertices import row_col
from .distance import line_of
from .table import (
    F_BAD_KOGEIMA,
    F_CONNECT,
    F_EMPTY_TRIANGLE,
    F_HANE,
    F_LINE1_ALONE,
    F_LINE3,
    F_NBR3X3,
    F_PEEP_CONNECT,
    F_WALL,
)

_HANE_BIT = 1
_TRIANGLE_BIT = 2


@njit(cache=True)
def _ring_shape_flags(raw: int) -> int:
    """Hane / empty-triangle bits of a 3x3 code: both depend on the 3x3 only.

    Ring positions 0, 2, 4, 6 are diagonal; a diagonal's ring neighbours are the
    two orthogonal neighbours of the centre that share a 2x2 square with it.
    """
    flags = 0
    for i in (0, 2, 4, 6):
        a = (raw >> (3 * i)) & 7
        c1 = (raw >> (3 * ((i + 7) % 8))) & 7
        c2 = (raw >> (3 * (i + 1))) & 7
        own_a = 1 <= a <= 3
        own1 = 1 <= c1 <= 3
        own2 = 1 <= c2 <= 3
        opp1 = 4 <= c1 <= 6
        opp2 = 4 <= c2 <= 6
        if own_a:
            if (opp1 and c2 == NB_EMPTY) or (opp2 and c1 == NB_EMPTY):
                flags |= _HANE_BIT
            if (own1 and c2 == NB_EMPTY) or (own2 and c1 == NB_EMPTY):
                flags |= _TRIANGLE_BIT
        elif a == NB_EMPTY and own1 and own2:
            flags |= _TRIANGLE_BIT
    return flags


@njit(cache=True)
def _shape_table(codes: np.ndarray) -> np.ndarray:
    table = np.zeros(len(codes) + 1, dtype=np.int8)
    for i in range(len(codes)):
        table[i + 1] = _ring_shape_flags(codes[i])
    return table


_NBR_SHAPES = _shape_table(NBR3X3_CODES)


@njit(cache=True)
def _outer_ring_empty(b: np.ndarray, w: int, n: int, r: int, c: int) -> bool:
    """No stone on the on-board points at distance 2 (Chebyshev) of (r, c)."""
    for rr in range(max(r - 2, 0), min(r + 2, n - 1) + 1):
        base = (rr + 1) * w + 1
        edge = rr == r - 2 or rr == r + 2
        for cc in range(max(c - 2, 0), min(c + 2, n - 1) + 1):
            if (edge or cc == c - 2 or cc == c + 2) and b[COLOR, base + cc] != EMPTY:
                return False
    return True


_OCT1 = 0o11111111


@njit(cache=True)
def _bad_kogeima(b: np.ndarray, w: int, n: int, color: int, p: int, r: int, c: int) -> bool:
    """Whether ``p`` (row ``r``, column ``c``) makes a knight's move from an own stone with
    an opponent stone on a point between them, inside the 3x3 (``n`` the board's size)."""
    other = 3 - color
    for k in range(8):
        if k < 4:
            dr = 1 if k & 1 else -1
            dc = 2 if k & 2 else -2
        else:
            dr = 2 if k & 1 else -2
            dc = 1 if k & 2 else -1
        rr = r + dr
        cc = c + dc
        if rr < 0 or rr >= n or cc < 0 or cc >= n:
            continue
        if b[COLOR, p + dr * w + dc] != color:
            continue
        if k < 4:
            m1 = p + dc // 2
            m2 = p + dr * w + dc // 2
        else:
            m1 = p + (dr // 2) * w
            m2 = p + (dr // 2) * w + dc
        x1 = b[COLOR, m1]
        x2 = b[COLOR, m2]
        if x1 != color and x2 != color and (x1 == other or x2 == other):
            return True
    return False


@njit(cache=True)
def _shapes(b: np.ndarray, m: np.ndarray, color: int, p: int, r: int, c: int,
            line: int, n_own: int, raw: int, nid: int, out: np.ndarray) -> None:
    """The MoGo expert shapes of candidate ``p`` (row ``r``, column ``c``, on
    line ``line``, touching ``n_own`` own strings, 3x3 code ``raw``, id ``nid``)."""
    # digit classes of the ring: own 1..3 (bit 2 clear, not 0), opponent 4..6
    low = (raw | (raw >> 1)) & _OCT1
    high = (raw >> 2) & _OCT1
    own_ring = (low & ~high) != 0
    opp_ring = (high & ~(raw & (raw >> 1))) != 0
    if not own_ring and not opp_ring:
        if (line == 3 or line == 1) and _outer_ring_empty(b, m[STRIDE], m[SIZE], r, c):
            if line == 3:
                out[F_LINE3] = 1
            else:
                out[F_LINE1_ALONE] = 1
        return
    w = m[STRIDE]
    n = m[SIZE]
    other = 3 - color
    if n_own >= 2:
        out[F_CONNECT] = 1
        last = m[LAST]
        if last != PASS and b[COLOR, last] == other and (
            last == p - 1 or last == p + 1 or last == p - w or last == p + w
        ):
            out[F_PEEP_CONNECT] = 1
    flags = _NBR_SHAPES[nid]
    if flags & _HANE_BIT:
        out[F_HANE] = 1
    if flags & _TRIANGLE_BIT:
        out[F_EMPTY_TRIANGLE] = 1
    # wall: p + d and p + 2d own (p + d on the board keeps p + 2d in the array)
    if n_own > 0:
        for d in (-1, 1, -w, w):
            if b[COLOR, p + d] == color and b[COLOR, p + 2 * d] == color:
                out[F_WALL] = 1
                break
    if opp_ring and _bad_kogeima(b, w, n, color, p, r, c):
        out[F_BAD_KOGEIMA] = 1


@njit(cache=True)
def shape_features(b: np.ndarray, m: np.ndarray, color: int, p: int, libs3: np.ndarray,
                   n_own: int, out: np.ndarray) -> None:
    """The shape family's levels of the move ``color`` at empty ``p`` (touching
    ``n_own`` own strings; ``libs3`` as for ``point_features``) into ``out``."""
    w = m[STRIDE]
    raw = raw_from_libs(b, w, color, p, libs3)
    nid = NBR3X3_EMPTY if raw == 0 else nbr3x3_id(raw)
    out[F_NBR3X3] = nid
    r, c = row_col(p, w)
    _shapes(b, m, color, p, r, c, line_of(m, p), np.int64(n_own), np.int64(raw),
            np.int64(nid), out)

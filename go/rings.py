"""Spatial patterns: nested gridcular neighbourhoods of a candidate move.

The gridcular distance of an offset is ``d(dx, dy) = |dx| + |dy| + max(|dx|, |dy|)``.
The pattern of ring ``k`` around a candidate is every point with ``d <= k``,
each point one of empty / own stone / opponent stone / off-board, "own" meaning
the player to move so one pattern serves both colours. Rings run from 2 (the four
neighbours) to ``3 * (N - 1)``, the window that covers the whole N x N board from
any point (ring 54 on 19x19: 361 on-board points).

Hashing is Zobrist over (offset, state), per symmetry: the eight images of a
pattern under the symmetries of the square are hashed side by side, ring by ring,
and the pattern's id is the smallest of the eight, XOR a per-ring key so equal
shapes of different rings never share an id. Rotated, mirrored and colour-swapped
positions therefore give the same ids.

The stones are read from a *padded* copy of the board (``pad`` off-board points
on every side, enough for the largest ring) so the inner loop is a table lookup
with no bounds checks: ``state[q + delta[s, o]]``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit

from .rules import BORDER, COLOR, MAX_SIZE, STRIDE
from .symmetry import SYMMETRIES
from .vertices import flat, row_col

MIN_RING = 2
MAX_RING = 3 * (MAX_SIZE - 1)



def gridcular(dx: int, dy: int) -> int:
    """Gridcular distance of the offset (dx, dy)."""
    return abs(dx) + abs(dy) + max(abs(dx), abs(dy))


@njit(cache=True)
def gridcular_distance(p: int, q: int, w: int) -> int:
    """The gridcular distance between points ``p`` and ``q`` of a board of stride ``w``."""
    dx = abs(p % w - q % w)
    dy = abs(p // w - q // w)
    return dx + dy + max(dx, dy)


@njit(cache=True)
def any_within(p: int, points: np.ndarray, reach: int, w: int) -> bool:
    """Whether a point of ``points`` lies within gridcular distance ``reach`` of ``p``: a stone
    placed or removed there can change the pattern read out to ring ``reach`` around ``p``."""
    for q in points:
        if gridcular_distance(p, q, w) <= reach:
            return True
    return False


def _offsets() -> np.ndarray:
    """Every offset with 2 <= d <= MAX_RING, ordered by ring, then row, then column."""
    half = MAX_RING // 2
    cells = [
        (gridcular(dx, dy), dy, dx)
        for dy in range(-half, half + 1)
        for dx in range(-half, half + 1)
        if MIN_RING <= gridcular(dx, dy) <= MAX_RING
    ]
    return np.array([(dx, dy) for _, dy, dx in sorted(cells)], dtype=np.int32)


#: (dx, dy) of each pattern point, in canonical order.
OFFSETS = _offsets()
#: RING_END[k]: number of offsets with d <= k (the points of ring k's pattern).
RING_END = np.searchsorted(
    [gridcular(int(dx), int(dy)) for dx, dy in OFFSETS], np.arange(MAX_RING + 1), side="right"
).astype(np.int32)

_rng = np.random.default_rng(0x5A4E)
#: Zobrist keys per (offset, relative state): 0 empty, 1 own, 2 opponent, 3 off-board.
PATTERN_ZOBRIST = _rng.integers(
    np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=(len(OFFSETS), 4), dtype=np.int64
)
#: Mixed into the id of ring k so that no two rings share ids.
RING_KEY = _rng.integers(
    np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=MAX_RING + 1, dtype=np.int64
)
#: RELATIVE[color, absolute state]: the pattern state seen by the player ``color``.
RELATIVE = np.array([[0, 1, 2, 3], [0, 1, 2, 3], [0, 2, 1, 3]], dtype=np.int8)
RELATIVE.flags.writeable = False  # read-only as numba freezes a global: one compiled kernel for both callers


class Geometry(NamedTuple):
    """Pattern geometry of one board size: padded layout and per-symmetry deltas."""

    size: int
    max_ring: int
    pad: int
    stride: int
    delta: np.ndarray  # int32[8, n_offsets]: padded-board offset of each point per symmetry


@lru_cache(maxsize=None)
def geometry(size: int) -> Geometry:
    """Geometry for patterns on a ``size`` x ``size`` board (rings up to 3 (size - 1))."""
    max_ring = 3 * (size - 1)
    pad = max_ring // 2
    stride = size + 2 * pad
    n = RING_END[max_ring]
    delta = np.empty((8, n), dtype=np.int32)
    for s, (a, b, c, e) in enumerate(SYMMETRIES):
        dx, dy = OFFSETS[:n, 0], OFFSETS[:n, 1]
        delta[s] = (c * dx + e * dy) * stride + (a * dx + b * dy)
    return Geometry(size, max_ring, pad, stride, delta)


#: RING_OF[o]: the ring of pattern offset ``o``.
RING_OF = np.repeat(np.arange(len(RING_END)), np.diff(RING_END, prepend=0)).astype(np.int32)


class FarRings(NamedTuple):
    """Tables that hash the rings past ``near`` from the stones instead of every point.

    A ring's hash under symmetry ``s`` is the XOR over its points of
    ``Z[o, state]``: that of an empty ring (``empty[k]``), corrected for the points
    that are off the board (``border[point, k, s]``, which depends only on where the
    candidate is) and for the stones. Far from the candidate most points are empty,
    so once the rings grow large a walk over the board's stones (``inverse`` gives
    a displacement's offset index under each symmetry) costs much less than one
    over the ring's points.
    """

    near: int
    inverse: np.ndarray  # int32[8, 2 size - 1, 2 size - 1]: offset index of (row, column) displacement
    border: np.ndarray  # int64[size * size, max_ring + 1, 8]
    empty: np.ndarray  # int64[max_ring + 1]


@lru_cache(maxsize=None)
def far_rings(size: int, near: int = 8) -> FarRings:
    """The :class:`FarRings` of a ``size`` x ``size`` board, rings past ``near``."""
    max_ring = 3 * (size - 1)
    n = RING_END[max_ring]
    dx, dy = OFFSETS[:n, 0], OFFSETS[:n, 1]
    rows = np.array([c * dx + e * dy for a, b, c, e in SYMMETRIES])
    cols = np.array([a * dx + b * dy for a, b, c, e in SYMMETRIES])
    inverse = np.zeros((8, 2 * size - 1, 2 * size - 1), dtype=np.int32)
    inside = (np.abs(rows) < size) & (np.abs(cols) < size)
    for s in range(8):
        inverse[s, rows[s, inside[s]] + size - 1, cols[s, inside[s]] + size - 1] = np.flatnonzero(inside[s])
    empty = np.zeros(max_ring + 1, dtype=np.int64)
    np.bitwise_xor.at(empty, RING_OF[:n], PATTERN_ZOBRIST[:n, 0])
    return FarRings(near, inverse, _border_hashes(size, max_ring, rows, cols), empty)


@njit(cache=True)
def _border_hashes(size, max_ring, rows, cols) -> np.ndarray:
    border = np.zeros((size * size, max_ring + 1, 8), dtype=np.int64)
    for r in range(size):
        for c in range(size):
            for s in range(8):
                for o in range(rows.shape[1]):
                    y, x = r + rows[s, o], c + cols[s, o]
                    if y < 0 or y >= size or x < 0 or x >= size:
                        border[r * size + c, RING_OF[o], s] ^= PATTERN_ZOBRIST[o, 0] ^ PATTERN_ZOBRIST[o, 3]
    return border


@njit(cache=True)
def board_stones(b: np.ndarray, m: np.ndarray) -> np.ndarray:
    """(row, column, colour) of every stone on the board."""
    w = m[STRIDE]
    size = w - 2
    out = np.empty((size * size, 3), dtype=np.int32)
    n = 0
    for p in range(b.shape[1]):
        c = b[COLOR, p]
        if c == 1 or c == 2:
            r, col = row_col(p, w)
            out[n, 0], out[n, 1], out[n, 2] = r, col, c
            n += 1
    return out[:n]


@njit(cache=True)
def far_stone_hashes(stones, r, c, rel, inverse, near, max_ring, acc) -> None:
    """XOR into ``acc[k, s]`` (``near < k <= max_ring``) the correction of the stones
    of ring ``k`` around the candidate at (``r``, ``c``) under symmetry ``s``."""
    half = inverse.shape[1] // 2
    for i in range(len(stones)):
        dr, dc = stones[i, 0] - r, stones[i, 1] - c
        adr, adc = abs(dr), abs(dc)
        d = adr + adc + max(adr, adc)
        if d <= near or d > max_ring:
            continue
        st = rel[stones[i, 2]]
        for s in range(8):
            o = inverse[s, dr + half, dc + half]
            acc[d, s] ^= PATTERN_ZOBRIST[o, 0] ^ PATTERN_ZOBRIST[o, st]


@njit(cache=True)
def fill_padded(b: np.ndarray, m: np.ndarray, pad: int, state: np.ndarray) -> None:
    """Copy the board's colours into the padded state array (off-board: BORDER)."""
    w = m[STRIDE]
    size = w - 2
    stride = size + 2 * pad
    state[:] = BORDER
    for row in range(size):
        for col in range(size):
            state[(row + pad) * stride + col + pad] = b[COLOR, flat(row, col, w)]


@njit(cache=True)
def padded_point(p: int, m: np.ndarray, pad: int) -> int:
    """Index in the padded state array of board point ``p``."""
    w = m[STRIDE]
    r, c = row_col(p, w)
    return (r + pad) * (w - 2 + 2 * pad) + c + pad


@njit(cache=True)
def grow_ring(
    h: np.ndarray, state: np.ndarray, q: int, rel: np.ndarray, delta: np.ndarray, k: int
) -> int:
    """Extend the eight symmetric hashes ``h`` of ring ``k - 1`` around padded point
    ``q`` by ring ``k``'s points; returns ring ``k``'s pattern id (never 0).

    ``rel`` is ``RELATIVE[color]`` for the player to move; ``h`` starts at zeros.
    """
    for s in range(8):
        x = h[s]
        for o in range(RING_END[k - 1], RING_END[k]):
            x ^= PATTERN_ZOBRIST[o, rel[state[q + delta[s, o]]]]
        h[s] = x
    return ring_id(h, k)


@njit(cache=True, inline="always")
def ring_id(h: np.ndarray, k: int) -> int:
    """The id of ring ``k`` from its eight symmetric hashes ``h`` (never 0)."""
    key = h.min() ^ RING_KEY[k]
    return key if key != 0 else 1


@njit(cache=True)
def ring_ids(
    state: np.ndarray,
    q: int,
    color: int,
    delta: np.ndarray,
    max_ring: int,
    out: np.ndarray,
) -> None:
    """Pattern ids of rings 2..max_ring around padded point ``q`` for ``color`` to
    move: ``out[k]`` receives the id of ring ``k``."""
    h = np.zeros(8, dtype=np.int64)
    for k in range(MIN_RING, max_ring + 1):
        out[k] = grow_ring(h, state, q, RELATIVE[color], delta, k)


@njit(cache=True)
def canonical_symmetry(h: np.ndarray) -> int:
    """The symmetry a pattern's canonical key is read in: the one of the eight
    symmetric hashes ``h`` that is the smallest (the first of equals)."""
    best = 0
    for s in range(1, 8):
        if h[s] < h[best]:
            best = s
    return best


def key_bytes(ring: int | np.ndarray) -> int | np.ndarray:
    """Bytes of the packed key of a ring ``ring`` pattern (of each, given an array of rings)."""
    return (RING_END[ring] + 3) // 4


@njit(cache=True)
def pack_key(
    state: np.ndarray, q: int, rel: np.ndarray, delta: np.ndarray, s: int, ring: int, out: np.ndarray
) -> None:
    """Write the pattern of ``ring`` around padded point ``q``, read in symmetry
    ``s``, into the first ``key_bytes(ring)`` bytes of ``out``: its relative states
    (``rel`` is ``RELATIVE[color]`` for the player to move) four to a byte, in
    offset order. Read in :func:`canonical_symmetry`, it is the canonical key."""
    end = RING_END[ring]
    for i in range((end + 3) // 4):
        byte = 0
        for j in range(min(4, end - 4 * i)):
            byte |= rel[state[q + delta[s, 4 * i + j]]] << (2 * j)
        out[i] = byte


def unpack_key(data: bytes, ring: int) -> np.ndarray:
    """Relative states of ring ``ring``'s points from a packed key."""
    raw = np.frombuffer(data, dtype=np.uint8)
    states = np.stack([raw & 3, raw >> 2 & 3, raw >> 4 & 3, raw >> 6 & 3], axis=1).ravel()
    return states[: RING_END[ring]]


def ring_points(ring: int) -> int:
    """Number of points of ring ``ring``'s pattern, the candidate point included."""
    return int(RING_END[ring]) + 1


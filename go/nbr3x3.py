"""The 3x3 neighbourhood of a point: the one encoder of the 8 neighbours.

Ring order of the 8 neighbours (row + 1 is north): NW N NE E SE S SW W, so
consecutive ring points are orthogonal neighbours and the orthogonal neighbours of
the centre sit at odd positions. A 90-degree rotation shifts the ring by two
points; a mirror maps i -> -i. Two resolutions of the same ring:

- ``nbr3x3_raw``: 3 bits a neighbour (``NB_*``: empty, own string with 1/2/3+
  liberties, opponent's with 1/2/3+, off board), point i at bits 3i. The miner's
  ``nbr3x3`` feature; ``nbr3x3_canonical`` takes the least of its 8 symmetric
  images and ``nbr3x3_id`` maps that to a dense level. The levels are the 47,714
  canonical neighbourhoods a legal position can show (two ring-adjacent stones of
  one colour are one string, so share their liberty class; a string with 1 or 2
  liberties shows no more empty neighbours in the 3x3 than that), sorted by code.
- ``colour_code``: 2 bits a neighbour (the colour as the board holds it:
  empty, black, white, off board), point i at bits 2i: a 16-bit index for the
  playout policies' shape tables, where liberties are not needed and speed is.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .reading import libs_up_to_3
from .rules import BORDER, COLOR, EMPTY, HEAD, STRIDE

NB_EMPTY, NB_OWN1, NB_OWN2, NB_OWN3, NB_OPP1, NB_OPP2, NB_OPP3, NB_OFF = range(8)


@njit(cache=True)
def nbr3x3_canonical(raw: int) -> int:
    """The smallest of the 8 symmetric images of a raw 3x3 code."""
    raw = np.int64(raw)
    refl = np.int64(0)
    for i in range(8):
        refl |= ((raw >> (3 * i)) & 7) << (3 * ((8 - i) % 8))
    best = raw
    for k in range(1, 4):
        s = 6 * k
        v = ((raw << s) | (raw >> (24 - s))) & 0xFFFFFF
        if v < best:
            best = v
    if refl < best:
        best = refl
    for k in range(1, 4):
        s = 6 * k
        v = ((refl << s) | (refl >> (24 - s))) & 0xFFFFFF
        if v < best:
            best = v
    return best


@njit(cache=True)
def _same_colour_conflict(a: int, c: int) -> bool:
    """Two ring-adjacent points of one colour are one string: same liberty class."""
    if 1 <= a <= 3 and 1 <= c <= 3:
        return a != c
    if 4 <= a <= 6 and 4 <= c <= 6:
        return a != c
    return False


@njit(cache=True)
def _visible_libs_ok(d: np.ndarray) -> bool:
    """No string shows more empty neighbours inside the 3x3 than its liberty class allows."""
    for i in range(8):
        a = d[i]
        if a == NB_EMPTY or a == NB_OFF:
            continue
        level = (a - 1) % 3 + 1
        if level == 3:
            continue
        side = (a - 1) // 3
        prev = d[(i + 7) % 8]
        if prev != NB_EMPTY and prev != NB_OFF and (prev - 1) // 3 == side:
            whole = True
            for j in range(8):
                if d[j] == NB_EMPTY or d[j] == NB_OFF or (d[j] - 1) // 3 != side:
                    whole = False
            if not whole or i != 0:
                continue
        n = 0
        centre = False
        j = i
        length = 0
        while length < 8 and d[j] != NB_EMPTY and d[j] != NB_OFF and (d[j] - 1) // 3 == side:
            if j % 2 == 1:
                centre = True
            j = (j + 1) % 8
            length += 1
        if centre:
            n += 1
        if length < 8:
            if d[j] == NB_EMPTY:
                n += 1
            before = (i + 7) % 8
            if d[before] == NB_EMPTY and before != j:
                n += 1
        if n > level:
            return False
    return True


@njit(cache=True)
def _build_nbr3x3_codes() -> np.ndarray:
    """All canonical codes of 3x3 neighbourhoods that a legal position can show.

    Off-board points form no edge, one edge (3 points) or one corner (5); two
    ring-adjacent stones of one colour have the same liberty class; a string with
    1 or 2 liberties shows no more empty neighbours in the 3x3 (centre included).
    """
    masks = np.array(
        [0, 0b01110000, 0b11000001, 0b00000111, 0b00011100,
         0b11110001, 0b11000111, 0b00011111, 0b01111100],
        dtype=np.int64,
    )
    out = np.empty(1 << 17, dtype=np.int32)
    n = 0
    d = np.empty(8, dtype=np.int64)
    for mk in masks:
        for i in range(8):
            d[i] = -1
        i = 0
        while i >= 0:
            off = (mk >> i) & 1
            if off:
                d[i] = NB_OFF if d[i] == -1 else NB_OFF + 1
                done = d[i] == NB_OFF + 1
            else:
                d[i] += 1
                done = d[i] == NB_OFF
            if done:
                d[i] = -1
                i -= 1
                continue
            if i > 0 and _same_colour_conflict(d[i - 1], d[i]):
                continue
            if i < 7:
                i += 1
                continue
            if _same_colour_conflict(d[7], d[0]) or not _visible_libs_ok(d):
                continue
            raw = np.int64(0)
            for j in range(8):
                raw |= d[j] << (3 * j)
            if nbr3x3_canonical(raw) == raw:
                out[n] = raw
                n += 1
    return np.sort(out[:n])


#: Sorted canonical 3x3 codes; a code's dense id is its index + 1.
NBR3X3_CODES: np.ndarray = _build_nbr3x3_codes()
#: Number of distinct 3x3 neighbourhood levels (ids 1..NBR3X3_LEVELS).
NBR3X3_LEVELS: int = len(NBR3X3_CODES)

# code -> id by a bucketed hash: bucket k holds (code << 20 | id) in
# _NBR_PACKED[_NBR_START[k]:_NBR_START[k + 1]]
_NBR_BITS = 14


def _nbr_buckets(codes: np.ndarray) -> np.ndarray:
    return ((codes.astype(np.uint64) * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF)) >> np.uint64(
        32 - _NBR_BITS
    )


def _nbr_table() -> tuple[np.ndarray, np.ndarray]:
    buckets = _nbr_buckets(NBR3X3_CODES).astype(np.int64)
    order = np.argsort(buckets, kind="stable")
    start = np.searchsorted(buckets[order], np.arange((1 << _NBR_BITS) + 1)).astype(np.int32)
    ids = np.arange(1, NBR3X3_LEVELS + 1, dtype=np.int64)
    packed = (NBR3X3_CODES[order].astype(np.int64) << 20) | ids[order]
    return start, packed


_NBR_START, _NBR_PACKED = _nbr_table()


@njit(cache=True)
def nbr3x3_id(raw: int) -> int:
    """Dense id (1..NBR3X3_LEVELS) of a raw 3x3 code; 0 for an impossible code."""
    c = nbr3x3_canonical(raw)
    k = ((c * 2654435761) & 0xFFFFFFFF) >> (32 - _NBR_BITS)
    for i in range(_NBR_START[k], _NBR_START[k + 1]):
        v = _NBR_PACKED[i]
        if (v >> 20) == c:
            return v & 0xFFFFF
    return 0


#: Dense id of the all-empty neighbourhood (the commonest, looked up once).
NBR3X3_EMPTY: int = nbr3x3_id(0)


@njit(cache=True)
def _cell(b: np.ndarray, q: int, color: int, libs3: np.ndarray) -> int:
    c = b[COLOR, q]
    if c == EMPTY:
        return NB_EMPTY
    if c == BORDER:
        return NB_OFF
    n = libs3[b[HEAD, q]]
    return n if c == color else 3 + n


@njit(cache=True)
def _cell_direct(b: np.ndarray, w: int, q: int, color: int) -> int:
    c = b[COLOR, q]
    if c == EMPTY:
        return NB_EMPTY
    if c == BORDER:
        return NB_OFF
    n = libs_up_to_3(b, w, np.int64(q))
    return n if c == color else 3 + n


@njit(cache=True)
def nbr3x3_raw(b: np.ndarray, m: np.ndarray, color: int, p: int) -> int:
    """Raw 3x3 code of empty point ``p`` seen by ``color`` (for playout policies).

    8 neighbours in ring order NW N NE E SE S SW W, 3 bits each: empty, own
    string with 1/2/3+ liberties, opponent string with 1/2/3+, off board. Not
    canonical: pass it through ``nbr3x3_canonical`` or ``nbr3x3_id``.
    """
    w = m[STRIDE]
    raw = _cell_direct(b, w, p + w - 1, color)
    raw |= _cell_direct(b, w, p + w, color) << 3
    raw |= _cell_direct(b, w, p + w + 1, color) << 6
    raw |= _cell_direct(b, w, p + 1, color) << 9
    raw |= _cell_direct(b, w, p - w + 1, color) << 12
    raw |= _cell_direct(b, w, p - w, color) << 15
    raw |= _cell_direct(b, w, p - w - 1, color) << 18
    raw |= _cell_direct(b, w, p - 1, color) << 21
    return raw


@njit(cache=True)
def raw_from_libs(b: np.ndarray, w: int, color: int, p: int, libs3: np.ndarray) -> int:
    raw = _cell(b, p + w - 1, color, libs3)
    raw |= _cell(b, p + w, color, libs3) << 3
    raw |= _cell(b, p + w + 1, color, libs3) << 6
    raw |= _cell(b, p + 1, color, libs3) << 9
    raw |= _cell(b, p - w + 1, color, libs3) << 12
    raw |= _cell(b, p - w, color, libs3) << 15
    raw |= _cell(b, p - w - 1, color, libs3) << 18
    raw |= _cell(b, p - 1, color, libs3) << 21
    return raw


@njit(cache=True)
def nbr3x3_level(b: np.ndarray, m: np.ndarray, color: int, p: int) -> int:
    """The ``nbr3x3`` feature level of empty point ``p`` for ``color``."""
    return nbr3x3_id(nbr3x3_raw(b, m, color, p))


def nbr3x3_describe(level: int) -> str:
    """A 3x3 picture of a dense id: ``.`` empty, ``X`` own / ``O`` opponent with
    their liberty class (1, 2, 3 = 3+), ``#`` off board, ``*`` the move."""
    if not 1 <= level <= NBR3X3_LEVELS:
        raise ValueError(f"3x3 level {level} is not between 1 and {NBR3X3_LEVELS}")
    raw = int(NBR3X3_CODES[level - 1])
    sym = [".", "X1", "X2", "X3", "O1", "O2", "O3", "#"]
    cells = [sym[(raw >> (3 * i)) & 7].ljust(2) for i in range(8)]
    nw, n, ne, e, se, s, sw, w_ = cells
    return "\n".join((f"{nw} {n} {ne}", f"{w_} *  {e}", f"{sw} {s} {se}"))


@njit(cache=True)
def colour_code(b: np.ndarray, w: int, p: int) -> int:
    """The 16-bit colour code of the 8 neighbours of ``p`` in ring order
    (NW N NE E SE S SW W, 2 bits each: the board's colour values)."""
    code = b[COLOR, p + w - 1] | b[COLOR, p + w] << 2 | b[COLOR, p + w + 1] << 4
    code |= b[COLOR, p + 1] << 6 | b[COLOR, p - w + 1] << 8 | b[COLOR, p - w] << 10
    code |= b[COLOR, p - w - 1] << 12 | b[COLOR, p - 1] << 14
    return code

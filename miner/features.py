"""Tactical features of candidate moves: one numba function for miner, rater and engine.

``tactical_features(b, m, color, points, out)`` writes, for every candidate point
``points[i]`` (a legal move of ``color``; never PASS, the caller handles the pass
candidate), the *level* of each feature into ``out[i, f]``: a small non-negative
int, 0 meaning "feature absent". Own = ``color`` (the player to move), opponent =
``3 - color``; "the previous move" is ``m[LAST]`` (the opponent's), "the move
before" is ``m[LAST2]`` (ours). The position is read, never changed.

Feature table (column ``f`` = ``FEATURES.index(name)``; ``FEATURE_LEVELS[f]`` is
``max level + 1``, the size of an array indexed by level):

================= ========= ===================================================
name              levels    meaning
================= ========= ===================================================
capture           0..6      the move captures; the first that applies of
                            1 a captured string touches an own string in atari,
                            2 it contains the previous move's stone,
                            3 the previous move's stone is next to the move
                              (capturing prevents that stone connecting),
                            4 takes a ko (one stone captured, the capturing
                              stone left alone in atari),
                            5 the string could have escaped (not in a ladder),
                            6 the string was caught in a ladder anyway
                            (Coulom 2007's levels 1-5, ko added as 4)
extension         0..4      the move is the last liberty of an own string in
                            atari: 1 a new atari (the previous move touches the
                            string) escaped, 2 a new atari still caught (one
                            liberty after, or a working ladder), 3 an older
                            atari escaped, 4 an older atari still caught
self_atari        0..2      the move's string has one liberty after it:
                            1 and it captures nothing, 2 though it captures
atari             0..3      the move leaves an opponent string with one
                            liberty: 1 the string cannot escape (ladder or
                            immediate), 2 other atari while a ko is on the board
                            (``m[KO]`` set), 3 other atari
border            0..4      distance to the nearest edge, 1 (first line) .. 4;
                            0 from the fifth line in
last_dist         0, 2..17  gridcular distance d = |dx|+|dy|+max(|dx|,|dy|) to
                            the previous move, 17 for d >= 17; 0 when there is
                            none (pass, start, setup)
last2_dist        0..17     the same for the move before the previous one;
                            1 when the move is on that very point (our stone
                            there was captured since)
libs_after        1..8      liberties of the move's string after it (captures
                            counted), 8 for 8 or more
capture_size      0..8      stones the move captures, 8 for 8 or more
self_atari_size   0..8      stones of the move's string when it is left in
                            atari (self_atari >= 1), 8 for 8 or more
ladder            0..2      1 ladder capture: an atari whose string, extended,
                            has two liberties and is chased to capture by a
                            working ladder; 2 ladder escape: an extension to
                            exactly two liberties that a ladder cannot catch
nbr3x3            1..K      the 3x3 neighbourhood, K = ``NBR3X3_LEVELS``: each
                            of the 8 neighbours empty / own string with 1, 2,
                            3+ liberties / opponent's with 1, 2, 3+ / off
                            board, canonical under the 8 symmetries, as a dense
                            id (0 only for a code thought impossible)
line3             0..1      third line, no stone in the 5x5 square around
                            (territory line)
line1_alone       0..1      first line, no stone in the 5x5 square around
                            (the "death line")
peep_connect      0..1      connects two own strings next to the opponent's
                            previous move (answering a peep)
hane              0..1      diagonal to an own stone, next to an opponent stone
                            that touches it, the fourth point of the 2x2 empty
connect           0..1      touches two or more different own strings
wall              0..1      extends a straight line of two or more own stones
bad_kogeima       0..1      a knight's move from an own stone with an opponent
                            stone and no own stone on the two points between
empty_triangle    0..1      makes three own stones in a 2x2 square with the
                            fourth point empty
================= ========= ===================================================

The MoGo expert shapes (Chatriot, Gelly, Hoock, Perez, Rimmel, Teytaud 2008) are
published by name only; the definitions above are ours.

Ladders are read on a stack of board copies (``ladder_captured``): the attacker
ataris, the defender extends or captures an attacking string in atari; an atari
the defender escapes at once (three liberties after extending) is ruled out
without playing it. A reading visits at most ``LADDER_BUDGET`` positions,
shared evenly among the moves tried at each node, and ``LADDER_DEPTH`` moves; a
line it cannot finish counts as an escape. Each move's share does not depend on
the order the moves are tried in, so neither does the outcome: a ladder reads
the same on a rotated, mirrored or colour-swapped board. Superko is ignored
while reading. Ladders are read only for ataris, extensions to two
liberties and captures whose string could extend to two liberties.

The 3x3 code: the 8 neighbours in ring order NW N NE E SE S SW W (row + 1 is
north), 3 bits each (``NB_*``: empty, own 1/2/3+ liberties, opponent 1/2/3+, off
board), point i at bits 3i. ``nbr3x3_raw`` computes it for any empty point (for
playout policies), ``nbr3x3_canonical`` takes the least of its 8 symmetric
images, ``nbr3x3_id`` maps that to the dense level. The levels are the 47,714
canonical neighbourhoods a legal position can show (two ring-adjacent stones of
one colour are one string, so share their liberty class; a string with 1 or 2
liberties shows no more empty neighbours in the 3x3 than that), sorted by code:
``NBR3X3_CODES[level - 1]`` is the code, ``nbr3x3_describe(level)`` draws it.

Liberty counts are exact (pseudo-liberties are not): ``liberties`` walks a string
with a stamp array, ``libs_after`` counts the liberties a move's string would have
without playing it.

Hot loops can call ``tactical_features_with(..., feature_scratch(b, m))`` to
reuse the scratch arrays across positions of one board size; ``features_of``
(plain Python) takes a ``shapemill.engine.Board``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from shapemill.engine.rules import (
    BORDER,
    COLOR,
    EMPTY,
    HEAD,
    KO,
    LAST,
    LAST2,
    NEXT,
    OK,
    PASS,
    PLIBS,
    SIZE,
    STONES,
    STRIDE,
    atari_point,
    illegal_reason,
    in_atari,
    play,
)

FEATURES: tuple[str, ...] = (
    "capture",
    "extension",
    "self_atari",
    "atari",
    "border",
    "last_dist",
    "last2_dist",
    "libs_after",
    "capture_size",
    "self_atari_size",
    "ladder",
    "nbr3x3",
    "line3",
    "line1_alone",
    "peep_connect",
    "hane",
    "connect",
    "wall",
    "bad_kogeima",
    "empty_triangle",
)
N_FEATURES = len(FEATURES)

(
    F_CAPTURE,
    F_EXTENSION,
    F_SELF_ATARI,
    F_ATARI,
    F_BORDER,
    F_LAST_DIST,
    F_LAST2_DIST,
    F_LIBS_AFTER,
    F_CAPTURE_SIZE,
    F_SELF_ATARI_SIZE,
    F_LADDER,
    F_NBR3X3,
    F_LINE3,
    F_LINE1_ALONE,
    F_PEEP_CONNECT,
    F_HANE,
    F_CONNECT,
    F_WALL,
    F_BAD_KOGEIMA,
    F_EMPTY_TRIANGLE,
) = range(N_FEATURES)

#: Clipping of the count features and of the distances.
MAX_LIBS = 8
MAX_SIZE = 8
MAX_DIST = 17
#: Positions a ladder reading may visit before it gives up (and calls it an escape).
LADDER_BUDGET = 200

# ---------------------------------------------------------------------------
# 3x3 neighbourhood codes
#
# Ring order of the 8 neighbours (row + 1 is north): NW N NE E SE S SW W, so
# consecutive ring points are orthogonal neighbours and the orthogonal
# neighbours of the centre sit at odd positions. Each point is 3 bits of the raw
# code (point i at bits 3i..3i+2):
NB_EMPTY, NB_OWN1, NB_OWN2, NB_OWN3, NB_OPP1, NB_OPP2, NB_OPP3, NB_OFF = range(8)
# A 90-degree rotation shifts the ring by two points; a mirror maps i -> -i.
# ---------------------------------------------------------------------------


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
def libs_up_to_3(b: np.ndarray, w: int, h: int) -> int:
    """min(liberties, 3) of the string of stone ``h``, exact, without scratch memory."""
    h = b[HEAD, h]
    if in_atari(b, h):
        return 1
    if b[PLIBS, h] <= 2:
        return 2
    l1 = -1
    l2 = -1
    s = h
    while True:
        for q in (s - 1, s + 1, s - w, s + w):
            if b[COLOR, q] == EMPTY and q != l1 and q != l2:
                if l1 < 0:
                    l1 = q
                elif l2 < 0:
                    l2 = q
                else:
                    return 3
        s = b[NEXT, s]
        if s == h:
            break
    return 2


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
def _raw_from_libs(b: np.ndarray, w: int, color: int, p: int, libs3: np.ndarray) -> int:
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


# ---------------------------------------------------------------------------
# Liberties
# ---------------------------------------------------------------------------


@njit(cache=True)
def _next_stamp(mark: np.ndarray) -> int:
    """A fresh stamp for ``mark``; ``mark[0]`` (a border point) keeps the counter."""
    s = mark[0] + 1
    if s >= 0x3FFFFFFF:
        mark[:] = 0
        s = 1
    mark[0] = s
    return s


@njit(cache=True)
def liberties(b: np.ndarray, m: np.ndarray, h: int, limit: int, mark: np.ndarray) -> int:
    """Distinct liberties of the string of stone ``h``, counted up to ``limit``.

    ``mark`` is an int32 scratch array of the board's length, zeroed once and
    reused: each call takes a fresh stamp, kept in ``mark[0]``.
    """
    w = m[STRIDE]
    stamp = _next_stamp(mark)
    n = 0
    s = h
    while True:
        for q in (s - 1, s + 1, s - w, s + w):
            if b[COLOR, q] == EMPTY and mark[q] != stamp:
                mark[q] = stamp
                n += 1
                if n >= limit:
                    return n
        s = b[NEXT, s]
        if s == h:
            break
    return n


@njit(cache=True)
def _libs_after(b: np.ndarray, m: np.ndarray, color: int, p: int, limit: int,
                mark: np.ndarray, with_captures: bool) -> tuple[int, int]:
    w = m[STRIDE]
    other = 3 - color
    stamp = _next_stamp(mark)
    mark[p] = stamp
    h0 = -1
    h1 = -1
    h2 = -1
    h3 = -1
    stones = 1
    for q in (p - 1, p + 1, p - w, p + w):
        c = b[COLOR, q]
        if c == other:
            if with_captures:
                h = b[HEAD, q]
                if mark[h] != -stamp and in_atari(b, h):
                    s = h
                    while True:
                        mark[s] = -stamp
                        s = b[NEXT, s]
                        if s == h:
                            break
        elif c == color:
            h = b[HEAD, q]
            if h != h0 and h != h1 and h != h2:
                if h0 < 0:
                    h0 = h
                elif h1 < 0:
                    h1 = h
                elif h2 < 0:
                    h2 = h
                else:
                    h3 = h
                stones += b[STONES, h]
    n = 0
    for q in (p - 1, p + 1, p - w, p + w):
        if (b[COLOR, q] == EMPTY or mark[q] == -stamp) and mark[q] != stamp:
            mark[q] = stamp
            n += 1
    if n >= limit:
        return n, stones
    for h in (h0, h1, h2, h3):
        if h < 0:
            break
        s = h
        while True:
            for q in (s - 1, s + 1, s - w, s + w):
                if (b[COLOR, q] == EMPTY or mark[q] == -stamp) and mark[q] != stamp:
                    mark[q] = stamp
                    n += 1
                    if n >= limit:
                        return n, stones
            s = b[NEXT, s]
            if s == h:
                break
    return n, stones


@njit(cache=True)
def libs_after(
    b: np.ndarray, m: np.ndarray, color: int, p: int, limit: int, mark: np.ndarray
) -> tuple[int, int]:
    """(liberties, stones) of ``color``'s string at empty ``p`` if it played there.

    Captures are counted (captured stones next to the new string become its
    liberties); nothing is played. Liberties are counted up to ``limit``;
    ``mark`` is scratch as for ``liberties``.
    """
    return _libs_after(b, m, color, np.int64(p), np.int64(limit), mark, np.bool_(True))


# ---------------------------------------------------------------------------
# Ladders
# ---------------------------------------------------------------------------


#: Deepest ladder reading, in moves (a ladder across a 19x19 board is about 70).
LADDER_DEPTH = 96
_MAX_CHILDREN = 8


@njit(cache=True)
def _captures_any(b: np.ndarray, w: int, color: int, x: int) -> bool:
    """Whether ``color`` playing at ``x`` would capture something."""
    for q in (x - 1, x + 1, x - w, x + w):
        if b[COLOR, q] == 3 - color and in_atari(b, b[HEAD, q]):
            return True
    return False


@njit(cache=True)
def _ladder_expand(b: np.ndarray, m: np.ndarray, s: int, attacker: bool,
                   moves: np.ndarray, mark: np.ndarray) -> int:
    """Write the moves worth trying at a ladder node into ``moves``; returns their
    number, or when the node is decided already -2 (captured) or -1 (escaped)."""
    w = m[STRIDE]
    h = b[HEAD, s]
    d = np.int64(b[COLOR, s])
    a = 3 - d
    if attacker:
        n = libs_up_to_3(b, w, np.int64(h))
        if n == 1:
            return -2 if illegal_reason(b, m, a, atari_point(b, h)) == OK else -1
        if n >= 3:
            return -1
        l1 = -1
        l2 = -1
        t = h
        while l2 < 0:
            for q in (t - 1, t + 1, t - w, t + w):
                if b[COLOR, q] == EMPTY and q != l1:
                    if l1 < 0:
                        l1 = q
                    elif l2 < 0:
                        l2 = q
            t = b[NEXT, t]
            if t == h:
                break
        k = 0
        for i in range(2):
            x = l1 if i == 0 else l2
            y = l2 if i == 0 else l1
            if illegal_reason(b, m, a, x) != OK:
                continue
            # skip, unplayed, an atari the defender escapes at once: extending at
            # y gives at least these liberties (x taken; captures only add)
            if not _captures_any(b, w, a, np.int64(x)):
                n, _ = _libs_after(b, m, d, np.int64(y), np.int64(4), mark, np.bool_(False))
                if n - 1 >= 3:
                    continue
            moves[k] = x
            k += 1
        return k if k > 0 else -1
    # defender to move: the string is in atari
    k = 0
    lib = atari_point(b, h)
    if illegal_reason(b, m, d, lib) == OK:
        n, _ = _libs_after(b, m, d, np.int64(lib), np.int64(3), mark, np.bool_(True))
        if n >= 3:
            return -1
        if n == 2:
            moves[k] = lib
            k += 1
    t = h
    while True:
        for q in (t - 1, t + 1, t - w, t + w):
            if b[COLOR, q] == a:
                ha = b[HEAD, q]
                if in_atari(b, ha):
                    cp = atari_point(b, ha)
                    if cp != lib and k < _MAX_CHILDREN and illegal_reason(b, m, d, cp) == OK:
                        fresh = True
                        for j in range(k):
                            if moves[j] == cp:
                                fresh = False
                        if fresh:
                            moves[k] = cp
                            k += 1
        t = b[NEXT, t]
        if t == h:
            break
    return k if k > 0 else -2


@njit(cache=True)
def _ladder(work: np.ndarray, mwork: np.ndarray, moves: np.ndarray, mark: np.ndarray,
            s: int, defender_to_move: bool, budget: int) -> bool:
    """Whether the string of stone ``s`` in the position ``work[0], mwork[0]`` is
    captured by a ladder; level 0 of the stack is left as it was.

    Defender to move: the string is in atari; it may extend or capture an
    adjacent attacking string in atari, and is captured if every such move
    fails. Attacker to move: one liberty, it captures; two, it tries an atari on
    each; three or more, the string escapes. An and-or search, depth first, on
    the board stack ``work``/``mwork`` (``LADDER_DEPTH`` levels). A node may visit
    ``budget`` positions below it, split evenly among its moves (each move's
    position costs one); a move it has no share for, or past the stack's depth,
    counts as an escape. A move's outcome depends on its position and share
    only, so the reading's does not depend on the order of the moves.
    """
    depth = work.shape[0]
    nmv = np.empty(depth, dtype=np.int64)
    nxt = np.empty(depth, dtype=np.int64)
    share = np.empty(depth, dtype=np.int64)
    # node k: attacker to move when (k odd) == defender_to_move
    r = _ladder_expand(work[0], mwork[0], np.int64(s), not defender_to_move, moves[0], mark)
    if r < 0:
        return r == -2
    nmv[0] = r
    nxt[0] = 0
    share[0] = budget // r
    k = 0
    d = np.int64(work[0, COLOR, s])
    while True:
        attacker = (k % 2 == 1) == defender_to_move
        if nxt[k] < nmv[k]:
            mv = moves[k, nxt[k]]
            nxt[k] += 1
            if share[k] < 1 or k + 1 >= depth:
                captured = False  # not read: an escape
            else:
                work[k + 1] = work[k]
                mwork[k + 1] = mwork[k]
                play(work[k + 1], mwork[k + 1], 3 - d if attacker else d, mv)
                r = _ladder_expand(
                    work[k + 1], mwork[k + 1], np.int64(s), not attacker, moves[k + 1], mark
                )
                if r >= 0:
                    share[k + 1] = (share[k] - 1) // r
                    k += 1
                    nmv[k] = r
                    nxt[k] = 0
                    continue
                captured = r == -2
        else:
            captured = not attacker
            if k == 0:
                return captured
            k -= 1
        # a child of node k is decided: settle node k or go on with its next child
        while True:
            attacker = (k % 2 == 1) == defender_to_move
            if captured != attacker:
                break
            if k == 0:
                return captured
            k -= 1
    return False


@njit(cache=True)
def ladder_scratch(b: np.ndarray, m: np.ndarray):
    """Scratch arrays for ``_ladder``: board stack, meta stack, moves."""
    work = np.empty((LADDER_DEPTH, b.shape[0], b.shape[1]), dtype=np.int32)
    mwork = np.empty((LADDER_DEPTH, m.shape[0]), dtype=np.int64)
    moves = np.empty((LADDER_DEPTH, _MAX_CHILDREN), dtype=np.int32)
    return work, mwork, moves


@njit(cache=True)
def ladder_captured(b: np.ndarray, m: np.ndarray, s: int, defender_to_move: bool) -> bool:
    """Whether the string of stone ``s`` dies in a ladder (see ``_ladder``), with
    fresh scratch and the default budget: for tools and tests."""
    work, mwork, moves = ladder_scratch(b, m)
    mark = np.zeros(b.shape[1], dtype=np.int32)
    work[0] = b
    mwork[0] = m
    return _ladder(work, mwork, moves, mark, np.int64(s), np.bool_(defender_to_move),
                   np.int64(LADDER_BUDGET))


# ---------------------------------------------------------------------------
# Features of one candidate
# ---------------------------------------------------------------------------


@njit(cache=True)
def gridcular_distance(p: int, q: int, w: int) -> int:
    """|dx| + |dy| + max(|dx|, |dy|) between points ``p`` and ``q`` of a board of stride ``w``."""
    dx = abs(p % w - q % w)
    dy = abs(p // w - q // w)
    return dx + dy + max(dx, dy)


@njit(cache=True)
def distance_level(p: int, q: int, w: int, floor: int) -> int:
    """The level of the last_dist (``floor`` 0) or last2_dist (``floor`` 1) feature
    of ``p`` for the earlier move ``q``: the gridcular distance, clipped to
    ``[floor, MAX_DIST]``."""
    return max(min(gridcular_distance(p, q, w), MAX_DIST), floor)


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
    # bad kogeima: needs an opponent stone on a point between, inside the 3x3
    if opp_ring:
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
                out[F_BAD_KOGEIMA] = 1
                break


@njit(cache=True)
def point_features(b: np.ndarray, m: np.ndarray, color: int, p: int, libs3: np.ndarray,
                  mark: np.ndarray, work: np.ndarray, mwork: np.ndarray,
                  moves: np.ndarray, out: np.ndarray) -> None:
    """The level of every feature of the move ``color`` at ``p`` into ``out``.

    ``libs3`` must hold min(liberties, 3) at the head of every string that
    touches ``p`` or its 3x3 block (``string_libs3`` fills it for the whole
    board); the rest is scratch from ``feature_scratch``."""
    for f in range(N_FEATURES):
        out[f] = 0
    if b[COLOR, p] != EMPTY:
        return
    w = m[STRIDE]
    n = m[SIZE]
    other = 3 - color
    budget = np.int64(LADDER_BUDGET)
    r = p // w - 1
    c = p % w - 1
    line = min(min(r, c), min(n - 1 - r, n - 1 - c)) + 1
    if line <= 4:
        out[F_BORDER] = line
    last = m[LAST]
    if last != PASS:
        out[F_LAST_DIST] = distance_level(p, last, w, 0)
    last2 = m[LAST2]
    if last2 != PASS:
        out[F_LAST2_DIST] = distance_level(p, last2, w, 1)

    # neighbouring strings
    own0 = -1
    own1 = -1
    own2 = -1
    own3 = -1
    n_own = 0
    opp0 = -1
    opp1 = -1
    opp2 = -1
    opp3 = -1
    n_opp = 0
    n_empty = 0
    for q in (p - 1, p + 1, p - w, p + w):
        cq = b[COLOR, q]
        if cq == EMPTY:
            n_empty += 1
        elif cq == color:
            h = b[HEAD, q]
            if h != own0 and h != own1 and h != own2:
                if n_own == 0:
                    own0 = h
                elif n_own == 1:
                    own1 = h
                elif n_own == 2:
                    own2 = h
                else:
                    own3 = h
                n_own += 1
        elif cq == other:
            h = b[HEAD, q]
            if h != opp0 and h != opp1 and h != opp2:
                if n_opp == 0:
                    opp0 = h
                elif n_opp == 1:
                    opp1 = h
                elif n_opp == 2:
                    opp2 = h
                else:
                    opp3 = h
                n_opp += 1

    cap_stones = 0
    n_atari_targets = 0
    for h in (opp0, opp1, opp2, opp3):
        if h < 0:
            break
        if libs3[h] == 1:
            cap_stones += b[STONES, h]
        elif libs3[h] == 2:
            n_atari_targets += 1
    n_ext = 0
    new_atari = False
    for h in (own0, own1, own2, own3):
        if h < 0:
            break
        if libs3[h] == 1:
            n_ext += 1
            if last != PASS and b[COLOR, last] == other:
                for q in (last - 1, last + 1, last - w, last + w):
                    if b[COLOR, q] == color and b[HEAD, q] == h:
                        new_atari = True

    # liberties and size of the new string
    if n_own == 0 and cap_stones == 0:
        libs = n_empty
        stones = 1
    else:
        libs, stones = _libs_after(b, m, color, p, np.int64(MAX_LIBS), mark, np.bool_(True))
    out[F_LIBS_AFTER] = min(libs, MAX_LIBS)
    out[F_CAPTURE_SIZE] = min(cap_stones, MAX_SIZE)
    if libs == 1:
        out[F_SELF_ATARI] = 1 if cap_stones == 0 else 2
        out[F_SELF_ATARI_SIZE] = min(stones, MAX_SIZE)

    # capture
    if cap_stones > 0:
        ko = cap_stones == 1 and libs == 1 and stones == 1
        best = 7
        for h in (opp0, opp1, opp2, opp3):
            if h < 0:
                break
            if libs3[h] != 1:
                continue
            level = 7
            s = h
            while True:
                for q in (s - 1, s + 1, s - w, s + w):
                    if b[COLOR, q] == color and libs3[b[HEAD, q]] == 1:
                        level = 1
                s = b[NEXT, s]
                if s == h or level == 1:
                    break
            if level > 2 and last != PASS and b[COLOR, last] == other and b[HEAD, last] == h:
                level = 2
            if level > 3 and last != PASS and b[COLOR, last] == other and (
                last == p - 1 or last == p + 1 or last == p - w or last == p + w
            ):
                level = 3
            if level > 4 and ko:
                level = 4
            best = min(best, level)
        if best > 4:
            # would the captured strings escape if the opponent extended at p?
            ext, _ = _libs_after(b, m, other, p, np.int64(3), mark, np.bool_(True))
            if ext >= 3:
                best = 5
            elif ext <= 1:
                best = 6
            else:
                work[0] = b
                mwork[0] = m
                mwork[0, KO] = 0
                play(work[0], mwork[0], other, p)
                caught = _ladder(work, mwork, moves, mark, p, np.bool_(False), budget)
                best = 6 if caught else 5
        out[F_CAPTURE] = best

    # extension and atari: read ladders in the position after the move
    played = False
    if n_ext > 0:
        if libs >= 3:
            caught = False
        elif libs <= 1:
            caught = True
        else:
            work[0] = b
            mwork[0] = m
            play(work[0], mwork[0], color, p)
            played = True
            caught = _ladder(work, mwork, moves, mark, p, np.bool_(False), budget)
            if not caught:
                out[F_LADDER] = 2
        out[F_EXTENSION] = (1 if new_atari else 3) + (1 if caught else 0)
    if n_atari_targets > 0:
        level = 2 if m[KO] != PASS else 3
        for h in (opp0, opp1, opp2, opp3):
            if h < 0:
                break
            if libs3[h] != 2:
                continue
            if cap_stones == 0:
                # the other liberty y: extending there gives at least these
                # liberties (p taken; captures only add)
                y = -1
                s = h
                while y < 0:
                    for q in (s - 1, s + 1, s - w, s + w):
                        if b[COLOR, q] == EMPTY and q != p:
                            y = q
                    s = b[NEXT, s]
                    if s == h:
                        break
                ext, _ = _libs_after(b, m, other, np.int64(y), np.int64(4), mark, np.bool_(False))
                if ext - 1 >= 3:
                    continue
            if not played:
                work[0] = b
                mwork[0] = m
                play(work[0], mwork[0], color, p)
                played = True
            if _ladder(work, mwork, moves, mark, np.int64(h), np.bool_(True), budget):
                level = 1
                lib = atari_point(work[0], work[0, HEAD, h])
                ext, _ = _libs_after(work[0], mwork[0], other, np.int64(lib), np.int64(3), mark,
                                     np.bool_(True))
                if ext == 2:
                    out[F_LADDER] = 1
        out[F_ATARI] = level

    # 3x3 neighbourhood
    raw = _raw_from_libs(b, w, color, p, libs3)
    nid = NBR3X3_EMPTY if raw == 0 else nbr3x3_id(raw)
    out[F_NBR3X3] = nid
    _shapes(b, m, color, p, r, c, line, np.int64(n_own), np.int64(raw), np.int64(nid), out)


@njit(cache=True)
def string_libs3(b: np.ndarray, m: np.ndarray, libs3: np.ndarray) -> None:
    """Fill ``libs3[head]`` with min(liberties, 3) for every string on the board."""
    w = m[STRIDE]
    for p in range(b.shape[1]):
        c = b[COLOR, p]
        if (c == 1 or c == 2) and b[HEAD, p] == p:
            libs3[p] = libs_up_to_3(b, w, np.int64(p))


@njit(cache=True)
def feature_scratch(b: np.ndarray, m: np.ndarray):
    """Scratch for ``tactical_features_with``, reusable across positions of one
    board size: (libs3, mark, ladder board stack, ladder meta stack, ladder moves)."""
    work, mwork, moves = ladder_scratch(b, m)
    return (
        np.zeros(b.shape[1], dtype=np.int32),
        np.zeros(b.shape[1], dtype=np.int32),
        work,
        mwork,
        moves,
    )


@njit(cache=True)
def tactical_features_with(b: np.ndarray, m: np.ndarray, color: int, points: np.ndarray,
                           out: np.ndarray, scratch) -> None:
    """``tactical_features`` with caller-owned scratch from ``feature_scratch``
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
    tactical_features_with(b, m, color, points, out, feature_scratch(b, m))


@njit(cache=True)
def legal_moves(b: np.ndarray, m: np.ndarray, color: int) -> np.ndarray:
    """Board points where ``color`` may play (simple ko and suicide checked, not
    superko), in point order; PASS is not included."""
    w = m[STRIDE]
    n = m[SIZE]
    out = np.empty(n * n, dtype=np.int32)
    k = 0
    for r in range(n):
        for c in range(n):
            p = (r + 1) * w + c + 1
            if illegal_reason(b, m, color, p) == OK:
                out[k] = p
                k += 1
    return out[:k]


#: Size of an array indexed by the level of each feature (max level + 1).
FEATURE_LEVELS: tuple[int, ...] = (
    7,  # capture
    5,  # extension
    3,  # self_atari
    4,  # atari
    5,  # border
    MAX_DIST + 1,  # last_dist
    MAX_DIST + 1,  # last2_dist
    MAX_LIBS + 1,  # libs_after
    MAX_SIZE + 1,  # capture_size
    MAX_SIZE + 1,  # self_atari_size
    3,  # ladder
    NBR3X3_LEVELS + 1,  # nbr3x3
    2, 2, 2, 2, 2, 2, 2, 2,  # MoGo shapes
)


def features_of(board, color: str, points=None) -> tuple[np.ndarray, np.ndarray]:
    """(points, levels) for a ``shapemill.engine.Board``: convenience for tests and
    tools. ``points`` are board points (default: every legal move but pass)."""
    c = {"b": 1, "w": 2}[color]
    if points is None:
        points = legal_moves(board.b, board.m, c)
    points = np.asarray(points, dtype=np.int32)
    out = np.zeros((len(points), N_FEATURES), dtype=np.int32)
    tactical_features(board.b, board.m, c, points, out)
    return points, out

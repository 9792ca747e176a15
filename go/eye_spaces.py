"""Eye spaces that make two eyes: two spaces, or one whose shape lives by itself.

An *enclosed space* of a string is a connected set of empty points, all of them on the
playable mask, whose neighbours are the owner's stones, the edge and each other (no
opponent's stone inside), where the owner's strings around it are the string itself or
strings joined to it by miai: two empty points next to both, off the space, so that
the opponent's cut at one is answered at the other (no point serving two joins). The
owner then answers every move inside the space as if its strings were one.

Two enclosed spaces make two eyes. One lives or dies by its shape: which points touch
which, and which touch the string (its liberties there). With nothing else on the board
(the string has no other liberty, the opponent every ko threat it wants),
``tools/make_eye_spaces.py`` solved every shape of ``SPACE_MIN`` to ``SPACE_MAX`` points
by df-pn with the opponent moving first, and ``eye_space_table`` lists those that live
(two eyes by Benson's test at the end). A string with more liberties or more spaces only
lives the more easily, so a string that encloses a listed space lives whatever the rest
of the board holds: the straight and bent fours, for instance, not the straight three or
the pyramid four, whose vital point the opponent takes.

A shape is keyed by its points on an 8 x 8 grid after the symmetry that gives the smallest
key (the bit of row ``r``, column ``c`` at ``8 r + c``), with a second mask of the points
next to the string.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .eye_space_table import ALIVE
from .reading import adjacent_strings
from .rules import BORDER, COLOR, EMPTY, HEAD, NEXT, STRIDE

#: Fewest points of a space the table holds (two points never make two eyes).
SPACE_MIN = 3
#: Most points of a space the table holds: a shape's box then fits the key's 8 x 8 grid
#: below its sign bit; larger spaces are left to the search.
SPACE_MAX = 7
#: Most strings of the owner's around a space that ``_enclosed_space`` links.
SPACE_STRINGS = 4


@njit(cache=True)
def _enclosed_space(b: np.ndarray, m: np.ndarray, playable: np.ndarray, h: int, p: int,
                   seen: np.ndarray, mark: int, out: np.ndarray, used: np.ndarray) -> int:
    """The empty points connected to empty ``p``, written to ``out`` (``SPACE_MAX`` long),
    when they form an enclosed space of the string of ``h`` (see the module) of at most
    ``SPACE_MAX`` points; else -1, as soon as it sees that. Marks the points it reads
    ``mark`` in ``seen`` (a point another mark holds is of a space read before and cut
    short: not enclosed). ``used`` holds the miai points that joins already take
    (``used[0]`` of them, from ``used[1]``), and gets this space's."""
    w = m[STRIDE]
    color = b[COLOR, h]
    heads = np.empty(SPACE_STRINGS, dtype=np.int64)
    heads[0] = h
    strings = 1
    out[0] = p
    seen[p] = mark
    if playable[p] == 0:
        return -1
    k, i = 1, 0
    while i < k:
        q0 = out[i]
        i += 1
        for q in (q0 - 1, q0 + 1, q0 - w, q0 + w):
            c = b[COLOR, q]
            if c == BORDER or seen[q] == mark:
                continue
            if c == EMPTY:
                if seen[q] != 0 or k == SPACE_MAX or playable[q] == 0:
                    return -1  # a space read before (cut short), too large, or open
                seen[q] = mark
                out[k] = q
                k += 1
            elif c != color:
                return -1  # an opponent's stone
            elif not _holds(heads, strings, b[HEAD, q]):
                if strings == SPACE_STRINGS:
                    return -1
                heads[strings] = b[HEAD, q]
                strings += 1
    return k if _linked(b, w, playable, heads[:strings], out[:k], used) else -1


@njit(cache=True)
def _linked(b: np.ndarray, w: int, playable: np.ndarray, heads: np.ndarray, space: np.ndarray,
            used: np.ndarray) -> bool:
    """Whether the strings of ``heads`` are one, or joined by miai: each joined to one
    before it by two empty playable points off ``space`` next to both (the opponent
    takes one, the owner connects at the other), no point serving two joins (nor one of
    the joins ``used`` holds, which gets these when all are joined)."""
    n_used = used[0]
    for j in range(1, len(heads)):
        joined = False
        for i in range(j):
            found = 0
            pair = np.zeros(2, dtype=np.int64)
            s = heads[j]
            while found < 2:
                for q in (s - 1, s + 1, s - w, s + w):
                    if (found < 2 and b[COLOR, q] == EMPTY and playable[q] != 0 and not _holds(space, len(space), q)
                            and not _holds(used[1:], n_used, q) and not _holds(pair, found, q)
                            and heads[i] in adjacent_strings(b, w, b[COLOR, heads[i]], q)):
                        pair[found] = q
                        found += 1
                s = b[NEXT, s]
                if s == heads[j]:
                    break
            if found == 2:
                used[1 + n_used], used[2 + n_used] = pair[0], pair[1]
                n_used += 2
                joined = True
                break
        if not joined:
            return False
    used[0] = n_used
    return True


@njit(cache=True)
def _holds(a: np.ndarray, n: int, x: int) -> bool:
    """Whether ``x`` is among the first ``n`` entries of ``a``."""
    for i in range(n):
        if a[i] == x:
            return True
    return False


@njit(cache=True)
def space_key(b: np.ndarray, m: np.ndarray, pts: np.ndarray, k: int, h: int) -> tuple[int, int]:
    """The shape key of the ``k`` points ``pts`` of a space of the string of ``h``: the mask
    of its points and the mask of those next to the string, under the symmetry that
    gives the smallest pair."""
    w = m[STRIDE]
    color = b[COLOR, h]
    rows = np.empty(k, dtype=np.int64)
    cols = np.empty(k, dtype=np.int64)
    touch = np.zeros(k, dtype=np.bool_)
    for i in range(k):
        p = pts[i]
        rows[i], cols[i] = p // w, p % w
        for q in (p - 1, p + 1, p - w, p + w):
            if b[COLOR, q] == color:
                touch[i] = True
    best_cells, best_flags = np.int64(-1), np.int64(-1)
    a = np.empty(k, dtype=np.int64)
    c = np.empty(k, dtype=np.int64)
    for s in range(8):
        for i in range(k):
            x, y = (cols[i], rows[i]) if s & 4 else (rows[i], cols[i])
            a[i] = -x if s & 1 else x
            c[i] = -y if s & 2 else y
        a0, c0 = a.min(), c.min()
        cells, flags = np.int64(0), np.int64(0)
        for i in range(k):
            bit = np.int64(1) << ((a[i] - a0) * 8 + c[i] - c0)
            cells |= bit
            if touch[i]:
                flags |= bit
        if best_cells < 0 or cells < best_cells or (cells == best_cells and flags < best_flags):
            best_cells, best_flags = cells, flags
    return best_cells, best_flags


@njit(cache=True)
def _listed(table: np.ndarray, cells: int, flags: int) -> bool:
    """Whether the key (``cells``, ``flags``) is a row of ``table`` (sorted by both)."""
    lo, hi = 0, table.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if table[mid, 0] < cells or (table[mid, 0] == cells and table[mid, 1] < flags):
            lo = mid + 1
        else:
            hi = mid
    return lo < table.shape[0] and table[lo, 0] == cells and table[lo, 1] == flags


@njit(cache=True)
def _open_liberty(b: np.ndarray, w: int, h: int) -> bool:
    """Whether the string of ``h`` has a liberty with no opponent's stone next to it (where
    an enclosed space must start): most strings in a fight have none, and are passed over
    without a flood."""
    opponent = 3 - b[COLOR, h]
    s = h
    while True:
        for p in (s - 1, s + 1, s - w, s + w):
            if b[COLOR, p] == EMPTY and opponent not in (b[COLOR, p - 1], b[COLOR, p + 1], b[COLOR, p - w],
                                                         b[COLOR, p + w]):
                return True
        s = b[NEXT, s]
        if s == h:
            return False


@njit(cache=True)
def lives_by_space(b: np.ndarray, m: np.ndarray, playable: np.ndarray, h: int) -> bool:
    """Whether the string of ``h`` is alive whatever the rest of the board, the opponent
    to move: it encloses two spaces (each makes at least one eye: the opponent's stones
    in one are captured while the other holds a liberty), or one of a shape that lives
    by itself."""
    w = m[STRIDE]
    if not _open_liberty(b, w, h):
        return False
    seen = np.zeros(b.shape[1], dtype=np.int32)
    pts = np.empty(SPACE_MAX, dtype=np.int64)
    used = np.zeros(1 + 4 * SPACE_STRINGS, dtype=np.int64)  # two spaces' joins at most
    spaces, mark = 0, 0
    s = h
    while True:
        for p in (s - 1, s + 1, s - w, s + w):
            if b[COLOR, p] == EMPTY and not seen[p]:
                mark += 1
                k = _enclosed_space(b, m, playable, h, p, seen, mark, pts, used)
                if k > 0:
                    spaces += 1
                    if spaces == 2:
                        return True
                if k >= SPACE_MIN:
                    cells, flags = space_key(b, m, pts, k, h)
                    if _listed(ALIVE, cells, flags):
                        return True
        s = b[NEXT, s]
        if s == h:
            return False

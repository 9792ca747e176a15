"""Which points' tactical features a move can change: feature levels kept move by move.

Reading every feature of every empty point at every move costs a whole board of
``point_features`` calls, while a move changes the features of few points. A
:class:`Tracker` follows a game (or a playout) and, for the player to move, names
the points to read again; the rest keep the levels read before. A move marks:

- the 5x5 block around the move and around each captured stone (3x3 blocks and
  the MoGo shapes, which reach two points out, change there);
- the 3x3 block around every stone of a string touching the move or a captured
  stone whose liberties, counted up to 3, changed (and with them the 3x3 block
  codes, the captures, ataris and extensions of the points next to it), or just
  the liberties of such a string whose count up to 3 did not.

A colour to move reads again the points marked by the last two moves (its
opponent's and its own). Some capture, extension and peep-connect levels also
depend on the previous move (the points next to it, the last liberties of the
strings in atari next to it): those points of the opponent's move before that
are read again too, as their last-move levels expire.

Two things reach further than the marks: ladder readings (a far stone can break
a ladder) and the ko flag of the atari levels. They concern only the points next
to a string of at most two liberties, which :func:`add_short_liberties` adds
(the feature counts of ``mine`` read them again at every move; the gamma
playouts leave them stale on purpose). The two distances to the last moves
change with every move: users compute them when they use the levels.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .reading import ReadingScratch, libs_up_to_3, reading_scratch, string_libs3
from .rules import COLOR, EMPTY, HEAD, LAST, NEXT, PASS, STRIDE, atari_point, in_atari, play

#: Room for the points whose levels depend on one move as the previous move.
LAST_MOVE_POINTS = 16


class Tracker(NamedTuple):
    """What a game's moves marked, for the colour to move to read again."""

    scratch: ReadingScratch  # its libs3 is kept current at every string's head
    marks: np.ndarray  # int64[2, L]: the points move n marked, in slot n % 2
    n_marks: np.ndarray  # int64[2]
    last: np.ndarray  # int64[3, LAST_MOVE_POINTS]: move n's last-move points, in slot n % 3
    n_last: np.ndarray  # int64[3]
    stamp: np.ndarray  # int64[L]: stamps 3n + 1 (read before move n), 3n + 2 and 3n + 3 (move n)
    captured: np.ndarray  # int64[L]: scratch, the stones a move takes
    stale: np.ndarray  # int64[L]: the points to read again before the move


@njit(cache=True)
def new_tracker(b: np.ndarray, m: np.ndarray) -> Tracker:
    """A tracker for the position ``b, m``, whose every point is read fresh (nothing marked)."""
    points = b.shape[1]
    scratch = reading_scratch(b, m)
    string_libs3(b, m, scratch.libs3)
    return Tracker(
        scratch, np.empty((2, points), dtype=np.int64), np.zeros(2, dtype=np.int64),
        np.empty((3, LAST_MOVE_POINTS), dtype=np.int64), np.zeros(3, dtype=np.int64),
        np.zeros(points, dtype=np.int64), np.empty(points, dtype=np.int64), np.empty(points, dtype=np.int64),
    )


@njit(cache=True)
def stale_points(tracker: Tracker, n: int) -> int:
    """Write into ``tracker.stale`` the points whose features the player to move
    before move ``n`` must read again: those the last two moves marked and the
    last-move points of the move three back; returns how many."""
    tick = 3 * n + 1
    k = 0
    for rows, count in (
        (tracker.marks[0], tracker.n_marks[0]),
        (tracker.marks[1], tracker.n_marks[1]),
        (tracker.last[n % 3], tracker.n_last[n % 3]),
    ):
        for j in range(count):
            k = _mark(tracker.stale, k, tracker.stamp, tick, rows[j])
    return k


@njit(cache=True)
def add_short_liberties(b: np.ndarray, m: np.ndarray, tracker: Tracker, n: int, points: np.ndarray, k: int) -> int:
    """Add to the ``k`` stale points of move ``n`` those of ``points`` next to a
    string of at most two liberties: their ladder readings and ko-flag levels can
    change with any move. Returns the new count."""
    w = m[STRIDE]
    libs3 = tracker.scratch.libs3
    for p in points:
        for q in (p - 1, p + 1, p - w, p + w):
            c = b[COLOR, q]
            if (c == 1 or c == 2) and libs3[b[HEAD, q]] <= 2:
                k = _mark(tracker.stale, k, tracker.stamp, 3 * n + 1, p)
                break
    return k


@njit(cache=True)
def play_tracked(b: np.ndarray, m: np.ndarray, color: int, p: int, tracker: Tracker, n: int) -> None:
    """Play move ``n`` (``color`` at ``p``) and mark the points it can change."""
    tracker.n_marks[n % 2] = _play_and_mark(
        b, m, color, p, tracker.marks[n % 2], tracker.stamp, 3 * n + 2, tracker.scratch.libs3, tracker.captured
    )
    tracker.n_last[n % 3] = _last_move_points(b, m, tracker.last[n % 3])


@njit(cache=True)
def _mark(marks: np.ndarray, n: int, stamp: np.ndarray, tick: int, p: int) -> int:
    if stamp[p] != tick:
        stamp[p] = tick
        marks[n] = p
        n += 1
    return n


@njit(cache=True)
def _mark_block(marks: np.ndarray, n: int, stamp: np.ndarray, tick: int, p: int, w: int, r: int) -> int:
    """Mark the on-board points of the (2r+1)x(2r+1) block around ``p``."""
    size = w - 2
    row, col = p // w, p % w
    for y in range(max(1, row - r), min(size, row + r) + 1):
        for x in range(max(1, col - r), min(size, col + r) + 1):
            n = _mark(marks, n, stamp, tick, y * w + x)
    return n


@njit(cache=True)
def _mark_string(b: np.ndarray, marks: np.ndarray, n: int, stamp: np.ndarray, tick: int, h: int,
                 w: int, libs3: np.ndarray, changed: bool) -> int:
    """Refresh the liberty count of the string of ``h`` and mark what it changes.

    When the string ``changed`` (new stones) or its count up to 3 did, that is the
    3x3 block of each stone and the last liberty of each enemy string in atari
    next to it (capturing there is "saving a string in atari" when this one is);
    otherwise only its liberties, whose liberties-after and sizes moved."""
    h = b[HEAD, h]
    old = libs3[h]
    libs3[h] = libs_up_to_3(b, w, h)
    changed = changed or libs3[h] != old
    enemy = 3 - b[COLOR, h]
    s = h
    while True:
        if changed:
            n = _mark_block(marks, n, stamp, tick, s, w, 1)
        for q in (s - 1, s + 1, s - w, s + w):
            if not changed and b[COLOR, q] == EMPTY:
                n = _mark(marks, n, stamp, tick, q)
            elif changed and b[COLOR, q] == enemy and in_atari(b, b[HEAD, q]):
                n = _mark(marks, n, stamp, tick, atari_point(b, b[HEAD, q]))
        s = b[NEXT, s]
        if s == h:
            break
    return n


@njit(cache=True)
def _play_and_mark(b: np.ndarray, m: np.ndarray, color: int, p: int, marks: np.ndarray, stamp: np.ndarray,
                   tick: int, libs3: np.ndarray, captured: np.ndarray) -> int:
    """Play ``color`` at ``p`` and write into ``marks`` the points whose features
    the move may change (see the module docstring); returns how many. Stamps
    ``tick`` and ``tick + 1`` are this move's: captured stones, then marks."""
    if p == PASS:
        play(b, m, color, p)
        return 0
    w = m[STRIDE]
    n_cap = 0
    for q in (p - 1, p + 1, p - w, p + w):  # the stones this move will take
        if b[COLOR, q] == 3 - color and in_atari(b, b[HEAD, q]) and atari_point(b, b[HEAD, q]) == p:
            h = b[HEAD, q]
            s = h
            while True:
                if n_cap < len(captured) and stamp[s] != tick:
                    stamp[s] = tick
                    captured[n_cap] = s
                    n_cap += 1
                s = b[NEXT, s]
                if s == h:
                    break
    play(b, m, color, p)
    tick += 1
    n = _mark_block(marks, 0, stamp, tick, p, w, 2)
    n = _mark_string(b, marks, n, stamp, tick, p, w, libs3, True)
    for q in (p - 1, p + 1, p - w, p + w):
        if b[COLOR, q] == 3 - color:
            n = _mark_string(b, marks, n, stamp, tick, q, w, libs3, False)
    for i in range(n_cap):
        s = captured[i]
        n = _mark_block(marks, n, stamp, tick, s, w, 2)
        for q in (s - 1, s + 1, s - w, s + w):
            if b[COLOR, q] == color:
                n = _mark_string(b, marks, n, stamp, tick, q, w, libs3, False)
    return n


@njit(cache=True)
def _last_move_points(b: np.ndarray, m: np.ndarray, out: np.ndarray) -> int:
    """Into ``out``, the points whose levels depend on the move just played being
    the previous move: its neighbours and the last liberty of each string in atari
    at or next to it; returns how many."""
    p = m[LAST]
    if p == PASS:
        return 0
    w = m[STRIDE]
    n = 0
    for q in (p - 1, p + 1, p - w, p + w):
        out[n] = q
        n += 1
    for q in (p, p - 1, p + 1, p - w, p + w):
        if (b[COLOR, q] == 1 or b[COLOR, q] == 2) and in_atari(b, b[HEAD, q]):
            out[n] = atari_point(b, b[HEAD, q])
            n += 1
    return n

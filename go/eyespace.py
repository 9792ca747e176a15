"""The eye space a group is shut in, and the small ones that cannot make two eyes.

A group is *shut in* when, from one of its strings, the points reachable without
crossing the opponent's stones (its stones and the empty points among them: its *area*)
are all on the playable ``area`` mask (no way out, no string of its own that no move can
capture), and every opponent string next to the area has a stone or a liberty off the
mask (no move can take it, so it is never captured and the area never grows). Such a
group owns no more than the area's empty points. Of those, a point next to an
opponent's string with a liberty off the mask never becomes an eye (the string is never
captured), and the opponent can fill it at any time without risk: the group's *eye
points* are the others. The group is dead when its eye points are none, one, two next
to each other, four in a square, or, with the opponent to move (who takes the vital
point), three in one piece, the pyramid four, the bulky five, the crossed five or the
rabbity six: the textbook nakade shapes (Davies, "Life and Death", 1975).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .rules import BORDER, COLOR, EMPTY, HEAD, NEXT, STRIDE


@njit(cache=True)
def liberty_off(b: np.ndarray, w: int, mask: np.ndarray, h: int) -> bool:
    """Whether the string of ``h`` has a liberty off ``mask`` (its points 0): outside a
    problem's region, or off the playable points."""
    s = h
    while True:
        for q in (s - 1, s + 1, s - w, s + w):
            if b[COLOR, q] == EMPTY and mask[q] == 0:
                return True
        s = b[NEXT, s]
        if s == h:
            return False


@njit(cache=True)
def stone_off(b: np.ndarray, mask: np.ndarray, h: int) -> bool:
    """Whether the string of ``h`` has a stone off ``mask``."""
    s = h
    while True:
        if mask[s] == 0:
            return True
        s = b[NEXT, s]
        if s == h:
            return False


@njit(cache=True)
def out_of_play(b: np.ndarray, w: int, mask: np.ndarray, h: int) -> bool:
    """Whether the string of ``h`` can never be captured by moves on ``mask``: it has a
    stone or a liberty off it (a problem's frame, or a way out of its region)."""
    return stone_off(b, mask, h) or liberty_off(b, w, mask, h)


@njit(cache=True)
def shut_in_eye_space(b: np.ndarray, m: np.ndarray, playable: np.ndarray, h: int, limit: int) -> int:
    """The empty points of the area of the string of ``h`` when its group is shut in
    (see the module), -1 when it is not or when they are more than ``limit``."""
    return _shut_in(b, m, playable, h, limit, np.empty(max(limit, 0), dtype=np.int64))


@njit(cache=True)
def _shut_in(b: np.ndarray, m: np.ndarray, playable: np.ndarray, h: int, limit: int, points: np.ndarray) -> int:
    """``shut_in_eye_space``, the area's empty points written to ``points`` (``limit`` long)."""
    n = b.shape[1]
    w = m[STRIDE]
    color = b[COLOR, h]
    seen = np.zeros(n, dtype=np.uint8)
    stack = np.empty(n, dtype=np.int64)
    stack[0] = h
    seen[h] = 1
    top, empties = 1, 0
    while top > 0:
        top -= 1
        p = stack[top]
        if b[COLOR, p] == EMPTY:
            if empties == limit:
                return -1
            points[empties] = p
            empties += 1
        for q in (p - 1, p + 1, p - w, p + w):
            c = b[COLOR, q]
            if c == BORDER or seen[q]:
                continue
            if (c == EMPTY or c == color) and playable[q] == 0:
                return -1  # a way out, or a stone of its own that no move can capture
            seen[q] = 1
            if c == EMPTY or c == color:
                stack[top] = q
                top += 1
            elif not out_of_play(b, w, playable, b[HEAD, q]):
                return -1  # an opponent's string that might be captured
            else:
                _mark_string(b, seen, q)  # looked at once
    return empties


@njit(cache=True)
def _mark_string(b: np.ndarray, seen: np.ndarray, p: int) -> None:
    """Mark every stone of the string of ``p`` in ``seen``."""
    s = p
    while True:
        seen[s] = 1
        s = b[NEXT, s]
        if s == p:
            return


#: Most empty points of a shut-in area that ``dead_shape`` looks at: the eye points of
#: the dead shapes are at most six, the rest lie next to the opponent's wall (24 proved no
#: more book problems than 12, bench/RESULTS.md).
AREA_LIMIT = 12
#: Most eye points of a dead shape (the rabbity six).
NAKADE_POINTS = 6


@njit(cache=True)
def dead_shape(b: np.ndarray, m: np.ndarray, playable: np.ndarray, h: int, opponent_to_move: bool) -> bool:
    """Whether the string of ``h`` is shut in (at most ``AREA_LIMIT`` empty points) with
    eye points (see the module) that cannot make two eyes, ``opponent_to_move`` or not."""
    area = np.empty(AREA_LIMIT, dtype=np.int64)
    e = _shut_in(b, m, playable, h, np.int64(AREA_LIMIT), area)  # int64, as a caller from Python passes
    if e <= 0:
        return False
    w = m[STRIDE]
    color = b[COLOR, h]
    pts = np.empty(NAKADE_POINTS, dtype=np.int64)
    k = 0
    walls = np.zeros(b.shape[1], dtype=np.uint8)  # by string head: 1 a liberty off playable, 2 none
    for i in range(e):
        if _eye_point(b, w, playable, area[i], color, walls):
            if k == NAKADE_POINTS:
                return False
            pts[k] = area[i]
            k += 1
    touching = 0  # pairs of eye points next to each other
    degree = np.zeros(NAKADE_POINTS, dtype=np.int64)
    for i in range(k):
        for j in range(i + 1, k):
            d = abs(pts[i] - pts[j])
            if d == 1 or d == w:
                touching += 1
                degree[i] += 1
                degree[j] += 1
    most = degree[:k].max() if k > 0 else 0  # the most eye points next to one
    if k <= 1:
        return True
    if k == 2:
        return touching == 1
    if k == 3:
        return opponent_to_move and touching >= 2  # three in one piece
    if k == 4 and touching == 4:
        return True  # square four
    if not opponent_to_move:
        return False
    # by their adjacencies: the pyramid four (a point next to the three others), the bulky
    # five (the one five with a square in it), the crossed five (a point next to four) and
    # the rabbity six (the crossed five and a point closing a square)
    return ((k == 4 and touching == 3 and most == 3) or (k == 5 and touching == 5)
            or (k == 5 and touching == 4 and most == 4) or (k == 6 and touching == 6 and most == 4))


@njit(cache=True)
def _eye_point(b: np.ndarray, w: int, playable: np.ndarray, p: int, color: int, walls: np.ndarray) -> bool:
    """Whether empty ``p`` may still become an eye of ``color``: no opponent's string with
    a liberty off ``playable`` is next to it (one without such a liberty is counted as a
    possible eye, as a seki could keep it); ``walls`` keeps what was found of each string."""
    for q in (p - 1, p + 1, p - w, p + w):
        c = b[COLOR, q]
        if c != EMPTY and c != color and c != BORDER:
            h = b[HEAD, q]
            if walls[h] == 0:
                walls[h] = 1 if liberty_off(b, w, playable, h) else 2
            if walls[h] == 1:
                return False
    return True

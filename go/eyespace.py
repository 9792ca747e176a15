"""The eye space a group is shut in, and the small ones that cannot make two eyes.

A group is *shut in* when, from one of its strings, the points reachable without
crossing the opponent's stones (its stones and the empty points among them: its *area*)
touch no empty point off the playable ``area`` mask, and every opponent string next to
the area has a stone or a liberty off the mask (no move can take it, so it is never
captured and the area never grows). Such a group owns no more than the area's empty points, its *eye
space*. It is dead when that space is one point, or two next to each other, or three in
a row or bent with the opponent to move (the vital point in the middle): the textbook
nakade shapes of one, two and three points (Davies, "Life and Death", 1975).
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
            empties += 1
            if empties > limit:
                return -1
        for q in (p - 1, p + 1, p - w, p + w):
            c = b[COLOR, q]
            if c == BORDER or seen[q]:
                continue
            if c == EMPTY and playable[q] == 0:
                return -1  # a way out
            seen[q] = 1
            if c == EMPTY or c == color:
                stack[top] = q
                top += 1
            elif not out_of_play(b, w, playable, b[HEAD, q]):
                return -1  # an opponent's string that might be captured
    return empties


@njit(cache=True)
def dead_shape(b: np.ndarray, m: np.ndarray, playable: np.ndarray, h: int, opponent_to_move: bool) -> bool:
    """Whether the string of ``h`` is shut in with an eye space that cannot make two
    eyes: one point, two next to each other, or three (in a row or bent) with the
    opponent to move."""
    e = shut_in_eye_space(b, m, playable, h, np.int64(3))  # int64, as a caller from Python passes
    if e <= 0:
        return False
    if e == 1:
        return True
    w = m[STRIDE]
    # the area's empty points, found again from the string's liberties and their neighbours
    pts = np.empty(3, dtype=np.int64)
    k = 0
    seen = np.zeros(b.shape[1], dtype=np.uint8)
    stack = np.empty(b.shape[1], dtype=np.int64)
    stack[0] = h
    seen[h] = 1
    top = 1
    color = b[COLOR, h]
    while top > 0:
        top -= 1
        p = stack[top]
        if b[COLOR, p] == EMPTY:
            pts[k] = p
            k += 1
        for q in (p - 1, p + 1, p - w, p + w):
            c = b[COLOR, q]
            if not seen[q] and (c == EMPTY or c == color):
                seen[q] = 1
                stack[top] = q
                top += 1
    touching = 0  # pairs of the space's points next to each other
    for i in range(k):
        for j in range(i + 1, k):
            d = abs(pts[i] - pts[j])
            if d == 1 or d == w:
                touching += 1
    if e == 2:
        return touching == 1
    return opponent_to_move and touching >= 2  # three in one piece

"""Seki: strings of both colours that live together because neither may fill their
shared liberties.

A *shared dame* is an empty point next to stones of both colours where either colour's
move would capture nothing and leave its own string with one liberty (a self-atari:
the opponent would capture at once). A string touching a shared dame holds seki when
each of its liberties is a shared dame or a point the opponent may not play (its
eyes: suicide there). Two strings sharing dame and both holding count as seki; a
string with another liberty is in a race (whoever fills the outside liberties first
wins), not in seki. This recognises the seki of the textbooks (two strings sharing two
liberties, or one eye each and a shared liberty), not seki around a large shared eye.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .reading import libs_after_up_to_2
from .rules import BLACK, COLOR, EMPTY, HEAD, NEXT, OK, SIZE, STRIDE, WHITE, illegal_reason
from .vertices import flat


@njit(cache=True)
def _shared_dame(b: np.ndarray, m: np.ndarray, x: int) -> bool:
    w = m[STRIDE]
    black = False
    white = False
    for q in (x - 1, x + 1, x - w, x + w):
        black = black or b[COLOR, q] == BLACK
        white = white or b[COLOR, q] == WHITE
    return black and white and libs_after_up_to_2(b, m, BLACK, x) <= 1 and libs_after_up_to_2(b, m, WHITE, x) <= 1


@njit(cache=True)
def _holds(b: np.ndarray, m: np.ndarray, h: int, dame: np.ndarray) -> bool:
    """Whether each liberty of string ``h`` is a shared dame or forbidden to the opponent."""
    w = m[STRIDE]
    opponent = 3 - b[COLOR, h]
    s = h
    while True:
        for q in (s - 1, s + 1, s - w, s + w):
            if b[COLOR, q] == EMPTY and not dame[q] and illegal_reason(b, m, opponent, q) == OK:
                return False
        s = b[NEXT, s]
        if s == h:
            return True


@njit(cache=True)
def seki_stones(b: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Which points hold a stone of a string in seki (bool per point)."""
    w = m[STRIDE]
    n = m[SIZE]
    dame = np.zeros(b.shape[1], dtype=np.bool_)
    for r in range(n):
        for c in range(n):
            p = flat(r, c, w)
            dame[p] = b[COLOR, p] == EMPTY and _shared_dame(b, m, p)
    in_seki = np.zeros(b.shape[1], dtype=np.bool_)  # by string head
    for x in np.flatnonzero(dame):
        every = True
        for q in (x - 1, x + 1, x - w, x + w):
            if b[COLOR, q] == BLACK or b[COLOR, q] == WHITE:
                every = every and _holds(b, m, b[HEAD, q], dame)
        if every:
            for q in (x - 1, x + 1, x - w, x + w):
                if b[COLOR, q] == BLACK or b[COLOR, q] == WHITE:
                    in_seki[b[HEAD, q]] = True
    out = np.zeros(b.shape[1], dtype=np.bool_)
    for p in range(b.shape[1]):
        if (b[COLOR, p] == BLACK or b[COLOR, p] == WHITE) and in_seki[b[HEAD, p]]:
            out[p] = True
    return out

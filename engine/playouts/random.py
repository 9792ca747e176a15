"""Uniform random playouts: the baseline Monte-Carlo policy.

A playout plays random legal moves that do not fill the mover's own eye until
both sides pass, then scores the board by area. With eyes protected, every
string that survives is alive, so the area score is the playout's result.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...go.rules import (
    EMPTIES,
    EMPTY_AT,
    N_EMPTY,
    PASS,
    SIZE,
    area_score,
    illegal_reason,
    is_eye,
    new_board,
    play,
)


@njit(cache=True)
def playout_moves(b: np.ndarray, m: np.ndarray, color: int, out: np.ndarray) -> int:
    """The moves of ``color`` a playout may play: legal, filling no own eye, into ``out``
    (in the empty list's order); returns how many."""
    k = 0
    for i in range(m[N_EMPTY]):
        p = b[EMPTIES, i]
        if not is_eye(b, m, color, p) and illegal_reason(b, m, color, p) == 0:
            out[k] = p
            k += 1
    return k


@njit(cache=True)
def random_move(b: np.ndarray, m: np.ndarray, color: int) -> int:
    """A uniformly drawn legal move of ``color`` that fills no own eye, or PASS.

    Draws from the untried part of the empty list and swaps each rejected point
    to its end, so every candidate is tried at most once and, unlike scanning on
    from a random start, points after a run of rejected ones are not favoured.
    Only the order of the empty list changes.
    """
    n = m[N_EMPTY]
    while n > 0:
        i = np.random.randint(n)
        p = b[EMPTIES, i]
        if not is_eye(b, m, color, p) and illegal_reason(b, m, color, p) == 0:
            return p
        n -= 1
        q = b[EMPTIES, n]
        b[EMPTIES, i], b[EMPTIES, n] = q, p
        b[EMPTY_AT, q], b[EMPTY_AT, p] = i, n
    return PASS


@njit(cache=True)
def random_playout(b: np.ndarray, m: np.ndarray, color: int, komi: float) -> float:
    """Play random moves from the position (``color`` to move) to the end, in place;
    returns the area score, Black minus White."""
    size = m[SIZE]
    limit = 3 * size * size
    passes = 0
    moves = 0
    while passes < 2 and moves < limit:
        p = random_move(b, m, color)
        play(b, m, color, p)
        passes = passes + 1 if p == PASS else 0
        moves += 1
        color = 3 - color
    return area_score(b, m, komi)


@njit(cache=True)
def run_playouts(size: int, n: int, komi: float, seed: int) -> float:
    """Run ``n`` random playouts from the empty board; returns Black's win rate."""
    np.random.seed(seed)
    wins = 0
    b0, m0 = new_board(size)
    for _ in range(n):
        b, m = b0.copy(), m0.copy()
        if random_playout(b, m, 1, komi) > 0:
            wins += 1
    return wins / n

"""Equivalent moves: points that are one move because a symmetry of the position maps one
onto the other.

On the empty 19x19 board the four 4-4 points are one move, the eight 3-4 points another,
and tengen a move of its own; after Black's first stone on a 4-4 point, White's two
approaches on either side of the diagonal through it are one move. A symmetry of the
position maps every stone onto a stone of its colour and leaves the simple-ko point and
the last two moves where they are (the move model reads both), so the moves it pairs have
the same features and strengths: a model that ranks them can tell them apart only by a
coin. ``miner.evaluate`` counts them as the move played.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .rules import COLOR, KO, LAST, LAST2, PASS, SIZE, STRIDE
from .symmetry import SYMMETRIES

#: ``SYMMETRIES`` as an array the kernels read; the first is the identity.
_SYMMETRIES = np.array(SYMMETRIES, dtype=np.int64)


@njit(cache=True)
def _image(p: int, s: int, size: int, w: int) -> int:
    """Point ``p`` under symmetry ``s`` about the board's centre (PASS stays PASS)."""
    if p == PASS:
        return PASS
    x, y = 2 * (p % w - 1) - (size - 1), 2 * (p // w - 1) - (size - 1)  # doubled, from the centre
    a, b, c, e = _SYMMETRIES[s]
    col, row = (a * x + b * y + size - 1) // 2, (c * x + e * y + size - 1) // 2
    return (row + 1) * w + col + 1


@njit(cache=True)
def equivalent_points(b: np.ndarray, m: np.ndarray, p: int) -> int:
    """How many points the move at ``p`` is in this position: its distinct images under
    the symmetries that map the position onto itself (stones and their colours, the ko
    point, the last two moves). 1 for a pass and for nearly every move of a game."""
    if p == PASS:
        return 1
    size, w = m[SIZE], m[STRIDE]
    images = np.empty(len(_SYMMETRIES), dtype=np.int64)
    images[0] = p
    n = 1
    for s in range(1, len(_SYMMETRIES)):
        fixed = True
        for q in (m[LAST], m[LAST2], m[KO]):
            if _image(q, s, size, w) != q:
                fixed = False
        for row in range(size):
            if not fixed:
                break
            for col in range(size):
                q = (row + 1) * w + col + 1
                if b[COLOR, _image(q, s, size, w)] != b[COLOR, q]:
                    fixed = False
                    break
        if fixed:
            image = _image(p, s, size, w)
            if image not in images[:n]:
                images[n] = image
                n += 1
    return n

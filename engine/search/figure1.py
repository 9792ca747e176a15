"""The expert shapes of MoGo 2008's Figure 1, as its caption conditions them (``--expert mogo``).

Written for Black playing at the cross ``p`` (colours swapped for White); "own" is the
colour to move. The caption's conditions:

- ``hane``: an own stone diagonal to ``p``, an opponent stone next to both (one of their
  two common neighbours; the other empty), and that opponent stone has no friendly stone
  among its 4 neighbours;
- ``kosumi``: an own stone diagonal to ``p``, no opponent stone between them (on their two
  common neighbours);
- ``kogeima``: an own stone a knight's move from ``p``, no opponent stone between them (on
  the two points of the 2x3 block that lie between);
- ``bad_kogeima``: an own stone a knight's move from ``p`` and no own stone around the cross
  (among its 8 neighbours);
- ``bad_tobi``: an own stone a one-point jump from ``p`` (two points away in a line, the
  point between empty) and no own stone among the 8 points around the cross;
- ``line1_alone``: ``p`` on the first line and the points around it (5 on a side, 3 in a
  corner) empty;
- ``line3``: ``p`` on the third line (the caption states no condition).

Section 4 gives virtual AMAF results to ``line3`` (6.67 won), ``line1_alone`` (6.67 lost),
``hane`` (5 won) and ``bad_kogeima`` (2.5 lost) among these; ``kosumi``, ``kogeima`` and
``bad_tobi`` are drawn in the figure but given no value in the text, so they add nothing
(``expert.FIGURE1_VISITS``). Peep-connect, connect, wall and the empty triangle, which the
caption does not condition, are the miner's features (``miner.features.shapes``), whose
definitions stay those of the tables.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...go.rules import COLOR, EMPTY, SIZE, STRIDE
from ...go.vertices import row_col

#: Figure 1's shapes, by their bit in ``figure1_shapes``.
FIGURE1 = ("hane", "kosumi", "kogeima", "bad_kogeima", "bad_tobi", "line1_alone", "line3")
HANE, KOSUMI, KOGEIMA, BAD_KOGEIMA, BAD_TOBI, LINE1_ALONE, LINE3 = (1 << k for k in range(7))


@njit(cache=True)
def _at(b: np.ndarray, w: int, n: int, r: int, c: int) -> int:
    """The colour at (r, c); -1 off the board."""
    if r < 0 or r >= n or c < 0 or c >= n:
        return -1
    return b[COLOR, (r + 1) * w + c + 1]


@njit(cache=True)
def _own_around(b: np.ndarray, w: int, n: int, r: int, c: int, own: int) -> bool:
    """Whether an own stone is among the 8 points around (r, c)."""
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if (dr != 0 or dc != 0) and _at(b, w, n, r + dr, c + dc) == own:
                return True
    return False


@njit(cache=True)
def figure1_shapes(b: np.ndarray, m: np.ndarray, color: int, p: int) -> int:
    """The bits (``HANE`` ...) of Figure 1's shapes that the move ``color`` at empty ``p``
    makes, as the caption conditions them."""
    w, n = m[STRIDE], m[SIZE]
    own, opp = color, 3 - color
    r, c = row_col(p, w)
    shapes = 0
    line = min(min(r, c), min(n - 1 - r, n - 1 - c)) + 1
    if line == 3:
        shapes |= LINE3
    if line == 1:
        alone = True
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                x = _at(b, w, n, r + dr, c + dc)
                if (dr != 0 or dc != 0) and x != -1 and x != EMPTY:
                    alone = False
        if alone:
            shapes |= LINE1_ALONE
    crowded = _own_around(b, w, n, r, c, own)
    for dr in (-1, 1):
        for dc in (-1, 1):
            if _at(b, w, n, r + dr, c + dc) != own:
                continue
            a, bb = _at(b, w, n, r + dr, c), _at(b, w, n, r, c + dc)  # the two common neighbours
            if a != opp and bb != opp:
                shapes |= KOSUMI
            for k in range(2):
                sr, sc, other = (r + dr, c, bb) if k == 0 else (r, c + dc, a)
                if _at(b, w, n, sr, sc) == opp and other == EMPTY:
                    lonely = True
                    for er, ec in ((sr - 1, sc), (sr + 1, sc), (sr, sc - 1), (sr, sc + 1)):
                        if _at(b, w, n, er, ec) == opp:
                            lonely = False
                    if lonely:
                        shapes |= HANE
    for dr in (-2, -1, 1, 2):
        for dc in (-2, -1, 1, 2):
            if abs(dr) == abs(dc) or _at(b, w, n, r + dr, c + dc) != own:
                continue
            if abs(dc) == 2:  # between: the two points of the 2x3 block off the line of the move
                x1, x2 = _at(b, w, n, r, c + dc // 2), _at(b, w, n, r + dr, c + dc // 2)
            else:
                x1, x2 = _at(b, w, n, r + dr // 2, c), _at(b, w, n, r + dr // 2, c + dc)
            if x1 != opp and x2 != opp:
                shapes |= KOGEIMA
            if not crowded:
                shapes |= BAD_KOGEIMA
    if not crowded:
        for dr, dc in ((-2, 0), (2, 0), (0, -2), (0, 2)):
            if _at(b, w, n, r + dr, c + dc) == own and _at(b, w, n, r + dr // 2, c + dc // 2) == EMPTY:
                shapes |= BAD_TOBI
    return shapes

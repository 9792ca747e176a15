"""Nested playouts: Nested Monte-Carlo Search as a playout policy, in the two-player
form of Cazenave, Saffidine, Schofield and Thielscher (AAAI 2016).

A playout of level ``L >= 1`` plays, at each of its moves, the first candidate whose
playout of level ``L - 1`` wins for the player who moves (the paper's cut on a win:
in a game won or lost nothing beats a win), else the first candidate tried; level 0
is a MoGo playout (``engine.playouts.mogo``). The candidates are the legal moves that
fill no own eye, tried in random order, at most ``NESTED_WIDTH`` of them a move: our
bound, where the paper tries them all, so that a lost position (where every
candidate loses) costs a level-1 playout at most ``NESTED_WIDTH`` base playouts a move
rather than one per empty point. The playout's result is the area score at the end.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...go.rules import BLACK, PASS, SIZE, area_score, play
from .mogo import mogo_playout
from .random import playout_moves

#: The candidates a nested playout tries at one move, at most (our bound, see above).
NESTED_WIDTH = 8


@njit(cache=True)
def nested_playout(b: np.ndarray, m: np.ndarray, color: int, komi: float, moves: np.ndarray, level: int,
                   local: bool) -> tuple[float, int]:
    """Play a nested playout of ``level`` to the end, in place (``color`` to move;
    level 0 a MoGo playout, ``local`` in ``mogo-local``'s order); returns the area
    score (Black minus White) and how many moves were written to ``moves`` (as
    ``mogo_playout``)."""
    if level <= 0:
        return mogo_playout(b, m, color, komi, moves, local)
    size = m[SIZE]
    limit = min(3 * size * size, len(moves))
    inner = np.empty(3 * size * size, dtype=np.int64)
    cands = np.empty(size * size, dtype=np.int64)
    passes = 0
    n = 0
    while passes < 2 and n < limit:
        k = playout_moves(b, m, color, cands)
        chosen = PASS
        for j in range(min(k, NESTED_WIDTH)):
            r = j + np.random.randint(k - j)  # a random candidate not tried yet
            cands[j], cands[r] = cands[r], cands[j]
            q = cands[j]
            b2, m2 = b.copy(), m.copy()
            play(b2, m2, color, q)
            score, _ = nested_playout(b2, m2, 3 - color, komi, inner, level - 1, local)
            if j == 0:
                chosen = q
            if (score > 0) == (color == BLACK):
                chosen = q
                break
        play(b, m, color, chosen)
        moves[n] = chosen
        passes = passes + 1 if chosen == PASS else 0
        n += 1
        color = 3 - color
    return area_score(b, m, komi), n

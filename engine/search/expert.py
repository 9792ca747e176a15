"""MoGo's expert knowledge (MoGo 2008, section 4) as a knowledge source of the tree
(``--expert mogo``).

Two pieces, both given to a node's children when it is expanded:

- eight shapes as virtual AMAF results: a move on the third line gets 6.67 AMAF
  visits all won, alone on the first line 6.67 all lost; a peep-connect, a hane and a
  connection 5 won each; extending a wall 3.33 won; a bad kogeima 2.5 lost; an empty
  triangle 5 lost. The shapes Figure 1's caption conditions (third and first line,
  hane, bad kogeima) are ``figure1``'s, as the caption writes them; the others are the
  miner's features (``patterns.features.shapes``, whose definitions are ours: the paper
  names them only); a move with several shapes gets each one's results;
- a bonus for the moves near the last move by chain distance (``go.chains``: a
  string counts as one point), added to the score and decreasing with the node's
  simulations (``selection``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...go.chains import chain_distances
from ...go.reading import reading_scratch
from ...go.rules import LAST, PASS
from ...patterns.features import N_FEATURES, tactical_features_with
from ...patterns.features.table import (
    F_BAD_KOGEIMA,
    F_CONNECT,
    F_EMPTY_TRIANGLE,
    F_HANE,
    F_LINE1_ALONE,
    F_LINE3,
    F_PEEP_CONNECT,
    F_WALL,
)
from .figure1 import figure1_shapes

#: The knowledge sources of ``--expert`` (``settings.EXPERTS``) by their index: ``mogo`` with
#: Figure 1's shapes as its caption conditions them, ``mogo-features`` with the miner's features
#: for all eight (the form before issue 48).
NO_EXPERT, MOGO_EXPERT, MOGO_FEATURES_EXPERT = range(3)

#: The section's eight shapes as the miner's features (``patterns.features.table``), their virtual
#: AMAF visits, and whether those are wins (1) or losses (0), as the paper gives them; and
#: whether Figure 1's caption conditions the shape (``mogo`` reads those from ``figure1``).
SHAPE_FEATURES = np.array([F_LINE3, F_LINE1_ALONE, F_PEEP_CONNECT, F_HANE, F_CONNECT, F_WALL, F_BAD_KOGEIMA,
                           F_EMPTY_TRIANGLE])
SHAPE_VISITS = np.array([6.67, 6.67, 5.0, 5.0, 5.0, 3.33, 2.5, 5.0])
SHAPE_WON = np.array([1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0])
SHAPE_IN_FIGURE1 = np.array([True, True, False, True, False, False, True, False])
#: Figure 1's shapes in ``figure1.FIGURE1``'s order (hane, kosumi, kogeima, bad kogeima, bad
#: tobi, alone on the first line, third line): their virtual AMAF visits and whether won. The
#: kosumi, kogeima and bad tobi are drawn in the figure with no value in the text: none.
FIGURE1_VISITS = np.array([5.0, 0.0, 0.0, 2.5, 0.0, 6.67, 6.67])
FIGURE1_WON = np.array([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0])

#: The bonus of a move at chain distance 1, 2, 3 from the last move (index 0 unused:
#: the last move's point is taken). Not in the paper's text, which gives no values:
#: at 1 a tenth of a win, halving with each step, so that it breaks ties among
#: moves the statistics do not tell apart yet, and no more.
NEAR_LAST_BONUS = np.array([0.0, 0.1, 0.05, 0.025])
NEAR_LAST_REACH = len(NEAR_LAST_BONUS) - 1
#: Simulations of the node at which the bonus has halved (``selection``): by then the
#: node's own statistics speak for its moves. Not tuned.
NEAR_LAST_HALF = 100.0


@njit(cache=True)
def shape_amaf(b: np.ndarray, m: np.ndarray, color: int, moves: np.ndarray, visits: np.ndarray,
               wins: np.ndarray, figure1: bool) -> None:
    """``visits[i]``, ``wins[i]``: the virtual AMAF results of the move ``color`` at
    ``moves[i]`` from the section's eight shapes (0 for a move with none); with ``figure1``
    the shapes Figure 1's caption conditions are ``figure1``'s, else the miner's features."""
    levels = np.zeros((len(moves), N_FEATURES), dtype=np.int32)
    tactical_features_with(b, m, color, moves, levels, reading_scratch(b, m))
    for i in range(len(moves)):
        visits[i], wins[i] = 0.0, 0.0
        for k in range(len(SHAPE_FEATURES)):
            if levels[i, SHAPE_FEATURES[k]] > 0 and not (figure1 and SHAPE_IN_FIGURE1[k]):
                visits[i] += SHAPE_VISITS[k]
                wins[i] += SHAPE_VISITS[k] * SHAPE_WON[k]
        shapes = figure1_shapes(b, m, color, moves[i]) if figure1 else 0
        for k in range(len(FIGURE1_VISITS)):
            if shapes & (1 << k):
                visits[i] += FIGURE1_VISITS[k]
                wins[i] += FIGURE1_VISITS[k] * FIGURE1_WON[k]


@njit(cache=True)
def near_last_bonus(b: np.ndarray, m: np.ndarray, moves: np.ndarray, bonus: np.ndarray) -> None:
    """``bonus[i]``: ``NEAR_LAST_BONUS`` at the chain distance of ``moves[i]`` from the
    last move (0 beyond ``NEAR_LAST_REACH`` or after a pass)."""
    bonus[:] = 0.0
    last = m[LAST]
    if last == PASS:
        return
    dist = np.empty(b.shape[1], dtype=np.int64)
    chain_distances(b, m, last, np.int64(NEAR_LAST_REACH), dist)  # int64 as a caller from Python passes
    for i in range(len(moves)):
        d = dist[moves[i]]
        if d <= NEAR_LAST_REACH:
            bonus[i] = NEAR_LAST_BONUS[d]

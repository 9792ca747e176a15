"""What a node's new children start with: virtual visits and wins from prior knowledge.

A room of the search; the rooms' reading order is in this package's ``__init__``.

Each child starts with virtual wins: the ratings table's (its move strengths, given
for the root and, with the table's knowledge, computed in the walk for every node),
or where there is no table MoGo's expert knowledge (capture, save atari, 3x3
shape, self-atari penalty). The formulas are in docs/search.md.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ...go.nbr3x3 import colour_code
from ...go.reading import libs_after_up_to_2
from ...go.rules import COLOR, EMPTY, HEAD, LAST, PASS, SIZE, STRIDE, atari_point, illegal_reason, in_atari
from ..playouts.mogo import PATTERNS
from .selection import FIRST, KNOWN, MOVE, NCHILD, PROB, PVISITS, PWINS

EXPERT_N = 10.0  # virtual visits of one piece of expert knowledge (Michi's prior scale)
UNIFORM_N = 2 * EXPERT_N  # even virtual visits of the moves of a node below the root without the table's priors
PRIOR_N_19 = 160.0  # prior_n on 19x19 (by strength against GnuGo at equal time, bench/RESULTS.md)


def default_prior_n(size: int) -> float:
    """``prior_n`` on a ``size`` x ``size`` board: ``PRIOR_N_19`` in proportion to its
    points (36 on 9x9), since the table, mined from 19x19 games, knows small boards less
    well while their searches run more playouts a second."""
    return PRIOR_N_19 * size * size / (19 * 19)


@njit(cache=True)
def expert_prior(b: np.ndarray, m: np.ndarray, color: int, p: int, near: np.ndarray) -> tuple[float, float]:
    """Virtual (visits, wins) for the move ``p``: an even start plus MoGo's knowledge."""
    n, w = EXPERT_N, EXPERT_N / 2
    if near[p]:  # captures a string in atari or saves one of ours
        n += 2 * EXPERT_N
        w += 2 * EXPERT_N
    stride, last = m[STRIDE], m[LAST]
    libs = libs_after_up_to_2(b, m, color, p)
    if libs < 2:  # self-atari: a virtual loss
        n += EXPERT_N
    elif (last != PASS and abs(p // stride - last // stride) <= 1 and abs(p % stride - last % stride) <= 1
          and PATTERNS[colour_code(b, stride, p)]):
        n += EXPERT_N
        w += EXPERT_N
    return n, w


@njit(cache=True)
def atari_moves(b: np.ndarray, m: np.ndarray, color: int) -> np.ndarray:
    """Mask of the points capturing an opponent string in atari, or saving one of
    ours by extending to two or more liberties, anywhere on the board."""
    w = m[STRIDE]
    size = m[SIZE]
    mask = np.zeros(w * w, dtype=np.bool_)
    for row in range(1, size + 1):
        for h in range(row * w + 1, row * w + size + 1):
            c = b[COLOR, h]
            if c == EMPTY or b[HEAD, h] != h or not in_atari(b, h):
                continue
            a = atari_point(b, h)
            if illegal_reason(b, m, color, a) != 0:
                continue
            if c != color or libs_after_up_to_2(b, m, color, a) >= 2:
                mask[a] = True
    return mask


@njit(cache=True)
def table_prior(prob: float, prior_n: float) -> tuple[float, float]:
    """Virtual (visits, wins) of a move the ratings table gives probability ``prob``:
    an even start of ``EXPERT_N`` visits, plus ``PRIOR_N * sqrt(prob)`` visits all won
    (Pachi's pattern prior). The table's features (captures, ataris, self-ataris, 3x3
    shapes) take the place of MoGo's hand-written knowledge, which would count them twice."""
    won = prior_n * math.sqrt(prob)
    return EXPERT_N + won, EXPERT_N / 2 + won


@njit(cache=True)
def add_table_prior(node: int, t: np.ndarray, f: np.ndarray, strength: np.ndarray, prior_n: float) -> None:
    """Give the children of ``node``, expanded with MoGo's knowledge before the table's
    priors were due, the table's (``strength`` per board point): probability ``PROB``
    and virtual visits and wins, as ``expand`` would have written them with
    ``strength``; marks the node ``KNOWN``. The children's order (progressive
    widening's) is left as it is."""
    first, k = t[FIRST, node], t[NCHILD, node]
    t[KNOWN, node] = 1
    total = 0.0
    for c in range(first, first + k):
        total += strength[t[MOVE, c]]
    if total <= 0:
        return
    for c in range(first, first + k):
        prob = strength[t[MOVE, c]] / total
        f[0, PROB, c] = prob
        f[0, PVISITS, c], f[0, PWINS, c] = table_prior(prob, prior_n)


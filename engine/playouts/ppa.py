"""Playout Policy Adaptation as course 004 writes it (Cazenave 2015; ``--playout-policy ppa``),
and the course's first, integer reinforcement ``adapt_simple`` (``ppa-simple``).

A playout draws each move of the player to move among its legal moves that fill no own
eye with probability ``exp(P[m]) / sum exp(P[m'])``, ``P`` that colour's weight per point
(0 at the start of a search: a uniform draw). After the playout, the winner's weights
are adapted:

- ``ppa`` (the course's pseudo-code, K = 0.4 in its UCT tree and alpha = 1): ``P2 = P``;
  for each move ``m`` of the playout in order, the position advanced move by move, where
  ``m`` is the winner's: ``P2[m] += alpha``, then ``z = sum over the legal moves m' of
  the position of exp(P2[m'])`` (after the increment) and every such ``m'`` gets
  ``P2[m'] -= alpha / z * exp(P2[m'])``; at the end ``P = P2``;
- ``ppa-simple`` (``adapt_simple``): each move of the winner gets +1 when new (never
  reinforced: weight 0), +2 while its weight is under 10, +4 under 100, +1 beyond.

The paper's form (z from the policy before the update, over the mined gammas) is
``ppa-paper``, in ``playout_gamma``. The weights live for one search
(``playout_gamma.ppa_weights``; the record's ``bias`` and ``mass`` serve ``ppa-paper`` only).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...go.rules import BLACK, PASS, SIZE, WHITE, area_score, play
from .gamma import PpaWeights
from .random import playout_moves

#: The PPA policies and each one's learning rate alpha when none is given: the course's 1
#: (``ppa``), 0.32 for the paper's form over the gammas (``ppa-paper``, tuned before issue 48);
#: ``ppa-simple`` adds integers and reads no rate but "on" (1).
PPA_RATES = {"ppa": 1.0, "ppa-paper": 0.32, "ppa-simple": 1.0}


def ppa_rate(policy: str, rate: float | None) -> float:
    """The learning rate of ``policy``'s weights: ``rate``, or the policy's own when None;
    0 (no adaptation) for a policy that is not PPA."""
    if policy not in PPA_RATES:
        return 0.0
    return PPA_RATES[policy] if rate is None else float(rate)


@njit(cache=True)
def ppa_draw(b: np.ndarray, m: np.ndarray, color: int, weights: np.ndarray, cands: np.ndarray) -> int:
    """A move of ``color`` drawn with probability ``exp(P[m]) / sum exp(P[m'])`` over
    ``playout_moves`` (``weights``: ``P`` of that colour); PASS when there is none."""
    k = playout_moves(b, m, color, cands)
    if k == 0:
        return PASS
    top = weights[cands[0]]
    for j in range(1, k):
        top = max(top, weights[cands[j]])
    total = 0.0
    for j in range(k):
        total += np.exp(weights[cands[j]] - top)  # less the largest: the same draw, no overflow
    r = np.random.random() * total
    for j in range(k):
        r -= np.exp(weights[cands[j]] - top)
        if r < 0.0:
            return cands[j]
    return cands[k - 1]


@njit(cache=True)
def ppa_course_update(b: np.ndarray, m: np.ndarray, color: int, moves: np.ndarray, n: int, winner: int,
                      weights: np.ndarray, alpha: float) -> None:
    """The course's ``adapt``: replay the playout ``moves[:n]`` (the first by ``color``) from
    the position ``b, m`` (changed in place: pass a copy), and for each move of ``winner``
    ``P2[m] += alpha``, ``z = sum exp(P2[m'])`` over the position's ``playout_moves``,
    ``P2[m'] -= alpha / z exp(P2[m'])``; then ``weights[winner] = P2``."""
    p2 = weights[winner].copy()
    cands = np.empty(m[SIZE] * m[SIZE], dtype=np.int64)
    mover = color
    for i in range(n):
        p = moves[i]
        if mover == winner and p != PASS:
            p2[p] += alpha
            k = playout_moves(b, m, mover, cands)
            z = 0.0
            for j in range(k):
                z += np.exp(p2[cands[j]])
            for j in range(k):
                q = cands[j]
                p2[q] -= alpha / z * np.exp(p2[q])
        play(b, m, mover, p)
        mover = 3 - mover
    weights[winner, :] = p2


@njit(cache=True)
def adapt_simple(moves: np.ndarray, n: int, color: int, winner: int, weights: np.ndarray) -> None:
    """The course's ``adapt_simple`` after a playout ``moves[:n]`` (the first by ``color``)
    that ``winner`` won: each of the winner's moves gets +1 when new (weight 0), +2 while
    its weight is under 10, +4 under 100, +1 beyond."""
    for i in range(0 if color == winner else 1, n, 2):
        p = moves[i]
        if p == PASS:
            continue
        w = weights[winner, p]
        weights[winner, p] = w + (1.0 if w == 0.0 else 2.0 if w < 10.0 else 4.0 if w < 100.0 else 1.0)


@njit(cache=True)
def ppa_playout(b: np.ndarray, m: np.ndarray, color: int, komi: float, moves: np.ndarray, adapt: PpaWeights,
                simple: bool) -> tuple[float, int]:
    """Play a PPA playout to the end, in place (``color`` to move), drawing by ``adapt``'s
    weights, then adapt them to the winner (the course's ``adapt``, or ``adapt_simple``
    with ``simple``) unless the rate is 0; returns the area score (Black minus White) and
    how many moves were written to ``moves``, as ``mogo_playout`` does."""
    size = m[SIZE]
    limit = min(3 * size * size, len(moves))
    b0, m0 = b.copy(), m.copy()
    cands = np.empty(size * size, dtype=np.int64)
    first = color
    passes = 0
    n = 0
    while passes < 2 and n < limit:
        p = ppa_draw(b, m, color, adapt.weights[color], cands)
        play(b, m, color, p)
        moves[n] = p
        passes = passes + 1 if p == PASS else 0
        n += 1
        color = 3 - color
    score = area_score(b, m, komi)
    if adapt.rate > 0:
        winner = BLACK if score > 0 else WHITE
        if simple:
            adapt_simple(moves, n, first, winner, adapt.weights)
        else:
            ppa_course_update(b0, m0, first, moves, n, winner, adapt.weights, adapt.rate)
    return score, n

"""Oracles for the tests: straightforward implementations the fast ones must equal.

``mine_game`` counts a game's patterns by hashing every ring of every candidate
afresh (the reference for the incremental kernel of ``shapemill.miner.pattern_counts``).
The selection formulas (``ucb1`` ... ``puct_published``) as the seeds write them, the
references of ``shapemill.engine.search.selection``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from shapemill.go.rings import (
    MIN_RING,
    RELATIVE,
    fill_padded,
    geometry,
    grow_ring,
    padded_point,
)
from shapemill.go.rules import (
    EMPTIES,
    N_EMPTY,
    OK,
    SIZE,
    illegal_reason,
    play,
    to_point,
)
from shapemill.miner import counts

#: Most new entries one position can add: one frontier pattern per candidate.
POSITION_INSERTS = 400


@njit(cache=True)
def _count_candidate(state, q, rel, delta, max_ring, table, played, first, h) -> None:
    """Count the rings of one candidate move while its pattern is in the dictionary;
    the smallest ring always counts."""
    rows = table[0]
    h[:] = 0
    for k in range(MIN_RING, max_ring + 1):
        key = grow_ring(h, state, q, rel, delta, k)
        i = counts.slot(rows, key)
        if rows[i, counts.KEY] == 0 and k > MIN_RING:
            return
        counts.add(table, key, k, 1, played, first)


@njit(cache=True)
def mine_moves(b, m, moves, start, first_color, game, pad, delta, max_ring, state, table) -> int:
    """Count the patterns of the positions before ``moves[start:]`` and play them,
    hashing every ring of every candidate afresh: the reference for the incremental
    kernel (``shapemill.miner.pattern_counts.count_moves``), which it must equal.

    Returns the index of the next move to mine: ``len(moves)`` when the game is
    done, less when the table needs room first (call again from there), or
    ``-1`` on an illegal move.
    """
    size = m[SIZE]
    h = np.zeros(8, dtype=np.int64)
    for n in range(start, len(moves)):
        if 2 * (table[2][0] + POSITION_INSERTS) > len(table[1]):
            return n
        color = first_color if n % 2 == 0 else 3 - first_color
        chosen = to_point(moves[n], size)
        if illegal_reason(b, m, color, chosen) != OK:
            return -1
        fill_padded(b, m, pad, state)
        rel = RELATIVE[color]
        for i in range(m[N_EMPTY]):
            p = b[EMPTIES, i]
            if illegal_reason(b, m, color, p) == OK:
                q = padded_point(p, m, pad)
                _count_candidate(
                    state, q, rel, delta, max_ring, table, int(p == chosen), counts.witness(game, n, p), h
                )
        play(b, m, color, chosen)
    return len(moves)


def mine_game(corpus, i, params, table):
    """Count game ``i`` into ``table`` with :func:`mine_moves`, growing it when it fills up."""
    size = int(corpus.board_size[i])
    geo = geometry(size)
    state = np.empty(geo.stride * geo.stride, dtype=np.int8)
    b, m = corpus.start_position(i)
    moves = corpus.game_moves(i)
    n = 0
    while 0 <= n < len(moves):
        n = mine_moves(
            b, m, moves, n, int(corpus.first_color[i]), i, geo.pad, geo.delta,
            min(params.max_ring, geo.max_ring), state, table,
        )
        if 0 <= n < len(moves):
            table = counts.rebuilt(table, room=4 * (counts.used(table) + POSITION_INSERTS))
    return table


# The selection formulas as the seeds write them (docs/search.md gives the sources), in
# plain Python: p the move's win rate, n its simulations, N the node's; the engine's
# ``selection.child_score`` must equal them.


def ucb1(p: float, n: float, parent: float) -> float:
    """MoGo's Algorithm 3, UCB1: ``p + sqrt(2 log N / n)``."""
    return p + math.sqrt(2 * math.log(parent) / n)


def tuned_variance(p: float) -> float:
    """Algorithm 3's ``V = max(0.001, p (1 - p))``."""
    return max(0.001, p * (1 - p))


def ucb_tuned1(p: float, n: float, parent: float) -> float:
    """Algorithm 3, UCB-Tuned.1: ``p + sqrt(V log N / n)``."""
    return p + math.sqrt(tuned_variance(p) * math.log(parent) / n)


def ucb_tuned2(p: float, n: float, parent: float) -> float:
    """Algorithm 3, UCB-Tuned.2: ``p + sqrt(V log N / n + log N / n)``."""
    log_n = math.log(parent)
    return p + math.sqrt(tuned_variance(p) * log_n / n + log_n / n)


def auer_tuned(p: float, n: float, parent: float, c: float) -> float:
    """Auer, Cesa-Bianchi & Fischer (2002)'s UCB1-Tuned with ``L = ln(N + 1)`` and a
    constant ``c``: ``p + c sqrt(L / n min(1/4, p - p^2 + sqrt(2 L / n)))``."""
    log_n = math.log(parent + 1)
    return p + c * math.sqrt(log_n / n * min(0.25, p - p * p + math.sqrt(2 * log_n / n)))


def ucb_v(p: float, n: float, parent: float, c: float) -> float:
    """Audibert, Munos & Szepesvari (2007)'s UCB-V with the variance ``p (1 - p)`` of a
    win rate, ``L = ln(N + 1)``: ``p + sqrt(2 c V L / n) + 3 c L / n``."""
    log_n = math.log(parent + 1)
    return p + math.sqrt(2 * c * p * (1 - p) * log_n / n) + 3 * c * log_n / n


def silver_beta(n: float, an: float, equiv: float) -> float:
    """Gelly & Silver's minimum-error AMAF weight ``an / (an + n + n an / K)``."""
    return an / (an + n + n * an / equiv) if an > 0 else 0.0


def amaf_eq1(p: float, p_amaf: float, alpha: float) -> float:
    """MoGo 2008's Eq. 1: ``alpha p + (1 - alpha) p_amaf``."""
    return alpha * p + (1 - alpha) * p_amaf


def mogo_eq3(p: float, p_amaf: float, h: float, prob: float, n: float, an: float, pn: float, parent: float,
             siblings: int, equiv: float, c_pb: float, p_equiv: float) -> float:
    """MoGo 2008's Eq. 3 ``alpha p + beta p_amaf + gamma H + delta P(d, N)`` with
    ``gamma = pn / (pn + n)`` (1 at n = 0), ``beta = (1 - gamma) b(n)``, ``alpha = (1 -
    gamma)(1 - b(n))``, ``delta = c_pb / sqrt(1 + N)`` (the node's simulations only,
    going to 0) and ``P(d, N) = (K P(d) + N / k) / (K + N)`` (the prior probability
    going to the constant ``1 / k`` over the ``k`` siblings)."""
    gamma = pn / (pn + n)
    b = silver_beta(n, an, equiv)
    alpha, beta = (1 - gamma) * (1 - b), (1 - gamma) * b
    delta = c_pb / math.sqrt(1 + parent)
    p_dn = (p_equiv * prob + parent / siblings) / (p_equiv + parent)
    return alpha * p + beta * p_amaf + gamma * h + delta * p_dn


def progressive_bias(q: float, h: float, n: float, c: float) -> float:
    """Chaslot et al. (2007): ``Q + c H / (1 + n)``."""
    return q + c * h / (1 + n)


def puct_lecture(q: float, prob: float, n: float) -> float:
    """The AlphaGo lecture's PUCT: ``Q + u``, ``u = P / (1 + N(s, a))``."""
    return q + prob / (1 + n)


def puct_published(q: float, prob: float, n: float, parent: float, c: float) -> float:
    """Silver et al.'s published PUCT: ``Q + c P sqrt(N) / (1 + n)``."""
    return q + c * prob * math.sqrt(parent) / (1 + n)

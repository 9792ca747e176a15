"""Oracles for the tests: straightforward implementations the fast ones must equal.

``mine_game`` counts a game's patterns by hashing every ring of every candidate
afresh (the reference for the incremental kernel of ``shapemill.miner.pattern_counts``).
Auer's UCB1-Tuned and UCB-V, the references of ``shapemill.engine.search.selection``'s
``auer-tuned`` and ``ucb-v`` (the seeds' formulas: ``tests/seed_oracles.py``).
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


# The formulas of the bandits beside the seeds' (whose oracles are in tests/seed_oracles.py),
# in plain Python from their papers: p the move's win rate, n its simulations, N the node's.


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

"""One simulation: descend the tree, expand a leaf, play out, back the result up, AMAF.

Reading order of the search's rooms, each needing only the ones before it (Michi's
header, Pachi's ``uct/``): ``selection`` (node fields, the bandit and prior formulas),
``tree`` (the flat node arrays), ``tree_priors`` (what new children start with),
``walk`` (one simulation), ``search`` (``Search``: settings, threads, budget),
``endgame`` (pass, resign, dead stones); ``mcts`` is the public surface.

A simulation descends from the root by the selection formula. A leaf visited
``expand_at`` times is expanded with all legal moves that fill no own eye, each
child with its prior (``tree_priors``); with progressive widening only the
``K(N)`` best children by prior are searchable. The playout (MoGo, gamma-weighted,
gamma-weighted adapted during the search (PPA) or uniform random) scores the board
by area; every node on the path gets the result and its children get the AMAF
update of the moves played later by the same colour (Gelly & Silver 2007; MoGo 2008).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..go.rules import BLACK, COLOR, EMPTY, SIZE, STRIDE, WHITE, play
from ..miner.prior import Knowledge, PatternCache, move_strengths
from .playout_gamma import PpaWeights, gamma_playout
from .playout_mogo import mogo_playout
from .playout_random import random_playout
from .selection import (
    AVISITS,
    AWINS,
    FIRST,
    KNOWN,
    MOVE,
    NCHILD,
    PROB,
    PVISITS,
    PWINS,
    VISITS,
    WINS,
    Selection,
    select_child,
    stat,
)
from .tree import Nodes, node_moves
from .tree_priors import UNIFORM_N, add_table_prior, atari_moves, expert_prior, table_prior

POLICIES = ("random", "mogo", "gamma", "ppa")
RANDOM_PLAYOUTS, MOGO_PLAYOUTS, GAMMA_PLAYOUTS, PPA_PLAYOUTS = range(4)

NO_GAMMAS = np.ones((1, 1))  # the gamma table passed when the policy is not gamma


class SearchSettings(NamedTuple):
    """What the walk down the tree reads besides the selection formula."""

    expand_at: int  # visits a leaf below the root has when it is expanded
    tree_prior: bool  # whether the nodes below the root get the ratings table's priors
    prior_at: int  # visits a node below the root has when its children get them
    prior_n: float  # won visits of a move of probability P: prior_n sqrt(P) (``table_prior``)
    vloss: float  # lost visits a thread puts on each node of its path (tree parallelism)
    policy: int  # index in POLICIES
    komi: float
    gammas: np.ndarray  # the gamma and ppa policies' table (NO_GAMMAS for the others)



class Root(NamedTuple):
    """The position the simulations start from."""

    b: np.ndarray  # the board's arrays (``go.rules``)
    m: np.ndarray
    color: int  # the colour to move
    node: int  # the tree's root node
    prior: np.ndarray  # float64[points]: the root's move strengths (0 everywhere: none)
    allowed: np.ndarray  # bool[points]: the points the root may play (the superko mask)


class Lane(NamedTuple):
    """What one search thread owns."""

    thread: int  # its statistics slice and node share in the tree
    owner: np.ndarray  # float64[points]: the final boards' ownership it adds up
    cache: PatternCache  # its patterns of the positions seen (``prior_cache``)
    adapt: PpaWeights  # its Playout Policy Adaptation, which the ppa policy's playouts follow and adapt


@njit(cache=True)
def expand(b: np.ndarray, m: np.ndarray, color: int, node: int, t: np.ndarray, f: np.ndarray,
           n_nodes: int, limit: int, prior: np.ndarray, allowed: np.ndarray, prior_n: float, by_prob: bool,
           known: bool, table: bool) -> int:
    """Give ``node`` its children (legal moves of ``color`` filling no own eye), sorted by
    prior value, at nodes ``n_nodes`` on; returns the next free node (unchanged when
    the children would pass ``limit``, the end of this thread's share of the arrays).
    ``prior``: with ``table`` the ratings table's strength per point (``table_prior``),
    else MoGo's knowledge (``expert_prior``) plus, where ``prior`` is uniform rather
    than zero (below the root), ``UNIFORM_N`` even visits; ``known``: whether the
    priors are final, else ``add_table_prior`` gives the table's later (``KNOWN``);
    ``by_prob``: sort by probability (progressive widening's order) rather than prior value.
    The children are written before ``node`` points to them, so that another thread
    reading the tree meanwhile sees ``node`` either as a leaf or with all its children."""
    size = m[SIZE]
    if n_nodes + size * size > limit:
        return n_nodes
    moves = node_moves(b, m, color, allowed)
    k = len(moves)
    if k == 0:
        return n_nodes
    value = np.empty(k)
    pn = np.empty(k)
    pw = np.empty(k)
    total = 0.0
    for j in range(k):
        total += prior[moves[j]]
    near = np.zeros(0, dtype=np.bool_) if table else atari_moves(b, m, color)
    for j in range(k):
        prob = prior[moves[j]] / total if total > 0 else 1.0 / k
        if table:
            pn[j], pw[j] = table_prior(prob, prior_n)
        else:
            pn[j], pw[j] = expert_prior(b, m, color, moves[j], near)
            if total > 0:
                pn[j] += UNIFORM_N
                pw[j] += UNIFORM_N / 2
        value[j] = prob if by_prob else pw[j] / pn[j]
    order = np.argsort(-value[:k], kind="mergesort")
    for j in range(k):
        c = n_nodes + j
        o = order[j]
        t[MOVE, c] = moves[o]
        t[FIRST, c] = -1
        t[NCHILD, c] = 0
        t[KNOWN, c] = 0
        f[:, :, c] = 0.0
        f[0, PVISITS, c] = pn[o]
        f[0, PWINS, c] = pw[o]
        f[0, PROB, c] = prior[moves[o]] / total if total > 0 else 1.0 / k
    t[KNOWN, node] = known
    t[NCHILD, node] = k
    t[FIRST, node] = n_nodes
    return n_nodes + k


@njit(cache=True, nogil=True)
def simulate(n_sims: int, nodes: Nodes, root: Root, lane: Lane, sel: Selection, settings: SearchSettings,
             knowledge: Knowledge) -> None:
    """Run ``n_sims`` simulations from ``root`` as search thread ``lane.thread``: its
    statistics go to ``f[lane.thread]``, its new nodes to its share of the arrays, the
    final boards' ownership (+1 Black, -1 White per point) to ``lane.owner``.
    ``knowledge``: the ratings table (``MovePrior.knowledge``) whose move strengths are
    the prior of the nodes below the root when ``settings.tree_prior`` is set, given
    to a node's children once it has ``settings.prior_at`` visits (at its expansion,
    or later by ``add_table_prior``), their patterns kept in ``lane.cache``; the ppa
    policy's playouts follow and adapt ``lane.adapt``. With ``settings.vloss`` each
    node on the way down counts that many lost visits until the playout's result
    replaces them (virtual loss), so that other threads descending meanwhile spread out."""
    t, f, pool = nodes.t, nodes.f, nodes.pool
    b0, m0, color, prior, allowed = root.b, root.m, root.color, root.prior, root.allowed
    thread, owner, cache, adapt = lane.thread, lane.owner, lane.cache, lane.adapt
    size = m0[SIZE]
    w = m0[STRIDE]
    seq = np.empty(4 * size * size + 8, dtype=np.int64)
    path = np.empty(size * size + 8, dtype=np.int64)
    first_at = np.empty(w * w, dtype=np.int64)
    uniform = np.ones(w * w)  # below the root, before (or without) the table's priors
    node_prior = np.empty(w * w)
    root_table = np.any(prior > 0)
    everywhere = np.ones(w * w, dtype=np.bool_)
    fk = f[thread]
    vloss = settings.vloss
    for _ in range(n_sims):
        b, m = b0.copy(), m0.copy()
        node, depth, c = root.node, 0, color
        path[0] = root.node
        while True:  # descend, expanding a leaf once it has been visited enough
            at_root = node == root.node
            visits = stat(f, VISITS, node)
            if t[FIRST, node] < 0 and (at_root or visits >= settings.expand_at - 1):
                below = uniform
                due = settings.tree_prior and visits >= settings.prior_at - 1
                if not at_root and due:
                    move_strengths(b, m, c, knowledge, node_prior, cache)
                    below = node_prior
                pool[thread, 0] = expand(b, m, c, node, t, f, pool[thread, 0], pool[thread, 1],
                                         prior if at_root else below, allowed if at_root else everywhere,
                                         settings.prior_n, sel.widen > 0,
                                         at_root or due or not settings.tree_prior, root_table if at_root else due)
            elif t[FIRST, node] >= 0 and t[KNOWN, node] == 0:  # expanded before the table's priors were due
                if at_root:
                    add_table_prior(node, t, f, prior, settings.prior_n)
                elif settings.tree_prior and visits >= settings.prior_at - 1:
                    t[KNOWN, node] = 1  # at once: another thread passing meanwhile must not add them twice
                    move_strengths(b, m, c, knowledge, node_prior, cache)
                    add_table_prior(node, t, f, node_prior, settings.prior_n)
            if depth + 2 >= len(path):
                break
            child = select_child(node, t, f, sel)
            if child < 0:
                break
            node = child
            play(b, m, c, t[MOVE, node])
            seq[depth] = t[MOVE, node]
            depth += 1
            path[depth] = node
            c = 3 - c
            fresh = stat(f, VISITS, node) == 0
            fk[VISITS, node] += vloss
            if fresh:
                break
        if settings.policy == MOGO_PLAYOUTS:
            score, n = mogo_playout(b, m, c, settings.komi, seq[depth:])
        elif settings.policy == GAMMA_PLAYOUTS or settings.policy == PPA_PLAYOUTS:
            score, n = gamma_playout(b, m, c, settings.komi, seq[depth:], settings.gammas, adapt)
        else:
            score, n = random_playout(b, m, c, settings.komi), 0
        black_wins = score > 0
        for row in range(1, size + 1):
            for p in range(row * w + 1, row * w + size + 1):
                owner[p] += _owner(b, w, p)
        for d in range(depth + 1):  # the mover into path[d] is `color` when d is odd
            mover = color if d % 2 == 1 else 3 - color
            fk[VISITS, path[d]] += 1 - (vloss if d > 0 else 0.0)
            fk[WINS, path[d]] += 1.0 if (mover == BLACK) == black_wins else 0.0
        if sel.rave:
            _update_amaf(seq, depth + n, path, depth, color, black_wins, t, fk, first_at)


@njit(cache=True)
def _owner(b: np.ndarray, w: int, p: int) -> int:
    """+1 / -1 when the point ends Black's / White's (stone or surrounded point)."""
    c = b[COLOR, p]
    if c == EMPTY:
        for q in (p - 1, p + 1, p - w, p + w):
            if b[COLOR, q] == BLACK or b[COLOR, q] == WHITE:
                c = b[COLOR, q]
                break
    return 1 if c == BLACK else (-1 if c == WHITE else 0)


@njit(cache=True)
def _update_amaf(seq: np.ndarray, n_seq: int, path: np.ndarray, depth: int, color: int,
                 black_wins: bool, t: np.ndarray, fk: np.ndarray, first_at: np.ndarray) -> None:
    """AMAF (into one thread's statistics ``fk``): a child of ``path[d]`` counts as played when its move comes first, at or
    after move ``d``, by the same colour (``seq[i]`` is played by ``color`` for even i)."""
    big = 1 << 30
    first_at[:] = big
    for i in range(n_seq - 1, -1, -1):
        first_at[seq[i]] = i
        if i <= depth:
            node = path[i]
            mover = color if i % 2 == 0 else 3 - color
            won = (mover == BLACK) == black_wins
            first = t[FIRST, node]
            if first < 0:  # another thread's expansion not published yet
                continue
            for c in range(first, first + t[NCHILD, node]):
                j = first_at[t[MOVE, c]]
                if j < big and (j - i) % 2 == 0:
                    fk[AVISITS, c] += 1
                    fk[AWINS, c] += 1.0 if won else 0.0

"""One simulation: descend the tree, expand a leaf, play out, back the result up, AMAF.

A room of the search; the rooms' reading order is in this package's ``__init__``.

A simulation descends from the root by the selection formula. A leaf visited
``expand_at`` times is expanded with all legal moves that fill no own eye, each
child with its prior (``tree_priors``); with progressive widening only the
``K(N)`` best children by prior are searchable; with ``--expert mogo`` they also start
with MoGo's virtual AMAF results and bonus near the last move (``expert``). The
playout (MoGo in the seed's order or ``mogo-local``'s, nested, gamma-weighted,
gamma-weighted adapted during the search (PPA) or uniform random) scores the board
by area; every node on the path gets the result and its children get the AMAF
update of the moves played later by the same colour (Gelly & Silver 2007; MoGo 2008).
With leaf parallelism several playouts run at once from the leaf (``leaf_playouts``)
and each is backed up in turn.

In this file: ``simulate`` runs the simulations of one thread, each ``descend`` (which
``grow``s the nodes it passes: ``expand``, or the table's priors once due), then
``_play_out`` (``playout``; ``_play_out_leaves`` with leaf parallelism) and ``_back_up``
(``_update_amaf``), over the thread's ``WalkScratch``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ...go.rules import BLACK, COLOR, EMPTY, PASS, SIZE, STRIDE, WHITE, play
from ...patterns.prior import KnowledgeArrays, PatternCache, move_strengths, position_key
from ..playouts.gamma import PpaWeights, gamma_playout
from ..playouts.mogo import mogo_playout
from ..playouts.nested import nested_playout
from ..playouts.ppa import ppa_playout
from ..playouts.random import random_playout
from .expert import MOGO_EXPERT, NO_EXPERT, near_last_bonus, shape_amaf
from .selection import (
    AVISITS,
    AWINS,
    FIRST,
    KNOWN,
    MOVE,
    NCHILD,
    NEAR,
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

#: The playout policies (``settings.POLICIES``) by their value at ``SearchSettings.playout_policy``.
(RANDOM_PLAYOUTS, MOGO_PLAYOUTS, GAMMA_PLAYOUTS, PPA_PLAYOUTS, MOGO_LOCAL_PLAYOUTS, NESTED1_PLAYOUTS,
 NESTED2_PLAYOUTS, PPA_PAPER_PLAYOUTS, PPA_SIMPLE_PLAYOUTS) = range(9)

#: A simulation's moves (``seq``): the tree's, at most one a point, then a playout's,
#: which stops at three a point (the playouts' limit): four a point.
SEQ_PER_POINT = 4
#: Room past those bounds in ``seq`` and ``path`` (the descent stops two short of the end).
SEQ_SLACK = 8
#: A constant passed to a kernel is typed as its own literal, which compiles the kernel a
#: second time beside the calls that pass a variable: ``np.bool_(True)`` passes a plain bool.
#: The steps run once a simulation (``descend``, ``grow``, ``_play_out``, ``_back_up``) are inlined
#: into ``simulate``: a plain call passes the records' arrays one by one, counting their
#: references, which cost 3-4% of the 9x9 playouts a second (``bench/search_speed.py``).
ONCE_A_SIMULATION = "always"


class SearchSettings(NamedTuple):
    """What the walk down the tree reads besides the selection formula."""

    expand_at: int  # visits a leaf below the root has when it is expanded
    tree_prior: bool  # whether the nodes below the root get the ratings table's priors
    prior_visits: int  # visits a node below the root has when its children get them
    prior_n: float  # won visits of a move of probability P: prior_n sqrt(P) (``table_prior``)
    virtual_loss: float  # lost visits a thread puts on each node of its path (tree parallelism)
    playout_policy: int  # index in POLICIES
    komi: float
    expert: int  # index in ``settings.EXPERTS``: MoGo's expert knowledge new children get (``--expert``)
    leaf: int  # playouts run at once from each leaf (leaf parallelism; 1: one)


class Root(NamedTuple):
    """The position the simulations start from."""

    b: np.ndarray  # the board's arrays (``go.rules``)
    m: np.ndarray
    color: int  # the colour to move
    node: int  # the tree's root node
    prior: np.ndarray  # float64[points]: the root's move strengths (0 everywhere: none)
    allowed: np.ndarray  # bool[points]: the points the root may play (the superko mask, and ``masks[0]``)
    masks: np.ndarray  # bool[depth, points]: the points a node that deep may play (avoidMoves); deeper: all


#: Rows of a lane's ``scores``, by the root move each playout followed (the root's own column
#: ``PASS`` for a playout that ended at the root): playouts, the sum of their final scores
#: (Black's area less White's, komi included) and the sum of their squares, for analysis.
ROOT_SCORES = 3


class Lane(NamedTuple):
    """What one search thread owns."""

    thread: int  # its statistics slice and node share in the tree
    owner: np.ndarray  # float64[points]: the final boards' ownership it adds up
    scores: np.ndarray  # float64[ROOT_SCORES, points]: the final scores by the root move they followed
    cache: PatternCache  # its patterns of the positions seen (``prior_cache``)
    adapt: PpaWeights  # its Playout Policy Adaptation, which the ppa policy's playouts follow and adapt
    move_owner: np.ndarray  # float64[points, points]: the final boards' ownership by the root move they
    # followed (KataGo's includeMovesOwnership), or float64[0, points] when not asked for


class ChildPriors(NamedTuple):
    """What the children ``expand`` gives a node start with."""

    prior: np.ndarray  # float64[points]: with ``table`` the ratings table's strength per point, else
    #                    uniform below the root (MoGo's knowledge plus ``UNIFORM_N`` even visits) or 0 at the root
    allowed: np.ndarray  # bool[points]: the points the node may play (the root's superko mask)
    prior_n: float  # won visits of a move of probability P: prior_n sqrt(P) (``table_prior``)
    by_prob: bool  # sort by probability (progressive widening's order) rather than prior value
    known: bool  # the priors are final, else ``add_table_prior`` gives the table's later (``KNOWN``)
    table: bool  # ``prior`` is the ratings table's (``table_prior``), else MoGo's knowledge (``expert_prior``)
    expert: int  # index in ``settings.EXPERTS``: MoGo's virtual AMAF results and bonus near the last move


@njit(cache=True)
def expand(b: np.ndarray, m: np.ndarray, color: int, node: int, t: np.ndarray, f: np.ndarray,
           n_nodes: int, limit: int, kids: ChildPriors) -> int:
    """Give ``node`` its children (legal moves of ``color`` filling no own eye), sorted by
    prior value, at nodes ``n_nodes`` on; returns the next free node (unchanged when
    the children would pass ``limit``, the end of this thread's share of the arrays).
    What they start with: ``kids``.
    The children are written before ``node`` points to them, so that another thread
    reading the tree meanwhile sees ``node`` either as a leaf or with all its children."""
    prior, allowed, prior_n, by_prob, known, table, expert = kids
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
    amaf_n, amaf_w, near_last = np.zeros(k), np.zeros(k), np.zeros(k)
    if expert != NO_EXPERT:  # MoGo 2008 section 4
        shape_amaf(b, m, color, moves, amaf_n, amaf_w, expert == MOGO_EXPERT)
        near_last_bonus(b, m, moves, near_last)
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
        f[0, AVISITS, c], f[0, AWINS, c], f[0, NEAR, c] = amaf_n[o], amaf_w[o], near_last[o]
    t[KNOWN, node] = known
    t[NCHILD, node] = k
    t[FIRST, node] = n_nodes
    return n_nodes + k


class WalkScratch(NamedTuple):
    """One search thread's scratch for its simulations (``walk_scratch``)."""

    seq: np.ndarray  # int64: a simulation's moves, the tree's then the playout's
    path: np.ndarray  # int64: its nodes from the root down
    keys: np.ndarray  # int64: the position at each node of ``path`` (``position_key``)
    first_at: np.ndarray  # int64[points]: where each point is first played in ``seq`` (AMAF)
    node_prior: np.ndarray  # float64[points]: the table's move strengths at a node below the root
    uniform: np.ndarray  # float64[points]: ones, a node's prior before (or without) the table's
    everywhere: np.ndarray  # bool[points]: every point allowed (no superko mask below the root)


@njit(cache=True)
def walk_scratch(m: np.ndarray) -> WalkScratch:
    """Scratch for the simulations on a board of ``m``'s size."""
    size, w = m[SIZE], m[STRIDE]
    return WalkScratch(np.empty(SEQ_PER_POINT * size * size + SEQ_SLACK, dtype=np.int64),
                       np.empty(size * size + SEQ_SLACK, dtype=np.int64), np.empty(size * size + SEQ_SLACK, dtype=np.int64),
                       np.empty(w * w, dtype=np.int64),
                       np.empty(w * w), np.ones(w * w), np.ones(w * w, dtype=np.bool_))


@njit(cache=True, nogil=True)
def simulate(n_sims: int, nodes: Nodes, root: Root, lane: Lane, sel: Selection, settings: SearchSettings,
             knowledge: KnowledgeArrays, gammas: np.ndarray | None, leaves: int | None) -> None:
    """Run ``n_sims`` simulations from ``root`` as search thread ``lane.thread``: its
    statistics go to ``f[lane.thread]``, its new nodes to its share of the arrays, the
    final boards' ownership (+1 Black, -1 White per point) to ``lane.owner`` (and by the
    root move they followed to ``lane.move_owner`` when it has rows) and their
    scores, by the root move they followed, to ``lane.scores``.
    ``knowledge``: the ratings table (``MovePrior.knowledge``) whose move strengths are
    the prior of the nodes below the root when ``settings.tree_prior`` is set, given
    to a node's children once it has ``settings.prior_visits`` visits (at its expansion,
    or later by ``add_table_prior``), their patterns kept in ``lane.cache``; the ppa
    policy's playouts follow and adapt ``lane.adapt``. With ``settings.virtual_loss`` each
    node on the way down counts that many lost visits until the playout's result
    replaces them (virtual loss), so that other threads descending meanwhile spread out.
    ``gammas``: the gamma and ppa policies' table, None for the others; ``leaves``: leaf
    parallelism's playouts at once from each leaf, None for one. Each None is a type, and
    numba prunes the branch it closes: the kernel of the usual search compiles neither the
    gamma playouts nor the parallel loop (a third of a cold compile, ``bench/first_use.py``)."""
    walk = walk_scratch(root.m)
    for _ in range(n_sims):
        b, m = root.b.copy(), root.m.copy()
        depth, c = descend(b, m, nodes, root, lane, sel, settings, knowledge, walk)
        if leaves is None:
            _play_out(b, m, c, depth, nodes, root, lane, sel, settings, walk, gammas)
        else:
            _play_out_leaves(b, m, c, depth, nodes, root, lane, sel, settings, walk, gammas, leaves)


@njit(cache=True, inline=ONCE_A_SIMULATION)
def descend(b: np.ndarray, m: np.ndarray, nodes: Nodes, root: Root, lane: Lane, sel: Selection,
            settings: SearchSettings, knowledge: KnowledgeArrays, walk: WalkScratch) -> tuple[int, int]:
    """Walk down from the root by the selection formula, playing the moves on ``b, m``
    and growing the nodes passed (``grow``), to a node no simulation has visited, a
    leaf or the end of the path: returns the depth reached and the colour to move
    there. ``walk.path[:depth + 1]`` holds the nodes, ``walk.seq[:depth]`` their moves."""
    t, f = nodes.t, nodes.f
    fk = f[lane.thread]
    node, depth, c = root.node, 0, root.color
    walk.path[0] = root.node
    walk.keys[0] = position_key(m, c)
    while True:
        if t[FIRST, node] < 0 or t[KNOWN, node] == 0:  # most nodes passed have all they get
            grow(b, m, c, node, depth, nodes, root, lane, sel, settings, knowledge, walk)
        if depth + 2 >= len(walk.path):
            break
        child = select_child(node, t, f, sel)
        if child < 0:
            break
        node = child
        play(b, m, c, t[MOVE, node])
        walk.seq[depth] = t[MOVE, node]
        depth += 1
        walk.path[depth] = node
        c = 3 - c
        walk.keys[depth] = position_key(m, c)
        fresh = stat(f, VISITS, node) == 0
        fk[VISITS, node] += settings.virtual_loss
        if fresh:
            break
    return depth, c


@njit(cache=True, inline=ONCE_A_SIMULATION)
def grow(b: np.ndarray, m: np.ndarray, c: int, node: int, depth: int, nodes: Nodes, root: Root, lane: Lane,
         sel: Selection, settings: SearchSettings, knowledge: KnowledgeArrays, walk: WalkScratch) -> None:
    """Expand ``node`` (``c`` to move in ``b, m``) when it is the root or a leaf visited
    ``settings.expand_at`` times, or give its children the table's priors once they
    are due (``settings.prior_visits`` visits) if it was expanded before. The table's patterns
    are read again only where the two moves since the node above its parent (``depth``
    on the path) can have changed them (``cached_patterns``'s ``base``)."""
    t, f, pool, thread = nodes.t, nodes.f, nodes.pool, lane.thread
    visits = stat(f, VISITS, node)
    due = settings.tree_prior and visits >= settings.prior_visits - 1
    base = walk.keys[depth - 2] if depth >= 2 else 0
    if t[FIRST, node] < 0:
        if node == root.node:
            kids = ChildPriors(prior=root.prior, allowed=root.allowed, prior_n=settings.prior_n,
                               by_prob=sel.widen > 0, known=np.bool_(True), table=np.any(root.prior > 0),
                               expert=settings.expert)
            pool[thread, 0] = expand(b, m, c, node, t, f, pool[thread, 0], pool[thread, 1], kids)
        elif visits >= settings.expand_at - 1:
            allowed = root.masks[depth] if depth < len(root.masks) else walk.everywhere
            below = walk.uniform
            if due:
                move_strengths(b, m, c, knowledge, walk.node_prior, lane.cache, base)
                below = walk.node_prior
            kids = ChildPriors(prior=below, allowed=allowed, prior_n=settings.prior_n,
                               by_prob=sel.widen > 0, known=due or not settings.tree_prior, table=due,
                               expert=settings.expert)
            pool[thread, 0] = expand(b, m, c, node, t, f, pool[thread, 0], pool[thread, 1], kids)
    elif t[KNOWN, node] == 0:  # expanded before the table's priors were due
        if node == root.node:
            add_table_prior(node, t, f, root.prior, settings.prior_n)
        elif due:
            t[KNOWN, node] = 1  # at once: another thread passing meanwhile must not add them twice
            move_strengths(b, m, c, knowledge, walk.node_prior, lane.cache, base)
            add_table_prior(node, t, f, walk.node_prior, settings.prior_n)


@njit(cache=True, inline=ONCE_A_SIMULATION)
def _play_out(b: np.ndarray, m: np.ndarray, c: int, depth: int, nodes: Nodes, root: Root, lane: Lane,
              sel: Selection, settings: SearchSettings, walk: WalkScratch, gammas: np.ndarray | None) -> None:
    """One playout from the node ``descend`` reached (``c`` to move at ``depth``): its
    final board's ownership and score into ``lane``, its result and AMAF up the path."""
    size, w = m[SIZE], m[STRIDE]
    score, n = playout(b, m, c, settings, walk.seq[depth:], lane.adapt, gammas)
    first = _root_move(nodes.t, walk.path, depth)
    _add_score(lane.scores, first, score)
    by_move = len(lane.move_owner) > 0
    for row in range(1, size + 1):
        for p in range(row * w + 1, row * w + size + 1):
            owner = _owner(b, w, p)
            lane.owner[p] += owner
            if by_move:
                lane.move_owner[first, p] += owner
    _back_up(score > 0, walk.seq, depth + n, depth, nodes, root.color, lane, sel.rave, settings.virtual_loss, walk)


@njit(cache=True)
def _play_out_leaves(b: np.ndarray, m: np.ndarray, c: int, depth: int, nodes: Nodes, root: Root, lane: Lane,
                     sel: Selection, settings: SearchSettings, walk: WalkScratch, gammas: np.ndarray | None,
                     leaves: int) -> None:
    """Leaf parallelism: ``leaves`` playouts at once from the node ``descend``
    reached (``leaf_playouts``), each added and backed up in turn as ``_play_out`` does."""
    first = _root_move(nodes.t, walk.path, depth)
    seqs = np.empty((leaves, len(walk.seq)), dtype=np.int64)
    for i in range(leaves):
        seqs[i, :depth] = walk.seq[:depth]
    owns = np.zeros((leaves, len(lane.owner)))
    leaf_scores, ns = leaf_playouts(b, m, c, settings, depth, seqs, lane.adapt, owns, gammas)
    for i in range(leaves):
        lane.owner[:] += owns[i]
        if len(lane.move_owner) > 0:
            lane.move_owner[first] += owns[i]
        _add_score(lane.scores, first, leaf_scores[i])
        _back_up(leaf_scores[i] > 0, seqs[i], depth + ns[i], depth, nodes, root.color, lane, sel.rave,
                 settings.virtual_loss, walk)


@njit(cache=True)
def playout(b: np.ndarray, m: np.ndarray, color: int, settings: SearchSettings, moves: np.ndarray,
            adapt: PpaWeights, gammas: np.ndarray | None) -> tuple[float, int]:
    """A playout of ``settings.playout_policy`` from the position (``color`` to move), in place:
    the area score and how many moves it wrote to ``moves`` (none for ``random``).
    ``gammas`` is given for the gamma and ppa policies only (None compiles without them)."""
    if gammas is not None:
        return gamma_playout(b, m, color, settings.komi, moves, gammas, adapt)
    policy = settings.playout_policy
    if policy == MOGO_PLAYOUTS or policy == MOGO_LOCAL_PLAYOUTS:
        return mogo_playout(b, m, color, settings.komi, moves, policy == MOGO_LOCAL_PLAYOUTS)
    if policy == NESTED1_PLAYOUTS or policy == NESTED2_PLAYOUTS:
        return nested_playout(b, m, color, settings.komi, moves, 1 if policy == NESTED1_PLAYOUTS else 2,
                              np.bool_(False))
    if policy == PPA_PLAYOUTS or policy == PPA_SIMPLE_PLAYOUTS:
        return ppa_playout(b, m, color, settings.komi, moves, adapt, policy == PPA_SIMPLE_PLAYOUTS)
    return random_playout(b, m, color, settings.komi), 0


@njit(cache=True, parallel=True)
def leaf_playouts(b: np.ndarray, m: np.ndarray, color: int, settings: SearchSettings, depth: int,
                  seqs: np.ndarray, adapt: PpaWeights, owns: np.ndarray,
                  gammas: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """``len(seqs)`` playouts from the same position at once (numba's parallel loop, one
    numba thread each while there are threads), each on its own copy: their scores and
    move counts; playout ``i`` writes its moves to ``seqs[i, depth:]`` and its final
    board's ownership to ``owns[i]``. Not with ppa (its weights would be shared)."""
    k = len(seqs)
    size, w = m[SIZE], m[STRIDE]
    scores = np.empty(k)
    ns = np.empty(k, dtype=np.int64)
    for i in prange(k):
        bi, mi = b.copy(), m.copy()
        score, n = playout(bi, mi, color, settings, seqs[i, depth:], adapt, gammas)
        scores[i], ns[i] = score, n
        for row in range(1, size + 1):
            for p in range(row * w + 1, row * w + size + 1):
                owns[i, p] = _owner(bi, w, p)
    return scores, ns


@njit(cache=True)
def _root_move(t: np.ndarray, path: np.ndarray, depth: int) -> int:
    """The root move a simulation that left the tree at ``depth`` followed (PASS at the root)."""
    return t[MOVE, path[1]] if depth > 0 else PASS


@njit(cache=True)
def _add_score(scores: np.ndarray, first: int, score: float) -> None:
    """One playout's final ``score`` into a lane's sums for the root move ``first`` it followed."""
    scores[0, first] += 1.0
    scores[1, first] += score
    scores[2, first] += score * score


@njit(cache=True, inline=ONCE_A_SIMULATION)
def _back_up(black_wins: bool, seq: np.ndarray, n_seq: int, depth: int, nodes: Nodes, color: int, lane: Lane,
             rave: bool, vloss: float, walk: WalkScratch) -> None:
    """One playout's result onto the path ``walk.path[:depth + 1]`` (``color`` moved
    first from its root) in ``lane``'s statistics, a visit replacing the virtual loss
    counted on the way down; and its AMAF from the moves ``seq[:n_seq]``."""
    fk = nodes.f[lane.thread]
    path = walk.path
    for d in range(depth + 1):  # the mover into path[d] is `color` when d is odd
        mover = color if d % 2 == 1 else 3 - color
        fk[VISITS, path[d]] += 1 - (vloss if d > 0 else 0.0)
        fk[WINS, path[d]] += 1.0 if (mover == BLACK) == black_wins else 0.0
    if rave:
        _update_amaf(seq, n_seq, path, depth, color, black_wins, nodes.t, fk, walk.first_at)


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
    """AMAF into one thread's statistics ``fk``: a child of ``path[d]`` counts as played
    when its move comes first, at or after move ``d``, by the same colour (``seq[i]``
    is played by ``color`` for even i)."""
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

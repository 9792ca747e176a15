"""Monte-Carlo tree search with RAVE and prior knowledge (MoGo 2008, Gelly & Silver 2007).

The tree lives in flat arrays (``Tree``; fields and the selection formulas in
``selection``, docs/search.md). A simulation descends from the root by the
chosen bandit and prior formula. A leaf visited ``EXPAND_AT`` times is expanded
with all legal moves that fill no own eye; each child starts with virtual wins:
the ratings table's (its move strengths, given for the root and, with
``knowledge``, computed in the kernel for every node), or where there is no
table MoGo's expert knowledge (capture, save atari, 3x3 shape, self-atari
penalty). With progressive widening only the ``K(N)`` best children by prior
are searchable. The playout (MoGo, gamma-weighted, gamma-weighted adapted during
the search (PPA) or uniform random) scores the board by area; every node on the
path gets the result and its children get the AMAF update of the moves played
later by the same colour. The numba RNG is seeded by ``Search``, so with one
thread equal seeds give equal searches. With several threads, root parallelism
grows one tree per thread (each seeded, so a seed and a thread count give one
result) and sums the roots' statistics; tree parallelism grows one tree from all
threads, each writing its own statistics slice and node share (no locks, no lost
updates), with virtual loss; its result depends on the threads' timing.
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np
from numba import njit

from ..go import rules
from ..go.board import Board
from ..go.nbr3x3 import colour_code
from ..go.reading import libs_after_up_to_2, runs_dead_ladder
from ..go.rules import (
    BLACK,
    COLOR,
    EMPTY,
    HEAD,
    KO,
    LAST,
    PASS,
    SIZE,
    STRIDE,
    WHITE,
    atari_point,
    illegal_reason,
    in_atari,
    is_eye,
    play,
)
from ..miner.prior import CACHE_SLOTS, NO_KNOWLEDGE, Knowledge, PatternCache, move_strengths, prior_cache
from .playout_gamma import gamma_playout, ppa_weights
from .playout_mogo import PATTERNS, mogo_playout
from .playout_random import random_playout
from .selection import (
    AVISITS,
    AWINS,
    BANDITS,
    FIRST,
    KNOWN,
    MOVE,
    N_FIELDS,
    N_NODE_INTS,
    NCHILD,
    PRIOR_MODES,
    PROB,
    PVISITS,
    PWINS,
    VISITS,
    WINS,
    Selection,
    select_child,
    stat,
)

#: Playout policies, by their value at ``SearchSettings.policy``.
POLICIES = ("random", "mogo", "gamma", "ppa")
RANDOM_PLAYOUTS, MOGO_PLAYOUTS, GAMMA_PLAYOUTS, PPA_PLAYOUTS = range(4)

NO_GAMMAS = np.ones((1, 1))  # the gamma table passed when the policy is not gamma


class SearchSettings(NamedTuple):
    """What the walk down the tree reads besides the selection formula."""

    expand_at: int  # visits a leaf below the root has when it is expanded
    tree_prior: bool  # whether the nodes below the root get the ratings table's priors
    prior_at: int  # visits a node below the root has when its children get them
    prior_n: float  # won visits of a move of probability P: prior_n sqrt(P) (``_table_prior``)
    vloss: float  # lost visits a thread puts on each node of its path (tree parallelism)
    policy: int  # index in POLICIES
    komi: float
    gammas: np.ndarray  # the gamma and ppa policies' table (NO_GAMMAS for the others)

EXPERT_N = 10.0  # virtual visits of one piece of expert knowledge (Michi's prior scale)
UNIFORM_N = 2 * EXPERT_N  # even virtual visits of the moves of a node below the root without the table's priors
PRIOR_N_19 = 160.0  # prior_n on 19x19 (by strength against GnuGo at equal time, bench/RESULTS.md)


def default_prior_n(size: int) -> float:
    """``prior_n`` on a ``size`` x ``size`` board: ``PRIOR_N_19`` in proportion to its
    points (36 on 9x9), since the table, mined from 19x19 games, knows small boards less
    well while their searches run more playouts a second."""
    return PRIOR_N_19 * size * size / 361


@njit(cache=True)
def seed_rng(seed: int) -> None:
    """Seed numba's RNG (separate from numpy's in Python)."""
    np.random.seed(seed)


@njit(cache=True)
def _expert_prior(b: np.ndarray, m: np.ndarray, color: int, p: int, near: np.ndarray) -> tuple[float, float]:
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
def _atari_moves(b: np.ndarray, m: np.ndarray, color: int) -> np.ndarray:
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
def _table_prior(prob: float, prior_n: float) -> tuple[float, float]:
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
        f[0, PVISITS, c], f[0, PWINS, c] = _table_prior(prob, prior_n)


@njit(cache=True)
def node_moves(b: np.ndarray, m: np.ndarray, color: int, allowed: np.ndarray) -> np.ndarray:
    """The moves a node offers: ``color``'s legal moves on ``allowed`` points that fill
    no own eye (a pass is never a child)."""
    size = m[SIZE]
    w = m[STRIDE]
    moves = np.empty(size * size, dtype=np.int64)
    k = 0
    for row in range(1, size + 1):
        for p in range(row * w + 1, row * w + size + 1):
            if b[COLOR, p] != EMPTY or not allowed[p] or is_eye(b, m, color, p):
                continue
            if illegal_reason(b, m, color, p) == 0:
                moves[k] = p
                k += 1
    return moves[:k]


@njit(cache=True)
def expand(b: np.ndarray, m: np.ndarray, color: int, node: int, t: np.ndarray, f: np.ndarray,
           n_nodes: int, limit: int, prior: np.ndarray, allowed: np.ndarray, prior_n: float, by_prob: bool,
           known: bool, table: bool) -> int:
    """Give ``node`` its children (legal moves of ``color`` filling no own eye), sorted by
    prior value, at nodes ``n_nodes`` on; returns the next free node (unchanged when
    the children would pass ``limit``, the end of this thread's share of the arrays).
    ``prior``: with ``table`` the ratings table's strength per point (``_table_prior``),
    else MoGo's knowledge (``_expert_prior``) plus, where ``prior`` is uniform rather
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
    near = np.zeros(0, dtype=np.bool_) if table else _atari_moves(b, m, color)
    for j in range(k):
        prob = prior[moves[j]] / total if total > 0 else 1.0 / k
        if table:
            pn[j], pw[j] = _table_prior(prob, prior_n)
        else:
            pn[j], pw[j] = _expert_prior(b, m, color, moves[j], near)
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
def simulate(b0: np.ndarray, m0: np.ndarray, color: int, t: np.ndarray, f: np.ndarray, pool: np.ndarray,
             thread: int, root: int, n_sims: int, prior: np.ndarray, allowed: np.ndarray, sel: Selection,
             settings: SearchSettings, owner: np.ndarray, knowledge: Knowledge, cache: PatternCache, adapt) -> None:
    """Run ``n_sims`` simulations from ``root`` (position ``b0, m0``, ``color`` to move)
    as search thread ``thread``: its statistics go to ``f[thread]``, its new nodes to
    its share ``pool[thread] = (next free node, end)`` of the arrays. Adds final-board
    ownership (+1 Black, -1 White per point) to ``owner``. ``knowledge``: the ratings table
    (``MovePrior.knowledge``) whose move strengths are the prior of the nodes below
    the root when ``settings.tree_prior`` is set, given to a node's children once it has
    ``settings.prior_at`` visits (at its expansion, or later by ``add_table_prior``);
    ``cache``: this thread's ``prior_cache`` of the positions' patterns; ``adapt``: this
    thread's ``ppa_weights``, which the ppa policy's playouts follow and adapt. With ``settings.vloss`` each node on
    the way down counts that many lost visits until the playout's result replaces
    them (virtual loss), so that other threads descending meanwhile spread out."""
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
        node, depth, c = root, 0, color
        path[0] = root
        while True:  # descend, expanding a leaf once it has been visited enough
            at_root = node == root
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


@dataclass
class SearchConfig:
    """The search's knobs (the formulas: docs/search.md)."""

    playouts: int = 1000
    time_per_move: float | None = None
    prior_mode: str = "virtual-wins"  # virtual-wins | progressive-bias | puct | mogo
    tree_priors: bool = True  # the ratings table's priors at every node, not only at the root
    prior_visits: int = 2  # visits a node below the root has when its children get the table's priors
    policy: str = "mogo"  # mogo | gamma | ppa | random
    ppa_rate: float = 0.32  # Playout Policy Adaptation's learning rate alpha (policy ppa)
    gammas: np.ndarray | None = None  # the gamma policy's table (engine.gamma.playout_gammas)
    rave: bool = True
    bandit: str = "amaf"  # ucb1 | tuned1 | tuned2 | amaf (RAVE alone explores: Gelly & Silver 2007)
    c_ucb: float = 1.0  # the exploration constant of ucb1 / tuned1 / tuned2
    c_pb: float = 1.0  # weight of the progressive-bias, PUCT or Eq. 3 delta term
    fpu: float = 0.1  # first-play value: the parent's value for the mover less this (progressive-bias, puct)
    prior_n: float | None = None  # won visits of a move of probability P: prior_n sqrt(P); None: default_prior_n
    rave_equiv: float = 3500.0
    widen: float = 0.0  # growth base of progressive widening; 0: off
    expand_at: int = 2
    resign: float = 0.1
    max_nodes: int = 4_000_000  # 19x19 at 10,000 playouts grows 1.3 M nodes; untouched pages cost no memory
    seed: int = 0
    komi: float = 7.5
    threads: int = 1
    check_ladders: bool = False  # replace a chosen move that runs a dead ladder by the next most visited
    parallel: str = "root"  # root: one tree per thread; tree: one shared tree, virtual loss
    virtual_loss: float = 1.0  # lost visits a thread in the shared tree puts on its path


@dataclass
class SearchResult:
    """What a search found: the chosen move and the statistics for analysis."""

    move: int  # board point, PASS, or -2 to resign
    winrate: float
    visits: np.ndarray  # per board point, real visits of the root's children
    owner: np.ndarray  # per board point, mean ownership in [-1, 1] (+1 Black)
    playouts: int
    seconds: float
    prior: np.ndarray = field(default_factory=lambda: np.zeros(0))  # root children's prior value
    per_thread: list[int] = field(default_factory=list)  # playouts of each thread


@dataclass
class MoveInfo:
    """One root move as analysis shows it: visits, win rate for the player to move,
    prior probability, the win rate's lower confidence bound, the principal variation."""

    move: int
    visits: int
    winrate: float
    prior: float
    lcb: float
    pv: list[int]


RESIGN = -2


class Tree:
    """One search tree in flat arrays, with its root kept between moves (tree reuse).
    ``threads`` search threads share it: each has its own statistics slice of ``f``
    and its own share of the nodes (``pool[k] = (next free node, end)``)."""

    def __init__(self, max_nodes: int, threads: int = 1) -> None:
        self.max_nodes = max_nodes
        self.t = np.zeros((N_NODE_INTS, max_nodes), dtype=np.int64)
        self.f = np.zeros((threads, N_FIELDS, max_nodes))
        span = (max_nodes - 1) // threads
        self.bounds = np.array([(1 + k * span, 1 + (k + 1) * span) for k in range(threads)], dtype=np.int64)
        self.pool = self.bounds.copy()
        self.root = 0
        self.root_key: tuple[int, int, int] | None = None  # (stones hash, ko point, colour to move)

    def find_root(self, board: Board, color: int, allowed: np.ndarray) -> None:
        """Reuse the subtree of the current position if the tree holds it and the
        node offers exactly the moves legal now (``allowed``: the superko mask; nodes
        below the root were expanded without it), else start over."""
        key = (board.zobrist, int(board.m[KO]), color)  # what the legal moves depend on
        node = self.root if key == self.root_key else -1  # the same position again (analysis)
        half_full = np.any(self.pool[:, 0] - self.bounds[:, 0] >= (self.bounds[:, 1] - self.bounds[:, 0]) // 2)
        if node < 0 and self.root_key is not None and not half_full:
            node = self._descend(board, color)
        if node >= 0 and self._offers_legal_moves(node, board, color, allowed):
            self.root, self.root_key = node, key
            return
        self.t[MOVE, 0], self.t[FIRST, 0], self.t[NCHILD, 0] = PASS, -1, 0
        self.f[:, :, 0] = 0.0
        self.pool[:, 0] = self.bounds[:, 0]
        self.root, self.root_key = 0, key

    def _descend(self, board: Board, color: int) -> int:
        """The node of the board's position: a child or grandchild of the old root
        reached by the moves played since, each by the colour the tree has move, or -1."""
        history = [board]
        probe = board.copy()
        for _ in range(2):
            if not probe._undo:
                break
            probe.undo()
            history.append(probe.copy())
        for back, old in enumerate(history[1:], start=1):
            if (old.zobrist, int(old.m[KO]), color if back % 2 == 0 else 3 - color) != self.root_key:
                continue
            node, mover = self.root, self.root_key[2]
            for newer in reversed(history[:back]):
                move = int(newer.m[LAST])
                if move != PASS and newer.b[COLOR, move] != mover:
                    return -1
                node, mover = self._child(node, move), 3 - mover
                if node < 0:
                    return -1
            return node
        return -1

    def _offers_legal_moves(self, node: int, board: Board, color: int, allowed: np.ndarray) -> bool:
        """Whether ``node``'s children (none yet counts) are the moves ``color`` may play now."""
        kids = self.children(node)
        legal = node_moves(board.b, board.m, color, allowed)
        return not len(kids) or np.array_equal(np.sort(self.t[MOVE, kids]), legal)

    def children(self, node: int) -> np.ndarray:
        """The node indices of ``node``'s children (empty for a leaf)."""
        first, k = int(self.t[FIRST, node]), int(self.t[NCHILD, node])
        return np.arange(first, first + k) if first >= 0 else np.zeros(0, dtype=np.int64)

    def _child(self, node: int, move: int) -> int:
        kids = self.children(node)
        hits = kids[self.t[MOVE, kids] == move]
        return int(hits[0]) if len(hits) else -1

    def grow(self, board: Board, color: int, config: SearchConfig, prior: np.ndarray, allowed: np.ndarray,
             sel: Selection, settings: SearchSettings, owner: np.ndarray, knowledge: Knowledge, cache: PatternCache,
             adapt: tuple, thread: int = 0, stop=None) -> int:
        """Simulate from the root in batches as search thread ``thread`` until
        ``config``'s playouts or seconds are spent, or ``stop`` (an Event) is set;
        returns the number of playouts. A search by time also ends once the rest of
        its time, at the rate so far, could not change the most visited move
        (``settled``): the time it saves is there for later moves under a clock.
        The numba kernel releases the GIL, so other threads grow their trees (or
        this one) at the same time."""
        start = time.perf_counter()
        done = 0
        target = config.playouts if config.time_per_move is None else 1 << 40
        while done < target:
            n = min(64, target - done)
            simulate(board.b, board.m, color, self.t, self.f, self.pool, thread, self.root, n,
                     prior, allowed, sel, settings, owner, knowledge, cache, adapt)
            done += n
            if config.time_per_move is not None:
                spent = time.perf_counter() - start
                if spent > config.time_per_move or self.settled(done / spent * (config.time_per_move - spent)):
                    break
            if stop is not None and stop.is_set():
                break
        return done

    def settled(self, remaining: float) -> bool:
        """Whether the root's most visited move leads the next by more than the
        ``remaining`` playouts of each thread growing this tree could make up."""
        kids = self.children(self.root)
        if len(kids) < 2:
            return True
        visits = self.f[:, VISITS, kids].sum(axis=0)
        second, first = np.partition(visits, -2)[-2:]
        return first - second > remaining * self.f.shape[0]

    def root_stats(self, w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per board point: real visits, real wins and prior value of the root's children.
        Read while the search runs (analysis), the wins are read first: a simulation adds
        its visit before its win, so the wins read never pass the visits read after them."""
        visits, wins, prior_value = np.zeros(w * w), np.zeros(w * w), np.zeros(w * w)
        kids = self.children(self.root)
        if len(kids):
            moves = self.t[MOVE, kids]
            wins[moves] = self.f[:, WINS, kids].sum(axis=0)
            visits[moves] = self.f[:, VISITS, kids].sum(axis=0)
            prior_value[moves] = self.f[0, PWINS, kids] / self.f[0, PVISITS, kids]
        return visits, wins, prior_value

    def principal_variation(self, node: int, length: int) -> list[int]:
        """The moves from ``node`` down by the most visited child, ``node``'s own first."""
        pv = [int(self.t[MOVE, node])]
        while len(pv) < length:
            kids = self.children(node)
            if not len(kids):
                break
            visits = self.f[:, VISITS, kids].sum(axis=0)
            if visits.max() <= 0:
                break
            node = int(kids[np.argmax(visits)])
            pv.append(int(self.t[MOVE, node]))
        return pv


class Search:
    """MCTS over a ``Board`` with ``threads`` search threads: with root
    parallelism, one tree per thread, each with its share of the playouts and its
    own random stream, merged by summing the root children's visits and wins;
    with tree parallelism, one tree that all threads grow, with virtual loss."""

    def __init__(self, config: SearchConfig) -> None:
        if config.policy in ("gamma", "ppa") and config.gammas is None:
            raise ValueError(f"the {config.policy} playout policy needs a table of gammas (SearchConfig.gammas)")
        if config.bandit not in BANDITS or config.prior_mode not in PRIOR_MODES:
            raise ValueError(f"unknown bandit {config.bandit!r} or prior mode {config.prior_mode!r}")
        if config.bandit == "amaf" and not config.rave:
            raise ValueError("the amaf bandit explores by the AMAF values: it needs RAVE")
        if config.parallel not in ("root", "tree"):
            raise ValueError(f"unknown parallelism {config.parallel!r}")
        self.config = config
        self._trees: list[Tree] = []
        self._runs = 0
        self._caches: list[PatternCache] = []
        self._cache_of: tuple | None = None  # the board points and table the caches hold patterns of
        self.adapted: list[tuple] = []  # each thread's ppa_weights after the last run

    @property
    def shared(self) -> bool:
        """Whether the threads grow one tree (tree parallelism)."""
        return self.config.parallel == "tree" and self.config.threads > 1

    def records(self, size: int, tree_prior: bool) -> tuple[Selection, SearchSettings]:
        """The kernel's records of this configuration on a ``size`` x ``size`` board, with
        or without the ratings table's priors below the root (``tree_prior``)."""
        c = self.config
        sel = Selection(BANDITS.index(c.bandit), float(c.c_ucb), PRIOR_MODES.index(c.prior_mode), float(c.c_pb),
                        bool(c.rave), float(c.rave_equiv), float(c.fpu), float(c.widen))
        prior_n = c.prior_n if c.prior_n is not None else default_prior_n(size)
        settings = SearchSettings(
            expand_at=int(c.expand_at), tree_prior=bool(tree_prior),
            prior_at=int(c.prior_visits) if c.widen <= 0 else 0,  # widening orders the children by their priors
            prior_n=float(prior_n) if c.prior_mode != "puct" else 0.0,
            vloss=float(c.virtual_loss) if self.shared else 0.0,
            policy=POLICIES.index(c.policy), komi=float(c.komi),
            gammas=c.gammas if c.gammas is not None else NO_GAMMAS)
        return sel, settings

    def run(self, board: Board, color: int, prior: np.ndarray | None = None,
            knowledge: Knowledge | None = None, stop=None) -> SearchResult:
        """Search the position (``color`` to move) and return the most visited move.
        ``prior``: the root's move strengths; ``knowledge`` (``MovePrior.knowledge``):
        the ratings table that gives the nodes below the root theirs; ``stop``: an
        Event that ends the search early when set."""
        cfg = self.config
        threads = max(1, cfg.threads)
        if not self._trees:
            if self.shared:
                self._trees = [Tree(cfg.max_nodes, threads)]
            else:
                self._trees = [Tree(cfg.max_nodes // threads) for _ in range(threads)]
        start = time.perf_counter()
        w = board.size + 2
        if prior is None:
            prior = np.zeros(w * w)  # no external prior: uniform, and no virtual wins from it
        allowed = self._superko_mask(board, color)
        sel, settings = self.records(board.size, knowledge is not None)
        knowledge = NO_KNOWLEDGE if knowledge is None else knowledge
        owners = [np.zeros(w * w) for _ in range(threads)]
        if self._cache_of != (w * w, id(knowledge.lookup)):
            slots = 1 if knowledge is NO_KNOWLEDGE else CACHE_SLOTS
            self._caches = [prior_cache(w * w, slots) for _ in range(threads)]
            self._cache_of = (w * w, id(knowledge.lookup))
        rate = cfg.ppa_rate if cfg.policy == "ppa" else 0.0
        adapts = [ppa_weights(w * w, rate) for _ in range(threads)]  # the ppa weights live for one search
        self.adapted = adapts
        for tree in self._trees:
            tree.find_root(board, color, allowed)
        if threads == 1:
            if self._runs == 0:
                seed_rng(cfg.seed)  # once: later moves go on with the same stream
            done = [self._trees[0].grow(board, color, cfg, prior, allowed, sel, settings, owners[0], knowledge,
                                        self._caches[0], adapts[0], stop=stop)]
        else:
            share = replace(cfg, playouts=-(-cfg.playouts // threads))
            head = 0
            if self.shared and self._trees[0].t[FIRST, self._trees[0].root] < 0:
                seed_rng(cfg.seed + 7919 * self._runs)  # the root's children, before the threads share them
                head = self._trees[0].grow(board, color, replace(share, playouts=1, time_per_move=None), prior,
                                           allowed, sel, settings, owners[0], knowledge, self._caches[0], adapts[0])

            def work(k: int) -> int:
                seed_rng(cfg.seed + 7919 * self._runs + k)  # numba's RNG is per thread
                tree = self._trees[0] if self.shared else self._trees[k]
                mine = replace(share, playouts=share.playouts - head) if k == 0 else share
                return tree.grow(board, color, mine, prior, allowed, sel, settings, owners[k], knowledge, self._caches[k],
                                 adapts[k], k if self.shared else 0, stop)

            with ThreadPoolExecutor(threads) as pool:
                done = list(pool.map(work, range(threads)))
            done[0] += head
        self._runs += 1
        stats = [tree.root_stats(w) for tree in self._trees]
        visits = sum(v for v, _, _ in stats)
        wins = sum(x for _, x, _ in stats)
        best, winrate = PASS, 0.0
        if visits.any():
            best = int(np.argmax(visits))
            winrate = float(wins[best] / visits[best])
            if winrate < cfg.resign and visits[best] >= 50:
                best = RESIGN
        return SearchResult(best, winrate, visits, sum(owners) / max(sum(done), 1), sum(done),
                            time.perf_counter() - start, stats[0][2], done)

    def analysis(self, board: Board, pv_length: int = 10) -> list[MoveInfo]:
        """The root's moves after the last ``run`` of ``board``'s position, most
        visited first (the principal variation from the first tree)."""
        if not self._trees:
            return []
        w = board.size + 2
        tree = self._trees[0]
        kids = tree.children(tree.root)
        by_move = {int(tree.t[MOVE, c]): int(c) for c in kids}
        stats = [t.root_stats(w) for t in self._trees]  # one reading of each tree: visits and wins agree
        visits = sum(v for v, _, _ in stats)
        wins = sum(x for _, x, _ in stats)
        infos = []
        for p in np.flatnonzero(visits > 0):
            n, q = visits[p], wins[p] / visits[p]
            lcb = max(0.0, q - 1.96 * np.sqrt(max(q * (1 - q), 0.0) / n))  # q may pass 1 by rounding
            prob = float(tree.f[0, PROB, by_move[p]]) if p in by_move else 0.0
            pv = tree.principal_variation(by_move[p], pv_length) if p in by_move else [int(p)]
            infos.append(MoveInfo(int(p), int(n), float(q), prob, float(lcb), pv))
        infos.sort(key=lambda i: (-i.visits, -i.winrate))
        return infos

    @staticmethod
    def _superko_mask(board: Board, color: int) -> np.ndarray:
        """Points the root may play: all, less moves that repeat an earlier position."""
        w = board.size + 2
        allowed = np.ones(w * w, dtype=np.bool_)
        seen = board._seen
        for p in np.flatnonzero(board.b[COLOR] == EMPTY):
            if illegal_reason(board.b, board.m, color, p) == 0:
                b, m = board.b.copy(), board.m.copy()
                play(b, m, color, p)
                allowed[p] = int(m[rules.HASH]) not in seen
        return allowed


def dead_stones(board: Board, owner: np.ndarray) -> list[tuple[int, int]]:
    """Stones that the playouts mostly give to the other side."""
    w = board.size + 2
    dead = []
    for p in np.flatnonzero((board.b[COLOR] == BLACK) | (board.b[COLOR] == WHITE)):
        sign = 1 if board.b[COLOR, p] == BLACK else -1
        if owner[p] * sign < -0.3:
            dead.append((int(p) // w - 1, int(p) % w - 1))
    return dead


def score_without_dead(board: Board, owner: np.ndarray, komi: float) -> float:
    """Area score (Black minus White) after removing the stones ``dead_stones`` finds."""
    dead = set(dead_stones(board, owner))
    cleared = Board(board.size)
    for name in ("b", "w"):
        cleared.setup(name, sorted(board.stones(name) - dead))
    return cleared.score(komi)


def choose_move(
    search: Search, board: Board, color: int, opponent_passed: bool, prior: np.ndarray | None = None,
    knowledge: Knowledge | None = None,
) -> SearchResult:
    """The engine's move: pass once the opponent has passed and the game is won as
    the board stands both counting every stone (Tromp-Taylor) and with the
    playouts' dead stones removed, so a referee's dead-stone removal cannot turn
    the result; else the search's most visited move, or resign below the threshold.
    ``prior`` is the per-point prior of the root's moves (e.g. ``MovePrior``),
    ``knowledge`` that of the nodes below (``MovePrior.knowledge``). With
    ``check_ladders``, a move that runs a dead ladder gives way to the root's most
    visited move (then highest prior) that does not."""
    result = search.run(board, color, prior, knowledge)
    sign = 1 if color == BLACK else -1
    komi = search.config.komi
    if opponent_passed and min(board.score(komi) * sign, score_without_dead(board, result.owner, komi) * sign) > 0:
        result.move = PASS
    if search.config.check_ladders and result.move > 0 and runs_dead_ladder(board.b, board.m, color, result.move):
        prior = result.prior if len(result.prior) == len(result.visits) else np.zeros(len(result.visits))
        for p in np.lexsort((-prior, -result.visits)):  # most visited, then by prior: the root's children
            if result.visits[p] == 0 and prior[p] <= 0:
                break
            if p > 0 and not runs_dead_ladder(board.b, board.m, color, p):
                result.move = int(p)
                break
    return result

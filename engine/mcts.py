"""Monte-Carlo tree search with RAVE and prior knowledge (MoGo 2008, Gelly & Silver 2007).

The tree lives in flat arrays (``Tree``): node ``i`` has a move, the index of its
first child and its number of children (children are contiguous), real visits
and wins, virtual (prior) visits and wins, AMAF visits and wins, and a prior
probability. Wins of a node are counted for the player who made its move.

A simulation descends from the root by the score

    (1 - beta) * Q + beta * Q_amaf + exploration + progressive bias,

with ``Q`` counting the prior's virtual wins, ``beta = an / (an + n + n * an / RAVE_EQUIV)``
(Silver's minimum-error schedule, going from 1 to 0 as visits grow),
exploration UCB1 or UCB1-Tuned, and progressive bias / PUCT ``C_PB * P * sqrt(N) / (1 + n)``.
A leaf visited ``EXPAND_AT`` times is expanded with all legal moves that fill no own
eye; each child starts with expert virtual wins (capture, save atari, 3x3 shape,
self-atari penalty) plus the external prior: the ratings table's move strengths,
given for the root and, with ``knowledge``, computed in the kernel for every node.
With progressive widening only the ``K(N)`` best children by prior are searchable.
The playout (MoGo, gamma-weighted or uniform random) scores the board by area;
every node on the path gets the result and its children get the AMAF update of
the moves played later by the same colour. The numba RNG is seeded by ``Search``, so equal seeds give equal
searches. With several threads each grows its own tree (root parallelism: no
locks, since the kernel shares nothing) and the roots' statistics are summed.
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

import numpy as np
from numba import njit

from ..go import rules
from ..go.board import Board
from ..go.nbr3x3 import colour_code
from ..go.reading import libs_after_up_to_2
from ..go.rules import (
    BLACK,
    COLOR,
    EMPTY,
    HEAD,
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
from ..miner.prior import NO_KNOWLEDGE, move_strengths
from .playout_gamma import gamma_playout
from .playout_mogo import PATTERNS, mogo_playout
from .playout_random import random_playout

# Node fields of the float table ``f``.
VISITS, WINS, PVISITS, PWINS, AVISITS, AWINS, PROB = range(7)
# Node fields of the int table ``t``.
MOVE, FIRST, NCHILD = range(3)

# Parameters, in the float vector ``params``.
C_UCB, TUNED, RAVE_EQUIV, C_PB, PRIOR_N, WIDEN, EXPAND_AT, USE_RAVE, POLICY, KOMI, TREE_PRIOR = range(11)
N_PARAMS = 11
#: Playout policies, by their value at ``params[POLICY]``.
POLICIES = ("random", "mogo", "gamma")
RANDOM_PLAYOUTS, MOGO_PLAYOUTS, GAMMA_PLAYOUTS = range(3)

NO_GAMMAS = np.ones((1, 1))  # the gamma table passed when the policy is not gamma

EXPERT_N = 10.0  # virtual visits of one piece of expert knowledge (Michi's prior scale)


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
def expand(b: np.ndarray, m: np.ndarray, color: int, node: int, t: np.ndarray, f: np.ndarray,
           n_nodes: int, prior: np.ndarray, allowed: np.ndarray, params: np.ndarray) -> int:
    """Give ``node`` its children (legal moves of ``color`` filling no own eye), sorted by
    prior value; returns the new node count (unchanged when the tree is full)."""
    size = m[SIZE]
    w = m[STRIDE]
    if n_nodes + size * size > t.shape[1]:
        return n_nodes
    near = _atari_moves(b, m, color)
    moves = np.empty(size * size, dtype=np.int64)
    value = np.empty(size * size)
    pn = np.empty(size * size)
    pw = np.empty(size * size)
    k = 0
    for row in range(1, size + 1):
        for p in range(row * w + 1, row * w + size + 1):
            if b[COLOR, p] != EMPTY or not allowed[p] or is_eye(b, m, color, p):
                continue
            if illegal_reason(b, m, color, p) != 0:
                continue
            n0, w0 = _expert_prior(b, m, color, p, near)
            pn[k], pw[k], moves[k] = n0, w0, p
            k += 1
    if k == 0:
        return n_nodes
    total = 0.0
    for j in range(k):
        total += prior[moves[j]]
    for j in range(k):
        prob = prior[moves[j]] / total if total > 0 else 1.0 / k
        if params[PRIOR_N] > 0 and total > 0:  # the external prior as virtual wins
            rel = prob * k  # 1 for a uniform prior
            pn[j] += params[PRIOR_N]
            pw[j] += params[PRIOR_N] * rel / (rel + 1)
        value[j] = prob if params[WIDEN] > 0 else pw[j] / pn[j]
    order = np.argsort(-value[:k], kind="mergesort")
    t[FIRST, node] = n_nodes
    t[NCHILD, node] = k
    for j in range(k):
        c = n_nodes + j
        o = order[j]
        t[MOVE, c] = moves[o]
        t[FIRST, c] = -1
        t[NCHILD, c] = 0
        f[:, c] = 0.0
        f[PVISITS, c] = pn[o]
        f[PWINS, c] = pw[o]
        f[PROB, c] = prior[moves[o]] / total if total > 0 else 1.0 / k
    return n_nodes + k


@njit(cache=True)
def select_child(node: int, t: np.ndarray, f: np.ndarray, params: np.ndarray) -> int:
    """The child of ``node`` with the best RAVE + UCB + progressive-bias score."""
    parent_n = f[VISITS, node] + 1.0
    log_n = math.log(parent_n)
    first, k = t[FIRST, node], t[NCHILD, node]
    if params[WIDEN] > 0:  # progressive widening: K(N) grows with log N
        k = min(k, 2 + int(math.log(parent_n) / math.log(params[WIDEN])))
    best, best_score = first, -1e300
    for c in range(first, first + k):
        n = f[VISITS, c] + f[PVISITS, c]
        q = (f[WINS, c] + f[PWINS, c]) / n
        an = f[AVISITS, c]
        if params[USE_RAVE] > 0 and an > 0:
            beta = an / (an + n + n * an / params[RAVE_EQUIV])
            q = (1 - beta) * q + beta * f[AWINS, c] / an
        if params[C_UCB] > 0:
            if params[TUNED] > 0:
                var = q - q * q + math.sqrt(2 * log_n / n)
                q += params[C_UCB] * math.sqrt(log_n / n * min(0.25, var))
            else:
                q += params[C_UCB] * math.sqrt(log_n / n)
        if params[C_PB] > 0:
            q += params[C_PB] * f[PROB, c] * math.sqrt(parent_n) / (1 + f[VISITS, c])
        if q > best_score:
            best, best_score = c, q
    return best


@njit(cache=True, nogil=True)
def simulate(b0: np.ndarray, m0: np.ndarray, color: int, t: np.ndarray, f: np.ndarray, n_nodes: int,
             root: int, n_sims: int, prior: np.ndarray, allowed: np.ndarray, params: np.ndarray,
             owner: np.ndarray, gammas: np.ndarray, knowledge) -> int:
    """Run ``n_sims`` simulations from ``root`` (position ``b0, m0``, ``color`` to move);
    adds final-board ownership (+1 Black, -1 White per point) to ``owner``; returns
    the node count. ``gammas``: the gamma policy's table (``engine.gamma``);
    ``knowledge``: the ratings table (``MovePrior.knowledge``) whose move strengths
    are the prior of the nodes below the root when ``params[TREE_PRIOR]`` is set."""
    size = m0[SIZE]
    w = m0[STRIDE]
    seq = np.empty(4 * size * size + 8, dtype=np.int64)
    path = np.empty(size * size + 8, dtype=np.int64)
    first_at = np.empty(w * w, dtype=np.int64)
    uniform = np.ones(w * w)
    node_prior = np.empty(w * w)
    everywhere = np.ones(w * w, dtype=np.bool_)
    for _ in range(n_sims):
        b, m = b0.copy(), m0.copy()
        node, depth, c = root, 0, color
        path[0] = root
        while True:  # descend, expanding a leaf once it has been visited enough
            if t[FIRST, node] < 0 and (node == root or f[VISITS, node] >= params[EXPAND_AT] - 1):
                at_root = node == root
                below = uniform
                if not at_root and params[TREE_PRIOR] > 0:
                    move_strengths(b, m, c, knowledge, node_prior)
                    below = node_prior
                n_nodes = expand(b, m, c, node, t, f, n_nodes, prior if at_root else below,
                                 allowed if at_root else everywhere, params)
            if t[FIRST, node] < 0 or depth + 2 >= len(path):
                break
            node = select_child(node, t, f, params)
            play(b, m, c, t[MOVE, node])
            seq[depth] = t[MOVE, node]
            depth += 1
            path[depth] = node
            c = 3 - c
            if f[VISITS, node] == 0:
                break
        if params[POLICY] == MOGO_PLAYOUTS:
            score, n = mogo_playout(b, m, c, params[KOMI], seq[depth:])
        elif params[POLICY] == GAMMA_PLAYOUTS:
            score, n = gamma_playout(b, m, c, params[KOMI], seq[depth:], gammas)
        else:
            score, n = random_playout(b, m, c, params[KOMI]), 0
        black_wins = score > 0
        for row in range(1, size + 1):
            for p in range(row * w + 1, row * w + size + 1):
                owner[p] += _owner(b, w, p)
        for d in range(depth + 1):  # the mover into path[d] is `color` when d is odd
            mover = color if d % 2 == 1 else 3 - color
            f[VISITS, path[d]] += 1
            f[WINS, path[d]] += 1.0 if (mover == BLACK) == black_wins else 0.0
        if params[USE_RAVE] > 0:
            _update_amaf(seq, depth + n, path, depth, color, black_wins, t, f, first_at)
    return n_nodes


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
                 black_wins: bool, t: np.ndarray, f: np.ndarray, first_at: np.ndarray) -> None:
    """AMAF: a child of ``path[d]`` counts as played when its move comes first, at or
    after move ``d``, by the same colour (``seq[i]`` is played by ``color`` for even i)."""
    big = 1 << 30
    first_at[:] = big
    for i in range(n_seq - 1, -1, -1):
        first_at[seq[i]] = i
        if i <= depth:
            node = path[i]
            mover = color if i % 2 == 0 else 3 - color
            won = (mover == BLACK) == black_wins
            for c in range(t[FIRST, node], t[FIRST, node] + t[NCHILD, node]):
                j = first_at[t[MOVE, c]]
                if j < big and (j - i) % 2 == 0:
                    f[AVISITS, c] += 1
                    f[AWINS, c] += 1.0 if won else 0.0


@dataclass
class SearchConfig:
    """The search's knobs (see the module docstring)."""

    playouts: int = 1000
    time_per_move: float | None = None
    prior_mode: str = "virtual-wins"  # virtual-wins | progressive-bias | puct | both | none
    tree_priors: bool = True  # the ratings table's priors at every node, not only at the root
    policy: str = "mogo"  # mogo | gamma | random
    gammas: np.ndarray | None = None  # the gamma policy's table (engine.gamma.playout_gammas)
    rave: bool = True
    ucb: str = "ucb1"  # ucb1 | tuned
    c_ucb: float = 0.0  # Gelly & Silver 2007: with RAVE and priors, no UCB term plays best
    c_pb: float = 1.0
    prior_n: float = 20.0
    rave_equiv: float = 3500.0
    widen: float = 0.0  # growth base of progressive widening; 0: off
    expand_at: int = 2
    resign: float = 0.1
    max_nodes: int = 4_000_000  # 19x19 at 10,000 playouts grows 1.3 M nodes; untouched pages cost no memory
    seed: int = 0
    komi: float = 7.5
    threads: int = 1


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
    per_thread: list[int] = field(default_factory=list)  # playouts of each thread's tree


RESIGN = -2


class Tree:
    """One search tree in flat arrays, with its root kept between moves (tree reuse)."""

    def __init__(self, max_nodes: int) -> None:
        self.max_nodes = max_nodes
        self.t = np.zeros((3, max_nodes), dtype=np.int64)
        self.f = np.zeros((7, max_nodes))
        self.n_nodes = 0
        self.root = 0
        self.root_key: tuple[int, int] | None = None

    def find_root(self, board: Board, color: int) -> None:
        """Reuse the subtree of the current position if the tree holds it, else start over."""
        key = (board.zobrist, color)
        if self.root_key is not None and self.n_nodes < self.max_nodes // 2:
            node = self._descend(board)
            if node >= 0:
                self.root, self.root_key = node, key
                return
        self.t[MOVE, 0], self.t[FIRST, 0], self.t[NCHILD, 0] = PASS, -1, 0
        self.f[:, 0] = 0.0
        self.n_nodes, self.root, self.root_key = 1, 0, key

    def _descend(self, board: Board) -> int:
        """The node of the board's position: a child or grandchild of the old root
        reached by the moves played since, or -1."""
        history = [board]
        probe = board.copy()
        for _ in range(2):
            if not probe._undo:
                break
            probe.undo()
            history.append(probe.copy())
        for back, old in enumerate(history[1:], start=1):
            if old.zobrist != self.root_key[0]:
                continue
            node = self.root
            for newer in reversed(history[:back]):
                node = self._child(node, int(newer.m[rules.LAST]))
                if node < 0:
                    return -1
            return node
        return -1

    def _child(self, node: int, move: int) -> int:
        first, k = int(self.t[FIRST, node]), int(self.t[NCHILD, node])
        if first < 0:
            return -1
        hits = np.flatnonzero(self.t[MOVE, first:first + k] == move)
        return first + int(hits[0]) if len(hits) else -1

    def grow(self, board: Board, color: int, config: SearchConfig, prior: np.ndarray, allowed: np.ndarray,
             params: np.ndarray, owner: np.ndarray, knowledge: tuple) -> int:
        """Simulate from the root in batches until ``config``'s playouts or seconds
        are spent; returns the number of playouts. The numba kernel releases the
        GIL, so trees in other threads grow at the same time."""
        start = time.perf_counter()
        done = 0
        gammas = config.gammas if config.gammas is not None else NO_GAMMAS
        target = config.playouts if config.time_per_move is None else 1 << 40
        while done < target:
            n = min(64, target - done)
            self.n_nodes = simulate(board.b, board.m, color, self.t, self.f, self.n_nodes, self.root, n,
                                    prior, allowed, params, owner, gammas, knowledge)
            done += n
            if config.time_per_move is not None and time.perf_counter() - start > config.time_per_move:
                break
        return done

    def root_stats(self, w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per board point: real visits, real wins and prior value of the root's children."""
        visits, wins, prior_value = np.zeros(w * w), np.zeros(w * w), np.zeros(w * w)
        first, k = int(self.t[FIRST, self.root]), int(self.t[NCHILD, self.root])
        if first >= 0:
            kids = np.arange(first, first + k)
            moves = self.t[MOVE, kids]
            visits[moves] = self.f[VISITS, kids]
            wins[moves] = self.f[WINS, kids]
            prior_value[moves] = self.f[PWINS, kids] / self.f[PVISITS, kids]
        return visits, wins, prior_value


class Search:
    """MCTS over a ``Board``; with ``threads`` > 1, root parallelism: one tree per
    thread, each with its share of the playouts and its own random stream, merged
    by summing the root children's visits and wins."""

    def __init__(self, config: SearchConfig) -> None:
        if config.policy == "gamma" and config.gammas is None:
            raise ValueError("the gamma playout policy needs a table of gammas (SearchConfig.gammas)")
        self.config = config
        self._trees: list[Tree] = []
        self._runs = 0

    def _params(self) -> np.ndarray:
        c = self.config
        p = np.zeros(N_PARAMS)
        p[C_UCB], p[TUNED], p[RAVE_EQUIV] = c.c_ucb, c.ucb == "tuned", c.rave_equiv
        p[C_PB] = c.c_pb if c.prior_mode in ("progressive-bias", "puct", "both") else 0.0
        p[PRIOR_N] = c.prior_n if c.prior_mode in ("virtual-wins", "both") else 0.0
        p[WIDEN], p[EXPAND_AT], p[USE_RAVE] = c.widen, c.expand_at, c.rave
        p[POLICY], p[KOMI] = POLICIES.index(c.policy), c.komi
        return p

    def run(self, board: Board, color: int, prior: np.ndarray | None = None,
            knowledge: tuple | None = None) -> SearchResult:
        """Search the position (``color`` to move) and return the most visited move.
        ``prior``: the root's move strengths; ``knowledge`` (``MovePrior.knowledge``):
        the ratings table that gives the nodes below the root theirs."""
        cfg = self.config
        threads = max(1, cfg.threads)
        if not self._trees:
            self._trees = [Tree(cfg.max_nodes // threads) for _ in range(threads)]
        start = time.perf_counter()
        w = board.size + 2
        if prior is None:
            prior = np.zeros(w * w)  # no external prior: uniform, and no virtual wins from it
        allowed = self._superko_mask(board, color)
        params = self._params()
        params[TREE_PRIOR] = knowledge is not None
        knowledge = NO_KNOWLEDGE if knowledge is None else knowledge
        owners = [np.zeros(w * w) for _ in self._trees]
        for tree in self._trees:
            tree.find_root(board, color)
        if threads == 1:
            if self._runs == 0:
                seed_rng(cfg.seed)  # once: later moves go on with the same stream
            done = [self._trees[0].grow(board, color, cfg, prior, allowed, params, owners[0], knowledge)]
        else:
            share = replace(cfg, playouts=-(-cfg.playouts // threads))

            def work(k: int) -> int:
                seed_rng(cfg.seed + 7919 * self._runs + k)  # numba's RNG is per thread
                return self._trees[k].grow(board, color, share, prior, allowed, params, owners[k], knowledge)

            with ThreadPoolExecutor(threads) as pool:
                done = list(pool.map(work, range(threads)))
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
    knowledge: tuple | None = None,
) -> SearchResult:
    """The engine's move: pass once the opponent has passed and the game is won as
    the board stands both counting every stone (Tromp-Taylor) and with the
    playouts' dead stones removed, so a referee's dead-stone removal cannot turn
    the result; else the search's most visited move, or resign below the threshold.
    ``prior`` is the per-point prior of the root's moves (e.g. ``MovePrior``),
    ``knowledge`` that of the nodes below (``MovePrior.knowledge``)."""
    result = search.run(board, color, prior, knowledge)
    sign = 1 if color == BLACK else -1
    komi = search.config.komi
    if opponent_passed and min(board.score(komi) * sign, score_without_dead(board, result.owner, komi) * sign) > 0:
        result.move = PASS
    return result

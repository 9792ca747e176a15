"""The search: its settings, its threads, its result (``Search``).

A room of the search; the rooms' reading order is in this package's ``__init__``.

The numba RNG is seeded by ``Search``, so with one thread equal seeds give equal
searches. With several threads, root parallelism grows one tree per thread (each
seeded, so a seed and a thread count give one result) and sums the roots'
statistics; tree parallelism grows one tree from all threads, each writing its own
statistics slice and node share (no locks, no lost updates), with virtual loss;
its result depends on the threads' timing. Leaf parallelism grows one tree from one
thread whose every leaf gets ``threads`` playouts at once.
"""

from __future__ import annotations

import math
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numba
import numpy as np
from numba import njit

from ...go.board import Board
from ...go.rules import BLACK, COLOR, EMPTY, HASH, PASS, illegal_reason, play
from ...patterns.prior import CACHE_SLOTS, NO_KNOWLEDGE, KnowledgeArrays, MovePrior, PatternCache, prior_cache
from ..playouts.gamma import PpaWeights, ppa_weights
from ..playouts.ppa import ppa_rate
from ..settings import (BANDIT_STATS, BANDITS, EXPERTS, PARALLEL, POLICIES, PRIOR_MODES, RAVE_SCHEDULES,
                        SearchConfig)
from .selection import FIRST, MOVE, PROB, Selection
from .tree import Tree
from .tree_priors import default_prior_n
from .walk import ROOT_SCORES, Lane, Root, SearchSettings, simulate

#: Simulations a thread runs between looks at its clock and the stop event: few
#: enough that a search by time overruns it by little, many enough that the look costs nothing.
BATCH = 64
#: A search by time looks at its clock about this often: a batch is the simulations the
#: rate so far fits in it (at most ``BATCH``; the first batch is one simulation), so a
#: slow policy (a nested playout of level 2 takes seconds on 9x9) overruns its time by
#: one simulation, not by ``BATCH``; at MoGo's rates the batches stay ``BATCH`` long.
LOOK_SECONDS = 0.01
#: Run ``r``'s thread ``k`` is seeded ``seed + SEED_STRIDE r + k``: a prime larger than
#: any thread count, so that no two (run, thread) pairs of a search share a random stream.
SEED_STRIDE = 7919
#: Playouts of a search that only its time or its stop event ends.
UNLIMITED = 1 << 40
#: The normal quantile of the lower confidence bound analysis shows (95%, one-sided 97.5%).
LCB_Z = 1.96
#: How numba's OpenMP threads wait between leaf parallelism's parallel loops (one a
#: simulation): spinning, OpenMP's default, cost leaf searches 15 times their playouts a
#: second on a loaded 2-core machine (258 against 3,900 a second on 9x9); passive costs none.
#: Set before the kernels load (their threading layer starts then), unless the user has.
LEAF_WAIT_POLICY = "PASSIVE"
os.environ.setdefault("OMP_WAIT_POLICY", LEAF_WAIT_POLICY)


class Budget(NamedTuple):
    """What one search may spend: ``playouts``, or with ``seconds`` that many seconds
    (its playouts then uncounted). The engine's clock (``engine.clock``) gives each
    move's seconds; ``Search.run`` without a budget spends its config's."""

    playouts: int
    seconds: float | None = None


@njit(cache=True)
def seed_rng(seed: int) -> None:
    """Seed numba's RNG (separate from numpy's in Python)."""
    np.random.seed(seed)


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
    score: float = 0.0  # mean final score of the move's playouts of this run, Black's less White's
    score_stdev: float = 0.0
    pv_visits: list[int] = field(default_factory=list)  # visits of each node along ``pv``


def grow(tree: Tree, here: Root, lane: Lane, sel: Selection, settings: SearchSettings, knowledge: KnowledgeArrays,
         playouts: int, seconds: float | None, stop=None, gammas: np.ndarray | None = None) -> int:
    """Simulate from ``tree``'s root (the position ``here``) in batches as the search
    thread of ``lane`` until ``playouts`` are played or, when ``seconds`` is given,
    those seconds are spent, or ``stop`` (an Event) is set; returns the number of
    playouts. A search by time also ends once the rest of its time, at the rate so
    far, could not change the most visited move (``Tree.settled``): the time it saves
    is there for later moves under a clock. The numba kernel releases the GIL, so
    other threads grow their trees (or this one) at the same time. ``gammas``: the gamma
    and ppa policies' table (None for the others)."""
    start = time.perf_counter()
    done = 0
    root = here._replace(node=tree.root)
    nodes = tree.nodes
    target = playouts if seconds is None else UNLIMITED
    n = 1  # a search by time learns its rate from one simulation first
    leaves = settings.leaf if settings.leaf > 1 else None  # None: the kernel without the parallel loop
    while done < target:
        if seconds is None:
            n = min(BATCH, -(-(target - done) // settings.leaf))  # a simulation plays settings.leaf playouts
        simulate(n, nodes, root, lane, sel, settings, knowledge, gammas, leaves)
        done += n * settings.leaf
        if seconds is not None:
            spent = time.perf_counter() - start
            if spent > seconds or tree.settled(done / spent * (seconds - spent)):
                break
            n = int(min(BATCH, max(1, done / settings.leaf / spent * LOOK_SECONDS)))
        if stop is not None and stop.is_set():
            break
    return done


class Search:
    """MCTS over a ``Board`` with ``threads`` search threads: with root
    parallelism, one tree per thread, each with its share of the playouts and its
    own random stream, merged by summing the root children's visits and wins;
    with tree parallelism, one tree that all threads grow, with virtual loss; with
    leaf parallelism, one tree whose leaves get ``threads`` playouts at once."""

    def __init__(self, config: SearchConfig, prior: MovePrior | None = None) -> None:
        if config.playout_policy in ("gamma", "ppa-paper") and config.gammas is None:
            raise ValueError(f"the {config.playout_policy} playout policy needs a table of gammas (SearchConfig.gammas)")
        if config.bandit not in BANDITS or config.prior_mode not in PRIOR_MODES:
            raise ValueError(f"unknown bandit {config.bandit!r} or prior mode {config.prior_mode!r}")
        if config.bandit_stats not in BANDIT_STATS or config.rave_schedule not in RAVE_SCHEDULES:
            raise ValueError(f"unknown bandit stats {config.bandit_stats!r} or rave schedule {config.rave_schedule!r}")
        if config.bandit == "amaf" and not config.rave:
            raise ValueError("the amaf bandit explores by the AMAF values: it needs RAVE")
        if config.parallel not in PARALLEL or config.expert not in EXPERTS or config.playout_policy not in POLICIES:
            raise ValueError(f"unknown parallelism {config.parallel!r}, expert {config.expert!r} "
                             f"or playout policy {config.playout_policy!r}")
        if config.parallel == "leaf" and config.threads > 1 and config.playout_policy.startswith("ppa"):
            raise ValueError("leaf parallelism runs playouts at once, which ppa's shared weights do not allow")
        self.config = config
        self.prior = prior  # the move strengths of a ratings table, or None
        self._trees: list[Tree] = []
        self._runs = 0
        self._caches: list[PatternCache] = []
        self._cache_of: tuple | None = None  # the board points and table the caches hold patterns of
        self.adapted: list[PpaWeights] = []  # each thread's ppa_weights after the last run
        self.lanes: list[Lane] = []  # each thread's ownership and score sums of the last (or running) run

    @property
    def trees(self) -> list[Tree]:
        """The trees searched so far: one, or with root parallelism one per thread
        (empty before the first run)."""
        return self._trees

    @property
    def leaf(self) -> int:
        """Playouts run at once from each leaf (leaf parallelism; 1 otherwise)."""
        return max(1, self.config.threads) if self.config.parallel == "leaf" else 1

    @property
    def shared(self) -> bool:
        """Whether the threads grow one tree (tree parallelism)."""
        return self.config.parallel == "tree" and self.config.threads > 1

    def records(self, size: int, tree_prior: bool) -> tuple[Selection, SearchSettings]:
        """The kernel's records of this configuration on a ``size`` x ``size`` board, with
        or without the ratings table's priors below the root (``tree_prior``)."""
        c = self.config
        sel = Selection(bandit=BANDITS.index(c.bandit), c_ucb=float(c.c_ucb),
                        prior_mode=PRIOR_MODES.index(c.prior_mode), c_pb=float(c.c_pb), rave=bool(c.rave),
                        rave_equiv=float(c.rave_equiv), fpu=float(c.fpu), widen=float(c.widen),
                        expert=c.expert != "none", bandit_stats=BANDIT_STATS.index(c.bandit_stats),
                        rave_schedule=RAVE_SCHEDULES.index(c.rave_schedule))
        prior_n = c.prior_n if c.prior_n is not None else default_prior_n(size)
        settings = SearchSettings(
            expand_at=int(c.expand_at), tree_prior=bool(tree_prior),
            prior_visits=int(c.prior_visits) if c.widen <= 0 else 0,  # widening orders the children by their priors
            prior_n=float(prior_n) if c.prior_mode not in ("puct", "puct-c") else 0.0,
            virtual_loss=float(c.virtual_loss) if self.shared else 0.0,
            playout_policy=POLICIES.index(c.playout_policy), komi=float(c.komi), expert=EXPERTS.index(c.expert),
            leaf=self.leaf)
        return sel, settings

    def priors(self, board: Board, color: int) -> tuple[np.ndarray | None, KnowledgeArrays | None]:
        """What a search of ``board`` (``color`` to move) takes from the ratings table: the
        root's move strengths and, with ``config.tree_priors``, the table for the nodes below
        (``MovePrior.knowledge``); both None without a table."""
        if self.prior is None:
            return None, None
        knowledge = self.prior.knowledge(board.size) if self.config.tree_priors else None
        return self.prior(board.b, board.m, color), knowledge

    def run(self, board: Board, color: int, prior: np.ndarray | None = None,
            knowledge: KnowledgeArrays | None = None, stop=None, budget: Budget | None = None,
            masks: np.ndarray | None = None, move_ownership: bool = False) -> SearchResult:
        """Search the position (``color`` to move) and return the most visited move.
        ``prior``: the root's move strengths; ``knowledge`` (``MovePrior.knowledge``):
        the ratings table that gives the nodes below the root theirs; ``stop``: an
        Event that ends the search early when set; ``budget``: the playouts or seconds
        of this search (default: the config's ``playouts`` and ``time_per_move``); ``masks``:
        bool[depth, points], the points the moves at each depth of the tree may take (the
        root's first; KataGo's avoidMoves and allowMoves), every point past them;
        ``move_ownership``: also sum the final boards' ownership by root move (``move_owner``)."""
        cfg = self.config
        threads = max(1, cfg.threads) if self.leaf == 1 else 1  # leaf: one search thread, its playouts at once
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
        masks = np.ones((0, w * w), dtype=np.bool_) if masks is None else np.ascontiguousarray(masks, dtype=np.bool_)
        if len(masks):
            allowed &= masks[0]
        sel, settings = self.records(board.size, knowledge is not None)
        knowledge = NO_KNOWLEDGE if knowledge is None else knowledge
        lanes = self._lanes(threads, w * w, knowledge, move_ownership)
        for tree in self._trees:
            tree.find_root(board, color, allowed)
        here = Root(board.b, board.m, color, 0, prior, allowed, masks)
        playouts, seconds = budget if budget is not None else Budget(cfg.playouts, cfg.time_per_move)
        done = self._grow(here, lanes, sel, settings, knowledge, playouts, seconds, stop)
        self._runs += 1
        stats = [tree.root_stats(w) for tree in self._trees]
        visits = sum(v for v, _, _ in stats)
        wins = sum(x for _, x, _ in stats)
        best, winrate = PASS, 0.0
        if visits.any():
            best = int(np.argmax(visits))
            winrate = float(wins[best] / visits[best])
        owner = sum(lane.owner for lane in lanes) / max(sum(done), 1)
        return SearchResult(best, winrate, visits, owner, sum(done), time.perf_counter() - start, stats[0][2], done)

    def _lanes(self, threads: int, points: int, knowledge: KnowledgeArrays, move_ownership: bool) -> list[Lane]:
        """Each search thread's lane on a board of ``points`` points: its prior cache
        (kept while the board size and the table stay), fresh ppa weights (they live for
        one search) and empty ownership and score sums."""
        cfg = self.config
        if self._cache_of != (points, id(knowledge.lookup)):
            slots = 1 if knowledge is NO_KNOWLEDGE else CACHE_SLOTS
            self._caches = [prior_cache(points, slots) for _ in range(threads)]
            self._cache_of = (points, id(knowledge.lookup))
        rate = ppa_rate(cfg.playout_policy, cfg.ppa_rate)
        adapts = [ppa_weights(points, rate) for _ in range(threads)]
        self.adapted = adapts
        lanes = [Lane(k if self.shared else 0, np.zeros(points), np.zeros((ROOT_SCORES, points)), self._caches[k],
                      adapts[k], np.zeros((points if move_ownership else 0, points))) for k in range(threads)]
        self.lanes = lanes  # read by analysis while the search runs
        return lanes

    def _grow(self, here: Root, lanes: list[Lane], sel: Selection, settings: SearchSettings, knowledge: KnowledgeArrays,
              playouts: int, seconds: float | None, stop) -> list[int]:
        """Grow the trees from ``here`` with one search thread per lane (the playouts
        shared out, each thread seeded apart); returns each thread's playouts."""
        cfg = self.config
        gammas = cfg.gammas if cfg.playout_policy in ("gamma", "ppa-paper") else None  # None: the kernel without them
        threads = len(lanes)
        if threads == 1:
            if self._runs == 0:
                seed_rng(cfg.seed)  # once: later moves go on with the same stream
            if self.leaf > 1:
                numba.set_num_threads(min(self.leaf, numba.config.NUMBA_NUM_THREADS))
            return [grow(self._trees[0], here, lanes[0], sel, settings, knowledge, playouts, seconds, stop, gammas)]
        share = -(-playouts // threads)
        head = 0
        if self.shared and self._trees[0].t[FIRST, self._trees[0].root] < 0:
            seed_rng(cfg.seed + SEED_STRIDE * self._runs)  # the root's children, before the threads share them
            head = grow(self._trees[0], here, lanes[0], sel, settings, knowledge, 1, None, None, gammas)

        def work(k: int) -> int:
            seed_rng(cfg.seed + SEED_STRIDE * self._runs + k)  # numba's RNG is per thread
            tree = self._trees[0] if self.shared else self._trees[k]
            mine = share - head if k == 0 else share
            return grow(tree, here, lanes[k], sel, settings, knowledge, mine, seconds, stop, gammas)

        with ThreadPoolExecutor(threads) as pool:
            done = list(pool.map(work, range(threads)))
        done[0] += head
        return done

    def analysis(self, board: Board, pv_length: int = 10, min_moves: int = 0) -> list[MoveInfo]:
        """The root's moves after the last ``run`` of ``board``'s position, most
        visited first (the principal variation from the first tree), then, up to
        ``min_moves`` in all, unvisited ones by prior (their win rate their prior value's).
        Scores are those of this run's playouts (the root's for a move without any)."""
        if not self._trees:
            return []
        w = board.size + 2
        tree = self._trees[0]
        kids = tree.children(tree.root)
        by_move = {int(tree.t[MOVE, c]): int(c) for c in kids}
        stats = [t.root_stats(w) for t in self._trees]  # one reading of each tree: visits and wins agree
        visits = sum(v for v, _, _ in stats)
        wins = sum(x for _, x, _ in stats)
        scores = sum(lane.scores for lane in self.lanes) if self.lanes else np.zeros((ROOT_SCORES, w * w))
        root_score = _mean_stdev(scores.sum(axis=1))
        infos = []
        for p in np.flatnonzero(visits > 0):
            n, q = visits[p], wins[p] / visits[p]
            lcb = max(0.0, q - LCB_Z * np.sqrt(max(q * (1 - q), 0.0) / n))  # q may pass 1 by rounding
            prob = float(tree.f[0, PROB, by_move[p]]) if p in by_move else 0.0
            pv, along = tree.principal_variation(by_move[p], pv_length) if p in by_move else ([int(p)], [int(n)])
            along[0] = int(n)  # all trees' visits, as the move's
            mean, stdev = _mean_stdev(scores[:, p]) if scores[0, p] > 0 else root_score
            infos.append(MoveInfo(int(p), int(n), float(q), prob, float(lcb), pv, mean, stdev, along))
        infos.sort(key=lambda i: (-i.visits, -i.winrate))
        if len(infos) < min_moves:
            prior_value = stats[0][2]
            unvisited = sorted((int(c) for c in kids if visits[tree.t[MOVE, c]] == 0),
                               key=lambda c: -tree.f[0, PROB, c])
            for c in unvisited[:min_moves - len(infos)]:
                p = int(tree.t[MOVE, c])
                infos.append(MoveInfo(p, 0, float(prior_value[p]), float(tree.f[0, PROB, c]), 0.0, [p], *root_score,
                                      [0]))
        return infos

    def owner_so_far(self) -> np.ndarray:
        """Per board point, the mean final ownership (+1 Black) of the playouts of the last
        or running ``run`` so far (empty before any)."""
        if not self.lanes:
            return np.zeros(0)
        done = sum(lane.scores[0].sum() for lane in self.lanes)
        return np.clip(sum(lane.owner for lane in self.lanes) / max(done, 1.0), -1.0, 1.0)

    def move_owner(self, point: int) -> np.ndarray:
        """Per board point, the mean final ownership (+1 Black) of the playouts of the last
        or running ``run`` that followed the root move ``point`` (zeros without any, or
        when that run was not asked for ``move_ownership``)."""
        if not self.lanes or not len(self.lanes[0].move_owner):
            return np.zeros(len(self.lanes[0].owner) if self.lanes else 0)
        done = sum(lane.scores[0, point] for lane in self.lanes)
        return np.clip(sum(lane.move_owner[point] for lane in self.lanes) / max(done, 1.0), -1.0, 1.0)

    @staticmethod
    def _superko_mask(board: Board, color: int) -> np.ndarray:
        """Points the root may play: all, less moves that repeat an earlier position."""
        w = board.size + 2
        allowed = np.ones(w * w, dtype=np.bool_)
        seen = board.seen_positions
        for p in np.flatnonzero(board.b[COLOR] == EMPTY):
            if illegal_reason(board.b, board.m, color, p) == 0:
                b, m = board.b.copy(), board.m.copy()
                play(b, m, color, p)
                allowed[p] = int(m[HASH]) not in seen
        return allowed


def _mean_stdev(column: np.ndarray) -> tuple[float, float]:
    """The mean and standard deviation of scores from their (count, sum, sum of squares)."""
    n = max(float(column[0]), 1.0)
    mean = float(column[1]) / n
    return mean, math.sqrt(max(float(column[2]) / n - mean * mean, 0.0))


def warm_up(config: SearchConfig, size: int, prior: MovePrior | None = None) -> str | None:
    """Load (or, from a cold cache, compile) the search kernel and the priors' kernel with
    one playout on an empty board, and read the ratings table; the failure's message, or None.

    Front ends run it in a background thread while a GUI sends its first commands, so that
    the first search need not wait for it; numba's RNG is per thread, so the engine's own
    seeded stream is untouched."""
    try:
        # one lane: the kernel is the same for every thread count, but leaf parallelism's own
        search = Search(config if config.parallel == "leaf" else replace(config, threads=1), prior)
        board = Board(size)
        _, knowledge = search.priors(board, BLACK)
        search.run(board, BLACK, None, knowledge, budget=Budget(1))
    except Exception as e:  # a background thread: the caller says it in one line, never a traceback
        return " ".join(str(e).split()) or type(e).__name__
    return None

"""Counting spatial patterns over a corpus: how often each was available and played.

For every position of every game and every legal move of the player to move, the
pattern of each ring around the move is *seen*; the ring patterns of the move
actually chosen are *played*. Counting every ring of every candidate is neither
possible (4 billion candidates in 80,000 games, each with a never-seen-before
largest ring) nor useful, so a candidate's rings grow only while its pattern is
frequent, in two passes:

1. *Discovery* on a spread sample of the games, with the incremental kernel of
   :mod:`shapemill.miner.pattern_counts`: a candidate grows from ring k to ring k+1
   when ring k's pattern had occurred ``threshold`` times (the sample's share of
   ``min_count``; an occurrence being a run of positions where the candidate
   keeps that pattern) by the time the candidate's rings last changed. The sample
   is cut into a fixed number of shards, counted apart (in parallel) and summed
   before the threshold, so the dictionary does not depend on the number of
   workers. When a shard's table fills up, its rarest patterns are pruned (lossy
   counting), which bounds memory.
2. *Counting* on all games, in any number of worker processes: a candidate's rings
   are counted while their pattern is in the discovered dictionary; the smallest
   ring is always counted. Counts are exact for every pattern counted, and sums
   and first occurrences do not depend on how games are shared among workers, so
   the table is the same whatever the number of workers.

Only counts are held; each pattern's canonical key is rebuilt at the end from its
first occurrence (the *witness*).
"""

from __future__ import annotations

import mmap
import time
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
from numba import njit

from ..datasets.corpus import Corpus
from ..go.changes import add_short_liberties, new_tracker, play_tracked, stale_points
from ..go.reading import legal_moves
from ..go.rings import (
    MIN_RING,
    RELATIVE,
    canonical_symmetry,
    fill_padded,
    geometry,
    grow_ring,
    key_bytes,
    pack_key,
    padded_point,
)
from ..go.rules import (
    EMPTIES,
    LAST,
    LAST2,
    N_EMPTY,
    OK,
    PASS,
    SIZE,
    STRIDE,
    illegal_reason,
    play,
    to_point,
)
from . import counts
from .features import FEATURE_LEVELS, FEATURES, N_FEATURES, distance_level, point_features
from .features.table import F_LAST2_DIST, F_LAST_DIST
from .pattern_counts import count_game
from .shards import Job, map_games, map_shards

#: Most new entries one position can add: one frontier pattern per candidate.
POSITION_INSERTS = 400

#: Slots a discovery shard's table grows to per game of the shard (measured on the
#: Tygem games: a 1,000-game shard fills 16M slots and is pruned).
SHARD_SLOTS_PER_GAME = 1 << 14


@dataclass(frozen=True)
class MineParams:
    """What ``mine`` was asked: kept in the table's metadata."""

    min_count: int = 50
    max_ring: int = 54
    discovery_games: int = 2000
    discovery_rounds: int = 2
    discovery_shards: int = 2
    table_capacity: int = 1 << 24


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
    kernel (:func:`shapemill.miner.pattern_counts.count_moves`), which it must equal.

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


def _mine_game(corpus, i, params, table):
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


def discovery_sample(games: int, params: MineParams) -> np.ndarray:
    """The games discovery counts: ``params.discovery_games`` of them (or all),
    evenly spread over the corpus."""
    n = min(games, params.discovery_games)
    return np.arange(n, dtype=np.int64) * games // max(1, n)


def discovery_shards(games: int, params: MineParams) -> list[np.ndarray]:
    """The discovery sample cut into ``params.discovery_shards`` interleaved shards
    (the empty ones left out): each is counted apart, the same whatever the workers."""
    sample = discovery_sample(games, params)
    shards = [sample[s :: params.discovery_shards] for s in range(params.discovery_shards)]
    return [shard for shard in shards if len(shard)]


def discovery_threshold(games: int, params: MineParams) -> int:
    """How often a ring's pattern must occur in the discovery sample for the ring
    past it to be counted: the sample's share of ``min_count``, halved (a pattern
    frequent in the corpus can be rarer in the sample), and at least 2."""
    share = len(discovery_sample(games, params)) / max(1, games)
    return max(2, int(round(params.min_count * share / 2)))


def discover(corpus: Corpus, params: MineParams, workers: int = 1, progress=None) -> tuple[counts.Table, int]:
    """Pass 1: the dictionary of patterns frequent in a spread sample of the games.

    A round over the sample grows candidates as its counts grow; they lag (an
    instance counts when it ends, a candidate is re-gated when its rings change),
    so later rounds count the sample again, gated by the dictionary found so far
    as well: each also finds every frequent child of it. The shards of a round are
    counted by ``workers`` processes and summed. Returns the dictionary and the
    discovery threshold used.
    """
    shards = discovery_shards(len(corpus), params)
    threshold = discovery_threshold(len(corpus), params)
    dictionary = counts.new_table(16)
    for _ in range(1 + params.discovery_rounds):
        found = map_shards(_Discover(corpus, params, threshold, dictionary), shards, workers, progress)
        dictionary = dictionary_table(frequent(found, threshold))
    return dictionary, threshold


def frequent(found: dict[str, np.ndarray], threshold: int) -> dict[str, np.ndarray]:
    """The rows of a discovery round's summed counts ``found`` seen ``threshold`` times."""
    keep = found["seen"] >= threshold
    return {k: v[keep] for k, v in found.items()}


def dictionary_table(columns: dict[str, np.ndarray]) -> counts.Table:
    """The dictionary's patterns with their counts (a discovery round's gate), in a
    table at most half full."""
    return counts.of_keys(columns["pattern_id"], columns["ring"], 2 * len(columns["ring"]), columns["seen"])


def counting_gate(pattern_ids: np.ndarray, rings: np.ndarray) -> counts.Table:
    """The dictionary's patterns (``pattern_ids``, ``rings``), never seen: what
    pass 2 counts into a copy of, one a shard, in a table at most half full."""
    return counts.of_keys(pattern_ids, rings, 2 * max(1024, len(rings)))


def _gate(dictionary: counts.Table) -> counts.Table:
    """A zeroed copy of the dictionary table: :func:`counting_gate`."""
    rows = counts.entries(dictionary)
    return counting_gate(rows["pattern_id"], rows["ring"])


@dataclass
class _Discover(Job):
    """A discovery round as a ``map_shards`` job: a shard's counts, gated by the
    dictionary of the rounds before and by the shard's own counts."""

    corpus: Corpus
    params: MineParams
    threshold: int
    dictionary: counts.Table

    def start(self) -> tuple[counts.Table, dict]:
        # A shard's table would grow to about SHARD_SLOTS_PER_GAME slots a game before
        # pruning caps it: start it there rather than double it, a rehash each time.
        shard_games = len(discovery_sample(len(self.corpus), self.params)) // self.params.discovery_shards + 1
        capacity = min(self.params.table_capacity, SHARD_SLOTS_PER_GAME * shard_games)
        return counts.new_table(capacity), {}  # count_game's templates, fresh per shard

    def game(self, state: tuple[counts.Table, dict], i: int) -> tuple[counts.Table, dict]:
        table, cache = state
        return count_game(self.corpus, i, self.params, table, cache, self.threshold, self.dictionary), cache

    @staticmethod
    def end(state: tuple[counts.Table, dict]) -> dict[str, np.ndarray]:
        rows = counts.entries(state[0])  # compact to send back: the round needs no more
        return {k: rows[k] for k in ("pattern_id", "ring", "seen")}

    merge = staticmethod(counts.summed)


@dataclass
class _CountPatterns(Job):
    """Pass 2 as a ``map_games`` job: exact counts of the dictionary's patterns.
    ``gate`` and ``cache`` depend on the dictionary only: built once, they serve
    every shard counted with it."""

    corpus: Corpus
    gate: counts.Table  # the zeroed dictionary (counting_gate): a shard counts into a copy
    params: MineParams
    cache: dict = field(default_factory=dict)  # count_game's per-size templates

    def start(self) -> counts.Table:
        return counts.copied(self.gate)

    def game(self, table: counts.Table, i: int) -> counts.Table:
        return count_game(self.corpus, i, self.params, table, self.cache)

    @staticmethod
    def end(table: counts.Table) -> dict[str, np.ndarray]:
        rows = counts.entries(table)  # as columns, less the dictionary's patterns never seen
        seen = rows["seen"] > 0
        return {k: v[seen] for k, v in rows.items()}

    merge = staticmethod(counts.summed)


def count(
    corpus: Corpus, dictionary: counts.Table, params: MineParams, workers: int = 1, progress=None
) -> dict[str, np.ndarray]:
    """Pass 2: exact counts of the dictionary's patterns over all games, as the
    columns of :func:`counts.entries` (patterns seen at least once)."""
    return map_games(_CountPatterns(corpus, _gate(dictionary), params), corpus, workers, progress)


@njit(cache=True)
def count_feature_levels(b, m, moves, first_color, tracker, levels, seen, played) -> None:
    """Add the tactical-feature levels of every legal move of every position of a
    game to ``seen`` (and of the move chosen to ``played``), both ``[feature, level]``;
    the pass, a candidate of every position, is the last row.

    The same counts as reading every candidate's features at every position
    (``tactical_features``), reading only the points ``tracker`` names as stale and
    those next to strings of at most two liberties; ``levels[color, point]`` keeps
    each colour's levels in between. ``tracker`` is ``new_tracker(b, m)``."""
    size = m[SIZE]
    w = m[STRIDE]
    n_features = seen.shape[0] - 1
    libs3, mark, work, mwork, ladder = tracker.scratch
    for color in (1, 2):
        for i in range(m[N_EMPTY]):
            p = b[EMPTIES, i]
            point_features(b, m, color, p, libs3, mark, work, mwork, ladder, levels[color, p])
    for n in range(len(moves)):
        color = first_color if n % 2 == 0 else 3 - first_color
        chosen = to_point(moves[n], size)
        if illegal_reason(b, m, color, chosen) != OK:
            return
        points = legal_moves(b, m, color)
        stale = add_short_liberties(b, m, tracker, n, points, stale_points(tracker, n))
        for j in range(stale):
            p = tracker.stale[j]
            point_features(b, m, color, p, libs3, mark, work, mwork, ladder, levels[color, p])
        last, last2 = m[LAST], m[LAST2]
        for p in points:
            out = levels[color, p]
            out[F_LAST_DIST] = 0 if last == PASS else distance_level(p, last, w, 0)
            out[F_LAST2_DIST] = 0 if last2 == PASS else distance_level(p, last2, w, 1)
            for f in range(n_features):
                level = out[f]
                if level:
                    seen[f, level] += 1
                    if p == chosen:
                        played[f, level] += 1
        seen[n_features, 1] += 1
        if chosen == PASS:
            played[n_features, 1] += 1
        play_tracked(b, m, color, chosen, tracker, n)


def add_feature_counts(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]):
    """The sums of two (seen, played) feature counts."""
    return a[0] + b[0], a[1] + b[1]


@dataclass
class _CountFeatures(Job):
    """Tactical-feature levels as a ``map_games`` job: (seen, played) arrays."""

    corpus: Corpus

    def start(self) -> tuple[np.ndarray, np.ndarray]:
        shape = (N_FEATURES + 1, max(FEATURE_LEVELS))
        return np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64)

    def game(self, state, i: int):
        b, m = self.corpus.start_position(i)
        levels = np.zeros((3, b.shape[1], N_FEATURES), dtype=np.int32)
        moves, first_color = self.corpus.game_moves(i), int(self.corpus.first_color[i])
        count_feature_levels(b, m, moves, first_color, new_tracker(b, m), levels, *state)
        return state

    merge = staticmethod(add_feature_counts)


def feature_counts(corpus: Corpus, workers: int = 1, progress=None) -> tuple[np.ndarray, np.ndarray]:
    """How often each tactical-feature level (and the pass) was available and
    chosen, as ``seen`` and ``played`` arrays indexed ``[feature, level]``."""
    return map_games(_CountFeatures(corpus), corpus, workers, progress)


def count_features(corpus: Corpus, workers: int = 1, progress=None) -> dict[str, np.ndarray | list]:
    """How often each tactical-feature level (and the pass) was available and chosen.

    Returns columns ``feature``, ``level``, ``seen``, ``played`` for every level
    seen at least once (level 0, "absent", is not a feature).
    """
    return feature_columns(*feature_counts(corpus, workers, progress))


def feature_columns(seen: np.ndarray, played: np.ndarray) -> dict[str, np.ndarray | list]:
    """The columns of :func:`count_features` from its ``[feature, level]`` arrays."""
    f, level = np.nonzero(seen)
    f, level = f[level > 0], level[level > 0]
    names = (*FEATURES, "pass")
    return {
        "feature": [names[i] for i in f],
        "level": level.astype(np.int32),
        "seen": seen[f, level],
        "played": played[f, level],
    }


def kept_patterns(rows: dict[str, np.ndarray], params: MineParams) -> dict[str, np.ndarray]:
    """The rows of the counted patterns to keep: every smallest-ring pattern, and
    larger ones seen at least ``params.min_count`` times."""
    keep = (rows["ring"] == MIN_RING) | (rows["seen"] >= params.min_count)
    return {k: v[keep] for k, v in rows.items()}


@njit(cache=True)
def write_witness_keys(b, m, moves, first_color, move, point, ring, at, pad, delta, state, data) -> None:
    """Replay a game and write the packed canonical key of each pattern first seen
    in it -- at move ``move``, around point ``point``, ring ``ring``, sorted by
    move, point and ring -- into ``data`` from byte ``at``.

    The board is copied into the padded ``state`` once per move where patterns
    were first seen, and a candidate's symmetric hashes grow ring by ring across
    the patterns first seen around it, rather than being hashed afresh for each.
    """
    size = m[SIZE]
    h = np.zeros(8, dtype=np.int64)
    n, filled, k = 0, -1, 0
    for j in range(len(move)):
        if move[j] != filled:
            while n < move[j]:
                play(b, m, first_color if n % 2 == 0 else 3 - first_color, to_point(moves[n], size))
                n += 1
            fill_padded(b, m, pad, state)
            filled = n
        rel = RELATIVE[first_color if n % 2 == 0 else 3 - first_color]
        q = padded_point(point[j], m, pad)
        if j == 0 or move[j] != move[j - 1] or point[j] != point[j - 1]:
            h[:] = 0
            k = MIN_RING - 1
        while k < ring[j]:
            k += 1
            grow_ring(h, state, q, rel, delta, k)
        pack_key(state, q, rel, delta, canonical_symmetry(h), ring[j], data[at[j] :])


def witness_keys(corpus: Corpus, rows: dict[str, np.ndarray], workers: int = 1) -> pa.BinaryArray:
    """The canonical key of each pattern of ``rows`` (columns ``witness`` and
    ``ring``), in their order, rebuilt by replaying the game of its first occurrence
    up to the move where it was first seen; by ``workers`` processes, which write
    their games' keys into one shared buffer."""
    first, rings = rows["witness"], rows["ring"].astype(np.int64)
    offsets = np.zeros(len(first) + 1, dtype=np.int64)
    np.cumsum(key_bytes(rings), out=offsets[1:])
    if offsets[-1] >= 1 << 31:
        raise OverflowError(f"{offsets[-1]:,} bytes of keys: more than an Arrow binary array holds")
    # sorted witnesses come grouped by game, then by move and point; rings ascending
    order = np.lexsort((rings, first))
    games = counts.witness_games(first[order])
    bounds = np.append(np.flatnonzero(np.diff(games, prepend=-1)), len(games))  # a run of keys a game
    job = _WriteKeys(corpus, first[order], rings[order], offsets[order], _shared_bytes(int(offsets[-1])), bounds)
    # Parts of about as many keys each, four a worker, so that those who finish
    # early take the next (the first games hold most of the big opening shapes).
    cuts = np.searchsorted(bounds[:-1], len(first) * np.arange(1, 4 * workers) / (4 * workers))
    map_shards(job, [part for part in np.split(np.arange(len(bounds) - 1), cuts) if len(part)], workers)
    buffers = [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(job.data)]
    return pa.BinaryArray.from_buffers(pa.binary(), len(first), buffers)


def _shared_bytes(n: int) -> np.ndarray:
    """``n`` zero bytes that forked workers write into and this process sees."""
    return np.frombuffer(mmap.mmap(-1, max(1, n)), dtype=np.uint8)[:n]


@dataclass
class _WriteKeys(Job):
    """Rebuilding keys as a ``map_shards`` job whose "games" are the runs of the
    sorted first occurrences (``witness``, ``ring``, ``offset``) in one game, run
    ``r`` from ``bounds[r]`` to ``bounds[r + 1]``, each key written into ``data``
    at its offset."""

    corpus: Corpus
    witness: np.ndarray
    ring: np.ndarray
    offset: np.ndarray
    data: np.ndarray
    bounds: np.ndarray

    def start(self) -> None:
        return None

    def game(self, state: None, r: int) -> None:
        a, z = self.bounds[r], self.bounds[r + 1]
        g = int(counts.witness_games(self.witness[a]))
        geo = geometry(int(self.corpus.board_size[g]))
        b, m = self.corpus.start_position(g)
        write_witness_keys(
            b, m, self.corpus.game_moves(g), int(self.corpus.first_color[g]), (self.witness[a:z] >> 12) & 0xFFF,
            self.witness[a:z] & 0xFFF, self.ring[a:z], self.offset[a:z], geo.pad, geo.delta,
            np.empty(geo.stride * geo.stride, dtype=np.int8), self.data,
        )

    @staticmethod
    def merge(a: None, b: None) -> None:
        return None


def mine_patterns(
    corpus: Corpus, params: MineParams, workers: int = 1, progress=None, seconds: dict | None = None
) -> dict[str, np.ndarray | list]:
    """Both passes over ``corpus``: the kept spatial patterns as columns.

    Kept: every smallest-ring pattern, and larger ones seen at least
    ``params.min_count`` times. ``progress(n)`` is called as games are done
    (discovery games first, then all games); ``seconds``, if given, receives the
    wall time of each step (``discovery``, ``counting``, ``keys``).
    """
    clock = _Clock(seconds)
    dictionary, threshold = discover(corpus, params, workers, progress)
    clock.lap("discovery")
    counted = count(corpus, dictionary, params, workers, progress)
    clock.lap("counting")
    rows = kept_patterns(counted, params)
    rows["key"] = witness_keys(corpus, rows, workers)
    clock.lap("keys")
    rows["discovery_threshold"] = threshold
    rows["dictionary"] = counts.used(dictionary)
    return rows


class _Clock:
    """Wall time of consecutive steps, written into ``seconds`` when one is given."""

    def __init__(self, seconds: dict | None) -> None:
        self.seconds, self.start = seconds, time.perf_counter()

    def lap(self, step: str) -> None:
        now = time.perf_counter()
        if self.seconds is not None:
            self.seconds[step] = now - self.start
        self.start = now

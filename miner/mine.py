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

import time
from dataclasses import dataclass, field

import numpy as np

from ..datasets.corpus import Corpus
from ..go.rings import (
    MIN_RING,
)
from . import counts
from .keys import witness_keys
from .pattern_counts import count_game
from .shards import Job, map_games, map_shards

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


@dataclass
class Mined:
    """What a mining run found: the kept patterns (with keys), the feature
    columns, the discovery threshold and dictionary size, the corpus's
    fingerprint, games and positions, the workers that mined it, and the wall
    time of each step where it was measured."""

    rows: dict
    features: dict
    threshold: int
    dictionary: int
    fingerprint: str
    games: int
    positions: int
    workers: int
    seconds: dict[str, float] = field(default_factory=dict)


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


def kept_patterns(rows: dict[str, np.ndarray], params: MineParams) -> dict[str, np.ndarray]:
    """The rows of the counted patterns to keep: every smallest-ring pattern, and
    larger ones seen at least ``params.min_count`` times."""
    keep = (rows["ring"] == MIN_RING) | (rows["seen"] >= params.min_count)
    return {k: v[keep] for k, v in rows.items()}


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

"""Move priors from a ratings table: what the search knows before it searches.

The strength of a legal move is the product of the gammas of its team (largest
known pattern and tactical feature levels), as in ``rate``, times the exponential of
its features' pair terms where the table has latent vectors (``latent``); normalised over the
legal moves it is the Bradley-Terry probability that a strong player chooses it,
the prior ``P(s, a)`` of progressive bias and PUCT. Part of the move model, below both
the miner, which fits the gammas, and the engine, which searches with them.
"""

from __future__ import annotations

import threading
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from numba import njit

from ..go.reading import legal_moves, reading_scratch
from ..go.rings import MIN_RING, FarRings, any_within, far_rings, geometry
from ..go.rules import COLOR, HASH, N_MOVES, SIZE, STRIDE
from ..tables import TableError, check_table, read_table
from .candidates import (
    MODEL_COLUMNS,
    NOT_READ,
    candidate_patterns,
    candidate_tactical,
    ratings_model,
    team_of,
)
from .features import N_FEATURES
from .latent import NO_LATENT, VECTOR_COLUMN, band_of, pair_term, read_latent

#: Slots of a ``prior_cache`` (a power of two): positions whose patterns are kept.
CACHE_SLOTS = 1024
_COLOUR_KEY = np.array([0, 0x2545F4914F6CDD1D, 0x1B873593CC9E2D51 ^ 0x7FFFFFFF], dtype=np.int64)


class KnowledgeArrays(NamedTuple):
    """A ratings table as ``move_strengths`` reads it on one board size."""

    pad: int  # the border of the padded board the patterns are read on (``Geometry.pad``)
    delta: np.ndarray  # int32[8, offsets]: the padded-board offset of each ring point per symmetry
    max_ring: int  # the largest ring read: no larger one can be known to the table
    lookup: np.ndarray  # the table's pattern keys (``find_pattern``)
    far: FarRings  # the rings past the near ones
    level_index: np.ndarray  # feature level -> index of its gamma
    twin: np.ndarray  # each pattern's near twin (``Vocabulary.twin``)
    gamma: np.ndarray  # the gamma of each pattern, near twin and feature level
    vector_row: np.ndarray  # int32[features]: the row of each one's latent vector, -1 for none (``Latent``)
    vectors: np.ndarray  # float64[features with one, k]: the vectors (k 0: the table has none)
    band_starts: np.ndarray  # int64: the move numbers starting the move-number bands past the first
    band_vectors: np.ndarray  # float64[bands, k]: the bands' latent vectors


class PatternCache(NamedTuple):
    """Scratch space of pattern reading kept between positions: the largest patterns of
    positions read before, direct-mapped by the position's Zobrist hash."""

    keys: np.ndarray  # int64[slots]: the position each slot holds (``position_key``; 0: empty)
    known: np.ndarray  # int32[slots, points]: its largest pattern per point, NOT_READ where not read
    reach: np.ndarray  # int32[slots, points]: the last ring read for it (no stone farther changes it)
    colour: np.ndarray  # int8[slots, points]: the position's stones


def prior_cache(points: int, slots: int = CACHE_SLOTS) -> PatternCache:
    """An empty cache of the largest patterns of ``slots`` positions of ``points`` board
    points, for ``move_strengths``."""
    return PatternCache(np.zeros(slots, dtype=np.int64), np.full((slots, points), NOT_READ, dtype=np.int32),
                        np.zeros((slots, points), dtype=np.int32), np.zeros((slots, points), dtype=np.int8))


@njit(cache=True)
def position_key(m: np.ndarray, color: int) -> int:
    """The key of a ``PatternCache``'s position: its stones (Zobrist hash) and the colour
    to move, never 0."""
    key = m[HASH] ^ _COLOUR_KEY[color]
    return key if key != 0 else 1


@njit(cache=True, inline="always")
def _slot(key: int, slots: int) -> int:
    return np.int64(np.uint64(key) * np.uint64(0x9E3779B97F4A7C15) >> np.uint64(40)) & (slots - 1)


@njit(cache=True)
def _reuse(points: np.ndarray, w: int, cache: PatternCache, slot: int, base: int) -> None:
    """Copy into ``slot`` the patterns of the points of ``points`` read in slot ``base``
    (the same colour to move) that none of the stones that differ between the two
    positions can change: every such stone lies past the last ring read for the point."""
    known, reach, colour = cache.known, cache.reach, cache.colour
    changed = np.flatnonzero(colour[base] != colour[slot])
    for i in range(len(points)):
        p = points[i]
        if known[base, p] != NOT_READ and not any_within(p, changed, reach[base, p], w):
            known[slot, p] = known[base, p]
            reach[slot, p] = reach[base, p]


@njit(cache=True)
def cached_patterns(b: np.ndarray, m: np.ndarray, color: int, points: np.ndarray, knowledge: KnowledgeArrays,
                    cache: PatternCache, pattern: np.ndarray, base: int) -> None:
    """``pattern[i]``: the largest known pattern of the move ``color`` at ``points[i]``, read
    from ``cache`` when it holds the position (same stones, same colour to move: the
    patterns depend on nothing else), else read from the board and kept there. The
    cache is direct-mapped by the position's key (``position_key``); a slot holds one
    position. ``base``: the key of a position with the same colour to move read before
    (in the search, two moves up the tree), whose patterns out of reach of the stones
    that changed since are taken from the cache instead of read again; 0: none."""
    keys, known = cache.keys, cache.known
    key = position_key(m, color)
    slot = _slot(key, len(keys))
    if keys[slot] != key:
        keys[slot] = key
        known[slot, :] = NOT_READ
        cache.colour[slot, :] = b[COLOR]
        held = _slot(base, len(keys))
        if base != 0 and held != slot and keys[held] == base:
            _reuse(points, m[STRIDE], cache, slot, held)
    missing = np.empty(len(points), dtype=np.int64)
    n_missing = 0
    for i in range(len(points)):
        pattern[i] = known[slot, points[i]]
        if pattern[i] == NOT_READ:
            missing[n_missing] = points[i]
            n_missing += 1
    if n_missing == 0:
        return
    w = m[STRIDE]
    stride = w - 2 + 2 * knowledge.pad
    read = np.empty(n_missing, dtype=np.int32)
    reach = np.empty(n_missing, dtype=np.int32)
    candidate_patterns(b, m, color, missing[:n_missing], knowledge.pad, knowledge.delta, knowledge.max_ring,
                       knowledge.lookup, knowledge.far, np.empty(stride * stride, dtype=np.int8), read, reach)
    for j in range(n_missing):
        known[slot, missing[j]] = read[j]
        cache.reach[slot, missing[j]] = reach[j]
    for i in range(len(points)):
        pattern[i] = known[slot, points[i]]


@njit(cache=True)
def move_strengths(b: np.ndarray, m: np.ndarray, color: int, knowledge: KnowledgeArrays, out: np.ndarray,
                   cache: PatternCache, base: int) -> None:
    """``out[p]``: the strength of the move ``color`` at ``p`` (0 where illegal), the
    product of its team's gammas; ``knowledge`` is ``MovePrior.knowledge``'s record,
    ``cache`` a ``prior_cache`` of the board size (the patterns of positions seen
    before are read from it, and with ``base`` those of that position the changed
    stones cannot reach, as ``cached_patterns``; the tactical features are read afresh,
    they depend on the last moves and the ko). Runs inside the search, so all of it is numba."""
    level_index, gamma, vectors = knowledge.level_index, knowledge.gamma, knowledge.vectors
    band = knowledge.band_vectors[band_of(m[N_MOVES], knowledge.band_starts)]
    points = legal_moves(b, m, color)
    n = len(points)
    levels = np.zeros((n, N_FEATURES), dtype=np.int32)
    pattern = np.empty(n, dtype=np.int32)
    team = np.zeros(N_FEATURES + 1, dtype=np.int32)
    candidate_tactical(b, m, color, points, level_index, reading_scratch(b, m), levels)
    cached_patterns(b, m, color, points, knowledge, cache, pattern, base)
    out[:] = 0.0
    for i in range(n):
        team_of(pattern[i], levels[i], level_index, knowledge.twin, team)
        s = 1.0
        for k in range(len(team)):
            if team[k] >= 0:
                s *= gamma[team[k]]
        if vectors.shape[1]:
            s *= np.exp(pair_term(team, knowledge.vector_row, vectors, band))
        out[points[i]] = s


#: What ``ratings_model`` needs of each column's type (a dictionary's values for one encoded so).
COLUMN_TYPES = {"feature": pa.types.is_string, "value": pa.types.is_integer, "size": pa.types.is_integer,
                "gamma": pa.types.is_floating}

#: ``move_strengths``'s knowledge when there is none: the same types, never read.
NO_KNOWLEDGE = KnowledgeArrays(
    0, np.zeros((8, 1), dtype=np.int32), 0, np.zeros((2, 2), dtype=np.int64),
    FarRings(0, np.zeros((8, 1, 1), dtype=np.int32), np.zeros((1, 1, 8), dtype=np.int64), np.zeros(1, dtype=np.int64)),
    np.full((N_FEATURES + 2, 1), -1, dtype=np.int32), np.zeros(0, dtype=np.int32), np.ones(1), *NO_LATENT,
)


class MovePrior:
    """Strength of every legal move of a position, from a ratings table.

    The table's kind, schema version, columns and their types are checked at once
    (a :class:`TableError` naming the file), and its rows read at the first call,
    so a GTP engine answers its first commands without waiting for them.
    """

    def __init__(self, path: str) -> None:
        check_table(path, "ratings", MODEL_COLUMNS)
        schema = pq.read_schema(path)
        for name, is_type in COLUMN_TYPES.items():
            kind = schema.field(name).type
            if pa.types.is_dictionary(kind):
                kind = kind.value_type
            if not is_type(kind):
                raise TableError(f"{path}: the ratings table's column {name!r} holds {kind}, not what rate writes")
        self.path = path
        self._columns = MODEL_COLUMNS + ([VECTOR_COLUMN] if VECTOR_COLUMN in schema.names else [])
        self.model = None
        self.latent = NO_LATENT
        self._loading = threading.Lock()  # a GTP engine's warm-up and first genmove both ask

    def knowledge(self, size: int) -> KnowledgeArrays:
        """The table as ``move_strengths`` takes it on a ``size`` x ``size`` board:
        pattern geometry, pattern look-up, level numbering and gammas."""
        with self._loading:
            if self.model is None:
                try:
                    table, meta = read_table(self.path, "ratings", columns=self._columns)
                    self.model = ratings_model(table)
                    self.latent = read_latent(table, meta, self.model.number, self.model.vocab.size)
                except (KeyError, ValueError, TypeError, pa.ArrowException) as exc:
                    raise TableError(f"{self.path}: unusable ratings ({type(exc).__name__}: {exc})") from None
        vocab, gamma = self.model.vocab, self.model.gamma
        geo = geometry(size)
        largest = int(vocab.pattern_rings.max()) if len(vocab.pattern_rings) else MIN_RING
        max_ring = min(geo.max_ring, largest)  # no ring past the table's largest can be known
        return KnowledgeArrays(geo.pad, geo.delta, max_ring, vocab.lookup, far_rings(size), vocab.level_index,
                               vocab.twin, gamma, *self.latent)

    def __call__(self, b: np.ndarray, m: np.ndarray, color: int) -> np.ndarray:
        """``out[p]``: the strength of point ``p`` for ``color`` (0 where illegal)."""
        out = np.zeros(b.shape[1])
        move_strengths(b, m, color, self.knowledge(int(m[SIZE])), out, prior_cache(b.shape[1], 1), 0)
        return out

"""Teams: the features of every candidate move of a position, for rating and prediction.

Each candidate (every legal move, and the pass) is a *team* of features: its largest
spatial pattern found in the patterns table, plus the level of each tactical
feature present. Features are numbered densely by a :class:`Vocabulary` built
from the patterns table. A candidate's tactical levels (and pass flag) together
form its *combination*, one integer key: far fewer distinct combinations occur
than candidates, so the fit stores a candidate as two numbers, its pattern and
its combination (see :mod:`shapemill.miner.positions`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from ..go.rings import (
    MIN_RING,
    RELATIVE,
    any_within,
    board_stones,
    far_stone_hashes,
    fill_padded,
    grow_ring,
    padded_point,
    ring_id,
)
from ..go.rules import COLOR, STRIDE
from ..go.vertices import row_col
from .features import FEATURE_LEVELS, FEATURES, N_FEATURES, tactical_features_with
from .features.distance import pair_level
from .features.table import F_LAST2_DIST, F_LAST_DIST, F_LAST_DISTS
from .near import NEAR_FROM, NEAR_PLAYED, NEAR_TO

#: Feature groups: 0 spatial patterns, 1..N_FEATURES the tactical features, then the pass,
#: then the patterns' near twins (``near``).
PATTERN_GROUP = 0
PASS_GROUP = N_FEATURES + 1
NEAR_GROUP = N_FEATURES + 2
GROUP_NAMES = ("pattern", *FEATURES, "pass", "near_pattern")


@dataclass
class Vocabulary:
    """Dense feature numbering: spatial patterns first, then the near twins of some of them
    (``twin``), then tactical levels, then the pass."""

    pattern_ids: np.ndarray  # int64[P], in the table's order (a patterns table's: most played first,
    # so the fit's hot gammas sit together in memory)
    pattern_rings: np.ndarray  # int16[P]
    twin: np.ndarray  # int32[P]: the feature number of each pattern's near twin, -1 for none
    level_index: np.ndarray  # int32[N_FEATURES + 2, max level]: feature number, -1 if unknown
    group: np.ndarray  # int32[n]: the group of each feature
    value: np.ndarray  # uint64[n]: pattern id (a twin's: its pattern's) or level

    @cached_property
    def lookup(self) -> np.ndarray:
        """Pattern id -> feature number (``pattern_slots``), built on first use (``del``
        frees it)."""
        return pattern_slots(self.pattern_ids)

    @property
    def size(self) -> int:
        return len(self.group)

    @property
    def first_tactical(self) -> int:
        """The feature number of the first tactical level: the patterns' and twins' come before."""
        return len(self.pattern_ids) + int(np.count_nonzero(self.twin >= 0))

    @property
    def pass_feature(self) -> int:
        """The feature number of the pass (its own group, level 1)."""
        return int(self.level_index[PASS_GROUP, 1])

    @classmethod
    def from_rows(cls, group: np.ndarray, value: np.ndarray, size: np.ndarray,
                  twinned: np.ndarray | None = None) -> Vocabulary:
        """From parallel columns: feature group (``feature_groups``), value (pattern
        id or level) and ring (patterns only). The pass is always in; a pattern has a
        near twin when a row is its twin's or ``twinned`` (one flag a pattern row) says so.
        Patterns keep the rows' order; a level past its feature's, or a twin's row whose
        pattern has none, is a ``ValueError``."""
        group = np.asarray(group)
        value = np.asarray(value, dtype=np.uint64)
        is_pattern = group == PATTERN_GROUP
        ids = value[is_pattern].view(np.int64)
        rings = np.asarray(size)[is_pattern].astype(np.int16)
        has_twin = np.zeros(len(ids), dtype=np.bool_) if twinned is None else np.array(twinned, dtype=np.bool_)
        twin_ids = value[group == NEAR_GROUP].view(np.int64)
        if len(twin_ids):
            at = rows_of(ids, twin_ids)  # a sort, not np.isin's hash: 0.2 s rather than 1.5 on 2 M rows
            if (at < 0).any():
                raise ValueError("a near pattern's row has no row of its pattern")
            has_twin[at] = True
        twin = np.full(len(ids), -1, dtype=np.int32)
        twin[has_twin] = np.arange(len(ids), len(ids) + int(has_twin.sum()))
        levels = np.full((N_FEATURES + 2, max(FEATURE_LEVELS)), -1, dtype=np.int32)
        groups = [np.zeros(len(ids), dtype=np.int32), np.full(int(has_twin.sum()), NEAR_GROUP, dtype=np.int32)]
        values = [ids.view(np.uint64), ids[has_twin].view(np.uint64)]
        n = len(ids) + int(has_twin.sum())
        for g in range(1, PASS_GROUP + 1):
            lv = np.array([1]) if g == PASS_GROUP else np.unique(value[group == g].astype(np.int64))
            if g != PASS_GROUP and len(lv) and not 0 <= lv[0] <= lv[-1] < FEATURE_LEVELS[g - 1]:
                raise ValueError(f"feature {GROUP_NAMES[g]!r} has level {lv[-1]}, past its levels")
            levels[g, lv] = np.arange(n, n + len(lv))
            groups.append(np.full(len(lv), g, dtype=np.int32))
            values.append(lv.astype(np.uint64))
            n += len(lv)
        return cls(ids, rings, twin, levels, np.concatenate(groups), np.concatenate(values))

    @classmethod
    def from_patterns(cls, table: pa.Table, near_played: int | None = NEAR_PLAYED) -> Vocabulary:
        """Every pattern and every tactical level of a patterns table, and a near twin for
        each pattern played at least ``near_played`` times (its ``played`` column; None:
        no twins)."""
        value = pc.coalesce(table["pattern_id"], table["level"].cast(pa.uint64())).to_numpy()
        group = feature_groups(table["feature"])
        twinned = None
        if near_played is not None:
            twinned = table["played"].to_numpy()[group == PATTERN_GROUP] >= near_played
        return cls.from_rows(group, value, table["size"].fill_null(0).to_numpy(), twinned)


def feature_groups(feature: pa.ChunkedArray) -> np.ndarray:
    """The group (index in ``GROUP_NAMES``) of each row's feature name; a name that
    is no feature's is a ``ValueError``."""
    group = pc.index_in(feature.cast(pa.string()), value_set=pa.array(GROUP_NAMES))
    if group.null_count:
        unknown = pc.filter(feature, pc.is_null(group))[0]
        raise ValueError(f"unknown feature {unknown.as_py()!r}")
    return group.to_numpy().astype(np.int32)


#: The columns of a ratings table that :func:`ratings_model` reads.
MODEL_COLUMNS = ["feature", "value", "size", "gamma"]


class RatingsModel(NamedTuple):
    """A ratings table as the move model reads it."""

    vocab: Vocabulary  # its features (the patterns with a ``near_pattern`` row have their twin)
    gamma: np.ndarray  # float64[features]: each feature's gamma
    number: np.ndarray  # int64[rows]: each row's feature number (``feature_numbers``)


def ratings_model(table: pa.Table) -> RatingsModel:
    """The vocabulary of a ratings table, the gamma of each of its features and the feature
    number of each of its rows."""
    group = feature_groups(table["feature"])
    value = table["value"].to_numpy()
    if (value[group == PASS_GROUP] != 1).any():
        raise ValueError("the pass has a level other than 1")
    vocab = Vocabulary.from_rows(group, value, table["size"].fill_null(0).to_numpy())
    gamma = np.ones(vocab.size)
    number = feature_numbers(table, vocab, group)
    gamma[number] = table["gamma"].to_numpy()
    return RatingsModel(vocab, gamma, number)


def feature_numbers(table: pa.Table, vocab: Vocabulary, group: np.ndarray | None = None) -> np.ndarray:
    """The feature number in ``vocab`` (``ratings_model``'s) of each row of a ratings table
    (``group``: the rows' ``feature_groups``, read when not given)."""
    group = feature_groups(table["feature"]) if group is None else group
    value = table["value"].to_numpy()
    is_pattern = group == PATTERN_GROUP
    is_twin = group == NEAR_GROUP
    is_tactical = ~is_pattern & ~is_twin
    number = np.empty(len(group), dtype=np.int64)
    number[is_pattern] = np.arange(int(is_pattern.sum()))  # patterns first, in the rows' order
    number[is_tactical] = vocab.level_index[group[is_tactical], value[is_tactical].astype(np.int64)]
    if is_twin.any():
        at = rows_of(vocab.pattern_ids, value[is_twin].view(np.int64))
        if (at < 0).any():
            raise ValueError("a near pattern's row has no pattern in the vocabulary")
        number[is_twin] = vocab.twin[at]
    return number


def rows_of(ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The index in ``ids`` (pattern ids, each once) of each of ``wanted``, -2 where it is not there."""
    if len(ids) == 0:
        return np.full(len(wanted), -2, dtype=np.int64)
    order = np.argsort(ids)
    at = order[np.minimum(np.searchsorted(ids, wanted, sorter=order), len(ids) - 1)]
    return np.where(ids[at] == wanted, at, -2)


@njit(cache=True)
def pattern_slots(ids: np.ndarray) -> np.ndarray:
    """An open-addressing table of the pattern ids: ``[slot, 0]`` the id (0 marks an
    empty slot: no id is 0), ``[slot, 1]`` its feature number, side by side so that a
    probe costs one cache miss."""
    cap = 1
    while cap < 2 * len(ids) + 2:
        cap *= 2
    slots = np.zeros((cap, 2), dtype=np.int64)
    for i in range(len(ids)):
        s = _home(ids[i], cap)
        while slots[s, 0] != 0:
            s = (s + 1) & (cap - 1)
        slots[s, 0] = ids[i]
        slots[s, 1] = i
    return slots


@njit(cache=True, inline="always")
def _home(key: int, cap: int) -> int:
    return np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(24)) & (cap - 1)


@njit(cache=True, inline="always")
def find_pattern(lookup: np.ndarray, key: int) -> int:
    """The feature number of pattern ``key`` in a ``pattern_slots`` table, or -1."""
    cap = len(lookup)
    s = _home(key, cap)
    while lookup[s, 0] != 0:
        if lookup[s, 0] == key:
            return lookup[s, 1]
        s = (s + 1) & (cap - 1)
    return -1


@njit(cache=True)
def _largest_pattern(state, q, r, c, rel, delta, max_ring, lookup, far, stones, h, acc) -> tuple[int, int]:
    """Feature number of the largest ring around padded point ``q`` (board row ``r``,
    column ``c``) found in ``lookup`` (rings grow while found, as in the miner), or -1,
    and the last ring read: no stone farther away can change the answer.
    Rings past ``far.near`` are hashed from the ``stones`` (see ``FarRings``); ``acc``
    is scratch of ``[max_ring + 1, 8]`` zeros, left zero."""
    h[:] = 0
    best = -1
    size = far.inverse.shape[1] // 2 + 1
    corrected = False
    k = MIN_RING
    while k <= max_ring:
        if k <= far.near:
            key = grow_ring(h, state, q, rel, delta, k)
        else:
            if not corrected:
                far_stone_hashes(stones, r, c, rel, far.inverse, far.near, max_ring, acc)
                corrected = True
            for s in range(8):
                h[s] ^= far.empty[k] ^ far.border[r * size + c, k, s] ^ acc[k, s]
            key = ring_id(h, k)
        i = find_pattern(lookup, key)
        if i < 0:
            break
        best = i
        k += 1
    if corrected:
        acc[far.near + 1 :] = 0
    return best, min(k, max_ring)


@njit(cache=True)
def candidate_patterns(b, m, color, points, pad, delta, max_ring, lookup, far, state, pattern, reach) -> None:
    """``pattern[i]``: the largest known pattern of candidate ``points[i]`` (-1 if none);
    ``reach[i]``: the last ring read for it (no stone farther away changes ``pattern[i]``).
    Arguments as for ``candidate_levels``."""
    fill_padded(b, m, pad, state)
    stones = board_stones(b, m)
    rel = RELATIVE[color]
    h = np.zeros(8, dtype=np.int64)
    acc = np.zeros((max_ring + 1, 8), dtype=np.int64)
    w = m[STRIDE]
    for i in range(len(points)):
        p = points[i]
        q = padded_point(p, m, pad)
        r, c = row_col(p, w)
        pattern[i], reach[i] = _largest_pattern(state, q, r, c, rel, delta, max_ring, lookup, far, stones, h, acc)


#: A point whose largest pattern was not read (not a legal move when the patterns were read).
NOT_READ = -2
#: More stones changed than this since a colour's last read: all its points are read again
#: (testing every point against every stone would cost more than reading it).
CARRY_LIMIT = 48


class PatternMemory(NamedTuple):
    """One colour's largest patterns of the last position it read, to carry to the next."""

    known: np.ndarray  # int32[L]: the largest pattern of each board point, NOT_READ where not read
    reach: np.ndarray  # int32[L]: the last ring read for it (no stone farther changes it)
    colour: np.ndarray  # int8[L]: the board's colours then
    changed: np.ndarray  # int64[L]: scratch, the points whose colour changed since
    missing: np.ndarray  # int64[L]: scratch, the points to read
    read: np.ndarray  # int32[L]: scratch, their patterns
    read_reach: np.ndarray  # int32[L]: scratch, their reach


@njit(cache=True)
def pattern_memory(points: int) -> PatternMemory:
    """An empty ``PatternMemory`` of a board of ``points`` points (``b.shape[1]``)."""
    return PatternMemory(np.full(points, NOT_READ, dtype=np.int32), np.zeros(points, dtype=np.int32),
                         np.zeros(points, dtype=np.int8), np.empty(points, dtype=np.int64),
                         np.empty(points, dtype=np.int64), np.empty(points, dtype=np.int32),
                         np.empty(points, dtype=np.int32))


@njit(cache=True)
def carried_patterns(b, m, color, points, pad, delta, max_ring, lookup, far, state, memory, pattern) -> int:
    """``pattern[i]`` as ``candidate_patterns`` gives it, carried from ``memory`` (the
    patterns ``color`` read last, in the same game) for each point that was read then and
    that none of the stones changed since can reach (each lies past the last ring read for
    it), read from the board for the others; ``memory`` is left holding this position's.
    Returns how many points were read."""
    known, reach, colour, changed, missing, read, read_reach = memory
    w = m[STRIDE]
    n_changed = 0
    for q in range(len(colour)):
        if colour[q] != b[COLOR, q]:
            changed[n_changed] = q
            n_changed += 1
            colour[q] = b[COLOR, q]
    n_missing = 0
    for i in range(len(points)):
        p = points[i]
        k = known[p] if n_changed <= CARRY_LIMIT else NOT_READ
        if k != NOT_READ and any_within(p, changed[:n_changed], reach[p], w):
            k = NOT_READ
        pattern[i] = k
        if k == NOT_READ:
            missing[n_missing] = p
            n_missing += 1
    known[:] = NOT_READ  # a point not legal now is read afresh when it is again
    if n_missing:
        candidate_patterns(b, m, color, missing[:n_missing], pad, delta, max_ring, lookup, far, state,
                           read, read_reach)
    j = 0
    for i in range(len(points)):
        p = points[i]
        if pattern[i] == NOT_READ:
            pattern[i] = read[j]
            reach[p] = read_reach[j]
            j += 1
        known[p] = pattern[i]
    return n_missing


@njit(cache=True)
def candidate_tactical(b, m, color, points, level_index, scratch, levels) -> None:
    """``levels[i, f]``: the level of tactical feature ``f`` of candidate ``points[i]``,
    0 where absent or where the vocabulary does not know the level; the pair of distances
    read off the distances the vocabulary knows, as a combination's key gives it."""
    n_features = level_index.shape[0] - 2
    tactical_features_with(b, m, color, points, levels, scratch)
    for i in range(len(points)):
        for f in range(n_features):
            if level_index[f + 1, levels[i, f]] < 0:
                levels[i, f] = 0
        pair = pair_level(levels[i, F_LAST_DIST], levels[i, F_LAST2_DIST])
        levels[i, F_LAST_DISTS] = pair if level_index[F_LAST_DISTS + 1, pair] >= 0 else 0


@njit(cache=True)
def candidate_levels(
    b, m, color, points, pad, delta, max_ring, lookup, far, level_index, scratch, state, levels, pattern,
) -> None:
    """The features of each candidate ``points[i]``: ``pattern[i]`` its largest known
    pattern (-1 if none), ``levels[i, f]`` the level of tactical feature ``f``, 0 where
    absent or where the vocabulary does not know the level.

    ``lookup`` is ``Vocabulary.lookup``, ``far`` the board size's ``FarRings``;
    ``levels`` is ``[len(points), N_FEATURES]``; ``state`` (padded board) is scratch.
    """
    candidate_tactical(b, m, color, points, level_index, scratch, levels)
    candidate_patterns(b, m, color, points, pad, delta, max_ring, lookup, far, state, pattern,
                       np.empty(len(points), dtype=np.int32))


@njit(cache=True, inline="always")
def pattern_feature(pattern: int, levels: np.ndarray, level_index: np.ndarray, twin: np.ndarray) -> int:
    """The feature of a candidate whose largest known pattern is ``pattern`` (-1: none) and
    whose tactical levels are ``levels``: the pattern's near twin (``Vocabulary.twin``) when
    it has one and the previous move is ``NEAR_FROM`` to ``NEAR_TO`` away (a distance the
    vocabulary knows), else the pattern."""
    d = levels[F_LAST_DIST]
    if 0 <= pattern < len(twin) and twin[pattern] >= 0 and NEAR_FROM <= d <= NEAR_TO \
            and level_index[F_LAST_DIST + 1, d] >= 0:
        return twin[pattern]
    return pattern


@njit(cache=True)
def team_of(pattern: int, levels: np.ndarray, level_index: np.ndarray, twin: np.ndarray, team: np.ndarray) -> None:
    """One candidate's team from its largest pattern and tactical levels: ``team[0]``
    its pattern feature (``pattern_feature``), ``team[f]`` the feature number of tactical
    feature ``f - 1``; -1 where absent."""
    team[0] = pattern_feature(pattern, levels, level_index, twin)
    for f in range(level_index.shape[0] - 2):
        level = levels[f]
        team[f + 1] = level_index[f + 1, level] if level else -1


@njit(cache=True)
def candidate_teams(
    b, m, color, points, pad, delta, max_ring, lookup, far, level_index, twin, scratch, state, levels, team,
) -> None:
    """The team of each candidate ``points[i]``: ``team[i, 0]`` its pattern feature,
    ``team[i, f]`` the feature number of its tactical feature ``f - 1``; -1 where absent.

    Arguments as for ``candidate_levels``; ``twin`` is ``Vocabulary.twin``.
    """
    pattern = np.empty(len(points), dtype=np.int32)
    candidate_levels(b, m, color, points, pad, delta, max_ring, lookup, far, level_index, scratch, state, levels,
                     pattern)
    for i in range(len(points)):
        team_of(pattern[i], levels[i], level_index, twin, team[i])


#: A candidate's tactical levels and pass flag as one integer (mixed radix): its
#: *combination* key. Digit ``f`` is the level of feature ``f``, the last the pass. The
#: pair of distances is no digit (radix 1, place 0): it is read off the two distances'
#: digits, and as a digit of its own it would overflow the 64 bits.
COMBO_RADIX = np.array([*(1 if f == F_LAST_DISTS else n for f, n in enumerate(FEATURE_LEVELS)), 2], dtype=np.int64)
COMBO_PLACE = np.concatenate([[1], np.cumprod(COMBO_RADIX[:-1])]).astype(np.int64)
COMBO_PLACE[F_LAST_DISTS] = 0
PASS_KEY = int(COMBO_PLACE[-1])


@njit(cache=True)
def known_combination_key(levels: np.ndarray, level_index: np.ndarray) -> int:
    """The combination key of one candidate's tactical levels (no pass), each level the
    vocabulary does not know (``level_index``'s -1) counted absent, as ``candidate_tactical``
    counts it."""
    key = 0
    for f in range(len(levels)):
        if level_index[f + 1, levels[f]] >= 0:
            key += levels[f] * COMBO_PLACE[f]
    return key


def combination_rows(keys: np.ndarray, vocab: Vocabulary) -> np.ndarray:
    """``rows[k, g]``: the feature number of digit ``g`` of ``keys[k]`` (tactical features,
    then the pass), or ``vocab.size`` (the feature-less slot, gamma 1) where it is 0, less
    ``vocab.first_tactical``: ``uint16`` while the tactical features number at most 65,535
    (38,774 in the bundled fit), half the bytes of ``int32``."""
    first = vocab.first_tactical
    rows = np.empty((len(keys), len(COMBO_PLACE)), dtype=offset_dtype(vocab.size - first))
    keys = keys.view()
    keys.flags.writeable = False  # a shard's keys are: one compiled kernel for both
    _combination_rows(keys, vocab.level_index, vocab.size, first, COMBO_PLACE, COMBO_RADIX, rows)
    return rows


def offset_dtype(span: int) -> type:
    """The smallest type of feature numbers less the first tactical one, up to ``span``."""
    return np.uint16 if span <= np.iinfo(np.uint16).max else np.int32


@njit(cache=True)
def _combination_rows(keys, level_index, none, first, place, radix, rows) -> None:
    for k in range(len(keys)):
        for g in range(len(place)):
            if place[g]:
                digit = (keys[k] // place[g]) % radix[g]
            else:
                digit = pair_level((keys[k] // place[F_LAST_DIST]) % radix[F_LAST_DIST],
                                   (keys[k] // place[F_LAST2_DIST]) % radix[F_LAST2_DIST])
            number = level_index[g + 1, digit] if digit > 0 else -1
            rows[k, g] = (number if number >= 0 else none) - first  # a pair the vocabulary lacks: none

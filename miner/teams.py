"""Teams: the features of every candidate move of a position, for rating and prediction.

Each candidate (every legal move, and the pass) is a *team* of features: its largest
spatial pattern found in the patterns table, plus the level of each tactical
feature present. Features are numbered densely by a :class:`Vocabulary` built
from the patterns table; a position's teams are stored flat (CSR), so the rating
fit and the evaluation are loops over integer arrays:

- ``pos_start[j] .. pos_start[j+1]``: the candidates of position ``j``;
- ``cand_start[c] .. cand_start[c+1]``: the features of candidate ``c`` in ``feats``;
- ``chosen[j]``: the index (within the position) of the move played;
- ``move_number[j]``: how many moves were played before the position.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from shapemill.datasets.corpus import Corpus
from shapemill.engine.rules import OK, SIZE, illegal_reason, play, to_point
from shapemill.miner.features import (
    FEATURE_LEVELS,
    FEATURES,
    N_FEATURES,
    feature_scratch,
    legal_moves,
    tactical_features_with,
)
from shapemill.miner.spatial import MIN_RING, RELATIVE, fill_padded, geometry, grow_ring, padded_point

#: Feature groups: 0 spatial patterns, 1..N_FEATURES the tactical features, then the pass.
PATTERN_GROUP = 0
PASS_GROUP = N_FEATURES + 1
GROUP_NAMES = ("pattern", *FEATURES, "pass")


@dataclass
class Vocabulary:
    """Dense feature numbering: spatial patterns first, then tactical levels, then pass."""

    pattern_ids: np.ndarray  # int64[P], sorted
    pattern_rings: np.ndarray  # int16[P]
    level_index: np.ndarray  # int32[N_FEATURES + 2, max level]: feature number, -1 if unknown
    group: np.ndarray  # int32[n]: the group of each feature
    value: np.ndarray  # uint64[n]: pattern id or level

    @property
    def size(self) -> int:
        return len(self.group)

    @property
    def pass_feature(self) -> int:
        return int(self.level_index[PASS_GROUP, 1])

    @classmethod
    def from_rows(cls, feature: list[str], value: np.ndarray, size: np.ndarray) -> Vocabulary:
        """From parallel columns: feature name ('pattern' or a tactical feature),
        value (pattern id or level) and ring (patterns only). The pass is always in."""
        feature = np.asarray(feature, dtype=object)
        value = np.asarray(value, dtype=np.uint64)
        is_pattern = feature == "pattern"
        ids = value[is_pattern].view(np.int64)
        order = np.argsort(ids)
        ids, rings = ids[order], np.asarray(size)[is_pattern][order].astype(np.int16)
        levels = np.full((N_FEATURES + 2, max(FEATURE_LEVELS)), -1, dtype=np.int32)
        group = [np.zeros(len(ids), dtype=np.int32)]
        values = [ids.view(np.uint64)]
        n = len(ids)
        for g, name in enumerate(GROUP_NAMES[1:], start=1):
            lv = np.unique(value[feature == name].astype(np.int64))
            if name == "pass":
                lv = np.array([1])
            levels[g, lv] = np.arange(n, n + len(lv))
            group.append(np.full(len(lv), g, dtype=np.int32))
            values.append(lv.astype(np.uint64))
            n += len(lv)
        return cls(ids, rings, levels, np.concatenate(group), np.concatenate(values))

    @classmethod
    def from_patterns(cls, table: pa.Table) -> Vocabulary:
        """Every pattern and every tactical level of a patterns table."""
        feature = table["feature"].cast(pa.string()).to_pylist()
        value = pc.coalesce(table["pattern_id"], table["level"].cast(pa.uint64())).to_numpy()
        return cls.from_rows(feature, value, table["size"].fill_null(0).to_numpy())


def ratings_model(table: pa.Table) -> tuple[Vocabulary, np.ndarray]:
    """The vocabulary of a ratings table and the gamma of each of its features."""
    feature = table["feature"].cast(pa.string()).to_pylist()
    value = table["value"].to_numpy()
    vocab = Vocabulary.from_rows(feature, value, table["size"].fill_null(0).to_numpy())
    index = {(GROUP_NAMES[g], int(v)): i for i, (g, v) in enumerate(zip(vocab.group, vocab.value))}
    gamma = np.ones(vocab.size)
    for f, v, g in zip(feature, value.tolist(), table["gamma"].to_numpy()):
        gamma[index[(f, int(v))]] = g
    return vocab, gamma


@njit(cache=True)
def _largest_pattern(state, q, rel, delta, max_ring, pattern_ids, h) -> int:
    """Feature number of the largest ring around ``q`` found in the sorted ``pattern_ids``
    (rings grow while found, as in the miner), or -1."""
    h[:] = 0
    best = -1
    for k in range(MIN_RING, max_ring + 1):
        key = grow_ring(h, state, q, rel, delta, k)
        i = np.searchsorted(pattern_ids, key)
        if i == len(pattern_ids) or pattern_ids[i] != key:
            break
        best = i
    return best


@njit(cache=True)
def candidate_teams(
    b, m, color, points, pad, delta, max_ring, pattern_ids, level_index, scratch, state, levels, team,
) -> None:
    """The team of each candidate ``points[i]``: ``team[i, 0]`` its largest known pattern,
    ``team[i, f]`` the feature number of its tactical feature ``f - 1``; -1 where absent.

    ``levels`` (``[len(points), N_FEATURES]``) and ``state`` (padded board) are scratch.
    """
    n_features = level_index.shape[0] - 2
    tactical_features_with(b, m, color, points, levels, scratch)
    fill_padded(b, m, pad, state)
    rel = RELATIVE[color]
    h = np.zeros(8, dtype=np.int64)
    for i in range(len(points)):
        team[i, 0] = _largest_pattern(state, padded_point(points[i], m, pad), rel, delta, max_ring, pattern_ids, h)
        for f in range(n_features):
            level = levels[i, f]
            team[i, f + 1] = level_index[f + 1, level] if level else -1


@njit(cache=True)
def game_teams(
    b, m, moves, first_color, sample, pad, delta, max_ring, pattern_ids, level_index,
    scratch, state, out_feats, out_cand, out_pos, counts_,
) -> None:
    """Append the teams of the positions ``n`` of a game where ``sample[n]`` is set.

    ``counts_`` holds the number of features, candidates and positions written so
    far (and grows); ``out_*`` must have room.
    """
    size = m[SIZE]
    n_features = level_index.shape[0] - 2
    levels = np.zeros((size * size, n_features), dtype=np.int32)
    team = np.zeros((size * size, n_features + 1), dtype=np.int32)
    pass_feature = level_index[n_features + 1, 1]
    for n in range(len(moves)):
        color = first_color if n % 2 == 0 else 3 - first_color
        chosen = to_point(moves[n], size)
        if illegal_reason(b, m, color, chosen) != OK:
            return
        if sample[n]:
            points = legal_moves(b, m, color)
            candidate_teams(b, m, color, points, pad, delta, max_ring, pattern_ids, level_index, scratch, state, levels, team)
            nf, nc, npos = counts_[0], counts_[1], counts_[2]
            winner = len(points)
            for i in range(len(points)):
                if points[i] == chosen:
                    winner = i
                out_cand[nc] = nf
                nc += 1
                for k in range(n_features + 1):
                    if team[i, k] >= 0:
                        out_feats[nf] = team[i, k]
                        nf += 1
            out_cand[nc] = nf  # the pass
            nc += 1
            out_feats[nf] = pass_feature
            nf += 1
            out_pos[npos, 0] = counts_[1]
            out_pos[npos, 1] = winner
            out_pos[npos, 2] = n
            counts_[0], counts_[1], counts_[2] = nf, nc, npos + 1
        play(b, m, color, chosen)


@dataclass
class Teams:
    """The teams of a set of positions (see the module docstring)."""

    pos_start: np.ndarray
    cand_start: np.ndarray
    feats: np.ndarray
    chosen: np.ndarray
    move_number: np.ndarray

    @property
    def n_positions(self) -> int:
        return len(self.chosen)


def sample_mask(corpus: Corpus, max_positions: int | None, seed: int = 0) -> np.ndarray:
    """Which positions (flat, in corpus order) to use: all, or ``max_positions``
    drawn uniformly without replacement by a seeded generator."""
    total = corpus.n_positions
    mask = np.zeros(total, dtype=np.bool_)
    if max_positions is None or max_positions >= total:
        mask[:] = True
    else:
        mask[np.random.default_rng(seed).choice(total, max_positions, replace=False)] = True
    return mask


def build_teams(corpus: Corpus, vocab: Vocabulary, mask: np.ndarray, max_ring: int = 54) -> Teams:
    """The teams of the positions of ``corpus`` selected by ``mask``."""
    n_pos = int(mask.sum())
    feats = np.zeros(1 << 20, dtype=np.int32)
    cand = np.zeros(1 << 18, dtype=np.int64)
    pos = np.zeros((n_pos, 3), dtype=np.int64)
    counts_ = np.zeros(3, dtype=np.int64)
    for i in range(len(corpus)):
        lo, hi = corpus.offsets[i], corpus.offsets[i + 1]
        sample = mask[lo:hi]
        if not sample.any():
            continue
        size = int(corpus.board_size[i])
        geo = geometry(size)
        need_c = counts_[1] + int(sample.sum()) * (size * size + 2)
        need_f = counts_[0] + int(sample.sum()) * (size * size + 1) * (N_FEATURES + 2)
        if need_c > len(cand):
            cand = np.resize(cand, 2 * need_c)
        if need_f > len(feats):
            feats = np.resize(feats, 2 * need_f)
        b, m = corpus.start_position(i)
        state = np.empty(geo.stride * geo.stride, dtype=np.int8)
        game_teams(
            b, m, corpus.game_moves(i), int(corpus.first_color[i]), sample, geo.pad, geo.delta,
            min(max_ring, geo.max_ring), vocab.pattern_ids, vocab.level_index,
            feature_scratch(b, m), state, feats, cand, pos, counts_,
        )
    nf, nc, npos = (int(x) for x in counts_)
    cands = cand[: nc + 1].copy()
    cands[nc] = nf
    return Teams(
        pos_start=np.append(pos[:npos, 0], nc),
        cand_start=cands,
        feats=feats[:nf].copy(),
        chosen=pos[:npos, 1].copy(),
        move_number=pos[:npos, 2].copy(),
    )

"""The competitions of a fit: sampled positions, each a contest among its candidates.

A candidate is stored as two ``int32``: its largest known pattern and its
*combination* (tactical levels and pass flag, see :mod:`shapemill.miner.candidates`),
8 bytes whatever the number of its features, so two million positions of some
250 candidates hold in 4 GB:

- ``pos_start[j] .. pos_start[j+1]``: the candidates of position ``j``;
- ``pattern[c]``: the feature number of candidate ``c``'s pattern, ``none`` if it has none;
- ``combo[c]``: its row of ``combos``, whose columns are the feature numbers of the
  tactical features and of the pass (``none`` where absent);
- ``chosen[j]``: the index (within the position) of the move played;
- ``move_number[j]``: how many moves were played before the position.

``none`` is the vocabulary's size: a gamma array of ``none + 1`` entries whose last
is 1 makes a candidate's strength ``gamma[pattern] * prod(gamma[combos[combo]])``
with no branch. Positions are built game by game in parallel (numba ``prange``),
a chunk of games at a time, and each chunk's combination keys interned into one
table as it is appended.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange

from ..datasets.corpus import Corpus
from ..go.reading import legal_moves, reading_scratch
from ..go.rings import far_rings, geometry
from ..go.rules import BLACK, OK, WHITE, illegal_reason, new_board, place_setup, play, to_point
from .candidates import PASS_KEY, Vocabulary, candidate_levels, combination_key, combination_rows
from .features import N_FEATURES

#: Games whose positions are built at once (memory of a chunk: its candidates x 12 bytes).
CHUNK_GAMES = 2048


@dataclass
class Teams:
    """The competitions of a set of positions (see the module docstring)."""

    pos_start: np.ndarray  # int64[positions + 1]
    pattern: np.ndarray  # int32[candidates]
    combo: np.ndarray  # int32[candidates]
    combos: np.ndarray  # int32[combinations, N_FEATURES + 1]
    chosen: np.ndarray  # int32[positions]
    move_number: np.ndarray  # int32[positions]
    none: int

    @property
    def n_positions(self) -> int:
        return len(self.chosen)

    @property
    def n_candidates(self) -> int:
        return len(self.pattern)

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.pos_start, self.pattern, self.combo, self.combos, self.chosen, self.move_number))


def use_threads(workers: int) -> None:
    """Run numba's parallel loops on ``workers`` threads (at most the cores numba saw)."""
    numba.set_num_threads(max(1, min(workers, numba.config.NUMBA_NUM_THREADS)))


def sample_mask(corpus: Corpus, max_positions: int | None, seed: int = 0) -> np.ndarray:
    """Which positions (flat, in corpus order) to use: all, or ``max_positions``
    drawn uniformly without replacement over all the games by a seeded generator."""
    total = corpus.n_positions
    mask = np.zeros(total, dtype=np.bool_)
    if max_positions is None or max_positions >= total:
        mask[:] = True
    else:
        mask[np.random.default_rng(seed).choice(total, max_positions, replace=False)] = True
    return mask


@njit(cache=True)
def _game_candidates(
    g, moves, offsets, first_color, setup, setup_start, mask, size, pad, delta, max_ring, lookup, far,
    level_index, slot, pattern_out, key_out, n_cand, chosen_out, move_out,
) -> None:
    """Replay game ``g`` and write each sampled position ``k`` (its ``k``-th) at slot
    ``slot + k``: candidates at ``[(slot + k) * (size * size + 1), ...)``, their number in
    ``n_cand`` (left 0 for positions after an illegal move)."""
    b, m = new_board(size)
    for color, row in ((BLACK, 2 * g), (WHITE, 2 * g + 1)):
        for i in range(setup_start[row], setup_start[row + 1]):
            place_setup(b, m, color, to_point(setup[i], size))
    scratch = reading_scratch(b, m)
    state = np.empty((size + 2 * pad) ** 2, dtype=np.int8)
    levels = np.zeros((size * size, N_FEATURES), dtype=np.int32)
    pattern = np.zeros(size * size, dtype=np.int32)
    width = size * size + 1
    k = slot
    lo = offsets[g]
    for n in range(offsets[g + 1] - lo):
        color = first_color[g] if n % 2 == 0 else 3 - first_color[g]
        point = to_point(moves[lo + n], size)
        if illegal_reason(b, m, color, point) != OK:
            return
        if mask[lo + n]:
            points = legal_moves(b, m, color)
            candidate_levels(b, m, color, points, pad, delta, max_ring, lookup, far, level_index, scratch, state, levels, pattern)
            base = k * width
            winner = len(points)
            for i in range(len(points)):
                if points[i] == point:
                    winner = i
                pattern_out[base + i] = pattern[i]
                key_out[base + i] = combination_key(levels[i])
            pattern_out[base + len(points)] = -1
            key_out[base + len(points)] = PASS_KEY
            n_cand[k] = len(points) + 1
            chosen_out[k] = winner
            move_out[k] = n
            k += 1
        play(b, m, color, point)


@njit(cache=True, parallel=True)
def _chunk_candidates(
    games, moves, offsets, first_color, setup, setup_start, mask, slots, size, pad, delta, max_ring,
    lookup, far, level_index, pattern_out, key_out, n_cand, chosen_out, move_out,
) -> None:
    """``_game_candidates`` for every game of ``games``, in parallel; game ``i``'s
    positions start at slot ``slots[i]``."""
    for i in prange(len(games)):
        _game_candidates(
            games[i], moves, offsets, first_color, setup, setup_start, mask, size, pad, delta, max_ring,
            lookup, far, level_index, slots[i], pattern_out, key_out, n_cand, chosen_out, move_out,
        )


@njit(cache=True)
def _slot_of(key, table_keys) -> int:
    """The slot of ``key`` in the open-addressing table (its own or the empty one to take)."""
    mask = len(table_keys) - 1
    h = (np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(20)
    i = np.int64(h & np.uint64(mask))
    while table_keys[i] != -1 and table_keys[i] != key:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _grow(table_keys, table_ids):
    """The table rehashed into twice the room."""
    keys = np.full(2 * len(table_keys), -1, dtype=np.int64)
    ids = np.zeros(2 * len(table_keys), dtype=np.int32)
    for i in range(len(table_keys)):
        if table_keys[i] != -1:
            j = _slot_of(table_keys[i], keys)
            keys[j] = table_keys[i]
            ids[j] = table_ids[i]
    return keys, ids


@njit(cache=True)
def _append_chunk(
    n_cand, width, pattern_buf, key_buf, none, table_keys, table_ids, combo_keys, n_combos,
    pattern_out, combo_out, sizes_out,
):
    """Copy the written positions' candidates, packed, into ``pattern_out`` / ``combo_out``
    (their sizes into ``sizes_out``), interning combination keys. Returns the table,
    the keys by combination id (both possibly grown) and the number of combinations."""
    c = 0
    for k in range(len(n_cand)):
        base = k * width
        for i in range(n_cand[k]):
            p = pattern_buf[base + i]
            pattern_out[c] = p if p >= 0 else none
            key = key_buf[base + i]
            s = _slot_of(key, table_keys)
            if table_keys[s] == -1:
                if 2 * (n_combos + 1) > len(table_keys):
                    table_keys, table_ids = _grow(table_keys, table_ids)
                    s = _slot_of(key, table_keys)
                if n_combos == len(combo_keys):
                    combo_keys = np.concatenate((combo_keys, np.empty_like(combo_keys)))
                table_keys[s] = key
                table_ids[s] = n_combos
                combo_keys[n_combos] = key
                n_combos += 1
            combo_out[c] = table_ids[s]
            c += 1
        sizes_out[k] = n_cand[k]
    return table_keys, table_ids, combo_keys, n_combos


def _flat_setup(corpus: Corpus) -> tuple[np.ndarray, np.ndarray]:
    """Setup stones of all games, flat: black of game ``g`` at row ``2g``, white at ``2g + 1``."""
    rows = [s for pair in zip(corpus.setup_black, corpus.setup_white) for s in pair]
    start = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    flat = np.concatenate(rows).astype(np.int64) if len(rows) and start[-1] else np.zeros(0, dtype=np.int64)
    return flat, start


def build_teams(
    corpus: Corpus, vocab: Vocabulary, mask: np.ndarray, max_ring: int = 54, workers: int = 1,
) -> Teams:
    """The competitions of the positions of ``corpus`` selected by ``mask``, built
    with ``workers`` threads."""
    use_threads(workers)
    setup, setup_start = _flat_setup(corpus)
    offsets = corpus.offsets.astype(np.int64)
    sampled = np.concatenate([[0], np.cumsum(mask)])
    per_game = sampled[offsets[1:]] - sampled[offsets[:-1]]
    first_color = corpus.first_color.astype(np.int64)
    table_keys, table_ids = np.full(1 << 16, -1, dtype=np.int64), np.zeros(1 << 16, dtype=np.int32)
    combo_keys, n_combos = np.empty(1 << 15, dtype=np.int64), 0
    parts: list[tuple[np.ndarray, ...]] = []
    for size in np.unique(corpus.board_size):
        geo = geometry(int(size))
        width = int(size) ** 2 + 1
        games = np.flatnonzero((corpus.board_size == size) & (per_game > 0))
        for lo in range(0, len(games), CHUNK_GAMES):
            chunk = games[lo : lo + CHUNK_GAMES]
            slots = np.concatenate([[0], np.cumsum(per_game[chunk])]).astype(np.int64)
            n_pos = int(slots[-1])
            pattern_buf = np.empty(n_pos * width, dtype=np.int32)
            key_buf = np.empty(n_pos * width, dtype=np.int64)
            n_cand = np.zeros(n_pos, dtype=np.int64)
            chosen = np.zeros(n_pos, dtype=np.int32)
            move = np.zeros(n_pos, dtype=np.int32)
            _chunk_candidates(
                chunk, corpus.moves, offsets, first_color, setup, setup_start, mask, slots, int(size), geo.pad,
                geo.delta, min(max_ring, geo.max_ring), vocab.lookup, far_rings(int(size)), vocab.level_index,
                pattern_buf, key_buf, n_cand, chosen, move,
            )
            written = n_cand > 0
            total = int(n_cand.sum())
            pattern_out = np.empty(total, dtype=np.int32)
            combo_out = np.empty(total, dtype=np.int32)
            sizes = np.empty(n_pos, dtype=np.int64)
            table_keys, table_ids, combo_keys, n_combos = _append_chunk(
                n_cand, width, pattern_buf, key_buf, vocab.size, table_keys, table_ids, combo_keys, n_combos,
                pattern_out, combo_out, sizes,
            )
            del pattern_buf, key_buf
            parts.append((pattern_out, combo_out, sizes[written], chosen[written], move[written]))
    return _assemble(parts, combination_rows(combo_keys[:n_combos], vocab), vocab.size)


def _assemble(parts: list[tuple[np.ndarray, ...]], combos: np.ndarray, none: int) -> Teams:
    """One ``Teams`` from the chunks, freeing each chunk once copied (peak memory: the
    result and one chunk)."""
    n_cand = sum(len(p[0]) for p in parts)
    sizes = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
    teams = Teams(
        pos_start=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        pattern=np.empty(n_cand, dtype=np.int32),
        combo=np.empty(n_cand, dtype=np.int32),
        combos=combos,
        chosen=np.concatenate([p[3] for p in parts]) if parts else np.zeros(0, dtype=np.int32),
        move_number=np.concatenate([p[4] for p in parts]) if parts else np.zeros(0, dtype=np.int32),
        none=none,
    )
    c = 0
    while parts:
        pattern, combo, *_ = parts.pop(0)
        teams.pattern[c : c + len(pattern)] = pattern
        teams.combo[c : c + len(combo)] = combo
        c += len(pattern)
    return teams

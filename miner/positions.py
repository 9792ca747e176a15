"""The competitions of a fit: sampled positions, each a contest among its candidates.

A candidate is two numbers: its largest known pattern and its *combination*
(tactical levels and pass flag, see :mod:`shapemill.patterns.candidates`), packed in 48
bits whatever the number of its features, so two million positions of some 250
candidates hold in 3 GB (the candidate array is grown in place while it is built,
never copied whole):

- ``pos_start[j] .. pos_start[j+1]``: the candidates of position ``j``;
- ``team[c]``: candidate ``c`` as three ``uint16``, low word first; the low
  ``pattern_bits`` bits are the feature number of its pattern (``none`` if it has
  none), the bits above its row of ``combos``, whose columns are the feature numbers
  of the tactical features and of the pass (``none`` where absent), less
  ``first_tactical`` (``uint16`` while the tactical features fit: a sample holds
  millions of combinations). :func:`candidate` unpacks one;
- ``chosen[j]``: the index (within the position) of the move played;
- ``move_number[j]``: how many moves were played before the position;
- ``images[j]``: how many points the move played is, under the position's symmetries
  (``go.equivalent``: 4 for a 4-4 point on the empty board, 1 nearly everywhere else).

``none`` is the vocabulary's size: a gamma array of ``none + 1`` entries whose last
is 1 makes a candidate's strength ``gamma[pattern] * prod(tactical[combos[combo]])``,
``tactical = gamma[first_tactical:]``, with no branch. Positions are built game by game in parallel (numba ``prange``),
a chunk of games at a time, and each chunk's combination keys interned into one
table as it is appended.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from ..datasets.corpus import Corpus
from ..errors import ShapemillError
from ..go.changes import new_tracker, play_tracked
from ..go.equivalent import equivalent_points
from ..go.reading import legal_moves
from ..go.rings import FarRings, far_rings, geometry
from ..go.rules import BLACK, OK, WHITE, illegal_reason, new_board, place_setup, to_point
from ..patterns.candidates import (
    PASS_KEY,
    Vocabulary,
    carried_patterns,
    combination_rows,
    known_combination_key,
    offset_dtype,
    pattern_feature,
    pattern_memory,
)
from ..patterns.features import N_FEATURES, tracked_features
from ..patterns.latent import NO_LATENT
from ..patterns.prior import KnowledgeArrays

#: Positions built at once, about (whole games): a chunk's buffers hold its positions x (points + 1) x 12 bytes.
CHUNK_POSITIONS = 1 << 16
#: The gammas and latent vectors of the ``KnowledgeArrays`` that team building reads patterns with: it reads none.
NO_GAMMA = np.ones(1)
NO_VECTOR_ROW, NO_VECTORS, NO_BAND_STARTS, NO_BAND_VECTORS = NO_LATENT


@njit(cache=True)
def candidate(team, c, pattern_bits) -> tuple[int, int]:
    """Candidate ``c``'s pattern feature and combination row."""
    v = np.int64(team[c, 0]) | (np.int64(team[c, 1]) << 16) | (np.int64(team[c, 2]) << 32)
    return v & ((np.int64(1) << pattern_bits) - 1), v >> pattern_bits


@njit(cache=True)
def _pack(team, c, pattern, combo, pattern_bits) -> None:
    v = np.int64(pattern) | (np.int64(combo) << pattern_bits)
    team[c, 0] = v & 0xFFFF
    team[c, 1] = (v >> 16) & 0xFFFF
    team[c, 2] = v >> 32


@njit(cache=True)
def _pack_all(team, pattern, combo, pattern_bits) -> None:
    for c in range(len(pattern)):
        _pack(team, c, pattern[c], combo[c], pattern_bits)


@njit(cache=True)
def _unpack_all(team, pattern_bits) -> tuple[np.ndarray, np.ndarray]:
    pattern = np.empty(len(team), dtype=np.int64)
    combo = np.empty(len(team), dtype=np.int64)
    for c in range(len(team)):
        pattern[c], combo[c] = candidate(team, c, pattern_bits)
    return pattern, combo


def pattern_bits(none: int) -> int:
    """Bits of a candidate's pattern field when the vocabulary has ``none`` features."""
    return max(1, int(none).bit_length())


@dataclass
class Teams:
    """The competitions of a set of positions (see the module docstring)."""

    pos_start: np.ndarray  # int64[positions + 1]
    team: np.ndarray  # uint16[candidates, 3]: pattern and combination, packed
    combos: np.ndarray  # uint16[combinations, N_FEATURES + 1]: feature numbers less first_tactical
    chosen: np.ndarray  # int32[positions]
    move_number: np.ndarray  # int32[positions]
    none: int
    first_tactical: int
    images: np.ndarray  # int8[positions]: the points the move played is (``go.equivalent``)

    @classmethod
    def from_candidates(
        cls, pos_start: np.ndarray, pattern: np.ndarray, combo: np.ndarray, combos: np.ndarray,
        chosen: np.ndarray, move_number: np.ndarray, none: int,
    ) -> Teams:
        """Competitions from each candidate's pattern feature and combination row
        (``combos``: rows of feature numbers)."""
        if len(combos) > 1 << (48 - pattern_bits(none)):
            raise ValueError("too many combinations to pack")
        first = int(np.min(combos, initial=none))
        team = np.empty((len(pattern), 3), dtype=np.uint16)
        _pack_all(team, np.asarray(pattern, np.int64), np.asarray(combo, np.int64), pattern_bits(none))
        offsets = (np.asarray(combos) - first).astype(offset_dtype(none - first))
        return cls(np.asarray(pos_start, np.int64), team, offsets, np.asarray(chosen, np.int32),
                   np.asarray(move_number, np.int32), none, first, np.ones(len(chosen), np.int8))

    @property
    def n_positions(self) -> int:
        return len(self.chosen)

    @property
    def n_candidates(self) -> int:
        return len(self.team)

    @property
    def pattern_bits(self) -> int:
        return pattern_bits(self.none)

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.pos_start, self.team, self.combos, self.chosen, self.move_number,
                                      self.images))

    def candidates(self, index: slice | np.ndarray = slice(None)) -> tuple[np.ndarray, np.ndarray]:
        """The pattern features and combination rows of the candidates ``index``."""
        return _unpack_all(np.ascontiguousarray(self.team[index]), self.pattern_bits)

    def combination_features(self, rows: slice | np.ndarray = slice(None)) -> np.ndarray:
        """The feature numbers of the combinations ``rows`` (``none`` where absent)."""
        return self.combos[rows].astype(np.int64) + self.first_tactical


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


class GameLines(NamedTuple):
    """The games as the team-building kernel replays them."""

    moves: np.ndarray  # int16: every game's moves, one after another (``Corpus.moves``)
    offsets: np.ndarray  # int64[games + 1]: where each game's moves start
    first_color: np.ndarray  # int64[games]: the colour of each game's first move
    setup: np.ndarray  # the setup stones, flat (``_flat_setup``)
    setup_start: np.ndarray  # int64[2 games + 1]: where each game's black, then white, setup starts
    mask: np.ndarray  # bool[moves]: the positions sampled


class TeamBuffers(NamedTuple):
    """Where the kernel writes the candidates of each sampled position (a slot each)."""

    pattern: np.ndarray  # int32[slots * (points + 1)]: each candidate's largest known pattern
    key: np.ndarray  # int64[slots * (points + 1)]: each candidate's combination key
    n_cand: np.ndarray  # int64[slots]: the candidates of each slot (0: not written)
    chosen: np.ndarray  # int32[slots]: the candidate played
    move: np.ndarray  # int32[slots]: the position's move number
    images: np.ndarray  # int8[slots]: the points the move played is (``go.equivalent``)


@njit(cache=True)
def _game_candidates(g: int, lines: GameLines, slot: int, size: int, knowledge: KnowledgeArrays,
                     out: TeamBuffers) -> None:
    """Replay game ``g`` and write each sampled position ``k`` (its ``k``-th) at slot
    ``slot + k``: candidates at ``[(slot + k) * (size * size + 1), ...)``, their number in
    ``out.n_cand`` (left 0 for positions after an illegal move)."""
    moves, offsets, first_color, setup, setup_start, mask = lines
    pad, delta, max_ring, lookup = knowledge.pad, knowledge.delta, knowledge.max_ring, knowledge.lookup
    far, level_index, twin = knowledge.far, knowledge.level_index, knowledge.twin
    pattern_out, key_out, n_cand, chosen_out, move_out, images_out = out
    b, m = new_board(size)
    for color, row in ((BLACK, 2 * g), (WHITE, 2 * g + 1)):
        for i in range(setup_start[row], setup_start[row + 1]):
            place_setup(b, m, color, to_point(setup[i], size))
    tracker = new_tracker(b, m)
    state = np.empty((size + 2 * pad) ** 2, dtype=np.int8)
    levels = np.zeros((3, b.shape[1], N_FEATURES), dtype=np.int32)  # each colour's, by board point
    read_at = np.full(3, -3)  # each colour's last position read
    pattern = np.zeros(size * size, dtype=np.int32)
    memory = (pattern_memory(b.shape[1]), pattern_memory(b.shape[1]))
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
            tracked_features(b, m, color, points, tracker, n, levels[color], read_at[color] != n - 2)
            read_at[color] = n
            carried_patterns(b, m, color, points, pad, delta, max_ring, lookup, far, state, memory[color - 1], pattern)
            base = k * width
            winner = len(points)
            for i in range(len(points)):
                if points[i] == point:
                    winner = i
                here = levels[color, points[i]]
                pattern_out[base + i] = pattern_feature(pattern[i], here, level_index, twin)
                key_out[base + i] = known_combination_key(here, level_index)
            pattern_out[base + len(points)] = -1
            key_out[base + len(points)] = PASS_KEY
            n_cand[k] = len(points) + 1
            chosen_out[k] = winner
            move_out[k] = n
            images_out[k] = equivalent_points(b, m, point)
            k += 1
        play_tracked(b, m, color, point, tracker, n)


@njit(cache=True, parallel=True)
def _chunk_candidates(games: np.ndarray, lines: GameLines, slots: np.ndarray, size: int, pad: int,
                      delta: np.ndarray, max_ring: int, lookup: np.ndarray, far: FarRings, level_index: np.ndarray,
                      twin: np.ndarray, out: TeamBuffers) -> None:
    """``_game_candidates`` for every game of ``games``, in parallel; game ``i``'s
    positions start at slot ``slots[i]``. The pattern reading's fields come loose and are
    made a ``KnowledgeArrays`` in the loop: numba's parallel loop takes no record that holds
    another (``FarRings``)."""
    for i in prange(len(games)):
        knowledge = KnowledgeArrays(pad, delta, max_ring, lookup, far, level_index, twin, NO_GAMMA, NO_VECTOR_ROW,
                                    NO_VECTORS, NO_BAND_STARTS, NO_BAND_VECTORS)
        _game_candidates(games[i], lines, slots[i], size, knowledge, out)


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
def _intern(keys, table_keys, table_ids, combo_keys, n_combos, limit):
    """The id of each of ``keys``, a new key taking the next id (``combo_keys[id]``
    its key). Returns the table and the keys by id (both possibly grown), the
    number of ids and the ids; -1 for the number when more than ``limit`` are needed."""
    out = np.empty(len(keys), dtype=np.int64)
    for i in range(len(keys)):
        key = keys[i]
        s = _slot_of(key, table_keys)
        if table_keys[s] == -1:
            if n_combos == limit:
                return table_keys, table_ids, combo_keys, -1, out
            if 2 * (n_combos + 1) > len(table_keys):
                table_keys, table_ids = _grow(table_keys, table_ids)
                s = _slot_of(key, table_keys)
            if n_combos == len(combo_keys):
                combo_keys = np.concatenate((combo_keys, np.empty_like(combo_keys)))
            table_keys[s] = key
            table_ids[s] = n_combos
            combo_keys[n_combos] = key
            n_combos += 1
        out[i] = table_ids[s]
    return table_keys, table_ids, combo_keys, n_combos, out


class Interner:
    """Combination keys numbered densely in the order they are first met, at most as
    many as the ``48 - bits`` bits of a packed candidate's combination number (a
    ``bits`` of 17 numbers 2**31, as many as ``int32`` ids hold)."""

    def __init__(self, bits: int) -> None:
        self.limit = 1 << (48 - bits)
        self._table = np.full(1 << 16, -1, dtype=np.int64), np.zeros(1 << 16, dtype=np.int32)
        self._keys, self._n = np.empty(1 << 15, dtype=np.int64), 0

    def ids(self, keys: np.ndarray) -> np.ndarray:
        """The id of each key. Raises :class:`ShapemillError` past the limit."""
        table_keys, table_ids, self._keys, n, out = _intern(keys, *self._table, self._keys, self._n, self.limit)
        self._table = table_keys, table_ids
        if n < 0:
            raise ShapemillError(f"the positions hold more than {self.limit:,} combinations of tactical "
                                 "features, more than a candidate can number: sample fewer positions")
        self._n = n
        return out

    @property
    def keys(self) -> np.ndarray:
        """The keys by id."""
        return self._keys[: self._n]


@njit(cache=True)
def _compact(n_cand, width, pattern_buf, key_buf, none) -> tuple[np.ndarray, np.ndarray]:
    """The written positions' candidates, one after the other: pattern (``none`` for
    none) and combination key."""
    total = 0
    for k in range(len(n_cand)):
        total += n_cand[k]
    pattern = np.empty(total, dtype=np.int64)
    keys = np.empty(total, dtype=np.int64)
    c = 0
    for k in range(len(n_cand)):
        base = k * width
        for i in range(n_cand[k]):
            p = pattern_buf[base + i]
            pattern[c] = p if p >= 0 else none
            keys[c] = key_buf[base + i]
            c += 1
    return pattern, keys


@njit(cache=True)
def _renumber(team, ids, bits, team_out, c) -> None:
    """Copy ``team`` into ``team_out`` from index ``c``, combination ``k`` renumbered ``ids[k]``."""
    for i in range(len(team)):
        p, k = candidate(team, i, bits)
        _pack(team_out, c + i, p, ids[k], bits)


def _flat_setup(corpus: Corpus) -> tuple[np.ndarray, np.ndarray]:
    """Setup stones of all games, flat: black of game ``g`` at row ``2g``, white at ``2g + 1``."""
    rows = [s for pair in zip(corpus.setup_black, corpus.setup_white) for s in pair]
    start = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    flat = np.concatenate(rows).astype(np.int64) if len(rows) and start[-1] else np.zeros(0, dtype=np.int64)
    return flat, start


def candidates_per_position(corpus: Corpus, mask: np.ndarray | None = None) -> np.ndarray:
    """An estimate of the number of candidates of each game's positions (those of
    ``mask``, or all), summed per game: a position after ``n`` moves on a board of
    ``s`` points has about ``s + 1 - n`` (the empty points and the pass; captures
    and illegal points roughly cancel)."""
    offsets = corpus.offsets.astype(np.int64)
    points = corpus.board_size.astype(np.int64) ** 2 + 1
    if mask is None:
        length = np.diff(offsets)
        return np.maximum(length * points - length * (length - 1) // 2, length)
    sampled = np.flatnonzero(mask)
    game = np.searchsorted(offsets, sampled, side="right") - 1
    per_position = np.maximum(points[game] - (sampled - offsets[game]), 1)
    return np.bincount(game, weights=per_position, minlength=len(corpus))


def _room(array: np.ndarray, needed: int) -> np.ndarray:
    """``array`` with room for at least ``needed`` rows, grown in place (a
    ``realloc``, which moves no pages of a large array: no second copy in memory)."""
    if needed > len(array):
        array.resize((max(needed, int(len(array) * 1.25)), *array.shape[1:]), refcheck=False)
    return array


def _size_chunks(corpus: Corpus, per_game: np.ndarray, size: int) -> list[np.ndarray]:
    """The games of board ``size`` with sampled positions (``per_game`` a game), in
    chunks of about ``CHUNK_POSITIONS`` positions."""
    games = np.flatnonzero((corpus.board_size == size) & (per_game > 0))
    cut = np.searchsorted(np.cumsum(per_game[games]), np.arange(CHUNK_POSITIONS, per_game.sum(), CHUNK_POSITIONS))
    return [chunk for chunk in np.split(games, np.unique(cut + 1)) if len(chunk)]


class Chunk(NamedTuple):
    """The competitions of the sampled positions of some games, each candidate's
    combination numbered within the chunk (``keys[k]``: combination ``k``'s key, in
    the order first met)."""

    sizes: np.ndarray  # int64[positions]: the candidates of each position
    team: np.ndarray  # uint16[candidates, 3], packed as Teams.team
    keys: np.ndarray  # int64[combinations]
    chosen: np.ndarray  # int32[positions]
    move_number: np.ndarray  # int32[positions]
    images: np.ndarray  # int8[positions]


class Replay(NamedTuple):
    """What the team-building kernel reads of a corpus, prepared once for all its chunks."""

    offsets: np.ndarray
    first_color: np.ndarray
    setup: np.ndarray
    setup_start: np.ndarray
    per_game: np.ndarray  # sampled positions of each game

    @classmethod
    def of(cls, corpus: Corpus, mask: np.ndarray) -> Replay:
        setup, setup_start = _flat_setup(corpus)
        offsets = corpus.offsets.astype(np.int64)
        sampled = np.concatenate([[0], np.cumsum(mask)])
        return cls(offsets, corpus.first_color.astype(np.int64), setup, setup_start,
                   sampled[offsets[1:]] - sampled[offsets[:-1]])


def chunk_plan(corpus: Corpus, replay: Replay) -> list[np.ndarray]:
    """The games of each chunk of about ``CHUNK_POSITIONS`` sampled positions (one
    board size each), in the order a fit numbers their positions."""
    sizes = np.unique(corpus.board_size)
    return [chunk for size in sizes for chunk in _size_chunks(corpus, replay.per_game, int(size))]


def chunk_teams(corpus: Corpus, vocab: Vocabulary, mask: np.ndarray, replay: Replay, games: np.ndarray,
                max_ring: int = 54) -> Chunk:
    """The competitions of the sampled positions of ``games`` (of one board size, in
    order), built in parallel by game."""
    size = int(corpus.board_size[games[0]])
    geo = geometry(size)
    width = size**2 + 1
    slots = np.concatenate([[0], np.cumsum(replay.per_game[games])]).astype(np.int64)
    n_pos = int(slots[-1])
    pattern_buf = np.empty(n_pos * width, dtype=np.int32)
    key_buf = np.empty(n_pos * width, dtype=np.int64)
    n_cand = np.zeros(n_pos, dtype=np.int64)
    chosen = np.zeros(n_pos, dtype=np.int32)
    move = np.zeros(n_pos, dtype=np.int32)
    images = np.ones(n_pos, dtype=np.int8)
    lines = GameLines(corpus.moves, replay.offsets, replay.first_color, replay.setup, replay.setup_start, mask)
    _chunk_candidates(games, lines, slots, size, geo.pad, geo.delta, min(max_ring, geo.max_ring), vocab.lookup,
                      far_rings(size), vocab.level_index, vocab.twin,
                      TeamBuffers(pattern_buf, key_buf, n_cand, chosen, move, images))
    pattern, keys = _compact(n_cand, width, pattern_buf, key_buf, vocab.size)
    del pattern_buf, key_buf
    bits = pattern_bits(vocab.size)
    interner = Interner(bits)
    team = np.empty((len(pattern), 3), dtype=np.uint16)
    _pack_all(team, pattern, interner.ids(keys), bits)
    written = n_cand > 0
    return Chunk(n_cand[written], team, interner.keys.copy(), chosen[written], move[written], images[written])


def build_teams(
    corpus: Corpus, vocab: Vocabulary, mask: np.ndarray, max_ring: int = 54, workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> Teams:
    """The competitions of the positions of ``corpus`` selected by ``mask``, built
    with ``workers`` threads; ``progress(games)`` is called after each chunk of games.

    The candidates go straight into their final array, grown in place, so that the
    peak is the result plus one chunk's buffers; combinations are numbered in the
    order first met. Raises :class:`ShapemillError` when the positions hold more
    tactical combinations than a packed candidate can number."""
    use_threads(workers)
    replay = Replay.of(corpus, mask)
    bits = pattern_bits(vocab.size)
    interner = Interner(bits)
    expected = int(candidates_per_position(corpus, mask).sum() * 1.05) + 1
    team_out = np.empty((expected, 3), dtype=np.uint16)
    c = 0
    sizes, chosen, move, images = [], [], [], []
    for games in chunk_plan(corpus, replay):
        chunk = chunk_teams(corpus, vocab, mask, replay, games, max_ring)
        team_out = _room(team_out, c + len(chunk.team))
        _renumber(chunk.team, interner.ids(chunk.keys), bits, team_out, c)
        c += len(chunk.team)
        sizes.append(chunk.sizes)
        chosen.append(chunk.chosen)
        move.append(chunk.move_number)
        images.append(chunk.images)
        del chunk
        if progress is not None:
            progress(len(games))
    team_out.resize((c, 3), refcheck=False)
    return Teams(
        pos_start=np.concatenate([[0], np.cumsum(np.concatenate([np.zeros(0, np.int64), *sizes]))]).astype(np.int64),
        team=team_out,
        combos=combination_rows(interner.keys, vocab),
        chosen=np.concatenate([np.zeros(0, np.int32), *chosen]),
        move_number=np.concatenate([np.zeros(0, np.int32), *move]),
        none=vocab.size,
        first_tactical=vocab.first_tactical,
        images=np.concatenate([np.zeros(0, np.int8), *images]),
    )


#: Bytes of the fit per candidate (pattern and combination), per position (its start,
#: move played, move number, total strength), per distinct combination (its row,
#: key, interning slots, strength and sums) and per feature (the fit's arrays).
CANDIDATE_BYTES, POSITION_BYTES, COMBINATION_BYTES, FEATURE_BYTES = 6, 32, 118, 400


def distinct_combinations(n_positions: int) -> float:
    """About how many distinct tactical combinations ``n_positions`` positions of
    strong players' 19x19 games hold (a power law measured on Tygem 9-dan games:
    1.5 M at 100,000 positions, 2.4 M at 200,000, grown slower than the positions)."""
    return 1.52e6 * (max(n_positions, 1) / 1e5) ** 0.65


def fit_memory(corpus: Corpus, n_positions: int, n_features: int) -> float:
    """Estimated bytes that rating ``n_positions`` positions of ``corpus`` on
    ``n_features`` features needs on top of what is loaded already: the
    competitions, one chunk's build buffers and the fit's arrays."""
    positions = max(corpus.n_positions, 1)
    share = min(1.0, n_positions / positions)
    candidates = float(candidates_per_position(corpus).sum()) * share
    width = int(corpus.board_size.max(initial=19)) ** 2 + 1
    chunk = (min(n_positions, CHUNK_POSITIONS) + int(np.diff(corpus.offsets).max(initial=0))) * width * 12
    return (candidates * CANDIDATE_BYTES + n_positions * POSITION_BYTES + chunk
            + distinct_combinations(n_positions) * COMBINATION_BYTES + n_features * FEATURE_BYTES)


def positions_within(corpus: Corpus, budget: float, n_features: int, most: int | None = None) -> int:
    """The most positions (at most ``most``, at most the corpus's) whose fit needs no
    more than ``budget`` bytes by :func:`fit_memory`; 0 when even one does not fit."""
    lo, hi = 0, min(corpus.n_positions, most if most is not None else corpus.n_positions)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fit_memory(corpus, mid, n_features) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return lo

"""Pattern counts: an open-addressing hash table in flat numpy arrays, for numba.

Pattern ids are Zobrist hashes, uniformly random, so the low bits of the id are
the home slot and linear probing needs no further mixing. Key 0 marks an empty
slot (ids are never 0: see ``spatial.ring_ids``).

A table is a tuple ``(rows, ring, used)``. ``rows`` is ``int64[capacity, 4]``: per
slot the pattern id (``KEY``), the number of times it was available to the player
to move (``SEEN``) and chosen (``PLAYED``), its *witness* -- the first occurrence
in corpus order, encoded by :func:`witness` -- from which its canonical key is
rebuilt at the end instead of being stored during the run. A row is 32 bytes, so
a probe costs one cache miss or two. ``ring`` is each slot's ring and
``used`` a one-element array with the number of occupied slots.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NO_WITNESS = np.iinfo(np.int64).max

KEY, SEEN, PLAYED, WITNESS = range(4)
#: A witness's game ordinal starts at this bit (move and point below it).
GAME_SHIFT = 24

Table = tuple[np.ndarray, np.ndarray, np.ndarray]


def new_table(capacity: int = 1 << 16) -> Table:
    """An empty table with room for ``capacity`` slots (rounded up to a power of two)."""
    n = 1 << max(4, int(capacity - 1).bit_length())
    rows = np.zeros((n, 4), dtype=np.int64)
    rows[:, WITNESS] = NO_WITNESS
    return rows, np.zeros(n, dtype=np.int16), np.zeros(1, dtype=np.int64)


def used(table: Table) -> int:
    """Number of patterns in the table."""
    return int(table[2][0])


def capacity(table: Table) -> int:
    """Number of slots of the table."""
    return len(table[1])


@njit(cache=True)
def witness(game: int, move: int, point: int) -> int:
    """Encode an occurrence: game ordinal, move number and board point."""
    return (np.int64(game) << GAME_SHIFT) | (np.int64(move) << 12) | point


def witness_games(witnesses: np.ndarray) -> np.ndarray:
    """The game ordinals of encoded occurrences."""
    return witnesses >> GAME_SHIFT


def shift_witnesses(witnesses: np.ndarray, games: int) -> np.ndarray:
    """Occurrences moved ``games`` games later (earlier when negative), as when
    counts of a shard of the corpus, numbered from 0, join the whole."""
    return witnesses + (np.int64(games) << GAME_SHIFT)


@njit(cache=True)
def slot(rows: np.ndarray, key: int) -> int:
    """The slot holding ``key``, or the empty slot where it would go."""
    mask = len(rows) - 1
    i = key & mask
    while rows[i, KEY] != 0 and rows[i, KEY] != key:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def add(table: Table, key: int, ring: int, seen: int, played: int, first: int) -> int:
    """Add counts to ``key``'s entry, inserting it if needed; returns its slot."""
    rows, t_ring, t_used = table
    i = slot(rows, key)
    if rows[i, KEY] == 0:
        rows[i, KEY] = key
        t_ring[i] = ring
        t_used[0] += 1
    rows[i, SEEN] += seen
    rows[i, PLAYED] += played
    if first < rows[i, WITNESS]:
        rows[i, WITNESS] = first
    return i


@njit(cache=True)
def _reinsert(table: Table, src: Table, keep_min: int) -> None:
    rows, ring, _ = src
    for i in range(len(rows)):
        if rows[i, KEY] != 0 and rows[i, SEEN] >= keep_min:
            add(table, rows[i, KEY], ring[i], rows[i, SEEN], rows[i, PLAYED], rows[i, WITNESS])


def rebuilt(table: Table, keep_min: int = 0, room: int | None = None) -> Table:
    """A fresh table with the entries seen at least ``keep_min`` times, with ``room``
    slots (by default twice the entries kept: at most half full).

    Used to grow a crowded table (``keep_min`` 0) and to prune rare entries.
    """
    if room is None:
        rows = table[0]
        room = 2 * int(np.count_nonzero((rows[:, KEY] != 0) & (rows[:, SEEN] >= keep_min)))
    fresh = new_table(room)
    _reinsert(fresh, table, keep_min)
    return fresh


def copied(table: Table) -> Table:
    """A copy of the table, to count into while the original stays as it is."""
    rows, ring, n = table
    return rows.copy(), ring.copy(), n.copy()


def of_keys(pattern_ids: np.ndarray, rings: np.ndarray, capacity: int, seen: np.ndarray | None = None) -> Table:
    """A table of ``capacity`` slots holding these patterns, seen ``seen`` times
    (by default never), played never."""
    table = new_table(capacity)
    _insert_keys(table, pattern_ids.view(np.int64), rings, np.zeros(len(rings), np.int64) if seen is None else seen)
    return table


@njit(cache=True)
def _insert_keys(table, keys, rings, seen) -> None:
    for i in range(len(keys)):
        add(table, keys[i], rings[i], seen[i], 0, NO_WITNESS)


@njit(cache=True)
def _rarity_floor(table: Table, keep: int) -> int:
    """The smallest count ``k`` such that at most ``keep`` patterns are seen ``k`` times or more."""
    rows = table[0]
    seen = np.sort(rows[rows[:, KEY] != 0, SEEN])
    if len(seen) <= keep:
        return 0
    return seen[len(seen) - keep - 1] + 1


def pruned(table: Table, capacity: int, room: int) -> Table:
    """The table at ``capacity`` slots, less its rarest patterns: those seen once,
    and more if the rest would fill over a quarter of it with ``room`` to spare
    (lossy counting, so memory stays bounded however many patterns stream past)."""
    keep_min = max(2, _rarity_floor(table, max(1, capacity // 4 - room)))
    return rebuilt(table, keep_min=keep_min, room=capacity)


#: How ``summed`` combines a column of the rows of one pattern.
_REDUCE = {"seen": np.add, "played": np.add, "witness": np.minimum}


def summed(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The sum of two sets of count columns (as :func:`entries` gives them, or some of
    them: ``pattern_id`` and ``ring`` with any of ``seen``, ``played``, ``witness``),
    one row a pattern, sorted by pattern id: counts added, first occurrences the
    earliest. Compact to send and to hold, unlike a hash table at most half full."""
    both = {k: np.concatenate([a[k], b[k]]) for k in a}
    if not len(both["pattern_id"]):
        return both
    order = np.argsort(both["pattern_id"], kind="stable")
    ids = both["pattern_id"][order]
    first = np.flatnonzero(np.concatenate([[True], ids[1:] != ids[:-1]]))
    return {
        k: _REDUCE[k].reduceat(v[order], first) if k in _REDUCE else v[order][first] for k, v in both.items()
    }


def entries(table: Table) -> dict[str, np.ndarray]:
    """The occupied entries as columns, sorted by pattern id for a stable output."""
    rows, ring, _ = table
    slots = np.flatnonzero(rows[:, KEY])
    slots = slots[np.argsort(rows[slots, KEY].view(np.uint64))]  # ids are unique: any sort will do
    columns = np.empty((4, len(slots)), dtype=np.int64)
    rings = np.empty(len(slots), dtype=ring.dtype)
    _gather(rows, ring, slots, columns, rings)
    return {
        "pattern_id": columns[KEY].view(np.uint64),
        "ring": rings,
        "seen": columns[SEEN],
        "played": columns[PLAYED],
        "witness": columns[WITNESS],
    }


@njit(cache=True)
def _gather(rows: np.ndarray, ring: np.ndarray, slots: np.ndarray, columns: np.ndarray, rings: np.ndarray) -> None:
    """The rows and rings of ``slots``, in their order, as columns (one loop, rather
    than a random read of the table per column)."""
    for j in range(len(slots)):
        i = slots[j]
        for c in range(4):
            columns[c, j] = rows[i, c]
        rings[j] = ring[i]

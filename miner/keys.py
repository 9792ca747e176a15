"""The canonical keys of the kept patterns, rebuilt from each one's first occurrence (its witness).

Only counts are held while mining; a pattern's key is written at the end by
replaying the game of its witness, in the worker processes, into one shared buffer.
"""

from __future__ import annotations

import mmap
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
from numba import njit

from ..datasets.corpus import Corpus
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
    SIZE,
    play,
    to_point,
)
from . import counts
from .shards import Job, map_shards


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

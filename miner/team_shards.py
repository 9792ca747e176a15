"""A fit's competitions on disk: built once into shards, streamed by every MM sweep.

``rate`` builds the teams of its positions a chunk of games at a time
(:func:`shapemill.miner.positions.chunk_teams`) and writes each chunk to a shard
in a *work folder*; each pass of a sweep then reads the shards one after the
other, so that the fit's memory is one shard and the arrays of the gammas and of
the combinations, whatever the number of positions. The folder also keeps the
gammas after each sweep, so that the same command started again goes on from
the last finished sweep.

A shard file (``NNNNN.teams``) is a 72-byte header and four arrays, little-endian:

- header: ``SHAPEMILL-TEAMS`` and a zero byte; the fit's id (16 bytes, a digest of
  the corpus, the sampled positions and the vocabulary: a shard of another fit is
  refused); the format, the candidate's pattern bits, the positions ``P``, the
  candidates ``C``, the combinations ``K`` and the CRC-32 of the arrays;
- ``K`` int64: the chunk's combination keys, numbered in the order first met;
- ``P`` uint16 each: the candidates of each position, the index of the move
  played among them, the move number;
- ``C`` x 3 uint16: the candidates packed as in :class:`~shapemill.miner.positions.Teams`,
  their combinations numbered within the shard.

6 bytes a candidate and 6 a position, plus the chunk's combination keys. Beside
each shard, ``NNNNN.ids.npy`` holds the global number (int32) of each of its combinations:
the keys interned in shard order, which numbers them as the in-memory build does.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import struct
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..datasets.corpus import Corpus
from ..errors import ShapemillError
from ..files import atomic_path, output_target
from ..patterns.candidates import GROUP_NAMES, Vocabulary, combination_rows
from ..patterns.features import FEATURE_LEVELS
from ..patterns.near import NEAR_FROM, NEAR_TO
from ..workers import interruptible
from . import positions
from .positions import (
    Chunk,
    Interner,
    Replay,
    candidates_per_position,
    chunk_plan,
    chunk_teams,
    distinct_combinations,
    pattern_bits,
)
from .rate import SWEEP, Counts, FitState, _pass, fisher_information, team_counts

MAGIC = b"SHAPEMILL-TEAMS\x00"
FORMAT = 1
_HEADER = struct.Struct("<16s16sIIqqqI4x")
HEADER_BYTES = _HEADER.size  # 72
#: Blocks of a shard's pass: fixed, so that its sums do not depend on the threads
#: or on the worker that computes them.
SHARD_BLOCKS = 4
#: The global numbers of the combinations are ``int32`` files beside the shards, apart from
#: the packed candidates: an ``Interner`` of 17 bits numbers up to 2**31 of them.
GLOBAL_ID_BITS = 17


class ShardError(ShapemillError):
    """A shard or a work folder that is damaged or another fit's: the message names it."""


class Shard(NamedTuple):
    """A shard read back: the positions' arrays and the shard's combination keys."""

    pos_start: np.ndarray  # int64[P + 1]
    team: np.ndarray  # uint16[C, 3]
    keys: np.ndarray  # int64[K]
    chosen: np.ndarray  # int32[P]
    move_number: np.ndarray  # int32[P]
    bits: int


def fit_id(identity: dict) -> bytes:
    """The 16-byte id of a fit: a digest of its identity."""
    return hashlib.blake2b(json.dumps(identity, sort_keys=True).encode(), digest_size=16).digest()


def identity_of(corpus: Corpus, vocab: Vocabulary, mask: np.ndarray) -> dict:
    """What makes two fits' shards the same: the games, the positions sampled, the
    vocabulary, the move model (its features and levels, the near twins' distances), the
    chunking and the format."""
    words = hashlib.blake2b(digest_size=16)
    for array in (vocab.pattern_ids, vocab.level_index, vocab.group, vocab.value):
        words.update(np.ascontiguousarray(array).tobytes())
    return {
        "format": FORMAT,
        "games": corpus.fingerprint(),
        "positions": int(mask.sum()),
        "sample": hashlib.blake2b(np.packbits(mask).tobytes(), digest_size=16).hexdigest(),
        "vocabulary": words.hexdigest(),
        "model": [list(GROUP_NAMES), list(FEATURE_LEVELS), NEAR_FROM, NEAR_TO],
        "chunk_positions": positions.CHUNK_POSITIONS,
    }


def write_shard(path: Path, chunk: Chunk, fid: bytes, bits: int) -> int:
    """Write ``chunk`` as a shard at ``path`` (atomically); returns its bytes."""
    if len(chunk.sizes) and max(int(chunk.sizes.max()), int(chunk.move_number.max())) > 0xFFFF:
        raise ShapemillError(f"{path}: a position past the shard format's 65,535 moves or candidates")
    arrays = [
        np.ascontiguousarray(chunk.keys, "<i8"),
        np.ascontiguousarray(chunk.sizes, "<u2"),
        np.ascontiguousarray(chunk.chosen, "<u2"),
        np.ascontiguousarray(chunk.move_number, "<u2"),
        np.ascontiguousarray(chunk.team, "<u2"),
    ]
    crc = 0
    for a in arrays:
        crc = zlib.crc32(a.data.cast("B"), crc)
    header = _HEADER.pack(MAGIC, fid, FORMAT, bits, len(chunk.sizes), len(chunk.team), len(chunk.keys), crc)
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        f.write(header)
        for a in arrays:
            f.write(a.data.cast("B"))
    return HEADER_BYTES + sum(a.nbytes for a in arrays)


def _header(path: Path, data: bytes | np.ndarray, fid: bytes) -> tuple[int, int, int, int, int]:
    """The header's (bits, positions, candidates, combinations, crc), checked against the fit."""
    if len(data) < HEADER_BYTES:
        raise ShardError(f"{path}: damaged shard (shorter than its header); remove the work folder to rebuild it")
    magic, got, version, bits, p, c, k, crc = _HEADER.unpack(bytes(data[:HEADER_BYTES]))
    if magic != MAGIC:
        raise ShardError(f"{path}: not a shard of shapemill's teams")
    if version != FORMAT:
        raise ShardError(f"{path}: a shard of format {version}, not {FORMAT}")
    if got != fid:
        raise ShardError(f"{path}: a shard of another fit (other games, positions or patterns); "
                         "remove the work folder or give another --work-dir")
    return bits, p, c, k, crc


def read_shard(path: Path, fid: bytes, verify: bool = True) -> Shard:
    """The shard at ``path``, checked: its header is this fit's, its length and (``verify``)
    its checksum right. Unverified, it is mapped rather than read: the sweeps, whose shards
    were verified when the run started, read them at the speed of the page cache."""
    try:
        data = np.fromfile(path, dtype=np.uint8) if verify else np.asarray(np.memmap(path, dtype=np.uint8, mode="r"))
    except (OSError, ValueError) as exc:  # ValueError: an empty file cannot be mapped
        raise ShardError(f"{path}: cannot read the shard: {getattr(exc, 'strerror', None) or exc}") from None
    data.flags.writeable = False  # read or mapped, the same read-only arrays: one compiled kernel for both
    bits, p, c, k, crc = _header(path, data, fid)
    if len(data) != HEADER_BYTES + 8 * k + 6 * p + 6 * c:
        raise ShardError(f"{path}: damaged shard ({len(data):,} bytes, its header says "
                         f"{HEADER_BYTES + 8 * k + 6 * p + 6 * c:,}); remove the work folder to rebuild it")
    if verify and zlib.crc32(data[HEADER_BYTES:]) != crc:
        raise ShardError(f"{path}: damaged shard (its checksum does not match); remove the work folder to rebuild it")
    at = HEADER_BYTES
    keys = data[at : at + 8 * k].view("<i8")
    at += 8 * k
    small = data[at : at + 6 * p].view("<u2")
    team = data[at + 6 * p :].view("<u2").reshape(c, 3)
    pos_start = np.zeros(p + 1, dtype=np.int64)
    np.cumsum(small[:p], out=pos_start[1:])
    return Shard(pos_start, team, keys, small[p : 2 * p].astype(np.int32), small[2 * p :].astype(np.int32), bits)


def read_keys(path: Path, fid: bytes) -> np.ndarray:
    """The combination keys of the shard at ``path`` (its header checked; the rest is
    checked when the shard is read)."""
    try:
        with open(path, "rb") as f:
            head = f.read(HEADER_BYTES)
            _, _, _, k, _ = _header(path, head, fid)
            keys = np.frombuffer(f.read(8 * k), dtype="<i8")
    except OSError as exc:
        raise ShardError(f"{path}: cannot read the shard: {exc.strerror or exc}") from None
    if len(keys) != k:
        raise ShardError(f"{path}: damaged shard (shorter than its header says); remove the work folder to rebuild it")
    return keys


def shard_bytes(corpus: Corpus, mask: np.ndarray) -> float:
    """About how many bytes the shards of the positions ``mask`` take (the ids files included)."""
    n = int(mask.sum())
    chunk = positions.CHUNK_POSITIONS
    chunks = max(1, -(-n // chunk))
    candidates = float(candidates_per_position(corpus, mask).sum())
    keys = min(candidates, chunks * distinct_combinations(min(n, chunk))) * 12
    return candidates * 6 + n * 6 + keys + chunks * HEADER_BYTES


class WorkFolder:
    """A fit's work folder: its identity, shards, combination ids and last gammas."""

    def __init__(self, path: str | os.PathLike, identity: dict) -> None:
        # a symbolic link is worked through (its target holds the shards; a loop refused), and stays
        self.linked = Path(path).is_symlink()
        self.path, self.identity, self.fid = output_target(path), identity, fit_id(identity)

    def open(self) -> None:
        """Create the folder, or check that it holds this fit's work."""
        marker = self.path / "identity.json"
        if self.path.exists() and any(self.path.iterdir()):
            try:
                held = json.loads(marker.read_text())
            except (OSError, ValueError):
                raise ShardError(f"{self.path}: a folder that is not a fit's work folder; "
                                 "give another --work-dir") from None
            if held != self.identity:
                raise ShardError(f"{self.path}: the work folder of another fit (other games, positions or patterns); "
                                 "remove it or give another --work-dir")
            return
        self.path.mkdir(parents=True, exist_ok=True)
        with atomic_path(marker) as tmp:
            tmp.write_text(json.dumps(self.identity, sort_keys=True))

    def shard(self, i: int) -> Path:
        return self.path / f"{i:05d}.teams"

    def ids(self, i: int) -> Path:
        return self.path / f"{i:05d}.ids.npy"

    def held_bytes(self) -> int:
        """The bytes already in the folder."""
        return sum(f.stat().st_size for f in self.path.iterdir() if f.is_file()) if self.path.exists() else 0

    def state(self) -> FitState | None:
        """The gammas after the last finished sweep, if a fit saved them."""
        path = self.path / "fit.npz"
        if not path.exists():
            return None
        try:
            with np.load(path) as saved:
                cycle = (int(saved["phase"]), saved["anchor"].copy(), float(saved["floor"])) \
                    if "phase" in saved.files else ()  # saved before the fit was accelerated: a cycle starts
                state = FitState(saved["gamma"].copy(), saved["objective"].tolist(), float(saved["previous"]), *cycle)
        except (OSError, ValueError, KeyError, EOFError) as exc:
            raise ShardError(f"{path}: damaged saved fit ({exc}); remove it to start the sweeps again") from None
        return state

    def save_state(self, state: FitState) -> None:
        """Keep the gammas after a sweep (atomically: a kill or a full disk leaves the last ones)."""
        with atomic_path(self.path / "fit.npz") as tmp, open(tmp, "wb") as f:
            np.savez(f, gamma=state.gamma, objective=np.array(state.objective), previous=state.previous,
                     phase=state.phase, anchor=state.anchor, floor=state.floor)

    def remove(self) -> None:
        """Remove the folder; one a symbolic link names is emptied, so that the link still leads somewhere."""
        if not self.linked:
            shutil.rmtree(self.path, ignore_errors=True)
            return
        for entry in self.path.iterdir():
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)


def build_chunk(corpus: Corpus, vocab: Vocabulary, mask: np.ndarray, replay: Replay, games: np.ndarray,
                path: str, fid: bytes) -> int:
    """Build the teams of ``games`` and write them as the shard ``path``; its bytes."""
    return write_shard(Path(path), chunk_teams(corpus, vocab, mask, replay, games), fid, pattern_bits(vocab.size))


class Built(NamedTuple):
    """The shards of a fit, built and numbered: the global combinations' rows."""

    n_shards: int
    combos: np.ndarray
    positions: int
    bytes: int


def build_shards(
    work: WorkFolder, corpus: Corpus, vocab: Vocabulary, mask: np.ndarray,
    progress: Callable[[int], None] | None = None,
    run_chunks: Callable[[list[tuple[int, np.ndarray]]], None] | None = None,
) -> Built:
    """The shards of the positions ``mask`` in ``work``: the missing ones built (by
    ``run_chunks(todo)`` when given, a Dask map, else here, a chunk after the other),
    then every shard's combinations numbered in shard order. ``progress(games)`` after
    each chunk built or found."""
    replay = Replay.of(corpus, mask)
    plan = chunk_plan(corpus, replay)
    todo = []
    for i, games in enumerate(plan):
        if work.shard(i).exists():
            if progress is not None:
                progress(len(games))
        else:
            todo.append((i, games))
    if run_chunks is not None:
        run_chunks(todo)
    else:
        for i, games in todo:
            build_chunk(corpus, vocab, mask, replay, games, str(work.shard(i)), work.fid)
            if progress is not None:
                progress(len(games))
    interner = Interner(GLOBAL_ID_BITS)  # the shards pack chunk numbers: the global ones need no room there
    for i in range(len(plan)):
        ids = interner.ids(read_keys(work.shard(i), work.fid)).astype(np.int32)
        if not _ids_match(work.ids(i), ids):
            with atomic_path(work.ids(i)) as tmp, open(tmp, "wb") as f:
                np.save(f, ids)
    size = sum(work.shard(i).stat().st_size + work.ids(i).stat().st_size for i in range(len(plan)))
    return Built(len(plan), combination_rows(interner.keys, vocab), int(mask.sum()), size)


def _ids_match(path: Path, ids: np.ndarray) -> bool:
    try:
        return np.array_equal(np.load(path), ids)
    except (OSError, ValueError, EOFError):
        return False


def read_ids(path: Path, n: int) -> np.ndarray:
    """The global numbers of a shard's ``n`` combinations."""
    try:
        ids = np.load(path)
    except (OSError, ValueError, EOFError) as exc:
        raise ShardError(f"{path}: damaged combination numbers ({exc}); remove the work folder to rebuild it") from None
    if ids.shape != (n,):
        raise ShardError(f"{path}: damaged combination numbers ({len(ids):,} for {n:,} combinations)")
    return ids


class ShardSums(NamedTuple):
    """A shard pass's result, sparse: the log-likelihood and the sums at ``index``."""

    ll: float
    index: np.ndarray
    values: np.ndarray


def load(work_path: str, fid: bytes, i: int, verify: bool = False) -> tuple[Shard, np.ndarray]:
    """Shard ``i`` of the work folder ``work_path`` and its global combination numbers."""
    folder = Path(work_path)
    shard = read_shard(folder / f"{i:05d}.teams", fid, verify)
    return shard, read_ids(folder / f"{i:05d}.ids.npy", len(shard.keys))


def shard_pass(work_path: str, fid: bytes, i: int, gamma: np.ndarray, cs: np.ndarray, by_pattern: bool) -> ShardSums:
    """``_pass`` over shard ``i``: sums by feature (``by_pattern``) or by global combination."""
    shard, ids = load(work_path, fid, i)
    n_out = len(gamma) if by_pattern else len(ids)
    ll, _, acc = interruptible(SWEEP, _pass, shard.pos_start, shard.team, shard.bits, shard.chosen, gamma, cs[ids],
                               SHARD_BLOCKS, by_pattern, n_out)
    if by_pattern:
        index = np.flatnonzero(acc)
        return ShardSums(ll, index, acc[index])
    return ShardSums(ll, ids, acc)


def shard_counts(work_path: str, fid: bytes, i: int, n: int) -> tuple[Counts, np.ndarray]:
    """Shard ``i``'s :class:`Counts` (combinations numbered within it) and its global numbers;
    the shard's checksum verified (the counts are the first pass of every run)."""
    shard, ids = load(work_path, fid, i, verify=True)
    return team_counts(shard.pos_start, shard.team, shard.bits, shard.chosen, n, len(ids)), ids


def shard_information(work_path: str, fid: bytes, i: int, combos: np.ndarray | Vocabulary, first: int,
                      gamma: np.ndarray, cs: np.ndarray, none: int) -> ShardSums:
    """:func:`fisher_information` over shard ``i``, sparse; its combinations' rows taken
    from the fit's ``combos``, or made from its keys with the vocabulary (the same rows,
    for a worker that has not the fit's)."""
    shard, ids = load(work_path, fid, i)
    args = (shard.pos_start, shard.team, shard.bits)
    local = cs[ids]
    rows = combination_rows(shard.keys, combos) if isinstance(combos, Vocabulary) else combos[ids]
    _, total, _ = interruptible(SWEEP, _pass, *args, shard.chosen, gamma, local, SHARD_BLOCKS, False, len(ids))
    info = interruptible(SWEEP, fisher_information, *args, rows, first, gamma, local, total, SHARD_BLOCKS, none)
    index = np.flatnonzero(info)
    return ShardSums(0.0, index, info[index])


def add_counts(total: Counts, part: Counts, ids: np.ndarray) -> None:
    """Add a shard's counts to ``total``, its combinations renumbered by ``ids``."""
    total.wins[:] += part.wins
    total.as_pattern[:] += part.as_pattern
    total.per_combo[ids] += part.per_combo
    total.won[ids] += part.won


class OnDisk:
    """The competitions of a work folder's shards, streamed one shard at a time
    (:class:`~shapemill.miner.rate.Competitions`); sums reduced in shard order."""

    def __init__(self, work: WorkFolder, built: Built, none: int, first: int) -> None:
        self.work, self.n_shards, self.combos = work, built.n_shards, built.combos
        self.none, self.first_tactical, self.n_positions = none, first, built.positions
        self.where = (str(work.path), work.fid)
        self.rows_from: np.ndarray | Vocabulary = self.combos  # where shard_information gets its rows

    def results(self, task: Callable, *args) -> Iterator:
        """``task(work, fid, i, *args)`` for each shard, in shard order."""
        return (task(*self.where, i, *args) for i in range(self.n_shards))

    def counts(self) -> Counts:
        n, k = self.none + 1, len(self.combos)
        total = Counts(np.zeros(n), np.zeros(n, np.int64), np.zeros(k, np.int64), np.zeros(k, np.int64))
        for part, ids in self.results(shard_counts, n):
            add_counts(total, part, ids)
        return total

    def _reduce(self, parts: Iterator[ShardSums], n: int) -> tuple[float, np.ndarray]:
        ll, acc = 0.0, np.zeros(n)
        for part in parts:
            ll += part.ll
            acc[part.index] += part.values
        return ll, acc

    def sweep_pass(self, gamma: np.ndarray, cs: np.ndarray, by_pattern: bool) -> tuple[float, np.ndarray]:
        return self._reduce(self.results(shard_pass, gamma, cs, by_pattern), len(gamma) if by_pattern else len(cs))

    def information(self, gamma: np.ndarray, cs: np.ndarray) -> np.ndarray:
        parts = self.results(shard_information, self.rows_from, self.first_tactical, gamma, cs, self.none)
        info = self._reduce(parts, len(gamma))[1]
        info[self.none] = 0.0
        return info

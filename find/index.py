"""The search index of a games table: what one replay of every game says about it.

Per game and point, the first position where each colour stood there and the first
where a stone there had been captured; per (colour, point), bitsets over the games:
where that colour ever stood there, and where it came only late (at move 10, 20, ...
or after); per point, where it was filled for good early (before those moves). ``docs/find.md`` says
how ``find`` prunes with them. The index of ``games.parquet`` is saved beside it as
``games.parquet.findex`` (one file: a JSON header, then the arrays, read with
``mmap`` so a search touches only the games it looks at); a partitioned dataset has
one per part, so adding a part indexes only the new games.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..files import atomic_path
from ..tables import TableError, check_table, read_table
from .first import CLEARED, NEVER
from .records import GameArrays, GameBits

#: Format of the index file; bumped when its arrays change.
INDEX_VERSION = 4
#: The index file beside a games table.
SUFFIX = ".findex"
#: The first bytes of an index file.
MAGIC = b"SMFINDEX"
#: Arrays start on this boundary in the file.
ALIGN = 64
#: Games table columns the search reports and filters on.
INFO_COLUMNS = ["id", "source", "board_size", "black", "white", "black_rank", "white_rank",
                "date", "result", "winner", "komi", "handicap", "rules"]
#: Move numbers splitting the time bitsets: a stone arriving at one or later and an
#: empty point filled for good before it rule a game out (roughly doubling: openings
#: and middle games alike).
THRESHOLDS = (10, 20, 40, 80, 160)
#: Games replayed at a time when an index is written (a multiple of 64: whole bitset words).
BUILD_CHUNK = 4096
#: Of ``INFO_COLUMNS``, those every search reads (the board size it filters on, the hits'
#: ids, the continuation table's dates and winners): read together when an index is
#: loaded, the others (sources, players, ranks, results) when first asked for.
SEARCH_COLUMNS = ["id", "board_size", "date", "winner"]
#: Games table columns the index is replayed from.
REPLAY_COLUMNS = ["board_size", "first_color", "moves", "setup_black", "setup_white"]
#: The arrays of an index, saved in this order.
ARRAYS = ("moves", "offsets", "first_color", "setup_pt", "setup_col", "setup_ptr", "first", "ever", "late",
          "filled", "fill")


class GameInfo:
    """A games table's descriptive columns (``INFO_COLUMNS``), those not given read
    from the table file when first asked for: a search reads what its filters and its
    output use (a plain ``find``: ``SEARCH_COLUMNS``, not the sources and names)."""

    def __init__(self, columns: pa.Table, path: Path | None = None) -> None:
        self._columns = {name: columns[name] for name in columns.column_names}
        self._path = path

    def __getitem__(self, name: str) -> pa.ChunkedArray:
        return self.select([name])[name]

    def select(self, names: list[str]) -> pa.Table:
        """The columns ``names`` as a table (those not read yet are read now, together)."""
        missing = [name for name in names if name not in self._columns]
        if missing and self._path is not None:
            read, _ = read_table(self._path, "games", columns=missing)
            self._columns.update((name, read[name]) for name in missing)
        return pa.table({name: self._columns[name] for name in names})


@dataclass
class GameIndex:
    """One games table's games as flat arrays, with the index the search prunes by.

    ``size`` is the board size indexed (the largest in the table); games of other
    sizes are never matched. ``info`` holds the table's descriptive columns.
    """

    size: int
    info: GameInfo
    moves: np.ndarray  # int16[total]
    offsets: np.ndarray  # int64[n + 1]
    first_color: np.ndarray  # int8[n]
    setup_pt: np.ndarray  # int16[...]
    setup_col: np.ndarray  # int8[...]
    setup_ptr: np.ndarray  # int64[n + 1]
    first: np.ndarray  # uint16[n, size*size, 3]: black, white, cleared
    ever: np.ndarray  # uint64[words, size*size, 2]
    late: np.ndarray  # uint64[words, len(THRESHOLDS), size*size, 2]
    filled: np.ndarray  # uint64[words, len(THRESHOLDS), size*size]
    fill: np.ndarray  # float64[size*size]: the mean first move that fills each point

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def words(self) -> int:
        """uint64 words of a bitset over the games."""
        return self.ever.shape[0]

    def bitset(self, mask: np.ndarray) -> np.ndarray:
        """A boolean array over the games as the index's bitset."""
        return _pack(mask[None, :], self.words)[0]

    @property
    def games(self) -> GameArrays:
        """The games as the kernels replay them."""
        return GameArrays(self.moves, self.offsets, self.first_color, self.setup_pt, self.setup_col, self.setup_ptr)

    def bits(self, keep: np.ndarray) -> GameBits:
        """The index's bitsets, a row per word, with ``keep`` the bitset of the games a
        search keeps."""
        words = self.words
        rows = (self.ever, self.late, self.filled)
        return GameBits(*(a.reshape(words, -1) for a in rows), keep)


def _pack(bits: np.ndarray, words: int) -> np.ndarray:
    """Rows of booleans over games -> rows of uint64 bitsets (game ``g`` is bit ``g % 64`` of word ``g // 64``)."""
    rows = bits.shape[0]
    padded = np.zeros((rows, words * 64), dtype=bool)
    padded[:, : bits.shape[1]] = bits
    return np.packbits(padded, axis=1, bitorder="little").view("<u8").reshape(rows, words)


def _bitsets(first: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The bitsets over games of ``first``'s games (see :func:`kernels.prune`), word-major
    so that one word's bits for every point sit together."""
    n = len(first)
    words = (n + 63) // 64

    def pack(mask: np.ndarray) -> np.ndarray:
        bits = _pack(mask.reshape(n, int(np.prod(mask.shape[1:]))).T, words)  # n may be 0
        return np.ascontiguousarray(bits.T).reshape((words,) + mask.shape[1:])

    arrival = first[:, :, :2]
    fa = arrival.min(axis=2)
    forever = first[:, :, CLEARED] == NEVER
    ever = pack(arrival != NEVER)
    late = np.stack([pack((arrival >= t) & (arrival != NEVER)) for t in THRESHOLDS], axis=1)
    filled = np.stack([pack((fa < t) & forever) for t in THRESHOLDS], axis=1)
    return ever, late, filled


def _fill_sum(first: np.ndarray) -> np.ndarray:
    """Per point, the sum over the games of the first move that fills it (``NEVER``
    when none): the order in which the search asks about a region's empty points."""
    return first[:, :, :2].min(axis=2).sum(axis=0, dtype=np.float64)


def _list_column(table: pa.Table, name: str, dtype) -> tuple[np.ndarray, np.ndarray]:
    col = table[name].combine_chunks() if table.num_rows else pa.array([], pa.list_(pa.int16()))
    return np.asarray(col.values, dtype=dtype), np.asarray(col.offsets, dtype=np.int64)


def build_index(table: pa.Table, size: int | None = None) -> GameIndex:
    """Replay every game of a games table (with its ``moves``, ``first_color``,
    ``setup_*`` and info columns) into a :class:`GameIndex` of board ``size``
    (default: the largest in the table)."""
    sizes = table["board_size"].to_numpy().astype(np.int64) if table.num_rows else np.zeros(0, np.int64)
    if size is None:
        size = int(sizes.max()) if len(sizes) else 19
    moves, offsets = _list_column(table, "moves", np.int16)
    first_color = np.where(pc.equal(table["first_color"], "w").to_numpy(zero_copy_only=False), 2, 1).astype(np.int8)
    sb, sb_off = _list_column(table, "setup_black", np.int16)
    sw, sw_off = _list_column(table, "setup_white", np.int16)
    n = table.num_rows
    counts = np.diff(sb_off) + np.diff(sw_off)
    setup_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    setup_pt = np.empty(int(setup_ptr[-1]), dtype=np.int16)
    setup_col = np.empty(int(setup_ptr[-1]), dtype=np.int8)
    for g in np.flatnonzero(counts):
        black, white = sb[sb_off[g] : sb_off[g + 1]], sw[sw_off[g] : sw_off[g + 1]]
        at = setup_ptr[g]
        setup_pt[at : at + len(black) + len(white)] = np.concatenate([black, white])
        setup_col[at : at + len(black)] = 1
        setup_col[at + len(black) : at + len(black) + len(white)] = 2
    from .kernels import index_games  # numba: loaded only when games are replayed

    points = size * size
    first = np.full((n, points, 3), NEVER, dtype=np.uint16)
    same = np.flatnonzero(sizes == size)
    # games of another size stay unindexed (NEVER everywhere): no query of this size matches them
    if len(same) == n:
        index_games(size, GameArrays(moves, offsets, first_color, setup_pt, setup_col, setup_ptr), first)
    else:
        for g in same:
            sl, st = slice(g, g + 1), slice(setup_ptr[g], setup_ptr[g + 1])
            one = GameArrays(moves[offsets[g] : offsets[g + 1]], np.array([0, offsets[g + 1] - offsets[g]]),
                             first_color[sl], setup_pt[st], setup_col[st], np.array([0, setup_ptr[g + 1] - setup_ptr[g]]))
            index_games(size, one, first[sl])
    ever, late, filled = _bitsets(first)
    for built in (offsets, first_color, setup_pt, setup_col, setup_ptr, first, ever, late, filled):
        built.flags.writeable = False  # as a saved index's mapped arrays are: one compiled search for both
    info = GameInfo(table.select(INFO_COLUMNS) if all(c in table.column_names for c in INFO_COLUMNS) else pa.table({}))
    return GameIndex(size, info, moves, offsets, first_color, setup_pt, setup_col,
                     setup_ptr, first, ever, late, filled, _fill_sum(first) / max(n, 1))


def index_path(table_path: str | os.PathLike) -> Path:
    """Where the index of a games table file lives."""
    return Path(str(table_path) + SUFFIX)


def _stamp(table_path: Path) -> dict:
    st = table_path.stat()
    return {"bytes": st.st_size, "mtime_ns": st.st_mtime_ns}


def _layout(size: int, n: int, total_moves: int, total_setup: int) -> tuple[dict[str, dict], int]:
    """Where each array of the index of ``n`` games lies in its file (dtype, shape,
    offset from the first array, each on an ``ALIGN`` boundary), and their bytes in all."""
    points, words = size * size, (n + 63) // 64
    shapes = {"moves": ((total_moves,), np.int16), "offsets": ((n + 1,), np.int64), "first_color": ((n,), np.int8),
              "setup_pt": ((total_setup,), np.int16), "setup_col": ((total_setup,), np.int8),
              "setup_ptr": ((n + 1,), np.int64), "first": ((n, points, 3), np.uint16),
              "ever": ((words, points, 2), np.uint64),
              "late": ((words, len(THRESHOLDS), points, 2), np.uint64),
              "filled": ((words, len(THRESHOLDS), points), np.uint64),
              "fill": ((points,), np.float64)}
    arrays, at = {}, 0
    for name in ARRAYS:
        shape, dtype = shapes[name]
        arrays[name] = {"dtype": np.dtype(dtype).str, "shape": list(shape), "offset": at}
        at += -(-int(np.prod(shape)) * np.dtype(dtype).itemsize // ALIGN) * ALIGN
    return arrays, at


def write_index(table_path: str | os.PathLike, progress: Callable[[int], None] | None = None) -> tuple[Path, int]:
    """Build the index of a games table file chunk by chunk straight into its file
    beside the table (atomically), so memory stays near one chunk's worth whatever
    the table's size; ``progress`` hears the games of each chunk. Returns the file and
    the number of games."""
    table_path = Path(table_path)
    check_table(table_path, "games", REPLAY_COLUMNS)
    sizes_etc, _ = read_table(table_path, "games", columns=["board_size", "n_moves", "setup_black", "setup_white"])
    n = sizes_etc.num_rows
    size = int(pc.max(sizes_etc["board_size"]).as_py() or 19) if n else 19
    total_moves = int(pc.sum(sizes_etc["n_moves"]).as_py() or 0)
    total_setup = int(sum(pc.sum(pc.list_value_length(sizes_etc[c])).as_py() or 0 for c in ("setup_black", "setup_white")))
    del sizes_etc
    points = size * size
    arrays, at = _layout(size, n, total_moves, total_setup)
    header = {"version": INDEX_VERSION, "size": size, "table": _stamp(table_path), "arrays": arrays}
    raw = json.dumps(header).encode()
    start = -(-(len(MAGIC) + 8 + len(raw)) // ALIGN) * ALIGN
    done = {"games": 0, "moves": 0, "setup": 0}
    fill = np.zeros(points, dtype=np.float64)
    out = index_path(table_path)

    def put(f, name: str, a: np.ndarray, element: int) -> None:
        f.seek(start + header["arrays"][name]["offset"] + element * a.itemsize)
        f.write(np.ascontiguousarray(a).tobytes())

    with atomic_path(out) as tmp, open(tmp, "wb") as f:
        f.write(MAGIC + len(raw).to_bytes(8, "little") + raw)
        f.truncate(start + at)
        batches = pq.ParquetFile(table_path).iter_batches(batch_size=BUILD_CHUNK, columns=REPLAY_COLUMNS)
        for batch in batches:
            chunk = build_index(pa.Table.from_batches([batch]), size)
            g0, m0, s0 = done["games"], done["moves"], done["setup"]
            put(f, "moves", chunk.moves, m0)
            put(f, "offsets", chunk.offsets[:-1] + m0, g0)
            put(f, "first_color", chunk.first_color, g0)
            put(f, "setup_pt", chunk.setup_pt, s0)
            put(f, "setup_col", chunk.setup_col, s0)
            put(f, "setup_ptr", chunk.setup_ptr[:-1] + s0, g0)
            put(f, "first", chunk.first, g0 * points * 3)
            fill += chunk.fill * len(chunk)
            for name in ("ever", "late", "filled"):
                a = getattr(chunk, name)
                put(f, name, a, g0 // 64 * (a.size // len(a)))
            done = {"games": g0 + len(chunk), "moves": m0 + len(chunk.moves), "setup": s0 + len(chunk.setup_pt)}
            if progress is not None:
                progress(len(chunk))
        if done["moves"] != total_moves:
            raise TableError(f"{table_path}: n_moves does not match the moves column")
        put(f, "offsets", np.array([done["moves"]], dtype=np.int64), n)
        put(f, "setup_ptr", np.array([done["setup"]], dtype=np.int64), n)
        put(f, "fill", fill / max(n, 1), 0)
    return out, n


def load_index(table_path: str | os.PathLike) -> GameIndex | None:
    """The saved index of a games table, or None when there is none or it is stale
    (the table was rewritten since)."""
    table_path = Path(table_path)
    path = index_path(table_path)
    try:
        with open(path, "rb") as f:
            if f.read(len(MAGIC)) != MAGIC:
                return None
            length = int.from_bytes(f.read(8), "little")
            header = json.loads(f.read(length))
    except (OSError, ValueError):
        return None
    if header.get("version") != INDEX_VERSION or header.get("table") != _stamp(table_path):
        return None
    start = -(-(len(MAGIC) + 8 + length) // ALIGN) * ALIGN
    mapped = np.memmap(path, dtype=np.uint8, mode="r")
    arrays = {}
    for name, spec in header["arrays"].items():
        dtype = np.dtype(spec["dtype"])
        count = int(np.prod(spec["shape"]))
        at = start + spec["offset"]
        arrays[name] = mapped[at : at + count * dtype.itemsize].view(dtype).reshape(spec["shape"])
    check_table(table_path, "games", INFO_COLUMNS)
    searched, _ = read_table(table_path, "games", columns=SEARCH_COLUMNS)
    return GameIndex(size=header["size"], info=GameInfo(searched, table_path), **arrays)


def index_table(table_path: str | os.PathLike) -> tuple[GameIndex, bool]:
    """The index of a games table file: the saved one when fresh, else built now
    (not saved). The flag says whether it was built."""
    found = load_index(table_path)
    if found is not None:
        return found, False
    return index_in_memory(table_path), True


def index_in_memory(table_path: str | os.PathLike) -> GameIndex:
    """The index of a games table file, built now in memory (not saved)."""
    table, _ = read_table(table_path, "games", columns=INFO_COLUMNS + REPLAY_COLUMNS[1:])
    return build_index(table)


def table_games(table_path: str | os.PathLike) -> int:
    """The number of games of a games table file, from its footer."""
    return pq.ParquetFile(table_path).metadata.num_rows

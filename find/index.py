"""The search index of a games table: what one replay of every game says about it.

Per game and point, the first position where each colour stood there, whether a
stone was ever captured there, and the game's first capture; per (colour, point),
the bitset of the games where that colour ever stood there. ``docs/find.md`` says
how ``find`` prunes with them. The index of ``games.parquet`` is saved beside it as
``games.parquet.findex`` (one file: a JSON header, then the arrays, read with
``mmap`` so a search touches only the games it looks at); a partitioned dataset has
one per part, so adding a part indexes only the new games.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..files import atomic_path
from ..patterns.tables import read_table
from .kernels import NEVER, index_games

#: Format of the index file; bumped when its arrays change.
INDEX_VERSION = 1
#: The index file beside a games table.
SUFFIX = ".findex"
#: The first bytes of an index file.
MAGIC = b"SMFINDEX"
#: Arrays start on this boundary in the file.
ALIGN = 64
#: Games table columns the search reports and filters on.
INFO_COLUMNS = ["id", "source", "board_size", "black", "white", "black_rank", "white_rank",
                "date", "result", "winner"]
#: Games sampled for the typical order in which points fill up.
FILL_SAMPLE = 2000
#: The arrays of an index, saved in this order.
ARRAYS = ("moves", "offsets", "first_color", "setup_pt", "setup_col", "setup_ptr",
          "first", "captured", "first_capture", "ever")


@dataclass
class GameIndex:
    """One games table's games as flat arrays, with the index the search prunes by.

    ``size`` is the board size indexed (the largest in the table); games of other
    sizes are never matched. ``info`` holds the table's descriptive columns.
    """

    size: int
    info: pa.Table
    moves: np.ndarray  # int16[total]
    offsets: np.ndarray  # int64[n + 1]
    first_color: np.ndarray  # int8[n]
    setup_pt: np.ndarray  # int16[...]
    setup_col: np.ndarray  # int8[...]
    setup_ptr: np.ndarray  # int64[n + 1]
    first: np.ndarray  # uint16[n, size*size, 2]
    captured: np.ndarray  # bool[n, size*size]
    first_capture: np.ndarray  # uint16[n]
    ever: np.ndarray  # uint64[2, size*size, words]
    _fill: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def words(self) -> int:
        """uint64 words of a bitset over the games."""
        return self.ever.shape[2]

    def typical_fill(self) -> np.ndarray:
        """Per point, the mean first move that fills it in (a sample of) the games:
        the order in which the pruning asks about a region's empty points."""
        if self._fill is None:
            sample = np.asarray(self.first[:: max(1, len(self) // FILL_SAMPLE)]).min(axis=2).astype(np.float64)
            self._fill = sample.mean(axis=0) if len(sample) else np.zeros(self.first.shape[1])
        return self._fill

    def bitset(self, mask: np.ndarray) -> np.ndarray:
        """A boolean array over the games as the index's bitset."""
        return _pack(mask[None, :], self.words)[0]


def _pack(bits: np.ndarray, words: int) -> np.ndarray:
    """Rows of booleans over games -> rows of uint64 bitsets (game ``g`` is bit ``g % 64`` of word ``g // 64``)."""
    rows = bits.shape[0]
    padded = np.zeros((rows, words * 64), dtype=bool)
    padded[:, : bits.shape[1]] = bits
    return np.packbits(padded, axis=1, bitorder="little").view("<u8").reshape(rows, words)


def _list_column(table: pa.Table, name: str, dtype) -> tuple[np.ndarray, np.ndarray]:
    col = table[name].combine_chunks() if table.num_rows else pa.array([], pa.list_(pa.int16()))
    return np.asarray(col.values, dtype=dtype), np.asarray(col.offsets, dtype=np.int64)


def build_index(table: pa.Table) -> GameIndex:
    """Replay every game of a games table (with its ``moves``, ``first_color``,
    ``setup_*`` and info columns) into a :class:`GameIndex`."""
    sizes = table["board_size"].to_numpy().astype(np.int64) if table.num_rows else np.zeros(0, np.int64)
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
    points = size * size
    first = np.full((n, points, 2), NEVER, dtype=np.uint16)
    captured = np.zeros((n, points), dtype=bool)
    first_capture = np.full(n, NEVER, dtype=np.uint16)
    same = np.flatnonzero(sizes == size)
    # games of another size stay unindexed (NEVER everywhere): no query of this size matches them
    if len(same) == n:
        index_games(size, moves, offsets, first_color, setup_pt, setup_col, setup_ptr, first, captured, first_capture)
    else:
        for g in same:
            sl = slice(g, g + 1)
            index_games(size, moves[offsets[g] : offsets[g + 1]], np.array([0, offsets[g + 1] - offsets[g]]),
                        first_color[sl], setup_pt[setup_ptr[g] : setup_ptr[g + 1]], setup_col[setup_ptr[g] : setup_ptr[g + 1]],
                        np.array([0, setup_ptr[g + 1] - setup_ptr[g]]), first[sl], captured[sl], first_capture[sl])
    words = (n + 63) // 64
    ever = np.stack([_pack((first[:, :, c] != NEVER).T, words) for c in range(2)])
    return GameIndex(size, table.select(INFO_COLUMNS), moves, offsets, first_color, setup_pt, setup_col,
                     setup_ptr, first, captured, first_capture, ever)


def index_path(table_path: str | os.PathLike) -> Path:
    """Where the index of a games table file lives."""
    return Path(str(table_path) + SUFFIX)


def _stamp(table_path: Path) -> dict:
    st = table_path.stat()
    return {"bytes": st.st_size, "mtime_ns": st.st_mtime_ns}


def save_index(index: GameIndex, table_path: str | os.PathLike) -> Path:
    """Write ``index`` beside its games table, atomically; returns its path."""
    table_path = Path(table_path)
    header = {"version": INDEX_VERSION, "size": index.size, "table": _stamp(table_path), "arrays": {}}
    at = 0
    for name in ARRAYS:
        a = getattr(index, name)
        header["arrays"][name] = {"dtype": a.dtype.str, "shape": list(a.shape), "offset": at}
        at += -(-a.nbytes // ALIGN) * ALIGN
    raw = json.dumps(header).encode()
    start = -(-(len(MAGIC) + 8 + len(raw)) // ALIGN) * ALIGN
    out = index_path(table_path)
    with atomic_path(out) as tmp, open(tmp, "wb") as f:
        f.write(MAGIC + len(raw).to_bytes(8, "little") + raw)
        for name in ARRAYS:
            f.seek(start + header["arrays"][name]["offset"])
            f.write(np.ascontiguousarray(getattr(index, name)).tobytes())
        f.truncate(start + at)
    return out


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
    info, _ = read_table(table_path, "games", columns=INFO_COLUMNS)
    return GameIndex(size=header["size"], info=info, **arrays)


def index_table(table_path: str | os.PathLike) -> tuple[GameIndex, bool]:
    """The index of a games table file: the saved one when fresh, else built now
    (not saved). The flag says whether it was built."""
    found = load_index(table_path)
    if found is not None:
        return found, False
    table, _ = read_table(table_path, "games", columns=INFO_COLUMNS + ["first_color", "moves", "setup_black", "setup_white"])
    return build_index(table), True

"""A corpus: the games a stage works on, as flat arrays ready for numba.

Every command that takes games accepts SGF files, folders, archives, games
tables and partitioned games datasets (folders written by ``scan
--partition-size``, told from SGF folders by their marker file) in any mix;
:func:`load_corpus` reads them all into one :class:`Corpus`
whose moves are a single ``int16`` array with offsets, so a worker process
inherits it without copying Python objects and a kernel reads game ``i`` as a slice.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from ..go.rules import BLACK, WHITE, new_board, place_setup, to_point
from ..go.vertices import color_code
from ..tables import TableError, dataset_parts, is_dataset, read_metadata, read_table, table_files

SPLITS = ("train", "test", "all")


@dataclass
class Corpus:
    """Games as flat arrays: game ``i``'s moves are ``moves[offsets[i]:offsets[i+1]]``."""

    ids: list[str]
    board_size: np.ndarray  # int16[n]
    first_color: np.ndarray  # int8[n]: 1 black, 2 white
    moves: np.ndarray  # int16[total], record indices, -1 pass
    offsets: np.ndarray  # int64[n + 1]
    setup_black: list[np.ndarray]
    setup_white: list[np.ndarray]

    def __len__(self) -> int:
        return len(self.ids)

    def start_position(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """The board of game ``i`` before its first move (setup stones placed)."""
        size = int(self.board_size[i])
        b, m = new_board(size)
        for color, stones in ((BLACK, self.setup_black[i]), (WHITE, self.setup_white[i])):
            for index in stones:
                place_setup(b, m, color, to_point(int(index), size))
        return b, m

    def game_moves(self, i: int) -> np.ndarray:
        """The moves of game ``i``."""
        return self.moves[self.offsets[i] : self.offsets[i + 1]]

    @property
    def n_positions(self) -> int:
        """Number of positions with a move played from them."""
        return int(self.offsets[-1])

    def fingerprint(self) -> str:
        """A digest of the games' ids in order: which games a table came from."""
        h = hashlib.blake2b(digest_size=16, person=b"shapemill-corp")
        for gid in self.ids:
            h.update(gid.encode() + b"\n")
        return h.hexdigest()


def count_games(path: str | os.PathLike, split: str) -> int:
    """The number of ``split`` games in one games table file (its split column only)."""
    table, _ = read_table(path, "games", columns=["split"])
    if split == "all":
        return table.num_rows
    return int(pa.compute.sum(pa.compute.equal(table["split"], split)).as_py() or 0)


def load_part(path: str | os.PathLike, split: str, start: int, stop: int) -> Corpus:
    """Games ``start:stop`` of the ``split`` games of one games table file."""
    return _corpus(*(col[start:stop] for col in _from_table(Path(path), split)))


def _from_table(path: Path, split: str) -> tuple[list, ...]:
    table, _ = read_table(
        path, "games", columns=["id", "board_size", "first_color", "moves", "setup_black", "setup_white", "split"]
    )
    if split != "all":
        table = table.filter(pa.compute.equal(table["split"], split))
    moves = table["moves"].combine_chunks()
    offsets = np.asarray(moves.offsets)
    flat = np.asarray(moves.values, dtype=np.int16)
    games = [flat[offsets[i] : offsets[i + 1]] for i in range(len(table))]
    sb = table["setup_black"].to_pylist()
    sw = table["setup_white"].to_pylist()
    return (
        table["id"].to_pylist(),
        table["board_size"].to_pylist(),
        [color_code(c) for c in table["first_color"].to_pylist()],
        games,
        [np.array(x, dtype=np.int16) for x in sb],
        [np.array(x, dtype=np.int16) for x in sw],
    )


def _from_sgf(paths: list[str], split: str, limit: int | None) -> tuple[list, ...]:
    from . import read_games

    cols: tuple[list, ...] = ([], [], [], [], [], [])
    for rec in read_games(paths):
        if limit is not None and len(cols[0]) >= limit:
            break
        if split != "all" and rec.split != split:
            continue
        for col, value in zip(
            cols,
            (rec.id, rec.board_size, color_code(rec.first_color), rec.moves, rec.setup_black, rec.setup_white),
        ):
            col.append(value)
    return cols


def load_corpus(
    paths: list[str | os.PathLike], split: str = "train", limit: int | None = None
) -> Corpus:
    """Read games from tables and SGF sources into one corpus.

    ``split`` keeps the ``train`` or ``test`` games (by the games table's split
    column, or the same stable hash for SGF input), or ``all``. ``limit`` keeps the
    first games only. Raises ``FileNotFoundError`` for a missing path and
    ``TableError`` for a dataset whose marker or parts cannot be used.
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    files = [table_files(p) for p in paths]
    tables = [f for fs in files for f in fs]
    others = [str(p) for p, fs in zip(paths, files) if not fs]
    for p in others:
        if not Path(p).exists():
            raise FileNotFoundError(f"{p}: no such file or folder")
    parts = [_from_table(t, split) for t in tables]
    if others:
        parts.append(_from_sgf(others, split, limit))
    ids, sizes, firsts, games, sb, sw = ([x for part in parts for x in part[k]] for k in range(6))
    if limit is not None:
        ids, sizes, firsts, games, sb, sw = (col[:limit] for col in (ids, sizes, firsts, games, sb, sw))
    return _corpus(ids, sizes, firsts, games, sb, sw)


def _corpus(ids: list, sizes: list, firsts: list, games: list, sb: list, sw: list) -> Corpus:
    lengths = np.array([len(g) for g in games], dtype=np.int64)
    return Corpus(
        ids=ids,
        board_size=np.array(sizes, dtype=np.int16),
        first_color=np.array(firsts, dtype=np.int8),
        moves=np.concatenate(games).astype(np.int16) if games else np.zeros(0, dtype=np.int16),
        offsets=np.concatenate([[0], np.cumsum(lengths)]),
        setup_black=sb,
        setup_white=sw,
    )

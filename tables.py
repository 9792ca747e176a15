"""Parquet tables with shapemill metadata, written atomically.

Every table carries key-value metadata under the ``shapemill`` key (JSON): the
shapemill version, the table kind (``games``, ``errors``, ``patterns``, ...), the
schema version of that kind, a fingerprint of the games it came from and the
parameters of the command that wrote it. :func:`read_table` refuses a table of
another kind or of an unknown schema version with a :class:`TableError` whose
message names the file.

A table can also be a *partitioned dataset*: a folder of part files
(``part-00000.parquet``, ...), each a complete table of its kind with its own
metadata, and a marker file ``_shapemill.json`` holding the dataset's metadata
and the parts in order. The marker tells a dataset from any other folder.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)
import pyarrow.parquet as pq

from . import __version__
from .errors import ShapemillError
from .files import atomic_paths, display_name, is_special, output_target, special_kind, umask

META_KEY = b"shapemill"
#: The file that makes a folder a partitioned dataset.
DATASET_MARKER = "_shapemill.json"
#: The first bytes of every Parquet file.
PARQUET_MAGIC = b"PAR1"

#: Schema version of each table kind; bump when columns change meaning.
SCHEMA_VERSIONS: dict[str, int] = {
    "games": 1,
    "errors": 1,
    "patterns": 1,
    "ratings": 1,
    "hits": 1,
}


#: The type of each column a reader uses, by table kind (a table must hold them all): checked (with :data:`VALUE_CHECKS`)
#: whenever a table is read, before any row is used, so that a damaged or mislabelled
#: table is one line naming the file and the column, never a traceback or a wrong answer.
COLUMN_TYPES: dict[str, dict[str, tuple[str, Callable[[pa.DataType], bool]]]] = {
    "games": {
        "id": ("text", pa.types.is_string), "board_size": ("integers", pa.types.is_integer),
        "first_color": ("text", pa.types.is_string), "split": ("text", pa.types.is_string),
        **{name: ("lists of integers", lambda t: pa.types.is_list(t) and pa.types.is_integer(t.value_type))
           for name in ("moves", "setup_black", "setup_white")},
    },
    "patterns": {"pattern_id": ("integers", pa.types.is_integer), "size": ("integers", pa.types.is_integer),
                 "key": ("bytes", pa.types.is_binary), "seen": ("integers", pa.types.is_integer),
                 "played": ("integers", pa.types.is_integer), "level": ("integers", pa.types.is_integer),
                 "feature": ("text", pa.types.is_string)},
    "ratings": {"feature": ("text", pa.types.is_string), "value": ("integers", pa.types.is_integer),
                "size": ("integers", pa.types.is_integer), "gamma": ("floats", pa.types.is_floating)},
    "errors": {},
}
#: Rings a pattern may have: ``go.rings``' MIN_RING to MAX_RING (the whole-board window
#: of a 25x25 board), written out so that reading a table loads no numba.
RINGS = (2, 72)
#: Board sizes a games table may hold: those of ``go.rules`` (2 to its ``MAX_SIZE``, 25).
BOARD_SIZES = (2, 25)
#: Gammas a ratings table may hold. A fit's lie within about 1e-4 .. 1e5; NaN, zero or
#: a gamma past these makes every move's strength NaN, zero or infinite.
GAMMA_RANGE = (1e-12, 1e12)


class TableError(ShapemillError):
    """A table that cannot be used: missing, not Parquet, wrong kind or version."""


def table_metadata(
    kind: str, *, fingerprint: str = "", params: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The metadata dictionary stored with a table of ``kind``."""
    return {
        "kind": kind,
        "schema_version": SCHEMA_VERSIONS[kind],
        "shapemill_version": __version__,
        "fingerprint": fingerprint,
        "params": params or {},
    }


def write_table(table: pa.Table, path: str | os.PathLike, meta: dict[str, Any]) -> None:
    """Write ``table`` with ``meta`` to ``path`` atomically: an interrupted write
    leaves any previous file untouched."""
    write_tables([(table, path, meta)])


def write_tables(
    outputs: list[tuple[pa.Table, str | os.PathLike, dict[str, Any]]], before_commit: Callable[[], None] | None = None
) -> None:
    """Write the tables of one command together (``(table, path, metadata)`` each): all
    are written to temporary files first, then all renamed into place, so a failure
    replaces none. ``before_commit``: more writing of the command (a dataset) that must
    succeed before they are."""
    with atomic_paths(*(path for _, path, _ in outputs)) as temps:
        for (table, _, meta), tmp in zip(outputs, temps):
            _write_parquet(table, tmp, meta)
        if before_commit is not None:
            before_commit()


def _write_parquet(table: pa.Table, path: str | os.PathLike, meta: dict[str, Any]) -> None:
    """Write one Parquet file, zstd-compressed. Float columns are written byte-stream-split
    (each byte of the values apart, so that equal high bytes, and the zero low bytes of
    values held at a lower precision, compress well; lossless): the bundled ratings table
    takes 15% less room, and 39% less with its floats rounded to float32 (``miner.compact``)."""
    schema_meta = dict(table.schema.metadata or {})
    schema_meta[META_KEY] = json.dumps(meta, sort_keys=True).encode()
    leaves = _leaf_columns(table.schema)
    floats = [path for path, kind in leaves if pa.types.is_floating(kind)]
    pq.write_table(table.replace_schema_metadata(schema_meta), path, compression="zstd",
                   use_dictionary=[path for path, kind in leaves if not pa.types.is_floating(kind)],
                   use_byte_stream_split=floats)


def _leaf_columns(fields, prefix: str = "") -> list[tuple[str, pa.DataType]]:
    """The Parquet column paths of the leaves of Arrow ``fields`` (a schema), as the writer
    names them (``moves.list.element`` for a list, ``info.name`` for a struct's field), with
    their types."""
    paths = []
    for f in fields:
        if pa.types.is_list(f.type) or pa.types.is_large_list(f.type) or pa.types.is_fixed_size_list(f.type):
            paths += _leaf_columns([f.type.value_field.with_name("element")], f"{prefix}{f.name}.list.")
        elif pa.types.is_struct(f.type):
            paths += _leaf_columns(list(f.type), f"{prefix}{f.name}.")
        else:
            paths.append((prefix + f.name, f.type))
    return paths


def is_dataset(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a partitioned dataset folder (it holds the marker file)."""
    return (Path(path) / DATASET_MARKER).is_file()


def check_dataset_output(folder: str | os.PathLike) -> None:
    """Raise :class:`TableError` unless ``folder`` may receive a dataset: it does not
    exist, is an empty folder, or is a dataset (which will be replaced); a symbolic link
    is looked through (:func:`files.output_target`)."""
    folder = output_target(folder)
    if folder.exists() and not is_dataset(folder) and not (folder.is_dir() and not any(folder.iterdir())):
        raise TableError(f"{folder}: exists and is not a shapemill dataset; not replacing it")


def write_dataset(
    parts: Iterable[tuple[pa.Table, dict[str, Any]]], folder: str | os.PathLike, meta: dict[str, Any]
) -> None:
    """Write a partitioned dataset: each ``(table, metadata)`` of ``parts`` as a part
    file, in order, and ``meta`` (with the list of parts) in the marker file.

    The dataset is written to a temporary folder beside ``folder`` and renamed into
    place; a dataset already there is replaced, any other non-empty folder refused. A
    ``folder`` that is a symbolic link is written through, as a file's is
    (:func:`files.output_target`): the temporary folder goes beside the link's target,
    which it replaces, and the link stays a link; a loop or a dangling chain is refused.
    """
    folder = output_target(folder)
    check_dataset_output(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".tmp", dir=folder.parent))
    try:
        os.chmod(tmp, 0o777 & ~umask())
        listed = []
        for k, (table, part_meta) in enumerate(parts):
            name = f"part-{k:05d}.parquet"
            _write_parquet(table, tmp / name, part_meta)
            listed.append({"file": name, "rows": table.num_rows})
        (tmp / DATASET_MARKER).write_text(json.dumps({**meta, "parts": listed}, sort_keys=True, indent=1))
        if is_dataset(folder):
            old = tmp.with_name(tmp.name + ".old")
            os.replace(folder, old)
            os.replace(tmp, folder)
            shutil.rmtree(old)
        else:
            os.replace(tmp, folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def dataset_parts(folder: str | os.PathLike, kind: str) -> list[Path]:
    """The part files of the dataset of ``kind`` at ``folder``, in order."""
    marker = Path(folder) / DATASET_MARKER
    try:
        meta = json.loads(marker.read_text())
        files = [Path(folder) / part["file"] for part in meta["parts"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TableError(f"{marker}: not a readable dataset marker ({exc})") from None
    _check_kind(folder, meta, kind)
    for f in files:
        if not f.is_file():
            raise TableError(f"{f}: part of the dataset {folder} is missing")
    return files


def read_metadata(path: str | os.PathLike) -> dict[str, Any]:
    """The shapemill metadata of the table at ``path``."""
    try:
        os.fspath(path).encode("utf-8")
    except UnicodeEncodeError:  # pyarrow takes UTF-8 paths only
        raise TableError(f"{display_name(path)}: the name is not UTF-8, which a table's path must be; "
                         "rename it") from None
    if is_special(path):  # a FIFO or a device: reading it may never end (the API, as the command line)
        raise TableError(f"{path}: {special_kind(path)}, not a regular file; not reading it")
    try:
        schema = pq.read_schema(path)
    except (OSError, pa.ArrowInvalid) as exc:
        raise TableError(f"{path}: not a readable Parquet table ({_one_line(exc)})") from None
    raw = (schema.metadata or {}).get(META_KEY)
    if raw is None:
        raise TableError(f"{path}: not a shapemill table (no shapemill metadata)")
    try:
        meta = json.loads(raw)
    except ValueError as exc:
        raise TableError(f"{path}: corrupt shapemill metadata ({_one_line(exc)})") from None
    if not isinstance(meta, dict):
        raise TableError(f"{path}: corrupt shapemill metadata (a JSON {type(meta).__name__}, not an object)")
    return meta


def read_table(
    path: str | os.PathLike, kind: str, columns: list[str] | None = None
) -> tuple[pa.Table, dict[str, Any]]:
    """Read a table of ``kind`` and its metadata, refusing other kinds and versions."""
    meta = check_table(path, kind, columns or list(COLUMN_TYPES[kind]))
    try:
        table = pq.read_table(path, columns=columns)
    except (OSError, pa.ArrowException) as exc:  # flipped bytes: a page that does not decompress
        raise TableError(f"{path}: damaged Parquet data ({_one_line(exc)})") from None
    check_values(path, kind, table)
    return table, meta


def check_values(path: str | os.PathLike, kind: str, table: pa.Table) -> None:
    """Raise :class:`TableError` naming ``path`` and the column when a column of ``table``
    (a table of ``kind``) has another type than :data:`COLUMN_TYPES` says, or values
    out of range: a board size, a move or setup point off the board, a null move list,
    a negative count or one played more often than seen, a ring off the range, a NaN,
    zero or huge gamma."""
    for name, (what, is_type) in COLUMN_TYPES[kind].items():
        if name in table.column_names:
            kind_of = table.schema.field(name).type
            if pa.types.is_dictionary(kind_of):
                kind_of = kind_of.value_type
            if not is_type(kind_of):
                raise TableError(f"{path}: the {kind} table's column {name!r} holds {kind_of}, expected {what}")
    if kind == "games":
        _check_games(path, table)
        return
    _check_counts(path, table)
    if kind == "ratings" and "gamma" in table.column_names:
        gamma = table["gamma"].to_numpy(zero_copy_only=False)
        bad = ~((gamma >= GAMMA_RANGE[0]) & (gamma <= GAMMA_RANGE[1]))  # NaN is bad too
        if bad.any():
            raise TableError(f"{path}: column 'gamma' holds {gamma[bad][0]!r} in row {int(np.argmax(bad))}, "
                             f"not a gamma {GAMMA_RANGE[0]:g}..{GAMMA_RANGE[1]:g}")


def _check_counts(path: str | os.PathLike, table: pa.Table) -> None:
    """A patterns or ratings table's counts (where given: the compact ratings table leaves
    some out) never negative, a shape or feature played no more often than it was seen,
    and a ring a pattern's (``RINGS``)."""
    names = table.column_names
    counts = {}
    for name in ("seen", "played"):
        if name in names:
            counts[name] = table[name].to_numpy(zero_copy_only=False).astype(np.float64)  # a null is NaN
            if (counts[name] < 0).any():
                k = int(np.argmax(counts[name] < 0))
                raise TableError(f"{path}: column {name!r} holds {counts[name][k]:.0f} in row {k}, a negative count")
    if len(counts) == 2 and (counts["played"] > counts["seen"]).any():
        k = int(np.argmax(counts["played"] > counts["seen"]))
        raise TableError(f"{path}: column 'played' holds {counts['played'][k]:.0f} in row {k}, "
                         f"more than the {counts['seen'][k]:.0f} times it was seen")
    if "size" in names:
        size = table["size"].to_numpy(zero_copy_only=False).astype(np.float64)
        off = (size < RINGS[0]) | (size > RINGS[1])
        if off.any():
            k = int(np.argmax(off))
            raise TableError(f"{path}: column 'size' holds {size[k]:.0f} in row {k}, not a ring {RINGS[0]}..{RINGS[1]}")


def _check_games(path: str | os.PathLike, table: pa.Table) -> None:
    names = table.column_names
    for name in names:
        if name in ("board_size", "first_color", "moves", "setup_black", "setup_white") and table[name].null_count:
            raise TableError(f"{path}: column {name!r} holds nulls (a game without it)")
    if "board_size" not in names:
        return
    sizes = table["board_size"].to_numpy(zero_copy_only=False).astype(np.int64)
    off = (sizes < BOARD_SIZES[0]) | (sizes > BOARD_SIZES[1])
    if off.any():
        raise TableError(f"{path}: column 'board_size' holds {sizes[off][0]}, not a board size "
                         f"{BOARD_SIZES[0]}..{BOARD_SIZES[1]}")
    if "first_color" in names:
        colors = set(pa.compute.unique(table["first_color"]).to_pylist()) - {"b", "w"}
        if colors:
            raise TableError(f"{path}: column 'first_color' holds {sorted(colors)[0]!r}, not 'b' or 'w'")
    for name, lowest in (("moves", -1), ("setup_black", 0), ("setup_white", 0)):
        if name not in names:
            continue
        column = table[name].combine_chunks()
        flat = column.flatten()
        if flat.null_count:
            raise TableError(f"{path}: column {name!r} holds a null point")
        points = flat.to_numpy(zero_copy_only=False).astype(np.int32)  # a real corpus holds tens of millions
        offsets = np.asarray(column.offsets).astype(np.int64)
        offsets -= offsets[0]
        limit = np.repeat((sizes * sizes).astype(np.int32), np.diff(offsets))
        off = (points < lowest) | (points >= limit[: len(points)])
        if off.any():
            k = int(np.argmax(off))
            game = int(np.searchsorted(offsets, k, side="right") - 1)
            raise TableError(f"{path}: column {name!r} holds the point {points[k]} in row {game}, "
                             f"off its {sizes[game]}x{sizes[game]} board")


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def check_table(path: str | os.PathLike, kind: str, columns: Iterable[str] = ()) -> dict[str, Any]:
    """The metadata of the table of ``kind`` at ``path``, read without its rows;
    :class:`TableError` for another kind or version, or a table lacking ``columns``."""
    meta = read_metadata(path)
    _check_kind(path, meta, kind)
    names = set(pq.read_schema(path).names)  # read_metadata read it: it is readable
    missing = [c for c in columns if c not in names]
    if missing:
        raise TableError(f"{path}: a {kind} table without the column(s) {', '.join(missing)}")
    return meta


def _check_kind(path: str | os.PathLike, meta: dict[str, Any], kind: str) -> None:
    if meta.get("kind") != kind:
        raise TableError(f"{path}: a {meta.get('kind')!r} table, expected a {kind!r} table")
    if meta.get("schema_version") != SCHEMA_VERSIONS[kind]:
        raise TableError(
            f"{path}: {kind} schema version {meta.get('schema_version')!r} is not "
            f"supported (this shapemill reads version {SCHEMA_VERSIONS[kind]})"
        )


def _is_games_table(path: Path) -> bool:
    """Whether ``path`` is a games table; a Parquet file that is not one (a patterns
    or ratings table, a foreign or corrupt table) raises :class:`TableError`."""
    try:
        with open(path, "rb") as f:
            if f.read(4) != PARQUET_MAGIC:
                return False
    except OSError:  # a folder, an archive member path, a file that vanished: SGF input
        return False
    kind = read_metadata(path).get("kind")
    if kind != "games":
        raise TableError(f"{path} is a {kind} table, not a games table")
    return True


def table_files(path: str | os.PathLike) -> list[Path]:
    """The games table files ``path`` stands for: itself, a dataset's parts in
    order, or none when it is SGF input (a file, folder or archive)."""
    path = Path(path)
    if path.is_dir() and is_dataset(path):
        return dataset_parts(path, "games")
    return [path] if _is_games_table(path) else []

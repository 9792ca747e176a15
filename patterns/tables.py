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
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .. import __version__
from ..errors import ShapemillError
from ..files import atomic_path, umask

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
    with atomic_path(path) as tmp:
        _write_parquet(table, tmp, meta)


def _write_parquet(table: pa.Table, path: str | os.PathLike, meta: dict[str, Any]) -> None:
    schema_meta = dict(table.schema.metadata or {})
    schema_meta[META_KEY] = json.dumps(meta, sort_keys=True).encode()
    pq.write_table(table.replace_schema_metadata(schema_meta), path, compression="zstd")


def is_dataset(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a partitioned dataset folder (it holds the marker file)."""
    return (Path(path) / DATASET_MARKER).is_file()


def check_dataset_output(folder: str | os.PathLike) -> None:
    """Raise :class:`TableError` unless ``folder`` may receive a dataset: it does not
    exist, is an empty folder, or is a dataset (which will be replaced)."""
    folder = Path(folder)
    if folder.exists() and not is_dataset(folder) and not (folder.is_dir() and not any(folder.iterdir())):
        raise TableError(f"{folder}: exists and is not a shapemill dataset; not replacing it")


def write_dataset(
    parts: Iterable[tuple[pa.Table, dict[str, Any]]], folder: str | os.PathLike, meta: dict[str, Any]
) -> None:
    """Write a partitioned dataset: each ``(table, metadata)`` of ``parts`` as a part
    file, in order, and ``meta`` (with the list of parts) in the marker file.

    The dataset is written to a temporary folder beside ``folder`` and renamed into
    place; a dataset already there is replaced, any other non-empty folder refused.
    """
    folder = Path(folder)
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
        schema = pq.read_schema(path)
    except (OSError, pa.ArrowInvalid) as exc:
        raise TableError(f"{path}: not a readable Parquet table ({exc})") from None
    raw = (schema.metadata or {}).get(META_KEY)
    if raw is None:
        raise TableError(f"{path}: not a shapemill table (no shapemill metadata)")
    try:
        meta = json.loads(raw)
    except ValueError as exc:
        raise TableError(f"{path}: corrupt shapemill metadata ({exc})") from None
    if not isinstance(meta, dict):
        raise TableError(f"{path}: corrupt shapemill metadata (a JSON {type(meta).__name__}, not an object)")
    return meta


def read_table(
    path: str | os.PathLike, kind: str, columns: list[str] | None = None
) -> tuple[pa.Table, dict[str, Any]]:
    """Read a table of ``kind`` and its metadata, refusing other kinds and versions."""
    meta = check_table(path, kind, columns or ())
    return pq.read_table(path, columns=columns), meta


def check_table(path: str | os.PathLike, kind: str, columns: Iterable[str] = ()) -> dict[str, Any]:
    """The metadata of the table of ``kind`` at ``path``, read without its rows;
    :class:`TableError` for another kind or version, or a table lacking ``columns``."""
    meta = read_metadata(path)
    _check_kind(path, meta, kind)
    names = set(pq.read_schema(path).names)
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

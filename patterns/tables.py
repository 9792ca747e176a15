"""Parquet tables with shapemill metadata, written atomically.

Every table carries key-value metadata under the ``shapemill`` key (JSON): the
shapemill version, the table kind (``games``, ``errors``, ``patterns``, ...), the
schema version of that kind, a fingerprint of the games it came from and the
parameters of the command that wrote it. :func:`read_table` refuses a table of
another kind or of an unknown schema version with a :class:`TableError` whose
message names the file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from shapemill import __version__

META_KEY = b"shapemill"

#: Schema version of each table kind; bump when columns change meaning.
SCHEMA_VERSIONS: dict[str, int] = {
    "games": 1,
    "errors": 1,
    "patterns": 1,
    "ratings": 1,
}


class TableError(Exception):
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
    """Write ``table`` with ``meta`` to ``path`` atomically.

    The table goes to a temporary file in the same folder, which is then renamed
    over ``path``: an interrupted write leaves any previous file untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    schema_meta = dict(table.schema.metadata or {})
    schema_meta[META_KEY] = json.dumps(meta, sort_keys=True).encode()
    table = table.replace_schema_metadata(schema_meta)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    umask = os.umask(0)  # mkstemp makes the file private: give it the usual mode
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def read_metadata(path: str | os.PathLike) -> dict[str, Any]:
    """The shapemill metadata of the table at ``path``."""
    try:
        schema = pq.read_schema(path)
    except (OSError, pa.ArrowInvalid) as exc:
        raise TableError(f"{path}: not a readable Parquet table ({exc})") from None
    raw = (schema.metadata or {}).get(META_KEY)
    if raw is None:
        raise TableError(f"{path}: not a shapemill table (no shapemill metadata)")
    return json.loads(raw)


def read_table(
    path: str | os.PathLike, kind: str, columns: list[str] | None = None
) -> tuple[pa.Table, dict[str, Any]]:
    """Read a table of ``kind`` and its metadata, refusing other kinds and versions."""
    meta = read_metadata(path)
    if meta.get("kind") != kind:
        raise TableError(f"{path}: a {meta.get('kind')!r} table, expected a {kind!r} table")
    if meta.get("schema_version") != SCHEMA_VERSIONS[kind]:
        raise TableError(
            f"{path}: {kind} schema version {meta.get('schema_version')!r} is not "
            f"supported (this shapemill reads version {SCHEMA_VERSIONS[kind]})"
        )
    return pq.read_table(path, columns=columns), meta

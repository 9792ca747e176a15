"""What a table is and where it came from, read from its metadata alone.

Works on every table kind and on partitioned datasets (whose marker file holds
the dataset's metadata and its parts' rows), without reading the rows.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from ..tables import DATASET_MARKER, TableError, is_dataset, read_metadata

#: Metadata keys of a measured accuracy (written by ``tools/make_default_tables.py``, with
#: the ``curve`` of the cuts it measured).
ACCURACY_KEYS = ("top1", "top5", "top10", "mean_log_likelihood", "evaluated_positions", "evaluated_games")
#: Parameters that say which games a table came from, by table kind.
GAMES_KEYS = ("sources", "paths", "games")
#: The stage that writes each table kind: the command of a table whose metadata names none
#: (its options are the table's parameters; the command line itself is left out of the
#: metadata so that the same table written by other means, -j or Dask, is the same bytes).
MADE_BY = {"games": "shapemill scan", "errors": "shapemill scan", "patterns": "shapemill mine",
           "ratings": "shapemill rate"}


def table_info(path: str | os.PathLike) -> dict[str, Any]:
    """The kind, provenance, size and measured accuracy of the table at ``path``
    (a Parquet file or a partitioned dataset folder)."""
    path = Path(path)
    if is_dataset(path):
        marker = path / DATASET_MARKER
        try:
            meta = json.loads(marker.read_text())
        except (OSError, ValueError) as exc:
            raise TableError(f"{marker}: not a readable dataset marker ({exc})") from None
        parts = meta.pop("parts", [])
        rows = sum(int(p.get("rows", 0)) for p in parts)
        size = sum(f.stat().st_size for f in path.iterdir() if f.is_file())
        files = len(parts)
    else:
        meta = read_metadata(path)
        rows = pq.ParquetFile(path).metadata.num_rows
        size = path.stat().st_size
        files = 1
    params = meta.get("params", {}) or {}
    games_key = next((k for k in GAMES_KEYS if k in params), None)
    accuracy = {k: meta.get(k, params.get(k)) for k in ACCURACY_KEYS if meta.get(k, params.get(k)) is not None}
    return {
        "path": str(path),
        "kind": meta.get("kind"),
        "schema_version": meta.get("schema_version"),
        "shapemill_version": meta.get("shapemill_version"),
        "fingerprint": meta.get("fingerprint", ""),
        "games": params[games_key] if games_key else None,
        "positions": params.get("positions"),
        "command": meta.get("command", params.get("command")) or MADE_BY.get(meta.get("kind")),
        "params": {k: v for k, v in params.items() if k != games_key},
        "rows": rows,
        "bytes": size,
        "files": files,
        "accuracy": accuracy,
        "curve": meta.get("curve", []),
        "vectors": {k: v for k, v in meta.get("latent", {}).items() if k not in ("starts", "vectors")} or None,
    }


def describe(info: dict[str, Any]) -> str:
    """``table_info``'s answer as lines for a person."""
    lines = [
        f"{info['path']}: {info['kind']} table (schema {info['schema_version']}, shapemill {info['shapemill_version']})",
        f"  size        {info['rows']:,} rows, {info['bytes'] / 2**20:,.1f} MB"
        + (f" in {info['files']} parts" if info["files"] > 1 else ""),
    ]
    if info["games"] is not None:
        games = info["games"] if isinstance(info["games"], list) else [info["games"]]
        lines.append(f"  games       {', '.join(map(str, games))} (fingerprint {info['fingerprint'] or 'none'})")
    elif info["fingerprint"]:
        lines.append(f"  fingerprint {info['fingerprint']}")
    if info["positions"] is not None:
        lines.append(f"  positions   {info['positions']:,}")
    if info["command"]:
        lines.append(f"  command     {info['command']}")
    shown = {k: v for k, v in info["params"].items()
             if k not in ("positions", "command", "objective", *ACCURACY_KEYS)}
    if shown:
        lines.append("  parameters  " + ", ".join(f"{k}={v}" for k, v in sorted(shown.items())))
    vectors = info["vectors"]
    if vectors and "features" in vectors:
        lines.append(f"  vectors     {vectors['k']} numbers for {vectors['features']:,} features, fitted on "
                     f"{vectors['positions']:,} positions (lambda {vectors['lambda']:g}, patterns played "
                     f"{vectors['played']:,} times, {vectors['iterations']} iterations)")
    acc = info["accuracy"]
    if acc:
        measured = ", ".join(f"{k} {acc[k]:.1%}" for k in ("top1", "top5", "top10") if k in acc)
        if "evaluated_positions" in acc:
            measured += f" on {acc['evaluated_positions']:,} positions"
        if "evaluated_games" in acc:
            measured += f" ({acc['evaluated_games']})"
        lines.append(f"  accuracy    {measured}")
    else:
        lines.append("  accuracy    not measured")
    for point in info["curve"]:
        lines.append(f"  cut         tolerance {point['tolerance']:g}: {point['rows']:,} rows, {point['mb']:.1f} MB, "
                     f"top1 {point['top1']:.1%}")
    return "\n".join(lines)

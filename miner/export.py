"""``shapemill export``: a ratings or patterns table for other programs.

``csv`` and ``json`` (one object per line) write the table's rows (pattern ids as
the tables store them, decimal ``uint64``; keys in hex). ``mm`` writes the
*input* of Rémi Coulom's reference MM tool (``mm.cpp``, 2007) -- the competitions
the fit was made on, rebuilt from the games, split, game limit, sample and seed recorded
in the table's metadata -- so a user can fit them with that tool and compare its gammas
with ours (same feature order: patterns in the table's order, then each tactical
feature by level, then the pass). The format: a line ``! <number of gammas>``, the number of
feature groups, ``<gammas> <name>`` per group, ``!``; then per position ``#``, the
winner's team and every candidate's team (the winner's included), each a line of
gamma indices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from ..datasets.corpus import load_corpus
from ..files import atomic_path, output_errors
from ..patterns.candidates import GROUP_NAMES, ratings_model
from ..patterns.latent import VECTOR_COLUMN
from ..progress import progress_bar, ticker
from .positions import Teams, build_teams, sample_mask

FORMATS = ("csv", "json", "mm")


def write_rows(table: pa.Table, fmt: str, path: str) -> None:
    """A table's rows as CSV (pattern keys in hex; a latent vector as its numbers separated
    by spaces) or JSON lines (a vector as a list), written atomically."""
    columns = [c for c in table.column_names if c not in ("key", VECTOR_COLUMN)]
    plain = table.select(columns).cast(
        pa.schema([pa.field(c, pa.string() if c == "feature" else table.schema.field(c).type) for c in columns])
    )
    keys = pa.array([k.hex() if k is not None else None for k in table["key"].to_pylist()], pa.string())
    plain = plain.append_column("key", keys)
    if VECTOR_COLUMN in table.column_names:
        vectors = table[VECTOR_COLUMN].cast(pa.list_(pa.float32())).to_pylist()
        if fmt == "csv":
            vectors = [None if v is None else " ".join(f"{x:.6g}" for x in v) for v in vectors]
        plain = plain.append_column(VECTOR_COLUMN, pa.array(vectors))
    with atomic_path(path) as tmp:
        if fmt == "csv":
            pacsv.write_csv(plain, tmp)
            return
        import json

        with open(tmp, "w", encoding="utf-8") as out:
            for row in plain.to_pylist():
                out.write(json.dumps(row) + "\n")


def write_mm(teams: Teams, group: np.ndarray, out: TextIO, progress: Callable[[int], None] | None = None) -> None:
    """The competitions of ``teams`` in the input format of Coulom's mm tool; ``progress``
    hears each position written."""
    sizes = np.bincount(group, minlength=len(GROUP_NAMES))
    present, first = np.unique(group, return_index=True)
    listed = present[np.argsort(first)].tolist()  # mm numbers a group's features together, in this order
    listed += [g for g in range(len(GROUP_NAMES)) if g not in listed]
    out.write(f"! {len(group)}\n{len(GROUP_NAMES)}\n")
    for g in listed:
        out.write(f"{sizes[g]} {GROUP_NAMES[g]}\n")
    out.write("!\n")
    combos = [" ".join(str(f) for f in row if f != teams.none) for row in teams.combination_features().tolist()]
    for j in range(teams.n_positions):
        pattern, combo = teams.candidates(slice(teams.pos_start[j], teams.pos_start[j + 1]))
        lines = [
            " ".join(s for s in (str(p) if p != teams.none else "", combos[k]) if s)
            for p, k in zip(pattern.tolist(), combo.tolist())
        ]
        out.write("#\n" + lines[teams.chosen[j]] + "\n" + "\n".join(lines) + "\n")
        if progress is not None:
            progress(1)


def export_mm(table: pa.Table, meta: dict, path: str, quiet: bool = False) -> int:
    """Rebuild the fit's positions from the table's metadata and write them for mm
    (atomically; a write error is a :class:`ShapemillError` naming ``path``; ``quiet``:
    no progress bars). Returns the number of positions written."""
    params = meta["params"]
    vocab = ratings_model(table).vocab
    corpus = load_corpus(params["games"], split=params["split"], limit=params.get("limit_games"))
    bar = progress_bar(quiet, len(corpus), "game", "positions")
    teams = build_teams(corpus, vocab, sample_mask(corpus, params["max_positions"], params["seed"]),
                        progress=ticker(bar))
    if bar is not None:
        bar.close()
    bar = progress_bar(quiet, teams.n_positions, "position", "mm")
    with output_errors(path), atomic_path(path) as tmp, open(tmp, "w", encoding="ascii") as out:
        write_mm(teams, vocab.group, out, ticker(bar))
    if bar is not None:
        bar.close()
    return teams.n_positions

"""Patterns as pictures: text diagrams and SVG, decoded from their canonical keys.

In a diagram ``X`` is a stone of the player to move, ``O`` an opponent stone,
``.`` an empty point, ``#`` off the board and ``*`` the candidate move; points
outside the pattern's ring are blank.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..files import output_errors, write_text_atomic
from ..go.rings import OFFSETS, RING_END, unpack_key
from .candidates import GROUP_NAMES, NEAR_GROUP, PATTERN_GROUP
from .near import NEAR_FROM, NEAR_TO

SYMBOLS = ".XO#"
#: The ratings rows that are shapes: patterns and their near twins.
SHAPES = (GROUP_NAMES[PATTERN_GROUP], GROUP_NAMES[NEAR_GROUP])
NEAR_WORDS = f", near the previous move (gridcular distance {NEAR_FROM} to {NEAR_TO})"


def pattern_grid(key: bytes, ring: int) -> list[list[str]]:
    """The pattern as rows of symbols, top row first, the candidate in the middle."""
    states = unpack_key(key, ring)
    half = ring // 2
    grid = [[" "] * (2 * half + 1) for _ in range(2 * half + 1)]
    grid[half][half] = "*"
    for (dx, dy), s in zip(OFFSETS[: RING_END[ring]], states):
        grid[half - int(dy)][half + int(dx)] = SYMBOLS[int(s)]
    return grid


def diagram(key: bytes, ring: int) -> str:
    """The pattern as a text diagram."""
    return "\n".join(" ".join(row).rstrip() for row in pattern_grid(key, ring))


def svg(key: bytes, ring: int, cell: int = 24) -> str:
    """The pattern as an SVG picture: black stones to move, white opponents."""
    grid = pattern_grid(key, ring)
    n = len(grid)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{n * cell}" height="{n * cell}" '
        f'viewBox="0 0 {n * cell} {n * cell}">',
        f'<rect width="{n * cell}" height="{n * cell}" fill="white"/>',
    ]
    r = cell / 2
    for y, row in enumerate(grid):
        for x, s in enumerate(row):
            cx, cy = x * cell + r, y * cell + r
            if s == " ":
                continue
            if s == "#":
                parts.append(f'<rect x="{x * cell}" y="{y * cell}" width="{cell}" height="{cell}" fill="#888"/>')
                continue
            parts.append(f'<rect x="{x * cell}" y="{y * cell}" width="{cell}" height="{cell}" fill="#dcb35c"/>')
            parts.append(f'<line x1="{x * cell}" y1="{cy}" x2="{x * cell + cell}" y2="{cy}" stroke="black"/>')
            parts.append(f'<line x1="{cx}" y1="{y * cell}" x2="{cx}" y2="{y * cell + cell}" stroke="black"/>')
            if s in "XO":
                fill = "black" if s == "X" else "white"
                parts.append(f'<circle cx="{cx}" cy="{cy}" r="{r * 0.9}" fill="{fill}" stroke="black"/>')
            elif s == "*":
                parts.append(f'<circle cx="{cx}" cy="{cy}" r="{r * 0.35}" fill="red"/>')
    parts.append("</svg>")
    return "\n".join(parts)


def find_hint(pattern_id: int, key: bytes, ring: int, table: str | None = None) -> str | None:
    """The ``shapemill find`` command that lists where a pattern occurs (none for a
    shape without stones, which is every empty point)."""
    if not any(s in (1, 2) for s in unpack_key(key, ring).tolist()):
        return None
    return f"  where: shapemill find GAMES --pattern-id {pattern_id:016x}" + (f" --patterns {table}" if table else "")


def show_patterns(table, top: int, size: int | None, sort: str, svg_dir: str | None, path: str | None = None) -> str:
    """Text for ``shapemill show`` on a patterns table (and SVG files if asked);
    ``path``: the table's file when it is not the bundled one, for the ``find`` hint."""
    import pyarrow.compute as pc

    rows = table.filter(pc.equal(table["feature"], "pattern"))
    if size is not None:
        rows = rows.filter(pc.equal(rows["size"], size))
    order = np.lexsort((-rows["seen"].to_numpy(), -rows[sort].to_numpy()))[:top]
    out = []
    for rank, i in enumerate(order, 1):
        row = {name: rows[name][int(i)].as_py() for name in ("pattern_id", "size", "points", "key", "seen", "played", "p_played")}
        out.append(
            f"#{rank}  {pattern_name(row['pattern_id'])}  ring {row['size']} ({row['points']} points)  "
            f"seen {row['seen']:,}  played {row['played']:,}  p_played {row['p_played']:.4f}"
        )
        out.append(diagram(row["key"], row["size"]))
        hint = find_hint(row["pattern_id"], row["key"], row["size"], path)
        if hint:
            out.append(hint)
        out.append("")
        if svg_dir:
            _picture(svg_dir, f"{rank:03d}-{row['pattern_id']}", row["key"], row["size"])
    return "\n".join(out)


def pattern_name(pattern_id: int) -> str:
    """A pattern id as the tables store it (decimal ``uint64``: ``pattern_id`` of a patterns
    table, ``value`` of a ratings table, what a DuckDB join compares) and in hex."""
    return f"pattern {pattern_id} (hex {pattern_id:016x})"


def _picture(folder: str, name: str, key: bytes, ring: int) -> None:
    picture = Path(folder) / f"{name}.svg"
    with output_errors(picture):
        write_text_atomic(picture, svg(key, ring))


def rating_lines(row: dict, describe: Callable[[str, int], str] | None = None) -> list[str]:
    """A ratings-table row as text: its Elo, interval, gamma and counts, then the
    pattern's diagram when it is a shape, or ``describe(feature, level)``'s words for
    a tactical feature (multi-line words go below)."""
    if row["feature"] in SHAPES:
        what = f"{pattern_name(row['value'])}  ring {row['size']}" + (NEAR_WORDS if row["feature"] != "pattern" else "")
        words = []
    else:
        what = f"{row['feature']} = {row['value']}"
        words = describe(row["feature"], row["value"]).splitlines() if describe else []
        if len(words) == 1:
            what, words = f"{what} ({words[0]})", []
    if row["elo"] is None:  # a compact table keeps only the gamma of the rows it does not draw
        lines = [f"{what}  gamma {row['gamma']:.3g}"]
    else:
        lines = [
            f"{what}  Elo {row['elo']:+.0f} [{row['ci_low']:+.0f}, {row['ci_high']:+.0f}]  "
            f"gamma {row['gamma']:.3g}  seen {row['seen']:,}  played {row['played']:,}"
        ]
    lines.extend(words)
    if row["feature"] in SHAPES and row["key"] is not None:
        lines.append(diagram(row["key"], row["size"]))
    return lines


def show_ratings(table, top: int, describe: Callable[[str, int], str] | None = None,
                 svg_dir: str | None = None) -> str:
    """Text for ``shapemill show`` on a ratings table: the ``top`` highest and lowest
    rated features, patterns drawn (and written as SVG into ``svg_dir`` when given),
    tactical levels in ``describe``'s words."""
    order = np.argsort(-table["gamma"].to_numpy(), kind="stable")
    out = []
    for end, rows in (("highest", order[:top]), ("lowest", order[::-1][:top])):
        out.append(f"== {end} rated {top} ==")
        for rank, i in enumerate(rows, 1):
            row = {name: table[name][int(i)].as_py() for name in table.column_names}
            lines = rating_lines(row, describe)
            out.append(f"#{rank}  {lines[0]}")
            out.extend(lines[1:])
            hint = find_hint(row["value"], row["key"], row["size"]) if row["feature"] in SHAPES and row["key"] else None
            if hint:
                out.append(hint)
            out.append("")
            if svg_dir and row["feature"] in SHAPES and row["key"] is not None:
                _picture(svg_dir, f"{end}-{rank:03d}-{row['value']}", row["key"], row["size"])
    return "\n".join(out)

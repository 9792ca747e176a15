"""What ``find`` prints and writes: the summary, the fragment with its continuations
drawn on it (text or SVG), the hits as Parquet, the matching games as SGF."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..tables import table_metadata, write_table
from .index import GameIndex
from .query import GTP_COLUMNS, Query, parse_vertex
from .search import FindResult

#: Symbols of the text diagram: black, white, empty in the region, outside it.
SYMBOLS = {1: "X", 2: "O", 0: ".", None: ","}
#: SVG: pixels a point.
CELL = 24
#: SGF letters of coordinates.
SGF_LETTERS = "abcdefghijklmnopqrstuvwxy"


@dataclass
class Summary:
    """A search's numbers and tables, as every output shows them."""

    result: FindResult
    continuations: pa.Table
    top: pa.Table
    searched: int
    seconds: float

    def as_dict(self) -> dict:
        """The one JSON object of ``find --json``."""
        q = self.result.query
        return {
            "query": query_dict(q),
            "games_searched": self.searched,
            "hits": self.result.hits.num_rows,
            "games": self.result.n_games,
            "seconds": round(self.seconds, 4),
            "continuations": self.continuations.to_pylist(),
            "top_games": self.top.to_pylist(),
        }


def query_dict(q: Query) -> dict:
    """The query as understood: source, region, stones and switches."""
    return {
        "source": q.source, "board_size": q.size, "region": q.region_text(), "stones": q.stones,
        "symmetry": q.symmetry, "color_swap": q.swap, "anywhere": q.anywhere,
        "next": {0: "any", 1: "b", 2: "w"}[q.next],
    }


def _labels(q: Query, continuations: pa.Table, top: int) -> dict[tuple[int, int], str]:
    """The ``top`` continuations' labels by point."""
    return {parse_vertex(row["move"], q.size, "move"): row["label"]
            for row in continuations.slice(0, top).to_pylist() if row["label"] and row["move"]}


def _window(q: Query, labels: dict) -> tuple[int, int, int, int]:
    """The rectangle drawn: the region and the labelled points."""
    x0, y0, x1, y1 = q.box()
    for x, y in labels:
        x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
    return x0, y0, x1, y1


def diagram(q: Query, continuations: pa.Table, top: int) -> str:
    """The fragment as text, top row first, the ``top`` continuations' labels on it
    (``X`` black, ``O`` white, ``.`` empty, ``,`` outside the region)."""
    labels = _labels(q, continuations, top)
    x0, y0, x1, y1 = _window(q, labels)
    cells = {(int(x), int(y)): int(c) for (x, y), c in zip(q.points, q.colors)}
    lines = ["    " + " ".join(GTP_COLUMNS[x] for x in range(x0, x1 + 1))]
    for y in range(y1, y0 - 1, -1):
        row = [labels.get((x, y)) or SYMBOLS[cells.get((x, y))] for x in range(x0, x1 + 1)]
        lines.append(f"{y + 1:>3} " + " ".join(row))
    return "\n".join(line.rstrip() for line in lines)


def text(summary: Summary, top: int) -> str:
    """The summary ``find`` prints."""
    q, r = summary.result.query, summary.result
    sw = [name for name, on in (("symmetries", q.symmetry), ("colour swap", q.swap), ("anywhere", q.anywhere)) if on]
    out = [
        f"{q.source}: {q.stones} stones in {q.region_text()}"
        + (f", {'black' if q.next == 1 else 'white'} to move" if q.next else "")
        + f" ({', '.join(sw) or 'as given'})",
        f"{r.hits.num_rows:,} hits in {r.n_games:,} of {summary.searched:,} games ({summary.seconds:.3f} s)",
        "",
        diagram(q, summary.continuations, top),
        "",
    ]
    conts = summary.continuations.slice(0, top).to_pylist()
    if conts:
        out.append(f"{'':3}{'move':>5}{'count':>8}{'by B':>7}{'by W':>7}{'B wins':>8}{'W wins':>8}  dates")
        for c in conts:
            out.append(
                f"{c['label'] or '':3}{c['move']:>5}{c['count']:>8,}{c['by_black']:>7,}{c['by_white']:>7,}"
                f"{c['black_wins']:>8,}{c['white_wins']:>8,}  {c['first_date'] or '?'} .. {c['last_date'] or '?'}"
            )
    none = r.hits.num_rows - int(sum(c["count"] for c in summary.continuations.to_pylist()))
    if r.hits.num_rows:
        out.append(f"(colours are the query's; {none:,} hits have no continuation: the game ended first)")
    if summary.top.num_rows:
        out.append("")
        for g in summary.top.to_pylist():
            out.append(f"{g['date'] or '?':<11}{g['black']} {g['black_rank'] or ''} - {g['white']} {g['white_rank'] or ''}"
                       f"  {g['result'] or '?'}  move {g['move']}  {g['id']}  {g['source']}")
    return "\n".join(out)


def svg(q: Query, continuations: pa.Table, top: int) -> str:
    """The fragment as an SVG picture with the continuation labels."""
    labels = _labels(q, continuations, top)
    x0, y0, x1, y1 = _window(q, labels)
    w, h = (x1 - x0 + 1) * CELL, (y1 - y0 + 1) * CELL
    cells = {(int(x), int(y)): int(c) for (x, y), c in zip(q.points, q.colors)}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">',
             f'<rect width="{w}" height="{h}" fill="#dcb35c"/>']
    r = CELL / 2
    for y in range(y0, y1 + 1):
        for x in range(x0, x1 + 1):
            cx, cy = (x - x0) * CELL + r, (y1 - y) * CELL + r
            left, right = cx - (r if x > 0 else 0), cx + (r if x < q.size - 1 else 0)
            low, high = cy - (r if y < q.size - 1 else 0), cy + (r if y > 0 else 0)
            parts.append(f'<line x1="{left}" y1="{cy}" x2="{right}" y2="{cy}" stroke="black"/>')
            parts.append(f'<line x1="{cx}" y1="{low}" x2="{cx}" y2="{high}" stroke="black"/>')
            if (x, y) not in cells:
                parts.append(f'<rect x="{cx - r}" y="{cy - r}" width="{CELL}" height="{CELL}" fill="white" opacity="0.5"/>')
            elif cells[(x, y)]:
                fill = "black" if cells[(x, y)] == 1 else "white"
                parts.append(f'<circle cx="{cx}" cy="{cy}" r="{r * 0.9}" fill="{fill}" stroke="black"/>')
    for (x, y), label in labels.items():
        cx, cy = (x - x0) * CELL + r, (y1 - y) * CELL + r
        parts.append(f'<circle cx="{cx}" cy="{cy}" r="{r * 0.7}" fill="#dcb35c"/>')
        parts.append(f'<text x="{cx}" y="{cy + 5}" font-size="{CELL * 0.6}" text-anchor="middle" '
                     f'fill="red">{label}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def hits_table(result: FindResult) -> pa.Table:
    """The ``-o`` table: one row per hit."""
    return result.hits.drop_columns(["part", "game"])


def write_hits(result: FindResult, path: str, params: dict) -> None:
    """Write the hits table atomically, with metadata like every table."""
    write_table(hits_table(result), path, table_metadata("hits", params=params))


def _sgf_point(index: int, size: int) -> str:
    row, col = divmod(index, size)
    return SGF_LETTERS[col] + SGF_LETTERS[size - 1 - row]


def _escape(s: str | None) -> str:
    return (s or "").replace("\\", "\\\\").replace("]", "\\]")


#: The SGF root properties a game keeps from its games table row, by column.
ROOT_PROPERTIES = (("PB", "black"), ("PW", "white"), ("BR", "black_rank"), ("WR", "white_rank"), ("DT", "date"),
                   ("RE", "result"), ("KM", "komi"), ("HA", "handicap"), ("RU", "rules"), ("GN", "id"))


def _root_properties(info: dict) -> str:
    """A game's root properties from its games table row (``ROOT_PROPERTIES``); those the
    row lacks are left out, as is ``HA`` below 2 (no handicap)."""
    out = ""
    for prop, column in ROOT_PROPERTIES:
        value = info[column]
        if value is None or value == "" or prop == "HA" and value < 2:
            continue
        out += f"{prop}[{_escape(f'{value:g}' if isinstance(value, float) else str(value))}]"
    return out


def sgf_collection(result: FindResult, indexes: list[GameIndex]) -> str:
    """The games with a hit as one SGF collection, each with a comment and the hit's
    stones marked (``TR``) at the position of its first hit."""
    hits = result.hits
    if hits.num_rows == 0:
        return ""
    part = hits["part"].to_numpy()
    game = hits["game"].to_numpy()
    key = part.astype(np.int64) << 32 | game
    _, first = np.unique(key, return_index=True)
    imgs = result.images
    out = []
    for h in first:
        index, g = indexes[part[h]], int(game[h])
        info = {c: index.info[c][g].as_py() for c in ("id", "black", "white", "black_rank", "white_rank",
                                                         "date", "result", "board_size", "komi", "handicap", "rules")}
        row = hits.slice(int(h), 1).to_pylist()[0]
        size = info["board_size"]
        v = int(np.flatnonzero((imgs.sym == row["symmetry"]) & (imgs.swapped == row["swapped"]))[0]) \
            if not result.query.anywhere else None
        head = f"(;GM[1]FF[4]CA[UTF-8]SZ[{size}]" + _root_properties(info)
        setup = index.setup_pt[index.setup_ptr[g] : index.setup_ptr[g + 1]]
        scol = index.setup_col[index.setup_ptr[g] : index.setup_ptr[g + 1]]
        for c, prop in ((1, "AB"), (2, "AW")):
            pts = [_sgf_point(int(p), size) for p in setup[scol == c]]
            if pts:
                head += prop + "".join(f"[{p}]" for p in pts)
        note = (f"shapemill find: {result.query.source} here (move {row['move']}"
                f"{', colours swapped' if row['swapped'] else ''}); continuation {row['continuation'] or 'none'}")
        marks = ""
        if v is not None:
            pts = imgs.pt[imgs.ptr[v] : imgs.ptr[v + 1]][imgs.col[imgs.ptr[v] : imgs.ptr[v + 1]] != 0]
            marks = "TR" + "".join(f"[{_sgf_point(int(p), size)}]" for p in pts)
        nodes = [head]
        if row["move"] == 0:
            nodes[0] += f"C[{_escape(note)}]{marks}"
        color = int(index.first_color[g])
        for t, x in enumerate(index.moves[index.offsets[g] : index.offsets[g + 1]].tolist(), 1):
            node = f";{'BW'[color - 1]}[{'' if x < 0 else _sgf_point(x, size)}]"
            if t == row["move"]:
                node += f"C[{_escape(note)}]{marks}"
            nodes.append(node)
            color = 3 - color
        out.append("".join(nodes) + ")")
    return "\n".join(out) + "\n"

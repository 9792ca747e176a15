"""Queries from what a user gives: an SGF fragment, or a mined pattern id.

An SGF fragment is a position: its setup stones (``AB``/``AW``/``AE`` on any node)
and moves, played with captures; the position after the last node is searched. The
region is ``--region`` (a GTP rectangle), else the points marked ``SQ``, else the
bounding box of the stones grown by one point and clipped to the board.

A pattern id names a mined shape (``patterns`` table): the points of its ring around
an empty candidate point, own stones black, the opponent's white, black to move, its
off-board points kept off the board; it is looked for anywhere.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ShapemillError, UsageError
from ..files import display_name
from ..tables import TableError, read_table
from .query import BLACK, EMPTY, WHITE, Query, edge_offs, parse_vertex, vertex

#: Grown by this many points, the stones' bounding box is the default region.
DEFAULT_MARGIN = 1
#: Colours of a pattern diagram's symbols: own stones black, the candidate empty.
PATTERN_COLORS = {".": EMPTY, "*": EMPTY, "X": BLACK, "O": WHITE}


def sgf_position(path: str) -> tuple[np.ndarray, set[tuple[int, int]]]:
    """The board (colours, ``[row][col]``, row 0 at the bottom) after the fragment's
    last node, and the points it marks with ``SQ``."""
    from sgfmill import boards, sgf

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ShapemillError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        game = sgf.Sgf_game.from_bytes(data)
    except ValueError as exc:
        raise ShapemillError(f"{path}: not an SGF file ({exc})") from None
    size = game.get_size()
    board = boards.Board(size)
    marks: set[tuple[int, int]] = set()
    for node in game.get_main_sequence():
        try:
            for prop, color in (("AB", "b"), ("AW", "w"), ("AE", None)):
                if node.has_property(prop):
                    for row, col in _setup_points(node, prop, size, path):
                        board.board[row][col] = color
            color, move = node.get_move()
            if color is not None and move is not None:
                if board.get(move[0], move[1]) is not None:
                    raise ValueError(f"{color.upper()} {vertex(move[1], move[0])} is played on an occupied point")
                board.play(move[0], move[1], color)
            if node.has_property("SQ"):
                marks |= set(node.get("SQ"))
        except ValueError as exc:
            raise ShapemillError(f"{path}: {exc}" if str(exc) else f"{path}: a move off the {size}x{size} board") from None
    grid = np.zeros((size, size), dtype=np.int8)
    for row in range(size):
        for col in range(size):
            c = board.get(row, col)
            grid[row, col] = BLACK if c == "b" else WHITE if c == "w" else EMPTY
    return grid, marks


def _setup_points(node, prop: str, size: int, path: str) -> set[tuple[int, int]]:
    """The points of a setup property (``AB``, ``AW``, ``AE``); one line naming the
    property and its values when one is not a point of the board."""
    try:
        return node.get(prop)
    except ValueError:
        raw = "][".join(v.decode("latin-1") for v in node.get_raw_list(prop))
        raise ShapemillError(f"{path}: {prop}[{raw}] is not a point of the {size}x{size} board") from None


def parse_region(text: str, size: int) -> list[tuple[int, int]]:
    """The (x, y) of a GTP rectangle ``A1:G7``."""
    parts = text.split(":")
    if len(parts) != 2:
        raise UsageError(f"--region: {text!r} is not a rectangle like A1:G7")
    try:
        (xa, ya), (xb, yb) = (parse_vertex(p, size, "--region") for p in parts)
    except ShapemillError as exc:
        raise UsageError(str(exc)) from None
    return [(x, y) for y in range(min(ya, yb), max(ya, yb) + 1) for x in range(min(xa, xb), max(xa, xb) + 1)]


def query_from_sgf(path: str, region: str | None = None, **options) -> Query:
    """The query of an SGF fragment (``options``: the :class:`Query` switches)."""
    grid, marks = sgf_position(path)
    size = len(grid)
    ys, xs = np.nonzero(grid)
    if len(xs) == 0:
        raise ShapemillError(f"{path}: the fragment has no stones")
    if region is not None:
        pts = parse_region(region, size)
    elif marks:
        pts = sorted((col, row) for row, col in marks)
    else:
        x0, x1 = max(0, xs.min() - DEFAULT_MARGIN), min(size - 1, xs.max() + DEFAULT_MARGIN)
        y0, y1 = max(0, ys.min() - DEFAULT_MARGIN), min(size - 1, ys.max() + DEFAULT_MARGIN)
        pts = [(x, y) for y in range(y0, y1 + 1) for x in range(x0, x1 + 1)]
    points = np.array(pts, dtype=np.int64)
    colors = grid[points[:, 1], points[:, 0]].astype(np.int8)
    if not colors.any():
        raise UsageError(f"{path}: no stones inside the region {region or 'marked with SQ'}")
    return Query(size, points, colors, off=edge_offs(points, size), source=display_name(path), **options)


def pattern_id_readings(text: str) -> list[int]:
    """The ids ``text`` can stand for: 16 hex digits as ``show`` prints them, a
    decimal id as stored, or both when it reads either way (hex first)."""
    t = text.strip().lower().removeprefix("0x")
    found = []
    if 0 < len(t) <= 16 and all(c in "0123456789abcdef" for c in t):
        found.append(int(t, 16))
    if t.isdigit() and int(t) < 1 << 64:
        found.append(int(t))
    if not found:
        raise ShapemillError(f"--pattern-id: {text!r} is neither hex digits nor a decimal id")
    return found


def query_from_pattern(pattern_id: str, table: str, size: int = 19, **options) -> Query:
    """The query of a mined pattern: its ring around the candidate, black to move, anywhere."""
    readings = pattern_id_readings(pattern_id)
    try:
        data, _ = read_table(table, "patterns", columns=["feature", "pattern_id", "size", "key"])
    except TableError as exc:
        raise ShapemillError(str(exc)) from None
    for pid in readings:
        rows = data.filter(pc.equal(data["pattern_id"], pa.scalar(pid, pa.uint64())))
        if rows.num_rows:
            break
    else:
        raise ShapemillError(f"--pattern-id: {pattern_id} is not in {table}")
    from ..patterns.show import pattern_grid  # numba (ring geometry): loaded for pattern ids only

    grid = pattern_grid(rows["key"][0].as_py(), rows["size"][0].as_py())
    half = len(grid) // 2
    points, colors, off = [], [], []
    centre = size // 2
    for r, row in enumerate(grid):
        for c, symbol in enumerate(row):
            at = (centre + c - half, centre + half - r)
            if symbol == "#":
                off.append(at)
            elif symbol in PATTERN_COLORS:
                points.append(at)
                colors.append(PATTERN_COLORS[symbol])
    if not any(colors):
        raise ShapemillError(f"--pattern-id: {pattern_id} has no stones; it is every empty point")
    options = {**options, "anywhere": True, "next": BLACK if options.get("next", 0) == 0 else options["next"]}
    points_a = np.array(points, dtype=np.int64)
    off_a = np.array(off, dtype=np.int64).reshape(-1, 2)
    # shift so that the pattern and its off-board points fit the coordinates of the board
    if len(off_a):
        shift = np.zeros(2, dtype=np.int64)
        for axis in range(2):
            lo, hi = off_a[:, axis].min(), off_a[:, axis].max()
            if hi < points_a[:, axis].min():
                shift[axis] = -1 - hi
            elif lo > points_a[:, axis].max():
                shift[axis] = size - lo
        points_a, off_a = points_a + shift, off_a + shift
    return Query(size, points_a, np.array(colors, dtype=np.int8), off=off_a,
                 source=f"pattern {pid:016x}", **options)

"""Problems from stones, diagrams and SGF files: the position, the goal, the region.

Points are ``(row, col)`` with row 0 at the bottom, as in ``go.Board``. Goals:
``kill P`` and ``live P`` (the string at P is captured, or survives until both
sides pass), ``capture P`` (captured before it reaches ``ESCAPE_LIBERTIES``
liberties: the ladder reader's notion), ``connect A B`` (the strings at A and
B join), ``ladder P`` (``capture`` with only the ladder's moves, on the whole board:
the miner's ladder, ``go.reading.ladder_moves``) and ``score`` (the whole board's
area score, komi 0).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ...datasets.sgf_game import apply_setup, read_game_line
from ...datasets.sources import DEFAULT_MAX_BYTES
from ...errors import ShapemillError, UsageError
from ...files import read_bounded
from ...go.board import Board, IllegalMove
from ...go.rules import BLACK, COLOR, HEAD, MAX_SIZE, NEXT, WHITE, in_atari, new_board, place_setup
from ...go.vertices import color_code, color_name, flat_index, format_vertex, opponent, point_at
from .game import CONNECT, GOAL_FIELDS, LADDER, LIFE, SCORE, Problem, State

Point = tuple[int, int]

#: Liberties at which a string counts as escaped for ``capture``.
ESCAPE_LIBERTIES = 3
GOALS = ("kill", "live", "capture", "ladder", "connect", "score")


def make_problem(size: int, black: Iterable[Point], white: Iterable[Point], to_play: str,
                 goal: str, targets: list[Point] = (), region: Iterable[Point] | None = None) -> Problem:
    """A problem: the stones, the side to move ('b' or 'w'), the goal with its
    target points, and the region (default: the whole board for ``score`` and
    ``ladder``, else the box around the target strings grown by one point)."""
    b, m = new_board(size)
    for color, stones in ((BLACK, black), (WHITE, white)):
        for p in stones:
            place_setup(b, m, color, flat_index(p, size))
    g = np.zeros(GOAL_FIELDS, dtype=np.int64)
    if goal not in GOALS:
        raise UsageError(f"unknown goal {goal!r}: one of {', '.join(GOALS)}")
    need = {"connect": 2, "score": 0}.get(goal, 1)
    if len(targets) != need:
        raise UsageError(f"goal {goal} needs {need} point(s), got {len(targets)}")
    pts = [flat_index(t, size) for t in targets]
    for t, p in zip(targets, pts):
        if b[COLOR, p] not in (BLACK, WHITE):
            raise UsageError(f"goal {goal}: no stone at {format_vertex(t)}")
    if goal == "score":
        g[0] = SCORE
        lo, hi = -size * size, size * size
    else:
        g[0] = {"connect": CONNECT, "ladder": LADDER}.get(goal, LIFE)
        g[1] = pts[0]
        g[2] = pts[-1]
        g[3] = b[COLOR, pts[0]]
        if goal == "connect" and b[COLOR, pts[1]] != g[3]:
            raise UsageError("goal connect: the two strings are not of one colour")
        g[4] = ESCAPE_LIBERTIES if goal in ("capture", "ladder") else 0
        lo, hi = -1, 1
    w = size + 2
    mask = np.zeros(w * w, dtype=np.uint8)
    if goal == "ladder":
        if to_play == color_name(int(g[3])) and not in_atari(b, b[HEAD, pts[0]]):
            raise UsageError("goal ladder: with its own side to move the string must be in atari")
        region = [(r, c) for r in range(size) for c in range(size)]  # its moves are its own
    if region is None:
        region = strings_box(b, pts, size)
    for p in region:
        mask[flat_index(p, size)] = 1
    color = color_code(to_play)
    return Problem(State(b, m, color), g, mask, lo, hi)


def strings_box(b: np.ndarray, stones: list[int], size: int) -> list[Point]:
    """The box around the strings of ``stones`` (flat points, one or more of each
    string) grown by one point; the whole board without any."""
    rows, cols = [], []
    for p in stones:
        s = p
        while True:
            r, c = point_at(s, size)
            rows.append(r)
            cols.append(c)
            s = b[NEXT, s]
            if s == p:
                break
    r0, r1 = (max(0, min(rows) - 1), min(size - 1, max(rows) + 1)) if rows else (0, size - 1)
    c0, c1 = (max(0, min(cols) - 1), min(size - 1, max(cols) + 1)) if cols else (0, size - 1)
    return [(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]


def parse_diagram(rows: list[str]) -> tuple[int, list[Point], list[Point]]:
    """Size and stones of a square diagram, top row first: ``X`` black, ``O`` white, ``.`` empty."""
    size = len(rows)
    black, white = [], []
    for i, line in enumerate(rows):
        cells = line.split()
        if len(cells) != size:
            raise ShapemillError(f"diagram row {i + 1} has {len(cells)} points, not {size}")
        for col, c in enumerate(cells):
            (black if c == "X" else white if c == "O" else []).append((size - 1 - i, col))
    return size, black, white


class SgfPosition(NamedTuple):
    """An SGF file's position: board size, stones, the side to move, and a warning for
    each thing the reader skipped."""

    size: int
    black: list[Point]
    white: list[Point]
    to_play: str
    warnings: list[str]


def read_sgf_position(path: str | Path) -> SgfPosition:
    """The position at the end of an SGF file's main line, read as ``review`` and GTP's
    ``loadsgf`` read a game (``datasets.sgf_game``): setup stones on any node, a move or
    point off the board, an unreadable komi or text outside the charset warned about and
    skipped, the game ended at two passes in a row. The side to move follows the last move
    (``PL`` without moves); a file that is no game, a board past ``MAX_SIZE``, a point
    given to both colours at the root or an illegal move is a one-line error."""
    try:
        line = read_game_line(read_bounded(path, DEFAULT_MAX_BYTES), MAX_SIZE)
    except OSError as e:
        raise ShapemillError(f"{path}: {e.strerror or e}") from None
    except ValueError as e:  # sgfmill's reading of the file, or its board size
        raise ShapemillError(f"{path}: {' '.join(str(e).split()) or 'not an SGF game'}") from None
    root = line.game.get_root()
    both = set.intersection(*(_root_points(root, key) for key in ("AB", "AW")))
    if both:
        raise ShapemillError(f"{path}: AB and AW both set a stone on {format_vertex(min(both))}")
    board = Board(line.size)
    to_play, number = "b", 0
    for step in line.steps:
        board = apply_setup(board, step.setup)
        if step.colour is None:
            continue
        number += 1
        try:
            board.play(step.colour, step.point)
        except IllegalMove as e:
            raise ShapemillError(f"{path}: move {number} is illegal ({e})") from None
        to_play = opponent(step.colour)
    warnings = list(line.warnings)
    if number == 0 and root.has_property("PL"):
        try:
            to_play = root.get("PL")
        except ValueError:
            warnings.append(f"PL[{root.get_raw('PL').decode('latin-1')[:20]}] names no colour; ignored")
    return SgfPosition(line.size, sorted(board.stones("b")), sorted(board.stones("w")), to_play, warnings)


def _root_points(root, key: str) -> set[Point]:
    """The points of the root's setup property ``key`` (none when absent or off the board)."""
    try:
        return set(root.get(key)) if root.has_property(key) else set()
    except ValueError:
        return set()

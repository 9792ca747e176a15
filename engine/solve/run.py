"""``shapemill solve``: read the problem, run the chosen search, say the answer."""

from __future__ import annotations

import re
from pathlib import Path

from ...errors import ShapemillError, UsageError
from ...files import check_writable
from ...go.rules import COLOR
from ...go.vertices import color_name, flat_index, flat_vertex, format_vertex, parse_vertex
from ...patterns.knowledge import Knowledge
from ...tables import TableError
from .alphabeta import alphabeta
from .dfpn import dfpn
from .game import OPEN
from .pns import pns
from .position import make_problem, read_sgf_position
from .solution import write_solution_sgf
from .table import Progress, Result
from .ubfm import ubfm

ALGORITHMS = {"pns": pns, "dfpn": dfpn, "alphabeta": alphabeta, "ubfm": ubfm}


#: One point (a GTP vertex such as ``A7``) or a box of them (``A1-E4``).
_POINTS_WORD = re.compile(r"[a-hj-z]\d{1,2}(-[a-hj-z]\d{1,2})?", re.IGNORECASE)


def points_syntax(text: str) -> bool:
    """Whether ``text`` is one or more points or boxes (``A1-E4,F1``), whatever the board."""
    words = text.replace(",", " ").split()
    return bool(words) and all(_POINTS_WORD.fullmatch(w) for w in words)


def parse_points(text: str, size: int) -> list[tuple[int, int]]:
    """Points from GTP vertices separated by commas or spaces; ``A1-C3`` is the box between them."""
    points: list[tuple[int, int]] = []
    try:
        for part in text.replace(",", " ").split():
            if "-" in part:
                (r0, c0), (r1, c1) = (parse_vertex(v, size) for v in part.split("-", 1))
                points += [(r, c) for r in range(min(r0, r1), max(r0, r1) + 1)
                           for c in range(min(c0, c1), max(c0, c1) + 1)]
            else:
                points.append(parse_vertex(part, size))
    except (TypeError, ValueError) as e:
        raise UsageError(f"bad points {text!r}: {e}") from None
    return points


def _check_side(problem, goal: str, targets: list[tuple[int, int]], size: int, to_play: str) -> None:
    """A command's goal on the wrong side's string (``kill`` or ``capture`` the side to move's
    own, ``live`` the opponent's) is refused before the search, which could only say unknown."""
    for t in targets:
        owner = color_name(int(problem.root.b[COLOR, flat_index(t, size)]))
        if goal in ("kill", "capture") and owner == to_play or goal == "live" and owner != to_play:
            names = {"b": "Black", "w": "White"}
            aim = "a string of the opponent of the side to play" if goal != "live" else "a string of the side to play"
            raise UsageError(f"goal {goal}: {format_vertex(t)} is {names[owner]}'s string and {names[to_play]} "
                             f"is to play; {goal} takes {aim}")


def solve_file(path: str | Path, goal: list[str], to_play: str | None, region: str | None,
               algorithm: str, max_nodes: int, seconds: float | None, sgf_out: str | None = None,
               ratings: str | None = None, progress: Progress | None = None) -> dict:
    """Solve the SGF file's position for ``goal`` (its name and GTP points); the answer as a dict
    with result (for the side to move), move, value, nodes, seconds. ``sgf_out``: where to
    write the solution tree (``solution.py``); ``ratings``: a ratings table whose move strengths
    order the moves (``miner.prior``); ``progress``: called with the nodes and seconds so far, every
    few seconds."""
    size, black, white, sgf_to_play = read_sgf_position(path)
    color = to_play or sgf_to_play
    targets = parse_points(" ".join(goal[1:]), size)
    area = parse_points(region, size) if region else None
    problem = make_problem(size, black, white, color, goal[0], targets, area)
    _check_side(problem, goal[0], targets, size, color)
    if ratings:
        try:
            problem.prior = Knowledge.load(ratings)
        except TableError as e:
            raise ShapemillError(str(e)) from None
    settled = problem.root_value()
    if settled != OPEN:
        return _answer(Result(settled, None, 0, 0.0), goal[0], color, size)
    if sgf_out:
        check_writable(sgf_out)
    tables = ({}, {}) if algorithm == "alphabeta" else None  # the tree goes on from alpha-beta's own table
    if tables is not None:
        result = alphabeta(problem, max_nodes, seconds, (), tables, progress)
    else:
        result = ALGORITHMS[algorithm](problem, max_nodes, seconds, progress)
    if sgf_out:
        write_solution_sgf(sgf_out, problem, result, max(100_000, 4 * result.nodes), tables)
    return _answer(result, goal[0], color, size)


def _answer(r: Result, goal: str, color: str, size: int) -> dict:
    sign = 1 if color == "b" else -1
    if r.value is None:
        result = "unknown"
    else:
        result = "win" if sign * r.value > 0 else "loss" if sign * r.value < 0 else "draw"
    move = None if r.move is None else flat_vertex(r.move, size)
    return {"result": result, "move": move, "value": r.value if goal == "score" else None,
            "nodes": r.nodes, "seconds": round(r.seconds, 3)}

"""``shapemill solve``: read the problem, run the chosen search, say the answer."""

from __future__ import annotations

import re
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

from ...errors import ShapemillError, UsageError
from ...files import check_writable
from ...go.rules import BLACK, COLOR, PASS, WHITE
from ...go.vertices import color_name, flat_index, format_vertex, parse_vertex, point_at
from ...patterns.knowledge import Knowledge
from ...tables import TableError
from .alphabeta import alphabeta
from .dfpn import Dfpn, dfpn
from .game import DEFENDER, KO_FREE, OPEN, STRICT, Problem
from .pns import pns
from .position import make_problem, read_sgf_position
from .solution import write_solution_sgf
from .table import Progress, Result
from .tsumego import Tsumego, crop, read_tsumego
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


#: Nodes each first move's proof gets beyond twice the root's (``first_moves``).
FIRST_MOVE_NODES = 10_000
#: Nodes of a search with a ko threat for every ko (``ko_turns`` and its first moves), in
#: the root's (plus FIRST_MOVE_NODES): it stores less than the root's search
#: (``dfpn._bound_side_wins``); Ishigure's 020 needs 6.9 times, Maeda 1k-5k/015 2.5.
KO_NODES = 8


class GoalError(ShapemillError):
    """A ``--goal`` the position cannot take: a point off the board, or not a stone of the
    colour the goal needs (a usage error, found before any search)."""


def _check_side(problem, goal: str, targets: list[tuple[int, int]], size: int, to_play: str) -> None:
    """A command's goal on the wrong side's string (``kill`` or ``capture`` the side to move's
    own, ``live`` the opponent's) is refused before the search, which could only say unknown."""
    for t in targets:
        owner = color_name(int(problem.root.b[COLOR, flat_index(t, size)]))
        if goal in ("kill", "capture") and owner == to_play or goal == "live" and owner != to_play:
            names = {"b": "Black", "w": "White"}
            aim = "a string of the opponent of the side to play" if goal != "live" else "a string of the side to play"
            raise GoalError(f"goal {goal}: {format_vertex(t)} is {names[owner]}'s string and {names[to_play]} "
                             f"is to play; {goal} takes {aim}")


def solve_file(path: str | Path, goal: list[str] | None, to_play: str | None, region: str | None,
               algorithm: str, max_nodes: int, seconds: float | None, sgf_out: str | None = None,
               ratings: str | None = None, progress: Progress | None = None) -> dict:
    """Solve the SGF file's position for ``goal`` (its name and GTP points); the answer as a dict
    with result (for the side to move), move, value, nodes, seconds. With no goal, the
    position is read as a book's problem (``tsumego.read_tsumego``: the attacker, the group
    at stake, the region unless ``region`` is given), and the answer adds ``status`` in the
    book's terms and ``moves``, every first move that reaches it (``first_moves``).
    ``sgf_out``: where to write the solution tree (``solution.py``); ``ratings``: a ratings
    table whose move strengths order the moves (``patterns.prior``); ``progress``: called with
    the nodes and seconds so far, every few seconds. ``seconds`` bounds the whole answer, a
    book's status and first moves included (its ``seconds`` is the whole answer's)."""
    start = time.perf_counter()
    size, black, white, sgf_to_play, warnings = read_sgf_position(path)
    for warning in warnings:
        print(f"warning: {path}: {warning}", file=sys.stderr, flush=True)
    color = to_play or sgf_to_play
    area = parse_points(region, size) if region else None
    book, offset = None, (0, 0)
    if goal is None:
        book = read_tsumego(size, black, white, **({"max_empties": size * size} if area else {}))
        book = book._replace(region=area or book.region)
        goal = ["kill", format_vertex(book.target)]
    targets = _goal_points(goal, size, black, white)
    if book is not None and not sgf_out:  # the tree is written on the board as it is
        small = crop(size, black, white, book)
        problem = make_problem(small.size, small.black, small.white, color, "kill", [small.target], small.region)
        offset = small.offset
    else:
        problem = make_problem(size, black, white, color, goal[0], targets, area or (book and book.region))
        if book is None:
            _check_side(problem, goal[0], targets, size, color)
    if ratings:
        try:
            problem.prior = Knowledge.load(ratings)
        except TableError as e:
            raise ShapemillError(str(e)) from None
    settled = problem.root_value() if book is None else OPEN  # a book's answer names its first moves
    mover = 1 if color == "b" else -1
    if settled != OPEN and (goal[0] == "ladder" or mover * settled <= 0):  # else the search names the move
        return _answer(Result(settled, None, 0, 0.0), goal[0], color, problem.size)
    if sgf_out:
        check_writable(sgf_out)
    tables = ({}, {}) if algorithm == "alphabeta" else None  # the tree goes on from alpha-beta's own table
    solver = Dfpn(problem) if algorithm == "dfpn" else None  # the first moves' proofs go on from its table
    if tables is not None:
        result = alphabeta(problem, max_nodes, seconds, (), tables, progress)
    elif solver is not None:
        result = solver.solve(problem, max_nodes, seconds, progress)
    else:
        result = ALGORITHMS[algorithm](problem, max_nodes, seconds, progress)
    if sgf_out:
        write_solution_sgf(sgf_out, problem, result, max(100_000, 4 * result.nodes), tables)
    answer = _answer(result, goal[0], color, problem.size, offset)
    if book is not None:
        answer.update(book_answer(problem, book, color, result, time_left(start, seconds), offset, solver))
        answer["seconds"] = round(time.perf_counter() - start, 3)
    return answer


def time_left(start: float, seconds: float | None) -> float | None:
    """Seconds left of ``seconds`` since ``start`` (None: no limit)."""
    return None if seconds is None else max(0.0, seconds - (time.perf_counter() - start))


def _vertex(p: int | None, size: int, offset: tuple[int, int]) -> str | None:
    """The GTP vertex of flat point ``p`` of a ``size`` board whose points are ``offset``
    from the problem's board; 'pass' for a pass, None for no move."""
    if p is None:
        return None
    if p == PASS:
        return "pass"
    r, c = point_at(p, size)
    return format_vertex((r + offset[0], c + offset[1]))


def _goal_points(goal: list[str], size: int, black: list, white: list) -> list[tuple[int, int]]:
    """The goal's points, checked against the position: GoalError for a point off the
    board, without a stone, or (``connect``) of another colour than the first."""
    try:
        targets = parse_points(" ".join(goal[1:]), size)
    except ShapemillError as e:
        raise GoalError(f"--goal: {e}") from None
    colors = [("b" if t in black else "w" if t in white else None) for t in targets]
    for t, c in zip(targets, colors):
        if c is None:
            raise GoalError(f"--goal {goal[0]}: no stone at {format_vertex(t)}")
    if goal[0] == "connect" and len(set(colors)) > 1:
        raise GoalError("--goal connect: the two strings are not of one colour")
    return targets


def book_answer(problem: Problem, book: Tsumego, color: str, result: Result, seconds: float | None,
                offset: tuple[int, int] = (0, 0), solver: Dfpn | None = None,
                among: set[int] | None = None) -> dict:
    """The result in the book's terms for ``color`` to move: ``status`` (kill: the group
    dies; live: it lives; seki: it lives, but not unconditionally, as ``seki_only`` proves;
    ko: the side that loses wins with a ko threat for every ko, as ``ko_turns`` proves;
    unknown: not proved within the budget), for kill, live and seki ``ko_ruled_out``
    (whether ``ko_turns`` proved that the loser does not win with those threats: False
    when it ran out of time or nodes), ``moves`` (every first move that reaches it,
    each proved within the root's budget, ``result``'s move first; for a ko, a side to
    move that wins without the threats keeps those moves, as they win with them too, and
    one that wins only with its threats gets the moves that do, within ``KO_NODES`` times
    the budget), the attacker and the group, all within ``seconds`` (the moves not proved
    in them left out; a winner's moves are listed before the ko check).
    ``solver``: the df-pn table that found ``result``, which the first moves' proofs go
    on from; ``among``: the first moves to try (flat points; None: every move), as a
    benchmark asks only whether a book move wins."""
    start = time.perf_counter()
    if result.value is None:
        status, moves = "unknown", []
    else:
        budget = 2 * result.nodes + FIRST_MOVE_NODES
        ko_budget = KO_NODES * result.nodes + FIRST_MOVE_NODES
        lives = (result.value == 1) == (book.defender == "b")
        wins = lives == (color == book.defender)
        # the winner's moves first, from the root's table: they win with a ko threat for
        # every ko too, so a ko found after them keeps them
        moves = first_moves(problem, budget, seconds, among, solver, result.move) if wins else []
        check = ko_turns(problem, book.defender if lives else book.attacker, ko_budget, time_left(start, seconds))
        if check.threats is not None:
            status = "ko"
            if not wins:  # the side to move wins only with its threats
                moves = first_moves(with_ko_threats(problem, color), ko_budget, time_left(start, seconds), among,
                                    check.threats)
        else:
            seki = lives and seki_only(problem, budget, time_left(start, seconds))
            status = "kill" if not lives else "seki" if seki else "live"
    answer = {"status": status, "moves": [_vertex(p, problem.size, offset) for p in moves],
              "attacker": book.attacker, "group": format_vertex(book.target)}
    if status in ("kill", "live", "seki"):
        answer["ko_ruled_out"] = check.settled
    return answer


def with_ko_threats(problem: Problem, side: str) -> Problem:
    """The problem with a ko threat for every ko for ``side`` ('b' or 'w'; ``game.KO_FREE``)."""
    return _with_goal(problem, KO_FREE, BLACK if side == "b" else WHITE)


def _with_goal(problem: Problem, field: int, value: int) -> Problem:
    """The problem with its goal's ``field`` set to ``value`` (the same position and maps)."""
    goal = problem.goal.copy()
    goal[field] = value
    return replace(problem, goal=goal, maps=problem.maps)


class KoCheck(NamedTuple):
    """What ``ko_turns`` found: the df-pn table that proves the fight turns on a ko (None
    when it does not, or was not proved to), and whether the search settled the question."""

    threats: Dfpn | None
    settled: bool


def ko_turns(problem: Problem, winner: str, max_nodes: int, seconds: float | None) -> KoCheck:
    """Whether the side that loses to ``winner`` ('b' or 'w') wins instead with a ko threat
    for every ko (the fight turns on a ko), searched within ``max_nodes`` and ``seconds``:
    the df-pn table that proves it (for ``first_moves`` after it), and whether the search
    settled the question either way."""
    loser = "w" if winner == "b" else "b"
    threats = with_ko_threats(problem, loser)
    solver = Dfpn(threats)
    value = solver.solve(threats, max_nodes, seconds).value
    wins = value is not None and (value == 1) == (loser == "b")
    return KoCheck(solver if wins else None, value is not None)


def seki_only(problem: Problem, max_nodes: int, seconds: float | None) -> bool:
    """Whether a group that lives (its ``kill`` goal fails) cannot live unconditionally: df-pn
    proves, within ``max_nodes`` and ``seconds``, that with both sides passing at the end
    the group is not alive by Benson's test (``game.STRICT``), so its life is a seki."""
    strict = _with_goal(problem, STRICT, 1)
    value = strict.root_value()
    if value == OPEN:
        value = dfpn(strict, max_nodes, seconds).value
    defender = 1 if problem.goal[DEFENDER] == BLACK else -1
    return value is not None and value * defender < 0


def first_moves(problem: Problem, max_nodes: int, seconds: float | None,
                among: set[int] | None = None, solver: Dfpn | None = None, first: int | None = None) -> list[int]:
    """Every move of the side to move (of those ``among``, flat points, if given) that wins
    its goal, each proved by df-pn within ``max_nodes``, all of them within ``seconds`` (a
    move not proved in them is left out), ``first`` (a move known to win) tried first. The
    proofs share one table (``solver``'s if it serves the problem: the one that solved it),
    so that what one proves the next reads. ``first`` comes first in the list, the others
    in the board's order."""
    start = time.perf_counter()
    root = problem.root
    mover = 1 if root.color == BLACK else -1
    moves, _, _, values = problem.expand(root)
    solver = solver if solver is not None and solver.serves(problem) else Dfpn(problem)
    tried = sorted(range(len(moves)), key=lambda i: moves[i] != first)
    found = set()
    for i in tried:
        move, value = int(moves[i]), int(values[i])
        if among is not None and move not in among:
            continue
        if value == OPEN:
            child = replace(problem, root=problem.child(root, move), maps=problem.maps)
            value = child.root_value()
            if value == OPEN:
                value = solver.solve(child, max_nodes, time_left(start, seconds)).value
        if value is not None and mover * value > 0:
            found.add(move)
    return sorted((move for move in moves.tolist() if move in found), key=lambda move: move != first)


def _answer(r: Result, goal: str, color: str, size: int, offset: tuple[int, int] = (0, 0)) -> dict:
    sign = 1 if color == "b" else -1
    if r.value is None:
        result = "unknown"
    else:
        result = "win" if sign * r.value > 0 else "loss" if sign * r.value < 0 else "draw"
    move = _vertex(r.move, size, offset)
    return {"result": result, "move": move, "value": r.value if goal == "score" else None,
            "nodes": r.nodes, "seconds": round(r.seconds, 3)}

"""A book problem on a whole board whose rest is settled (a "tsumego frame", as GUIs build
one for an engine that plays whole games): the problem's region as ``read_tsumego`` reads
it, the attacker's living area around it, the defender's beyond, and a komi by which the
attacker wins by ``LEAD`` points if the group at stake dies and loses if it lives. An
engine asked for a move there plays the problem; docs/solve.md ("The engine on framed
problems") says how it is measured.
"""

from __future__ import annotations

from typing import NamedTuple

from ...go.vertices import Point
from .tsumego import Tsumego

#: The attacker's lead on the board's area (Chinese counting) when the group at stake
#: dies. A group that lives holds at least its stones and two eyes, which the attacker
#: then lacks: the score moves by twice that, far more than the lead, so a living group
#: loses the attacker the game. Half a point more than an integer: no jigo.
LEAD = 2.5
#: Eyes of the frame's areas lie on a lattice of this step (rows and columns): every
#: string of the frame surrounds several, so the frame is alive as it stands.
EYE_STEP = 3


class Framed(NamedTuple):
    """The whole-board position: every stone of the problem and of the frame, and the komi."""

    black: list[Point]
    white: list[Point]
    komi: float


def frame_problem(size: int, black: list[Point], white: list[Point], t: Tsumego) -> Framed:
    """``black`` and ``white`` (a book problem read as ``t``) framed on a ``size`` board:
    the box of ``t.region`` and the problem's stones kept as it is, the points around it
    the attacker's living area out to the distance that gives it, with the box, about half
    the board, the rest the defender's; each area filled with its stones but for an eye on every
    ``EYE_STEP``-lattice point whose neighbours are all its own."""
    kept = [*t.region, *black, *white]
    box = (min(r for r, _ in kept), max(r for r, _ in kept), min(c for _, c in kept), max(c for _, c in kept))
    outside = [(r, c) for r in range(size) for c in range(size) if _distance((r, c), box) > 0]
    inside = (box[1] - box[0] + 1) * (box[3] - box[2] + 1)
    attacker_area = _attacker_area(outside, box, (size * size) / 2 - inside, size)
    defender_area = set(outside) - attacker_area
    if len(_eyes(defender_area, box, size)) < 2:  # too small to live: the attacker's
        attacker_area |= defender_area
        defender_area = set()
    stones = {"b": list(black), "w": list(white)}
    for colour, area in ((t.attacker, attacker_area), (t.defender, defender_area)):
        stones[colour] += sorted(area - _eyes(area, box, size))
    # the group dead: the attacker holds its area and the whole box, the defender its own
    dead = {t.attacker: len(attacker_area) + inside, t.defender: len(defender_area)}
    komi = dead["b"] - dead["w"] - (LEAD if t.attacker == "b" else -LEAD)
    return Framed(stones["b"], stones["w"], komi)


def _distance(p: Point, box: tuple[int, int, int, int]) -> int:
    """Rows or columns (the larger) from ``p`` to the box; 0 inside it."""
    r, c = p
    return max(box[0] - r, r - box[1], box[2] - c, c - box[3], 0)


def _attacker_area(outside: list[Point], box: tuple[int, int, int, int], share: float, size: int) -> set[Point]:
    """The points of ``outside`` within a distance of the box that is at least 3 (a wall with
    eyes behind it), holds ``share`` points (with the box, half the board: the komi then
    stays near the lead) and two eyes (a thin band around a large box has none), unless
    it is all of ``outside``."""
    reach = 3
    while True:
        area = {p for p in outside if _distance(p, box) <= reach}
        if len(area) == len(outside) or len(area) >= share and len(_eyes(area, box, size)) >= 2:
            return area
        reach += 1


def _eyes(area: set[Point], box: tuple[int, int, int, int], size: int) -> set[Point]:
    """The points of ``area`` left empty as its eyes: on the lattice, not next to the box
    (the problem's stones must not reach them), every neighbour in the area."""
    def eye(p: Point) -> bool:
        r, c = p
        if r % EYE_STEP != 1 or c % EYE_STEP != 1 or _distance(p, box) < 2:
            return False
        near = [(r + dr, c + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))]
        return all(q in area for q in near if 0 <= q[0] < size and 0 <= q[1] < size)

    return {p for p in area if eye(p)}

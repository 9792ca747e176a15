"""Proven life and death of the strings of a finished game, for ``gtp final_status_list``.

A string is proved alive when its attacker, moving first, cannot capture it, and proved
dead when its defender, moving first, cannot save it (``kill`` goals, so seki counts as
alive), each by proof-number search within ``PROOF_NODES`` nodes and ``PROOF_SECONDS``
inside the box around the string grown by one point, the stones outside it immortal. The
box grows until it holds every string of the defender's that it touches: a defender's
string cut by the box would be immortal, and the target could live by joining it.
Strings whose box holds more than ``MAX_REGION_EMPTIES`` empty points are not tried.
"""

from __future__ import annotations

import numpy as np

from ...go.rules import COLOR, EMPTY, HEAD
from ...go.vertices import flat_index, opponent, point_at
from .pns import pns
from .position import make_problem, strings_box

#: Node budget of each proof (one for each side to move).
PROOF_NODES = 2_000
#: Seconds each proof may take.
PROOF_SECONDS = 0.5
#: Largest number of empty points in a string's region for a proof to be tried.
MAX_REGION_EMPTIES = 24

Point = tuple[int, int]


def proven_status(size: int, black: set[Point], white: set[Point]) -> dict[Point, str]:
    """'alive' or 'dead' for every stone of each string whose status the solver proves."""
    found: dict[Point, str] = {}
    done: set[int] = set()
    for color, stones in (("b", black), ("w", white)):
        attacker = opponent(color)
        for point in sorted(stones):
            kill = make_problem(size, list(black), list(white), attacker, "kill", [point])
            b = kill.root.b
            head = int(b[HEAD, flat_index(point, size)])
            if head in done:
                continue
            done.add(head)
            region = defender_box(b, strings_box(b, [head], size), size, int(b[COLOR, head]))
            if sum(1 for q in region if b[COLOR, flat_index(q, size)] == EMPTY) > MAX_REGION_EMPTIES:
                continue
            kill = make_problem(size, list(black), list(white), attacker, "kill", [point], region)
            status = None
            if pns(kill, PROOF_NODES, PROOF_SECONDS).value == (-1 if attacker == "b" else 1):
                status = "alive"  # the attacker, moving first, cannot capture it
            else:
                save = make_problem(size, list(black), list(white), color, "kill", [point], region)
                if pns(save, PROOF_NODES, PROOF_SECONDS).value == (1 if attacker == "b" else -1):
                    status = "dead"  # the defender, moving first, cannot save it
            if status:
                string = [point_at(p, size) for p in range(b.shape[1])
                          if b[COLOR, p] != EMPTY and int(b[HEAD, p]) == head]
                found.update((s, status) for s in string)
    return found


def defender_box(b: np.ndarray, start: list[Point], size: int, defender: int) -> list[Point]:
    """The smallest box holding the box ``start`` and every defender's string it touches."""
    rows, cols = zip(*start)
    box = [min(rows), max(rows), min(cols), max(cols)]
    while True:
        inside = {int(b[HEAD, flat_index((r, c), size)]) for r in range(box[0], box[1] + 1)
                  for c in range(box[2], box[3] + 1) if b[COLOR, flat_index((r, c), size)] == defender}
        pts = [point_at(p, size) for p in range(b.shape[1])
               if b[COLOR, p] == defender and int(b[HEAD, p]) in inside]
        grown = [min(box[0], *(r for r, _ in pts)), max(box[1], *(r for r, _ in pts)),
                 min(box[2], *(c for _, c in pts)), max(box[3], *(c for _, c in pts))]
        if grown == box:
            return [(r, c) for r in range(box[0], box[1] + 1) for c in range(box[2], box[3] + 1)]
        box = grown

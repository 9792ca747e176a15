"""Proven life and death of the strings of a finished game, for ``gtp final_status_list``.

A string is proved alive when its attacker, moving first, cannot capture it, and proved
dead when its defender, moving first, cannot save it (``kill`` goals, so seki counts as
alive), each by proof-number search within ``PROOF_NODES`` nodes and ``PROOF_SECONDS``
inside the box around the string grown by one point, the stones outside it immortal.
Strings whose box holds more than ``MAX_REGION_EMPTIES`` empty points are not tried.
"""

from __future__ import annotations

from ...go.rules import COLOR, EMPTY, HEAD
from .pns import pns
from .position import make_problem

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
    w = size + 2
    for color, stones in (("b", black), ("w", white)):
        attacker = "w" if color == "b" else "b"
        for point in sorted(stones):
            kill = make_problem(size, list(black), list(white), attacker, "kill", [point])
            b = kill.root.b
            head = int(b[HEAD, (point[0] + 1) * w + point[1] + 1])
            if head in done:
                continue
            done.add(head)
            empties = sum(1 for p in range(b.shape[1]) if kill.region[p] and b[COLOR, p] == EMPTY)
            if empties > MAX_REGION_EMPTIES:
                continue
            status = None
            if pns(kill, PROOF_NODES, PROOF_SECONDS).value == (-1 if attacker == "b" else 1):
                status = "alive"  # the attacker, moving first, cannot capture it
            else:
                save = make_problem(size, list(black), list(white), color, "kill", [point])
                if pns(save, PROOF_NODES, PROOF_SECONDS).value == (1 if attacker == "b" else -1):
                    status = "dead"  # the defender, moving first, cannot save it
            if status:
                string = [(p // w - 1, p % w - 1) for p in range(b.shape[1])
                          if b[COLOR, p] != EMPTY and int(b[HEAD, p]) == head]
                found.update((s, status) for s in string)
    return found

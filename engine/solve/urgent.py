"""Life and death that the next move decides, read before a ``genmove`` (``--read-life``).

The search reads ladders at every node (the table's ladder features) but not life and
death: on 9x9 its lost games are large groups that die in fights. Before the search, every
string whose local region (``status.defender_box``: the box around it grown by one point
and by every string of its owner it touches, the stones outside immortal) holds at most
``MAX_REGION_EMPTIES`` empty points is read by df-pn, within ``PROOF_NODES`` nodes a
proof: can its attacker capture it moving first, and can its owner save it moving first?
A string both can is *urgent*: the side to move kills it (an opponent's string) or saves
it (its own) with the first move of that proof. The search still chooses; the urgent
move only starts with a larger share of the root's prior (``raise_urgent``).

Proofs are kept by the stones of the region and of the points around it, so a string read
on one move costs nothing on the next unless a stone near it changed; reading stops after
the seconds it is given, the largest strings read first.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from ...go.board import Board
from ...go.rules import BLACK, COLOR, EMPTY, HEAD, PASS, STONES, WHITE, illegal_reason
from ...go.vertices import color_name, flat_index, point_at
from .dfpn import dfpn
from .position import make_problem, strings_box
from .status import MAX_REGION_EMPTIES, defender_box

#: Node budget of each proof: df-pn visits about 200,000 nodes a second here, so a proof
#: costs at most a few hundredths of a second; most settle in a few hundred nodes.
PROOF_NODES = 5_000
#: Proofs kept before the memory of them is cleared (a few MB).
MEMORY = 20_000
#: Stones at which an urgent move gets half of the root's prior: a string of ``s``
#: stones gives its move ``s / (s + URGENT_HALF)`` of the prior, so that saving or
#: killing one stone stays a candidate among others and a large group's fate leads.
URGENT_HALF = 3


class Urgent(NamedTuple):
    """A move (flat board point) that kills or saves the string of ``head`` (flat
    board point), of ``stones`` stones, whose fate the next move decides; ``kill``:
    the string is the opponent's."""

    point: int
    head: int
    stones: int
    kill: bool


class LifeReader:
    """Reads the urgent strings of positions, keeping its proofs from one move to the next."""

    def __init__(self, nodes: int = PROOF_NODES) -> None:
        self.nodes = nodes
        self.proofs: dict[tuple, tuple[bool | None, int | None]] = {}

    def urgent(self, board: Board, color: int, seconds: float) -> list[Urgent]:
        """The urgent strings of ``board`` with ``color`` to move, largest first, read
        within about ``seconds`` (strings not reached by then are left unread)."""
        start = time.perf_counter()
        if len(self.proofs) > MEMORY:
            self.proofs.clear()
        size, b, m = board.size, board.b, board.m
        found = []
        for head, stones in _strings_largest_first(b):
            if time.perf_counter() - start > seconds:
                break
            owner = int(b[COLOR, head])
            region = defender_box(b, strings_box(b, [head], size), size, owner)
            if sum(1 for q in region if b[COLOR, flat_index(q, size)] == EMPTY) > MAX_REGION_EMPTIES:
                continue
            near = _stones_near(b, region, size)
            falls, kill = self._lives(board, region, near, head, BLACK + WHITE - owner)
            if falls is not False:  # it lives with its attacker moving first, or was not read
                continue
            lives, save = self._lives(board, region, near, head, owner)
            move = save if owner == color else kill
            if lives and move not in (None, PASS) and illegal_reason(b, m, color, move) == 0:
                found.append(Urgent(move, head, stones, owner != color))
        return found

    def _lives(self, board: Board, region: list, near: tuple, head: int,
               first: int) -> tuple[bool | None, int | None]:
        """Whether the string of ``head`` lives in ``region`` (whose stones and those
        around it are ``near``) with ``first`` to move (None when the proof runs out
        of nodes), and the first mover's best move."""
        size, b = board.size, board.b
        key = (head, first, near)
        if key not in self.proofs:
            problem = make_problem(size, board.stones("b"), board.stones("w"), color_name(first), "kill",
                                   [point_at(head, size)], region)
            r = dfpn(problem, self.nodes)
            lives = None if r.value is None else (r.value == 1) == (int(b[COLOR, head]) == BLACK)
            self.proofs[key] = (lives, r.move)
        return self.proofs[key]


def raise_urgent(strength: np.ndarray, urgent: list[Urgent]) -> np.ndarray:
    """The root's move strengths with each urgent move raised to ``s / (s + URGENT_HALF)``
    of their total (``s`` the string's stones), unless it has that already."""
    raised = strength.copy()
    total = float(strength.sum())
    for u in urgent:
        raised[u.point] = max(raised[u.point], total * u.stones / (u.stones + URGENT_HALF))
    return raised


def _stones_near(b: np.ndarray, region: list, size: int) -> tuple:
    """The points of ``region`` and those next to it, and their colours: what a proof
    in ``region`` depends on."""
    around = {flat_index(q, size) for q in region}
    around = sorted(around | {p + d for p in around for d in (-1, 1, -(size + 2), size + 2)})
    return tuple(around), b[COLOR, around].tobytes()


def _strings_largest_first(b: np.ndarray) -> list[tuple[int, int]]:
    """(head, stones) of every string on the board, the largest first."""
    heads = np.flatnonzero((b[HEAD] == np.arange(b.shape[1])) & ((b[COLOR] == BLACK) | (b[COLOR] == WHITE)))
    return sorted(((int(h), int(b[STONES, h])) for h in heads), key=lambda hs: (-hs[1], hs[0]))

"""The miner's ladders against the solver's, position by position of real games.

In every position, for every move of the side to move whose ladder feature the
miner reads (``patterns/features/strings.py``: an extension to exactly two liberties,
and an atari on a two-liberty string that the defender does not escape at once),
both are asked whether the string is caught: the miner's reader
(``go.reading.ladder_reading``, its budget) and PNS on the solver's ``ladder`` goal
(exact within its node budget). A reading the budget cut (``UNREAD``) counts as an
escape in the miner's features; it is tallied apart, with what the solver says.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from ...datasets.corpus import Corpus
from ...go.reading import (
    CAUGHT,
    UNREAD,
    escapes_at_once,
    ladder_verdict,
    legal_moves,
    libs_after,
    reading_scratch,
    string_libs3,
)
from ...go.rules import BLACK, BORDER, COLOR, EMPTY, HEAD, OK, PASS, SIZE, STRIDE, illegal_reason, play, to_point
from ...go.vertices import color_name, flat, flat_vertex
from ...patterns.features import N_FEATURES, tactical_features_with
from ...patterns.features.table import F_LADDER
from .game import LADDER, Problem, State
from .pns import pns
from .position import ESCAPE_LIBERTIES


@njit(cache=True)
def ladder_questions(b: np.ndarray, m: np.ndarray, color: int, libs3: np.ndarray, mark: np.ndarray,
                     out: np.ndarray) -> int:
    """Rows (move, target stone, defender to move) of the ladders the miner reads for
    ``color``'s moves (the conditions of ``string_features``); returns their number.
    ``libs3``: ``string_libs3`` of the position; ``out``: ``[4 * points, 3]``."""
    w = m[STRIDE]
    n = m[SIZE]
    other = 3 - color
    k = 0
    heads = np.empty(4, dtype=np.int64)
    for r in range(n):
        for c in range(n):
            p = flat(r, c, w)
            if b[COLOR, p] != EMPTY or illegal_reason(b, m, color, p) != OK:
                continue
            extends = False
            captures = False
            nh = 0
            for q in (p - 1, p + 1, p - w, p + w):
                if b[COLOR, q] == color and libs3[b[HEAD, q]] == 1:
                    extends = True
                if b[COLOR, q] == other:
                    h = b[HEAD, q]
                    if libs3[h] == 1:
                        captures = True
                    elif libs3[h] == 2:
                        fresh = True
                        for j in range(nh):
                            fresh = fresh and heads[j] != h
                        if fresh:
                            heads[nh] = h
                            nh += 1
            if extends and libs_after(b, m, color, p, 3, mark)[0] == 2:
                out[k, 0], out[k, 1], out[k, 2] = p, p, 0
                k += 1
            for i in range(nh):
                h = heads[i]
                if not captures and escapes_at_once(b, m, other, h, p, mark):
                    continue
                out[k, 0], out[k, 1], out[k, 2] = p, h, 1
                k += 1
    return k


def solver_caught(b: np.ndarray, m: np.ndarray, to_move: int, target: int, region: np.ndarray,
                  max_nodes: int) -> tuple[bool | None, int]:
    """Whether PNS proves the string of ``target`` caught on the ``ladder`` goal (None:
    not within ``max_nodes``), and its nodes."""
    d = int(b[COLOR, target])
    goal = np.array([LADDER, target, target, d, ESCAPE_LIBERTIES, 0], dtype=np.int64)
    r = pns(Problem(State(b, m, to_move), goal, region), max_nodes)
    if r.value is None:
        return None, r.nodes
    return r.value == (-1 if d == BLACK else 1), r.nodes


@dataclass
class LadderTally:
    """How the miner's readings and the solver's proofs compare."""

    games: int = 0
    positions: int = 0
    caught: int = 0  # both say caught
    escaped: int = 0  # both say escaped
    disagree: int = 0  # the miner read to the end and the solver says otherwise
    unread_caught: int = 0  # the miner's budget cut its reading (an escape to it); the solver: caught
    unread_escaped: int = 0  # the same, and the solver: escaped
    unfinished: int = 0  # the solver ran out of nodes
    solver_nodes: list[int] = field(default_factory=list)

    @property
    def questions(self) -> int:
        return (self.caught + self.escaped + self.disagree + self.unread_caught + self.unread_escaped
                + self.unfinished)


def compare_ladders(corpus: Corpus, max_nodes: int = 20_000, report: Callable[[str], None] | None = None,
                    more: Callable[[], bool] = lambda: True) -> LadderTally:
    """Replay every game of ``corpus`` (while ``more()``) and ask both readers every ladder
    question of every position; ``report`` gets a line for each disagreement, unread
    reading and unfinished proof. Checks that every move with a ladder feature was asked."""
    tally = LadderTally()
    rows = np.empty((4 * 25 * 25, 3), dtype=np.int64)
    for i in range(len(corpus)):
        if not more():
            break
        b, m = corpus.start_position(i)
        size = int(corpus.board_size[i])
        region = (b[COLOR] != BORDER).astype(np.uint8)
        scratch = reading_scratch(b, m)
        libs3, mark = scratch.libs3, scratch.mark
        color = int(corpus.first_color[i])
        for move_no, index in enumerate(corpus.game_moves(i).tolist(), 1):
            string_libs3(b, m, libs3)
            k = ladder_questions(b, m, color, libs3, mark, rows)
            legal = legal_moves(b, m, color)
            feats = np.zeros((len(legal), N_FEATURES), dtype=np.int32)
            tactical_features_with(b, m, color, legal, feats, scratch)
            missed = set(legal[feats[:, F_LADDER] != 0].tolist()) - set(rows[:k, 0].tolist())
            if missed:
                raise AssertionError(f"{corpus.ids[i]} move {move_no}: ladder features not asked at {missed}")
            tally.positions += 1
            for p, target, defender_to_move in rows[:k].tolist():
                b2, m2 = b.copy(), m.copy()
                play(b2, m2, color, p)
                miner = int(ladder_verdict(b2, m2, target, bool(defender_to_move)))
                solver, nodes = solver_caught(b2, m2, 3 - color, target, region, max_nodes)
                tally.solver_nodes.append(nodes)
                kind = _kind(miner, solver)
                setattr(tally, kind, getattr(tally, kind) + 1)
                if report and kind not in ("caught", "escaped", "unread_escaped"):
                    report(f"{kind} {corpus.ids[i]} move {move_no}: {color_name(color)} "
                           f"{flat_vertex(p, size)}")
            p = PASS if index < 0 else to_point(index, size)
            if p != PASS and illegal_reason(b, m, color, p) != OK:
                break
            play(b, m, color, p)
            color = 3 - color
        tally.games += 1
    return tally


def _kind(miner: int, solver: bool | None) -> str:
    """The tally field of one question."""
    if solver is None:
        return "unfinished"
    if miner == UNREAD:
        return "unread_caught" if solver else "unread_escaped"
    if (miner == CAUGHT) != solver:
        return "disagree"
    return "caught" if solver else "escaped"

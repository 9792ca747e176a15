"""The end-of-game choices around the search: pass, resign, dead stones.

A room of the search; the rooms' reading order is in this package's ``__init__``.
"""

from __future__ import annotations

import numpy as np

from ...go.board import Board
from ...go.reading import runs_dead_ladder
from ...go.rules import BLACK, COLOR, PASS, WHITE
from ...go.vertices import point_at
from ...patterns.prior import KnowledgeArrays
from .search import Budget, Search, SearchResult

#: The move that resigns, beside the board points and PASS.
RESIGN = -2
#: Visits of the most visited move before its win rate is trusted enough to resign on
#: (fewer, early in a search by time, are noise).
RESIGN_MIN_VISITS = 50
#: A stone is dead when its point's mean ownership in the playouts (+1 its colour, -1
#: the other's) is below minus this: the other side owns it in about 65% of the playouts.
DEAD_OWNERSHIP = 0.3


def dead_stones(board: Board, owner: np.ndarray) -> list[tuple[int, int]]:
    """Stones that the playouts mostly give to the other side."""
    dead = []
    for p in np.flatnonzero((board.b[COLOR] == BLACK) | (board.b[COLOR] == WHITE)):
        sign = 1 if board.b[COLOR, p] == BLACK else -1
        if owner[p] * sign < -DEAD_OWNERSHIP:
            dead.append(point_at(int(p), board.size))
    return dead


def score_without_dead(board: Board, owner: np.ndarray, komi: float) -> float:
    """Area score (Black minus White) after removing the stones ``dead_stones`` finds."""
    dead = set(dead_stones(board, owner))
    cleared = Board(board.size)
    for name in ("b", "w"):
        cleared.setup(name, sorted(board.stones(name) - dead))
    return cleared.score(komi)


def choose_move(
    search: Search, board: Board, color: int, opponent_passed: bool, prior: np.ndarray | None = None,
    knowledge: KnowledgeArrays | None = None, budget: Budget | None = None, stop=None,
) -> SearchResult:
    """The engine's move: pass once the opponent has passed and the game is won as
    the board stands both counting every stone (Tromp-Taylor) and with the
    playouts' dead stones removed, so a referee's dead-stone removal cannot turn
    the result; else the search's most visited move, or resign below the threshold.
    ``prior`` is the per-point prior of the root's moves (e.g. ``MovePrior``),
    ``knowledge`` that of the nodes below (``MovePrior.knowledge``), ``budget`` the
    search's playouts or seconds (default: the config's), ``stop`` an Event that ends the
    search early when set (GoGui's interrupt). With
    ``check_ladders``, a move that runs a dead ladder gives way to the root's most
    visited move (then highest prior) that does not."""
    result = search.run(board, color, prior, knowledge, stop=stop, budget=budget)
    if (result.move != PASS and result.winrate < search.config.resign
            and result.visits[result.move] >= RESIGN_MIN_VISITS):
        result.move = RESIGN
    sign = 1 if color == BLACK else -1
    komi = search.config.komi
    if opponent_passed and min(board.score(komi) * sign, score_without_dead(board, result.owner, komi) * sign) > 0:
        result.move = PASS
    if search.config.check_ladders and result.move > 0 and runs_dead_ladder(board.b, board.m, color, result.move):
        prior = result.prior if len(result.prior) == len(result.visits) else np.zeros(len(result.visits))
        for p in np.lexsort((-prior, -result.visits)):  # most visited, then by prior: the root's children
            if result.visits[p] == 0 and prior[p] <= 0:
                break
            if p > 0 and not runs_dead_ladder(board.b, board.m, color, p):
                result.move = int(p)
                break
    return result

"""Nested Monte-Carlo Search as Cazenave (2009) writes it, for a single agent.

``nmcs(game, state, level)``: at each step, for every move ``m`` of the position, the
score of the level below from the position after ``m`` (a playout at level 1, a nested
search of level ``level - 1`` above); whenever one beats the best score so far, its
sequence (``m``, then what the level below played) becomes the best sequence; the move
played is the best sequence's move at this step, so that the best sequence found is
memorised and followed; at the end of the game, the score of the position reached (at
least the best score found) and the moves played.

Go is a two-player game: the single-agent problem in it is one colour's moves in a row.
``OwnMoves`` is that problem: ``length`` moves of one colour, the other passing, scored
by that colour's area (Tromp-Taylor, no komi): the most a player can make of ``length``
free moves (what a tenuki leaves the opponent, or a group's ``length``-move reading
without answers). Its level-0 playout plays random legal moves that fill no own eye
(numba). The two-player variant used as a playout policy (``nested1``, ``nested2``,
Cazenave et al. 2016) is another algorithm: ``playout_nested``.
"""

from __future__ import annotations

from typing import Protocol, Sequence

import numpy as np
from numba import njit

from ...go.board import Board
from ...go.rules import BLACK, PASS, area_score, play
from .random import playout_moves


class SingleAgentGame(Protocol):
    """What NMCS reads of a single-agent game."""

    def moves(self, state) -> Sequence:
        """The moves of ``state``; none at the end of the game."""

    def play(self, state, move):
        """The state after ``move`` (``state`` unchanged)."""

    def score(self, state) -> float:
        """The score of a state at the end of the game."""

    def playout(self, state) -> tuple[float, list]:
        """A level-0 playout from ``state``: its final score and its moves."""


def nmcs(game: SingleAgentGame, state, level: int) -> tuple[float, list]:
    """Cazenave's Nested Monte-Carlo Search of ``level`` (>= 1) from ``state``: the final
    score of the sequence it plays, and that sequence (the best found, followed)."""
    best_score, best_seq = -np.inf, []
    played: list = []
    while True:
        moves = game.moves(state)
        if len(moves) == 0:
            return game.score(state), played
        for move in moves:
            after = game.play(state, move)
            score, seq = game.playout(after) if level <= 1 else nmcs(game, after, level - 1)
            if score > best_score:
                best_score, best_seq = score, played + [move] + list(seq)
        move = best_seq[len(played)]
        state = game.play(state, move)
        played.append(move)


@njit(cache=True)
def _own_moves(b: np.ndarray, m: np.ndarray, color: int) -> np.ndarray:
    """The moves of ``color``: legal, filling no own eye."""
    cands = np.empty(b.shape[1], dtype=np.int64)
    return cands[:playout_moves(b, m, color, cands)].copy()


@njit(cache=True)
def _own_playout(b: np.ndarray, m: np.ndarray, color: int, left: int, moves: np.ndarray) -> tuple[float, int]:
    """Random own moves (the other colour passing), at most ``left``, in place: ``color``'s
    area less the other's (no komi) and how many moves were written to ``moves``."""
    cands = np.empty(b.shape[1], dtype=np.int64)
    n = 0
    while n < left:
        k = playout_moves(b, m, color, cands)
        if k == 0:
            break
        p = cands[np.random.randint(k)]
        play(b, m, color, p)
        play(b, m, 3 - color, PASS)
        moves[n] = p
        n += 1
    score = area_score(b, m, 0.0)
    return (score if color == BLACK else -score), n


class OwnMoves:
    """The single-agent problem of ``length`` moves of ``color`` in a row from ``board``
    (the other colour passing), scored by ``color``'s area less the other's. A state is
    ``(b, m, moves left)``."""

    def __init__(self, board: Board, color: int, length: int) -> None:
        self.color = color
        self.start = (board.b.copy(), board.m.copy(), int(length))

    def moves(self, state) -> np.ndarray:
        b, m, left = state
        return _own_moves(b, m, self.color) if left > 0 else np.empty(0, dtype=np.int64)

    def play(self, state, move):
        b, m, left = state
        b2, m2 = b.copy(), m.copy()
        play(b2, m2, self.color, int(move))
        play(b2, m2, 3 - self.color, PASS)
        return b2, m2, left - 1

    def score(self, state) -> float:
        b, m, _ = state
        s = area_score(b, m, 0.0)
        return s if self.color == BLACK else -s

    def playout(self, state) -> tuple[float, list]:
        b, m, left = state
        moves = np.empty(max(left, 1), dtype=np.int64)
        score, n = _own_playout(b.copy(), m.copy(), self.color, left, moves)
        return score, [int(p) for p in moves[:n]]

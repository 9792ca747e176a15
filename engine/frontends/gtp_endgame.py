"""GTP's end of the game: ``final_score``, ``final_status_list`` and KGS's cleanup phase
(``kgs-genmove_cleanup``), on the playouts' ownership, the solver's proofs and seki."""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from ...go import rules
from ...go.reading import libs_after_up_to_2
from ...go.seki import seki_stones
from ...go.vertices import flat_index, format_vertex, point_at
from ..search import Budget, Search, dead_stones, score_without_dead
from ..solve.status import proven_status
from .game_state import GameState
from .gtp_time import TimeCommands
from .katago import area_note
from .protocol import GtpError, parse_color


class EndgameCommands:
    """The scoring commands of a GTP session; ``genmove`` is the session's, which the cleanup
    phase falls back on when no dead stone is left to capture."""

    def __init__(self, state: GameState, clock: TimeCommands, genmove: Callable[[list[str]], str]) -> None:
        self.state = state
        self.clock = clock
        self.genmove = genmove

    def commands(self) -> dict[str, Callable[[list[str]], str]]:
        """The end-of-game commands by name."""
        return {"final_score": self.cmd_final_score, "final_status_list": self.cmd_final_status_list,
                "genmove_cleanup": self.cmd_genmove_cleanup, "kgs-genmove_cleanup": self.cmd_genmove_cleanup}

    def _ownership(self) -> np.ndarray:
        s = self.state
        c = rules.BLACK if s.to_move() == "b" else rules.WHITE
        return Search(s.config).run(s.board, c, budget=Budget(s.config.playouts)).owner

    def cmd_final_score(self, a: list[str]) -> str:
        score = score_without_dead(self.state.board, self._ownership(), self.state.config.komi)
        if area_note(self.state.rules) is not None:
            print(f"final_score: {area_note(self.state.rules)}", file=sys.stderr, flush=True)
        if score == 0:
            return "0"
        return f"B+{score:g}" if score > 0 else f"W+{-score:g}"

    def cmd_final_status_list(self, a: list[str]) -> str:
        if len(a) != 1 or a[0] not in ("alive", "dead", "seki"):
            raise GtpError("syntax error")
        dead = self.dead_stones(self._ownership())
        black, white = self.state.board.stones("b"), self.state.board.stones("w")
        seki = self._seki() - dead
        chosen = {"dead": dead, "seki": seki, "alive": (black | white) - dead - seki}[a[0]]
        return "\n".join(format_vertex(p) for p in sorted(chosen))

    def cmd_genmove_cleanup(self, a: list[str]) -> str:
        """``kgs-genmove_cleanup``: after the players disagreed on the dead stones, play on
        until the opponent's dead stones are captured: a move on a liberty of a dead
        opponent string (the most visited of the search, one that is no self-atari first);
        never a pass while such stones remain. Without dead stones, ``genmove``."""
        if len(a) != 1:
            raise GtpError("syntax error")
        s, color = self.state, parse_color(a[0])
        board, c = s.board, rules.BLACK if color == "b" else rules.WHITE
        prior, knowledge = s.search.priors(board, c)
        budget = Budget(s.config.playouts, self.clock.move_seconds(color))
        s.last = s.search.run(board, c, prior, knowledge, budget=budget)
        s.last_key = (board.zobrist, color)
        other = "w" if color == "b" else "b"
        dead = {p for p in self.dead_stones(s.last.owner) if board.get(p) == other}
        targets = sorted({q for p in dead for q in self._neighbours(p) if board.get(q) is None
                          and board.illegal_reason(color, q) == ""})
        if not targets:
            return self.genmove(a)
        safe = [q for q in targets if libs_after_up_to_2(board.b, board.m, c, flat_index(q, s.size)) >= 2]
        move = max(safe or targets, key=lambda q: s.last.visits[flat_index(q, s.size)])
        board.play(color, move)
        s.movers.append(color)
        return format_vertex(move)

    def _neighbours(self, p: tuple[int, int]) -> list[tuple[int, int]]:
        r, c = p
        size = self.state.size
        return [(r + dr, c + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
                if 0 <= r + dr < size and 0 <= c + dc < size]

    def dead_stones(self, owner: np.ndarray) -> set[tuple[int, int]]:
        """The stones dead at the end: those the playouts give the other side, except where the
        solver proves a string's status within its small budget, and never a string in seki."""
        board = self.state.board
        dead = set(dead_stones(board, owner))
        for point, status in proven_status(board.size, board.stones("b"), board.stones("w")).items():
            (dead.add if status == "dead" else dead.discard)(point)
        return dead - self._seki()

    def _seki(self) -> set[tuple[int, int]]:
        board = self.state.board
        return {point_at(int(p), self.state.size) for p in np.flatnonzero(seki_stones(board.b, board.m))}

"""GoGui's analyze commands of the engine (``gogui-analyze_commands``): the root's visits,
the table's priors, the playouts' ownership, and why the table rates a move."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...go import rules
from ...go.vertices import flat_index, flat_vertex, format_vertex
from .explain import Explainer, knowledge_explanation
from .game_state import GameState
from .protocol import GtpError, parse_vertex

#: GoGui's analyze commands: type/label/command, %p the point clicked.
ANALYZE_COMMANDS = ("gfx/Visits/shapemill-visits", "gfx/Prior/shapemill-prior",
                    "gfx/Prior (percent)/shapemill-prior-percent", "gfx/Ownership/shapemill-ownership",
                    "gfx/Explain point/shapemill-explain %p")


class GoGuiCommands:
    """The ``shapemill-*`` commands GoGui's analyze menu lists, over a session's ``GameState``."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        prior = state.prior
        self.explainer: Explainer | None = knowledge_explanation(prior) if hasattr(prior, "explain") else None

    def commands(self) -> dict[str, Callable[[list[str]], str]]:
        """The GoGui commands by name."""
        return {
            "gogui-analyze_commands": lambda a: "\n".join(ANALYZE_COMMANDS),
            "shapemill-visits": self.cmd_visits,
            "shapemill-prior": self.cmd_prior,
            "shapemill-prior-percent": self.cmd_prior_percent,
            "shapemill-ownership": self.cmd_ownership,
            "shapemill-explain": self.cmd_explain,
        }

    def _heat(self, values: np.ndarray) -> str:
        top = values.max() if values.size and values.max() > 0 else 1.0
        cells = [f"{flat_vertex(int(p), self.state.size)} {values[p] / top:.3f}"
                 for p in np.flatnonzero(values > 0)]
        return "INFLUENCE " + " ".join(cells) if cells else ""

    def _labels(self, values: np.ndarray) -> str:
        cells = [f"{flat_vertex(int(p), self.state.size)} {values[p]:.0f}"
                 for p in np.flatnonzero(values >= 0.5)]
        return "LABEL " + " ".join(cells) if cells else ""

    def _to_move(self) -> int:
        return rules.BLACK if self.state.to_move() == "b" else rules.WHITE

    def cmd_visits(self, a: list[str]) -> str:
        """The root visits of a search of the current position for the side to move: the
        last search's if it was of this position, else a new one."""
        return self._heat(self.state.search_here().visits)

    def cmd_prior(self, a: list[str]) -> str:
        """The priors of the current position's moves for the side to move: the
        table's move strengths, or without a table the same for every legal move."""
        board, c = self.state.board, self._to_move()
        if self.state.prior is not None:
            return self._heat(np.asarray(self.state.prior(board.b, board.m, c), dtype=float))
        legal = np.zeros(len(board.b[rules.COLOR]))
        for p in np.flatnonzero(board.b[rules.COLOR] == rules.EMPTY):
            legal[p] = rules.illegal_reason(board.b, board.m, c, p) == 0
        return self._heat(legal)

    def cmd_prior_percent(self, a: list[str]) -> str:
        """The table's probability of each move of the side to move, as percent labels
        (GoGui ``LABEL``; moves under half a percent unlabelled)."""
        if self.state.prior is None:
            raise GtpError("no ratings table to explain with (--no-priors)")
        board = self.state.board
        strength = np.asarray(self.state.prior(board.b, board.m, self._to_move()), dtype=float)
        total = strength.sum()
        return self._labels(100 * strength / total) if total > 0 else ""

    def cmd_ownership(self, a: list[str]) -> str:
        """The playouts' mean final ownership of every point (GoGui ``INFLUENCE``, Black
        positive, White negative): the last search's if it was of this position, else a new one."""
        owner, size = self.state.search_here().owner, self.state.size
        cells = [f"{format_vertex((r, col))} {owner[flat_index((r, col), size)]:.2f}"
                 for r in range(size) for col in range(size)]
        return "INFLUENCE " + " ".join(cells)

    def cmd_explain(self, a: list[str]) -> str:
        """``shapemill-explain POINT``: why the table rates the side to move's move there:
        its largest known pattern and tactical features with their Elo (GoGui ``TEXT``,
        the point circled and labelled with its probability in percent)."""
        if len(a) != 1:
            raise GtpError("syntax error")
        point = parse_vertex(a[0], self.state.size)
        if point is None:
            raise GtpError("a pass has no pattern")
        color = self.state.to_move()
        reason = self.state.board.illegal_reason(color, point)
        if reason:
            raise GtpError(f"illegal move: {reason}")
        if self.explainer is None:
            raise GtpError("no ratings table to explain with (--no-priors)")
        why = self.explainer(self.state.board, color, point)
        parts = ", ".join(f"{p.label} {p.elo:+.0f} Elo" for p in why.parts) or "no known feature"
        vertex = format_vertex(point)
        return (f"TEXT {vertex} ({'Black' if color == 'b' else 'White'}) "
                f"{100 * why.probability:.1f}%: {parts}\nCIRCLE {vertex}\nLABEL {vertex} {100 * why.probability:.0f}%")

"""``GameState``: what a GTP session's commands change, and the snapshot a failed command
puts back."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from ...go import rules
from ...go.board import Board
from ...patterns.prior import MovePrior
from ..search import Budget, Search, SearchConfig, SearchResult
from .clock import TimeLeft, TimeSettings
from .katago import DEFAULT_RULES, parse_rules


@dataclass
class GameState:
    """The board and who played its moves, the settings, the search and its last result,
    the clock and the rules of one GTP session."""

    config: SearchConfig
    prior: MovePrior | None  # the move strengths of a ratings table, or None
    size: int
    board: Board
    search: Search
    movers: list[str] = field(default_factory=list)  # colours of the moves played, for undo and the side to move
    last: SearchResult | None = None
    last_key: tuple[int, str] | None = None  # the position (hash, to move) of ``last``
    time_settings: TimeSettings | None = None  # None: no limit
    time_left: dict[str, TimeLeft] = field(default_factory=dict)
    rules: dict[str, Any] = field(default_factory=lambda: parse_rules(DEFAULT_RULES))
    settings: SearchConfig | None = field(default=None, repr=False)  # a snapshot's copy of ``config``'s values

    @classmethod
    def new(cls, config: SearchConfig, size: int, prior: MovePrior | None) -> GameState:
        """An empty ``size`` board under ``config``."""
        return cls(config, prior, size, Board(size), Search(config, prior))

    def copy(self) -> GameState:
        """A snapshot for ``restore``: the board, the moves and the clock copied, the
        settings' object kept with a copy of its values (the searches hold the object)."""
        return replace(self, board=self.board.copy(), movers=list(self.movers), time_left=dict(self.time_left),
                       settings=replace(self.config))

    def restore(self, snapshot: GameState) -> None:
        """Put back, in place, what ``snapshot`` (a ``copy``) held."""
        for f in fields(self):
            setattr(self, f.name, getattr(snapshot, f.name))
        self.config.__dict__.update(snapshot.settings.__dict__)  # undo a change in place too
        self.settings = None

    def reset(self, size: int) -> None:
        """An empty ``size`` board and a fresh search (``boardsize``, ``clear_board``)."""
        self.size = size
        self.board = Board(size)
        self.last = None
        self.movers = []
        self.search = Search(self.config, self.prior)

    def configure(self, config: SearchConfig) -> None:
        """New settings and a fresh search under them (``komi``, ``loadsgf``)."""
        self.config = config
        self.search = Search(config, self.prior)

    def to_move(self) -> str:
        """The colour to play next: the other of the last move's, Black on an empty board,
        White after handicap stones."""
        if self.movers:
            return "w" if self.movers[-1] == "b" else "b"
        return "w" if self.board.stones("b") and not self.board.stones("w") else "b"

    def searched_here(self) -> bool:
        """Whether the last search was of the current position and side to move."""
        return self.last is not None and self.last_key == (self.board.zobrist, self.to_move())

    def search_here(self) -> SearchResult:
        """The last search if it was of the current position and side to move, else a new
        one (the engine's playouts, no clock)."""
        if not self.searched_here():
            color = self.to_move()
            c = rules.BLACK if color == "b" else rules.WHITE
            prior, knowledge = self.search.priors(self.board, c)
            self.last = self.search.run(self.board, c, prior, knowledge, budget=Budget(self.config.playouts))
            self.last_key = (self.board.zobrist, color)
        return self.last

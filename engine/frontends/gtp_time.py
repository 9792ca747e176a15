"""GTP's time commands (``time_settings``, ``kgs-time_settings``, ``time_left``) and each
move's seconds under the clock they set (``clock.move_seconds``)."""

from __future__ import annotations

from collections.abc import Callable

from .clock import KINDS, TimeLeft, TimeSettings, move_seconds
from .game_state import GameState
from .protocol import GtpError, parse_color, seconds_or_komi


class TimeCommands:
    """The clock of a GTP session, kept in its ``GameState``."""

    def __init__(self, state: GameState) -> None:
        self.state = state

    def commands(self) -> dict[str, Callable[[list[str]], str]]:
        """The time commands by name."""
        return {"time_settings": self.cmd_time_settings, "time_left": self.cmd_time_left,
                "kgs-time_settings": self.cmd_kgs_time_settings}

    def cmd_time_settings(self, a: list[str]) -> str:
        """GTP's: byo-yomi time with 0 stones is no limit, 0 byo-yomi time absolute
        time, else Canadian byo-yomi (``stones`` moves in each period)."""
        try:
            main, byo, stones = seconds_or_komi(a[0]), seconds_or_komi(a[1]), int(a[2])
        except (IndexError, ValueError):
            raise GtpError("syntax error") from None
        if byo > 0 and stones == 0 or main == 0 and byo == 0:
            self.state.time_settings = None
        else:
            self.state.time_settings = TimeSettings("absolute" if byo == 0 else "canadian", main, byo, stones)
        self.state.time_left = {}
        return ""

    def cmd_kgs_time_settings(self, a: list[str]) -> str:
        """KGS's: ``none``, ``absolute MAIN``, ``byoyomi MAIN PERIOD PERIODS`` (Japanese:
        each move within a period of PERIOD seconds), ``canadian MAIN TIME STONES``."""
        kinds = {"none": 0, **{kind: 1 if kind == "absolute" else 3 for kind in KINDS}}
        if not a or a[0] not in kinds or len(a) != 1 + kinds[a[0]]:
            raise GtpError("syntax error")
        try:
            values = [seconds_or_komi(x) for x in a[1:]]
        except ValueError:
            raise GtpError("syntax error") from None
        if a[0] == "none":
            self.state.time_settings = None
        elif a[0] == "absolute":
            self.state.time_settings = TimeSettings("absolute", values[0], 0.0, 0)
        else:
            self.state.time_settings = TimeSettings(a[0], values[0], values[1], int(values[2]))
        self.state.time_left = {}
        return ""

    def cmd_time_left(self, a: list[str]) -> str:
        try:
            color, seconds, stones = parse_color(a[0]), seconds_or_komi(a[1]), int(a[2])
        except (IndexError, ValueError):
            raise GtpError("syntax error") from None
        self.state.time_left[color] = TimeLeft(seconds, stones)
        return ""

    def move_seconds(self, color: str) -> float | None:
        """Seconds for ``color``'s next move under the clock (``clock.move_seconds``);
        without time settings the engine's own (None: a search by playouts)."""
        s = self.state
        return move_seconds(s.time_settings, s.time_left.get(color), s.size * s.size, s.board.moves_played,
                            s.config.time_per_move)

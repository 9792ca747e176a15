"""GTP's SGF commands: ``loadsgf`` (a game, or its first moves, onto the board) and GoGui's
``printsgf`` (the game so far as SGF)."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import replace

from ...datasets.sources import DEFAULT_MAX_BYTES
from ...datasets.text import parse_komi
from ...files import read_bounded, write_text_atomic
from ...go import rules
from ...go.board import IllegalMove
from .game_state import GameState
from .katago import RulesError, played_rules, rules_text
from .protocol import NAME, VERSION, GtpError, one_line

#: SGF's ``RU`` values that KataGo names otherwise (FF[4]'s AGA, Japanese, Chinese, Korean read as written).
SGF_RULES = {"nz": "new-zealand"}


class SgfCommands:
    """The SGF commands of a GTP session, over its ``GameState``."""

    def __init__(self, state: GameState) -> None:
        self.state = state

    def commands(self) -> dict[str, Callable[[list[str]], str]]:
        """The SGF commands by name."""
        return {"loadsgf": self.cmd_loadsgf, "printsgf": self.cmd_printsgf}

    def cmd_loadsgf(self, a: list[str]) -> str:
        """``loadsgf FILE [MOVE]``: the game of FILE up to before move number MOVE; the side to
        move next. A failure leaves the previous game (``GtpEngine.handle`` puts it back)."""
        from sgfmill import sgf, sgf_moves

        if not a:
            raise GtpError("syntax error")
        try:
            game = sgf.Sgf_game.from_bytes(read_bounded(a[0], DEFAULT_MAX_BYTES))
            setup, moves = sgf_moves.get_setup_and_moves(game)
        except OSError as e:
            raise GtpError(f"cannot load file: {e.strerror or e}") from None
        except ValueError as e:
            raise GtpError(f"cannot load file: {e}") from None
        if not 2 <= game.get_size() <= rules.MAX_SIZE:
            raise GtpError(f"cannot load file: board size {game.get_size()} is not supported")
        limit = int(a[1]) - 1 if len(a) > 1 and a[1].isdigit() else len(moves)
        s = self.state
        s.reset(game.get_size())
        for color in ("b", "w"):
            s.board.setup(color, [pt for c, pt in setup.list_occupied_points() if c == color])
        for n, (color, point) in enumerate(moves[:limit], 1):
            try:
                s.board.play(color, point)
            except IllegalMove as e:
                raise GtpError(f"cannot load file: move {n} is illegal ({e})") from None
            s.movers.append(color)
        root = game.get_root()
        komi = parse_komi(root.get_raw("KM").decode("latin-1")) if root.has_property("KM") else math.nan
        if math.isfinite(komi):  # scan's reader: KM[650] is Fox's 6.5
            s.configure(replace(s.config, komi=komi))
        else:
            print(f"loadsgf: {a[0]} gives no komi (KM) that can be read; it stays {s.config.komi:g}",
                  file=sys.stderr, flush=True)
        self._rules(root, a[0])
        return "black" if not moves[:limit] or moves[:limit][-1][0] == "w" else "white"

    def _rules(self, root, path: str) -> None:
        """The game's ``RU`` as the session's rules (``played_rules``: territory rules are played
        and scored by area, which a line on standard error says); without ``RU``, or with one
        that names no rule set shapemill knows, the rules stay as they were, said the same way."""
        if not root.has_property("RU"):
            return
        name = root.get("RU")
        try:
            self.state.rules, note = played_rules(SGF_RULES.get(name.strip().lower(), name))
        except RulesError as e:
            note = f"{one_line(e)}; the rules stay {rules_text(self.state.rules)}"
        if note is not None:
            print(f"loadsgf: {path}: RU[{name}]: {note}", file=sys.stderr, flush=True)

    def game_sgf(self) -> str:
        """The game so far as SGF: board size, komi, rules, the setup stones and the moves."""
        from sgfmill import sgf

        s = self.state
        game = sgf.Sgf_game(s.size)
        root = game.get_root()
        root.set("KM", s.config.komi)
        root.set("RU", "Chinese")
        root.set_raw("AP", f"{NAME}:{VERSION}".encode())
        start = s.board.before_moves()
        root.set_setup_stones(start.stones("b"), start.stones("w"))
        node = root
        for color, point in zip(s.movers, s.board.moves):
            node = node.new_child()
            node.set_move(color, point)
        return game.serialise().decode()

    def cmd_printsgf(self, a: list[str]) -> str:
        """GoGui's ``printsgf [FILE]``: the game as SGF, written to FILE (atomically) or answered."""
        text = self.game_sgf()
        if not a:
            return text.strip()
        write_text_atomic(a[0], text)
        return ""

"""GTP's SGF commands: ``loadsgf`` (a game, or its first moves, onto the board) and GoGui's
``printsgf`` (the game so far as SGF)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace

from ...datasets.sgf_game import apply_setup, read_game_line
from ...datasets.sources import DEFAULT_MAX_BYTES
from ...files import output_errors, read_bounded, write_text_atomic
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
        """``loadsgf FILE [MOVE]``: the game of FILE (read as ``review`` reads it:
        ``datasets.sgf_game``, setup stones on any node, what cannot be used warned about on
        standard error and skipped) up to before move number MOVE (a positive integer); the
        side to move next. A failure leaves the previous game (``GtpEngine.handle`` puts it
        back)."""
        if not a or len(a) > 2:
            raise GtpError("syntax error")
        if len(a) == 2 and not (a[1].isdigit() and int(a[1]) >= 1):
            raise GtpError(f"syntax error: move number {a[1]!r} is not a positive integer")
        try:
            line = read_game_line(read_bounded(a[0], DEFAULT_MAX_BYTES), rules.MAX_SIZE)
        except OSError as e:
            raise GtpError(f"cannot load file: {e.strerror or e}") from None
        except ValueError as e:
            raise GtpError(f"cannot load file: {one_line(e)}") from None
        limit = int(a[1]) - 1 if len(a) == 2 else len(line.moves)
        s = self.state
        s.reset(line.size)
        played = 0
        for step in line.steps:
            if step.setup:  # the moves before are part of the position now (undo stops there)
                s.board = apply_setup(s.board, step.setup)
                s.movers = []
            if step.colour is None:
                continue
            if played == limit:
                break
            played += 1
            try:
                s.board.play(step.colour, step.point)
            except IllegalMove as e:
                raise GtpError(f"cannot load file: move {played} is illegal ({e})") from None
            s.movers.append(step.colour)
        for warning in line.warnings:
            print(f"loadsgf: {a[0]}: {warning}", file=sys.stderr, flush=True)
        if line.komi is not None:
            s.configure(replace(s.config, komi=line.komi))
        else:
            print(f"loadsgf: {a[0]} gives no komi (KM) that can be read; it stays {s.config.komi:g}",
                  file=sys.stderr, flush=True)
        self._rules(line.game.get_root(), a[0])
        return "white" if s.to_move() == "w" else "black"

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
        with output_errors(a[0]):  # the file named, not its temporary file
            write_text_atomic(a[0], text)
        return ""

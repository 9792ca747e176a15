"""A GTP 2 front end for the MCTS engine (stdin / stdout).

Every response is ``=[id] text`` or ``?[id] message`` followed by a blank line;
malformed or unknown commands and illegal moves get ``?`` with the reason, and
no input makes the loop crash. Vertices are GTP's (``A1`` bottom left, no I).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TextIO

import numpy as np

from ..go import rules
from ..go.board import Board, IllegalMove
from ..miner.prior import MovePrior
from .mcts import RESIGN, Search, SearchConfig, choose_move, dead_stones, score_without_dead

LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
NAME, VERSION = "shapemill", "0.1.0"


class GtpError(Exception):
    """A command that cannot be carried out; its message goes after ``?``."""


def parse_vertex(text: str, size: int) -> tuple[int, int] | None:
    """``(row, col)`` of a GTP vertex (row 0 at the bottom), None for pass."""
    t = text.strip().upper()
    if t == "PASS":
        return None
    if len(t) < 2 or t[0] not in LETTERS[:size] or not t[1:].isdigit():
        raise GtpError(f"invalid vertex {text!r}")
    row, col = int(t[1:]) - 1, LETTERS.index(t[0])
    if not 0 <= row < size:
        raise GtpError(f"invalid vertex {text!r}")
    return row, col


def format_vertex(point: tuple[int, int] | None) -> str:
    """GTP text of a ``(row, col)`` vertex or None (pass)."""
    if point is None:
        return "pass"
    return f"{LETTERS[point[1]]}{point[0] + 1}"


def parse_color(text: str) -> str:
    """'b' or 'w' from GTP's colour words."""
    t = text.strip().lower()
    if t in ("b", "black"):
        return "b"
    if t in ("w", "white"):
        return "w"
    raise GtpError(f"invalid color {text!r}")


def handicap_points(size: int, stones: int) -> list[tuple[int, int]]:
    """The fixed handicap points of GTP 2 (section 4.1.1)."""
    if size < 7 or not 2 <= stones <= (9 if size % 2 else 4) or (size == 7 and stones > 4):
        raise GtpError("invalid number of handicap stones")
    e = 2 if size < 13 else 3
    lo, mid, hi = e, size // 2, size - 1 - e
    corners = [(lo, hi), (hi, lo), (lo, lo), (hi, hi)]
    sides = [(mid, lo), (mid, hi)]
    tops = [(lo, mid), (hi, mid)]
    order = {2: corners[:2], 3: corners[:3], 4: corners, 5: corners + [(mid, mid)],
             6: corners + sides, 7: corners + sides + [(mid, mid)],
             8: corners + sides + tops, 9: corners + sides + tops + [(mid, mid)]}
    return order[stones]


class GtpEngine:
    """The GTP command handlers around a ``Board`` and a ``Search``."""

    def __init__(self, config: SearchConfig, size: int = 19, prior: MovePrior | None = None) -> None:
        self.config = config
        self.prior = prior  # the move strengths of a ratings table, or None
        self.base_time = config.time_per_move
        self.size = size
        self.board = Board(size)
        self.search = Search(config)
        self.last = None
        self.time_settings: tuple[float, float, int] | None = None
        self.time_left: dict[str, tuple[float, int]] = {}
        self.commands: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda a: "2",
            "name": lambda a: NAME,
            "version": lambda a: VERSION,
            "known_command": lambda a: "true" if a and a[0] in self.commands else "false",
            "list_commands": lambda a: "\n".join(self.commands),
            "quit": lambda a: "",
            "boardsize": self.cmd_boardsize,
            "clear_board": self.cmd_clear_board,
            "komi": self.cmd_komi,
            "play": self.cmd_play,
            "genmove": self.cmd_genmove,
            "reg_genmove": self.cmd_reg_genmove,
            "undo": self.cmd_undo,
            "fixed_handicap": self.cmd_fixed_handicap,
            "place_free_handicap": self.cmd_place_free_handicap,
            "set_free_handicap": self.cmd_set_free_handicap,
            "time_settings": self.cmd_time_settings,
            "time_left": self.cmd_time_left,
            "final_score": self.cmd_final_score,
            "final_status_list": self.cmd_final_status_list,
            "loadsgf": self.cmd_loadsgf,
            "list_stones": self.cmd_list_stones,
            "showboard": lambda a: "\n" + str(self.board),
            "gogui-analyze_commands": lambda a: "gfx/Visits/shapemill-visits\ngfx/Prior/shapemill-prior",
            "shapemill-visits": self.cmd_visits,
            "shapemill-prior": self.cmd_prior,
        }

    # --- the loop -------------------------------------------------------

    def handle(self, line: str) -> tuple[str, bool]:
        """The full response to one command line, and whether to quit."""
        line = "".join(ch for ch in line.split("#", 1)[0] if ch == "\t" or ch >= " ").replace("\t", " ")
        words = line.split()
        if not words:
            return "", False
        cid = ""
        if words[0].isdigit():
            cid, words = words[0], words[1:]
        if not words:
            return f"?{cid} missing command\n\n", False
        name, args = words[0], words[1:]
        handler = self.commands.get(name)
        if handler is None:
            return f"?{cid} unknown command\n\n", False
        try:
            text = handler(args)
        except (GtpError, IllegalMove, ValueError, IndexError, OSError) as e:
            return f"?{cid} {e}\n\n", False
        return f"={cid} {text}".rstrip(" ") + "\n\n", name == "quit"

    def loop(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        """Answer commands until ``quit`` or end of input (default: the process's
        standard streams as they are when the loop starts)."""
        stdin = stdin or sys.stdin
        stdout = stdout or sys.stdout
        for line in stdin:
            response, done = self.handle(line)
            if response:
                stdout.write(response)
                stdout.flush()
            if done:
                return

    # --- commands -------------------------------------------------------

    def _reset(self, size: int) -> None:
        self.size = size
        self.board = Board(size)
        self.last = None
        self.search = Search(self.config)

    def cmd_boardsize(self, a: list[str]) -> str:
        if len(a) != 1 or not a[0].isdigit() or not 2 <= int(a[0]) <= rules.MAX_SIZE:
            raise GtpError("unacceptable size")
        self._reset(int(a[0]))
        return ""

    def cmd_clear_board(self, a: list[str]) -> str:
        self._reset(self.size)
        return ""

    def cmd_komi(self, a: list[str]) -> str:
        try:
            self.config.komi = float(a[0])
        except (IndexError, ValueError):
            raise GtpError("syntax error") from None
        self.search = Search(self.config)
        return ""

    def cmd_play(self, a: list[str]) -> str:
        if len(a) != 2:
            raise GtpError("syntax error")
        color, point = parse_color(a[0]), parse_vertex(a[1], self.size)
        reason = self.board.illegal_reason(color, point)
        if reason:
            raise GtpError(f"illegal move: {reason}")
        self.board.play(color, point)
        return ""

    def _think(self, color: str) -> tuple[int, str]:
        if self.board.size != self.size:
            raise GtpError("board not ready")
        self.config.time_per_move = self._time_budget(color)
        c = rules.BLACK if color == "b" else rules.WHITE
        opponent_passed = len(self.board._undo) > 0 and int(self.board.m[rules.LAST]) == rules.PASS
        prior, knowledge = search_priors(self.config, self.prior, self.board, c)
        self.last = choose_move(self.search, self.board, c, opponent_passed, prior, knowledge)
        move = self.last.move
        if move == RESIGN:
            return move, "resign"
        w = self.size + 2
        point = None if move == rules.PASS else (move // w - 1, move % w - 1)
        return move, format_vertex(point)

    def cmd_genmove(self, a: list[str]) -> str:
        if len(a) != 1:
            raise GtpError("syntax error")
        color = parse_color(a[0])
        move, text = self._think(color)
        if move != RESIGN:
            self.board.play(color, parse_vertex(text, self.size))
        return text

    def cmd_reg_genmove(self, a: list[str]) -> str:
        if len(a) != 1:
            raise GtpError("syntax error")
        return self._think(parse_color(a[0]))[1]

    def cmd_undo(self, a: list[str]) -> str:
        if not self.board._undo:
            raise GtpError("cannot undo")
        self.board.undo()
        return ""

    def _setup_handicap(self, points: list[tuple[int, int]]) -> None:
        if self.board.stones("b") or self.board.stones("w") or self.board._undo:
            raise GtpError("board not empty")
        self.board.setup("b", points)

    def cmd_fixed_handicap(self, a: list[str]) -> str:
        if len(a) != 1 or not a[0].isdigit():
            raise GtpError("syntax error")
        points = handicap_points(self.size, int(a[0]))
        self._setup_handicap(points)
        return " ".join(format_vertex(p) for p in points)

    def cmd_place_free_handicap(self, a: list[str]) -> str:
        if len(a) != 1 or not a[0].isdigit():
            raise GtpError("syntax error")
        n = int(a[0])
        if not 2 <= n < self.size * self.size:
            raise GtpError("invalid number of handicap stones")
        try:
            points = handicap_points(self.size, n)
        except GtpError:  # more stones than fixed points: fill the 4-4 grid outwards
            spots = sorted(((r, c) for r in range(self.size) for c in range(self.size)),
                           key=lambda p: (abs(p[0] - self.size // 2) + abs(p[1] - self.size // 2)) % 5)
            points = spots[:n]
        self._setup_handicap(points)
        return " ".join(format_vertex(p) for p in points)

    def cmd_set_free_handicap(self, a: list[str]) -> str:
        points = [parse_vertex(v, self.size) for v in a]
        if len(points) < 2 or None in points or len(set(points)) != len(points):
            raise GtpError("bad vertex list")
        self._setup_handicap(points)
        return ""

    def cmd_time_settings(self, a: list[str]) -> str:
        try:
            main, byo, stones = float(a[0]), float(a[1]), int(a[2])
        except (IndexError, ValueError):
            raise GtpError("syntax error") from None
        self.time_settings = (main, byo, stones)
        self.time_left = {}
        return ""

    def cmd_time_left(self, a: list[str]) -> str:
        try:
            color, seconds, stones = parse_color(a[0]), float(a[1]), int(a[2])
        except (IndexError, ValueError):
            raise GtpError("syntax error") from None
        self.time_left[color] = (seconds, stones)
        return ""

    def _time_budget(self, color: str) -> float | None:
        """Seconds for this move: the remaining main time spread over the moves a
        game still needs, or the byo-yomi period shared by its stones, with a margin."""
        if self.time_settings is None or (self.time_settings[0] == 0 and self.time_settings[1] == 0):
            return self.base_time
        main, byo, stones = self.time_settings
        left, left_stones = self.time_left.get(color, (main, 0))
        if left_stones > 0:
            budget = left / left_stones
        else:
            moves_left = max(10, (self.size * self.size - len(self.board._undo)) // 3)
            budget = left / moves_left + (byo / max(stones, 1) if byo else 0)
        budget *= 0.8
        return max(0.05, budget if self.base_time is None else min(budget, self.base_time))

    def _ownership(self) -> np.ndarray:
        last = int(self.board.m[rules.LAST])
        c = 3 - int(self.board.b[rules.COLOR, last]) if last != rules.PASS else rules.BLACK
        return Search(SearchConfig(**{**self.config.__dict__, "time_per_move": None})).run(self.board, c).owner

    def cmd_final_score(self, a: list[str]) -> str:
        score = score_without_dead(self.board, self._ownership(), self.config.komi)
        if score == 0:
            return "0"
        return f"B+{score:g}" if score > 0 else f"W+{-score:g}"

    def cmd_final_status_list(self, a: list[str]) -> str:
        if len(a) != 1 or a[0] not in ("alive", "dead", "seki"):
            raise GtpError("syntax error")
        if a[0] == "seki":
            return ""
        dead = set(dead_stones(self.board, self._ownership()))
        stones = self.board.stones("b") | self.board.stones("w")
        chosen = dead if a[0] == "dead" else stones - dead
        return "\n".join(format_vertex(p) for p in sorted(chosen))

    def cmd_loadsgf(self, a: list[str]) -> str:
        from sgfmill import sgf, sgf_moves

        if not a:
            raise GtpError("syntax error")
        try:
            with open(a[0], "rb") as fh:
                game = sgf.Sgf_game.from_bytes(fh.read())
            setup, moves = sgf_moves.get_setup_and_moves(game)
        except (ValueError, OSError) as e:
            raise GtpError(f"cannot load file: {e}") from None
        limit = int(a[1]) - 1 if len(a) > 1 and a[1].isdigit() else len(moves)
        self._reset(game.get_size())
        for color in ("b", "w"):
            self.board.setup(color, [pt for c, pt in setup.list_occupied_points() if c == color])
        for color, point in moves[:limit]:
            self.board.play(color, point)
        self.config.komi = float(game.get_komi())
        return "black" if not moves[:limit] or moves[:limit][-1][0] == "w" else "white"

    def cmd_list_stones(self, a: list[str]) -> str:
        if len(a) != 1:
            raise GtpError("syntax error")
        return " ".join(format_vertex(p) for p in sorted(self.board.stones(parse_color(a[0]))))

    def _heat(self, values: np.ndarray) -> str:
        top = values.max() if values.size and values.max() > 0 else 1.0
        w = self.size + 2
        cells = [f"{format_vertex((int(p) // w - 1, int(p) % w - 1))} {values[p] / top:.3f}"
                 for p in np.flatnonzero(values > 0)]
        return "INFLUENCE " + " ".join(cells) if cells else ""

    def cmd_visits(self, a: list[str]) -> str:
        return self._heat(self.last.visits) if self.last is not None else ""

    def cmd_prior(self, a: list[str]) -> str:
        return self._heat(self.last.prior) if self.last is not None else ""


def search_priors(config: SearchConfig, prior: MovePrior | None, board: Board,
                  color: int) -> tuple[np.ndarray | None, tuple | None]:
    """What a search of ``board`` (``color`` to move) takes from the ratings table:
    the root's move strengths and, with ``config.tree_priors``, the table for the
    nodes below (``MovePrior.knowledge``); both None without a table."""
    if prior is None:
        return None, None
    knowledge = prior.knowledge(board.size) if config.tree_priors else None
    return prior(board.b, board.m, color), knowledge


def warm_up(config: SearchConfig, size: int, prior: MovePrior | None = None) -> None:
    """Load (or, from a cold cache, compile: about a minute) the search kernel and
    the priors' kernel with one playout on an empty board, and read the ratings table.

    Run in a background thread while a GUI sends its first commands, so that the
    first ``genmove`` need not wait for it; numba's RNG is per thread, so the
    engine's own seeded stream is untouched."""
    board = Board(size)
    _, knowledge = search_priors(config, prior, board, rules.BLACK)
    Search(replace(config, playouts=1, time_per_move=None, threads=1)).run(board, rules.BLACK, None, knowledge)


def run_gtp(config: SearchConfig, size: int, prior: MovePrior | None = None) -> None:
    """The GTP loop on stdin / stdout; ``prior`` gives the root's move priors. The
    kernels warm up in the background meanwhile (``warm_up``)."""
    threading.Thread(target=warm_up, args=(config, size, prior), daemon=True).start()
    GtpEngine(config, size, prior).loop()

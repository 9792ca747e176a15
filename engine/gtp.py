"""A GTP 2 front end for the MCTS engine (stdin / stdout).

Every response is ``=[id] text`` or ``?[id] message`` followed by a blank line;
malformed or unknown commands and illegal moves get ``?`` with the reason, and
no input makes the loop crash. Vertices are GTP's (``A1`` bottom left, no I).

The analysis commands of Leela Zero and KataGo stream: ``lz-analyze`` /
``kata-analyze`` answer ``=`` and then print one line of ``info move ...``
entries every interval while the search goes on, until the next command
arrives, which ends the response with its blank line; ``lz-genmove_analyze`` /
``kata-genmove_analyze`` print them while choosing a move and end with
``play MOVE``. Leela Zero gives win rates and priors in 0..10000, KataGo in 0..1.
"""

from __future__ import annotations

import io
import math
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TextIO

import numpy as np

from ..datasets.sources import DEFAULT_MAX_BYTES
from ..datasets.text import parse_komi
from ..errors import ShapemillError
from ..files import read_bounded
from ..go import rules
from ..go.board import LETTERS, Board, IllegalMove, vertex
from ..go.seki import seki_stones
from ..miner.prior import MovePrior
from .mcts import RESIGN, MoveInfo, Search, SearchConfig, choose_move, dead_stones, score_without_dead
from .solve.status import proven_status

NAME, VERSION = "shapemill", "0.1.0"
#: The longest a move may think under any time settings (huge ones would hang a GUI).
MAX_MOVE_SECONDS = 600.0


class GtpError(Exception):
    """A command that cannot be carried out; its message goes after ``?``."""


def one_line(error: BaseException) -> str:
    """An error's message on one line (a GTP response must not break off early)."""
    return " ".join(str(error).split()) or type(error).__name__


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
    return vertex(point)


def seconds_or_komi(text: str, signed: bool = False) -> float:
    """A finite number (not negative unless ``signed``): a komi or a time setting;
    ValueError for anything else (``inf`` main time would make a move search forever)."""
    value = float(text)
    if not math.isfinite(value) or value < 0 and not signed:
        raise ValueError(f"invalid number {text!r}")
    return value


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
        self.last_key: tuple[int, str] | None = None  # the position (hash, to move) of self.last
        self.movers: list[str] = []  # colours of the moves played, for undo and the side to move
        self.time_settings: tuple[str, float, float, int] | None = None  # kind, main, byo-yomi, stones
        self.time_left: dict[str, tuple[float, int]] = {}
        self._analysis: tuple[threading.Event, list[threading.Thread]] | None = None
        self._out_lock = threading.Lock()
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
            "kgs-time_settings": self.cmd_kgs_time_settings,
            "final_score": self.cmd_final_score,
            "final_status_list": self.cmd_final_status_list,
            "loadsgf": self.cmd_loadsgf,
            "list_stones": self.cmd_list_stones,
            "showboard": lambda a: "\n" + str(self.board),
            "gogui-analyze_commands": lambda a: "gfx/Visits/shapemill-visits\ngfx/Prior/shapemill-prior",
            "shapemill-visits": self.cmd_visits,
            "shapemill-prior": self.cmd_prior,
            "lz-analyze": lambda a: "",
            "kata-analyze": lambda a: "",
            "lz-genmove_analyze": lambda a: "",
            "kata-genmove_analyze": lambda a: "",
        }
        self.streams: dict[str, Callable[[list[str], str, TextIO], None]] = {
            "lz-analyze": lambda a, cid, out: self.analyze("lz", a, cid, out),
            "kata-analyze": lambda a, cid, out: self.analyze("kata", a, cid, out),
            "lz-genmove_analyze": lambda a, cid, out: self.genmove_analyze("lz", a, cid, out),
            "kata-genmove_analyze": lambda a, cid, out: self.genmove_analyze("kata", a, cid, out),
        }

    # --- the loop -------------------------------------------------------

    def handle(self, line: str, stdout: TextIO | None = None) -> tuple[str, bool]:
        """The full response to one command line, and whether to quit. A streaming
        command (analysis) writes its response to ``stdout`` itself and returns ""."""
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
        state = self._state()
        try:
            if name in self.streams:
                self.streams[name](args, cid, stdout if stdout is not None else io.StringIO())
                return "", False
            text = handler(args)
        except (GtpError, IllegalMove, ValueError, IndexError, OSError, ShapemillError) as e:
            self._restore(state)
            return f"?{cid} {one_line(e)}\n\n", False
        except Exception as e:  # a bug must not take a GUI's engine away mid-game
            self._restore(state)
            return f"?{cid} internal error: {type(e).__name__}: {one_line(e)}\n\n", False
        return f"={cid} {text}".rstrip(" ") + "\n\n", name == "quit"

    def _state(self) -> tuple:
        """What a command may change, to be put back when it fails partway."""
        return (self.size, self.board.copy(), list(self.movers), replace(self.config), self.search, self.last,
                self.last_key, self.time_settings, dict(self.time_left))

    def _restore(self, state: tuple) -> None:
        (self.size, self.board, self.movers, config, self.search, self.last, self.last_key, self.time_settings,
         self.time_left) = state
        self.config.__dict__.update(config.__dict__)  # the same object: searches hold it

    def loop(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        """Answer commands until ``quit`` or end of input (default: the process's
        standard streams as they are when the loop starts)."""
        stdin = stdin or sys.stdin
        stdout = stdout or sys.stdout
        for line in stdin:
            self.stop_analysis(stdout)
            response, done = self.handle(line, stdout)
            if response:
                stdout.write(response)
                stdout.flush()
            if done:
                return
        self.stop_analysis(stdout)

    # --- analysis for GUIs -------------------------------------------------

    def _analysis_args(self, a: list[str], need_color: bool) -> tuple[str, float]:
        """The colour and the interval (seconds) of an analysis command:
        ``[color] [interval]`` or ``interval N``; other key-value pairs are ignored."""
        color, interval, rest = self.to_move(), 1.0, list(a)
        if rest and rest[0].lower() in ("b", "w", "black", "white"):
            color = parse_color(rest.pop(0))
        elif need_color:
            raise GtpError("syntax error")
        while rest:
            word = rest.pop(0)
            if word == "interval" and rest:
                word = rest.pop(0)
            elif not word.isdigit():
                rest = rest[1:]  # a key we do not use, and its value
                continue
            if not word.isdigit():
                raise GtpError("syntax error")
            interval = min(int(word) / 100, MAX_MOVE_SECONDS)
        return color, max(interval, 0.01)

    def _info_line(self, kind: str) -> str:
        """One line of ``info`` entries for the root moves of the last search."""
        w = self.size + 2
        entries = []
        for order, info in enumerate(self.search.analysis(self.board)):
            pv = " ".join(self._vertex(p, w) for p in info.pv)
            entries.append(f"info move {self._vertex(info.move, w)} visits {info.visits} "
                           f"{self._rates(kind, info)} order {order} pv {pv}")
        return " ".join(entries)

    @staticmethod
    def _rates(kind: str, info: MoveInfo) -> str:
        if kind == "lz":
            return (f"winrate {round(info.winrate * 10000)} prior {round(info.prior * 10000)} "
                    f"lcb {round(info.lcb * 10000)}")
        return f"winrate {info.winrate:.6f} prior {info.prior:.6f} lcb {info.lcb:.6f}"

    @staticmethod
    def _vertex(p: int, w: int) -> str:
        return "pass" if p == rules.PASS else format_vertex((p // w - 1, p % w - 1))

    def _report(self, kind: str, interval: float, stop: threading.Event, out: TextIO) -> None:
        """Print an ``info`` line every ``interval`` seconds until ``stop`` is set."""
        while not stop.wait(interval):
            line = self._info_line(kind)
            if line:
                with self._out_lock:
                    out.write(line + "\n")
                    out.flush()

    def analyze(self, kind: str, a: list[str], cid: str, out: TextIO) -> None:
        """``lz-analyze`` / ``kata-analyze``: search the current position until the
        next command, reporting every interval."""
        color, interval = self._analysis_args(a, need_color=False)
        c = rules.BLACK if color == "b" else rules.WHITE
        prior, knowledge = search_priors(self.config, self.prior, self.board, c)
        stop = threading.Event()
        board = self.board.copy()
        self.search.config = replace(self.config, time_per_move=None, playouts=1 << 40)

        def search() -> None:
            self.last = self.search.run(board, c, prior, knowledge, stop=stop)
            self.last_key = (board.zobrist, color)

        out.write(f"={cid}\n")
        out.flush()
        threads = [threading.Thread(target=search, daemon=True),
                   threading.Thread(target=self._report, args=(kind, interval, stop, out), daemon=True)]
        for t in threads:
            t.start()
        self._analysis = (stop, threads)

    def stop_analysis(self, out: TextIO) -> None:
        """End a running ``*-analyze`` response: stop the search, then the blank line."""
        if self._analysis is None:
            return
        stop, threads = self._analysis
        stop.set()
        for t in threads:
            t.join()
        self._analysis = None
        self.search.config = self.config
        out.write("\n")
        out.flush()

    def genmove_analyze(self, kind: str, a: list[str], cid: str, out: TextIO) -> None:
        """``lz-genmove_analyze`` / ``kata-genmove_analyze``: ``genmove`` that reports
        its search every interval and ends with ``play MOVE``."""
        color, interval = self._analysis_args(a, need_color=True)
        out.write(f"={cid}\n")
        out.flush()
        stop = threading.Event()
        reporter = threading.Thread(target=self._report, args=(kind, interval, stop, out), daemon=True)
        reporter.start()
        try:
            text = self.cmd_genmove([color])
        finally:
            stop.set()
            reporter.join()
        line = self._info_line(kind)
        out.write((line + "\n" if line else "") + f"play {text}\n\n")
        out.flush()

    def to_move(self) -> str:
        """The colour to play next: the other of the last move's, Black on an empty
        board, White after handicap stones."""
        if self.movers:
            return "w" if self.movers[-1] == "b" else "b"
        return "w" if self.board.stones("b") and not self.board.stones("w") else "b"

    # --- commands -------------------------------------------------------

    def _reset(self, size: int) -> None:
        self.size = size
        self.board = Board(size)
        self.last = None
        self.movers = []
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
            self.config.komi = seconds_or_komi(a[0], signed=True)
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
        self.movers.append(color)
        return ""

    def _think(self, color: str) -> tuple[int, str]:
        if self.board.size != self.size:
            raise GtpError("board not ready")
        self.config.time_per_move = self._time_budget(color)
        c = rules.BLACK if color == "b" else rules.WHITE
        opponent_passed = len(self.board._undo) > 0 and int(self.board.m[rules.LAST]) == rules.PASS
        prior, knowledge = search_priors(self.config, self.prior, self.board, c)
        self.last = choose_move(self.search, self.board, c, opponent_passed, prior, knowledge)
        self.last_key = (self.board.zobrist, color)
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
            self.movers.append(color)
        return text

    def cmd_reg_genmove(self, a: list[str]) -> str:
        if len(a) != 1:
            raise GtpError("syntax error")
        return self._think(parse_color(a[0]))[1]

    def cmd_undo(self, a: list[str]) -> str:
        if not self.board._undo:
            raise GtpError("cannot undo")
        self.board.undo()
        if self.movers:
            self.movers.pop()
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
        if not 2 <= len(points) < self.size * self.size or None in points or len(set(points)) != len(points):
            raise GtpError("bad vertex list")
        self._setup_handicap(points)
        return ""

    def cmd_time_settings(self, a: list[str]) -> str:
        """GTP's: byo-yomi time with 0 stones is no limit, 0 byo-yomi time absolute
        time, else Canadian byo-yomi (``stones`` moves in each period)."""
        try:
            main, byo, stones = seconds_or_komi(a[0]), seconds_or_komi(a[1]), int(a[2])
        except (IndexError, ValueError):
            raise GtpError("syntax error") from None
        if byo > 0 and stones == 0 or main == 0 and byo == 0:
            self.time_settings = None
        else:
            self.time_settings = ("absolute" if byo == 0 else "canadian", main, byo, stones)
        self.time_left = {}
        return ""

    def cmd_kgs_time_settings(self, a: list[str]) -> str:
        """KGS's: ``none``, ``absolute MAIN``, ``byoyomi MAIN PERIOD PERIODS`` (Japanese:
        each move within a period of PERIOD seconds), ``canadian MAIN TIME STONES``."""
        kinds = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}
        if not a or a[0] not in kinds or len(a) != 1 + kinds[a[0]]:
            raise GtpError("syntax error")
        try:
            values = [seconds_or_komi(x) for x in a[1:]]
        except ValueError:
            raise GtpError("syntax error") from None
        if a[0] == "none":
            self.time_settings = None
        elif a[0] == "absolute":
            self.time_settings = ("absolute", values[0], 0.0, 0)
        else:
            self.time_settings = (a[0], values[0], values[1], int(values[2]))
        self.time_left = {}
        return ""

    def cmd_time_left(self, a: list[str]) -> str:
        try:
            color, seconds, stones = parse_color(a[0]), seconds_or_komi(a[1]), int(a[2])
        except (IndexError, ValueError):
            raise GtpError("syntax error") from None
        self.time_left[color] = (seconds, stones)
        return ""

    def _time_budget(self, color: str) -> float | None:
        """Seconds for this move: the remaining main time spread over the moves a
        game still needs, or in byo-yomi the period shared by its stones (Canadian)
        or the whole period (Japanese), with a margin, never over ``MAX_MOVE_SECONDS``;
        without limit, the engine's own."""
        if self.time_settings is None:
            return self.base_time
        kind, main, byo, stones = self.time_settings
        left, left_stones = self.time_left.get(color, (main, 0))
        if left_stones > 0 and kind == "canadian":
            budget = left / left_stones
        elif left_stones > 0 and kind == "byoyomi":
            budget = byo
        else:
            moves_left = max(10, (self.size * self.size - len(self.board._undo)) // 3)
            budget = left / moves_left + (byo / max(stones, 1) if kind == "canadian" else byo)
        budget = min(budget * 0.8, MAX_MOVE_SECONDS)
        return max(0.05, budget if self.base_time is None else min(budget, self.base_time))

    def _ownership(self) -> np.ndarray:
        c = rules.BLACK if self.to_move() == "b" else rules.WHITE
        return Search(SearchConfig(**{**self.config.__dict__, "time_per_move": None})).run(self.board, c).owner

    def cmd_final_score(self, a: list[str]) -> str:
        score = score_without_dead(self.board, self._ownership(), self.config.komi)
        if score == 0:
            return "0"
        return f"B+{score:g}" if score > 0 else f"W+{-score:g}"

    def cmd_final_status_list(self, a: list[str]) -> str:
        if len(a) != 1 or a[0] not in ("alive", "dead", "seki"):
            raise GtpError("syntax error")
        dead = set(dead_stones(self.board, self._ownership()))
        black, white = self.board.stones("b"), self.board.stones("w")
        # where the solver proves a string's status within its small budget, the proof wins
        for point, status in proven_status(self.board.size, black, white).items():
            (dead.add if status == "dead" else dead.discard)(point)
        w = self.size + 2
        seki = {(int(p) // w - 1, int(p) % w - 1) for p in np.flatnonzero(seki_stones(self.board.b, self.board.m))} - dead
        chosen = {"dead": dead, "seki": seki, "alive": (black | white) - dead - seki}[a[0]]
        return "\n".join(format_vertex(p) for p in sorted(chosen))

    def cmd_loadsgf(self, a: list[str]) -> str:
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
        self._reset(game.get_size())
        for color in ("b", "w"):
            self.board.setup(color, [pt for c, pt in setup.list_occupied_points() if c == color])
        for n, (color, point) in enumerate(moves[:limit], 1):
            try:
                self.board.play(color, point)
            except IllegalMove as e:  # handle() puts the previous game back
                raise GtpError(f"cannot load file: move {n} is illegal ({e})") from None
            self.movers.append(color)
        root = game.get_root()
        komi = parse_komi(root.get_raw("KM").decode("latin-1")) if root.has_property("KM") else math.nan
        if math.isfinite(komi):  # scan's reader: KM[650] is Fox's 6.5
            self.config.komi = komi
        else:
            print(f"loadsgf: {a[0]} gives no komi (KM) that can be read; it stays {self.config.komi:g}", file=sys.stderr, flush=True)
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

    def _searched_here(self) -> bool:
        """Whether the last search was of the current position and side to move."""
        return self.last is not None and self.last_key == (self.board.zobrist, self.to_move())

    def cmd_visits(self, a: list[str]) -> str:
        return self._heat(self.last.visits) if self._searched_here() else ""

    def cmd_prior(self, a: list[str]) -> str:
        """The priors of the current position's moves for the side to move: the
        table's move strengths, or without a table the same for every legal move."""
        c = rules.BLACK if self.to_move() == "b" else rules.WHITE
        if self.prior is not None:
            return self._heat(np.asarray(self.prior(self.board.b, self.board.m, c), dtype=float))
        legal = np.zeros(len(self.board.b[rules.COLOR]))
        for p in np.flatnonzero(self.board.b[rules.COLOR] == rules.EMPTY):
            legal[p] = rules.illegal_reason(self.board.b, self.board.m, c, p) == 0
        return self._heat(legal)


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
    engine's own seeded stream is untouched. A failure is one line on standard
    error (the command that meets it again answers ``?`` with the reason)."""
    try:
        board = Board(size)
        _, knowledge = search_priors(config, prior, board, rules.BLACK)
        Search(replace(config, playouts=1, time_per_move=None, threads=1)).run(board, rules.BLACK, None, knowledge)
    except Exception as e:  # a background thread: say it in one line, never a traceback
        print(f"shapemill gtp: warm-up failed: {one_line(e)}", file=sys.stderr, flush=True)


def run_gtp(config: SearchConfig, size: int, prior: MovePrior | None = None) -> None:
    """The GTP loop on stdin / stdout; ``prior`` gives the root's move priors. The
    kernels warm up in the background meanwhile (``warm_up``). Input that is not
    UTF-8 is read with replacement characters, to be refused like any bad line."""
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="replace")
    threading.Thread(target=warm_up, args=(config, size, prior), daemon=True).start()
    GtpEngine(config, size, prior).loop()

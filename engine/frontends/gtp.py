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
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TextIO

import numpy as np

from ...datasets.sources import DEFAULT_MAX_BYTES
from ...datasets.text import parse_komi
from ...errors import ShapemillError
from ...files import read_bounded, write_text_atomic
from ...go import rules, vertices
from ...go.board import Board, IllegalMove
from ...go.reading import libs_after_up_to_2
from ...go.seki import seki_stones
from ...go.vertices import ColorError, flat_index, flat_vertex, format_vertex, point_at
from ...patterns.prior import MovePrior
from ..search.endgame import RESIGN, choose_move, dead_stones, score_without_dead
from ..search.search import UNLIMITED, Budget, Search, SearchConfig
from ..solve.status import proven_status
from ..solve.urgent import LifeReader, raise_urgent
from .clock import KINDS, MAX_MOVE_SECONDS, TimeLeft, TimeSettings, move_seconds
from .explain import Explainer, knowledge_explanation
from .katago import DEFAULT_RULES, KGS_RULES, RulesError, board_order, parse_rules, rules_text
from .report import search_report

NAME, VERSION = "shapemill", "0.1.0"
#: Moves of a principal variation in an analysis line (KataGo's analysisPVLen default).
PV_LENGTH = 15
#: GoGui's analyze commands (``gogui-analyze_commands``): type/label/command, %p the point clicked.
ANALYZE_COMMANDS = ("gfx/Visits/shapemill-visits", "gfx/Prior/shapemill-prior",
                    "gfx/Prior (percent)/shapemill-prior-percent", "gfx/Ownership/shapemill-ownership",
                    "gfx/Explain point/shapemill-explain %p")
#: Leela Zero's ``lz-analyze`` gives win rates, priors and lcb in 0..10000, not 0..1.
LZ_SCALE = 10000
#: The analysis commands' interval is in centiseconds (Leela Zero's and KataGo's).
CENTISECONDS = 100
#: The shortest interval between two analysis lines, in seconds: 0 would print without end.
MIN_INTERVAL = 0.01
#: With ``--read-life``, the share of a move's seconds its reading may take (the rest is
#: the search's), and the seconds it may take when the search counts playouts instead.
READ_SHARE = 0.2
READ_SECONDS = 0.1


@dataclass
class AnalyzeOptions:
    """What an analysis command asks for (``lz-analyze`` / ``kata-analyze`` and their genmoves)."""

    color: str
    interval: float = 1.0  # seconds between two lines
    max_moves: int | None = None
    min_moves: int = 0
    ownership: bool = False
    pv_visits: bool = False
    root_info: bool = False


class GtpError(Exception):
    """A command that cannot be carried out; its message goes after ``?``."""


def one_line(error: BaseException) -> str:
    """An error's message on one line (a GTP response must not break off early)."""
    return " ".join(str(error).split()) or type(error).__name__


def parse_vertex(text: str, size: int) -> tuple[int, int] | None:
    """``(row, col)`` of a GTP vertex (row 0 at the bottom), None for pass."""
    try:
        return vertices.parse_vertex(text, size)
    except ValueError as e:
        raise GtpError(str(e)) from None


def seconds_or_komi(text: str, signed: bool = False) -> float:
    """A finite number (not negative unless ``signed``): a komi or a time setting;
    ValueError for anything else (``inf`` main time would make a move search forever)."""
    value = float(text)
    if not math.isfinite(value) or value < 0 and not signed:
        raise ValueError(f"invalid number {text!r}")
    return value


def parse_color(text: str) -> str:
    """'b' or 'w' from GTP's colour words."""
    try:
        return vertices.parse_color(text)
    except ColorError as e:
        raise GtpError(str(e)) from None


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
        self.size = size
        self.board = Board(size)
        self.search = Search(config)
        self.reader = LifeReader()  # with --read-life: its proofs are kept from move to move
        self.last = None
        self.last_key: tuple[int, str] | None = None  # the position (hash, to move) of self.last
        self.movers: list[str] = []  # colours of the moves played, for undo and the side to move
        self.time_settings: TimeSettings | None = None  # None: no limit
        self.time_left: dict[str, TimeLeft] = {}
        self._analysis: tuple[threading.Event, list[threading.Thread]] | None = None
        self._out_lock = threading.Lock()
        self.rules = parse_rules(DEFAULT_RULES)
        self.explainer: Explainer | None = knowledge_explanation(prior) if hasattr(prior, "explain") else None
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
            "gogui-analyze_commands": lambda a: "\n".join(ANALYZE_COMMANDS),
            "shapemill-visits": self.cmd_visits,
            "shapemill-prior": self.cmd_prior,
            "lz-analyze": lambda a: "",
            "kata-analyze": lambda a: "",
            "lz-genmove_analyze": lambda a: "",
            "kata-genmove_analyze": lambda a: "",
            "analyze": lambda a: "",
            "genmove_analyze": lambda a: "",
            **self.extension_commands(),
        }
        self.streams: dict[str, Callable[[list[str], str, TextIO], None]] = {
            "lz-analyze": lambda a, cid, out: self.analyze("lz", a, cid, out),
            "kata-analyze": lambda a, cid, out: self.analyze("kata", a, cid, out),
            "lz-genmove_analyze": lambda a, cid, out: self.genmove_analyze("lz", a, cid, out),
            "kata-genmove_analyze": lambda a, cid, out: self.genmove_analyze("kata", a, cid, out),
            # KataGo's names for Sabaki: kata-analyze's format, every float with a decimal point (ours always)
            "analyze": lambda a, cid, out: self.analyze("kata", a, cid, out),
            "genmove_analyze": lambda a, cid, out: self.genmove_analyze("kata", a, cid, out),
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
        return (self.size, self.board.copy(), list(self.movers), self.config, replace(self.config), self.search,
                self.last, self.last_key, self.time_settings, dict(self.time_left))

    def _restore(self, state: tuple) -> None:
        (self.size, self.board, self.movers, self.config, settings, self.search, self.last, self.last_key,
         self.time_settings, self.time_left) = state
        self.config.__dict__.update(settings.__dict__)  # undo a change in place too: the searches hold the object

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

    def _analysis_args(self, a: list[str], need_color: bool) -> AnalyzeOptions:
        """The options of an analysis command: ``[color] [interval]``, then KataGo's
        key-value pairs ``interval N``, ``maxmoves N``, ``minmoves N``, ``ownership true``,
        ``pvVisits true``, ``rootInfo true`` (GTP_Extensions.md); ``avoid`` / ``allow`` and
        other keys are skipped."""
        opts, rest = AnalyzeOptions(self.to_move()), list(a)
        if rest and rest[0].lower() in ("b", "w", "black", "white"):
            opts.color = parse_color(rest.pop(0))
        elif need_color:
            raise GtpError("syntax error")
        if rest and rest[0].isdigit():
            opts.interval = min(int(rest.pop(0)) / CENTISECONDS, MAX_MOVE_SECONDS)  # a longer wait overflows
        while rest:
            key = rest.pop(0)
            if key in ("avoid", "allow"):
                rest = rest[3:]  # PLAYER VERTICES UNTILDEPTH: not implemented, as in KataGo 1.x
                continue
            if not rest:
                raise GtpError(f"syntax error: {key} has no value")
            value = rest.pop(0)
            if key in ("interval", "maxmoves", "minmoves"):
                if not value.isdigit():
                    raise GtpError(f"syntax error: {key} {value}")
                if key == "interval":
                    opts.interval = min(int(value) / CENTISECONDS, MAX_MOVE_SECONDS)
                elif key == "maxmoves":
                    opts.max_moves = int(value)
                else:
                    opts.min_moves = int(value)
            elif key in ("ownership", "pvVisits", "rootInfo"):
                if value not in ("true", "false"):
                    raise GtpError(f"syntax error: {key} {value}")
                setattr(opts, {"ownership": "ownership", "pvVisits": "pv_visits", "rootInfo": "root_info"}[key],
                        value == "true")
        opts.interval = max(opts.interval, MIN_INTERVAL)
        return opts

    def _info_line(self, kind: str, opts: AnalyzeOptions, board: Board) -> str:
        """One line of analysis of the search of ``board``: ``info`` entries for its root
        moves (Leela Zero's fields for ``lz``, KataGo's for ``kata``, from the analysed
        colour's side), then with ``kata`` what the options ask: ``rootInfo``, ``ownership``."""
        report = search_report(self.search, board, opts.color, PV_LENGTH, opts.color, opts.min_moves)
        moves = report.moves[:opts.max_moves] if opts.max_moves is not None else report.moves
        entries = []
        for order, m in enumerate(moves):
            pv = " ".join(format_vertex(p) for p in m.pv)
            if kind == "lz":
                entries.append(f"info move {format_vertex(m.point)} visits {m.visits} winrate "
                               f"{round(m.winrate * LZ_SCALE)} prior {round(m.prior * LZ_SCALE)} lcb {round(m.lcb * LZ_SCALE)} "
                               f"order {order} pv {pv}")
                continue
            entry = (f"info move {format_vertex(m.point)} visits {m.visits} utility {m.utility:.6f} "
                     f"winrate {m.winrate:.6f} scoreMean {m.score:.6f} scoreStdev {m.score_stdev:.6f} "
                     f"scoreLead {m.score:.6f} scoreSelfplay {m.score:.6f} prior {m.prior:.6f} lcb {m.lcb:.6f} "
                     f"utilityLcb {m.utility_lcb:.6f} order {order} pv {pv}")
            if opts.pv_visits:
                entry += " pvVisits " + " ".join(str(v) for v in m.pv_visits)
            entries.append(entry)
        if kind == "kata" and entries and opts.root_info:
            r = report.root
            entries.append(f"rootInfo visits {r.visits} utility {r.utility:.6f} winrate {r.winrate:.6f} "
                           f"scoreMean {r.score:.6f} scoreStdev {r.score_stdev:.6f} scoreLead {r.score:.6f} "
                           f"scoreSelfplay {r.score:.6f} lcb {r.lcb:.6f} utilityLcb {r.utility_lcb:.6f} "
                           f"currentPlayer {opts.color.upper()}")
        owner = self.search.owner_so_far()
        if kind == "kata" and entries and opts.ownership and len(owner) == (board.size + 2) ** 2:
            sign = 1.0 if opts.color == "b" else -1.0  # from the player to move
            entries.append("ownership " + " ".join(f"{v:.6f}" for v in board_order(sign * owner, board.size)))
        return " ".join(entries)

    def _report(self, kind: str, opts: AnalyzeOptions, board: Board, stop: threading.Event, out: TextIO) -> None:
        """Print an analysis line every interval until ``stop`` is set."""
        while not stop.wait(opts.interval):
            line = self._info_line(kind, opts, board)
            if line:
                with self._out_lock:
                    out.write(line + "\n")
                    out.flush()

    def analyze(self, kind: str, a: list[str], cid: str, out: TextIO) -> None:
        """``lz-analyze`` / ``kata-analyze``: search the current position until the
        next command, reporting every interval."""
        opts = self._analysis_args(a, need_color=False)
        c = rules.BLACK if opts.color == "b" else rules.WHITE
        prior, knowledge = search_priors(self.config, self.prior, self.board, c)
        stop = threading.Event()
        board = self.board.copy()

        def search() -> None:
            self.last = self.search.run(board, c, prior, knowledge, stop=stop, budget=Budget(UNLIMITED))
            self.last_key = (board.zobrist, opts.color)

        out.write(f"={cid}\n")
        out.flush()
        threads = [threading.Thread(target=search, daemon=True),
                   threading.Thread(target=self._report, args=(kind, opts, board, stop, out), daemon=True)]
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
        out.write("\n")
        out.flush()

    def genmove_analyze(self, kind: str, a: list[str], cid: str, out: TextIO) -> None:
        """``lz-genmove_analyze`` / ``kata-genmove_analyze``: ``genmove`` that reports
        its search every interval (with the options of ``*-analyze``) and ends with ``play MOVE``."""
        opts = self._analysis_args(a, need_color=True)
        board = self.board.copy()
        out.write(f"={cid}\n")
        out.flush()
        stop = threading.Event()
        reporter = threading.Thread(target=self._report, args=(kind, opts, board, stop, out), daemon=True)
        reporter.start()
        try:
            text = self.cmd_genmove([opts.color])
        finally:
            stop.set()
            reporter.join()
        line = self._info_line(kind, opts, board)
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
            self.config = replace(self.config, komi=seconds_or_komi(a[0], signed=True))
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
        start = time.perf_counter()
        seconds = self.move_seconds(color)
        c = rules.BLACK if color == "b" else rules.WHITE
        opponent_passed = self.board.moves_played > 0 and int(self.board.m[rules.LAST]) == rules.PASS
        prior, knowledge = search_priors(self.config, self.prior, self.board, c)
        if self.config.read_life and prior is not None:
            urgent = self.reader.urgent(self.board, c, READ_SECONDS if seconds is None else READ_SHARE * seconds)
            prior = raise_urgent(prior, urgent)
            if seconds is not None:  # the reading's time is the search's less
                seconds = max(seconds - (time.perf_counter() - start), (1 - READ_SHARE) * seconds)
        budget = Budget(self.config.playouts, seconds)
        self.last = choose_move(self.search, self.board, c, opponent_passed, prior, knowledge, budget)
        self.last_key = (self.board.zobrist, color)
        move = self.last.move
        if move == RESIGN:
            return move, "resign"
        point = None if move == rules.PASS else point_at(move, self.size)
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
        if not self.board.moves_played:
            raise GtpError("cannot undo")
        self.board.undo()
        if self.movers:
            self.movers.pop()
        return ""

    def _setup_handicap(self, points: list[tuple[int, int]]) -> None:
        if self.board.stones("b") or self.board.stones("w") or self.board.moves_played:
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
            self.time_settings = TimeSettings("absolute" if byo == 0 else "canadian", main, byo, stones)
        self.time_left = {}
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
            self.time_settings = None
        elif a[0] == "absolute":
            self.time_settings = TimeSettings("absolute", values[0], 0.0, 0)
        else:
            self.time_settings = TimeSettings(a[0], values[0], values[1], int(values[2]))
        self.time_left = {}
        return ""

    def cmd_time_left(self, a: list[str]) -> str:
        try:
            color, seconds, stones = parse_color(a[0]), seconds_or_komi(a[1]), int(a[2])
        except (IndexError, ValueError):
            raise GtpError("syntax error") from None
        self.time_left[color] = TimeLeft(seconds, stones)
        return ""

    def move_seconds(self, color: str) -> float | None:
        """Seconds for ``color``'s next move under the clock (``clock.move_seconds``);
        without time settings the engine's own (None: a search by playouts)."""
        return move_seconds(self.time_settings, self.time_left.get(color), self.size * self.size,
                            self.board.moves_played, self.config.time_per_move)

    def _ownership(self) -> np.ndarray:
        c = rules.BLACK if self.to_move() == "b" else rules.WHITE
        return Search(self.config).run(self.board, c, budget=Budget(self.config.playouts)).owner

    def cmd_final_score(self, a: list[str]) -> str:
        score = score_without_dead(self.board, self._ownership(), self.config.komi)
        if score == 0:
            return "0"
        return f"B+{score:g}" if score > 0 else f"W+{-score:g}"

    def cmd_final_status_list(self, a: list[str]) -> str:
        if len(a) != 1 or a[0] not in ("alive", "dead", "seki"):
            raise GtpError("syntax error")
        dead = self.dead_stones(self._ownership())
        black, white = self.board.stones("b"), self.board.stones("w")
        seki = self._seki() - dead
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
            self.config = replace(self.config, komi=komi)
            self.search = Search(self.config)
        else:
            print(f"loadsgf: {a[0]} gives no komi (KM) that can be read; it stays {self.config.komi:g}", file=sys.stderr, flush=True)
        return "black" if not moves[:limit] or moves[:limit][-1][0] == "w" else "white"

    def cmd_list_stones(self, a: list[str]) -> str:
        if len(a) != 1:
            raise GtpError("syntax error")
        return " ".join(format_vertex(p) for p in sorted(self.board.stones(parse_color(a[0]))))

    def _heat(self, values: np.ndarray) -> str:
        top = values.max() if values.size and values.max() > 0 else 1.0
        cells = [f"{flat_vertex(int(p), self.size)} {values[p] / top:.3f}"
                 for p in np.flatnonzero(values > 0)]
        return "INFLUENCE " + " ".join(cells) if cells else ""

    def _searched_here(self) -> bool:
        """Whether the last search was of the current position and side to move."""
        return self.last is not None and self.last_key == (self.board.zobrist, self.to_move())

    def cmd_visits(self, a: list[str]) -> str:
        """The root visits of a search of the current position for the side to move: the
        last search's if it was of this position, else a new one."""
        if not self._searched_here():
            self._search_here()
        return self._heat(self.last.visits)

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

    # --- KataGo, KGS and GoGui extensions ---------------------------------------

    def extension_commands(self) -> dict[str, Callable[[list[str]], str]]:
        """The commands beyond GTP 2 that GUIs, servers and KataGo's tools send."""
        return {
            "printsgf": self.cmd_printsgf,
            "genmove_cleanup": self.cmd_genmove_cleanup,
            "kgs-genmove_cleanup": self.cmd_genmove_cleanup,
            "kgs-rules": self.cmd_kgs_rules,
            "kata-get-rules": lambda a: rules_text(self.rules),
            "kata-set-rules": self.cmd_kata_set_rules,
            "stop": lambda a: "",  # the loop ends a running analysis before every command
            "clear_cache": self.cmd_clear_cache,
            "shapemill-prior-percent": self.cmd_prior_percent,
            "shapemill-ownership": self.cmd_ownership,
            "shapemill-explain": self.cmd_explain,
        }

    def game_sgf(self) -> str:
        """The game so far as SGF: board size, komi, rules, the setup stones and the moves."""
        from sgfmill import sgf

        game = sgf.Sgf_game(self.size)
        root = game.get_root()
        root.set("KM", self.config.komi)
        root.set("RU", "Chinese")
        root.set_raw("AP", f"{NAME}:{VERSION}".encode())
        start = self.board.before_moves()
        root.set_setup_stones(start.stones("b"), start.stones("w"))
        node = root
        for color, point in zip(self.movers, self.board.moves):
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

    def cmd_genmove_cleanup(self, a: list[str]) -> str:
        """``kgs-genmove_cleanup``: after the players disagreed on the dead stones, play on
        until the opponent's dead stones are captured: a move on a liberty of a dead
        opponent string (the most visited of the search, one that is no self-atari first);
        never a pass while such stones remain. Without dead stones, ``genmove``."""
        if len(a) != 1:
            raise GtpError("syntax error")
        color = parse_color(a[0])
        c = rules.BLACK if color == "b" else rules.WHITE
        prior, knowledge = search_priors(self.config, self.prior, self.board, c)
        budget = Budget(self.config.playouts, self.move_seconds(color))
        self.last = self.search.run(self.board, c, prior, knowledge, budget=budget)
        self.last_key = (self.board.zobrist, color)
        other = "w" if color == "b" else "b"
        dead = {p for p in self.dead_stones(self.last.owner) if self.board.get(p) == other}
        targets = sorted({q for p in dead for q in self._neighbours(p) if self.board.get(q) is None
                          and self.board.illegal_reason(color, q) == ""})
        if not targets:
            return self.cmd_genmove(a)
        safe = [q for q in targets if libs_after_up_to_2(self.board.b, self.board.m, c, flat_index(q, self.size)) >= 2]
        move = max(safe or targets, key=lambda q: self.last.visits[flat_index(q, self.size)])
        self.board.play(color, move)
        self.movers.append(color)
        return format_vertex(move)

    def _neighbours(self, p: tuple[int, int]) -> list[tuple[int, int]]:
        r, c = p
        return [(r + dr, c + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
                if 0 <= r + dr < self.size and 0 <= c + dc < self.size]

    def dead_stones(self, owner: np.ndarray) -> set[tuple[int, int]]:
        """The stones dead at the end: those the playouts give the other side, except where the
        solver proves a string's status within its small budget, and never a string in seki."""
        dead = set(dead_stones(self.board, owner))
        black, white = self.board.stones("b"), self.board.stones("w")
        for point, status in proven_status(self.board.size, black, white).items():
            (dead.add if status == "dead" else dead.discard)(point)
        return dead - self._seki()

    def _seki(self) -> set[tuple[int, int]]:
        return {point_at(int(p), self.size) for p in np.flatnonzero(seki_stones(self.board.b, self.board.m))}

    def _set_rules(self, text: str) -> str:
        try:
            self.rules = parse_rules(text)
        except RulesError as e:
            raise GtpError(one_line(e)) from None
        return ""

    def cmd_kata_set_rules(self, a: list[str]) -> str:
        """KataGo's ``kata-set-rules RULES``: a shorthand name or a JSON dictionary; area
        scoring accepted, other rules refused in one line (the rules stay as they were)."""
        if not a:
            raise GtpError("syntax error")
        return self._set_rules(" ".join(a))

    def cmd_kgs_rules(self, a: list[str]) -> str:
        """kgsGtp's ``kgs-rules chinese|aga|japanese|new_zealand``: as ``kata-set-rules``
        (``chinese`` is ``chinese-kgs``)."""
        if len(a) != 1 or a[0].lower() not in KGS_RULES:
            raise GtpError("syntax error: kgs-rules chinese|aga|japanese|new_zealand")
        return self._set_rules(KGS_RULES[a[0].lower()])

    def cmd_clear_cache(self, a: list[str]) -> str:
        """KataGo's ``clear_cache``: forget the search tree, so the next search starts afresh."""
        self.search = Search(self.config)
        self.last = None
        return ""

    def _labels(self, values: np.ndarray) -> str:
        cells = [f"{flat_vertex(int(p), self.size)} {values[p]:.0f}"
                 for p in np.flatnonzero(values >= 0.5)]
        return "LABEL " + " ".join(cells) if cells else ""

    def cmd_prior_percent(self, a: list[str]) -> str:
        """The table's probability of each move of the side to move, as percent labels
        (GoGui ``LABEL``; moves under half a percent unlabelled)."""
        c = rules.BLACK if self.to_move() == "b" else rules.WHITE
        if self.prior is None:
            raise GtpError("no ratings table to explain with (--no-priors)")
        strength = np.asarray(self.prior(self.board.b, self.board.m, c), dtype=float)
        total = strength.sum()
        return self._labels(100 * strength / total) if total > 0 else ""

    def cmd_ownership(self, a: list[str]) -> str:
        """The playouts' mean final ownership of every point (GoGui ``INFLUENCE``, Black
        positive, White negative): the last search's if it was of this position, else a new one."""
        if not self._searched_here():
            self._search_here()
        owner = self.last.owner
        cells = [f"{format_vertex((r, col))} {owner[flat_index((r, col), self.size)]:.2f}"
                 for r in range(self.size) for col in range(self.size)]
        return "INFLUENCE " + " ".join(cells)

    def _search_here(self) -> None:
        """Search the current position for the side to move (the engine's playouts, no clock)."""
        color = self.to_move()
        c = rules.BLACK if color == "b" else rules.WHITE
        prior, knowledge = search_priors(self.config, self.prior, self.board, c)
        self.last = self.search.run(self.board, c, prior, knowledge, budget=Budget(self.config.playouts))
        self.last_key = (self.board.zobrist, color)

    def cmd_explain(self, a: list[str]) -> str:
        """``shapemill-explain POINT``: why the table rates the side to move's move there:
        its largest known pattern and tactical features with their Elo (GoGui ``TEXT``,
        the point circled and labelled with its probability in percent)."""
        if len(a) != 1:
            raise GtpError("syntax error")
        point = parse_vertex(a[0], self.size)
        if point is None:
            raise GtpError("a pass has no pattern")
        color = self.to_move()
        reason = self.board.illegal_reason(color, point)
        if reason:
            raise GtpError(f"illegal move: {reason}")
        if self.explainer is None:
            raise GtpError("no ratings table to explain with (--no-priors)")
        why = self.explainer(self.board, color, point)
        parts = ", ".join(f"{p.name} {p.value} {p.elo:+.0f} Elo" for p in why.parts) or "no known feature"
        vertex = format_vertex(point)
        return (f"TEXT {vertex} ({'Black' if color == 'b' else 'White'}) "
                f"{100 * why.probability:.1f}%: {parts}\nCIRCLE {vertex}\nLABEL {vertex} {100 * why.probability:.0f}%")


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
        Search(replace(config, threads=1)).run(board, rules.BLACK, None, knowledge, budget=Budget(1))
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

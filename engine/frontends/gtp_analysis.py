"""The analysis commands of Leela Zero and KataGo in GTP, which stream.

``lz-analyze`` / ``kata-analyze`` answer ``=`` and then print one line of ``info move ...``
entries every interval while the search goes on, until the next command arrives, which
ends the response with its blank line; ``lz-genmove_analyze`` / ``kata-genmove_analyze``
print them while choosing a move and end with ``play MOVE``. Leela Zero gives win rates
and priors in 0..10000, KataGo in 0..1.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from ...go import rules
from ...go.board import Board
from ...go.vertices import format_vertex
from ..search.search import UNLIMITED, Budget
from .clock import MAX_MOVE_SECONDS
from .game_state import GameState
from .katago import board_order
from .protocol import PV_LENGTH, GtpError, parse_color
from .report import search_report

#: Leela Zero's ``lz-analyze`` gives win rates, priors and lcb in 0..10000, not 0..1.
LZ_SCALE = 10000
#: The analysis commands' interval is in centiseconds (Leela Zero's and KataGo's).
CENTISECONDS = 100
#: The shortest interval between two analysis lines, in seconds: 0 would print without end.
MIN_INTERVAL = 0.01

Stream = Callable[[list[str], str, TextIO], None]


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


class AnalysisStreams:
    """The streaming analysis commands of a GTP session: at most one runs at a time, and the
    session's loop ends it (``stop``) before every next command."""

    def __init__(self, state: GameState, genmove: Callable[[list[str]], str]) -> None:
        self.state = state
        self.genmove = genmove  # the session's ``genmove``, which ``*-genmove_analyze`` reports on
        self._analysis: tuple[threading.Event, list[threading.Thread]] | None = None
        self._out_lock = threading.Lock()

    def streams(self) -> dict[str, Stream]:
        """The streaming commands by name."""
        return {
            "lz-analyze": lambda a, cid, out: self.analyze("lz", a, cid, out),
            "kata-analyze": lambda a, cid, out: self.analyze("kata", a, cid, out),
            "lz-genmove_analyze": lambda a, cid, out: self.genmove_analyze("lz", a, cid, out),
            "kata-genmove_analyze": lambda a, cid, out: self.genmove_analyze("kata", a, cid, out),
            # KataGo's names for Sabaki: kata-analyze's format, every float with a decimal point (ours always)
            "analyze": lambda a, cid, out: self.analyze("kata", a, cid, out),
            "genmove_analyze": lambda a, cid, out: self.genmove_analyze("kata", a, cid, out),
        }

    def _analysis_args(self, a: list[str], need_color: bool) -> AnalyzeOptions:
        """The options of an analysis command: ``[color] [interval]``, then KataGo's
        key-value pairs ``interval N``, ``maxmoves N``, ``minmoves N``, ``ownership true``,
        ``pvVisits true``, ``rootInfo true`` (GTP_Extensions.md); ``avoid`` / ``allow`` and
        other keys are skipped."""
        opts, rest = AnalyzeOptions(self.state.to_move()), list(a)
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
        report = search_report(self.state.search, board, opts.color, PV_LENGTH, opts.color, opts.min_moves)
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
        owner = self.state.search.owner_so_far()
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
        prior, knowledge = self.state.search.priors(self.state.board, c)
        stop = threading.Event()
        board = self.state.board.copy()

        def search() -> None:
            self.state.last = self.state.search.run(board, c, prior, knowledge, stop=stop, budget=Budget(UNLIMITED))
            self.state.last_key = (board.zobrist, opts.color)

        out.write(f"={cid}\n")
        out.flush()
        threads = [threading.Thread(target=search, daemon=True),
                   threading.Thread(target=self._report, args=(kind, opts, board, stop, out), daemon=True)]
        for t in threads:
            t.start()
        self._analysis = (stop, threads)

    def stop(self, out: TextIO) -> None:
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
        board = self.state.board.copy()
        out.write(f"={cid}\n")
        out.flush()
        stop = threading.Event()
        reporter = threading.Thread(target=self._report, args=(kind, opts, board, stop, out), daemon=True)
        reporter.start()
        try:
            text = self.genmove([opts.color])
        finally:
            stop.set()
            reporter.join()
        line = self._info_line(kind, opts, board)
        out.write((line + "\n" if line else "") + f"play {text}\n\n")
        out.flush()

"""A GTP 2 front end for the MCTS engine (stdin / stdout): the command table and the core
commands.

Every response is ``=[id] text`` or ``?[id] message`` followed by a blank line; malformed
or unknown commands and illegal moves get ``?`` with the reason, and no input makes the
loop crash. Vertices are GTP's (``A1`` bottom left, no I). The commands beyond the core
live with what they serve: the clock (``gtp_time``), SGF (``gtp_sgf``), scoring and
cleanup (``gtp_endgame``), streaming analysis (``gtp_analysis``), GoGui's analyze
commands (``gtp_gogui``); what they all change is one ``GameState``, which a failed
command puts back.
"""

from __future__ import annotations

import io
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TextIO

from ...compiling import WARM_UP_THREAD
from ...errors import ShapemillError
from ...go import rules
from ...go.board import IllegalMove
from ...go.vertices import format_vertex, point_at
from ...limits import NUMBER_CHARS_MAX
from ...patterns.prior import MovePrior
from ..search import RESIGN, Budget, Search, SearchConfig, choose_move, warm_up
from ..solve.urgent import LifeReader, raise_urgent
from .game_state import GameState
from .gtp_analysis import AnalysisStreams
from .gtp_endgame import EndgameCommands
from .gtp_gogui import GoGuiCommands
from .gtp_sgf import SgfCommands
from .gtp_time import TimeCommands
from .katago import (
    KGS_RULES,
    MAX_THREADS,
    MAX_VISITS,
    RulesError,
    apply_config,
    config_values,
    ignored_keys,
    override_values,
    played_rules,
    rules_text,
)
from .protocol import NAME, NUMERIC, VERSION, GtpError, one_line, parse_color, parse_komi, parse_vertex

#: With ``--read-life``, the share of a move's seconds its reading may take (the rest is
#: the search's), and the seconds it may take when the search counts playouts instead.
READ_SHARE = 0.2
READ_SECONDS = 0.1
#: The KataGo GTP config keys shapemill reads: the search setting each gives and its range (``katago.apply_config``).
CONFIG_KEYS = {"maxVisits": ("playouts", 1, MAX_VISITS), "maxPlayouts": ("playouts", 1, MAX_VISITS),
               "numSearchThreads": ("threads", 1, MAX_THREADS)}


def katago_gtp_config(config: SearchConfig, path: str | None, override: str | None) -> tuple[SearchConfig, list[str]]:
    """``config`` with what a KataGo GTP config file (numbers clamped) and then KataGo's
    ``-override-config`` (range-checked: ``ShapemillError``) say of ``CONFIG_KEYS``; and a
    warning for each override key shapemill does not read."""
    if path is not None:
        config = apply_config(config_values(path), config, CONFIG_KEYS, path, clamp=True)
    if override is None:
        return config, []
    values = override_values(override)
    return apply_config(values, config, CONFIG_KEYS, "-override-config", clamp=False), ignored_keys(values, CONFIG_KEYS)


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
    """The GTP command table of one session, its core commands, and the loop."""

    def __init__(self, config: SearchConfig, size: int = 19, prior: MovePrior | None = None) -> None:
        self.state = GameState.new(config, size, prior)
        self.interrupt = threading.Event()  # set by GoGui's "# interrupt" while the command it ends runs
        self._interrupts = threading.Lock()
        self._running = 0  # the number of the input line running in ``loop`` (0: none)
        self._interrupt_for = 0  # the line the last "# interrupt" came after
        self.reader = LifeReader()  # with --read-life: its proofs are kept from move to move
        self.clock = TimeCommands(self.state)
        self.analysis = AnalysisStreams(self.state, self.cmd_genmove)
        self.gogui = GoGuiCommands(self.state)
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
            "list_stones": self.cmd_list_stones,
            "showboard": lambda a: "\n" + str(self.state.board),
            "kgs-rules": self.cmd_kgs_rules,
            "kata-get-rules": lambda a: rules_text(self.state.rules),
            "kata-set-rules": self.cmd_kata_set_rules,
            "stop": lambda a: "",  # the loop ends a running analysis before every command
            "clear_cache": self.cmd_clear_cache,
            "cputime": lambda a: f"{time.process_time():.3f}",  # GoGui's: the engine's CPU seconds, all threads
            "gogui-interrupt": lambda a: "",  # GoGui may send "# interrupt" to end a genmove (``loop``)
            **self.clock.commands(),
            **SgfCommands(self.state).commands(),
            **EndgameCommands(self.state, self.clock, self.cmd_genmove).commands(),
            **self.gogui.commands(),
        }
        self.streams = self.analysis.streams()
        self.commands.update({name: lambda a: "" for name in self.streams})

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
        if any(len(word) > NUMBER_CHARS_MAX and NUMERIC.fullmatch(word) for word in args):
            # no real value is so long; Python refuses integers past 4,300 digits, slowly
            return f"?{cid} syntax error: a number longer than {NUMBER_CHARS_MAX} characters\n\n", False
        snapshot = self.state.copy()
        try:
            if name in self.streams:
                self.streams[name](args, cid, stdout if stdout is not None else io.StringIO())
                return "", False
            text = handler(args)
        except (GtpError, IllegalMove, ValueError, IndexError, OSError, ShapemillError) as e:
            self.state.restore(snapshot)
            return f"?{cid} {one_line(e)}\n\n", False
        except Exception as e:  # a bug must not take a GUI's engine away mid-game
            self.state.restore(snapshot)
            return f"?{cid} internal error: {type(e).__name__}: {one_line(e)}\n\n", False
        return f"={cid} {text}".rstrip(" ") + "\n\n", name == "quit"

    def loop(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        """Answer commands until ``quit`` or end of input (default: the process's
        standard streams as they are when the loop starts)."""
        stdin = stdin or sys.stdin
        stdout = stdout or sys.stdout
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, args=(stdin, lines), daemon=True).start()
        for number, line in iter(lines.get, None):
            self.analysis.stop(stdout)
            with self._interrupts:
                self._running = number
                if self._interrupt_for == number:  # it came before the command started
                    self.interrupt.set()
            response, done = self.handle(line, stdout)
            with self._interrupts:
                self._running = 0
                self.interrupt.clear()  # an interrupt ends the command it came after, no later one
            if response:
                stdout.write(response)
                stdout.flush()
            if done:
                return
        self.analysis.stop(stdout)

    def _read(self, stdin: TextIO, lines: queue.Queue) -> None:
        """The input lines for ``loop``, numbered, read while a command runs. GoGui's
        ``# interrupt`` (``gogui-interrupt``), which it sends while it waits for an answer, ends
        the command read last: ``interrupt`` is set while it runs (a running ``genmove``'s search
        ends with the move it has). None at the end of input."""
        number = 0
        try:
            for line in stdin:
                if line.strip() == "# interrupt":
                    with self._interrupts:
                        self._interrupt_for = number
                        if self._running == number:
                            self.interrupt.set()
                    continue
                number += 1
                lines.put((number, line))
        finally:
            lines.put(None)

    def cmd_boardsize(self, a: list[str]) -> str:
        if len(a) != 1 or not a[0].isdigit() or not 2 <= int(a[0]) <= rules.MAX_SIZE:
            raise GtpError("unacceptable size")
        self.state.reset(int(a[0]))
        return ""

    def cmd_clear_board(self, a: list[str]) -> str:
        self.state.reset(self.state.size)
        return ""

    def cmd_komi(self, a: list[str]) -> str:
        if len(a) != 1:
            raise GtpError("syntax error")
        komi = parse_komi(a[0], self.state.size)
        self.state.configure(replace(self.state.config, komi=komi))
        return ""

    def cmd_play(self, a: list[str]) -> str:
        if len(a) != 2:
            raise GtpError("syntax error")
        color, point = parse_color(a[0]), parse_vertex(a[1], self.state.size)
        reason = self.state.board.illegal_reason(color, point)
        if reason:
            raise GtpError(f"illegal move: {reason}")
        self.state.board.play(color, point)
        self.state.movers.append(color)
        return ""

    def _think(self, color: str) -> tuple[int, str]:
        if self.state.board.size != self.state.size:
            raise GtpError("board not ready")
        start = time.perf_counter()
        seconds = self.clock.move_seconds(color)
        c = rules.BLACK if color == "b" else rules.WHITE
        s = self.state
        opponent_passed = s.board.moves_played > 0 and int(s.board.m[rules.LAST]) == rules.PASS
        prior, knowledge = s.search.priors(s.board, c)
        if s.config.read_life and prior is not None:
            urgent = self.reader.urgent(s.board, c, READ_SECONDS if seconds is None else READ_SHARE * seconds)
            prior = raise_urgent(prior, urgent)
            if seconds is not None:  # the reading's time is the search's less
                seconds = max(seconds - (time.perf_counter() - start), (1 - READ_SHARE) * seconds)
        s.last = choose_move(s.search, s.board, c, opponent_passed, prior, knowledge, Budget(s.config.playouts, seconds),
                             stop=self.interrupt)
        s.last_key = (s.board.zobrist, color)
        move = s.last.move
        if move == RESIGN:
            return move, "resign"
        point = None if move == rules.PASS else point_at(move, self.state.size)
        return move, format_vertex(point)

    def cmd_genmove(self, a: list[str]) -> str:
        if len(a) != 1:
            raise GtpError("syntax error")
        color = parse_color(a[0])
        move, text = self._think(color)
        if move != RESIGN:
            self.state.board.play(color, parse_vertex(text, self.state.size))
            self.state.movers.append(color)
        return text

    def cmd_reg_genmove(self, a: list[str]) -> str:
        if len(a) != 1:
            raise GtpError("syntax error")
        return self._think(parse_color(a[0]))[1]

    def cmd_undo(self, a: list[str]) -> str:
        if not self.state.board.moves_played:
            raise GtpError("cannot undo")
        self.state.board.undo()
        if self.state.movers:
            self.state.movers.pop()
        return ""

    def _setup_handicap(self, points: list[tuple[int, int]]) -> None:
        board = self.state.board
        if board.stones("b") or board.stones("w") or board.moves_played:
            raise GtpError("board not empty")
        board.setup("b", points)

    def cmd_fixed_handicap(self, a: list[str]) -> str:
        if len(a) != 1 or not a[0].isdigit():
            raise GtpError("syntax error")
        points = handicap_points(self.state.size, int(a[0]))
        self._setup_handicap(points)
        return " ".join(format_vertex(p) for p in points)

    def cmd_place_free_handicap(self, a: list[str]) -> str:
        if len(a) != 1 or not a[0].isdigit():
            raise GtpError("syntax error")
        n = int(a[0])
        size = self.state.size
        if not 2 <= n < size * size:
            raise GtpError("invalid number of handicap stones")
        try:
            points = handicap_points(size, n)
        except GtpError:  # more stones than fixed points: fill the 4-4 grid outwards
            spots = sorted(((r, c) for r in range(size) for c in range(size)),
                           key=lambda p: (abs(p[0] - size // 2) + abs(p[1] - size // 2)) % 5)
            points = spots[:n]
        self._setup_handicap(points)
        return " ".join(format_vertex(p) for p in points)

    def cmd_set_free_handicap(self, a: list[str]) -> str:
        size = self.state.size
        points = [parse_vertex(v, size) for v in a]
        if not 2 <= len(points) < size * size or None in points or len(set(points)) != len(points):
            raise GtpError("bad vertex list")
        self._setup_handicap(points)
        return ""

    def _set_rules(self, text: str, command: str) -> str:
        try:
            self.state.rules, area_note = played_rules(text)
        except RulesError as e:
            raise GtpError(one_line(e)) from None
        if area_note is not None:  # GTP's answer has no room for it: a line on standard error
            print(f"{command} {text}: {area_note}", file=sys.stderr, flush=True)
        return ""

    def cmd_kata_set_rules(self, a: list[str]) -> str:
        """KataGo's ``kata-set-rules RULES``: a shorthand name or a JSON dictionary; territory
        rules (Japanese, Korean) and stone scoring are played and scored by area, which a line on
        standard error says; button Go is refused in one line (the rules stay as they were)."""
        if not a:
            raise GtpError("syntax error")
        return self._set_rules(" ".join(a), "kata-set-rules")

    def cmd_kgs_rules(self, a: list[str]) -> str:
        """kgsGtp's ``kgs-rules chinese|aga|japanese|new_zealand``: as ``kata-set-rules``
        (``chinese`` is ``chinese-kgs``)."""
        if len(a) != 1 or a[0].lower() not in KGS_RULES:
            raise GtpError("syntax error: kgs-rules chinese|aga|japanese|new_zealand")
        return self._set_rules(KGS_RULES[a[0].lower()], "kgs-rules")

    def cmd_clear_cache(self, a: list[str]) -> str:
        """KataGo's ``clear_cache``: forget the search tree, so the next search starts afresh."""
        self.state.search = Search(self.state.config, self.state.prior)
        self.state.last = None
        return ""

    def cmd_list_stones(self, a: list[str]) -> str:
        if len(a) != 1:
            raise GtpError("syntax error")
        return " ".join(format_vertex(p) for p in sorted(self.state.board.stones(parse_color(a[0]))))


def run_gtp(config: SearchConfig, size: int, prior: MovePrior | None = None) -> None:
    """The GTP loop on stdin / stdout; ``prior`` gives the root's move priors. The
    kernels warm up in the background meanwhile (``warm_up``). Input that is not
    UTF-8 is read with replacement characters, to be refused like any bad line."""
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="replace")
    threading.Thread(target=_warm_up, args=(config, size, prior), daemon=True, name=WARM_UP_THREAD).start()
    GtpEngine(config, size, prior).loop()


def _warm_up(config: SearchConfig, size: int, prior: MovePrior | None) -> None:
    """``warm_up`` in the background; a failure is one line on standard error (the command
    that meets it again answers ``?`` with the reason)."""
    failure = warm_up(config, size, prior)
    if failure:
        print(f"shapemill gtp: warm-up failed: {failure}", file=sys.stderr, flush=True)

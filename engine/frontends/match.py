"""Games between two GTP programs, refereed by our rules.

Every move is checked with ``Board`` (suicide, ko, positional superko); a game
ends with two passes, a resignation, an illegal move (which loses), a move
limit or, under a game clock, a program's time running out (which loses). The
result is the programs' ``final_score`` when they agree; when they do not, KGS's
cleanup phase follows (each captures the stones it holds dead, with
``kgs-genmove_cleanup`` where it knows it, until two passes) and every stone left
counts as alive (Tromp-Taylor); disagreements are reported. Games are saved as SGF,
and a match resumes from the SGF files already in its folder.
"""

from __future__ import annotations

import json
import math
import queue
import shlex
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import ShapemillError
from ...files import output_target, write_text_atomic
from ...go.board import Board
from ...go.vertices import COLOR_WORDS, VertexError, format_sgf_point, format_vertex, opponent, parse_vertex
from .clock import GameClock, TimeSettings
from .gtp import GtpEngine
from .protocol import one_line

#: What the reason of a game a program's failure ended says after the colour (kept in the SGF).
FORFEITS = " forfeits: "
#: What the reason of a game lost on time says after the colour (kept in the SGF).
LOST_ON_TIME = " lost on time: "
#: The command each colour is asked for its move with, until the cleanup phase.
GENMOVE = {"b": "genmove", "w": "genmove"}
#: Seconds a program has to answer ``quit`` and to exit before it is killed.
QUIT_SECONDS = 10
#: Seconds a program has at least for its first answer, which waits for its start-up.
START_SECONDS = 60
#: Seconds a program may take over a command when ``--move-timeout`` is not given.
COMMAND_SECONDS = 120
#: Seconds a program may take over a move under a game clock when ``--move-timeout`` is not
#: given: what its clock holds, at most this (a user in a GUI waits ten minutes for a move, not
#: the days a clock of a million seconds holds).
CLOCK_MOVE_SECONDS = 600


class EngineError(RuntimeError):
    """A program that crashed, hung past its time or answered garbage or ``?``."""


class Timeout(EngineError):
    """A program that gave no answer within its time."""


class GtpClient:
    """A GTP program in a subprocess; ``timeout`` seconds at most for each answer
    (None: no limit), ``START_SECONDS`` at least for the first; ``move_timeout`` at most
    for a move under a game clock (``timeout`` when None), and never more than the clock holds."""

    def __init__(self, command: str, timeout: float | None = None, move_timeout: float | None = None) -> None:
        self.command = command
        self.timeout = timeout
        self.move_timeout = timeout if move_timeout is None else move_timeout
        self.proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1, errors="replace",
                                     start_new_session=True)  # Ctrl-C is the referee's to handle, not the program's
        self.lines: queue.Queue[str] = queue.Queue()
        self.failed = False  # hung or gone: not asked to quit, only ended
        self.answered = False  # the first answer may take the program's start-up too
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        """Hand the program's output to ``send`` line by line; "" at its end."""
        assert self.proc.stdout
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put("")

    def send(self, line: str, timeout: float | None = None) -> str:
        """Send one command; returns the response text, raising ``EngineError`` on
        ``?``, a closed pipe or no complete answer within the timeout."""
        assert self.proc.stdin
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except OSError:
            self.failed = True
            raise EngineError(f"{self.command!r} exited before {line!r}") from None
        timeout = self.timeout if timeout is None else timeout
        if not self.answered and timeout is not None:
            timeout = max(timeout, START_SECONDS)
        deadline = None if timeout is None else time.monotonic() + timeout
        lines = []
        while True:
            try:
                out = self.lines.get(timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.failed = True
                raise Timeout(f"{self.command!r} gave no answer to {line!r} within {timeout:g} s") from None
            if not out:
                self.failed = True
                raise EngineError(f"{self.command!r} closed its output after {line!r}")
            if out.strip() == "" and lines:
                self.answered = True
                break
            if out.strip():
                lines.append(out.rstrip("\n"))
        return _answer(self.command, line, "\n".join(lines))

    def close(self) -> str:
        """Send ``quit`` and wait a little for the program to end, else kill it;
        never raises. Returns "" or why it had to be killed."""
        why = ""
        if self.failed:
            self.proc.kill()
        else:
            try:
                self.send("quit", timeout=QUIT_SECONDS)
            except EngineError as e:
                why = str(e)
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=QUIT_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            why = why or f"{self.command!r} did not exit within {QUIT_SECONDS} s of quit"
        return why


def _answer(command: str, line: str, text: str) -> str:
    """The text of a GTP response, raising ``EngineError`` for ``?`` or garbage."""
    if text.startswith("?"):
        raise EngineError(f"{command!r} refused {line!r}: {text[1:].strip()}")
    if not text.startswith("="):
        raise EngineError(f"{command!r} answered {line!r} with {text[:60]!r}, not GTP")
    return text[1:].strip()


class LocalClient:
    """Our engine in this process, answering like a ``GtpClient`` (no start-up)."""

    def __init__(self, engine: GtpEngine, name: str = "shapemill") -> None:
        self.engine = engine
        self.command = name

    def send(self, line: str, timeout: float | None = None) -> str:
        """Run one command; returns the response text, raising ``EngineError`` on ``?``.
        ``timeout`` is not enforced (the engine runs in this process): a game clock
        charges the move when it returns."""
        return _answer(self.command, line, self.engine.handle(line)[0].strip())

    def close(self) -> str:
        self.engine.handle("quit")
        return ""


@dataclass
class GameRecord:
    """One refereed game."""

    winner: str  # 'b', 'w' or '' (no result)
    result: str  # SGF RE text, e.g. 'B+3.5', 'W+R', 'B+F' (White forfeited), 'B+T' (White lost on time)
    moves: list[tuple[str, tuple[int, int] | None]] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=lambda: {"b": 0.0, "w": 0.0})
    scores: tuple[str, str] = ("", "")  # each program's final_score
    agreed: bool = True  # both final_scores gave the same result
    cleanup: int = 0  # when they did not: the moves played before KGS's cleanup phase
    reason: str = ""  # why a game ended early: a forfeit, an illegal move, a loss on time


class EqualTime:
    """Keeps the seconds per move of one program, the follower, equal to its
    opponent's over a match: before each of the follower's moves the referee sends
    it ``time_settings 0 T 1`` (byo-yomi of T seconds for one move), T being what
    brings its mean in the game to the opponent's mean so far in the match (between
    a quarter and four times that mean), so that time it saves on easy moves is
    there for the hard ones. ``start`` is the mean before the opponent has moved."""

    def __init__(self, start: float) -> None:
        self.start = start
        self.seconds = 0.0  # the opponent's, over the games of this run
        self.moves = 0
        self._lock = threading.Lock()  # games played at once share it

    def mean(self) -> float:
        """The opponent's mean seconds per move so far (``start`` before its first)."""
        with self._lock:
            return self.seconds / self.moves if self.moves else self.start

    def budget(self, spent: float, moves: int) -> float:
        """Seconds for the follower's next move, when it has ``spent`` seconds over
        ``moves`` moves of this game."""
        mean = self.mean()
        return min(4 * mean, max(mean / 4, mean * (moves + 1) - spent))

    def opponent_moved(self, seconds: float) -> None:
        with self._lock:
            self.seconds += seconds
            self.moves += 1


class Forfeit(Exception):
    """The program playing ``color`` lost the game by failing (its message says how)."""

    def __init__(self, color: str, reason: str) -> None:
        super().__init__(reason)
        self.color = color


def _ask(players: dict, color: str, line: str) -> str:
    """``line``'s answer from the program playing ``color``; ``Forfeit`` if it fails."""
    try:
        return players[color].send(line)
    except EngineError as e:
        raise Forfeit(color, str(e)) from None


def play_game(black: GtpClient | LocalClient, white: GtpClient | LocalClient, size: int = 9,
              komi: float = 7.5, max_moves: int | None = None,
              on_move: Callable[[Board, int], None] | None = None,
              pace: tuple[str, EqualTime] | None = None, clock: TimeSettings | None = None) -> GameRecord:
    """Play one game; every move is checked with our rules. ``on_move(board, n)`` is
    called after the n-th move (from 1) is played; ``pace`` = (colour, ``EqualTime``)
    keeps that colour's time per move equal to the other's. A program that crashes, hangs,
    refuses a command or answers garbage loses the game (``B+F`` / ``W+F``, with
    the reason in ``record.reason``), as does one that plays an illegal move. With a
    ``clock`` (sudden death or Canadian byo-yomi) both programs get ``time_settings`` and,
    before each of their moves, ``time_left`` from their ``GameClock``, which each
    ``genmove``'s wall time is charged to; a program whose clock runs out loses on time
    (``B+T`` / ``W+T``), the referee waiting no longer than its clock holds."""
    players = {"b": black, "w": white}
    record = GameRecord("", "")
    board = Board(size)
    clocks = {color: GameClock(clock) for color in players} if clock else None
    try:
        for color in players:
            for line in (f"boardsize {size}", "clear_board", f"komi {komi}"):
                _ask(players, color, line)
            if clock:
                _ask(players, color, f"time_settings {clock.main:.0f} {clock.period:.0f} {clock.stones}")
        _play(players, size, max_moves or 3 * size * size, board, record, on_move, pace, clocks, GENMOVE)
        if not record.result:
            record.scores = tuple(_final_score(players[c]) for c in ("b", "w"))
            record.agreed = record.scores[0] == record.scores[1] and record.scores[0] != "?"
            if not record.agreed:  # KGS's cleanup phase: each captures what it holds dead
                record.cleanup = len(record.moves)
                _play(players, size, len(record.moves) + size * size, board, record, on_move, pace, clocks,
                      {c: _cleanup_command(players[c]) for c in players})
    except Forfeit as f:
        other = opponent(f.color)
        record.winner, record.result = other, f"{other.upper()}+F"
        record.reason = f"{COLOR_WORDS[f.color]}{FORFEITS}{f}"
        return record
    if record.result:
        return record
    if record.agreed:
        result = record.scores[0]
    else:  # after the cleanup every stone on the board counts as alive (Tromp-Taylor)
        score = board.score(komi)
        result = "0" if score == 0 else (f"B+{score:g}" if score > 0 else f"W+{-score:g}")
    record.result = result if result and result != "0" else "0"
    record.winner = result[0].lower() if result[:1] in ("B", "W") else ""
    return record


def _play(players: dict, size: int, limit: int, board: Board, record: GameRecord,
          on_move: Callable[[Board, int], None] | None, pace: tuple[str, EqualTime] | None,
          clocks: dict[str, GameClock] | None, commands: dict[str, str]) -> None:
    """The moves of a game from where ``record`` stands, up to two passes, a resignation,
    an illegal move, a loss on time or ``limit`` moves, each asked for with its colour's
    command of ``commands`` (``GENMOVE``, or the cleanup's); ``Forfeit`` when a program fails."""
    color, passes = opponent(record.moves[-1][0]) if record.moves else "b", 0
    follower, equal = pace or ("", None)
    while passes < 2 and len(record.moves) < limit:
        other = opponent(color)
        if color == follower:
            moved = sum(1 for c, _ in record.moves if c == color)
            _ask(players, color, f"time_settings 0 {equal.budget(record.seconds[color], moved):.3f} 1")
        clock = clocks[color] if clocks else None
        held = clock.available() if clock else None
        if clock:  # GTP's whole seconds, rounded down
            _ask(players, color, f"time_left {color} {int(clock.left.seconds)} {clock.left.stones}")
        text, took = _genmove(players, color, clock, commands[color])
        record.seconds[color] += took
        if equal is not None and color != follower:
            equal.opponent_moved(took)
        if text is None:
            record.winner, record.result = other, f"{other.upper()}+T"
            record.reason = f"{COLOR_WORDS[color]}{LOST_ON_TIME}no move within the {held:.2f} s its clock held"
            return
        if text.lower() == "resign":
            record.winner, record.result = other, f"{other.upper()}+R"
            return
        try:
            point = parse_vertex(text, size)
        except VertexError:
            raise Forfeit(color, f"{players[color].command!r} answered genmove with {text[:60]!r}") from None
        reason = board.illegal_reason(color, point)
        record.moves.append((color, point))
        if reason:
            record.winner, record.result = other, f"{other.upper()}+F"
            record.reason = f"{COLOR_WORDS[color]} played the illegal move {format_vertex(point)} ({reason})"
            return
        board.play(color, point)
        if on_move:
            on_move(board, len(record.moves))
        _ask(players, other, f"play {color} {format_vertex(point)}")
        passes = passes + 1 if point is None else 0
        color = other


def _genmove(players: dict, color: str, clock: GameClock | None, command: str) -> tuple[str | None, float]:
    """The program's answer to ``command`` (``genmove`` or ``kgs-genmove_cleanup``) and the
    wall seconds it took; with a ``clock`` the wait ends when the clock runs out, the
    seconds are charged to it, and the answer is None when they were more than it held
    (the program lost on time)."""
    line = f"{command} {color}"
    start = time.perf_counter()
    # the wait ends at the program's move timeout, or sooner when its clock runs out first
    patience = getattr(players[color], "move_timeout", None)
    on_clock = clock is not None and (patience is None or clock.available() <= patience)
    try:
        text = players[color].send(line, clock.available() if on_clock else patience)
    except EngineError as e:
        if not on_clock or not isinstance(e, Timeout):
            raise Forfeit(color, str(e)) from None
        text = None
    took = time.perf_counter() - start
    if clock is not None and (text is None or not clock.spend(took)):
        return None, took
    return text, took


def _cleanup_command(player: GtpClient | LocalClient) -> str:
    """``kgs-genmove_cleanup`` when the program knows it (GnuGo and shapemill do: it
    captures the opponent's dead stones before passing), else ``genmove``."""
    try:
        known = player.send("known_command kgs-genmove_cleanup") == "true"
    except EngineError:
        known = False
    return "kgs-genmove_cleanup" if known else "genmove"


def _final_score(player: GtpClient | LocalClient) -> str:
    """The program's ``final_score``, or "?" when it fails to give one (the game is
    over: that is no forfeit; the scores then disagree and the cleanup phase follows)."""
    try:
        return player.send("final_score")
    except EngineError:
        return "?"


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)  # no -0.0 at 0 wins, no 1.0000001 at all


def sgf_text(value: str) -> str:
    """``value`` escaped for an SGF text property: ``\\`` and ``]`` backslashed."""
    return value.replace("\\", "\\\\").replace("]", "\\]")


def to_sgf(record: GameRecord, size: int, komi: float, black: str, white: str,
           commands: tuple[str, str] | None = None, clock: TimeSettings | None = None) -> str:
    """The game as SGF text: ``black`` / ``white`` name the programs (PB / PW), their command
    lines, if given, go in the game comment (GC) as twogtp does, the game clock, if any, in
    TM (main time) and OT (byo-yomi), and why the game ended early, if it did, in the
    root's comment."""
    moves = "".join(f";{c.upper()}[{format_sgf_point(p, size)}]" for c, p in record.moves)
    comment = f"C[{sgf_text(record.reason)}]" if record.reason else ""
    game = (f"GC[{sgf_text(f'Black command: {commands[0]}' + chr(10) + f'White command: {commands[1]}')}]"
            if commands else "")
    timing = ""
    if clock:
        overtime = f"OT[{clock.stones}/{clock.period:.0f} Canadian]" if clock.kind == "canadian" else ""
        timing = f"TM[{clock.main:.0f}]{overtime}"
    return (f"(;GM[1]FF[4]CA[UTF-8]SZ[{size}]KM[{komi}]RU[Chinese]PB[{sgf_text(black)}]PW[{sgf_text(white)}]"
            f"{game}{timing}RE[{sgf_text(record.result)}]{comment}{moves})\n")


def program_name(client: GtpClient | LocalClient) -> str:
    """A program's GTP ``name`` and ``version`` ("GNU Go 3.8"), or its command line when it
    does not answer them."""
    try:
        name = client.send("name")
    except EngineError:
        return client.command
    try:
        version = client.send("version")
    except EngineError:
        version = ""
    return f"{name} {version}".strip() or client.command


@dataclass
class Tally:
    """One program's side of a match."""

    command: str
    games: int = 0
    wins: float = 0.0
    seconds: float = 0.0
    moves: int = 0
    failures: int = 0  # games ended by a program's failure (crash, hang, garbage), not on the board
    wins_by_failure: float = 0.0  # of the wins, those the other program's failure gave
    time_losses: int = 0  # games this program lost on time


def ended_by_failure(result: str, why: str) -> bool:
    """Whether a game ended because a program failed (crashed, hung, answered
    garbage or ``?``) rather than on the board (an illegal move, a resignation, the count)."""
    return result.endswith("+F") and FORFEITS in why


def _sgf_result(path: Path) -> tuple[str, str]:
    """The result (RE) of a saved game and why it ended early (its root comment)."""
    from sgfmill import sgf

    try:
        root = sgf.Sgf_game.from_bytes(path.read_bytes()).get_root()
        return root.get("RE"), root.get("C") if root.has_property("C") else ""
    except (OSError, ValueError, KeyError) as e:
        raise ShapemillError(f"{path}: not a game this match saved ({one_line(e)}); move it away to replay it") from None


MANIFEST = "match.json"


def check_manifest(folder: Path, settings: dict) -> None:
    """Refuse ``folder`` when it holds the games of another match (other programs,
    board size, komi, colour order, equal time or clock); record ``settings`` in a new
    one. Equal time is recorded as on or off: its starting seconds only bridge the moves
    before the second program's first, and a referee measures them afresh each run."""
    path = folder / MANIFEST
    if path.exists():
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ShapemillError(f"{path}: unreadable ({one_line(e)})") from None
        saved = saved if isinstance(saved, dict) else {}
        changed = [f"{k} {saved.get(k)!r}, not {v!r}" for k, v in settings.items() if saved.get(k) != v]
        if changed:
            raise ShapemillError(f"{folder}: holds the games of another match ({'; '.join(changed)}); "
                                 "use another --sgf-dir")
        return
    if any(folder.glob("game-*.sgf")):
        raise ShapemillError(f"{folder}: holds games but no {MANIFEST}, so not known to be this match's; "
                             "use another --sgf-dir")
    write_text_atomic(path, json.dumps(settings, indent=1, sort_keys=True) + "\n")


def run_match(first: str, second: str, games: int, size: int, komi: float, sgf_dir: str,
              alternate: bool, report=print, move_timeout: float | None = None,
              concurrency: int = 1, equal_time: float | None = None,
              clock: TimeSettings | None = None) -> tuple[Tally, Tally]:
    """Play ``games`` games of ``first`` (Black, or alternating colours from game 2 on
    with ``alternate``) against ``second``, saving ``game-NNNN.sgf`` in ``sgf_dir``;
    ``concurrency`` games at a time (each program is its own process).

    Games already in the folder are counted, not replayed, so an interrupted match
    resumes where it stopped (their times are not known again and are not counted);
    ``match.json`` there records the programs and settings, and a folder of another
    match is refused. ``{game}`` in a command becomes the game's number, e.g.
    ``--seed {game}``: a seeded engine against a deterministic one would otherwise
    replay one game per colour. A program that crashes, answers garbage or takes
    longer than ``move_timeout`` seconds over a command (under a clock too: a
    program that never answers ``genmove`` forfeits then, whatever its clock holds) loses
    that game, and the match goes on with fresh processes. Without ``move_timeout`` a
    command may take ``COMMAND_SECONDS`` and, under a clock, a move what the clock holds,
    at most ``CLOCK_MOVE_SECONDS`` (``_timeouts``). With ``equal_time`` the first program's
    seconds per move follow the second's (``EqualTime``, from ``equal_time`` seconds
    until the second has moved). With a ``clock`` both programs play at that game
    clock and manage their own time (``play_game``); it and ``equal_time`` exclude each
    other.
    """
    if clock is not None and equal_time is not None:
        raise ValueError("a game clock and equal time per move exclude each other")
    folder = output_target(sgf_dir)  # a symbolic link: its target holds the games (a loop refused)
    folder.mkdir(parents=True, exist_ok=True)
    check_manifest(folder, {"black": first, "white": second, "size": size, "komi": komi, "alternate": alternate,
                            "equal_time": equal_time is not None, "clock": list(clock) if clock else None})
    tallies = (Tally(first), Tally(second))
    equal = EqualTime(equal_time) if equal_time is not None else None

    def sides(i: int) -> tuple[Tally, Tally]:
        return (tallies[1], tallies[0]) if alternate and i % 2 == 1 else tallies

    stopping = threading.Event()  # Ctrl-C: the games in play end unsaved, never as forfeits
    running: set[GtpClient] = set()

    def play(i: int) -> tuple[str, str, GameRecord | None]:
        path = folder / f"game-{i + 1:04d}.sgf"
        if path.exists():
            return _sgf_result(path) + (None,)
        pace = ("w" if sides(i)[1] is tallies[0] else "b", equal) if equal else None
        record, commands, names = _match_game(*(t.command for t in sides(i)), i + 1, size, komi, move_timeout,
                                              report, pace, clock, running, stopping)
        if stopping.is_set():
            raise KeyboardInterrupt
        write_text_atomic(path, to_sgf(record, size, komi, *names, commands, clock))
        return record.result, record.reason, record

    with ThreadPoolExecutor(max(1, concurrency)) as pool:  # the threads wait on the programs' pipes
        try:
            for i, (result, why, record) in enumerate(pool.map(play, range(games))):
                _count_game(i + 1, *sides(i), result, why, record, report)
        except KeyboardInterrupt:
            stopping.set()  # before the kills: a game they end is not saved
            for client in list(running):
                client.proc.kill()
            raise
    return tallies


def _count_game(number: int, black: Tally, white: Tally, result: str, why: str, record: GameRecord | None,
                report: Callable[[str], None]) -> None:
    """Add one finished game (``result`` as SGF's ``RE``, ``why`` its reason) to the
    tallies of the programs that played Black and White, and report it; its times
    and moves only when it was played now (``record``), not read back from the folder."""
    if record is not None and not record.agreed:
        report(f"game {number}: final_score disagreement {record.scores}, counted {result} after "
               f"{len(record.moves) - record.cleanup} cleanup moves")
    winner = result[:1].lower()
    failed = ended_by_failure(result, why)
    for tally, color in ((black, "b"), (white, "w")):
        if record is not None:
            tally.seconds += record.seconds[color]
            tally.moves += sum(1 for c, _ in record.moves if c == color)
        tally.games += 1
        tally.wins += 1.0 if winner == color else 0.5 if result == "0" else 0.0
        tally.failures += failed
        tally.wins_by_failure += failed and winner == color
        tally.time_losses += result.endswith("+T") and winner != color
    report(f"game {number}: {black.command!r} (B) vs {white.command!r} (W): {result}"
           + (f" ({why})" if why else "") + ("  (from the folder)" if record is None else ""))


def _timeouts(move_timeout: float | None, clock: TimeSettings | None) -> tuple[float, float | None]:
    """A program's seconds for a command and for a move under a clock: ``move_timeout`` for
    both when given; else ``COMMAND_SECONDS`` for a command, and under a clock what the
    clock holds, at most ``CLOCK_MOVE_SECONDS``, for a move."""
    if move_timeout is not None:
        return move_timeout, move_timeout
    return COMMAND_SECONDS, CLOCK_MOVE_SECONDS if clock is not None else None


def _match_game(black: str, white: str, number: int, size: int, komi: float, move_timeout: float | None,
                report, pace: tuple[str, EqualTime] | None, clock: TimeSettings | None = None,
                running: set | None = None,
                stopping: threading.Event | None = None) -> tuple[GameRecord, tuple[str, str], tuple[str, str]]:
    """One game of a match between fresh processes of the two commands, which
    are closed after it whatever happens; the record, the commands run and the
    programs' names (``program_name``). The programs are in ``running`` while they
    play (Ctrl-C kills them); none is started once ``stopping`` is set."""
    commands = tuple(c.replace("{game}", str(number)) for c in (black, white))
    clients = []
    running = set() if running is None else running
    try:
        for command in commands:
            if stopping is not None and stopping.is_set():
                raise KeyboardInterrupt
            try:
                clients.append(GtpClient(command, *_timeouts(move_timeout, clock)))
            except OSError as e:
                raise ShapemillError(f"cannot start {command!r}: {one_line(e)}") from None
            running.add(clients[-1])
        names = tuple(program_name(client) for client in clients)
        record = play_game(*clients, size, komi, pace=pace, clock=clock)
    finally:
        for client in clients:
            running.discard(client)
            why = client.close()
            if why and not (stopping is not None and stopping.is_set()):
                report(f"game {number}: {why}; killed it")
    return record, commands, names

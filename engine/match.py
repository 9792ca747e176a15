"""Games between two GTP programs, refereed by our rules.

Every move is checked with ``Board`` (suicide, ko, positional superko); a game
ends with two passes, a resignation, an illegal move (which loses) or a move
limit. The result is the area score with the dead stones that both programs'
``final_score`` agree on; disagreements are reported. Games are saved as SGF,
and a match resumes from the SGF files already in its folder.
"""

from __future__ import annotations

import math
import shlex
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..files import write_text_atomic
from ..go.board import Board
from .gtp import GtpEngine, format_vertex, parse_vertex


class GtpClient:
    """A GTP program in a subprocess."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(self, line: str) -> str:
        """Send one command; returns the response text, raising on ``?``."""
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            out = self.proc.stdout.readline()
            if not out:
                raise RuntimeError(f"{self.command!r} closed its output after {line!r}")
            if out.strip() == "" and lines:
                break
            if out.strip():
                lines.append(out.rstrip("\n"))
        text = "\n".join(lines)
        if text.startswith("?"):
            raise RuntimeError(f"{self.command!r} refused {line!r}: {text[1:].strip()}")
        return text[1:].strip()

    def close(self) -> None:
        try:
            self.send("quit")
        except (RuntimeError, OSError):
            pass
        self.proc.wait(timeout=10)


class LocalClient:
    """Our engine in this process, answering like a ``GtpClient`` (no start-up)."""

    def __init__(self, engine: GtpEngine, name: str = "shapemill") -> None:
        self.engine = engine
        self.command = name

    def send(self, line: str) -> str:
        """Run one command; returns the response text, raising on ``?``."""
        response, _ = self.engine.handle(line)
        if response.startswith("?"):
            raise RuntimeError(f"{self.command!r} refused {line!r}: {response[1:].strip()}")
        return response[1:].strip()

    def close(self) -> None:
        self.engine.handle("quit")


@dataclass
class GameRecord:
    """One refereed game."""

    winner: str  # 'b', 'w' or '' (no result)
    result: str  # SGF RE text, e.g. 'B+3.5', 'W+R'
    moves: list[tuple[str, tuple[int, int] | None]] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=lambda: {"b": 0.0, "w": 0.0})
    scores: tuple[str, str] = ("", "")  # each program's final_score
    agreed: bool = True  # both final_scores gave the same result


def play_game(black: GtpClient | LocalClient, white: GtpClient | LocalClient, size: int = 9,
              komi: float = 7.5, max_moves: int | None = None,
              on_move: Callable[[Board, int], None] | None = None) -> GameRecord:
    """Play one game; every move is checked with our rules. ``on_move(board, n)`` is
    called after the n-th move (from 1) is played."""
    players = {"b": black, "w": white}
    for p in players.values():
        p.send(f"boardsize {size}")
        p.send("clear_board")
        p.send(f"komi {komi}")
    board = Board(size)
    record = GameRecord("", "")
    color, passes = "b", 0
    limit = max_moves or 3 * size * size
    while passes < 2 and len(record.moves) < limit:
        other = "w" if color == "b" else "b"
        start = time.perf_counter()
        text = players[color].send(f"genmove {color}")
        record.seconds[color] += time.perf_counter() - start
        if text.lower() == "resign":
            record.winner, record.result = other, f"{other.upper()}+R"
            return record
        point = parse_vertex(text, size)
        reason = board.illegal_reason(color, point)
        if reason:
            record.winner, record.result = other, f"{other.upper()}+F"
            record.moves.append((color, point))
            return record
        board.play(color, point)
        record.moves.append((color, point))
        if on_move:
            on_move(board, len(record.moves))
        players[other].send(f"play {color} {format_vertex(point)}")
        passes = passes + 1 if point is None else 0
        color = other
    record.scores = (black.send("final_score"), white.send("final_score"))
    record.agreed = record.scores[0] == record.scores[1]
    if record.agreed:
        result = record.scores[0]
    else:  # the programs disagree on dead stones: count every stone as alive (Tromp-Taylor)
        score = board.score(komi)
        result = "0" if score == 0 else (f"B+{score:g}" if score > 0 else f"W+{-score:g}")
    record.result = result if result and result != "0" else "0"
    record.winner = result[0].lower() if result[:1] in ("B", "W") else ""
    return record


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def to_sgf(record: GameRecord, size: int, komi: float, black: str, white: str) -> str:
    """The game as SGF text."""
    letters = "abcdefghijklmnopqrstuvwxy"
    moves = "".join(
        f";{c.upper()}[{'' if p is None else letters[p[1]] + letters[size - 1 - p[0]]}]" for c, p in record.moves)
    return (f"(;GM[1]FF[4]SZ[{size}]KM[{komi}]RU[Chinese]PB[{black}]PW[{white}]"
            f"RE[{record.result}]{moves})\n")


@dataclass
class Tally:
    """One program's side of a match."""

    command: str
    games: int = 0
    wins: float = 0.0
    seconds: float = 0.0
    moves: int = 0


def _sgf_result(text: str) -> str:
    start = text.find("RE[")
    return text[start + 3 : text.index("]", start)] if start >= 0 else ""


def run_match(first: str, second: str, games: int, size: int, komi: float, sgf_dir: str,
              alternate: bool, report=print, concurrency: int = 1) -> tuple[Tally, Tally]:
    """Play ``games`` games of ``first`` (Black, or alternating colours from game 2 on
    with ``alternate``) against ``second``, saving ``game-NNNN.sgf`` in ``sgf_dir``;
    ``concurrency`` games at a time (each program is its own process).

    Games already in the folder are counted, not replayed, so an interrupted match
    resumes where it stopped (their times are not known again and are not counted).
    ``{game}`` in a command becomes the game's number, e.g. ``--seed {game}``: a
    seeded engine against a deterministic one would otherwise replay one game per
    colour.
    """
    folder = Path(sgf_dir)
    folder.mkdir(parents=True, exist_ok=True)
    tallies = (Tally(first), Tally(second))

    def sides(i: int) -> tuple[Tally, Tally]:
        return (tallies[1], tallies[0]) if alternate and i % 2 == 1 else tallies

    def play(i: int) -> tuple[str, GameRecord | None]:
        path = folder / f"game-{i + 1:04d}.sgf"
        if path.exists():
            return _sgf_result(path.read_text()), None
        b, w = (GtpClient(t.command.replace("{game}", str(i + 1))) for t in sides(i))
        try:
            record = play_game(b, w, size, komi)
        finally:
            b.close()
            w.close()
        write_text_atomic(path, to_sgf(record, size, komi, b.command, w.command))
        return record.result, record

    with ThreadPoolExecutor(max(1, concurrency)) as pool:  # the threads wait on the programs' pipes
        for i, (result, record) in enumerate(pool.map(play, range(games))):
            black, white = sides(i)
            if record is not None:
                if not record.agreed:
                    report(f"game {i + 1}: final_score disagreement {record.scores}, counted {result}")
                for tally, color in ((black, "b"), (white, "w")):
                    tally.seconds += record.seconds[color]
                    tally.moves += sum(1 for c, _ in record.moves if c == color)
            winner = result[:1].lower()
            for tally, color in ((black, "b"), (white, "w")):
                tally.games += 1
                tally.wins += 1.0 if winner == color else 0.5 if result == "0" else 0.0
            report(f"game {i + 1}: {black.command!r} (B) vs {white.command!r} (W): {result}"
                   + ("  (from the folder)" if record is None else ""))
    return tallies

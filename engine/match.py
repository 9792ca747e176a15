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
from dataclasses import dataclass, field
from pathlib import Path

from shapemill.engine.board import Board
from shapemill.engine.gtp import format_vertex, parse_vertex


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


@dataclass
class GameRecord:
    """One refereed game."""

    winner: str  # 'b', 'w' or '' (no result)
    result: str  # SGF RE text, e.g. 'B+3.5', 'W+R'
    moves: list[tuple[str, tuple[int, int] | None]] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=lambda: {"b": 0.0, "w": 0.0})
    scores: tuple[str, str] = ("", "")  # each program's final_score


def play_game(black: GtpClient, white: GtpClient, size: int = 9, komi: float = 7.5,
              max_moves: int | None = None) -> GameRecord:
    """Play one game; every move is checked with our rules."""
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
        players[other].send(f"play {color} {format_vertex(point)}")
        passes = passes + 1 if point is None else 0
        color = other
    record.scores = (black.send("final_score"), white.send("final_score"))
    agreed = record.scores[0] if record.scores[0] == record.scores[1] else record.scores[0]
    record.result = agreed if agreed and agreed != "0" else "0"
    record.winner = agreed[0].lower() if agreed[:1] in ("B", "W") else ""
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

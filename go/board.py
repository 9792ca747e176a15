"""``Board``: the Python face of the numba rules, for tests, tools and GTP.

Points are ``(row, col)`` with row 0 at the bottom (sgfmill's convention), or
``None`` for a pass; colours are ``"b"`` and ``"w"``. Moves are checked for
occupied points, suicide, simple ko and positional superko (a move may not
recreate any earlier position of the game).
"""

from __future__ import annotations

import numpy as np

from . import rules

Point = tuple[int, int] | None

COLORS = {"b": rules.BLACK, "w": rules.WHITE}


class IllegalMove(ValueError):
    """A move the rules forbid; the message says why."""


class Board:
    """A Go position with its history: play, legality, undo and area scoring."""

    def __init__(self, size: int = 19) -> None:
        if not 2 <= size <= rules.MAX_SIZE:
            raise ValueError(f"board size {size} is not between 2 and {rules.MAX_SIZE}")
        self.size = size
        self.b, self.m = rules.new_board(size)
        self._seen = {int(self.m[rules.HASH])}
        self._undo: list[tuple[np.ndarray, np.ndarray, set[int]]] = []

    def _point(self, point: Point) -> int:
        if point is None:
            return rules.PASS
        row, col = point
        if not (0 <= row < self.size and 0 <= col < self.size):
            raise IllegalMove(f"{point} is off the {self.size}x{self.size} board")
        return (row + 1) * (self.size + 2) + col + 1

    def _color(self, color: str) -> int:
        try:
            return COLORS[color]
        except KeyError:
            raise ValueError(f"colour must be 'b' or 'w', not {color!r}") from None

    def illegal_reason(self, color: str, point: Point) -> str:
        """Why ``color`` may not play ``point``: '' when it may, else 'occupied',
        'suicide', 'ko', 'superko' or 'off board'."""
        try:
            p = self._point(point)
        except IllegalMove:
            return "off board"
        c = self._color(color)
        reason = rules.illegal_reason(self.b, self.m, c, p)
        if reason:
            return rules.REASONS[reason]
        if p != rules.PASS:
            b, m = self.b.copy(), self.m.copy()
            rules.play(b, m, c, p)
            if int(m[rules.HASH]) in self._seen:
                return "superko"
        return ""

    def is_legal(self, color: str, point: Point) -> bool:
        """Whether ``color`` may play ``point`` (a pass is always legal)."""
        return not self.illegal_reason(color, point)

    def play(self, color: str, point: Point) -> int:
        """Play a move for ``color``; returns the number of stones it captured.

        Raises ``IllegalMove`` with the reason when the rules forbid it.
        """
        reason = self.illegal_reason(color, point)
        if reason:
            raise IllegalMove(f"{color} {point}: {reason}")
        self._undo.append((self.b.copy(), self.m.copy(), set(self._seen)))
        captured = rules.play(self.b, self.m, self._color(color), self._point(point))
        self._seen.add(int(self.m[rules.HASH]))
        return captured

    def setup(self, color: str, points: list[tuple[int, int]]) -> None:
        """Place setup stones (handicap, AB/AW) that are not moves."""
        c = self._color(color)
        for point in points:
            rules.place_setup(self.b, self.m, c, self._point(point))
        self._seen.add(int(self.m[rules.HASH]))

    def undo(self) -> None:
        """Take back the last move; raises ``IndexError`` when there is none."""
        b, m, seen = self._undo.pop()
        # Copies share their undo stack with this board, so the stack's states are
        # copied out, never handed over to be changed in place.
        self.b, self.m, self._seen = b.copy(), m.copy(), set(seen)

    def copy(self) -> Board:
        """An independent copy with the same position and history."""
        other = Board.__new__(Board)
        other.size = self.size
        other.b, other.m = self.b.copy(), self.m.copy()
        other._seen = set(self._seen)
        other._undo = list(self._undo)
        return other

    def get(self, point: tuple[int, int]) -> str | None:
        """The colour at ``point``: 'b', 'w' or None when empty."""
        c = self.b[rules.COLOR, self._point(point)]
        return {rules.BLACK: "b", rules.WHITE: "w"}.get(int(c))

    def stones(self, color: str) -> set[tuple[int, int]]:
        """Points holding stones of ``color``."""
        c = self._color(color)
        w = self.size + 2
        points = np.flatnonzero(self.b[rules.COLOR] == c).tolist()  # plain ints, not numpy's
        return {(p // w - 1, p % w - 1) for p in points}

    def score(self, komi: float = 7.5) -> float:
        """Area (Tromp-Taylor) score, Black minus White, komi included: every
        stone on the board counts as alive."""
        return float(rules.area_score(self.b, self.m, komi))

    @property
    def ko(self) -> Point:
        """The point the player to move may not retake now, if any."""
        p = int(self.m[rules.KO])
        if p == 0:
            return None
        w = self.size + 2
        return (p // w - 1, p % w - 1)

    @property
    def zobrist(self) -> int:
        """The position's Zobrist hash (stones only)."""
        return int(self.m[rules.HASH])

    def __str__(self) -> str:
        """The board with GTP coordinates (columns A-T without I), Black X, White O."""
        letters = "ABCDEFGHJKLMNOPQRSTUVWXYZ"[: self.size]
        header = "   " + " ".join(letters)
        rows = [header]
        for row in range(self.size - 1, -1, -1):
            stones = " ".join(".XO"[int(self.b[rules.COLOR, self._point((row, col))])] for col in range(self.size))
            rows.append(f"{row + 1:>2} {stones} {row + 1}")
        rows.append(header)
        return "\n".join(rows)

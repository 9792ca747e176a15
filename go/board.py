"""``Board``: the Python face of the numba rules, for tests, tools and GTP.

Points are ``(row, col)`` with row 0 at the bottom (sgfmill's convention), or
``None`` for a pass; colours are ``"b"`` and ``"w"``. Moves are checked for
occupied points, suicide, simple ko and positional superko (a move may not
recreate any earlier position of the game).
"""

from __future__ import annotations

import numpy as np

from . import rules
from .equivalent import equivalent_points
from .vertices import GTP_LETTERS, Point, VertexError, color_code, color_name, flat_index, point_at, show_point


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
        try:
            return flat_index(point, self.size)
        except VertexError as e:
            raise IllegalMove(str(e)) from None

    @property
    def moves_played(self) -> int:
        """How many moves (passes included) ``undo`` can take back."""
        return len(self._undo)

    @property
    def moves(self) -> list[Point]:
        """The points of the moves ``undo`` can take back (None for a pass), oldest first."""
        if not self._undo:
            return []
        after = [m for _, m, _ in self._undo[1:]] + [self.m]
        return [None if int(m[rules.LAST]) == rules.PASS else point_at(int(m[rules.LAST]), self.size) for m in after]

    def before_moves(self) -> Board:
        """The position before the first move ``undo`` can take back: the setup and
        handicap stones, with no history."""
        start = Board(self.size)
        if self._undo:
            b, m, seen = self._undo[0]
            start.b, start.m, start._seen = b.copy(), m.copy(), set(seen)
        else:
            start.b, start.m, start._seen = self.b.copy(), self.m.copy(), set(self._seen)
        return start

    @property
    def seen_positions(self) -> frozenset[int]:
        """The Zobrist hashes of every position of the game so far, the current one
        included: the history positional superko forbids repeating."""
        return frozenset(self._seen)

    def illegal_reason(self, color: str, point: Point) -> str:
        """Why ``color`` may not play ``point``: '' when it may, else 'occupied',
        'suicide', 'ko', 'superko' or 'off board'."""
        try:
            p = self._point(point)
        except IllegalMove:
            return "off board"
        c = color_code(color)
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
            raise IllegalMove(f"{color} {show_point(point)}: {reason}")
        self._undo.append((self.b.copy(), self.m.copy(), set(self._seen)))
        captured = rules.play(self.b, self.m, color_code(color), self._point(point))
        self._seen.add(int(self.m[rules.HASH]))
        return captured

    def setup(self, color: str, points: list[tuple[int, int]]) -> None:
        """Place setup stones (handicap, AB/AW) that are not moves."""
        c = color_code(color)
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

    def equivalent_points(self, point: Point) -> int:
        """How many points the move at ``point`` is in this position: its images under the
        symmetries that keep the position (``equivalent``; 4 for a 4-4 point on the empty
        board, 1 for a pass and nearly every move of a game)."""
        return int(equivalent_points(self.b, self.m, rules.PASS if point is None else self._point(point)))

    def get(self, point: tuple[int, int]) -> str | None:
        """The colour at ``point``: 'b', 'w' or None when empty."""
        return color_name(int(self.b[rules.COLOR, self._point(point)]))

    def stones(self, color: str) -> set[tuple[int, int]]:
        """Points holding stones of ``color``."""
        points = np.flatnonzero(self.b[rules.COLOR] == color_code(color)).tolist()  # plain ints, not numpy's
        return {point_at(p, self.size) for p in points}

    def score(self, komi: float = 7.5) -> float:
        """Area (Tromp-Taylor) score, Black minus White, komi included: every
        stone on the board counts as alive."""
        return float(rules.area_score(self.b, self.m, komi))

    @property
    def ko(self) -> Point:
        """The point the player to move may not retake now, if any."""
        return point_at(int(self.m[rules.KO]), self.size)

    @property
    def zobrist(self) -> int:
        """The position's Zobrist hash (stones only)."""
        return int(self.m[rules.HASH])

    def __str__(self) -> str:
        """The board with GTP coordinates (columns A-T without I), Black X, White O."""
        header = "   " + " ".join(GTP_LETTERS[: self.size])
        rows = [header]
        for row in range(self.size - 1, -1, -1):
            stones = " ".join(".XO"[int(self.b[rules.COLOR, self._point((row, col))])] for col in range(self.size))
            rows.append(f"{row + 1:>2} {stones} {row + 1}")
        rows.append(header)
        return "\n".join(rows)

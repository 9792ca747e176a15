"""The game record and the error record that reading a collection produces."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from ..go.vertices import color_code

__all__ = [
    "GameRecord",
    "ScanError",
    "UNUSABLE_REASONS",
    "TRUNCATING_REASONS",
    "SKIP_REASONS",
    "game_id",
    "split_of",
]

#: Error kinds after which no game record comes out of the file / game.
UNUSABLE_REASONS = ("unreadable", "too-large", "parse-error", "not-go", "bad-board-size")
#: Error kinds where the game is kept with its moves up to the faulty one.
TRUNCATING_REASONS = ("illegal-move", "bad-move")
#: Files that are not game records at all (not counted as games).
SKIP_REASONS = ("not-sgf",)


@dataclass(frozen=True, slots=True)
class ScanError:
    """A file, archive member or game that could not be (fully) used.

    ``kind`` is one of :data:`UNUSABLE_REASONS` (no game came out of it),
    :data:`TRUNCATING_REASONS` (the game is kept, its moves stop before the
    faulty one) or :data:`SKIP_REASONS` (not a game record: skipped).
    ``reason`` is one line for people, starting with the kind.
    """

    source: str
    kind: str
    reason: str


_EMPTY = np.zeros(0, dtype=np.int16)


@dataclass(slots=True, eq=False)
class GameRecord:
    """One game: its header and the main line as board indices.

    Points are ``row * board_size + col`` with row 0 the bottom row (sgfmill's
    convention); a pass is ``-1``. ``moves`` alternate colours starting with
    ``first_color`` (``'b'`` or ``'w'``): where a record has two moves of the same
    colour in a row, a pass of the other colour is inserted between them.
    Ranks are normalized (``'9d'``, ``'3p'``, ``'5k'``, ``'p'``, ``''`` unknown).
    """

    source: str
    board_size: int = 19
    komi: float = 0.0
    handicap: int = 0
    rules: str = ""
    result: str = ""
    winner: str = ""
    black: str = ""
    white: str = ""
    black_rank: str = ""
    white_rank: str = ""
    date: str = ""
    first_color: str = "b"
    moves: np.ndarray = field(default_factory=lambda: _EMPTY)
    setup_black: np.ndarray = field(default_factory=lambda: _EMPTY)
    setup_white: np.ndarray = field(default_factory=lambda: _EMPTY)
    id: str = ""
    split: str = "train"

    @property
    def n_moves(self) -> int:
        return len(self.moves)

    def content_digest(self) -> bytes:
        """16-byte digest of what makes two records the same game.

        Board size, first colour, setup stones and moves: the de-duplication key.
        """
        h = hashlib.blake2b(digest_size=16, person=b"shapemill-game")
        h.update(bytes((self.board_size, color_code(self.first_color))))
        for arr in (self.setup_black, self.setup_white, self.moves):
            a = np.ascontiguousarray(arr, dtype="<i2")
            h.update(len(a).to_bytes(4, "little"))
            h.update(a.tobytes())
        return h.digest()


def game_id(digest: bytes) -> str:
    """The game id: the first 16 hex digits of the content digest."""
    return digest[:8].hex()


def split_of(gid: str, test_fraction: float) -> str:
    """``'test'`` or ``'train'``: a stable hash of the id, uniform in [0, 1)."""
    h = hashlib.blake2b(gid.encode(), digest_size=8, person=b"shapemill-split")
    u = int.from_bytes(h.digest(), "big") / 2.0**64
    return "test" if u < test_fraction else "train"

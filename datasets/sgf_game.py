"""One SGF game's main line as a player replays it: ``review`` and GTP's ``loadsgf`` read
games through here, so that both read a damaged game alike.

Setup stones (``AB``, ``AW``, ``AE``) count on any node of the main line, as FF[4]
allows and Sabaki shows them, not only at the root. What cannot be used is warned
about and skipped, and the rest goes on: a move off the board or written as a GTP
vertex (``B[ss]`` on 9x9, ``B[P4]``), a setup point off the board, a komi that is no
finite number within the board's area (``KM[nan]``, ``KM[1e400]``), text that is not
in the game's charset. A game ends at two passes in a row: the moves after them are
warned about and ignored, so that the work done on a game is bounded by its moves
(a record of a million passes is two moves). scan's own reader (``datasets.sgf``)
reads a corpus faster and keeps the flat records its kernels need.
"""

from __future__ import annotations

from typing import NamedTuple

from sgfmill import sgf, sgf_grammar

from ..go.board import Board
from ..limits import komi_within
from .text import parse_komi

#: Setup properties and the colour each one gives a point (None: empty).
SETUP = (("AB", "b"), ("AW", "w"), ("AE", None))


class Step(NamedTuple):
    """A node of the main line that changes the board: its setup stones (colour or None
    for ``AE`` by point; empty for none), then its move (``colour`` None for none,
    ``point`` None for a pass)."""

    node: sgf.Tree_node
    setup: dict[tuple[int, int], str | None]
    colour: str | None
    point: tuple[int, int] | None


class GameLine(NamedTuple):
    """A game read for replaying: its board size, komi (None when absent or unusable),
    players, the steps of its main line and a warning for each thing skipped."""

    game: sgf.Sgf_game
    size: int
    komi: float | None
    players: dict[str, str]
    steps: list[Step]
    warnings: list[str]

    @property
    def moves(self) -> list[Step]:
        """The steps that hold a move."""
        return [s for s in self.steps if s.colour is not None]


def text_value(game: sgf.Sgf_game, node: sgf.Tree_node, prop: str) -> str:
    """A text property of ``node`` ("" when absent), bytes outside the game's charset
    replaced rather than refused."""
    if not node.has_property(prop):
        return ""
    return sgf_grammar.text_value(node.get_raw(prop)).decode(_codec(game), errors="replace")


def _codec(game: sgf.Sgf_game) -> str:
    import codecs

    try:
        return codecs.lookup(game.get_charset()).name
    except LookupError:
        return "latin-1"


def read_game_line(data: bytes, max_size: int) -> GameLine:
    """The first game of the SGF ``data`` for replaying; ValueError (one line) when no
    game can be read at all or its board is not 2 to ``max_size`` points a side."""
    game = sgf.Sgf_game.from_bytes(data)
    size = game.get_size()
    if not 2 <= size <= max_size:
        raise ValueError(f"a {size}x{size} board is not supported (2x2 to {max_size}x{max_size})")
    root = game.get_root()
    warnings: list[str] = []
    komi = None
    if root.has_property("KM"):
        raw = root.get_raw("KM")
        komi = parse_komi(raw.decode("latin-1"))  # scan's reading: KM[650] is Fox's 6.5
        if not komi_within(komi, size):
            warnings.append(f"KM[{_shown(raw)}] is no komi of a {size}x{size} board (a finite number of points "
                            "within its area); ignored")
            komi = None
    players = {c: text_value(game, root, "P" + c.upper()) for c in "bw"}
    return GameLine(game, size, komi, players, _steps(game, size, warnings), warnings)


def _steps(game: sgf.Sgf_game, size: int, warnings: list[str]) -> list[Step]:
    """The main line's steps up to two passes in a row; a warning for each value skipped."""
    steps: list[Step] = []
    moves = passes = 0
    nodes = game.main_sequence_iter()
    for node in nodes:
        setup = _setup(node, size, warnings)
        colour, point = _move(node, size, moves + 1, warnings)
        if colour is not None:
            moves += 1
            passes = passes + 1 if point is None else 0
        if setup or colour is not None:
            steps.append(Step(node, setup, colour, point))
        if passes == 2:
            if any(later.get_move()[0] is not None for later in _safe(nodes)):
                warnings.append(f"the game ends at two passes (moves {moves - 1} and {moves}); the moves after "
                                "them are ignored")
            break
    return steps


def _safe(nodes):
    """The nodes of ``nodes`` whose move can be read (an unreadable one counts as none)."""
    for node in nodes:
        try:
            node.get_move()
        except ValueError:
            continue
        yield node


def _setup(node: sgf.Tree_node, size: int, warnings: list[str]) -> dict[tuple[int, int], str | None]:
    """The node's setup stones by point (later properties over earlier ones, as FF[4]
    forbids a point in two of them)."""
    out: dict[tuple[int, int], str | None] = {}
    for prop, colour in SETUP:
        if node.has_property(prop):
            try:
                points = node.get(prop)
            except ValueError:
                raw = "][".join(_shown(v) for v in node.get_raw_list(prop)[:10])
                warnings.append(f"{prop}[{raw}] holds a point off the {size}x{size} board; ignored")
                continue
            out.update((p, colour) for p in points)
    return out


def _move(node: sgf.Tree_node, size: int, number: int, warnings: list[str]) -> tuple[str | None, tuple | None]:
    """The node's move (colour None for none); one off the board is warned about and skipped."""
    try:
        return node.get_move()
    except ValueError:
        prop = "B" if node.has_property("B") else "W"
        raw = _shown(node.get_raw(prop))
        warnings.append(f"move {number}: {prop}[{raw}] is not a point of the {size}x{size} board; ignored")
        return None, None


def _shown(raw: bytes) -> str:
    """A property value as a warning shows it: on one line, at most 20 characters."""
    return " ".join(raw.decode("latin-1").split())[:20]


def apply_setup(board: Board, setup: dict[tuple[int, int], str | None]) -> Board:
    """``board`` with the setup stones of a node (which replace what stood there, as
    FF[4] says): a new board of the stones, since setup is no move (no ko follows it)."""
    if not setup:
        return board
    stones = {p: c for c in "bw" for p in board.stones(c)}
    stones.update(setup)
    fresh = Board(board.size)
    for colour in "bw":
        fresh.setup(colour, sorted(p for p, c in stones.items() if c == colour))
    return fresh

"""One SGF game's main line as a player replays it: ``review``, GTP's ``loadsgf`` and
``solve`` read games through here, so that all read a damaged game alike.

Setup stones (``AB``, ``AW``, ``AE``) count on any node of the main line, as FF[4]
allows and Sabaki shows them, not only at the root. What cannot be used is warned
about and skipped, and the rest goes on: a move off the board or written as a GTP
vertex (``B[ss]`` on 9x9, ``B[P4]``), a setup point off the board, a komi that is no
finite number within the board's area (``KM[nan]``, ``KM[1e400]``), text that is not
in the game's charset. A game ends at two passes in a row: the moves after them are
warned about and ignored, so that the work done on a game is bounded by its moves
(a record of a million passes is two moves), and so is its memory: the ignored tail is
cut from the bytes before sgfmill builds its nodes (``_cut_at_two_passes``) and kept as
bytes, which ``GameLine.serialise`` puts back. scan's own reader (``datasets.sgf``)
reads a corpus faster and keeps the flat records its kernels need.
"""

from __future__ import annotations

import re
import secrets
from typing import NamedTuple

from sgfmill import sgf, sgf_grammar, sgf_properties

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
    players, the steps of its main line and a warning for each thing skipped; ``tail``:
    the SGF text cut after two passes in a row (the main line's nodes after them, with
    their variations), which ``game`` does not hold."""

    game: sgf.Sgf_game
    size: int
    komi: float | None
    players: dict[str, str]
    steps: list[Step]
    warnings: list[str]
    tail: bytes = b""

    @property
    def moves(self) -> list[Step]:
        """The steps that hold a move."""
        return [s for s in self.steps if s.colour is not None]

    def serialise(self) -> bytes:
        """The game as SGF, with the tail cut after two passes back where it stood (after
        the last node of the main line that ``game`` holds)."""
        if not self.tail:
            return _serialised(self.game)
        token = secrets.token_hex(16).encode()
        marker = self.game.get_last_node().new_child()
        marker.set_raw("C", token)
        try:
            text = _serialised(self.game)
        finally:
            marker.delete()
        return re.sub(rb";\s*C\s*\[" + token + rb"\]", lambda _: self.tail, text, count=1)


def _serialised(game: sgf.Sgf_game) -> bytes:
    """``game`` as SGF in the encoding it was read in, its raw values unchanged: sgfmill's
    ``serialise`` when the charset is the one read, which it refuses to find in a ``CA`` of
    several values (Fox writes ``CA[UTF-8][UTF-8]``)."""
    tree = sgf_grammar.make_coarse_game_tree(game.get_root(), lambda node: node, sgf.Node.get_raw_property_map)
    return sgf_grammar.serialise_game_tree(tree, 79)


#: sgfmill's token grammar (``sgf_grammar``): a value in brackets, a property identifier
#: (its lower-case letters dropped when read), a delimiter; each after white space.
_TOKEN = re.compile(rb"\s*(?:\[([^\\\]]*(?:\\.[^\\\]]*)*)\]|([A-Za-z]{1,64})|([;()]))", re.DOTALL)
#: Where sgfmill starts reading a game.
_START = re.compile(rb"\(\s*;")
#: Text up to the next value or parenthesis, and a value (each a single repeat, which re
#: matches without a stack that grows with the text: a repeated group cost 500 MB on 6 MB).
_TO_NEXT = re.compile(rb"[^\[()]*")
_VALUE = re.compile(rb"\[[^\\\]]*(?:\\.[^\\\]]*)*\]", re.DOTALL)
_LOWER = bytes(range(ord("a"), ord("z") + 1))
_MOVES = (b"B", b"W")


class _Cut(NamedTuple):
    """An SGF text with the main line's tail after two passes in a row cut out."""

    head: bytes  # the text without the tail, for sgfmill to read
    tail: bytes  # the nodes after the two passes, with their variations ("" when none were cut)
    moves: bool  # whether the tail's main line holds a move


def _cut_at_two_passes(data: bytes) -> _Cut:
    """``data`` with its first game's main line cut after two passes in a row, so that
    sgfmill builds no node of a tail it would ignore (a record of a million passes cost
    700 MB). Only certain passes count here (one ``B`` or ``W`` of one value, empty or
    ``tt`` up to 19x19, as sgfmill reads a pass); any other move property restarts the
    count, so the cut is never before the two passes that ``_steps`` ends the game at.
    Text that cannot be read here is left whole, for sgfmill to judge."""
    whole = _Cut(data, b"", False)
    start = _START.search(data)
    if start is None:
        return whole
    i, size, props = start.start(), None, None
    key, passes = b"", 0
    while True:
        m = _TOKEN.match(data, i)
        if m is None:
            return whole
        value, name, delimiter = m.groups()
        i = m.end()
        if value is not None:
            if props is not None and key in props:
                props[key].append(value)
        elif name is not None:
            key = name.translate(None, _LOWER)
            if props is not None and (key in _MOVES or (size is None and key == b"SZ")):
                props.setdefault(key, [])
        else:
            if props is not None:  # a node ends
                if size is None:
                    size = _root_size(props)
                    if size is None:
                        return whole
                passes = _passes_after(props, size, passes)
                if passes == 2:
                    return whole if delimiter == b")" else _cut(data, m.start(3), size) or whole
            if delimiter == b")":
                return whole  # the main line ends before two passes
            props = {} if delimiter == b";" else None


def _root_size(props: dict[bytes, list[bytes]]) -> int | None:
    """The board size of the root's ``SZ`` (19 without one; None when unreadable)."""
    values = props.get(b"SZ")
    if values is None:
        return 19
    try:
        return int(values[0]) if len(values) == 1 else None
    except ValueError:
        return None


def _passes_after(props: dict[bytes, list[bytes]], size: int, passes: int) -> int:
    """The passes in a row after a node with these move properties."""
    moves = [props[k] for k in _MOVES if k in props]
    if not moves:
        return passes
    if len(moves) == 1 and len(moves[0]) == 1 and (moves[0][0] == b"" or (moves[0][0] == b"tt" and size <= 19)):
        return passes + 1
    return 0


def _cut(data: bytes, at: int, size: int) -> _Cut | None:
    """``data`` without what follows the node ending at ``at`` in its sequence, up to the
    parenthesis that closes the sequence; None when no parenthesis closes it."""
    depth, j, first_close = 0, at, None
    while True:
        j = _TO_NEXT.match(data, j).end()
        c = data[j : j + 1]
        if c == b"[":
            value = _VALUE.match(data, j)
            if value is None:
                return None
            j = value.end()
            continue
        if c == b"(":
            depth += 1
        elif c == b")":
            first_close = j if first_close is None else first_close
            if depth == 0:
                return _Cut(data[:at] + data[j:], data[at:j], _holds_move(data, at, first_close, size))
            depth -= 1
        else:
            return None
        j += 1


def _holds_move(data: bytes, start: int, stop: int, size: int) -> bool:
    """Whether ``data[start:stop]`` holds a move that can be read (a pass or a point of
    the board, as ``_safe`` counts them)."""
    i, key = start, b""
    while i < stop:
        m = _TOKEN.match(data, i, stop)
        if m is None:
            return False
        value, name, _ = m.groups()
        if name is not None:
            key = name.translate(None, _LOWER)
        elif value is not None and key in _MOVES:
            try:
                sgf_properties.interpret_go_point(value, size)
                return True
            except ValueError:
                key = b""
        i = m.end()
    return False


def text_value(game: sgf.Sgf_game, node: sgf.Tree_node, prop: str) -> str:
    """A text property of ``node`` ("" when absent), bytes outside the game's charset
    replaced rather than refused."""
    if not node.has_property(prop):
        return ""
    return sgf_grammar.text_value(node.get_raw(prop)).decode(_codec(game), errors="replace")


def _codec(game: sgf.Sgf_game) -> str:
    """The Python codec of the game's charset (``CA``): its first value (Fox writes
    ``CA[UTF-8][UTF-8]``, which sgfmill refuses), latin-1 when unknown."""
    import codecs

    root = game.get_root()
    charset = root.get_raw_list("CA")[0].decode("latin-1").strip() if root.has_property("CA") else "latin-1"
    try:
        return codecs.lookup(charset).name
    except LookupError:
        return "latin-1"


def read_game_line(data: bytes, max_size: int) -> GameLine:
    """The first game of the SGF ``data`` for replaying; ValueError (one line) when no
    game can be read at all or its board is not 2 to ``max_size`` points a side."""
    cut = _cut_at_two_passes(data)
    game = sgf.Sgf_game.from_bytes(cut.head)
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
    return GameLine(game, size, komi, players, _steps(game, size, warnings, cut.moves), warnings, cut.tail)


def _steps(game: sgf.Sgf_game, size: int, warnings: list[str], cut_moves: bool = False) -> list[Step]:
    """The main line's steps up to two passes in a row; a warning for each value skipped
    (``cut_moves``: moves followed in the tail cut before sgfmill read the game)."""
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
            if any(later.get_move()[0] is not None for later in _safe(nodes)) or cut_moves:
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

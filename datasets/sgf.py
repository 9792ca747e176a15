"""Fast SGF reading for collections: the main line of each game, as a GameRecord.

sgfmill's ``Sgf_game`` builds every node and interprets every property; a corpus
scan needs the main line and a dozen properties. This module tokenizes a file
with one regular expression (the token grammar of ``sgfmill.sgf_grammar``:
bracketed values with backslash escapes, property identifiers whose lower-case
letters are dropped, and ``; ( )``), walks the tokens once, and decodes only the
properties it needs. Text values are unescaped with sgfmill's
``sgf_grammar.simpletext_value``; points follow ``sgfmill.sgf_properties``
(column letter then row letter from the top; ``tt`` is a pass on boards up to
19x19).

The main line is the root sequence followed by the first variation at every
branch, so it ends at the first ``)`` of the game: everything after it, up to the
game's closing parenthesis, is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np
from sgfmill.sgf_grammar import simpletext_value

from ..go.rules import REASONS, replay_check
from ..go.vertices import SGF_LETTERS, TT_PASS_MAX_SIZE, color_name, format_sgf_point, format_vertex
from .records import GameRecord, ScanError
from .text import decode_values, normalize_rank, parse_komi, winner_of

__all__ = ["parse_games", "MAX_BOARD_SIZE"]

MAX_BOARD_SIZE = 25

# Tokens are 4-tuples (run, colour, value, token), one field set:
# - run: a run of nodes holding nothing but one move with a two-letter point
#   (``;B[pd];W[dd]...`` up to a delimiter), decoded in one go with numpy; at most
#   1,024 nodes a token, a longer run in several (re's repeated group holds memory by
#   the repetition: 250 MB for a run of a million passes);
# - colour, value: one node holding nothing but one move (``;B[]``);
# - token: a value with its brackets, an identifier, a delimiter, or a lone
#   "[" (a value that is never closed: the data is truncated).
_TOKEN_RE = re.compile(
    rb"((?:;[ \t\r\n]*[BW][ \t\r\n]*\[[a-zA-Z]{2}\][ \t\r\n]*){1,1024})(?=[;()])"
    rb"|;\s*([BW])\s*\[([^\\\]]*)\](?=\s*[;()])"
    rb"|(\[[^\\\]]*(?:\\.[^\\\]]*)*\]|[A-Za-z]+|[;()]|\[)",
    re.DOTALL,
)
_LOWER = bytes(range(ord("a"), ord("z") + 1))
_OPEN, _CLOSE, _SEMI, _BRACKET = ord("("), ord(")"), ord(";"), ord("[")

_TEXT_KEYS = ("PB", "PW", "BR", "WR", "RE", "RU", "DT")


class SgfError(ValueError):
    """A game that cannot be parsed."""


def _read_property(tokens: list[tuple[bytes, bytes, bytes]], i: int, name: bytes,
                   props: dict[str, list[bytes]] | None) -> int:
    """Add the values of property ``name`` (its identifier, lower-case letters dropped),
    ``tokens[i]`` on, to the node's ``props`` (None: no node yet, an error); returns the
    index after its last value."""
    key = name.decode("ascii")
    if not name.isupper():
        key = name.translate(None, _LOWER).decode("ascii")
    values = []
    n = len(tokens)
    while i < n and tokens[i][3][:1] == b"[":
        v = tokens[i][3]
        if len(v) == 1:
            raise SgfError("unterminated property value (truncated file?)")
        values.append(v[1:-1])
        i += 1
    if props is None:
        raise SgfError("property outside a node")
    if not values:
        raise SgfError(f"property {name.decode('ascii')} without a value")
    if key in props:
        props[key].extend(values)
    else:
        props[key] = values
    return i


def _main_line(tokens: list[tuple[bytes, bytes, bytes]], i: int) -> tuple[list, int]:
    """Parse the game starting at ``tokens[i]`` (an opening parenthesis).

    Returns the main line's nodes and the index after the game's closing
    parenthesis. A node is a property map of raw values, or ``(colour, value)``
    for a node holding a single move.
    """
    n = len(tokens)
    nodes: list = []
    props: dict[str, list[bytes]] | None = None
    depth = 0
    main = True
    while i < n:
        run, mc, mv, t = tokens[i]
        i += 1
        if run:
            if main:
                nodes.append(run)
                props = None
            continue
        if mc:
            if main:
                nodes.append((mc, mv))
                props = None
            continue
        c = t[0]
        if c == _BRACKET:
            if len(t) == 1:
                raise SgfError("unterminated property value (truncated file?)")
            if main:
                raise SgfError("property value without a property name")
        elif c == _SEMI:
            if main:
                props = {}
                nodes.append(props)
        elif c == _OPEN:
            if main and not nodes and depth > 0:
                raise SgfError("variation before any node")
            depth += 1
        elif c == _CLOSE:
            depth -= 1
            main = False
            if depth == 0:
                return nodes, i
        elif main:
            i = _read_property(tokens, i, t, props)
    raise SgfError("unexpected end of data (a game is not closed)")


def _skip_game(tokens: list[tuple[bytes, bytes, bytes]], i: int) -> int:
    """Index after the game starting at ``tokens[i]``, or the end."""
    depth = 0
    n = len(tokens)
    while i < n:
        t = tokens[i][3]
        i += 1
        if t == b"(":
            depth += 1
        elif t == b")":
            depth -= 1
            if depth == 0:
                return i
        elif t == b"[":
            return n
    return n


_POINT_CACHE: dict[int, dict[bytes, int]] = {}


def _points(size: int) -> dict[bytes, int]:
    """Map of SGF point values to board indices (row 0 bottom); passes to -1."""
    table = _POINT_CACHE.get(size)
    if table is None:
        table = {format_sgf_point((row, col), size).encode(): row * size + col
                 for row in range(size) for col in range(size)}
        table[b""] = -1
        if size <= TT_PASS_MAX_SIZE:
            table[b"tt"] = -1
        _POINT_CACHE[size] = table
    return table


def _point_list(values: list[bytes], size: int, table: dict[bytes, int]) -> list[int]:
    """Points of a setup property, expanding ``aa:cc`` rectangles."""
    out = []
    for v in values:
        v = v.strip()
        if b":" in v:
            a, b = v.split(b":", 1)
            pa, pb = table.get(a, -2), table.get(b, -2)
            if pa < 0 or pb < 0:
                raise SgfError(f"bad point {v.decode('latin-1')!r} in setup stones")
            r0, r1 = sorted((pa // size, pb // size))
            c0, c1 = sorted((pa % size, pb % size))
            out.extend(r * size + c for r in range(r0, r1 + 1) for c in range(c0, c1 + 1))
        else:
            p = table.get(v, -2)
            if p < 0:
                raise SgfError(f"bad point {v.decode('latin-1')!r} in setup stones")
            out.append(p)
    return out


def _text(values: list[bytes] | None) -> bytes:
    if not values:
        return b""
    return simpletext_value(values[0]).strip()


def _int(values: list[bytes] | None, default: int) -> int | None:
    if not values:
        return default
    try:
        return int(values[0].strip())
    except ValueError:
        return None


def _reason_name(code: int) -> str:
    return REASONS[code] if 0 <= code < len(REASONS) else f"code {code}"


def _coord(p: int, size: int) -> str:
    """GTP vertex of a record index ``row * size + col`` (-1: pass)."""
    return format_vertex(None if p < 0 else divmod(p, size))


_WS = b" \t\r\n"
_A = ord(SGF_LETTERS[0])
#: ``tt``'s coordinates, a pass on boards up to TT_PASS_MAX_SIZE.
_TT = SGF_LETTERS.index("t")


def _append_move(moves: list[int], colour: int, p: int, prev: int, first: int) -> tuple[int, int]:
    """Append a move of ``colour``, after a pass of the other colour when the same
    colour played the move before; returns the new (previous colour, first colour)."""
    if not first:
        first = colour
    elif colour == prev:
        moves.append(-1)
    moves.append(p)
    return colour, first

def _add_run(run: bytes, size: int, moves: list[int], prev: int, first: int) -> tuple[int, int]:
    """Append a run of ``;B[xy]`` nodes to ``moves``; returns the new (prev, first) colours.

    Raises SgfError at the first point off the board (the moves before it are
    appended).
    """
    compact = run.translate(None, _WS)
    a = np.frombuffer(compact, dtype=np.uint8).reshape(-1, 6)
    colours = np.where(a[:, 1] == 66, 1, 2)
    x = a[:, 3].astype(np.int32) - _A
    y = a[:, 4].astype(np.int32) - _A
    points = (size - 1 - y) * size + x
    valid = (x >= 0) & (x < size) & (y >= 0) & (y < size)
    if size <= TT_PASS_MAX_SIZE:
        is_pass = (x == _TT) & (y == _TT)
        points[is_pass] = -1
        valid |= is_pass
    bad = -1
    if not valid.all():
        bad = int(np.argmin(valid))
        colours, points = colours[:bad], points[:bad]
    if len(colours):
        alternating = bool((colours[1:] != colours[:-1]).all()) and colours[0] != prev
        if alternating:
            moves.extend(points.tolist())
            if not first:
                first = int(colours[0])
            prev = int(colours[-1])
        else:
            for colour, p in zip(colours.tolist(), points.tolist()):
                prev, first = _append_move(moves, colour, p, prev, first)
    if bad >= 0:
        v = bytes(a[bad, 3:5]).decode("latin-1")
        raise SgfError(f"bad move coordinate {v!r}")
    return prev, first


def _board_size(root: dict[str, list[bytes]], source: str) -> tuple[int, ScanError | None]:
    """The game's board size from ``SZ`` (19 without it), or the error that rules the game out."""
    sz = root.get("SZ")
    if not sz:
        return 19, None
    raw = sz[0].strip()
    if b":" in raw:
        a, _, b = raw.partition(b":")
        if a.strip() != b.strip():
            return -1, ScanError(source, "bad-board-size", f"bad-board-size: non-square board SZ[{raw.decode('latin-1')}]")
        raw = a
    try:
        size = int(raw)
    except ValueError:
        size = -1
    if not 2 <= size <= MAX_BOARD_SIZE:
        return -1, ScanError(source, "bad-board-size",
                             f"bad-board-size: SZ[{sz[0].decode('latin-1')}] (supported 2 to {MAX_BOARD_SIZE})")
    return size, None


def _node_move(node: dict[str, list[bytes]], size: int, table: dict[bytes, int], started: bool,
               stones: dict[int, int]) -> tuple[int, int] | None:
    """The (colour, point) of a node's move, None for a node without one; its setup
    stones (AB/AW/AE) go into ``stones``. Raises SgfError for a node the main line
    cannot go past."""
    b = node.get("B")
    w = node.get("W")
    if "AB" in node or "AW" in node or "AE" in node:
        if started:
            raise SgfError("setup stones (AB/AW/AE) after the first move")
        for key, colour in (("AB", 1), ("AW", 2), ("AE", 0)):
            if key in node:
                for p in _point_list(node[key], size, table):
                    if colour:
                        stones[p] = colour
                    else:
                        stones.pop(p, None)
    if b is None and w is None:
        return None
    if b is not None and w is not None:
        raise SgfError("a black and a white move in the same node")
    values = b if b is not None else w
    if len(values) != 1:
        raise SgfError("a move property with several values")
    p = table.get(values[0].strip(), -2)
    if p == -2:
        raise SgfError(f"bad move coordinate {values[0][:10].decode('latin-1')!r}")
    return (1 if b is not None else 2), p


def _bad_move(source: str, exc: SgfError, moves: list[int]) -> ScanError:
    return ScanError(source, "bad-move", f"bad-move: {exc} at move {len(moves) + 1} (moves kept up to there)")


def _line_moves(nodes: list, size: int, source: str) -> tuple[list[int], dict[int, int], int, ScanError | None]:
    """The main line's moves (record indices, a pass of the other colour inserted
    between two moves of one colour), setup stones (point -> colour), the first
    move's colour (0 without moves) and the error that cut the line short, if any."""
    table = _points(size)
    stones: dict[int, int] = {}
    moves: list[int] = []
    first = 0  # colour of the first move, 1 black 2 white
    prev = 0
    for node in nodes:
        if type(node) is bytes:  # a run of move nodes
            try:
                prev, first = _add_run(node, size, moves, prev, first)
                continue
            except SgfError as exc:
                return moves, stones, first, _bad_move(source, exc, moves)
        if type(node) is tuple:  # a node with one move: the common case
            p = table.get(node[1], -2)
            if p != -2:
                prev, first = _append_move(moves, 1 if node[0] == b"B" else 2, p, prev, first)
                continue
            node = {node[0].decode(): [node[1]]}
        try:
            move = _node_move(node, size, table, bool(moves or prev), stones)
        except SgfError as exc:
            return moves, stones, first, _bad_move(source, exc, moves)
        if move is not None:
            prev, first = _append_move(moves, move[0], move[1], prev, first)
    return moves, stones, first, None


def _handicap_and_first(root: dict[str, list[bytes]], first: int, setup_black: np.ndarray,
                        setup_white: np.ndarray) -> tuple[int, int]:
    """The handicap (``HA``, else the count of black setup stones alone, at least 2)
    and the colour to move first where the game has no move (``PL``, else White
    after handicap stones, else Black)."""
    ha = _int(root.get("HA"), 0)
    if ha is None or ha < 0:
        ha = 0
    if not root.get("HA") and len(setup_black) >= 2 and not len(setup_white):
        ha = len(setup_black)
    if not first:
        pl = root.get("PL")
        pl_v = pl[0].strip().upper()[:1] if pl else b""
        if pl_v in (b"B", b"W"):
            first = 1 if pl_v == b"B" else 2
        else:
            first = 2 if ha >= 2 and len(setup_black) else 1
    return ha, first


def _legal_prefix(size: int, setup_black: np.ndarray, setup_white: np.ndarray, moves: np.ndarray,
                  first: int, source: str) -> tuple[np.ndarray, ScanError | None]:
    """The moves up to the first illegal one, and the error naming it (None when all are legal)."""
    if not (len(moves) or len(setup_black) or len(setup_white)):
        return moves, None
    n_ok, code = replay_check(size, setup_black, setup_white, moves, first)
    if n_ok == len(moves):
        return moves, None
    colour = "BW"[(first - 1 + n_ok) % 2]
    return moves[:n_ok].copy(), ScanError(
        source, "illegal-move",
        f"illegal-move: {colour} {_coord(int(moves[n_ok]), size)} at move {n_ok + 1} "
        f"is illegal ({_reason_name(code)}); moves kept up to there",
    )


def build_record(
    nodes: list[dict[str, list[bytes]]], source: str
) -> tuple[GameRecord | None, list[ScanError]]:
    """Turn a parsed main line into a GameRecord (or None) and its errors."""
    root = nodes[0] if isinstance(nodes[0], dict) else {}
    gm = _int(root.get("GM"), 1)
    if gm != 1:
        return None, [ScanError(source, "not-go", f"not-go: GM[{root['GM'][0].decode('latin-1')}] is not a Go game")]
    size, bad_size = _board_size(root, source)
    if bad_size is not None:
        return None, [bad_size]

    raw_text = [_text(root.get(k)) for k in _TEXT_KEYS]
    ca = root.get("CA")
    texts, _enc = decode_values(raw_text, ca[0] if ca else None)
    black, white, black_rank, white_rank, result, rules, date = texts
    komi = parse_komi(_text(root.get("KM")).decode("latin-1"))

    moves, stones, first, truncated = _line_moves(nodes, size, source)
    setup_black = np.array(sorted(p for p, c in stones.items() if c == 1), dtype=np.int16)
    setup_white = np.array(sorted(p for p, c in stones.items() if c == 2), dtype=np.int16)
    ha, first = _handicap_and_first(root, first, setup_black, setup_white)
    move_arr, illegal = _legal_prefix(size, setup_black, setup_white, np.array(moves, dtype=np.int16), first,
                                      source)
    # the illegal move comes first: the error that cut the line short is after it
    errors = [illegal] if illegal is not None else [truncated] if truncated is not None else []
    rec = GameRecord(
        source=source,
        board_size=size,
        komi=komi,
        handicap=min(ha, 127),
        rules=rules,
        result=result,
        winner=winner_of(result),
        black=black,
        white=white,
        black_rank=normalize_rank(black_rank),
        white_rank=normalize_rank(white_rank),
        date=date,
        first_color=color_name(first),
        moves=move_arr,
        setup_black=setup_black,
        setup_white=setup_white,
    )
    return rec, errors


def parse_games(data: bytes, source: str) -> Iterator[tuple[GameRecord | None, list[ScanError]]]:
    """Every game of an SGF file (a collection may hold several).

    Yields ``(record, errors)`` per game found: ``record`` is None when the game
    cannot be used (the errors say why). Game ``k`` (from 1) of a file with more
    than one game is named ``source#k``. A file with no game at all yields one
    ``(None, [parse-error])``.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    tokens = _TOKEN_RE.findall(data)
    n = len(tokens)
    found: list[tuple[list | None, str]] = []
    i = 0
    while i < n:
        t = tokens[i][3]
        if t == b"(" and i + 1 < n and (tokens[i + 1][0] or tokens[i + 1][1] or tokens[i + 1][3] == b";"):
            try:
                nodes, i = _main_line(tokens, i)
                found.append((nodes, ""))
            except SgfError as exc:
                found.append((None, str(exc)))
                i = _skip_game(tokens, i)
        elif t == b"[":
            break  # a value never closed, outside any game
        else:
            i += 1
    if not found:
        yield None, [ScanError(source, "parse-error", "parse-error: no SGF game found")]
        return
    many = len(found) > 1
    for k, (nodes, problem) in enumerate(found, 1):
        name = f"{source}#{k}" if many else source
        if nodes is None or not nodes:
            yield None, [ScanError(name, "parse-error", f"parse-error: {problem or 'empty game'}")]
            continue
        try:
            yield build_record(nodes, name)
        except SgfError as exc:
            yield None, [ScanError(name, "parse-error", f"parse-error: {exc}")]

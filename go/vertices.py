"""Vertices and colours: the one place that spells a point or a colour.

A point on a board of ``size`` has four spellings here:

- ``(row, col)``, row 0 at the bottom (sgfmill's and GTP's convention), ``None`` for
  a pass: what ``Board`` takes;
- the GTP vertex: a column letter, A to Z without I, then the row from 1 at the
  bottom (``C3``), and ``pass``;
- the SGF point: the column letter then the row letter counted from the top, both
  lower case (``cq`` is C3 on 19x19); ``''`` is a pass, and so is ``tt`` on boards
  up to 19x19 (FF[3]), as ``sgfmill.sgf_properties`` reads them;
- the flat index of ``rules``' padded layout, ``(row + 1) * (size + 2) + col + 1``,
  with ``rules.PASS`` for a pass.

The games table's ``row * size + col`` (-1 a pass) is ``rules.to_index`` /
``rules.to_point``: the layout's own numba conversions.

A colour is ``"b"`` or ``"w"`` in Python, ``rules.BLACK`` or ``rules.WHITE`` on the
board, ``b``/``black``/``w``/``white`` in GTP (any case) and ``B``/``W`` in SGF.

Every parse raises ``VertexError`` or ``ColorError`` (both ``ValueError``) with a
one-line reason that quotes the text.
"""

from __future__ import annotations

from numba import njit

from .rules import BLACK, MAX_SIZE, PASS, WHITE

Point = tuple[int, int] | None

#: GTP's column letters: I is skipped (it looks like J and 1).
GTP_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
#: SGF's coordinate letters, ``a`` the first column and the top row.
SGF_LETTERS = "abcdefghijklmnopqrstuvwxyz"
#: The largest board on which ``tt`` is a pass rather than a point (SGF FF[3]).
TT_PASS_MAX_SIZE = 19

COLOR_CODES = {"b": BLACK, "w": WHITE}
COLOR_WORDS = {"b": "Black", "w": "White"}
_GTP_COLORS = {"b": "b", "black": "b", "w": "w", "white": "w"}


class VertexError(ValueError):
    """A vertex or point that cannot be read, or one off the board; the message says why."""


class ColorError(ValueError):
    """A colour that cannot be read; the message says why."""


def on_board(point: tuple[int, int], size: int) -> bool:
    """Whether ``(row, col)`` lies on a ``size`` x ``size`` board."""
    row, col = point
    return 0 <= row < size and 0 <= col < size


def format_vertex(point: Point) -> str:
    """GTP vertex of a ``(row, col)`` point (``A1`` bottom left), ``pass`` for None.
    Raises VertexError for a point that no board up to 25x25 has."""
    if point is None:
        return "pass"
    row, col = point
    if not (0 <= row < MAX_SIZE and 0 <= col < MAX_SIZE):
        raise VertexError(f"{point} is off every board up to {MAX_SIZE}x{MAX_SIZE}")
    return f"{GTP_LETTERS[col]}{row + 1}"


def show_point(point: Point) -> str:
    """A point for a message: its GTP vertex where it has one, else ``(row, col)``."""
    try:
        return format_vertex(point)
    except (VertexError, TypeError, ValueError):
        return str(point)


def parse_vertex(text: str, size: int) -> Point:
    """``(row, col)`` of a GTP vertex on a ``size`` board (any case, spaces around
    ignored), None for ``pass``. Raises VertexError with the reason."""
    t = text.strip().upper()
    if t == "PASS":
        return None
    if len(t) < 2 or t[0] not in GTP_LETTERS or not t[1:].isdigit():
        raise VertexError(f"invalid vertex {text!r}: not a column letter (no I) and a row number")
    row, col = int(t[1:]) - 1, GTP_LETTERS.index(t[0])
    if not on_board((row, col), size):
        raise VertexError(f"invalid vertex {text!r}: off the {size}x{size} board")
    return row, col


def format_sgf_point(point: Point, size: int) -> str:
    """SGF point of ``(row, col)`` on a ``size`` board (``aa`` top left), ``''`` for a pass."""
    if point is None:
        return ""
    if not on_board(point, size):
        raise VertexError(f"{show_point(point)} is off the {size}x{size} board")
    row, col = point
    return SGF_LETTERS[col] + SGF_LETTERS[size - 1 - row]


def parse_sgf_point(text: str | bytes, size: int) -> Point:
    """``(row, col)`` of an SGF point on a ``size`` board; None for a pass (``''``, or
    ``tt`` up to 19x19). Raises VertexError with the reason."""
    t = text.decode("latin-1") if isinstance(text, (bytes, bytearray)) else text
    if t == "" or (t == "tt" and size <= TT_PASS_MAX_SIZE):
        return None
    if len(t) != 2 or t[0] not in SGF_LETTERS or t[1] not in SGF_LETTERS:
        raise VertexError(f"bad SGF point {t[:10]!r}: not two lower-case letters")
    row, col = size - 1 - SGF_LETTERS.index(t[1]), SGF_LETTERS.index(t[0])
    if not on_board((row, col), size):
        raise VertexError(f"bad SGF point {t!r}: off the {size}x{size} board")
    return row, col


def flat_index(point: Point, size: int) -> int:
    """Index of ``(row, col)`` in the rules' padded layout of a ``size`` board,
    ``rules.PASS`` for None. Raises VertexError for a point off the board."""
    if point is None:
        return PASS
    if not on_board(point, size):
        raise VertexError(f"{show_point(point)} is off the {size}x{size} board")
    return _flat(point[0], point[1], size + 2)


def point_at(p: int, size: int) -> Point:
    """``(row, col)`` of index ``p`` in the padded layout of a ``size`` board; None
    for ``rules.PASS``."""
    if p == PASS:
        return None
    return _row_col(int(p), size + 2)


def flat_vertex(p: int, size: int) -> str:
    """GTP vertex of index ``p`` in the padded layout of a ``size`` board."""
    return format_vertex(point_at(p, size))


@njit(cache=True)
def flat(row: int, col: int, w: int) -> int:
    """Index of the on-board ``(row, col)`` in a padded layout of stride ``w``
    (``size + 2``): the one place the layout is made."""
    return (row + 1) * w + col + 1


@njit(cache=True)
def row_col(p: int, w: int) -> tuple[int, int]:
    """``(row, col)`` of the on-board index ``p`` of a padded layout of stride ``w``
    (``size + 2``): the one place the layout is undone."""
    return p // w - 1, p % w - 1


# The same arithmetic called from Python, without numba's dispatch (and with NUMBA_DISABLE_JIT).
_flat = getattr(flat, "py_func", flat)
_row_col = getattr(row_col, "py_func", row_col)


def parse_color(text: str) -> str:
    """``"b"`` or ``"w"`` from a GTP colour (``b``, ``black``, ``w``, ``white``, any
    case) or an SGF one (``B``, ``W``). Raises ColorError with the reason."""
    name = _GTP_COLORS.get(text.strip().lower())
    if name is None:
        raise ColorError(f"invalid color {text!r}: not b, black, w or white")
    return name


def color_code(name: str) -> int:
    """``rules.BLACK`` or ``rules.WHITE`` of ``"b"`` or ``"w"``. Raises ColorError."""
    try:
        return COLOR_CODES[name]
    except (KeyError, TypeError):
        raise ColorError(f"colour must be 'b' or 'w', not {name!r}") from None


def color_name(code: int) -> str | None:
    """``"b"`` or ``"w"`` of a board colour code, None for any other (empty, border)."""
    return "b" if code == BLACK else "w" if code == WHITE else None


def opponent(name: str) -> str:
    """The other colour's name: ``"w"`` for ``"b"`` and back."""
    return "w" if color_code(name) == BLACK else "b"


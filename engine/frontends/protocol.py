"""What the protocol front ends (GTP, KataGo's analysis engine) share: the engine's name,
one-line errors, and GTP's parsers of colours, vertices and numbers."""

from __future__ import annotations

import re

from ...go import vertices
from ...go.vertices import ColorError
from ...limits import COUNT_MAX, NUMBER_CHARS_MAX, SECONDS_MAX, finite_number, komi_within

NAME, VERSION = "shapemill", "0.1.0"
#: Moves of a principal variation in an analysis line (KataGo's analysisPVLen default).
PV_LENGTH = 15


#: A word that reads as a number (digits, sign, point, exponent, Python's underscores).
NUMERIC = re.compile(r"[-+]?[0-9_]*\.?[0-9_]*(?:[eE][-+]?[0-9_]+)?")


class GtpError(Exception):
    """A command that cannot be carried out; its message goes after ``?``."""


def one_line(error: BaseException) -> str:
    """An error's message on one line (a GTP response must not break off early)."""
    return " ".join(str(error).split()) or type(error).__name__


def parse_vertex(text: str, size: int) -> tuple[int, int] | None:
    """``(row, col)`` of a GTP vertex (row 0 at the bottom), None for pass."""
    try:
        return vertices.parse_vertex(text, size)
    except ValueError as e:
        raise GtpError(str(e)) from None


def parse_color(text: str) -> str:
    """'b' or 'w' from GTP's colour words."""
    try:
        return vertices.parse_color(text)
    except ColorError as e:
        raise GtpError(str(e)) from None


def _number(text: str) -> float:
    """``text`` as a finite number of at most ``NUMBER_CHARS_MAX`` characters (a longer
    one is no real value and Python's integers refuse past 4,300 digits); GtpError else."""
    value = finite_number(text)
    if value is None:
        too_long = len(text) > NUMBER_CHARS_MAX
        raise GtpError(f"syntax error: a number longer than {NUMBER_CHARS_MAX} characters" if too_long
                       else f"syntax error: {text!r} is not a finite number")
    return value


def parse_seconds(text: str) -> float:
    """A time setting: 0 to ``SECONDS_MAX`` seconds, the command line's own cap (a longer
    main time would overflow the clock beneath and hang ``genmove``)."""
    value = _number(text)
    if not 0 <= value <= SECONDS_MAX:
        raise GtpError(f"syntax error: {text} is not a number of seconds from 0 to {SECONDS_MAX:.0f}")
    return value


def parse_count(text: str) -> int:
    """A whole number of stones or moves from 0 to ``COUNT_MAX``."""
    value = _number(text)
    if value != int(value) or not 0 <= value <= COUNT_MAX:
        raise GtpError(f"syntax error: {text} is not a whole number from 0 to {COUNT_MAX}")
    return int(value)


def parse_komi(text: str, size: int) -> float:
    """A komi: a finite number of points within the ``size`` board's area."""
    value = _number(text)
    if not komi_within(value, size):
        raise GtpError(f"syntax error: komi {text} is not within the {size}x{size} board's {size * size} points")
    return value

"""What the protocol front ends (GTP, KataGo's analysis engine) share: the engine's name,
one-line errors, and GTP's parsers of colours, vertices and numbers."""

from __future__ import annotations

import math

from ...go import vertices
from ...go.vertices import ColorError

NAME, VERSION = "shapemill", "0.1.0"
#: Moves of a principal variation in an analysis line (KataGo's analysisPVLen default).
PV_LENGTH = 15


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


def seconds_or_komi(text: str, signed: bool = False) -> float:
    """A finite number (not negative unless ``signed``): a komi or a time setting;
    ValueError for anything else (``inf`` main time would make a move search forever)."""
    value = float(text)
    if not math.isfinite(value) or value < 0 and not signed:
        raise ValueError(f"invalid number {text!r}")
    return value

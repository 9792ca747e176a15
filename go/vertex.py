"""Points by name: GTP's vertices (``A1`` bottom left, no letter I) and ``(row, col)``."""

from __future__ import annotations

LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def format_vertex(point: tuple[int, int] | None) -> str:
    """GTP's name of a ``(row, col)`` point (row 0 at the bottom), 'pass' for None."""
    if point is None:
        return "pass"
    return f"{LETTERS[point[1]]}{point[0] + 1}"


def parse_vertex(text: str, size: int) -> tuple[int, int] | None:
    """``(row, col)`` of a GTP vertex on a ``size`` board (row 0 at the bottom), None for
    'pass'; a ``ValueError`` for anything else."""
    t = text.strip().upper()
    if t == "PASS":
        return None
    if len(t) < 2 or t[0] not in LETTERS[:size] or not t[1:].isdigit() or not 1 <= int(t[1:]) <= size:
        raise ValueError(f"invalid vertex {text!r}")
    return int(t[1:]) - 1, LETTERS.index(t[0])

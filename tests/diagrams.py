"""Test positions drawn as diagrams: the board arrays of a diagram, top row first."""

from __future__ import annotations

from shapemill.go.rules import BLACK, WHITE, new_board, place_setup
from shapemill.go.vertices import flat_index


def board_from_diagram(diagram: str):
    """Board arrays of a diagram (top row first, X black, O white, anything else empty) and its size."""
    rows = diagram.strip().splitlines()
    size = len(rows)
    b, m = new_board(size)
    for i, line in enumerate(rows):
        for col, cell in enumerate(line.split()):
            if cell in "XO":
                place_setup(b, m, BLACK if cell == "X" else WHITE, flat_index((size - 1 - i, col), size))
    return b, m, size

"""The rules of Go (numba board shared by miner and engine), playouts, and later the search."""

from shapemill.engine.board import Board, IllegalMove

__all__ = ["Board", "IllegalMove"]

"""The game itself: rules, the ``Board`` API and tactical reading, shared by every stage.

>>> from shapemill.go import Board
>>> board = Board(9)
>>> board.play("b", (4, 4))

Imports nothing else of shapemill. Modules: ``rules`` (the numba board), ``vertices``
(the one spelling of points and colours: GTP, SGF, (row, col), flat index), ``board``
(``Board``), ``reading`` (liberties, ladders, legal moves), ``nbr3x3`` (the 3x3
code), ``rings`` (gridcular rings, Zobrist keys, key packing), ``changes`` (the
points a move can change), ``chains`` (chain distance), ``symmetry`` (the board's
eight symmetries), ``equivalent`` (the points that are one move by a symmetry of the
position).
"""


def __getattr__(name: str):
    """``Board`` and ``IllegalMove``, imported on first use: a module of ``go`` that
    needs no numba (``symmetry``) is imported without loading it."""
    if name in ("Board", "IllegalMove"):
        from . import board

        return getattr(board, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Board", "IllegalMove"]

"""The game itself: rules, the ``Board`` API and tactical reading, shared by every stage.

>>> from shapemill.go import Board
>>> board = Board(9)
>>> board.play("b", (4, 4))

Imports nothing else of shapemill. Modules: ``rules`` (the numba board), ``board``
(``Board``), ``reading`` (liberties, ladders, legal moves), ``nbr3x3`` (the 3x3
code), ``rings`` (gridcular rings, Zobrist keys, key packing), ``changes`` (the
points a move can change), ``chains`` (chain distance).
"""

from .board import Board, IllegalMove

__all__ = ["Board", "IllegalMove"]

"""The engine: priors from a ratings table, playout policies, MCTS, GTP, match, play, demo."""

from ..go import Board, IllegalMove  # the old spelling shapemill.engine.Board

__all__ = ["Board", "IllegalMove"]

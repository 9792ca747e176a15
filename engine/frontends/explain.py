"""Why the ratings table likes a move: its largest known pattern and tactical features, with Elo.

A move's strength is the product of its team's gammas (docs/rating.md); each gamma
reads as an Elo rating, ``400 log10(gamma)``, the same scale as Coulom (2007). The
explanation is the move model's ``Knowledge.explain``, read with the same code as the
engine's priors, so it names exactly the features that made the prior;
``knowledge_explanation`` keeps of it what GoGui shows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ...go.board import Board
from ...patterns.knowledge import Knowledge


@dataclass
class Part:
    """One member of a move's team: a pattern or a tactical feature at a level."""

    name: str  # "pattern" or the tactical feature's name
    value: int  # the pattern's ring, or the feature's level
    gamma: float

    @property
    def elo(self) -> float:
        """The gamma on the Elo scale: 400 log10(gamma)."""
        return 400.0 * math.log10(self.gamma)


@dataclass
class Explanation:
    """A move of ``color`` at ``point``: its team and its share of the legal moves' strength."""

    point: tuple[int, int]
    color: str
    probability: float
    parts: list[Part]


Explainer = Callable[[Board, str, tuple[int, int]], Explanation]


def knowledge_explanation(knowledge: Knowledge) -> Explainer:
    """An ``Explainer`` asking the move model's ``Knowledge.explain`` and keeping what GoGui shows."""

    def explain(board: Board, color: str, point: tuple[int, int]) -> Explanation:
        why = knowledge.explain(board, color, point)
        shape = "near_pattern" if why.pattern and why.pattern.near else "pattern"
        parts = [Part(shape, int(why.pattern.ring), float(why.pattern.gamma))] if why.pattern else []
        parts += [Part(str(f.feature), int(f.level), float(f.gamma)) for f in why.features]
        return Explanation(point, color, float(why.probability), parts)

    return explain

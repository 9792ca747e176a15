"""Why the ratings table likes a move: its largest known pattern and tactical features, with Elo.

A move's strength is the product of its team's gammas and, where the table has latent
vectors, the factor of their pairs (docs/rating.md; a part named ``pairs``); each gamma
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

    name: str  # "pattern", the tactical feature's name or "pairs"
    value: int  # the pattern's ring, or the feature's level (0 for the pairs)
    gamma: float

    @property
    def label(self) -> str:
        """The part as GoGui shows it: its name and value ("pattern 5"), the pairs by name."""
        return self.name if self.name == "pairs" else f"{self.name} {self.value}"

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
        if why.pairs != 1.0:
            parts.append(Part("pairs", 0, why.pairs))
        return Explanation(point, color, float(why.probability), parts)

    return explain

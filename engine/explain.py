"""Why the ratings table likes a move: its largest known pattern and tactical features, with Elo.

A move's strength is the product of its team's gammas (docs/rating.md); each gamma
reads as an Elo rating, ``400 log10(gamma)``, the same scale as Coulom (2007). The
explanation is read with the same code as the engine's priors (``move_strengths``),
so it names exactly the features that made the prior. ``Explainer`` is the seam for
the miner's own explanation: ``knowledge_explanation`` adapts an object with the
miner's ``Knowledge.explain(board, colour, vertex)`` (an explanation with ``pattern``
(``ring``, ``gamma``), ``features`` (``feature``, ``level``, ``gamma``) and
``probability``); ``GtpEngine`` takes it when its table has ``explain``, else
``table_explanation``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..go import rules
from ..go.board import Board
from ..go.reading import reading_scratch
from ..miner.candidates import candidate_tactical, team_of
from ..miner.features import FEATURES, N_FEATURES
from ..miner.prior import MovePrior, cached_patterns, prior_cache


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


def knowledge_explanation(knowledge: Any) -> Explainer:
    """An ``Explainer`` asking the miner's ``Knowledge.explain`` and keeping what GoGui shows."""

    def explain(board: Board, color: str, point: tuple[int, int]) -> Explanation:
        why = knowledge.explain(board, color, point)
        parts = [Part("pattern", int(why.pattern.ring), float(why.pattern.gamma))] if why.pattern else []
        parts += [Part(str(f.feature), int(f.level), float(f.gamma)) for f in why.features]
        return Explanation(point, color, float(why.probability), parts)

    return explain


def table_explanation(prior: MovePrior) -> Explainer:
    """An ``Explainer`` reading ``prior``'s ratings table."""

    def explain(board: Board, color: str, point: tuple[int, int]) -> Explanation:
        c = rules.BLACK if color == "b" else rules.WHITE
        w = board.size + 2
        p = (point[0] + 1) * w + point[1] + 1
        knowledge = prior.knowledge(board.size)
        _, gamma = prior.model
        level_index = knowledge[5]
        points = np.array([p], dtype=np.int64)
        levels = np.zeros((1, N_FEATURES), dtype=np.int32)
        pattern = np.empty(1, dtype=np.int32)
        candidate_tactical(board.b, board.m, c, points, level_index, reading_scratch(board.b, board.m), levels)
        cached_patterns(board.b, board.m, c, points, knowledge, prior_cache(w * w, 1), pattern)
        team = np.zeros(N_FEATURES + 1, dtype=np.int32)
        team_of(pattern[0], levels[0], level_index, team)
        parts = []
        if team[0] >= 0:
            parts.append(Part("pattern", int(prior.model[0].pattern_rings[team[0]]), float(gamma[team[0]])))
        for f in range(N_FEATURES):
            if team[f + 1] >= 0:
                parts.append(Part(FEATURES[f], int(levels[0, f]), float(gamma[team[f + 1]])))
        strength = prior(board.b, board.m, c)
        total = strength.sum()
        return Explanation(point, color, float(strength[p] / total) if total > 0 else 0.0, parts)

    return explain

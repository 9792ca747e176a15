"""Counting the tactical features' levels over a corpus: how often each was available and played.

The feature pass reads again only the points a move can change (``go.changes``)
and those next to strings of one or two liberties (ladders, the ko flag).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..datasets.corpus import Corpus
from ..go.changes import new_tracker, play_tracked
from ..go.reading import legal_moves
from ..go.rules import OK, PASS, SIZE, illegal_reason, to_point
from ..patterns.features import FEATURE_LEVELS, FEATURES, N_FEATURES, tracked_features
from .shards import Job, map_games


@njit(cache=True)
def count_feature_levels(b, m, moves, first_color, tracker, levels, seen, played) -> None:
    """Add the tactical-feature levels of every legal move of every position of a
    game to ``seen`` (and of the move chosen to ``played``), both ``[feature, level]``;
    the pass, a candidate of every position, is the last row.

    The same counts as reading every candidate's features at every position
    (``tactical_features``), reading only the points ``tracker`` names as stale and
    those next to strings of at most two liberties (``tracked_features``);
    ``levels[color, point]`` keeps each colour's levels in between. ``tracker`` is
    ``new_tracker(b, m)``."""
    size = m[SIZE]
    n_features = seen.shape[0] - 1
    for n in range(len(moves)):
        color = first_color if n % 2 == 0 else 3 - first_color
        chosen = to_point(moves[n], size)
        if illegal_reason(b, m, color, chosen) != OK:
            return
        points = legal_moves(b, m, color)
        tracked_features(b, m, color, points, tracker, n, levels[color], n < 2)
        for p in points:
            out = levels[color, p]
            for f in range(n_features):
                level = out[f]
                if level:
                    seen[f, level] += 1
                    if p == chosen:
                        played[f, level] += 1
        seen[n_features, 1] += 1
        if chosen == PASS:
            played[n_features, 1] += 1
        play_tracked(b, m, color, chosen, tracker, n)


def add_feature_counts(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]):
    """The sums of two (seen, played) feature counts."""
    return a[0] + b[0], a[1] + b[1]


@dataclass
class _CountFeatures(Job):
    """Tactical-feature levels as a ``map_games`` job: (seen, played) arrays."""

    corpus: Corpus

    def start(self) -> tuple[np.ndarray, np.ndarray]:
        shape = (N_FEATURES + 1, max(FEATURE_LEVELS))
        return np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64)

    def game(self, state, i: int):
        b, m = self.corpus.start_position(i)
        levels = np.zeros((3, b.shape[1], N_FEATURES), dtype=np.int32)
        moves, first_color = self.corpus.game_moves(i), int(self.corpus.first_color[i])
        count_feature_levels(b, m, moves, first_color, new_tracker(b, m), levels, *state)
        return state

    merge = staticmethod(add_feature_counts)


def feature_counts(corpus: Corpus, workers: int = 1, progress=None) -> tuple[np.ndarray, np.ndarray]:
    """How often each tactical-feature level (and the pass) was available and
    chosen, as ``seen`` and ``played`` arrays indexed ``[feature, level]``."""
    return map_games(_CountFeatures(corpus), corpus, workers, progress)


def count_features(corpus: Corpus, workers: int = 1, progress=None) -> dict[str, np.ndarray | list]:
    """How often each tactical-feature level (and the pass) was available and chosen.

    Returns columns ``feature``, ``level``, ``seen``, ``played`` for every level
    seen at least once (level 0, "absent", is not a feature).
    """
    return feature_columns(*feature_counts(corpus, workers, progress))


def feature_columns(seen: np.ndarray, played: np.ndarray) -> dict[str, np.ndarray | list]:
    """The columns of :func:`count_features` from its ``[feature, level]`` arrays."""
    f, level = np.nonzero(seen)
    f, level = f[level > 0], level[level > 0]
    names = (*FEATURES, "pass")
    return {
        "feature": [names[i] for i in f],
        "level": level.astype(np.int32),
        "seen": seen[f, level],
        "played": played[f, level],
    }

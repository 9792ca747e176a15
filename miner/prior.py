"""Move priors from a ratings table: what the search knows before it searches.

The strength of a legal move is the product of the gammas of its team (largest
known pattern and tactical feature levels), as in ``rate``; normalised over the
legal moves it is the Bradley-Terry probability that a strong player chooses it,
the prior ``P(s, a)`` of progressive bias and PUCT. Defined here, in the miner,
because the features are; the engine imports it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from shapemill.engine.rules import SIZE
from shapemill.miner.features import N_FEATURES, feature_scratch, legal_moves
from shapemill.miner.spatial import far_rings, geometry
from shapemill.miner.teams import candidate_teams, ratings_model
from shapemill.patterns.tables import TableError, read_metadata, read_table


@njit(cache=True)
def _strengths(team, n, gamma, out, points) -> None:
    for i in range(n):
        s = 1.0
        for k in range(team.shape[1]):
            if team[i, k] >= 0:
                s *= gamma[team[i, k]]
        out[points[i]] = s


class MovePrior:
    """Strength of every legal move of a position, from a ratings table.

    The table's kind is checked at once, and the table read at the first call, so
    a GTP engine answers its first commands without waiting for it.
    """

    def __init__(self, path: str) -> None:
        meta = read_metadata(path)
        if meta.get("kind") != "ratings":
            raise TableError(f"{path}: a {meta.get('kind')!r} table, expected a 'ratings' table")
        self.path = path
        self.model = None

    def __call__(self, b: np.ndarray, m: np.ndarray, color: int) -> np.ndarray:
        """``out[p]``: the strength of point ``p`` for ``color`` (0 where illegal)."""
        if self.model is None:
            self.model = ratings_model(read_table(self.path, "ratings")[0])
        vocab, gamma = self.model
        size = int(m[SIZE])
        geo = geometry(size)
        points = legal_moves(b, m, color)
        levels = np.zeros((len(points), N_FEATURES), dtype=np.int32)
        team = np.zeros((len(points), N_FEATURES + 1), dtype=np.int32)
        state = np.empty(geo.stride * geo.stride, dtype=np.int8)
        candidate_teams(
            b, m, color, points, geo.pad, geo.delta, geo.max_ring, vocab.lookup, far_rings(size),
            vocab.level_index, feature_scratch(b, m), state, levels, team,
        )
        out = np.zeros(b.shape[1])
        _strengths(team, len(points), gamma, out, points)
        return out

"""Move priors from a ratings table: what the search knows before it searches.

The strength of a legal move is the product of the gammas of its team (largest
known pattern and tactical feature levels), as in ``rate``; normalised over the
legal moves it is the Bradley-Terry probability that a strong player chooses it,
the prior ``P(s, a)`` of progressive bias and PUCT. Defined here, in the miner,
because the features are; the engine imports it.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from numba import njit

from ..go.reading import legal_moves, reading_scratch
from ..go.rings import FarRings, far_rings, geometry
from ..go.rules import SIZE, STRIDE
from ..patterns.tables import TableError, check_table, read_table
from .candidates import MODEL_COLUMNS, candidate_teams, ratings_model
from .features import N_FEATURES


@njit(cache=True)
def move_strengths(b: np.ndarray, m: np.ndarray, color: int, knowledge, out: np.ndarray) -> None:
    """``out[p]``: the strength of the move ``color`` at ``p`` (0 where illegal), the
    product of its team's gammas; ``knowledge`` is ``MovePrior.knowledge``'s tuple.
    Runs inside the search, so all of it is numba."""
    pad, delta, max_ring, lookup, far, level_index, gamma = knowledge
    points = legal_moves(b, m, color)
    n = len(points)
    levels = np.zeros((n, N_FEATURES), dtype=np.int32)
    team = np.zeros((n, N_FEATURES + 1), dtype=np.int32)
    w = m[STRIDE]
    stride = w - 2 + 2 * pad
    state = np.empty(stride * stride, dtype=np.int8)
    candidate_teams(b, m, color, points, pad, delta, max_ring, lookup, far, level_index, reading_scratch(b, m),
                    state, levels, team)
    out[:] = 0.0
    for i in range(n):
        s = 1.0
        for k in range(team.shape[1]):
            if team[i, k] >= 0:
                s *= gamma[team[i, k]]
        out[points[i]] = s


#: What ``ratings_model`` needs of each column's type (a dictionary's values for one encoded so).
COLUMN_TYPES = {"feature": pa.types.is_string, "value": pa.types.is_integer, "size": pa.types.is_integer,
                "gamma": pa.types.is_floating}

#: ``move_strengths``'s knowledge when there is none: the same types, never read.
NO_KNOWLEDGE = (
    0, np.zeros((8, 1), dtype=np.int32), 0, np.zeros((2, 2), dtype=np.int64),
    FarRings(0, np.zeros((8, 1, 1), dtype=np.int32), np.zeros((1, 1, 8), dtype=np.int64), np.zeros(1, dtype=np.int64)),
    np.full((N_FEATURES + 2, 1), -1, dtype=np.int32), np.ones(1),
)


class MovePrior:
    """Strength of every legal move of a position, from a ratings table.

    The table's kind, schema version, columns and their types are checked at once
    (a :class:`TableError` naming the file), and its rows read at the first call,
    so a GTP engine answers its first commands without waiting for them.
    """

    def __init__(self, path: str) -> None:
        check_table(path, "ratings", MODEL_COLUMNS)
        schema = pq.read_schema(path)
        for name, is_type in COLUMN_TYPES.items():
            kind = schema.field(name).type
            if pa.types.is_dictionary(kind):
                kind = kind.value_type
            if not is_type(kind):
                raise TableError(f"{path}: the ratings table's column {name!r} holds {kind}, not what rate writes")
        self.path = path
        self.model = None

    def knowledge(self, size: int) -> tuple:
        """The table as ``move_strengths`` takes it on a ``size`` x ``size`` board:
        pattern geometry, pattern look-up, level numbering and gammas."""
        if self.model is None:
            try:
                self.model = ratings_model(read_table(self.path, "ratings", columns=MODEL_COLUMNS)[0])
            except (KeyError, ValueError, TypeError, pa.ArrowException) as exc:
                raise TableError(f"{self.path}: unusable ratings ({type(exc).__name__}: {exc})") from None
        vocab, gamma = self.model
        geo = geometry(size)
        return geo.pad, geo.delta, geo.max_ring, vocab.lookup, far_rings(size), vocab.level_index, gamma

    def __call__(self, b: np.ndarray, m: np.ndarray, color: int) -> np.ndarray:
        """``out[p]``: the strength of point ``p`` for ``color`` (0 where illegal)."""
        out = np.zeros(b.shape[1])
        move_strengths(b, m, color, self.knowledge(int(m[SIZE])), out)
        return out

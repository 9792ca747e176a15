"""Latent vectors: the interactions of a move's features (factorization Bradley-Terry).

Coulom's model multiplies the gammas of a move's features, as if each acted alone. Xiao and
Müller's factorization model (AAAI 2016) gives some features a latent vector of ``k``
numbers and adds, for each pair of a move's features, the dot product of their vectors to
the move's log-strength; the position's move-number band has a vector too (a *context*: the
same for every move of the position, it acts only through its pairs, the phase of the game
changing which shapes are played). With ``S`` the sum of the vectors of the team and the
band, the pairs sum to ``(|S|^2 - sum of |v|^2) / 2``. A ratings table carries them in its
``vector`` column (null for a feature without one) and its metadata (``latent``: the bands
and their vectors); ``miner.latent`` fits them. docs/rating.md says what they add.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pyarrow as pa
from numba import njit

from .candidates import Vocabulary, feature_numbers

#: The ratings table's column of latent vectors.
VECTOR_COLUMN = "vector"
#: The type of a vector's numbers in the table: half precision (a relative 5e-4) halves the
#: bundled table's vectors (0.9 MB rather than 1.7); against the fit's float64 it changed no
#: first choice of 10,759 test positions (11 ranks further down; README's example tables).
VECTOR_TYPE = pa.float16()
#: The ratings table's metadata entry of the move-number bands: ``starts`` and ``vectors``.
LATENT_META = "latent"


class Latent(NamedTuple):
    """A ratings table's latent vectors, as the move model reads them: the few features with
    a vector (50,922 of the bundled table's 1.9 million) keep it in ``vectors``, at their row."""

    row: np.ndarray  # int32[features]: each feature's row of ``vectors``, -1 for a feature without one
    vectors: np.ndarray  # float64[features with one, k]
    band_starts: np.ndarray  # int64[bands - 1]: the move number (the first move is 1) starting each band past the first
    band_vectors: np.ndarray  # float64[bands, k]

    @property
    def k(self) -> int:
        """The numbers of a vector (0: the table has none)."""
        return self.vectors.shape[1]


#: A table without latent vectors: every pair term 0.
NO_LATENT = Latent(np.zeros(0, dtype=np.int32), np.zeros((0, 0)), np.zeros(0, dtype=np.int64), np.zeros((1, 0)))


def read_latent(table: pa.Table, meta: dict, number: np.ndarray, features: int) -> Latent:
    """The latent vectors of a ratings table (its rows ``table``, its metadata ``meta``) for
    a vocabulary of ``features`` features, ``number`` each row's feature number
    (``ratings_model``'s); ``NO_LATENT`` when it has none. A column or band entry of the
    wrong shape is a ``ValueError``."""
    if VECTOR_COLUMN not in table.column_names:
        return NO_LATENT
    column = table[VECTOR_COLUMN].combine_chunks()
    if not pa.types.is_fixed_size_list(column.type):
        raise ValueError(f"the {VECTOR_COLUMN!r} column holds {column.type}, not vectors of one length")
    k = column.type.list_size
    bands = meta.get(LATENT_META, {})
    starts = np.asarray(bands.get("starts", []), dtype=np.int64)
    band_vectors = np.asarray(bands.get("vectors", [[0.0] * k]), dtype=np.float64)
    if band_vectors.shape != (len(starts) + 1, k) or (np.diff(starts) <= 0).any():
        raise ValueError(f"the metadata's {LATENT_META!r} entry does not hold {len(starts) + 1} bands of {k} numbers")
    numbers = number[column.is_valid().to_numpy(zero_copy_only=False)]
    row = np.full(features, -1, dtype=np.int32)
    row[numbers] = np.arange(len(numbers))
    return Latent(row, column.flatten().to_numpy().reshape(-1, k).astype(np.float64), starts, band_vectors)


def with_latent(table: pa.Table, meta: dict, vocab: Vocabulary, latent: Latent) -> tuple[pa.Table, dict]:
    """A ratings table (its rows and metadata, numbered by ``vocab``) with ``latent``'s
    vectors: the ``vector`` column (null for a feature whose vector is all zeros) and the
    bands in the metadata, as ``read_latent`` reads them. The vectors are stored as
    half-precision floats (``VECTOR_TYPE``)."""
    row = latent.row[feature_numbers(table, vocab)]
    vectors = np.where((row >= 0)[:, None], latent.vectors[np.maximum(row, 0)], 0.0)
    vectors = vectors.astype(VECTOR_TYPE.to_pandas_dtype())
    has = vectors.any(axis=1)
    column = pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel(), VECTOR_TYPE), latent.k, mask=pa.array(~has))
    if VECTOR_COLUMN in table.column_names:
        table = table.drop_columns([VECTOR_COLUMN])
    bands = {"starts": latent.band_starts.tolist(), "vectors": latent.band_vectors.tolist()}
    return table.append_column(VECTOR_COLUMN, column), {**meta, LATENT_META: bands}


@njit(cache=True)
def band_of(moves_played: int, band_starts: np.ndarray) -> int:
    """The move-number band of a position after ``moves_played`` moves."""
    band = 0
    while band < len(band_starts) and band_starts[band] <= moves_played + 1:
        band += 1
    return band


@njit(cache=True)
def pair_term(team: np.ndarray, row: np.ndarray, vectors: np.ndarray, band: np.ndarray) -> float:
    """The sum of the dot products of every pair of the vectors of ``team``'s features (-1:
    absent; their vectors at ``row``, as ``Latent`` holds them) and the band's vector
    ``band``: the log-strength the pairs add to the gammas'."""
    total = 0.0
    for d in range(vectors.shape[1]):
        s = band[d]
        squares = band[d] * band[d]
        for f in team:
            if f >= 0 and row[f] >= 0:
                s += vectors[row[f], d]
                squares += vectors[row[f], d] * vectors[row[f], d]
        total += 0.5 * (s * s - squares)
    return total

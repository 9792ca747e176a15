"""The records that cross into ``find``'s numba kernels: the games, the index's
bitsets, the query's images, and what the kernels return (hits, replays,
continuations). Numpy only, so that the modules around the kernels read them
without loading numba."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class GameArrays(NamedTuple):
    """The games as the kernels replay them."""

    moves: np.ndarray  # int16[total]: every game's moves, points (-1: pass)
    offsets: np.ndarray  # int64[n + 1]: game g's moves are moves[offsets[g]:offsets[g + 1]]
    first_color: np.ndarray  # int8[n]: who plays the first move (1 black, 2 white)
    setup_pt: np.ndarray  # int16: the setup stones' points
    setup_col: np.ndarray  # int8: their colours
    setup_ptr: np.ndarray  # int64[n + 1]: game g's setup stones are setup_pt[setup_ptr[g]:setup_ptr[g + 1]]


class GameBits(NamedTuple):
    """The index's bitsets over the games (see ``index.py``), a row of each word's
    planes, and the games a search keeps."""

    ever: np.ndarray  # uint64[words, point * 2 + colour - 1]: that colour ever stood there
    late: np.ndarray  # uint64[words, (threshold * points + point) * 2 + colour - 1]: it came at THRESHOLDS[k] or later
    filled: np.ndarray  # uint64[words, threshold * points + point]: filled for good before THRESHOLDS[k]
    keep: np.ndarray  # uint64[words]: the games the filters keep


class QueryImages(NamedTuple):
    """The query's images as the kernels read them; each lists its stones first."""

    pt: np.ndarray  # points of the images, side by side
    col: np.ndarray  # int8: the colour each wants there (0 empty)
    ptr: np.ndarray  # image v owns entries ptr[v]:ptr[v + 1]
    next: np.ndarray  # int8[images]: the colour that must be to move (0 any)
    region: np.ndarray  # bool[images, points]: the image's points
    want_empty: np.ndarray  # bool[images, points]: those it wants empty
    stones: int  # stones of each image


class Hits(NamedTuple):
    """Hits: image ``image`` of the query first matches game ``game`` after ``t`` moves."""

    game: np.ndarray  # int32
    image: np.ndarray  # int32
    t: np.ndarray  # int32


class Replays(NamedTuple):
    """(game, image) pairs to replay: the image cannot match from position ``until`` on."""

    game: np.ndarray  # int32
    image: np.ndarray  # int32
    until: np.ndarray  # int32


class Continuations(NamedTuple):
    """Each hit's continuation: the first later move in its image's zone (-1 / 0: none)."""

    point: np.ndarray  # int32
    color: np.ndarray  # int8
    t: np.ndarray  # int32: the moves played before it

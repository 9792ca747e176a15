"""``Knowledge``: a ratings table asked about positions, the one way every stage asks it.

How likely is each move of a position for a strong player (the Bradley-Terry probability
of the fit: a move's strength, the product of its team's gammas, over the sum of all
legal moves' and the pass's), which moves lead, and why a move scores what it does (its
largest known pattern and its tactical features, each with its gamma). The engine's
prior (``MovePrior``, which ``Knowledge`` is), ``evaluate`` (``miner.evaluate.evaluate_table``)
and ``review`` all read a table through it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from ..go.board import Board
from ..go.reading import reading_scratch
from ..go.rules import BLACK, N_MOVES, WHITE
from ..go.vertices import format_vertex, parse_vertex
from ..tables import TableError, read_table
from .candidates import RatingsModel, Vocabulary, candidate_tactical, team_of
from .defaults import RATINGS, default_table
from .features import N_FEATURES
from .features.words import level_words
from .latent import band_of, pair_term
from .prior import MovePrior, cached_patterns, prior_cache
from .show import SHAPES, diagram

COLOURS = {"b": BLACK, "black": BLACK, "w": WHITE, "white": WHITE}
#: The ratings columns an explanation shows beside the gamma.
DETAIL_COLUMNS = ["feature", "value", "size", "key", "gamma", "elo", "seen", "played"]

Vertex = str | tuple[int, int] | None


def point_of(vertex: Vertex, size: int) -> tuple[int, int] | None:
    """``(row, col)`` of a GTP vertex ('Q16', 'pass') or of a point already so; None for
    the pass. A vertex off the ``size`` board is a ``ValueError``."""
    if vertex is None or isinstance(vertex, str):
        return None if vertex is None else parse_vertex(vertex, size)
    row, col = vertex
    if not (0 <= row < size and 0 <= col < size):
        raise ValueError(f"{vertex!r} is off the {size}x{size} board")
    return int(row), int(col)


def colour_of(colour: str) -> int:
    """The rules' colour of 'b' / 'w' (or 'black' / 'white')."""
    try:
        return COLOURS[colour.lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"colour must be 'b' or 'w', not {colour!r}") from None


class Probabilities(NamedTuple):
    """The probability of each move: ``points[row, col]`` (row 0 at the bottom, 0 where
    illegal) and ``p_pass``; together they sum to 1."""

    points: np.ndarray
    p_pass: float

    def of(self, point: tuple[int, int] | None) -> float:
        """The probability of the move at ``point`` (None: the pass)."""
        return self.p_pass if point is None else float(self.points[point])

    def rank(self, point: tuple[int, int] | None, equivalent: int = 1) -> int:
        """The rank of the move at ``point`` (1: the likeliest); a move tied with others takes
        the worst of their ranks but for the ``equivalent`` points it is one move with
        (``Board.equivalent_points``), as ``evaluate`` counts; 0 for an illegal move."""
        return rank_among(np.append(self.points.ravel(), self.p_pass), self.of(point), equivalent)


def rank_among(values: np.ndarray, value: float, equivalent: int = 1) -> int:
    """The rank of a move of probability (or strength) ``value`` among the ``values`` of every
    move of its position: a tie takes the worst rank but for the ``equivalent`` points the
    move is (``Board.equivalent_points``); 0 for an illegal move (``value`` 0)."""
    return int((values >= value).sum()) - (equivalent - 1) if value > 0 else 0


def likeliest(p: Probabilities, n: int) -> list[tuple[str, float]]:
    """The ``n`` likeliest moves of ``p``, likeliest first (ties in point order), as (vertex, probability)."""
    size = len(p.points)
    flat = np.append(p.points.ravel(), p.p_pass)
    order = np.argsort(-flat, kind="stable")[:n]
    return [(format_vertex(None if i == size * size else divmod(int(i), size)), float(flat[i]))
            for i in order if flat[i] > 0]


@dataclass(frozen=True)
class PatternReason:
    """The largest pattern of the ratings table that matches around the move; ``near``:
    the previous move is near, so the pattern's near twin gives the gamma."""

    ring: int
    id: int  # as the tables store it (uint64, decimal); ``hex`` the same number as show prints it
    hex: str
    diagram: str
    gamma: float
    elo: float | None
    seen: int | None
    played: int | None
    near: bool = False


@dataclass(frozen=True)
class FeatureReason:
    """One tactical feature of the move (or the pass), at its level."""

    feature: str
    level: int
    meaning: str
    gamma: float
    elo: float | None
    seen: int | None
    played: int | None


@dataclass(frozen=True)
class Explanation:
    """Why a move scores what it does: ``strength`` is the product of the pattern's and
    the features' gammas and of ``pairs``, the factor the pairs of their latent vectors add
    (1 where the table has none), ``probability`` its share of the position's total strength."""

    vertex: str
    legal: bool
    strength: float
    probability: float
    rank: int  # 1 = the table's first choice, as Probabilities.rank and evaluate count (``rank_among``)
    pattern: PatternReason | None
    features: tuple[FeatureReason, ...]
    pairs: float = 1.0


class Knowledge(MovePrior):
    """A ratings table's knowledge of moves: probabilities, the best moves and reasons.

    Colours are 'b' / 'w'; vertices GTP's ('Q16', 'pass') or ``(row, col)`` points.
    Probabilities are over the moves legal by the rules the features see (occupied
    points, suicide, simple ko) and the pass, as the engine's prior and ``evaluate`` count.
    """

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self._rows: tuple[pa.Table, np.ndarray] | None = None
        self._reading_rows = threading.Lock()

    @classmethod
    def load(cls, path: str | None = None) -> Knowledge:
        """The ratings table at ``path``, or the bundled one; a bad table is a
        ``TableError`` naming the file."""
        return cls(str(path) if path is not None else default_table(RATINGS))

    @property
    def vocabulary(self) -> Vocabulary:
        """The table's features, numbered (``candidates.Vocabulary``)."""
        return self._model().vocab

    @property
    def gamma(self) -> np.ndarray:
        """The gamma of each feature of ``vocabulary``."""
        return self._model().gamma

    def _model(self) -> RatingsModel:
        """The table's vocabulary, gammas and rows' feature numbers, read at the first call
        (by ``MovePrior.knowledge``, whatever the board size asked)."""
        self.knowledge(19)
        return self.model

    def strengths(self, board: Board, colour: str) -> tuple[np.ndarray, float]:
        """The strength of each board point for ``colour`` (rules layout, 0 where illegal)
        and the pass's."""
        strength = self(board.b, board.m, colour_of(colour))
        s_pass = float(self.gamma[self.vocabulary.pass_feature])
        if self.latent.k:
            team = np.array([self.vocabulary.pass_feature], dtype=np.int32)
            band = self.latent.band_vectors[band_of(int(board.m[N_MOVES]), self.latent.band_starts)]
            s_pass *= float(np.exp(pair_term(team, self.latent.row, self.latent.vectors, band)))
        return strength, s_pass

    def probabilities(self, board: Board, colour: str) -> Probabilities:
        """The probability that a strong player, ``colour`` to move, chooses each move."""
        strength, s_pass = self.strengths(board, colour)
        total = strength.sum() + s_pass
        w = board.size + 2
        points = strength.reshape(w, w)[1:-1, 1:-1] / total
        return Probabilities(points, float(s_pass / total))

    def top(self, board: Board, colour: str, n: int = 5) -> list[tuple[str, float]]:
        """The ``n`` likeliest moves, likeliest first, as (vertex, probability)."""
        return likeliest(self.probabilities(board, colour), n)

    def explain(self, board: Board, colour: str, vertex: Vertex) -> Explanation:
        """The reasons of the move ``colour`` at ``vertex``: its largest known pattern and its
        tactical features (each level with its meaning, gamma and Elo), and its share of the
        position's total strength. An illegal move is explained with no reasons, strength 0."""
        point = point_of(vertex, board.size)
        c = colour_of(colour)
        strength, s_pass = self.strengths(board, colour)
        total = strength.sum() + s_pass
        vocab, gamma = self.vocabulary, self.gamma
        if point is None:
            team, s = np.array([vocab.pass_feature]), s_pass
        else:
            p = (point[0] + 1) * (board.size + 2) + point[1] + 1
            s = float(strength[p])
            team = self._team(board, c, p) if s > 0 else np.zeros(0, dtype=np.int64)
        rank = rank_among(np.append(strength, s_pass), s, board.equivalent_points(point))
        table, row_of = self._detail_rows()
        pattern, features = None, []
        for number in team:
            if row_of[number] < 0:  # the pass of a table that rated none: gamma 1
                features.append(FeatureReason("pass", 1, level_words("pass", 1), float(gamma[number]), None, None,
                                              None))
                continue
            row = table.slice(int(row_of[number]), 1).to_pylist()[0]
            name, value = str(row["feature"]), int(row["value"])
            if name in SHAPES:
                ring, near = int(row["size"]), name != SHAPES[0]
                pattern = PatternReason(ring, value, f"{value:016x}", diagram(row["key"], ring) if row["key"] else "",
                                        float(gamma[number]), row["elo"], row["seen"], row["played"], near)
            else:
                features.append(FeatureReason(name, value, level_words(name, value), float(gamma[number]),
                                              row["elo"], row["seen"], row["played"]))
        pairs = float(s / np.prod(gamma[team])) if s > 0 else 1.0
        return Explanation(format_vertex(point), s > 0, float(s), float(s / total), rank, pattern, tuple(features),
                           pairs)

    def _team(self, board: Board, color: int, p: int) -> np.ndarray:
        """The feature numbers of the team of the (legal) move ``color`` at board point ``p``."""
        vocab = self.vocabulary
        points = np.array([p], dtype=np.int32)
        levels = np.zeros((1, N_FEATURES), dtype=np.int32)
        pattern = np.empty(1, dtype=np.int32)
        candidate_tactical(board.b, board.m, color, points, vocab.level_index, reading_scratch(board.b, board.m),
                           levels)
        cached_patterns(board.b, board.m, color, points, self.knowledge(board.size),
                        prior_cache(board.b.shape[1], 1), pattern, 0)
        team = np.zeros(N_FEATURES + 1, dtype=np.int32)
        team_of(pattern[0], levels[0], vocab.level_index, vocab.twin, team)
        return team[team >= 0].astype(np.int64)

    def _detail_rows(self) -> tuple[pa.Table, np.ndarray]:
        """The table's rows with their Elo and counts, and the row of each feature number."""
        with self._reading_rows:
            if self._rows is None:
                try:
                    table = read_table(self.path, "ratings", columns=DETAIL_COLUMNS)[0]
                except (KeyError, ValueError, pa.ArrowException) as exc:
                    raise TableError(f"{self.path}: unusable ratings ({type(exc).__name__}: {exc})") from None
                number = self._model().number  # the same rows, in the same order
                row_of = np.full(self.vocabulary.size, -1, dtype=np.int64)
                row_of[number] = np.arange(len(number))
                self._rows = table, row_of
        return self._rows

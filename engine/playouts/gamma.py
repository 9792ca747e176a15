"""The gamma playout policy: moves drawn in proportion to their rated strength.

Coulom (2007) plays out with the Bradley-Terry model itself: each legal move is
drawn with probability ``gamma(j) / sum_k gamma(k)``, ``gamma(j)`` the product of
the gammas of its features. Here the features are the tactical ones of
``patterns.features`` (the same function as ``mine`` and ``rate``; capture,
extension, atari and ladders, self-atari, 3x3 block with liberties, distances
to the last two moves, MoGo shapes) with the gammas of a ratings table. The
large spatial patterns are left out: matching them at every playout move would
cost more than the playout itself.

Recomputing every feature of every point each move would cost a whole board of
feature reads per move, so each colour keeps ``base[c, p]``, the product of the
gammas of ``p``'s features but the distances to the last moves, and reads again only
the points a :class:`~shapemill.go.changes.Tracker` names after each move.
Ladder readings and the ko flag of the atari levels are left stale on purpose
(a far stone can break a ladder; reading every point next to a short string
again at every move would cost more than it gives a playout). The
distances to the last moves, which change with every move, are multiplied in when the move is
drawn. Own eyes and illegal points weigh nothing; a point drawn that turns out
illegal (a ko) is struck out and the draw repeated.

Playout Policy Adaptation as the paper writes it (Cazenave 2015; ``--playout-policy ppa-paper``;
the course's form is ``ppa``, engine/playouts/ppa.py) learns during one
search: each colour has a weight ``w[p]`` per point, added to the log-gamma of the
move there (so the search starts from the mined gammas), and after each playout the
winner's weights move toward the moves it played (``ppa_update``). The weights live
for one search (``ppa_weights``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ...go.changes import Tracker, new_tracker, play_tracked, stale_points
from ...go.rules import (
    BLACK,
    COLOR,
    EMPTIES,
    EMPTY,
    LAST,
    LAST2,
    N_EMPTY,
    PASS,
    SIZE,
    STRIDE,
    WHITE,
    area_score,
    illegal_reason,
    is_eye,
)
from ...patterns.features import (
    FEATURE_LEVELS,
    FEATURES,
    N_FEATURES,
    distance_level,
    point_features,
)
from ...patterns.features.distance import pair_level
from ...patterns.features.table import F_LAST2_DIST, F_LAST_DIST, F_LAST_DISTS


def playout_gammas(path: str) -> np.ndarray:
    """``gammas[f, level]``: the gamma of level ``level`` of tactical feature ``f``
    (``FEATURES`` order) in the ratings table at ``path``; 1 where the table has no
    row (level 0, "absent", is always 1). Pattern rows are not read."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ...tables import read_table

    table, _ = read_table(path, "ratings", columns=["feature", "value", "gamma"])
    table = table.set_column(0, "feature", table["feature"].cast(pa.string()))
    table = table.filter(pc.is_in(table["feature"], value_set=pa.array(FEATURES)))
    gammas = np.ones((N_FEATURES, max(FEATURE_LEVELS)))
    index = {name: f for f, name in enumerate(FEATURES)}
    rows = zip(table["feature"].to_pylist(), table["value"].to_pylist(), table["gamma"].to_pylist())
    for name, level, g in rows:
        f = index.get(name)
        if f is not None and 0 < level < FEATURE_LEVELS[f]:
            gammas[f, level] = g
    return gammas


@njit(cache=True)
def _base_gamma(b: np.ndarray, m: np.ndarray, color: int, p: int, gammas: np.ndarray, scratch,
                levels: np.ndarray) -> float:
    """Product of the gammas of ``p``'s features but the distances to the last moves; 0 for an
    occupied point, an own eye or an illegal move."""
    if b[COLOR, p] != EMPTY or is_eye(b, m, color, p) or illegal_reason(b, m, color, p) != 0:
        return 0.0
    libs3, mark, work, mwork, moves = scratch
    point_features(b, m, color, p, libs3, mark, work, mwork, moves, levels)
    g = 1.0
    for f in range(N_FEATURES):
        if f != F_LAST_DIST and f != F_LAST2_DIST and f != F_LAST_DISTS:
            g *= gammas[f, levels[f]]
    return g


@njit(cache=True)
def _draw(b: np.ndarray, m: np.ndarray, color: int, base: np.ndarray, gammas: np.ndarray,
          weight: np.ndarray, bias=None, mass=None) -> int:
    """A move of ``color`` drawn in proportion to its gamma (times ``bias[p]``, Playout
    Policy Adaptation's ``exp(w[p])``, when given), or PASS when every point weighs
    nothing. With ``mass``, each point's probability at this draw is added to it."""
    w = m[STRIDE]
    last, last2 = m[LAST], m[LAST2]
    n = m[N_EMPTY]
    total = 0.0
    for i in range(n):
        p = b[EMPTIES, i]
        g = base[p]
        if g > 0.0:
            d = 0 if last == PASS else distance_level(p, last, w, 0)
            d2 = 0 if last2 == PASS else distance_level(p, last2, w, 1)
            g *= gammas[F_LAST_DIST, d] * gammas[F_LAST2_DIST, d2] * gammas[F_LAST_DISTS, pair_level(d, d2)]
        if bias is not None:
            g *= bias[p]
        weight[i] = g
        total += g
    if mass is not None and total > 0.0:
        for i in range(n):
            mass[b[EMPTIES, i]] += weight[i] / total
    while total > 0.0:
        r = np.random.random() * total
        chosen = -1
        for i in range(n):
            if weight[i] > 0.0:
                chosen = i  # the last one that weighs, should rounding run past the end
                if r < weight[i]:
                    break
                r -= weight[i]
        if chosen < 0:
            break
        p = b[EMPTIES, chosen]
        if illegal_reason(b, m, color, p) == 0:
            return p
        total -= weight[chosen]  # a ko, or a stale suicide: strike it out and draw again
        weight[chosen] = 0.0
    return PASS


class GammaState(NamedTuple):
    """A gamma playout's memory, kept from move to move."""

    tracker: Tracker  # the points each move changes, and the feature reads' scratch space
    levels: np.ndarray  # scratch: one point's feature levels
    base: np.ndarray  # base[c, p]: the product of p's gammas for colour c but the two distances
    weight: np.ndarray  # scratch: each empty point's weight at the current draw


@njit(cache=True)
def gamma_state(b: np.ndarray, m: np.ndarray, gammas: np.ndarray) -> GammaState:
    """A playout's memory from the position ``b, m``: the tracker of what moves
    change, scratch feature levels, each colour's ``base`` gammas and scratch
    weights."""
    points = b.shape[1]
    tracker = new_tracker(b, m)
    levels = np.zeros(N_FEATURES, dtype=np.int32)
    base = np.zeros((3, points))
    for c in (1, 2):
        for i in range(m[N_EMPTY]):
            p = b[EMPTIES, i]
            base[c, p] = _base_gamma(b, m, c, p, gammas, tracker.scratch, levels)
    return GammaState(tracker, levels, base, np.empty(points))


@njit(cache=True)
def _refresh(b: np.ndarray, m: np.ndarray, color: int, gammas: np.ndarray, state: GammaState, n: int) -> None:
    """Bring ``color``'s base gammas up to date before the ``n``-th playout move:
    recompute the points the tracker names (ladders and the ko flag stay stale)."""
    tracker = state.tracker
    for j in range(stale_points(tracker, n)):
        p = tracker.stale[j]
        state.base[color, p] = _base_gamma(b, m, color, p, gammas, tracker.scratch, state.levels)


@njit(cache=True)
def _play_drawn(b: np.ndarray, m: np.ndarray, color: int, gammas: np.ndarray, state: GammaState, n: int,
                adapt: PpaWeights) -> int:
    """Draw the ``n``-th move of a playout by the (refreshed) gammas, play it and
    mark what it changes; returns it. ``adapt``'s weights bias the draw (none yet: the
    gammas as they are) and, when its rate is not 0, the draw adds to its masses."""
    base, weight = state.base, state.weight
    if adapt.rate > 0:
        p = _draw(b, m, color, base[color], gammas, weight, adapt.bias[color], adapt.mass[color])
    else:
        p = _draw(b, m, color, base[color], gammas, weight, adapt.bias[color])
    play_tracked(b, m, color, p, state.tracker, n)
    return p


@njit(cache=True)
def gamma_move(b: np.ndarray, m: np.ndarray, color: int, gammas: np.ndarray, state: GammaState, n: int,
               adapt: PpaWeights) -> int:
    """Draw and play the ``n``-th move of a playout (``color`` to move); returns it."""
    _refresh(b, m, color, gammas, state, n)
    return _play_drawn(b, m, color, gammas, state, n, adapt)


class PpaWeights(NamedTuple):
    """Playout Policy Adaptation's state for one search, per colour and point."""

    weights: np.ndarray  # the weight w added to the log-gamma (0: the mined gammas as they are)
    bias: np.ndarray  # exp(w)
    mass: np.ndarray  # the probability mass of the current playout's draws
    rate: float  # the learning rate (0: none)


def ppa_weights(points: int, rate: float) -> PpaWeights:
    """A fresh ``PpaWeights`` on ``points`` board points: no weight yet."""
    return PpaWeights(np.zeros((3, points)), np.ones((3, points)), np.zeros((3, points)), float(rate))


@njit(cache=True)
def ppa_update(adapt: PpaWeights, moves: np.ndarray, n: int, color: int, winner: int) -> None:
    """Cazenave's (2015) adaptation after a playout of ``n`` moves (``moves``, the first
    by ``color``) that ``winner`` won: for each move ``x`` of the winner,
    ``w[x] += rate`` and ``w[y] -= rate * exp(w[y]) / sum_z exp(w[z])`` for every move
    ``y`` it could have drawn there (the probabilities of the draw, gathered in the
    mass, under the weights the playout was drawn with); the loser's weights stay.
    Empties the masses for the next playout."""
    weights, bias, mass, rate = adapt.weights, adapt.bias, adapt.mass, adapt.rate
    for i in range(0 if color == winner else 1, n, 2):
        if moves[i] != PASS:
            weights[winner, moves[i]] += rate
    for p in range(weights.shape[1]):
        weights[winner, p] -= rate * mass[winner, p]
        bias[winner, p] = np.exp(weights[winner, p])
    mass[:] = 0.0


@njit(cache=True)
def gamma_playout(b: np.ndarray, m: np.ndarray, color: int, komi: float, moves: np.ndarray,
                  gammas: np.ndarray, adapt: PpaWeights) -> tuple[float, int]:
    """Play gamma-weighted moves to the end, in place (``color`` to move); returns
    the area score (Black minus White) and how many moves were written to
    ``moves`` (for AMAF), as ``mogo_playout`` does. The draws follow ``adapt``'s
    weights too (``ppa_weights(points, 0)``: the gammas alone) and, with a rate,
    adapt them to the winner."""
    size = m[SIZE]
    limit = min(3 * size * size, len(moves))
    state = gamma_state(b, m, gammas)
    first = color
    passes = 0
    n = 0
    while passes < 2 and n < limit:
        p = gamma_move(b, m, color, gammas, state, n, adapt)
        moves[n] = p
        passes = passes + 1 if p == PASS else 0
        n += 1
        color = 3 - color
    score = area_score(b, m, komi)
    if adapt.rate > 0:
        ppa_update(adapt, moves, n, first, BLACK if score > 0 else WHITE)
    return score, n

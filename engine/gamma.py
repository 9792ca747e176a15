"""The gamma playout policy: moves drawn in proportion to their rated strength.

Coulom (2007) plays out with the Bradley-Terry model itself: each legal move is
drawn with probability ``gamma(j) / sum_k gamma(k)``, ``gamma(j)`` the product of
the gammas of its features. Here the features are the tactical ones of
``miner.features`` (the same function as ``mine`` and ``rate``; capture,
extension, atari and ladders, self-atari, 3x3 block with liberties, distances
to the last two moves, MoGo shapes) with the gammas of a ratings table. The
large spatial patterns are left out: matching them at every playout move would
cost more than the playout itself.

Recomputing every feature of every point each move would cost a whole board of
feature reads per move, so each colour keeps ``base[c, p]``, the product of the
gammas of ``p``'s features other than the two distances, and a move marks the
points whose features it can change:

- the 5x5 block around the move and around each captured stone (3x3 blocks and
  the MoGo shapes, which reach two points out, change there);
- the 3x3 block around every stone of a string touching the move or a captured
  stone whose liberties, counted up to 3, changed (and with them the 3x3 block
  codes, the captures, ataris and extensions of the points next to it), or just
  the liberties of such a string whose count up to 3 did not.

A colour to move recomputes the points marked by the last two moves (its
opponent's and its own). Some capture and extension levels also depend on the
previous move (the points next to it, the last liberties of the strings in
atari next to it): those points of the opponent's move before that are
recomputed too, as their last-move levels expire. Two things are left stale on
purpose: ladder readings (a far stone can break a ladder) and the ko flag of the
atari levels. The two distances, which change with every move, are multiplied
in when the move is drawn. Own eyes and illegal points weigh nothing; a point
drawn that turns out illegal (a ko) is struck out and the draw repeated.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from shapemill.engine.rules import (
    COLOR,
    EMPTIES,
    EMPTY,
    HEAD,
    LAST,
    LAST2,
    N_EMPTY,
    NEXT,
    PASS,
    SIZE,
    STRIDE,
    area_score,
    atari_point,
    illegal_reason,
    in_atari,
    is_eye,
    play,
)
from shapemill.miner.features import (
    F_LAST2_DIST,
    F_LAST_DIST,
    FEATURE_LEVELS,
    FEATURES,
    N_FEATURES,
    feature_scratch,
    distance_level,
    libs_up_to_3,
    point_features,
    string_libs3,
)

#: Room for the points whose levels depend on one move as the previous move.
LAST_MOVE_POINTS = 16


def playout_gammas(path: str) -> np.ndarray:
    """``gammas[f, level]``: the gamma of level ``level`` of tactical feature ``f``
    (``FEATURES`` order) in the ratings table at ``path``; 1 where the table has no
    row (level 0, "absent", is always 1). Pattern rows are not read."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from shapemill.patterns.tables import read_table

    table, _ = read_table(path, "ratings", columns=["feature", "value", "gamma"])
    table = table.set_column(0, "feature", table["feature"].cast(pa.string()))
    table = table.filter(pc.not_equal(table["feature"], "pattern"))
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
    """Product of the gammas of ``p``'s features but the two distances; 0 for an
    occupied point, an own eye or an illegal move."""
    if b[COLOR, p] != EMPTY or is_eye(b, m, color, p) or illegal_reason(b, m, color, p) != 0:
        return 0.0
    libs3, mark, work, mwork, moves = scratch
    point_features(b, m, color, p, libs3, mark, work, mwork, moves, levels)
    g = 1.0
    for f in range(N_FEATURES):
        if f != F_LAST_DIST and f != F_LAST2_DIST:
            g *= gammas[f, levels[f]]
    return g


@njit(cache=True)
def _mark(marks: np.ndarray, n: int, stamp: np.ndarray, tick: int, p: int) -> int:
    if stamp[p] != tick:
        stamp[p] = tick
        marks[n] = p
        n += 1
    return n


@njit(cache=True)
def _mark_block(marks: np.ndarray, n: int, stamp: np.ndarray, tick: int, p: int, w: int, r: int) -> int:
    """Mark the on-board points of the (2r+1)x(2r+1) block around ``p``."""
    size = w - 2
    row, col = p // w, p % w
    for y in range(max(1, row - r), min(size, row + r) + 1):
        for x in range(max(1, col - r), min(size, col + r) + 1):
            n = _mark(marks, n, stamp, tick, y * w + x)
    return n


@njit(cache=True)
def _mark_string(b: np.ndarray, marks: np.ndarray, n: int, stamp: np.ndarray, tick: int, h: int,
                 w: int, libs3: np.ndarray, changed: bool) -> int:
    """Refresh the liberty count of the string of ``h`` and mark what it changes.

    When the string ``changed`` (new stones) or its count up to 3 did, that is the
    3x3 block of each stone and the last liberty of each enemy string in atari
    next to it (capturing there is "saving a string in atari" when this one is);
    otherwise only its liberties, whose liberties-after and sizes moved."""
    h = b[HEAD, h]
    old = libs3[h]
    libs3[h] = libs_up_to_3(b, w, h)
    changed = changed or libs3[h] != old
    enemy = 3 - b[COLOR, h]
    s = h
    while True:
        if changed:
            n = _mark_block(marks, n, stamp, tick, s, w, 1)
        for q in (s - 1, s + 1, s - w, s + w):
            if not changed and b[COLOR, q] == EMPTY:
                n = _mark(marks, n, stamp, tick, q)
            elif changed and b[COLOR, q] == enemy and in_atari(b, b[HEAD, q]):
                n = _mark(marks, n, stamp, tick, atari_point(b, b[HEAD, q]))
        s = b[NEXT, s]
        if s == h:
            break
    return n


@njit(cache=True)
def _play_and_mark(b: np.ndarray, m: np.ndarray, color: int, p: int, marks: np.ndarray, stamp: np.ndarray,
                   tick: int, libs3: np.ndarray, captured: np.ndarray) -> int:
    """Play ``color`` at ``p`` and write into ``marks`` the points whose features
    the move may change (see the module docstring); returns how many. Stamps
    ``tick`` and ``tick + 1`` are this move's: captured stones, then marks."""
    if p == PASS:
        play(b, m, color, p)
        return 0
    w = m[STRIDE]
    n_cap = 0
    for q in (p - 1, p + 1, p - w, p + w):  # the stones this move will take
        if b[COLOR, q] == 3 - color and in_atari(b, b[HEAD, q]) and atari_point(b, b[HEAD, q]) == p:
            h = b[HEAD, q]
            s = h
            while True:
                if n_cap < len(captured) and stamp[s] != tick:
                    stamp[s] = tick
                    captured[n_cap] = s
                    n_cap += 1
                s = b[NEXT, s]
                if s == h:
                    break
    play(b, m, color, p)
    tick += 1
    n = _mark_block(marks, 0, stamp, tick, p, w, 2)
    n = _mark_string(b, marks, n, stamp, tick, p, w, libs3, True)
    for q in (p - 1, p + 1, p - w, p + w):
        if b[COLOR, q] == 3 - color:
            n = _mark_string(b, marks, n, stamp, tick, q, w, libs3, False)
    for i in range(n_cap):
        s = captured[i]
        n = _mark_block(marks, n, stamp, tick, s, w, 2)
        for q in (s - 1, s + 1, s - w, s + w):
            if b[COLOR, q] == color:
                n = _mark_string(b, marks, n, stamp, tick, q, w, libs3, False)
    return n


@njit(cache=True)
def _last_move_points(b: np.ndarray, m: np.ndarray, out: np.ndarray) -> int:
    """Into ``out``, the points whose levels depend on the move just played being
    the previous move: its neighbours and the last liberty of each string in atari
    at or next to it; returns how many."""
    p = m[LAST]
    if p == PASS:
        return 0
    w = m[STRIDE]
    n = 0
    for q in (p - 1, p + 1, p - w, p + w):
        out[n] = q
        n += 1
    for q in (p, p - 1, p + 1, p - w, p + w):
        if (b[COLOR, q] == 1 or b[COLOR, q] == 2) and in_atari(b, b[HEAD, q]):
            out[n] = atari_point(b, b[HEAD, q])
            n += 1
    return n


@njit(cache=True)
def _draw(b: np.ndarray, m: np.ndarray, color: int, base: np.ndarray, gammas: np.ndarray,
          weight: np.ndarray) -> int:
    """A move of ``color`` drawn in proportion to its gamma, or PASS when every
    point weighs nothing."""
    w = m[STRIDE]
    last, last2 = m[LAST], m[LAST2]
    n = m[N_EMPTY]
    total = 0.0
    for i in range(n):
        p = b[EMPTIES, i]
        g = base[p]
        if g > 0.0 and last != PASS:
            g *= gammas[F_LAST_DIST, distance_level(p, last, w, 0)]
        if g > 0.0 and last2 != PASS:
            g *= gammas[F_LAST2_DIST, distance_level(p, last2, w, 1)]
        weight[i] = g
        total += g
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


@njit(cache=True)
def gamma_state(b: np.ndarray, m: np.ndarray, gammas: np.ndarray):
    """A playout's memory from the position ``b, m``: feature scratch, each
    colour's ``base`` gammas, the marks of the last two moves and the last-move
    points of the last three."""
    points = b.shape[1]
    scratch = feature_scratch(b, m)
    string_libs3(b, m, scratch[0])
    levels = np.zeros(N_FEATURES, dtype=np.int32)
    base = np.zeros((3, points))
    for c in (1, 2):
        for i in range(m[N_EMPTY]):
            p = b[EMPTIES, i]
            base[c, p] = _base_gamma(b, m, c, p, gammas, scratch, levels)
    marks = np.empty((2, points), dtype=np.int64)
    n_marks = np.zeros(2, dtype=np.int64)
    last = np.empty((3, LAST_MOVE_POINTS), dtype=np.int64)
    n_last = np.zeros(3, dtype=np.int64)
    stamp = np.zeros(points, dtype=np.int64)
    return (scratch, levels, base, marks, n_marks, last, n_last, stamp, np.empty(points, dtype=np.int64),
            np.empty(points))


@njit(cache=True)
def _refresh(b: np.ndarray, m: np.ndarray, color: int, gammas: np.ndarray, state, n: int) -> None:
    """Bring ``color``'s base gammas up to date before the ``n``-th playout move:
    recompute the points the last two moves marked (both slots of ``marks``) and
    the last-move points of the move three back (slot ``n % 3`` of ``last``)."""
    scratch, levels, base, marks, n_marks, last, n_last, stamp, _, _ = state
    tick = 3 * n + 1  # stamps: this one for the refresh, the next two for the move
    for rows, count in ((marks[0], n_marks[0]), (marks[1], n_marks[1]), (last[n % 3], n_last[n % 3])):
        for j in range(count):
            p = rows[j]
            if stamp[p] != tick:
                stamp[p] = tick
                base[color, p] = _base_gamma(b, m, color, p, gammas, scratch, levels)


@njit(cache=True)
def _play_drawn(b: np.ndarray, m: np.ndarray, color: int, gammas: np.ndarray, state, n: int) -> int:
    """Draw the ``n``-th move of a playout by the (refreshed) gammas, play it and
    mark what it changes; returns it."""
    scratch, _, base, marks, n_marks, last, n_last, stamp, captured, weight = state
    p = _draw(b, m, color, base[color], gammas, weight)
    n_marks[n % 2] = _play_and_mark(b, m, color, p, marks[n % 2], stamp, 3 * n + 2, scratch[0], captured)
    n_last[n % 3] = _last_move_points(b, m, last[n % 3])
    return p


@njit(cache=True)
def gamma_move(b: np.ndarray, m: np.ndarray, color: int, gammas: np.ndarray, state, n: int) -> int:
    """Draw and play the ``n``-th move of a playout (``color`` to move); returns it."""
    _refresh(b, m, color, gammas, state, n)
    return _play_drawn(b, m, color, gammas, state, n)


@njit(cache=True)
def gamma_playout(b: np.ndarray, m: np.ndarray, color: int, komi: float, moves: np.ndarray,
                  gammas: np.ndarray) -> tuple[float, int]:
    """Play gamma-weighted moves to the end, in place (``color`` to move); returns
    the area score (Black minus White) and how many moves were written to
    ``moves`` (for AMAF), as ``mogo_playout`` does."""
    size = m[SIZE]
    limit = min(3 * size * size, len(moves))
    state = gamma_state(b, m, gammas)
    passes = 0
    n = 0
    while passes < 2 and n < limit:
        p = gamma_move(b, m, color, gammas, state, n)
        moves[n] = p
        passes = passes + 1 if p == PASS else 0
        n += 1
        color = 3 - color
    return area_score(b, m, komi), n

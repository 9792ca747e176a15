"""Which child a simulation descends to: the bandit and prior formulas of the tree.

The tree lives in flat arrays: ``t[MOVE | FIRST | NCHILD | KNOWN, node]`` (children
are contiguous) and ``f[thread, field, node]``. The statistics (real visits and
wins, AMAF visits and wins) are kept per search thread, each thread writing
only its own slice, and read as their sum over the threads; the prior fields
(virtual visits and wins, prior probability) are written once, at expansion,
in slice 0. Wins of a node count for the player who made its move.

The formulas, their symbols and schedules are in docs/search.md.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .expert import NEAR_LAST_HALF

# Node fields of the float table ``f[thread]``; ``NEAR``: the expert's bonus near the last move.
VISITS, WINS, PVISITS, PWINS, AVISITS, AWINS, PROB, NEAR = range(8)
N_FIELDS = 8
# Node fields of the int table ``t``; ``KNOWN``: 1 once the node's children carry the table's priors.
MOVE, FIRST, NCHILD, KNOWN = range(4)
N_NODE_INTS = 4

#: The bandit formulas (``settings.BANDITS``) by their value at ``Selection.bandit``.
UCB1, TUNED1, TUNED2, AUER_TUNED, UCB_V, AMAF, UCT = range(7)
#: What Algorithm 3's bandits read (``settings.BANDIT_STATS``) by their value at
#: ``Selection.bandit_stats``: ``own``, the seed's ``Wins / Sims`` and ``Sims`` of the move (an
#: unvisited move first); ``virtual``, the prior mode's value and the virtual visits counted in
#: ``n`` (the form before issue 48).
OWN_STATS, VIRTUAL_STATS = range(2)
#: The AMAF weight's schedules (``settings.RAVE_SCHEDULES``) by their value at
#: ``Selection.rave_schedule``: ``silver``, Gelly & Silver's ``an / (an + n + n an / K)``; ``eq1``,
#: MoGo 2008's Eq. 1 with ``alpha(d)`` depending on ``Sims(s, d)`` alone: ``1 - alpha = K / (K + n)``
#: (0 with no AMAF visit).
SILVER_SCHEDULE, EQ1_SCHEDULE = range(2)
#: The ways the offline knowledge enters the score (``settings.PRIOR_MODES``) by their value at
#: ``Selection.prior_mode``.
VIRTUAL_WINS, PROGRESSIVE_BIAS, PUCT, PUCT_C, MOGO = range(5)
#: Eq. 3's ``P(d, N)``: the node's simulations by which the table's probability has
#: given half its weight to the uniform ``1 / k`` (the paper leaves it open; not tuned).
MOGO_P_EQUIV = 1000.0
#: Algorithm 3's floor of the variance of UCB-Tuned.1 and .2.
TUNED_MIN_VARIANCE = 0.001


class Selection(NamedTuple):
    """The selection formula's settings, as the kernels read them (docs/search.md)."""

    bandit: int  # index in BANDITS
    c_ucb: float  # the exploration constant of the bandits (1: Algorithm 3's formulas)
    prior_mode: int  # index in PRIOR_MODES
    c_pb: float  # weight of the progressive-bias, PUCT or Eq. 3 delta term
    rave: bool  # whether AMAF values enter the score
    rave_equiv: float  # Silver's equivalence parameter of the AMAF weight
    fpu: float  # first-play value: the parent's value for the mover less this
    widen: float  # growth base of progressive widening; 0: every child searchable
    expert: bool  # whether MoGo's bonus near the last move (``--expert mogo``) enters the score
    bandit_stats: int  # index in BANDIT_STATS: what ucb1, tuned1, tuned2 and uct read
    rave_schedule: int  # index in RAVE_SCHEDULES: the AMAF weight's schedule


@njit(cache=True)
def stat(f: np.ndarray, field: int, node: int) -> float:
    """A statistic of ``node`` summed over the search threads' slices."""
    s = 0.0
    for k in range(f.shape[0]):
        s += f[k, field, node]
    return s


@njit(cache=True)
def silver_beta(n: float, an: float, equiv: float) -> float:
    """Weight of the AMAF value beside ``n`` real visits: ``an / (an + n + n an / equiv)``
    (Silver's minimum-error schedule, 1 with no real visit, going to 0)."""
    if an <= 0:
        return 0.0
    return an / (an + n + n * an / equiv)


@njit(cache=True)
def amaf_weight(n: float, an: float, sel: Selection) -> float:
    """The AMAF value's weight ``1 - alpha`` beside ``n`` visits and ``an`` AMAF visits, by
    ``sel.rave_schedule`` (``K = sel.rave_equiv``); 0 without RAVE or AMAF visits."""
    if not sel.rave or an <= 0:
        return 0.0
    if sel.rave_schedule == EQ1_SCHEDULE:
        return sel.rave_equiv / (sel.rave_equiv + n)
    return silver_beta(n, an, sel.rave_equiv)


@njit(cache=True)
def child_score(node: int, c: int, t: np.ndarray, f: np.ndarray, sel: Selection) -> float:
    """The score by which the child ``c`` of ``node`` is chosen (docs/search.md)."""
    parent_visits = stat(f, VISITS, node)
    n, w = stat(f, VISITS, c), stat(f, WINS, c)
    an, aw = stat(f, AVISITS, c), stat(f, AWINS, c)
    pn, pw, prob = f[0, PVISITS, c], f[0, PWINS, c], f[0, PROB, c]
    heuristic = pw / pn
    mode = sel.prior_mode
    bonus = 0.0
    bandit = sel.bandit
    own = sel.bandit_stats == OWN_STATS and (bandit == UCB1 or bandit == TUNED1 or bandit == TUNED2 or bandit == UCT)
    if own and n <= 0:  # Algorithm 3 reads the move's own Wins / Sims: an unvisited move is tried first
        return math.inf
    if mode == VIRTUAL_WINS:  # the prior as virtual visits and wins, then RAVE
        n_b = n + pn
        value = (w + pw) / n_b
        beta = amaf_weight(n_b, an, sel)
        if beta > 0:
            value = (1 - beta) * value + beta * aw / an
    elif mode == MOGO:  # Eq. 3: alpha p + beta p_amaf + gamma H + delta P(d, N)
        n_b = n + pn
        gamma = pn / (pn + n)
        b = amaf_weight(n, an, sel)
        value = gamma * heuristic
        if n > 0:
            value += (1 - gamma) * (1 - b) * w / n
        if b > 0:
            value += (1 - gamma) * b * aw / an
        p_dn = (MOGO_P_EQUIV * prob + parent_visits / t[NCHILD, node]) / (MOGO_P_EQUIV + parent_visits)
        bonus = sel.c_pb / math.sqrt(1 + parent_visits) * p_dn
    else:  # real values, with a first-play value while the child has none
        n_b = max(n, 1.0)
        beta = amaf_weight(n, an, sel)
        if n > 0:
            value = (1 - beta) * w / n + beta * aw / an if beta > 0 else w / n
        elif beta > 0:
            value = aw / an
        else:
            parent_value = stat(f, WINS, node) / parent_visits if parent_visits > 0 else 0.5
            value = 1 - parent_value - sel.fpu
        if mode == PROGRESSIVE_BIAS:
            bonus = sel.c_pb * heuristic / (n + 1)
        elif mode == PUCT:
            bonus = sel.c_pb * prob / (1 + n)
        else:
            bonus = sel.c_pb * prob * math.sqrt(parent_visits) / (1 + n)
    if sel.expert:
        bonus += f[0, NEAR, c] * NEAR_LAST_HALF / (NEAR_LAST_HALF + parent_visits)
    if own:  # p = Wins / Sims and n = Sims of the move, the prior mode's bonus beside
        value, n_b = w / n, n
    return value + bonus + exploration(value, n_b, parent_visits, sel)


@njit(cache=True)
def exploration(value: float, n_b: float, parent_visits: float, sel: Selection) -> float:
    """The bandit's exploration term for a child of value ``value`` seen ``n_b`` times
    (prior visits included where the prior mode counts them) under a parent of
    ``parent_visits`` visits, by ``sel.bandit`` (one of ``BANDITS``; 0 for none)."""
    log_n = math.log(parent_visits + 1.0)
    bandit = sel.bandit
    c_ucb = sel.c_ucb
    explore = 0.0
    if bandit == UCB1 or bandit == TUNED1 or bandit == TUNED2 or bandit == UCT:  # Algorithm 3; course 004
        log_seed = math.log(max(parent_visits, 1.0))
        var = max(TUNED_MIN_VARIANCE, value * (1 - value))
        if bandit == UCB1:
            explore = c_ucb * math.sqrt(2 * log_seed / n_b)
        elif bandit == UCT:
            explore = c_ucb * math.sqrt(log_seed / n_b)
        elif bandit == TUNED1:
            explore = c_ucb * math.sqrt(var * log_seed / n_b)
        else:
            explore = c_ucb * math.sqrt(var * log_seed / n_b + log_seed / n_b)
    elif bandit == AUER_TUNED:
        var = value - value * value + math.sqrt(2 * log_n / n_b)
        explore = c_ucb * math.sqrt(log_n / n_b * min(0.25, var))
    elif bandit == UCB_V:
        var = max(0.0, value * (1 - value))
        explore = math.sqrt(2 * c_ucb * var * log_n / n_b) + 3 * c_ucb * log_n / n_b
    return explore


@njit(cache=True)
def select_child(node: int, t: np.ndarray, f: np.ndarray, sel: Selection) -> int:
    """The searchable child of ``node`` with the best score (the first of equals);
    -1 when ``node`` has no children yet."""
    first, k = t[FIRST, node], t[NCHILD, node]
    if first < 0 or k == 0:
        return -1
    if sel.widen > 0:  # progressive widening: K(N) grows with log N
        parent_n = stat(f, VISITS, node) + 1.0
        k = min(k, 2 + int(math.log(parent_n) / math.log(sel.widen)))
    best, best_score = first, -1e300
    for c in range(first, first + k):
        s = child_score(node, c, t, f, sel)
        if s > best_score:
            best, best_score = c, s
    return best

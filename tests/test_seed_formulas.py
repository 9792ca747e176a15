"""Every seed option of the tree's selection computes its seed's formula: the engine's
score of a child against the formula evaluated in plain Python (tests/seed_oracles.py,
written from the seeds' text alone: MoGo 2008's Algorithm 3, Eq. 1 and Eq. 3, course
004's UCT, Chaslot et al.'s progressive bias, the AlphaGo lecture's and the published
PUCT; tests/oracles.py for Auer's and Audibert's bandits) on several (wins, visits, AMAF,
virtual results, prior) tuples and parent visits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracles import auer_tuned, ucb_v
from seed_oracles import (
    eq1,
    eq1_alpha,
    eq3,
    eq3_constraints_hold,
    progressive_bias,
    puct_lecture,
    puct_published,
    silver_schedule,
    ucb1,
    ucb_tuned1,
    ucb_tuned2,
    uct,
)
from shapemill.engine.search.search import Search, SearchConfig
from shapemill.engine.search.selection import (
    AVISITS,
    AWINS,
    FIRST,
    NCHILD,
    N_FIELDS,
    N_NODE_INTS,
    PROB,
    PVISITS,
    PWINS,
    VISITS,
    WINS,
    child_score,
)

EQUIV = 100.0  # rave_equiv of these tests: small, so that the AMAF weight is neither 0 nor 1
FPU = 0.1

# (wins, visits, AMAF wins, AMAF visits, virtual wins, virtual visits, prior probability)
CHILDREN = [
    (36, 60, 40, 80, 5, 10, 0.30),  # well explored
    (3, 4, 16, 20, 25, 30, 0.45),  # few visits, liked by AMAF and by the prior
    (0, 1, 0, 3, 5, 10, 0.05),  # one lost visit
    (9, 10, 2, 9, 5, 10, 0.20),  # ten visits, nine won
]
UNVISITED = (0, 0, 0, 0, 5, 10, 0.0)  # nothing known but the virtual results
#: The parent's (visits, wins for the player who moved into it).
PARENTS = [(100, 40), (1000, 700), (3, 1)]


def engine_scores(children, parent: tuple[float, float], **config) -> list[float]:
    """The engine's scores of ``children`` (tuples as ``CHILDREN``) under a node with
    ``parent`` (visits, wins), with the search configured by ``config``."""
    k = len(children)
    t = np.zeros((N_NODE_INTS, k + 1), dtype=np.int64)
    t[FIRST] = -1
    t[FIRST, 0], t[NCHILD, 0] = 1, k
    f = np.zeros((1, N_FIELDS, k + 1))
    f[0, VISITS, 0], f[0, WINS, 0] = parent
    for c, (w, n, aw, an, pw, pn, prob) in enumerate(children, start=1):
        f[0, WINS, c], f[0, VISITS, c], f[0, AWINS, c], f[0, AVISITS, c] = w, n, aw, an
        f[0, PWINS, c], f[0, PVISITS, c], f[0, PROB, c] = pw, pn, prob
    sel, _ = Search(SearchConfig(rave_equiv=EQUIV, fpu=FPU, **config)).records(9, tree_prior=False)
    return [child_score(0, c, t, f, sel) for c in range(1, k + 1)]


def first_play(parent: tuple[float, float]) -> float:
    """The value of a child with no real or AMAF visit: the parent's value for the mover, less FPU."""
    return 1 - parent[1] / parent[0] - FPU


@pytest.mark.parametrize("parent", PARENTS)
@pytest.mark.parametrize("bandit, formula", [("ucb1", ucb1), ("tuned1", ucb_tuned1), ("tuned2", ucb_tuned2),
                                             ("uct", uct)])
def test_algorithm_3_bandits_read_the_moves_own_wins_and_sims(bandit, formula, parent):
    # The seed's p = Wins / Sims and n = Sims of the move: the virtual results do not enter;
    # a move never simulated is tried first. uct with K = 0.4, course 004's.
    children = CHILDREN + [UNVISITED]
    expected = [formula(w / n, n, parent[0]) if n else math.inf for w, n, _, _, _, _, _ in children]
    got = engine_scores(children, parent, bandit=bandit, c_ucb=0.4 if bandit == "uct" else 1.0, rave=False)
    assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("parent", PARENTS)
@pytest.mark.parametrize("bandit, formula", [("ucb1", ucb1), ("tuned1", ucb_tuned1), ("tuned2", ucb_tuned2)])
def test_bandit_stats_virtual_feeds_the_prior_visits(bandit, formula, parent):
    # The form before issue 48, under --bandit-stats virtual: p and n count the virtual results.
    children = CHILDREN + [UNVISITED]
    expected = [formula((w + pw) / (n + pn), n + pn, parent[0]) for w, n, _, _, pw, pn, _ in children]
    got = engine_scores(children, parent, bandit=bandit, c_ucb=1.0, rave=False, bandit_stats="virtual")
    assert got == pytest.approx(expected, rel=1e-12)


def test_ucb1_by_hand():
    # 36 wins of 60 simulations under a node of 100: 0.6 + sqrt(2 ln 100 / 60) (seed_oracles.HAND)
    (got,) = engine_scores([CHILDREN[0]], (100, 40), bandit="ucb1", c_ucb=1.0, rave=False)
    assert got == pytest.approx(0.991798, abs=5e-7)


def test_tuned_variance_is_floored_at_a_thousandth():
    # all won: p (1 - p) = 0, so V = 0.001 and UCB-Tuned.1 adds sqrt(0.001 ln N / n)
    child = (20, 20, 0, 0, 10, 10, 0.1)
    (got,) = engine_scores([child], (100, 40), bandit="tuned1", c_ucb=1.0, rave=False)
    assert got == pytest.approx(1.015174, abs=5e-7)


@pytest.mark.parametrize("parent", PARENTS)
@pytest.mark.parametrize("c", [0.7, 1.0])
@pytest.mark.parametrize("bandit, formula", [("auer-tuned", auer_tuned), ("ucb-v", ucb_v)])
def test_the_earlier_formulas_keep_their_own_names(bandit, formula, c, parent):
    children = CHILDREN + [UNVISITED]
    expected = [formula((w + pw) / (n + pn), n + pn, parent[0], c) for w, n, _, _, pw, pn, _ in children]
    assert engine_scores(children, parent, bandit=bandit, c_ucb=c, rave=False) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("parent", PARENTS)
def test_amaf_bandit_is_eq1_with_silvers_weight(parent):
    # The default: alpha(d) = 1 - beta, Silver's beta of n + pn visits and an AMAF ones
    # (4 b^2 = 1 / rave_equiv); no exploration term.
    children = CHILDREN + [UNVISITED]
    expected = []
    for w, n, aw, an, pw, pn, _ in children:
        alpha = 1 - silver_schedule(n + pn, an, 1 / EQUIV)
        expected.append(eq1((w + pw) / (n + pn), aw / an if an else 0.0, alpha))
    assert engine_scores(children, parent, bandit="amaf") == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("parent", PARENTS)
def test_rave_schedule_eq1_is_mogo_2008s_alpha_of_sims_alone(parent):
    # --rave-schedule eq1 with the prior out of the value (progressive bias of weight 0):
    # Eq. 1 with alpha(d) = Sims / (Sims + K), whatever the AMAF count.
    children = CHILDREN
    expected = [eq1(w / n, aw / an, eq1_alpha(n, EQUIV)) for w, n, aw, an, _, _, _ in children]
    got = engine_scores(children, parent, bandit="amaf", rave_schedule="eq1", prior_mode="progressive-bias",
                        c_pb=0.0)
    assert got == pytest.approx(expected, rel=1e-12)
    # the AMAF count does not move alpha
    more_amaf = [(w, n, 2 * aw, 2 * an, pw, pn, p) for w, n, aw, an, pw, pn, p in children]
    assert engine_scores(more_amaf, parent, bandit="amaf", rave_schedule="eq1", prior_mode="progressive-bias",
                         c_pb=0.0) == pytest.approx(got, rel=1e-12)


def eq3_weights(n: float, pn: float = 10.0, an: float = 50.0, **config) -> tuple[float, float, float]:
    """The engine's (alpha, beta, gamma) of Eq. 3 for a child of ``n`` simulations, read off
    its score on unit inputs: p = 1 alone gives alpha, p_amaf = 1 beta, H = 1 gamma (delta 0)."""
    def score(w, aw, pw):
        child = (w, n, aw, an, pw, pn, 0.2)
        return engine_scores([child], (max(n, 1), 0), prior_mode="mogo", c_pb=0.0, **config)[0]
    return score(n, 0, 0), score(0, an, 0), score(0, 0, pn)


@pytest.mark.parametrize("schedule", ["silver", "eq1"])
def test_eq3_constraints(schedule):
    # alpha + beta + gamma = 1, gamma(0) = 1, beta >> alpha for few simulations, alpha -> 1
    assert eq3_constraints_hold(lambda n: eq3_weights(n, rave_schedule=schedule))


@pytest.mark.parametrize("parent", PARENTS)
@pytest.mark.parametrize("c_pb", [1.0, 2.5])
def test_mogo_prior_mode_is_eq3(parent, c_pb):
    # Eq. 3 with the schedules docs/search.md gives (the paper leaves them open): gamma = pn /
    # (pn + n), beta = (1 - gamma) b(n) (Silver's), alpha = (1 - gamma)(1 - b(n)), delta = c_pb /
    # sqrt(1 + N), P(d, N) = (1000 P + N / k) / (1000 + N).
    children = CHILDREN + [UNVISITED]
    k, big_n = len(children), parent[0]
    expected = []
    for w, n, aw, an, pw, pn, prob in children:
        gamma = pn / (pn + n)
        b = silver_schedule(n, an, 1 / EQUIV)
        p_dn = (1000 * prob + big_n / k) / (1000 + big_n)
        expected.append(eq3(w / n if n else 0.0, aw / an if an else 0.0, pw / pn, p_dn, (1 - gamma) * (1 - b),
                            (1 - gamma) * b, gamma, c_pb / math.sqrt(1 + big_n)))
    assert engine_scores(children, parent, prior_mode="mogo", c_pb=c_pb) == pytest.approx(expected, rel=1e-12)


def test_eq3_delta_depends_on_the_nodes_simulations_only_and_goes_to_zero():
    # Two children alike but for their own visits: their delta terms are equal, since
    # delta P(d, N) reads the node's N, never the child's n.
    a = (5, 10, 0, 0, 5, 10, 0.4)
    b = (50, 100, 0, 0, 5, 10, 0.4)
    for parent in ((200, 100), (20000, 10000)):
        with_delta = engine_scores([a, b], parent, prior_mode="mogo", c_pb=1.0)
        without = engine_scores([a, b], parent, prior_mode="mogo", c_pb=0.0)
        assert with_delta[0] - without[0] == pytest.approx(with_delta[1] - without[1], rel=1e-12)
    # and the term fades: a thousandth of its size at N = 0 by N ~ 10^6
    small = engine_scores([a], (10**6, 0), prior_mode="mogo", c_pb=1.0)[0] - \
        engine_scores([a], (10**6, 0), prior_mode="mogo", c_pb=0.0)[0]
    assert 0 < small < 1e-3


def test_eq3_prior_goes_to_a_constant_over_the_siblings():
    # P(d, N) -> 1/k: at a huge N two siblings of priors 0.9 and 0.1 get the same delta term.
    a, b = (5, 10, 0, 0, 5, 10, 0.9), (5, 10, 0, 0, 5, 10, 0.1)
    for parent, close in (((10, 5), False), ((10**9, 0), True)):
        s = engine_scores([a, b], parent, prior_mode="mogo", c_pb=1.0)
        assert (abs(s[0] - s[1]) < 1e-9) == close


@pytest.mark.parametrize("parent", PARENTS)
def test_progressive_bias_is_h_over_one_plus_n(parent):
    children = CHILDREN + [UNVISITED]
    expected = [progressive_bias(w / n if n else first_play(parent), pw / pn, n, 0.5)
                for w, n, _, _, pw, pn, _ in children]
    got = engine_scores(children, parent, prior_mode="progressive-bias", c_pb=0.5, rave=False, bandit="ucb1",
                        c_ucb=0.0, bandit_stats="virtual")
    assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("parent", PARENTS)
def test_puct_is_the_lectures_q_plus_p_over_one_plus_n(parent):
    children = CHILDREN + [UNVISITED]
    expected = [puct_lecture(w / n if n else first_play(parent), prob, n) for w, n, _, _, _, _, prob in children]
    got = engine_scores(children, parent, prior_mode="puct", rave=False, bandit="ucb1",
                        c_ucb=0.0, bandit_stats="virtual")
    assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("parent", PARENTS)
def test_puct_c_is_the_published_form(parent):
    children = CHILDREN + [UNVISITED]
    expected = [puct_published(w / n if n else first_play(parent), prob, n, parent[0], 1.5)
                for w, n, _, _, _, _, prob in children]
    got = engine_scores(children, parent, prior_mode="puct-c", c_pb=1.5, rave=False, bandit="ucb1",
                        c_ucb=0.0, bandit_stats="virtual")
    assert got == pytest.approx(expected, rel=1e-12)


def test_puct_by_hand():
    # Q = 36 / 60 and P = 0.3 after 60 visits: 0.6 + 0.3 / 61, whatever the parent's visits
    for parent in PARENTS:
        (got,) = engine_scores([CHILDREN[0]], parent, prior_mode="puct", rave=False, bandit="ucb1",
                        c_ucb=0.0, bandit_stats="virtual")
        assert got == pytest.approx(0.6 + 0.3 / 61, rel=1e-12)

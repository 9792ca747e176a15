"""The selection formulas against scores computed by hand on a three-child tree."""

from __future__ import annotations

import math

import numpy as np
import pytest
from shapemill.engine.search import Search, SearchConfig
from shapemill.engine.search.selection import (
    AVISITS,
    AWINS,
    FIRST,
    NCHILD,
    PROB,
    PVISITS,
    PWINS,
    VISITS,
    WINS,
    child_score,
    select_child,
)

def tiny_tree(threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Root 0 (100 visits, 40 wins for the player who moved into it, so 0.6 for
    the children's mover) and its children 1, 2, 3:
    1: 60 visits, 36 wins, AMAF 40 / 80, virtual 5 / 10, P 0.3 -- well explored;
    2: unvisited, AMAF 16 / 20, virtual 25 / 30, P 0.7       -- liked by AMAF and prior;
    3: unvisited, no AMAF, virtual 5 / 10, P 0.0             -- nothing known.
    With several threads the statistics are split between their slices."""
    t = np.zeros((3, 4), dtype=np.int64)
    t[FIRST] = -1
    t[FIRST, 0], t[NCHILD, 0] = 1, 3
    f = np.zeros((threads, 7, 4))
    stats = {0: (100, 40, 0, 0), 1: (60, 36, 80, 40), 2: (0, 0, 20, 16), 3: (0, 0, 0, 0)}
    for node, (n, w, an, aw) in stats.items():
        for k, share in enumerate(np.full(threads, 1 / threads)):
            f[k, VISITS, node], f[k, WINS, node] = n * share, w * share
            f[k, AVISITS, node], f[k, AWINS, node] = an * share, aw * share
    for node, (pn, pw, p) in {1: (10, 5, 0.3), 2: (30, 25, 0.7), 3: (10, 5, 0.0)}.items():
        f[0, PVISITS, node], f[0, PWINS, node], f[0, PROB, node] = pn, pw, p
    return t, f


def scores(t, f, **config) -> list[float]:
    sel, _ = Search(SearchConfig(rave_equiv=100.0, **config)).records(9, tree_prior=False)
    return [child_score(0, c, t, f, sel) for c in (1, 2, 3)]


def chosen(t, f, **config) -> int:
    return select_child(0, t, f, Search(SearchConfig(rave_equiv=100.0, **config)).records(9, tree_prior=False)[0])


def test_virtual_wins_mix_the_prior_into_q_then_rave():
    t, f = tiny_tree()
    b1 = 80 / (80 + 70 + 70 * 80 / 100)  # Silver's beta with n = 60 real + 10 virtual visits
    b2 = 20 / (20 + 30 + 30 * 20 / 100)
    expected = [(1 - b1) * 41 / 70 + b1 * 0.5, (1 - b2) * 25 / 30 + b2 * 0.8, 0.5]
    assert np.allclose(scores(t, f, prior_mode="virtual-wins"), expected)
    assert chosen(t, f, prior_mode="virtual-wins") == 2


def test_mogo_eq3_weights_sum_to_one_and_follow_their_schedules():
    t, f = tiny_tree()
    gamma1 = 10 / (10 + 60)  # H's weight: 1 at n = 0, fading as real visits come
    b1 = 80 / (80 + 60 + 60 * 80 / 100)  # beta's share of what H leaves
    alpha1, beta1 = (1 - gamma1) * (1 - b1), (1 - gamma1) * b1
    assert math.isclose(alpha1 + beta1 + gamma1, 1) and beta1 < alpha1  # 60 visits: p already leads
    delta = 2.0 / math.sqrt(101)  # c_pb / sqrt(1 + N): the node's 100 visits, the same for every child

    def p_dn(p):  # the table's P giving way to 1/3 as the node's visits pass MOGO_P_EQUIV (1000)
        return (1000 * p + 100 / 3) / (1000 + 100)

    s1 = alpha1 * 36 / 60 + beta1 * 40 / 80 + gamma1 * 5 / 10 + delta * p_dn(0.3)
    s2 = 1.0 * 25 / 30 + delta * p_dn(0.7)  # n = 0: gamma = 1, only H and the delta term
    s3 = 5 / 10 + delta * p_dn(0.0)
    assert np.allclose(scores(t, f, prior_mode="mogo", c_pb=2.0), [s1, s2, s3])
    assert chosen(t, f, prior_mode="mogo", c_pb=2.0) == 2


def test_mogo_beta_dominates_alpha_for_few_visits():
    t, f = tiny_tree()
    f[0, VISITS, 1], f[0, WINS, 1] = 2, 0  # two real losses, 80 AMAF visits at 0.5
    gamma = 10 / 12
    b = 80 / (80 + 2 + 2 * 80 / 100)
    alpha, beta = (1 - gamma) * (1 - b), (1 - gamma) * b
    assert beta > 20 * alpha
    expected = alpha * 0 + beta * 0.5 + gamma * 0.5 + (1000 * 0.3 + 100 / 3) / 1100 / math.sqrt(101)
    assert math.isclose(scores(t, f, prior_mode="mogo")[0], expected)


def test_progressive_bias_adds_h_over_n_plus_one_and_unvisited_take_the_first_play_value():
    t, f = tiny_tree()
    b1 = 80 / (80 + 60 + 60 * 80 / 100)
    s1 = (1 - b1) * 0.6 + b1 * 0.5 + 0.5 * (5 / 10) / 61
    s2 = 0.8 + 0.5 * (25 / 30) / 1  # unvisited, AMAF known: the AMAF value
    s3 = (1 - 0.4 - 0.1) + 0.5 * (5 / 10) / 1  # first-play value: 1 - parent's 0.4, less fpu
    assert np.allclose(scores(t, f, prior_mode="progressive-bias", c_pb=0.5, fpu=0.1), [s1, s2, s3])


def test_puct_c_is_q_plus_c_p_sqrt_n_over_one_plus_n():
    t, f = tiny_tree()
    s1 = 0.6 + 1.5 * 0.3 * 10 / 61
    s2 = (1 - 0.4 - 0.25) + 1.5 * 0.7 * 10 / 1
    s3 = (1 - 0.4 - 0.25) + 0.0
    assert np.allclose(scores(t, f, prior_mode="puct-c", rave=False, bandit="ucb1", c_ucb=0.0, bandit_stats="virtual",
                              c_pb=1.5, fpu=0.25), [s1, s2, s3])
    # with a tiny c the visited child's Q beats the first-play value
    assert chosen(t, f, prior_mode="puct-c", rave=False, bandit="ucb1", c_ucb=0.0, bandit_stats="virtual", c_pb=0.01,
                  fpu=0.25) == 1


#: Scores of the three children worked by hand (c = 0.7; Q with the virtual wins 41/70,
#: 25/30, 5/10 over m = 70, 30, 10 visits). MoGo 2008's Algorithm 3 fed Q and m (the form of
#: --bandit-stats virtual) with log N = ln 100 = 4.60517 and V = max(0.001, Q (1 - Q)): UCB1 Q + c sqrt(2 log N / m), UCB-Tuned.1
#: Q + c sqrt(V log N / m), UCB-Tuned.2 Q + c sqrt(V log N / m + log N / m). With
#: L = ln 101 = 4.61512: Auer's UCB1-Tuned Q + c sqrt(L / m min(1/4, Q - Q^2 + sqrt(2 L / m)));
#: UCB-V (Audibert et al. 2007) Q + sqrt(2 c Q (1 - Q) L / m) + 3 c L / m; amaf: no
#: exploration term, Q mixed with the AMAF values 40/80 and 16/20 by beta = 80/206, 20/56.
HAND_SCORES = {
    "ucb1": [0.839628, 1.221194, 1.171794],
    "tuned1": [0.674158, 0.935543, 0.737515],
    "tuned2": [0.785860, 1.126019, 1.031099],
    "auer-tuned": [0.675583, 0.970611, 0.737771],
    "ucb-v": [0.873826, 1.329345, 1.871082],
    "amaf": [0.552427, 0.821429, 0.5],
}


@pytest.mark.parametrize("bandit", ["ucb1", "tuned1", "tuned2", "auer-tuned", "ucb-v", "amaf"])
def test_bandit_exploration_terms(bandit):
    t, f = tiny_tree()
    got = scores(t, f, bandit=bandit, c_ucb=0.7, rave=bandit == "amaf", bandit_stats="virtual")
    assert np.allclose(got, HAND_SCORES[bandit], atol=1e-6)


def test_exploration_picks_the_least_visited_when_large():
    t, f = tiny_tree()
    assert chosen(t, f, bandit="ucb1", c_ucb=100.0, rave=False, bandit_stats="virtual") == 3  # 10 virtual visits
    assert chosen(t, f, bandit="ucb1", c_ucb=0.0, rave=False, bandit_stats="virtual") == 2  # best Q: 25 / 30


def test_statistics_of_several_threads_add_up():
    one, split = tiny_tree(1), tiny_tree(2)
    for mode in ("virtual-wins", "progressive-bias", "puct", "puct-c", "mogo"):
        assert np.allclose(scores(*one, prior_mode=mode), scores(*split, prior_mode=mode))


def test_a_leaf_has_no_child_to_select():
    t, f = tiny_tree()
    assert select_child(1, t, f, Search(SearchConfig()).records(9, tree_prior=False)[0]) == -1


def test_amaf_bandit_needs_rave():
    with pytest.raises(ValueError, match="RAVE"):
        Search(SearchConfig(bandit="amaf", rave=False))


def test_prior_n_is_160_on_19x19_and_in_proportion_to_the_points_elsewhere():
    def prior_n(size: int, **config) -> float:
        return Search(SearchConfig(**config)).records(size, tree_prior=True)[1].prior_n

    assert prior_n(19) == 160.0
    assert prior_n(9) == pytest.approx(160.0 * 81 / 361)
    assert prior_n(9, prior_n=50.0) == 50.0
    assert prior_n(19, prior_mode="puct") == prior_n(19, prior_mode="puct-c") == 0.0

"""Bradley-Terry ratings of move features by minorization-maximization (Coulom 2007).

Each position is a competition among its candidate moves; a move's strength is the
product of the gammas of its features (its *team*), and the move played wins with
probability ``strength / sum of the strengths of all candidates``. Coulom's MM
updates one feature group at a time (features of one group never share a team, so
the update of all of a group's gammas at once is a valid minorization step):

    gamma_i <- (W_i + 1) / (sum_j C_ij / E_j + 2 / (gamma_i + 1))

``W_i`` is the number of wins of teams holding ``i``, ``E_j`` the total strength of
position ``j`` and ``C_ij`` the strength of ``i``'s teammates there. The ``+ 1`` and
``2 / (gamma_i + 1)`` are Coulom's prior, one virtual win and one virtual loss
against a gamma of 1, which keeps every gamma finite and positive (a feature never
played gets a low gamma, not zero). The log-posterior never decreases.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from shapemill.miner.teams import Teams


@njit(cache=True)
def team_strengths(pos_start, cand_start, feats, gamma, strength, total) -> None:
    """Strength of every candidate and total strength of every position."""
    for j in range(len(pos_start) - 1):
        e = 0.0
        for c in range(pos_start[j], pos_start[j + 1]):
            s = 1.0
            for k in range(cand_start[c], cand_start[c + 1]):
                s *= gamma[feats[k]]
            strength[c] = s
            e += s
        total[j] = e


@njit(cache=True)
def wins(pos_start, cand_start, feats, chosen, n_features) -> np.ndarray:
    """How often a team holding each feature was the move played."""
    w = np.zeros(n_features)
    for j in range(len(chosen)):
        c = pos_start[j] + chosen[j]
        for k in range(cand_start[c], cand_start[c + 1]):
            w[feats[k]] += 1
    return w


@njit(cache=True)
def _group_denominators(pos_start, cand_start, feats, gamma, group, g, strength, total, denom) -> None:
    denom[:] = 0.0
    for j in range(len(pos_start) - 1):
        inv = 1.0 / total[j]
        for c in range(pos_start[j], pos_start[j + 1]):
            for k in range(cand_start[c], cand_start[c + 1]):
                f = feats[k]
                if group[f] == g:
                    denom[f] += strength[c] / gamma[f] * inv


@njit(cache=True)
def log_posterior(pos_start, chosen, gamma, strength, total, prior) -> tuple[float, float]:
    """(log-likelihood of the moves played, the same plus the prior's log-density)."""
    ll = 0.0
    for j in range(len(chosen)):
        ll += np.log(strength[pos_start[j] + chosen[j]] / total[j])
    lp = ll
    if prior:
        for i in range(len(gamma)):
            lp += np.log(gamma[i]) - 2.0 * np.log(1.0 + gamma[i])
    return ll, lp


@njit(cache=True)
def mm_iteration(pos_start, cand_start, feats, chosen, gamma, group, n_groups, w, prior, strength, total, denom) -> None:
    """One MM sweep: every feature group updated in turn."""
    for g in range(n_groups):
        team_strengths(pos_start, cand_start, feats, gamma, strength, total)
        _group_denominators(pos_start, cand_start, feats, gamma, group, g, strength, total, denom)
        for i in range(len(gamma)):
            if group[i] != g:
                continue
            if prior:
                gamma[i] = (w[i] + 1.0) / (denom[i] + 2.0 / (gamma[i] + 1.0))
            elif denom[i] > 0:
                gamma[i] = w[i] / denom[i]


@njit(cache=True)
def fisher_information(pos_start, cand_start, feats, strength, total, n_features) -> np.ndarray:
    """Observed information of each log-gamma: sum over positions of p (1 - p), p the
    share of the position's strength held by teams with the feature."""
    info = np.zeros(n_features)
    share = np.zeros(n_features)
    for j in range(len(pos_start) - 1):
        for c in range(pos_start[j], pos_start[j + 1]):
            for k in range(cand_start[c], cand_start[c + 1]):
                share[feats[k]] += strength[c] / total[j]
        for c in range(pos_start[j], pos_start[j + 1]):
            for k in range(cand_start[c], cand_start[c + 1]):
                p = share[feats[k]]
                if p > 0:
                    info[feats[k]] += p * (1 - p)
                    share[feats[k]] = 0.0
    return info


@dataclass
class Fit:
    """A fitted model: gammas, their 95% intervals and the trace of the fit."""

    gamma: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    seen: np.ndarray
    played: np.ndarray
    objective: list[float]  # log-posterior per position after each sweep
    seconds_per_iteration: float


def fit(
    teams: Teams, group: np.ndarray, max_iter: int = 100, tol: float = 1e-4, prior: bool = True,
    report=None,
) -> Fit:
    """Fit the gammas of ``len(group)`` features on ``teams`` by MM.

    The objective is the log-likelihood of the moves played plus, with the prior,
    that of the virtual games: MM never lets it decrease. Stops after ``max_iter``
    sweeps or when it gains less than ``tol`` per position. ``report(iteration,
    objective_per_position, data_ll_per_position, seconds)`` is called after every
    sweep. ``prior=False`` gives the plain maximum-likelihood fit.
    """
    import time

    n = len(group)
    gamma = np.ones(n)
    strength = np.empty(len(teams.cand_start) - 1)
    total = np.empty(teams.n_positions)
    denom = np.empty(n)
    w = wins(teams.pos_start, teams.cand_start, teams.feats, teams.chosen, n)
    n_groups = int(group.max()) + 1 if n else 0
    trace: list[float] = []
    spent = 0.0
    last = -np.inf
    for it in range(max_iter):
        start = time.perf_counter()
        mm_iteration(teams.pos_start, teams.cand_start, teams.feats, teams.chosen, gamma, group, n_groups, w, prior, strength, total, denom)
        team_strengths(teams.pos_start, teams.cand_start, teams.feats, gamma, strength, total)
        ll, lp = log_posterior(teams.pos_start, teams.chosen, gamma, strength, total, prior)
        spent += time.perf_counter() - start
        per_position = lp / max(1, teams.n_positions)
        trace.append(per_position)
        if report:
            report(it + 1, per_position, ll / max(1, teams.n_positions), spent / (it + 1))
        if per_position - last < tol:
            break
        last = per_position
    info = fisher_information(teams.pos_start, teams.cand_start, teams.feats, strength, total, n)
    if prior:
        info += 2 * gamma / (1 + gamma) ** 2
    half = 1.96 / np.sqrt(np.maximum(info, 1e-12))
    seen = np.bincount(teams.feats, minlength=n).astype(np.int64)
    return Fit(
        gamma=gamma,
        ci_low=gamma * np.exp(-half),
        ci_high=gamma * np.exp(half),
        seen=seen,
        played=w.astype(np.int64),
        objective=trace,
        seconds_per_iteration=spent / max(1, len(trace)),
    )

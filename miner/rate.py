"""Bradley-Terry ratings of move features by minorization-maximization (Coulom 2007).

Each position ``j`` is a competition among its candidate moves; a move's strength is
the product of the gammas of its features (its *team*), and the move played wins
with probability ``strength / E_j``, ``E_j`` the sum of the strengths of all
candidates. With Coulom's prior (one virtual win and one virtual loss of every
feature against a gamma of 1) the objective is

    L(gamma) = sum_j log(strength of the move played / E_j)
               + sum_i (log gamma_i - 2 log(1 + gamma_i)).

Minorization: ``-log E >= -log E0 - (E - E0) / E0`` at the current ``E0``, so

    Q(gamma) = sum_i (W_i + 1) log gamma_i - sum_j E_j(gamma) / E0_j
               - sum_i 2 (1 + gamma_i) / (1 + gamma0_i)

is below ``L`` and touches it at the current gammas: whatever raises ``Q`` raises
``L``. ``Q`` is maximised exactly in one feature *group* at a time (features of a
group never share a team), ``gamma_i = (W_i + 1) / (sum_j C_ij / E0_j + 2 / (1 +
gamma0_i))``, ``C_ij`` the strength of ``i``'s teammates in ``j``: Coulom's update.

A candidate is a pattern and a *combination* of tactical features (see
:mod:`shapemill.miner.positions`), which makes a sweep two passes over the
candidates instead of one per group:

1. the pattern step: a pass computes ``E0`` and, per pattern, the sum over its
   candidates of ``combination strength / E0_j``; the patterns are updated;
2. the tactical step: a pass computes ``E0`` again and, per combination ``k``,
   ``A_k = sum of pattern gamma / E0_j`` over its candidates. With ``E0`` fixed, each
   tactical group's denominators are ``sum_k A_k * (strength of k) / gamma_i`` over
   the combinations holding ``i``: a loop over the combinations, not the
   candidates. The groups are updated one after the other against that ``Q``.

Both passes also give the log-likelihood of the gammas they start from, and run
in parallel over blocks of positions.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from ..workers import interruptible
from .positions import Teams, candidate, use_threads

#: What Ctrl-C names when it stops a sweep.
SWEEP = "rate's MM sweeps"


@njit(cache=True)
def combination_strengths(combos, gamma) -> np.ndarray:
    """The product of the gammas of each combination's features."""
    out = np.ones(len(combos))
    for k in range(len(combos)):
        s = 1.0
        for g in range(combos.shape[1]):
            s *= gamma[combos[k, g]]
        out[k] = s
    return out


@njit(cache=True)
def _blocks(n: int, n_blocks: int) -> np.ndarray:
    return (np.arange(n_blocks + 1) * n) // n_blocks


@njit(cache=True, parallel=True, nogil=True)
def _pass(pos_start, team, bits, chosen, gamma, cs, n_blocks, by_pattern, n_out) -> tuple[float, np.ndarray, np.ndarray]:
    """One pass over the candidates at the current gammas: ``(log-likelihood, E, acc)``.

    ``acc`` sums, over the candidates, ``cs[combo] / E_j`` by pattern when
    ``by_pattern``, else ``gamma[pattern] / E_j`` by combination (``n_out`` entries).
    """
    n = len(chosen)
    bounds = _blocks(n, n_blocks)
    acc = np.zeros((n_blocks, n_out))
    lls = np.zeros(n_blocks)
    total = np.empty(n)
    for t in prange(n_blocks):
        a = acc[t]
        ll = 0.0
        for j in range(bounds[t], bounds[t + 1]):
            e = 0.0
            for c in range(pos_start[j], pos_start[j + 1]):
                p, k = candidate(team, c, bits)
                e += gamma[p] * cs[k]
            total[j] = e
            p, k = candidate(team, pos_start[j] + chosen[j], bits)
            ll += np.log(gamma[p] * cs[k] / e)
            inv = 1.0 / e
            for c in range(pos_start[j], pos_start[j + 1]):
                p, k = candidate(team, c, bits)
                if by_pattern:
                    a[p] += cs[k] * inv
                else:
                    a[k] += gamma[p] * inv
        lls[t] = ll
    return lls.sum(), total, acc.sum(axis=0)


@njit(cache=True)
def _update(features, w, denom, gamma0, gamma, prior) -> None:
    """Coulom's update of the gammas of ``features`` (unchanged, without the prior,
    where the data say nothing)."""
    for f in features:
        if prior:
            gamma[f] = (w[f] + 1.0) / (denom[f] + 2.0 / (gamma0[f] + 1.0))
        elif denom[f] > 0:
            gamma[f] = w[f] / denom[f]


@njit(cache=True)
def _tactical_step(combos, group_start, group_features, gamma, gamma0, cs, a, w, prior) -> None:
    """Update each tactical group (column ``g`` of ``combos``, its features
    ``group_features[group_start[g]:group_start[g + 1]]``) in turn against the
    minorizer of the pass that gave ``a``; ``cs`` follows the gammas (rescaled by
    each group's change, recomputed at the end). ``gamma``, ``gamma0`` and ``w`` are
    numbered as ``combos`` are (views from the first tactical feature)."""
    denom = np.zeros(len(gamma))
    ratio = np.ones(len(gamma))
    for g in range(combos.shape[1]):
        features = group_features[group_start[g] : group_start[g + 1]]
        for k in range(len(combos)):
            f = combos[k, g]
            denom[f] += a[k] * cs[k] / gamma[f]
        for f in features:
            ratio[f] = gamma[f]
        _update(features, w, denom, gamma0, gamma, prior)
        for f in features:
            ratio[f] = gamma[f] / ratio[f]
            denom[f] = 0.0
        for k in range(len(combos)):
            cs[k] *= ratio[combos[k, g]]
        for f in features:
            ratio[f] = 1.0
    cs[:] = combination_strengths(combos, gamma)


def wins_and_seen(teams: Teams) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How often a team holding each feature was the move played, and was a candidate,
    and how often each was a candidate's pattern (arrays of ``none + 1``; the last
    entry, the feature-less slot, is meaningless). Counted in place: no copy of the
    candidate arrays."""
    n, first = teams.none + 1, teams.first_tactical
    wins, as_pattern, per_combo = _counts(teams.pos_start, teams.team, teams.pattern_bits, teams.chosen, n, len(teams.combos))
    _, won = teams.candidates(teams.pos_start[:-1] + teams.chosen)
    wins[first:] += np.bincount(teams.combos[won].ravel(), minlength=n - first)
    seen = as_pattern.copy()
    seen[first:] += _combination_counts(teams.combos, per_combo, n - first)
    return wins, seen, as_pattern


@njit(cache=True)
def _counts(pos_start, team, bits, chosen, n, n_combos) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Wins of each pattern, candidates of each pattern and of each combination."""
    wins = np.zeros(n)
    for j in range(len(chosen)):
        wins[candidate(team, pos_start[j] + chosen[j], bits)[0]] += 1.0
    as_pattern = np.zeros(n, dtype=np.int64)
    per_combo = np.zeros(n_combos, dtype=np.int64)
    for c in range(len(team)):
        p, k = candidate(team, c, bits)
        as_pattern[p] += 1
        per_combo[k] += 1
    return wins, as_pattern, per_combo


@njit(cache=True)
def _combination_counts(combos, per_combo, n) -> np.ndarray:
    """How many candidates hold each feature (numbered as in ``combos``) through their combination."""
    out = np.zeros(n, dtype=np.int64)
    for k in range(len(combos)):
        for g in range(combos.shape[1]):
            out[combos[k, g]] += per_combo[k]
    return out


def _groups(combos: np.ndarray, none: int) -> tuple[np.ndarray, np.ndarray]:
    """The features of each column of ``combos`` (numbered as there), as CSR."""
    features = [np.setdiff1d(np.unique(combos[:, g]), [none]) for g in range(combos.shape[1])]
    start = np.concatenate([[0], np.cumsum([len(f) for f in features])]).astype(np.int64)
    return start, (np.concatenate(features) if features else np.zeros(0)).astype(np.int64)


@njit(cache=True, parallel=True, nogil=True)
def fisher_information(pos_start, team, bits, combos, first, gamma, cs, total, n_blocks, none) -> np.ndarray:
    """Observed information of each log-gamma: sum over positions of p (1 - p), p the
    share of the position's strength held by teams with the feature (``combos`` hold
    feature numbers less ``first``)."""
    n = len(gamma)
    bounds = _blocks(len(total), n_blocks)
    info = np.zeros((n_blocks, n))
    for t in prange(n_blocks):
        share = np.zeros(n)
        out = info[t]
        for j in range(bounds[t], bounds[t + 1]):
            for c in range(pos_start[j], pos_start[j + 1]):
                pattern, k = candidate(team, c, bits)
                p = gamma[pattern] * cs[k] / total[j]
                share[pattern] += p
                for g in range(combos.shape[1]):
                    share[first + combos[k, g]] += p
            for c in range(pos_start[j], pos_start[j + 1]):
                pattern, k = candidate(team, c, bits)
                for g in range(-1, combos.shape[1]):
                    f = pattern if g < 0 else first + combos[k, g]
                    p = share[f]
                    if p > 0:
                        out[f] += p * (1 - p)
                        share[f] = 0.0
    result = info.sum(axis=0)
    result[none] = 0.0
    return result


def _log_prior(gamma: np.ndarray) -> float:
    return float(np.sum(np.log(gamma) - 2 * np.log1p(gamma)))


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
    teams: Teams, max_iter: int = 100, tol: float = 1e-4, prior: bool = True,
    report: Callable[[int, float, float, float], None] | None = None, workers: int = 1,
) -> Fit:
    """Fit the gammas of the ``teams.none`` features on ``teams`` by MM.

    The objective is the log-likelihood of the moves played plus, with the prior,
    that of the virtual games: MM never lets it decrease. Stops after ``max_iter``
    sweeps or when a sweep gains less than ``tol`` per position. ``report(iteration,
    objective_per_position, data_ll_per_position, seconds_per_sweep)`` is called
    after every sweep. ``prior=False`` gives the plain maximum-likelihood fit.
    ``workers`` threads share each pass.
    """
    use_threads(workers)
    n_blocks = max(1, min(workers, teams.n_positions))
    n, first = teams.none, teams.first_tactical
    gamma = np.ones(n + 1)
    tactical = gamma[first:]  # a view: the gammas the combinations number
    w, seen, as_pattern = wins_and_seen(teams)
    patterns = np.flatnonzero(as_pattern[:n])
    group_start, group_features = _groups(teams.combos, n - first)
    cs = combination_strengths(teams.combos, tactical)
    n_pos = max(1, teams.n_positions)
    args = (teams.pos_start, teams.team, teams.pattern_bits, teams.chosen)
    trace: list[float] = []
    start = time.perf_counter()
    previous = -np.inf
    for it in range(max_iter + 1):
        ll, total, acc = interruptible(SWEEP, _pass, *args, gamma, cs, n_blocks, True, n + 1)
        objective = (ll + (_log_prior(gamma[:n]) if prior else 0.0)) / n_pos
        if it:
            trace.append(objective)
            if report:
                report(it, objective, ll / n_pos, (time.perf_counter() - start) / it)
            if it == max_iter or objective - previous < tol:
                break
        previous = objective
        gamma0 = gamma.copy()
        _update(patterns, w, acc, gamma0, gamma, prior)
        _, _, a = interruptible(SWEEP, _pass, *args, gamma, cs, n_blocks, False, len(teams.combos))
        _tactical_step(teams.combos, group_start, group_features, tactical, gamma0[first:], cs, a, w[first:], prior)
    seconds = (time.perf_counter() - start) / max(1, len(trace))
    info = interruptible(SWEEP, fisher_information, *args[:3], teams.combos, first, gamma, cs, total, n_blocks,
                         n)[:n]
    gamma = gamma[:n]
    if prior:
        info += 2 * gamma / (1 + gamma) ** 2
    half = 1.96 / np.sqrt(np.maximum(info, 1e-12))
    return Fit(
        gamma=gamma,
        ci_low=gamma * np.exp(-half),
        ci_high=gamma * np.exp(half),
        seen=seen[:n],
        played=w[:n].astype(np.int64),
        objective=trace,
        seconds_per_iteration=seconds,
    )

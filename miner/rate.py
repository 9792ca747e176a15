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
from typing import NamedTuple, Protocol

import numpy as np
from numba import njit, prange

from ..workers import interruptible
from .positions import Teams, _unpack_all, candidate, use_threads

#: What Ctrl-C names when it stops a sweep.
SWEEP = "rate's MM sweeps (the work folder keeps the last finished sweep: the same command resumes)"


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
    Each position's candidates are unpacked and their strengths read once, into a
    buffer that the sums then read. The blocks' sums are added in block order: the same
    whatever the threads.
    """
    n = len(chosen)
    bounds = _blocks(n, n_blocks)
    acc = np.zeros((n_blocks, n_out))
    lls = np.zeros(n_blocks)
    total = np.empty(n)
    widest = 1
    for j in range(n):
        widest = max(widest, pos_start[j + 1] - pos_start[j])
    for t in prange(n_blocks):
        a = acc[t]
        where = np.empty(widest, dtype=np.int64)  # each candidate's pattern (by_pattern) or combination
        part = np.empty(widest)  # the strength of the rest of its team
        ll = 0.0
        for j in range(bounds[t], bounds[t + 1]):
            lo = pos_start[j]
            e = 0.0
            for i in range(pos_start[j + 1] - lo):
                p, k = candidate(team, lo + i, bits)
                g, s = gamma[p], cs[k]
                e += g * s
                where[i], part[i] = (p, s) if by_pattern else (k, g)
            total[j] = e
            w = chosen[j]
            ll += np.log((gamma[where[w]] if by_pattern else cs[where[w]]) * part[w] / e)
            inv = 1.0 / e
            for i in range(pos_start[j + 1] - lo):
                a[where[i]] += part[i] * inv
        lls[t] = ll
    return _in_order(lls), total, _in_order(acc)


@njit(cache=True, nogil=True)
def _in_order(rows: np.ndarray):
    """The sum of ``rows`` (the blocks' sums), added in row order into the first: the same
    whatever the threads. A function of its own: in a parallel body numba splits an array's
    sum among the threads (a unit in the last place apart with one thread or two)."""
    for t in range(1, len(rows)):
        rows[0] += rows[t]
    return rows[0]


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
    return InMemory(teams, 1).wins_and_seen()


def team_counts(pos_start, team, bits, chosen, n, n_combos) -> Counts:
    """:class:`Counts` of some positions, combinations numbered as their candidates number them."""
    wins, as_pattern, per_combo = _counts(pos_start, team, bits, chosen, n, n_combos)
    won = np.zeros(n_combos, dtype=np.int64)
    if len(chosen):
        won = np.bincount(_unpack_all(np.ascontiguousarray(team[pos_start[:-1] + chosen]), bits)[1],
                          minlength=n_combos)
    return Counts(wins, as_pattern, per_combo, won)


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
    result = _in_order(info)
    result[none] = 0.0
    return result


def _log_prior(gamma: np.ndarray) -> float:
    return float(np.sum(np.log(gamma) - 2 * np.log1p(gamma)))


class Counts(NamedTuple):
    """What the fit counts once: by pattern feature (``none + 1`` entries) the wins and
    the candidates, by combination its candidates and its wins."""

    wins: np.ndarray  # float64: a pattern's wins
    as_pattern: np.ndarray  # int64
    per_combo: np.ndarray  # int64
    won: np.ndarray  # int64


class Competitions(Protocol):
    """The positions of a fit, wherever they are held: in memory (:class:`InMemory`),
    in shards on disk, or on a Dask cluster. Sums over the positions."""

    combos: np.ndarray
    none: int
    first_tactical: int
    n_positions: int

    def counts(self) -> Counts: ...

    def sweep_pass(self, gamma: np.ndarray, cs: np.ndarray, by_pattern: bool) -> tuple[float, np.ndarray]:
        """``_pass``'s log-likelihood and sums over all the positions (by feature, or by global combination)."""

    def information(self, gamma: np.ndarray, cs: np.ndarray) -> np.ndarray:
        """:func:`fisher_information` over all the positions."""


class InMemory:
    """Competitions held in memory as one :class:`Teams`, passes over ``n_blocks`` blocks."""

    def __init__(self, teams: Teams, n_blocks: int) -> None:
        self.teams, self.n_blocks = teams, n_blocks
        self.combos, self.none, self.first_tactical = teams.combos, teams.none, teams.first_tactical
        self.n_positions = teams.n_positions
        team = teams.team.view()
        team.flags.writeable = False  # as the shards' mapped teams are: one compiled pass for both
        self._args = (teams.pos_start, team, teams.pattern_bits, teams.chosen)
        self._total = np.zeros(0)

    def counts(self) -> Counts:
        return team_counts(*self._args, self.none + 1, len(self.combos))

    def wins_and_seen(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return finish_counts(self.counts(), self.combos, self.none, self.first_tactical)

    def sweep_pass(self, gamma: np.ndarray, cs: np.ndarray, by_pattern: bool) -> tuple[float, np.ndarray]:
        n_out = len(gamma) if by_pattern else len(self.combos)
        ll, total, acc = interruptible(SWEEP, _pass, *self._args, gamma, cs, self.n_blocks, by_pattern, n_out)
        if by_pattern:
            self._total = total  # the strengths at these gammas, for the information
        return ll, acc

    def information(self, gamma: np.ndarray, cs: np.ndarray) -> np.ndarray:
        if len(self._total) != self.n_positions:
            self.sweep_pass(gamma, cs, True)
        return interruptible(SWEEP, fisher_information, *self._args[:3], self.combos, self.first_tactical, gamma,
                             cs, self._total, self.n_blocks, self.none)


def finish_counts(counts: Counts, combos: np.ndarray, none: int,
                  first: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``wins_and_seen`` from :class:`Counts`: the tactical features' counts through their combinations."""
    wins = counts.wins.copy()
    wins[first:] += _combination_counts(combos, counts.won, none + 1 - first)
    seen = counts.as_pattern.copy()
    seen[first:] += _combination_counts(combos, counts.per_combo, none + 1 - first)
    return wins, seen, counts.as_pattern


class FitState(NamedTuple):
    """Where a fit stands after a sweep: the gammas the next sweep starts from (``none +
    1``), the objective after each sweep before, the objective at the gammas the sweep
    started from, and where the accelerated fit is in its cycle of three sweeps
    (:func:`fit_competitions`): ``phase`` sweeps of it done; ``anchor`` the gammas the
    cycle started from (phase 1) or those of the plain MM step, the fall-back of the
    extrapolated ``gamma`` (phase 2); ``floor`` the objective that ``gamma`` must reach."""

    gamma: np.ndarray
    objective: list[float]
    previous: float
    phase: int = 0
    anchor: np.ndarray = np.zeros(0)
    floor: float = -np.inf


#: The longest SQUAREM step (``-alpha``), and the most an extrapolated log-gamma moves
#: past the plain MM step's: bounds that keep the gammas finite; the objective decides.
MAX_STEP, MAX_LOG_MOVE = 64.0, 8.0


def extrapolate(x0: np.ndarray, x1: np.ndarray, x2: np.ndarray, n: int) -> np.ndarray:
    """SQUAREM's step (Varadhan & Roland 2008, scheme S3) from three successive MM points
    ``x0``, ``x1 = F(x0)``, ``x2 = F(x1)``, in log-gamma over the first ``n`` features:
    ``t0 - 2 a r + a^2 v`` with ``r = t1 - t0``, ``v = t2 - 2 t1 + t0``, ``a = -|r| / |v|``
    (at most -1, which gives ``x2``)."""
    t0, t1, t2 = np.log(x0[:n]), np.log(x1[:n]), np.log(x2[:n])
    r = t1 - t0
    v = t2 - t1 - r
    rr, vv = float(np.sqrt(r @ r)), float(np.sqrt(v @ v))
    alpha = max(-MAX_STEP, min(-1.0, -rr / vv if vv > 0 else -1.0))
    out = x2.copy()
    out[:n] = np.exp(np.clip(t0 - 2 * alpha * r + alpha * alpha * v, t2 - MAX_LOG_MOVE, t2 + MAX_LOG_MOVE))
    return out


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
    accelerate: bool = True,
) -> Fit:
    """Fit the gammas of the ``teams.none`` features on ``teams`` by MM (see
    :func:`fit_competitions`); ``workers`` threads share each pass."""
    use_threads(workers)
    return fit_competitions(InMemory(teams, max(1, min(workers, teams.n_positions))), max_iter, tol, prior, report,
                            accelerate=accelerate)


def fit_competitions(
    competitions: Competitions, max_iter: int = 100, tol: float = 1e-4, prior: bool = True,
    report: Callable[[int, float, float, float], None] | None = None,
    resume: FitState | None = None, checkpoint: Callable[[FitState], None] | None = None,
    accelerate: bool = True,
) -> Fit:
    """Fit the gammas of the ``competitions.none`` features by MM.

    The objective is the log-likelihood of the moves played plus, with the prior,
    that of the virtual games: MM never lets it decrease. Stops after ``max_iter``
    sweeps or when a sweep gains less than ``tol`` per position. ``report(iteration,
    objective_per_position, data_ll_per_position, seconds_per_sweep)`` is called
    after every sweep. ``prior=False`` gives the plain maximum-likelihood fit.
    ``checkpoint(state)`` is called after each sweep's updates; a fit started from
    ``resume`` (such a state) goes on exactly as the fit that saved it.

    ``accelerate`` (SQUAREM, :func:`extrapolate`): in each cycle of three sweeps, the
    third starts from gammas extrapolated from the first two's steps instead of the
    second's result, and keeps them only if their objective (its first pass computes it)
    is at least that of the second sweep's start, else it starts from the second's
    result (one pass spent): the objective still never decreases.
    """
    comps = competitions
    n, first = comps.none, comps.first_tactical
    w, seen, as_pattern = finish_counts(comps.counts(), comps.combos, n, first)
    patterns = np.flatnonzero(as_pattern[:n])
    group_start, group_features = _groups(comps.combos, n - first)
    state = FitState(np.ones(n + 1), [], -np.inf) if resume is None else resume
    gamma, phase, anchor, floor = state.gamma.copy(), state.phase, state.anchor, state.floor
    n_pos = max(1, comps.n_positions)
    trace: list[float] = list(state.objective)
    previous = state.previous
    begin = 0 if resume is None else len(trace) + 1
    cs = combination_strengths(comps.combos, gamma[first:])

    def first_pass(gamma: np.ndarray) -> tuple[np.ndarray, float, float, np.ndarray]:
        cs = combination_strengths(comps.combos, gamma[first:])
        ll, acc = comps.sweep_pass(gamma, cs, True)
        return cs, ll, (ll + (_log_prior(gamma[:n]) if prior else 0.0)) / n_pos, acc

    start = time.perf_counter()
    for it in range(begin, max_iter + 1):
        cs, ll, objective, acc = first_pass(gamma)
        if phase == 2 and not objective >= floor:  # the extrapolation lost: the plain step's gammas
            gamma = anchor.copy()
            cs, ll, objective, acc = first_pass(gamma)
        if it:
            trace.append(objective)
            if report:
                report(it, objective, ll / n_pos, (time.perf_counter() - start) / (it - max(0, begin - 1)))
            if it == max_iter or objective - previous < tol:
                break
        previous = objective
        gamma0 = gamma.copy()
        _update(patterns, w, acc, gamma0, gamma, prior)
        _, a = comps.sweep_pass(gamma, cs, False)
        tactical = gamma[first:]  # a view: the gammas the combinations number
        _tactical_step(comps.combos, group_start, group_features, tactical, gamma0[first:], cs, a, w[first:], prior)
        if accelerate and phase == 0:
            phase, anchor = 1, gamma0
        elif accelerate and phase == 1:
            phase, floor = 2, objective
            gamma, anchor = extrapolate(anchor, gamma0, gamma, n), gamma
        elif accelerate:
            phase, anchor, floor = 0, np.zeros(0), -np.inf
        if checkpoint:
            checkpoint(FitState(gamma, trace, previous, phase, anchor, floor))
    seconds = (time.perf_counter() - start) / max(1, len(trace) - max(0, begin - 1))
    info = comps.information(gamma, cs)[:n]
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

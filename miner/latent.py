"""Fitting and ranking with latent vectors: factorization Bradley-Terry on the fit's teams.

A candidate's log-strength is the sum of its features' log-gammas (its pattern and its
combination of tactical features) plus a dot product for each pair of its features and of
each with the position's move-number band (``patterns.latent``, Xiao and Müller, AAAI
2016): the pairwise interactions of the pattern with each tactical feature and of the
tactical features among themselves, which Coulom's model lacks.

The fit starts from MM's gammas and small random vectors and maximizes the log-likelihood
of the moves played less ``lam_v`` times the vectors' squares (and, when the gammas move
too, ``lam_w`` times the squared distance of the log-gammas from MM's), by L-BFGS on a batch
of positions held in memory. A pass over the positions computes the objective and its
gradient; with a combination's vector sum ``S`` the pairs of a candidate sum to
``v_pattern . S + (|S|^2 - sum |v_f|^2) / 2``, so a pass costs ``k`` times MM's ranking.
The product holds the gammas (fitted by MM on every position) and gives vectors to the
features seen often (``fit_latent``); docs/rating.md says why and what it adds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit, prange
from scipy.optimize import minimize

from ..patterns.latent import Latent
from .positions import Teams

#: Slack of the latent vectors' first values (a spread around 0: all zero is a saddle).
INIT_SCALE = 0.01
#: Candidates unpacked at a time from the packed teams: unpacked whole, their 16 bytes a
#: candidate raised the fit's peak (3.6 GB rather than 3.1 at 200,000 positions); a chunk's
#: are 160 MB.
UNPACK_CHUNK = 10_000_000


class Flat(NamedTuple):
    """The teams as flat arrays: each candidate's pattern feature and combination, each
    combination's feature row (``none`` where absent), each position's context feature
    (``none``: no context), the number of context features after ``none``."""

    pos_start: np.ndarray
    pattern: np.ndarray
    combo: np.ndarray
    rows: np.ndarray
    chosen: np.ndarray
    move_number: np.ndarray
    context: np.ndarray
    none: int
    contexts: int
    images: np.ndarray  # int8[positions]: the points each move played is (``Teams.images``)


def flatten(teams: Teams, bands: np.ndarray | list[int] | None = None) -> Flat:
    """``teams`` as a ``Flat``; ``bands`` (the move numbers where a band starts, past the
    first, as ``Latent.band_starts``) gives each position the context feature of its
    move-number band (``patterns.latent.band_of``); None: no context."""
    pattern = np.empty(len(teams.team), dtype=np.int32)
    combo = np.empty(len(teams.team), dtype=np.int32)
    for lo in range(0, len(teams.team), UNPACK_CHUNK):
        part = slice(lo, lo + UNPACK_CHUNK)
        pattern[part], combo[part] = teams.candidates(part)
    if bands is not None:
        context = teams.none + 1 + np.searchsorted(np.asarray(bands), teams.move_number + 1, side="right")
    else:
        context = np.full(teams.n_positions, teams.none, dtype=np.int64)
    return Flat(teams.pos_start, pattern, combo, teams.combination_features(),
                teams.chosen, teams.move_number, context.astype(np.int64), teams.none,
                0 if bands is None else len(bands) + 1, teams.images)


@njit(cache=True, parallel=True)
def combination_sums(rows, w, v):
    """Each combination's summed log-gammas, vector sum ``S`` and pair term ``Q``."""
    n, columns = rows.shape
    k = v.shape[1]
    cw = np.zeros(n)
    s = np.zeros((n, k))
    q = np.zeros(n)
    for i in prange(n):
        squares = 0.0
        for j in range(columns):
            f = rows[i, j]
            cw[i] += w[f]
            for d in range(k):
                s[i, d] += v[f, d]
                squares += v[f, d] * v[f, d]
        total = 0.0
        for d in range(k):
            total += s[i, d] * s[i, d]
        q[i] = 0.5 * (total - squares)
    return cw, s, q


@njit(cache=True)
def _strength(p, q, u, w, v, cw, s, qs):
    """Candidate strength (log) of pattern ``p``, combination ``q``, context ``u``."""
    x = w[p] + cw[q] + qs[q]
    for d in range(v.shape[1]):
        x += v[p, d] * s[q, d] + v[u, d] * (v[p, d] + s[q, d])
    return x


@njit(cache=True, parallel=True)
def gradient_pass(pos_start, pattern, combo, chosen, context, w, v, cw, s, qs, threads):
    """Log-likelihood of the moves played and its gradient: by feature as a pattern
    (``gw``, ``gv``), by combination (``g``: the summed weights, ``a``: the summed weights
    times the partner vectors), each of ``threads`` slices of the positions apart."""
    n = len(chosen)
    nf, k = v.shape
    nc = len(cw)
    ll = np.zeros(threads)
    gw = np.zeros((threads, nf))
    gv = np.zeros((threads, nf, k))
    g = np.zeros((threads, nc))
    a = np.zeros((threads, nc, k))
    for t in prange(threads):
        for j in range(n * t // threads, n * (t + 1) // threads):
            lo, hi = pos_start[j], pos_start[j + 1]
            u = context[j]
            x = np.empty(hi - lo)
            top = -1e300
            for c in range(lo, hi):
                x[c - lo] = _strength(pattern[c], combo[c], u, w, v, cw, s, qs)
                top = max(top, x[c - lo])
            z = 0.0
            for i in range(hi - lo):
                x[i] = np.exp(x[i] - top)
                z += x[i]
            ll[t] += np.log(x[chosen[j]] / z)
            for c in range(lo, hi):
                weight = (1.0 if c - lo == chosen[j] else 0.0) - x[c - lo] / z
                p, q = pattern[c], combo[c]
                gw[t, p] += weight
                g[t, q] += weight
                for d in range(k):
                    gv[t, p, d] += weight * (s[q, d] + v[u, d])
                    a[t, q, d] += weight * (v[p, d] + v[u, d])
                    gv[t, u, d] += weight * (v[p, d] + s[q, d])
    return ll.sum(), gw.sum(axis=0), gv.sum(axis=0), g.sum(axis=0), a.sum(axis=0)


@njit(cache=True)
def spread_combinations(rows, g, a, s, v, gw, gv) -> None:
    """Add each combination's gradient to its tactical features' (``d S / d v_f`` is one,
    ``d Q / d v_f`` is ``S - v_f``)."""
    n, columns = rows.shape
    k = v.shape[1]
    for i in range(n):
        for j in range(columns):
            f = rows[i, j]
            gw[f] += g[i]
            for d in range(k):
                gv[f, d] += a[i, d] + g[i] * (s[i, d] - v[f, d])


@njit(cache=True, parallel=True)
def rank_pass(pos_start, pattern, combo, chosen, context, w, v, cw, s, qs):
    """Rank (1 = first choice) and log-probability of each move played."""
    n = len(chosen)
    rank = np.empty(n, dtype=np.int64)
    logp = np.empty(n)
    for j in prange(n):
        lo, hi = pos_start[j], pos_start[j + 1]
        x = np.empty(hi - lo)
        top = -1e300
        for c in range(lo, hi):
            x[c - lo] = _strength(pattern[c], combo[c], context[j], w, v, cw, s, qs)
            top = max(top, x[c - lo])
        mine = x[chosen[j]]
        r = 0
        z = 0.0
        for i in range(hi - lo):
            r += x[i] >= mine
            z += np.exp(x[i] - top)
        rank[j] = r
        logp[j] = mine - top - np.log(z)
    return rank, logp


class Factors(NamedTuple):
    """A fitted model: log-gammas ``w`` and latent vectors ``v`` by feature (``none`` and
    the context features after it have no gamma), L-BFGS's iterations and message."""

    w: np.ndarray
    v: np.ndarray
    iterations: int
    message: str


def fit_factors(flat: Flat, gamma: np.ndarray, k: int, lam_v: float, lam_w: float | None, iterations: int,
                seed: int = 1, threads: int = 2, vectors: np.ndarray | None = None,
                progress: Callable[[int], object] | None = None) -> Factors:
    """The factorization model on ``flat`` from MM's ``gamma`` (see the module). ``vectors``
    (a flag per feature before ``none``) gives a latent vector to the features flagged only,
    the others none (the context features have one); ``lam_w`` None holds every gamma (only
    the vectors are fitted: gammas fitted on more positions than ``flat`` holds), otherwise
    the gammas of the features with a vector move too, ``lam_w`` the weight of their squared
    moves; ``progress(1)`` is called after each iteration."""
    nf = flat.none + 1 + flat.contexts
    w0 = np.concatenate([np.log(gamma), np.zeros(1 + flat.contexts)])
    has = np.ones(nf, dtype=bool) if vectors is None else np.concatenate([vectors, np.ones(1 + flat.contexts, bool)])
    has[flat.none] = False
    moves = np.zeros(nf, dtype=bool) if lam_w is None else has.copy()
    moves[flat.none:] = False  # ``none`` and the contexts have no gamma
    m, lam_moves = int(moves.sum()), lam_w or 0.0
    v0 = np.random.default_rng(seed).normal(0, INIT_SCALE, (nf, k))
    n = max(1, len(flat.chosen))

    def unpack(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # x holds the moving gammas and the vectors of the features that have one: L-BFGS's
        # memory is 40 copies of x
        w = w0.copy()
        w[moves] = x[:m]
        v = np.zeros((nf, k))
        v[has] = x[m:].reshape(-1, k)
        return w, v

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        w, v = unpack(x)
        cw, s, qs = combination_sums(flat.rows, w, v)
        ll, gw, gv, g, a = gradient_pass(flat.pos_start, flat.pattern, flat.combo, flat.chosen, flat.context,
                                         w, v, cw, s, qs, threads)
        spread_combinations(flat.rows, g, a, s, v, gw, gv)
        moved = w[moves] - w0[moves]
        value = -ll + lam_v * (v[has] ** 2).sum() + lam_moves * (moved ** 2).sum()
        grad_w = -gw[moves] + 2 * lam_moves * moved
        return value / n, np.concatenate([grad_w, (-gv[has] + 2 * lam_v * v[has]).ravel()]) / n

    start = np.concatenate([w0[moves], v0[has].ravel()])
    res = minimize(objective, start, jac=True, method="L-BFGS-B", options={"maxiter": iterations, "maxcor": 20},
                   callback=None if progress is None else lambda _: progress(1))
    w, v = unpack(res.x)
    return Factors(w, v, int(res.nit), str(res.message))


def rank_factors(flat: Flat, model: Factors) -> tuple[np.ndarray, np.ndarray]:
    """How ``model`` ranks the moves played in ``flat``: each one's rank (1: the first
    choice, ties counted against it but for the move's equivalent points) and log-probability."""
    cw, s, qs = combination_sums(flat.rows, model.w, model.v)
    rank, logp = rank_pass(flat.pos_start, flat.pattern, flat.combo, flat.chosen, flat.context, model.w, model.v,
                           cw, s, qs)
    return rank - (flat.images - 1), logp


def rank_latent(teams: Teams, gamma: np.ndarray, latent: Latent) -> tuple[np.ndarray, np.ndarray]:
    """How a ratings table's ``gamma`` and ``latent`` vectors rank the moves played in ``teams``
    (``rank_factors``)."""
    k, bands = latent.k, len(latent.band_vectors)
    v = np.zeros((len(gamma) + 1 + bands, k))
    has = np.flatnonzero(latent.row >= 0)
    v[has] = latent.vectors[latent.row[has]]
    v[len(gamma) + 1 :] = latent.band_vectors
    model = Factors(np.concatenate([np.log(gamma), np.zeros(1 + bands)]), v, 0, "")
    return rank_factors(flatten(teams, latent.band_starts), model)


def fit_latent(teams: Teams, gamma: np.ndarray, flags: np.ndarray, k: int, lam: float, iterations: int,
               band_starts: np.ndarray, seed: int = 1, threads: int = 2,
               progress: Callable[[int], object] | None = None) -> tuple[Latent, Factors]:
    """Latent vectors of ``k`` numbers for the features ``flags`` marks and for the
    move-number bands starting at ``band_starts``, fitted on ``teams`` with the gammas
    ``gamma`` held (``fit_factors``, ``lam`` the weight of the vectors' squares), and
    L-BFGS's record of the fit; ``progress`` hears the iterations."""
    flat = flatten(teams, band_starts)
    model = fit_factors(flat, gamma, k, lam, None, iterations, seed, threads, flags, progress)
    row = np.where(flags, np.cumsum(flags) - 1, -1).astype(np.int32)
    return Latent(row, model.v[: flat.none][flags], np.asarray(band_starts, dtype=np.int64),
                  model.v[flat.none + 1 :]), model

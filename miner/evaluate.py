"""Move prediction: how well rated features rank the moves strong players chose.

For every position, the candidates are ordered by strength (product of their
features' gammas, and of their pairs' factor where the table has latent vectors:
``latent``); the rank of the move played gives top-k accuracy, and its
probability ``strength / total`` the log-likelihood. Ties count against the model:
a move tied with others takes the worst of their ranks, but for the points it is one move
with (``go.equivalent``: on the empty board the four 4-4 points are one move, the one
the model must rank first).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ..datasets.corpus import Corpus
from ..patterns.knowledge import Knowledge
from ..patterns.latent import NO_LATENT, Latent
from ..workers import interruptible
from .latent import rank_latent
from .positions import Teams, build_teams, candidate
from .rate import combination_strengths

#: Move-number bands of the report: moves 1-30, 31-80, 81-150, 151 and later.
BANDS = ((1, 30), (31, 80), (81, 150), (151, 10**6))
MAX_K = 30


@njit(cache=True, parallel=True, nogil=True)
def ranks_and_logp(pos_start, team, bits, chosen, gamma, cs) -> tuple[np.ndarray, np.ndarray]:
    """Rank (1 = the model's first choice) and log-probability of each move played."""
    n = len(chosen)
    rank = np.empty(n, dtype=np.int64)
    logp = np.empty(n)
    for j in prange(n):
        p, k = candidate(team, pos_start[j] + chosen[j], bits)
        s = gamma[p] * cs[k]
        r = 0
        e = 0.0
        for c in range(pos_start[j], pos_start[j + 1]):
            p, k = candidate(team, c, bits)
            x = gamma[p] * cs[k]
            e += x
            if x >= s:
                r += 1
        rank[j] = r
        logp[j] = np.log(s / e)
    return rank, logp


class Ranked(NamedTuple):
    """Each position's rank of the move played, its log-probability and the move number."""

    rank: np.ndarray  # int64
    logp: np.ndarray  # float64
    move_number: np.ndarray  # int32


def rank_moves(teams: Teams, gamma: np.ndarray, latent: Latent = NO_LATENT) -> Ranked:
    """How ``gamma`` (one per feature) and the ``latent`` vectors rank the move played in
    each position of ``teams``."""
    if latent.k:
        rank, logp = interruptible("evaluate's ranking of the moves", rank_latent, teams, gamma, latent)
        return Ranked(rank, logp, teams.move_number)
    full = np.append(gamma, 1.0)
    rank, logp = interruptible(
        "evaluate's ranking of the moves", ranks_and_logp, teams.pos_start, teams.team, teams.pattern_bits,
        teams.chosen, full, combination_strengths(teams.combos, full[teams.first_tactical:]),
    )
    return Ranked(rank - (teams.images - 1), logp, teams.move_number)


def evaluate_teams(teams: Teams, gamma: np.ndarray, latent: Latent = NO_LATENT) -> dict:
    """Accuracy report of ``gamma`` (one per feature) and the ``latent`` vectors on ``teams``:
    overall and by move-number band; the rates of a band without positions are None (JSON null)."""
    return ranked_report(rank_moves(teams, gamma, latent))


def ranked_report(ranked: Ranked) -> dict:
    """The accuracy report of ranked moves (:func:`evaluate_teams`)."""
    rank, logp = ranked.rank, ranked.logp
    move = ranked.move_number + 1

    def summary(sel: np.ndarray) -> dict:
        n = int(sel.sum())
        r = rank[sel]
        return {
            "positions": n,
            "top1": float((r <= 1).mean()) if n else None,
            "top5": float((r <= 5).mean()) if n else None,
            "top10": float((r <= 10).mean()) if n else None,
            "mean_log_likelihood": float(logp[sel].mean()) if n else None,
        }

    everything = np.ones(len(rank), dtype=bool)
    report = summary(everything)
    report["cumulative"] = [float((rank <= k).mean()) if len(rank) else None for k in range(1, MAX_K + 1)]
    report["bands"] = {f"{lo}-{hi}" if hi < 10**6 else f"{lo}+": summary((move >= lo) & (move <= hi)) for lo, hi in BANDS}
    return report


def evaluate_table(knowledge: Knowledge, corpus: Corpus, mask: np.ndarray, workers: int = 1,
                   progress: Callable[[int], None] | None = None) -> dict:
    """``evaluate``'s report of a ratings table: how often the move played in the positions
    of ``corpus`` selected by ``mask`` is the table's first choice, in its first 5 and 10,
    and its mean log-probability, overall and by move-number band (``evaluate_teams``).
    ``progress`` hears the games read (``build_teams``)."""
    teams = build_teams(corpus, knowledge.vocabulary, mask, workers=workers, progress=progress)
    return evaluate_teams(teams, knowledge.gamma, knowledge.latent)

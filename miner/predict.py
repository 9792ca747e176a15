"""Move prediction: how well rated features rank the moves strong players chose.

For every position, the candidates are ordered by strength (product of their
features' gammas); the rank of the move played gives top-k accuracy, and its
probability ``strength / total`` the log-likelihood. Ties count against the model:
a move tied with others takes the worst of their ranks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from shapemill.miner.rate import team_strengths
from shapemill.miner.teams import Teams

#: Move-number bands of the report: moves 1-30, 31-80, 81-150, 151 and later.
BANDS = ((1, 30), (31, 80), (81, 150), (151, 10**6))
MAX_K = 30


@njit(cache=True)
def ranks_and_logp(pos_start, chosen, strength, total) -> tuple[np.ndarray, np.ndarray]:
    """Rank (1 = the model's first choice) and log-probability of each move played."""
    n = len(chosen)
    rank = np.empty(n, dtype=np.int64)
    logp = np.empty(n)
    for j in range(n):
        s = strength[pos_start[j] + chosen[j]]
        r = 0
        for c in range(pos_start[j], pos_start[j + 1]):
            if strength[c] >= s:
                r += 1
        rank[j] = r
        logp[j] = np.log(s / total[j])
    return rank, logp


def evaluate_teams(teams: Teams, gamma: np.ndarray) -> dict:
    """Accuracy report of ``gamma`` on ``teams``: overall and by move-number band."""
    strength = np.empty(len(teams.cand_start) - 1)
    total = np.empty(teams.n_positions)
    team_strengths(teams.pos_start, teams.cand_start, teams.feats, gamma, strength, total)
    rank, logp = ranks_and_logp(teams.pos_start, teams.chosen, strength, total)
    move = teams.move_number + 1

    def summary(sel: np.ndarray) -> dict:
        n = int(sel.sum())
        r = rank[sel]
        return {
            "positions": n,
            "top1": float((r <= 1).mean()) if n else float("nan"),
            "top5": float((r <= 5).mean()) if n else float("nan"),
            "top10": float((r <= 10).mean()) if n else float("nan"),
            "mean_log_likelihood": float(logp[sel].mean()) if n else float("nan"),
        }

    everything = np.ones(len(rank), dtype=bool)
    report = summary(everything)
    report["cumulative"] = [float((rank <= k).mean()) if len(rank) else float("nan") for k in range(1, MAX_K + 1)]
    report["bands"] = {f"{lo}-{hi}" if hi < 10**6 else f"{lo}+": summary((move >= lo) & (move <= hi)) for lo, hi in BANDS}
    return report

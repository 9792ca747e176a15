"""A search as analysis tools show it: KataGo's fields for each root move and the root.

The values come from the playouts: ``winrate`` is a move's share of won playouts,
``scoreMean`` / ``scoreLead`` / ``scoreSelfplay`` the mean final area score of its
playouts (komi included) and ``scoreStdev`` their standard deviation, ``lcb`` the
win rate less 1.96 standard errors, ``utility`` ``2 winrate - 1`` (the win-loss
utility alone: shapemill does not trade score against wins). Every value is given
from one player's point of view (``perspective``): KataGo's ``kata-analyze`` uses
the player to move, the analysis engine its ``reportAnalysisWinratesAs``.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np

from ...go import rules
from ...go.board import Board
from ..search.search import LCB_Z, Search

#: KataGo's position hashes are 128 bits: 32 hexadecimal digits.
HASH_BYTES = 16


@dataclass
class MoveReport:
    """One root move: its point ((row, col), None for a pass) and statistics."""

    point: tuple[int, int] | None
    visits: int
    winrate: float
    score: float
    score_stdev: float
    prior: float
    lcb: float
    utility: float
    utility_lcb: float
    pv: list[tuple[int, int] | None]
    pv_visits: list[int]


@dataclass
class RootReport:
    """The position itself: all playouts together."""

    visits: int
    winrate: float
    score: float
    score_stdev: float
    lcb: float
    utility: float
    utility_lcb: float


@dataclass
class Report:
    """A search's analysis: the root moves most visited first, the root, the position's hashes."""

    moves: list[MoveReport]
    root: RootReport
    this_hash: str
    sym_hash: str


def lower_bound(winrate: float, visits: int) -> float:
    """The win rate less ``LCB_Z`` standard errors of a mean of ``visits`` results, at least 0."""
    if visits <= 0:
        return 0.0
    return max(0.0, winrate - LCB_Z * math.sqrt(max(winrate * (1 - winrate), 0.0) / visits))


def _point(p: int, w: int) -> tuple[int, int] | None:
    return None if p == rules.PASS else (p // w - 1, p % w - 1)


def search_report(search: Search, board: Board, color: str, pv_length: int, perspective: str,
                  min_moves: int = 0) -> Report:
    """What ``search`` (of ``board`` with ``color`` to move, running or done) found, from
    ``perspective``'s point of view ('b' or 'w'); at least ``min_moves`` moves where the
    root has them (unvisited ones by prior)."""
    w = board.size + 2
    same = perspective == color  # the moves' win rates are their mover's, ``color``'s
    sign = 1.0 if perspective == "b" else -1.0  # the scores are Black's less White's
    moves = []
    total = wins = score_sum = square_sum = 0.0
    for info in search.analysis(board, pv_length, min_moves):
        winrate = info.winrate if same else 1.0 - info.winrate
        lcb = lower_bound(winrate, info.visits)
        moves.append(MoveReport(_point(info.move, w), info.visits, winrate, sign * info.score, info.score_stdev,
                                info.prior, lcb, 2 * winrate - 1, 2 * lcb - 1, [_point(p, w) for p in info.pv],
                                list(info.pv_visits)))
        total += info.visits
        wins += info.winrate * info.visits
        score_sum += info.score * info.visits
        square_sum += (info.score_stdev ** 2 + info.score ** 2) * info.visits
    if total > 0:
        winrate = wins / total if same else 1.0 - wins / total
        mean = score_sum / total
        stdev = math.sqrt(max(square_sum / total - mean * mean, 0.0))
    else:
        winrate, mean, stdev = 0.5, 0.0, 0.0
    lcb = lower_bound(winrate, int(total))
    root = RootReport(int(total), winrate, sign * mean, stdev, lcb, 2 * winrate - 1, 2 * lcb - 1)
    this_hash, sym_hash = position_hashes(board, color)
    return Report(moves, root, this_hash, sym_hash)


def position_hashes(board: Board, color: str) -> tuple[str, str]:
    """KataGo's ``thisHash`` (the stones, the player to move and the ko ban) and ``symHash``
    (the same for all eight symmetric images of the position: the least of their hashes),
    as 32 hexadecimal digits."""
    size = board.size
    w = size + 2
    grid = board.b[rules.COLOR].reshape(w, w)[1:size + 1, 1:size + 1].astype(np.int8)
    ko = np.zeros((size, size), dtype=np.int8)
    if board.ko is not None:
        ko[board.ko] = 1
    layers = np.stack([grid, ko])
    images = []
    for k in range(4):
        turned = np.rot90(layers, k, axes=(1, 2))
        images += [turned, turned[:, :, ::-1]]

    def digest(layers: np.ndarray) -> str:
        data = np.ascontiguousarray(layers).tobytes() + color.encode()
        return hashlib.blake2b(data, digest_size=HASH_BYTES).hexdigest().upper()

    return digest(layers), min(digest(image) for image in images)

"""The search's steps 1-3 and 5 in numpy, for a query with few images (a fixed region).

``kernels.prune`` does steps 1-3 in numba for the thousands of images of ``--anywhere``
and ``--pattern-id``; a fixed region has at most 16 images, where numpy over whole
bitsets and over the surviving games is as fast, and a fresh process spares loading
numba (about a second) unless a game must be replayed. ``docs/find.md`` has the steps.
"""

from __future__ import annotations

import numpy as np

from .first import CLEARED, NEVER
from .index import GameIndex
from .query import Images

#: Empty points of an image whose bitsets are read at a time.
EMPTY_STEP = 8
#: Moves looked at a time when a continuation is sought.
CONTINUATION_STEP = 16


def _games(bits: np.ndarray) -> np.ndarray:
    """The game numbers of a bitset over the games."""
    return np.flatnonzero(np.unpackbits(bits.view(np.uint8), bitorder="little"))


def prune_few(index: GameIndex, keep: np.ndarray, imgs: Images, pt: np.ndarray, col: np.ndarray, n_stones: int,
              t_lo: int, t_hi: int) -> tuple[np.ndarray, ...]:
    """What ``kernels.prune`` returns, for the same arguments: the hits the index
    decides ``(game, image, t)`` and the pairs to replay ``(game, image, until)``.
    ``pt``/``col`` list each image's stones first, as ``prune`` wants them."""
    out: list[list[np.ndarray]] = [[] for _ in range(6)]
    for v in range(len(imgs)):
        a, z = imgs.ptr[v], imgs.ptr[v + 1]
        sp, sc = pt[a : a + n_stones].astype(np.int64), col[a : a + n_stones].astype(np.int64) - 1
        ep = pt[a + n_stones : z].astype(np.int64)
        # 1. bitsets: every stone ever there, and no late stone with an early-filled empty point
        acc = np.bitwise_and.reduce(index.ever[:, sp, sc], axis=1) & keep
        late = np.bitwise_or.reduce(index.late[:, :, sp, sc], axis=2) & acc[:, None]
        early = np.zeros_like(late)
        for k in range(0, len(ep), EMPTY_STEP):  # those filled earliest first: few reads rule most games out
            early |= np.bitwise_or.reduce(index.filled[:, :, ep[k : k + EMPTY_STEP]], axis=2)
            if not (late & ~early).any():
                break
        acc &= ~np.bitwise_or.reduce(late & early, axis=1)
        g = _games(acc)
        if not len(g):
            continue
        # 2. window: no match before lo; an empty point filled by then for good rules it out
        first = index.first
        lo = first[g[:, None], sp, sc].astype(np.int64).max(axis=1)
        cleared = first[g[:, None], sp, CLEARED].astype(np.int64).min(axis=1)
        fa = np.minimum(first[g[:, None], ep, 0], first[g[:, None], ep, 1]).astype(np.int64)
        forever = first[g[:, None], ep, CLEARED] == NEVER
        by_lo = fa <= lo[:, None]
        ok = (lo <= t_hi) & ~(by_lo & forever).any(axis=1)
        g, lo, cleared, fa, forever = g[ok], lo[ok], cleared[ok], fa[ok], forever[ok]
        # 3. decided without replay: the region at lo holds its first arrivals
        decided = (cleared > lo) & ~(fa <= lo[:, None]).any(axis=1)
        t = lo.copy()
        if imgs.next[v] != 0:
            fc = index.first_color[g].astype(np.int64)
            to_move = np.where(t % 2 == 0, fc, 3 - fc)
            n_moves = index.offsets[g + 1] - index.offsets[g]
            wrong = decided & (to_move != imgs.next[v])
            has = t < n_moves
            x = np.where(has, index.moves[np.where(has, index.offsets[g] + t, 0)], -1)
            leaves = has & (cleared > t + 1) & ((x < 0) | ~imgs.region[v, np.maximum(x, 0)])
            t = np.where(wrong & leaves, t + 1, t)
            decided &= ~(wrong & ~leaves)
        decided &= t >= t_lo
        hit = decided & (t <= t_hi)
        out[0].append(g[hit])
        out[1].append(np.full(int(hit.sum()), v))
        out[2].append(t[hit])
        # the rest: replay up to the first filling of a wanted empty point that stays filled
        until = np.where(forever, fa, NEVER).min(axis=1, initial=NEVER)
        rest = ~decided & (until > lo)
        out[3].append(g[rest])
        out[4].append(np.full(int(rest.sum()), v))
        out[5].append(until[rest])
    return tuple(np.concatenate(o).astype(np.int32) if o else np.zeros(0, np.int32) for o in out)


def continuations(hit_g: np.ndarray, hit_v: np.ndarray, hit_t: np.ndarray, moves: np.ndarray, offsets: np.ndarray,
                  first_color: np.ndarray, zone: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each hit's continuation: the first move from its position on that lands in its
    image's ``zone``: (point, colour, move index), -1 (colour 0) when the game ends first."""
    n = len(hit_g)
    pt = np.full(n, -1, dtype=np.int32)
    color = np.zeros(n, dtype=np.int8)
    at = np.full(n, -1, dtype=np.int32)
    hit_g, hit_v = np.asarray(hit_g, dtype=np.int64), np.asarray(hit_v, dtype=np.int64)
    start, end = offsets[hit_g] + np.asarray(hit_t, dtype=np.int64), offsets[hit_g + 1]
    open_ = np.flatnonzero(start < end)
    step = np.arange(CONTINUATION_STEP)
    while len(open_):
        i = start[open_, None] + step
        valid = i < end[open_, None]
        x = np.where(valid, moves[np.where(valid, i, 0)], -1).astype(np.int64)
        inside = valid & (x >= 0) & zone[hit_v[open_, None], np.maximum(x, 0)]
        found = inside.any(axis=1)
        k = inside.argmax(axis=1)
        h = open_[found]
        pt[h] = x[found, k[found]]
        t = i[found, k[found]] - offsets[hit_g[h]]
        fc = first_color[hit_g[h]].astype(np.int64)
        color[h] = np.where(t % 2 == 0, fc, 3 - fc)
        at[h] = t
        start[open_] += CONTINUATION_STEP
        open_ = open_[~found & (start[open_] < end[open_])]
    return pt, color, at

"""The numba kernels of ``find``: the index's replay, the pruning, the matching replay.

Points are record indices (``row * size + col``). An *image* of the query (one
symmetry, colour swap and translation) is a list of ``(point, colour)`` pairs that
must all hold (colour 0 empty, 1 black, 2 white); images are stored side by side,
image ``v`` owning entries ``img_ptr[v]:img_ptr[v + 1]`` of ``img_pt`` / ``img_col``.

A position is named by ``t``, the number of moves played (0: the setup stones).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..go.rules import COLOR, EMPTY, HEAD, NEXT, STRIDE, atari_point, in_atari, new_board, place_setup, play, to_index, to_point
from .first import CLEARED, NEVER



@njit(cache=True)
def play_capturing(b: np.ndarray, m: np.ndarray, color: int, p: int, removed: np.ndarray) -> int:
    """Play ``color`` at board point ``p`` (PASS allowed); the board points of the
    stones it captures go to ``removed``, their number is returned."""
    n = 0
    if p == 0:
        play(b, m, color, p)
        return 0
    w = m[STRIDE]
    for q in (p - 1, p + 1, p - w, p + w):
        c = b[COLOR, q]
        if c == 3 - color and in_atari(b, b[HEAD, q]) and atari_point(b, b[HEAD, q]) == p:
            h = b[HEAD, q]
            seen = False
            for k in range(n):
                if removed[k] == h:
                    seen = True
            if seen:
                continue
            s = h
            while True:
                removed[n] = s
                n += 1
                s = b[NEXT, s]
                if s == h:
                    break
    play(b, m, color, p)
    return n


@njit(cache=True)
def index_games(
    size: int, moves: np.ndarray, offsets: np.ndarray, first_color: np.ndarray,
    setup_pt: np.ndarray, setup_col: np.ndarray, setup_ptr: np.ndarray, first: np.ndarray,
) -> None:
    """Replay every game once and record, per game and point, the first position
    holding each colour there (``first[g, point, colour - 1]``) and the first
    position where a stone there had been captured (``first[g, point, CLEARED]``);
    ``NEVER`` where none."""
    removed = np.empty(size * size + 1, dtype=np.int64)
    for g in range(len(offsets) - 1):
        b, m = new_board(size)
        for k in range(setup_ptr[g], setup_ptr[g + 1]):
            place_setup(b, m, setup_col[k], to_point(setup_pt[k], size))
            if first[g, setup_pt[k], setup_col[k] - 1] == NEVER:
                first[g, setup_pt[k], setup_col[k] - 1] = 0
        color = first_color[g]
        for i in range(offsets[g], offsets[g + 1]):
            t = i - offsets[g] + 1
            x = moves[i]
            n = play_capturing(b, m, color, to_point(x, size), removed)
            if x >= 0 and first[g, x, color - 1] == NEVER:
                first[g, x, color - 1] = t
            for k in range(n):
                q = to_index(removed[k], size)
                if first[g, q, CLEARED] == NEVER:
                    first[g, q, CLEARED] = t
            color = 3 - color


@njit(cache=True)
def _grow(a: np.ndarray, n: int) -> np.ndarray:
    if n < len(a):
        return a
    out = np.empty(2 * len(a) + 16, dtype=a.dtype)
    out[: len(a)] = a
    return out


@njit(cache=True)
def prune(
    words: int, ever: np.ndarray, late_bits: np.ndarray, filled_bits: np.ndarray, keep: np.ndarray, first: np.ndarray,
    offsets: np.ndarray, moves: np.ndarray, first_color: np.ndarray,
    setup_pt: np.ndarray, setup_ptr: np.ndarray, img_pt: np.ndarray, img_col: np.ndarray,
    img_ptr: np.ndarray, n_stones: int, img_next: np.ndarray, in_region: np.ndarray,
    want_empty: np.ndarray, t_lo: int, t_hi: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every (game, image) the index cannot rule out: those whose first occurrence
    it proves, as hits ``(game, image, t)``, and the rest, to be replayed ``(game,
    image, until)``: the image cannot match from position ``until`` on.

    ``ever[w, point, colour - 1]`` is word ``w`` of the bitset of the games where that
    colour ever stood on that point, ``late_bits[w, k, point, colour - 1]`` of those where
    it came at move ``THRESHOLDS[k]`` or later, ``filled_bits[w, k, point]`` of those where
    the point was filled for good before that move; ``keep`` the bitset of the games
    the filters keep. A game with a late stone and an early filled empty point of an
    image is ruled out by the bitsets alone. An image needs each of its stones' (point, colour) ever; it cannot
    match before ``L``, the last first arrival of its stones, nor from the first
    arrival on one of its empty points where no stone was ever captured (the point
    stays occupied). When no stone of its points was captured up to ``L``, its
    points at ``L`` hold their first arrivals, so the index decides the match at
    ``L`` itself. ``img_next[v]`` is the
    colour that must be to move (0 any), ``in_region[v, point]`` the image's points,
    ``want_empty[v, point]`` those it wants empty, ``t_lo..t_hi`` the positions kept;
    each image lists its ``n_stones`` stones first.
    Whether an empty point was filled before ``L`` is read from the first ``L`` moves
    when they are fewer than the image's points, else from ``first``.
    """
    hit_g = np.empty(1024, dtype=np.int32)
    hit_v = np.empty(1024, dtype=np.int32)
    hit_t = np.empty(1024, dtype=np.int32)
    rep_g = np.empty(1024, dtype=np.int32)
    rep_v = np.empty(1024, dtype=np.int32)
    rep_u = np.empty(1024, dtype=np.int32)
    nh = 0
    nr = 0
    # words outer, images inner: the 64 games of a word stay in the cache for every image
    for w in range(words):
        for v in range(len(img_ptr) - 1):
            a, z = img_ptr[v], img_ptr[v + 1]
            acc = keep[w]
            for k in range(a, a + n_stones):
                acc &= ever[w, img_pt[k], img_col[k] - 1]
                if acc == 0:
                    break
            for th in range(late_bits.shape[1]):
                if acc == 0:
                    break
                lt = np.uint64(0)
                for k in range(a, a + n_stones):
                    lt |= late_bits[w, th, img_pt[k], img_col[k] - 1]
                lt &= acc
                if lt == 0:
                    continue
                early = np.uint64(0)
                for k in range(a + n_stones, z):
                    early |= filled_bits[w, th, img_pt[k]]
                    if early & lt == lt:
                        break
                acc &= ~(lt & early)
            if acc == 0:
                continue
            for bit in range(64):
                if not (acc >> np.uint64(bit)) & np.uint64(1):
                    continue
                g = w * 64 + bit
                lo = 0
                cleared = np.int64(NEVER)  # the first capture on the image's stone points
                for k in range(a, a + n_stones):
                    f = np.int64(first[g, img_pt[k], img_col[k] - 1])
                    if f > lo:
                        lo = f
                    cleared = min(cleared, np.int64(first[g, img_pt[k], CLEARED]))
                if lo > t_hi:
                    continue
                dead = False
                filled = False
                if lo <= z - a:
                    # few moves before lo: look for one that filled a wanted empty point
                    for i in range(setup_ptr[g], setup_ptr[g + 1]):
                        q = setup_pt[i]
                        if want_empty[v, q]:
                            if first[g, q, CLEARED] == NEVER:
                                dead = True
                                break
                            filled = True
                    for i in range(offsets[g], offsets[g] + lo):
                        q = moves[i]
                        if dead or q < 0 or not want_empty[v, q]:
                            continue
                        if first[g, q, CLEARED] == NEVER:
                            dead = True
                            break
                        filled = True
                else:
                    for k in range(a + n_stones, z):
                        q = img_pt[k]
                        fa = min(np.int64(first[g, q, 0]), np.int64(first[g, q, 1]))
                        if fa <= lo:
                            if first[g, q, CLEARED] == NEVER:
                                dead = True
                                break
                            filled = True
                if dead:
                    continue
                n_moves = offsets[g + 1] - offsets[g]
                t = lo
                decided = cleared > lo and not filled
                if decided and img_next[v] != 0:
                    to_move = first_color[g] if t % 2 == 0 else 3 - first_color[g]
                    if to_move != img_next[v]:
                        # the match lasts into t + 1 when move t leaves the image alone
                        x = moves[offsets[g] + t] if t < n_moves else -1
                        if t < n_moves and cleared > t + 1 and (x < 0 or not in_region[v, x]):
                            t += 1
                        else:
                            decided = False
                if decided and t < t_lo:
                    decided = False
                if decided:
                    if t <= t_hi:
                        hit_g = _grow(hit_g, nh)
                        hit_v = _grow(hit_v, nh)
                        hit_t = _grow(hit_t, nh)
                        hit_g[nh], hit_v[nh], hit_t[nh] = g, v, t
                        nh += 1
                    continue
                # replay up to the first filling of a wanted empty point that stays filled
                until = np.int64(NEVER)
                for k in range(a + n_stones, z):
                    q = img_pt[k]
                    if first[g, q, CLEARED] == NEVER:
                        until = min(until, np.int64(first[g, q, 0]), np.int64(first[g, q, 1]))
                if until <= lo:
                    continue
                rep_g = _grow(rep_g, nr)
                rep_v = _grow(rep_v, nr)
                rep_u = _grow(rep_u, nr)
                rep_g[nr], rep_v[nr], rep_u[nr] = g, v, until
                nr += 1
    return hit_g[:nh], hit_v[:nh], hit_t[:nh], rep_g[:nr], rep_v[:nr], rep_u[:nr]


@njit(cache=True)
def replay_match(
    size: int, games: np.ndarray, images: np.ndarray, until: np.ndarray, moves: np.ndarray, offsets: np.ndarray,
    first_color: np.ndarray, setup_pt: np.ndarray, setup_col: np.ndarray, setup_ptr: np.ndarray,
    img_pt: np.ndarray, img_col: np.ndarray, img_ptr: np.ndarray, img_next: np.ndarray,
    t_lo: int, t_hi: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Replay each game of ``games`` (sorted; ``images`` beside it: the images to look
    for in that game, each before position ``until``) and return the first position
    ``t_lo <= t <= t_hi`` where each image matches with ``img_next[v]`` to move, as
    hits ``(game, image, t)``."""
    n_points = size * size
    n_img = len(img_ptr) - 1
    # each point's (image, wanted colour) pairs, so a changed point updates its images only
    count = np.zeros(n_points + 1, dtype=np.int64)
    for k in range(len(img_pt)):
        count[img_pt[k] + 1] += 1
    pt_ptr = np.cumsum(count)
    pt_img = np.empty(len(img_pt), dtype=np.int32)
    pt_col = np.empty(len(img_pt), dtype=np.int8)
    fill = pt_ptr[:-1].copy()
    for v in range(n_img):
        for k in range(img_ptr[v], img_ptr[v + 1]):
            j = fill[img_pt[k]]
            pt_img[j] = v
            pt_col[j] = img_col[k]
            fill[img_pt[k]] += 1
    active = np.zeros(n_img, dtype=np.bool_)
    found = np.zeros(n_img, dtype=np.bool_)
    wrong = np.zeros(n_img, dtype=np.int32)
    col = np.zeros(n_points, dtype=np.int8)
    removed = np.empty(n_points + 1, dtype=np.int64)
    hit_g = np.empty(1024, dtype=np.int32)
    hit_v = np.empty(1024, dtype=np.int32)
    hit_t = np.empty(1024, dtype=np.int32)
    nh = 0
    i = 0
    while i < len(games):
        g = games[i]
        j = i
        stop = 0
        while j < len(games) and games[j] == g:
            active[images[j]] = True
            found[images[j]] = False
            stop = max(stop, until[j])
            j += 1
        b, m = new_board(size)
        col[:] = 0
        for k in range(setup_ptr[g], setup_ptr[g + 1]):
            place_setup(b, m, setup_col[k], to_point(setup_pt[k], size))
        for p in range(n_points):
            col[p] = b[COLOR, to_point(p, size)]
        for k in range(i, j):
            v = images[k]
            wrong[v] = 0
            for e in range(img_ptr[v], img_ptr[v + 1]):
                if col[img_pt[e]] != img_col[e]:
                    wrong[v] += 1
        left = j - i
        color = first_color[g]
        n_moves = offsets[g + 1] - offsets[g]
        for t in range(n_moves + 1):
            if t > t_hi or t >= stop:
                break
            if t >= t_lo:
                for k in range(i, j):
                    v = images[k]
                    if not found[v] and wrong[v] == 0 and t < until[k] and (img_next[v] == 0 or img_next[v] == color):
                        found[v] = True
                        left -= 1
                        hit_g = _grow(hit_g, nh)
                        hit_v = _grow(hit_v, nh)
                        hit_t = _grow(hit_t, nh)
                        hit_g[nh], hit_v[nh], hit_t[nh] = g, v, t
                        nh += 1
            if left == 0 or t == n_moves:
                break
            x = moves[offsets[g] + t]
            n = play_capturing(b, m, color, to_point(x, size), removed)
            if x >= 0:
                _set(x, color, col, wrong, pt_ptr, pt_img, pt_col, active)
            for k in range(n):
                _set(to_index(removed[k], size), EMPTY, col, wrong, pt_ptr, pt_img, pt_col, active)
            color = 3 - color
        for k in range(i, j):
            active[images[k]] = False
        i = j
    return hit_g[:nh], hit_v[:nh], hit_t[:nh]


@njit(cache=True)
def _set(p: int, c: int, col: np.ndarray, wrong: np.ndarray, pt_ptr: np.ndarray, pt_img: np.ndarray,
         pt_col: np.ndarray, active: np.ndarray) -> None:
    """Point ``p`` becomes colour ``c``: update the mismatch count of the active images on it."""
    old = col[p]
    col[p] = c
    for e in range(pt_ptr[p], pt_ptr[p + 1]):
        v = pt_img[e]
        if active[v]:
            if pt_col[e] == old:
                wrong[v] += 1
            if pt_col[e] == c:
                wrong[v] -= 1


@njit(cache=True)
def continuations(
    hit_g: np.ndarray, hit_v: np.ndarray, hit_t: np.ndarray, moves: np.ndarray, offsets: np.ndarray,
    first_color: np.ndarray, zone: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each hit's continuation: the first move from its position on that lands in its
    image's ``zone``: (point, colour, move index), -1 when the game ends first."""
    n = len(hit_g)
    pt = np.full(n, -1, dtype=np.int32)
    color = np.zeros(n, dtype=np.int8)
    at = np.full(n, -1, dtype=np.int32)
    for h in range(n):
        g, v = hit_g[h], hit_v[h]
        for i in range(offsets[g] + hit_t[h], offsets[g + 1]):
            x = moves[i]
            if x >= 0 and zone[v, x]:
                t = i - offsets[g]
                pt[h] = x
                color[h] = first_color[g] if t % 2 == 0 else 3 - first_color[g]
                at[h] = t
                break
    return pt, color, at


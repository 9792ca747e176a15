"""The numba kernels of ``find``: the index's replay, the pruning, the matching replay.

Points are record indices (``row * size + col``). An *image* of the query (one
symmetry, colour swap and translation) is a list of ``(point, colour)`` pairs that
must all hold (colour 0 empty, 1 black, 2 white); images are stored side by side,
image ``v`` owning entries ``ptr[v]:ptr[v + 1]`` of ``QueryImages.pt`` / ``.col``.

A position is named by ``t``, the number of moves played (0: the setup stones).

Reading order: the records that cross into numba are in ``records``; here
``index_games`` (the index's replay); ``prune`` (per bitset word
``_word_filter``, then per game ``_all_down``, ``_filled_by_first`` or
``_filled_in_moves``, ``_decide`` and ``_window``); ``replay_match`` (per game ``_set_up``
and ``_replay_game`` with ``_set``); ``continuations``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ..go.reading import adjacent_strings
from ..go.rules import (
    COLOR,
    EMPTY,
    NEXT,
    STRIDE,
    atari_point,
    in_atari,
    new_board,
    place_setup,
    play,
    to_index,
    to_point,
)
from .first import CLEARED, NEVER
from .records import Continuations, GameArrays, GameBits, Hits, QueryImages, Replays

#: The steps run per game inside ``replay_match`` take records and are inlined: a plain
#: call passes each array of the records one by one, counting its references (measured:
#: twice the pruning's time for ``--anywhere`` queries when ``prune``'s steps took
#: records). ``prune``'s steps, run per game and image, take the few arrays they read
#: and are plain calls: inlined, even a bare array argument is counted once a call
#: (3-6% on queries with thousands of hits).
PER_GAME = "always"
#: Queries with this many images (``--anywhere``, ``--pattern-id``: thousands) read a
#: word's bitsets, then the rows of ``first`` of its candidate games, from start to end
#: before reading them at random (images all over the board need every part of them):
#: streamed in, they are cached when the filter and the per-pair steps ask (measured
#: on the bench's queries: ``prune`` 10-14% faster for the rows of ``first``, 8-12% more
#: for the bitsets). A fixed region (at most 16 images) reads a few points of a row.
READ_ROWS_FROM = 64
#: Room for hits and replays before the first growth (doubled as needed).
FIRST_ROOM = 1024
#: ``_decide``: the index alone cannot say where the image first matches.
UNDECIDED = -1
#: ``_filled_by_first``, ``_filled_in_moves``: no wanted-empty point of the image was filled before its stones were down.
NOT_FILLED = 0
#: ... some were, and each of them was captured later (the index cannot decide).
FILLED = 1
#: ... one was, and no stone there was ever captured: the image never matches in that game.
FILLED_FOR_GOOD = 2


class ReplayScratch(NamedTuple):
    """The matching replay's state over the images and the points of one game. The
    images replayed in a game are listed per point (``head``, ``link``), so that a
    changed point updates those images only, whatever the query's number of images."""

    found: np.ndarray  # bool[images]: already hit in the game replayed
    wrong: np.ndarray  # int32[images]: its points that do not hold the wanted colour
    col: np.ndarray  # int8[points]: the board's colours
    removed: np.ndarray  # int64[points + 1]: the stones a move captures
    head: np.ndarray  # int32[points]: the first entry on each point (-1: none)
    link: np.ndarray  # int32[entries]: the next entry on the same point (-1: none)
    entry_image: np.ndarray  # int32[entries]: the image an entry is a point of
    entry_col: np.ndarray  # int8[entries]: the colour that image wants there


@njit(cache=True)
def play_capturing(b: np.ndarray, m: np.ndarray, color: int, p: int, removed: np.ndarray) -> int:
    """Play ``color`` at board point ``p`` (PASS allowed); the board points of the
    stones it captures go to ``removed``, their number is returned."""
    n = 0
    if p == 0:
        play(b, m, color, p)
        return 0
    for h in adjacent_strings(b, m[STRIDE], 3 - color, p):
        if h >= 0 and in_atari(b, h) and atari_point(b, h) == p:
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
def index_games(size: int, games: GameArrays, first: np.ndarray) -> None:
    """Replay every game once and record, per game and point, the first position
    holding each colour there (``first[g, point, colour - 1]``) and the first
    position where a stone there had been captured (``first[g, point, CLEARED]``);
    ``NEVER`` where none."""
    moves, offsets, first_color, setup_pt, setup_col, setup_ptr = games
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
def _append(a: np.ndarray, b: np.ndarray, c: np.ndarray, n: int, x: int, y: int,
            z: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The columns ``a``, ``b``, ``c`` of a hit or replay list (``n`` rows so far) with
    the row (``x``, ``y``, ``z``) written at ``n``, each grown first when full."""
    a, b, c = _grow(a, n), _grow(b, n), _grow(c, n)
    a[n], b[n], c[n] = x, y, z
    return a, b, c


@njit(cache=True)
def _no_hits() -> Hits:
    """Room for ``FIRST_ROOM`` hits (or replays), none there yet."""
    room = np.empty(FIRST_ROOM, dtype=np.int32)
    return Hits(room, room.copy(), room.copy())


@njit(cache=True)
def prune(first: np.ndarray, bits: GameBits, games: GameArrays, img: QueryImages, t_lo: int,
          t_hi: int) -> tuple[Hits, Replays]:
    """Every (game, image) the index cannot rule out: those whose first occurrence
    it proves, as ``Hits``, and the rest as ``Replays``.

    An image needs each of its stones' (point, colour) ever (``_word_filter``); it
    cannot match before ``L``, the position where its stones are all down
    (``_all_down``), nor from the first arrival on one of its empty points where no
    stone was ever captured (``_filled_by_first`` or ``_filled_in_moves``, whichever
    reads less), nor while one of its empty points filled by then waits for its first
    capture (``_window``). When no stone
    of its points was captured up to ``L``, its points at ``L`` hold their first
    arrivals, so the index decides the match at ``L`` itself (``_decide``);
    ``t_lo..t_hi`` are the positions kept.
    """
    hit_g, hit_v, hit_t = _no_hits()
    rep_g, rep_v, rep_u = _no_hits()
    nh = nr = 0
    pt, col, ptr, stones = img.pt, img.col, img.ptr, img.stones
    moves, offsets, first_color, to_move, region = games.moves, games.offsets, games.first_color, img.next, img.region
    word = np.empty(len(ptr) - 1, dtype=np.uint64)
    key = _bit_keys(img)
    read = np.zeros(1, dtype=np.uint64)
    ahead = len(word) >= READ_ROWS_FROM
    for w in range(bits.ever.shape[0]):
        if ahead:
            _read_bits(bits, w, read)
        _word_filter(bits, ptr, stones, key, w, word)
        if ahead:
            _read_rows(first, w, word, read)
        for v in range(len(word)):
            acc = word[v]
            if acc == 0:
                continue
            a, z = ptr[v], ptr[v + 1]
            while acc != 0:
                g = w * 64 + trailing_zeros(acc)
                acc &= acc - np.uint64(1)
                lo, cleared = _all_down(first, g, pt, col, a, a + stones)
                if lo > t_hi:
                    continue
                if lo <= z - a:
                    filled = _filled_in_moves(first, games, g, lo, img.want_empty, v)
                else:
                    filled = _filled_by_first(first, g, lo, pt, a + stones, z)
                if filled == FILLED_FOR_GOOD:
                    continue
                t = UNDECIDED
                if cleared > lo and filled == NOT_FILLED:
                    t = _decide(moves[offsets[g] : offsets[g + 1]], first_color[g], to_move[v], region[v], lo, cleared,
                                t_lo)
                if t != UNDECIDED:
                    if t <= t_hi:
                        hit_g, hit_v, hit_t = _append(hit_g, hit_v, hit_t, nh, g, v, t)
                        nh += 1
                    continue
                start, until = _window(first, g, lo, pt, a + stones, z)
                if start < until and start <= t_hi:
                    rep_g, rep_v, rep_u = _append(rep_g, rep_v, rep_u, nr, g, v, until)
                    nr += 1
    return Hits(hit_g[:nh], hit_v[:nh], hit_t[:nh]), Replays(rep_g[:nr], rep_v[:nr], rep_u[:nr])


@njit(cache=True)
def _read_bits(bits: GameBits, w: int, read: np.ndarray) -> None:
    """Read the bitsets of word ``w`` from start to end (``READ_ROWS_FROM``); a
    checksum goes to ``read[0]``, so that the reads are kept."""
    total = np.uint64(0)
    for row in (bits.ever[w], bits.late[w], bits.filled[w]):
        for k in range(0, len(row), 8):
            total ^= row[k]
    read[0] ^= total


@njit(cache=True)
def _read_rows(first: np.ndarray, w: int, word: np.ndarray, read: np.ndarray) -> None:
    """Read the rows of ``first`` of the games of word ``w`` that some image may occur
    in (``READ_ROWS_FROM``), from start to end; a checksum goes to ``read[0]``."""
    games = np.uint64(0)
    for v in range(len(word)):
        games |= word[v]
    total = np.uint64(0)
    while games != 0:
        g = w * 64 + trailing_zeros(games)
        games &= games - np.uint64(1)
        for p in range(0, first.shape[1], 8):
            total ^= np.uint64(first[g, p, 0])
    read[0] ^= total


@njit(cache=True)
def _bit_keys(img: QueryImages) -> np.ndarray:
    """Where each entry of each image is read in a word's row of the bitsets: a stone
    at ``point * 2 + colour - 1`` of a (point, colour) plane, an empty point at
    ``point`` of a point plane; unsigned, so that a read needs no negative-index check."""
    key = np.empty(len(img.pt), dtype=np.uint64)
    for v in range(len(img.ptr) - 1):
        a = img.ptr[v]
        for k in range(a, img.ptr[v + 1]):
            key[k] = 2 * img.pt[k] + img.col[k] - 1 if k < a + img.stones else img.pt[k]
    return key


@njit(cache=True)
def _word_filter(bits: GameBits, ptr: np.ndarray, n_stones: int, key: np.ndarray, w: int, word: np.ndarray) -> None:
    """The games of bitset word ``w`` where each image ``v`` may occur, into
    ``word[v]``: each of its stones' (point, colour) ever, and no empty point of it
    filled for good before the threshold its last stone came at or after (``key``:
    ``_bit_keys``). Images inner: the 64 games of a word stay in the cache for every
    image.

    A game is asked about one threshold only, the latest its last stone reached
    (``late`` shrinks and ``filled`` grows with the threshold, so the earlier ones
    rule out nothing more): thresholds from the last down, each with the games whose
    stones all came before the one above it, until every game left has one."""
    ever, late, filled, keep = bits
    n_th = late.shape[1] // ever.shape[1]
    stone_plane, point_plane = np.uint64(ever.shape[1]), np.uint64(filled.shape[1] // n_th)
    for v in range(len(ptr) - 1):
        a, z = ptr[v], ptr[v + 1]
        acc = keep[w]
        for k in range(a, a + n_stones):
            acc &= ever[w, key[k]]
            if acc == 0:
                break
        above = np.uint64(0)  # games whose last stone came at a later threshold
        th = n_th - 1
        while th >= 0 and acc != 0 and above != acc:
            lt = np.uint64(0)
            at = np.uint64(th) * stone_plane
            for k in range(a, a + n_stones):
                lt |= late[w, at + key[k]]
            lt &= acc
            here = lt & ~above
            if here != 0:
                early = np.uint64(0)
                at = np.uint64(th) * point_plane
                for k in range(a + n_stones, z):
                    early |= filled[w, at + key[k]]
                    if early & here == here:
                        break
                acc &= ~(here & early)
            above = lt & acc
            th -= 1
        word[v] = acc


@njit(cache=True)
def _all_down(first: np.ndarray, g: int, pt: np.ndarray, col: np.ndarray, a: int, b: int) -> tuple[int, int]:
    """``L``, the first position where every stone of an image (``pt[a:b]`` of colours
    ``col[a:b]``) has arrived in game ``g``, and the first position where a stone on
    one of those points was captured."""
    lo = 0
    cleared = np.int64(NEVER)
    for k in range(a, b):
        f = np.int64(first[g, pt[k], col[k] - 1])
        if f > lo:
            lo = f
        cleared = min(cleared, np.int64(first[g, pt[k], CLEARED]))
    return lo, cleared


@njit(cache=True)
def _filled_by_first(first: np.ndarray, g: int, lo: int, pt: np.ndarray, a: int, z: int) -> int:
    """Whether one of the points ``pt[a:z]`` an image wants empty was filled in game
    ``g`` by position ``lo``, read from ``first``: ``NOT_FILLED``, ``FILLED`` or
    ``FILLED_FOR_GOOD``."""
    filled = NOT_FILLED
    for k in range(a, z):
        q = pt[k]
        if min(np.int64(first[g, q, 0]), np.int64(first[g, q, 1])) <= lo:
            if first[g, q, CLEARED] == NEVER:
                return FILLED_FOR_GOOD
            filled = FILLED
    return filled


@njit(cache=True)
def _filled_in_moves(first: np.ndarray, games: GameArrays, g: int, lo: int, want_empty: np.ndarray, v: int) -> int:
    """The same read from the setup stones and the first ``lo`` moves of game ``g``
    (cheaper when they are fewer than the image's points)."""
    filled = NOT_FILLED
    for i in range(games.setup_ptr[g], games.setup_ptr[g + 1]):
        q = games.setup_pt[i]
        if want_empty[v, q]:
            if first[g, q, CLEARED] == NEVER:
                return FILLED_FOR_GOOD
            filled = FILLED
    moves = games.moves
    for i in range(games.offsets[g], games.offsets[g] + lo):
        q = moves[i]
        if q >= 0 and want_empty[v, q]:
            if first[g, q, CLEARED] == NEVER:
                return FILLED_FOR_GOOD
            filled = FILLED
    return filled


@njit(cache=True)
def _decide(game: np.ndarray, first_color: int, to_move: int, region: np.ndarray, lo: int, cleared: int,
            t_lo: int) -> int:
    """The position where an image first matches a game (its moves ``game``,
    ``first_color`` to play first) as the index proves it when the image's stones are all down at
    ``lo``, none captured before ``cleared``, and no point it wants empty filled yet:
    ``lo``, or one move later when the image wants ``to_move`` to move (0: any), the
    other colour is, and its move leaves the image's ``region`` alone; else ``UNDECIDED``."""
    t = lo
    if to_move != 0 and to_move != (first_color if t % 2 == 0 else 3 - first_color):
        if t >= len(game) or cleared <= t + 1:
            return UNDECIDED
        x = game[t]
        if x >= 0 and region[x]:
            return UNDECIDED
        t += 1
    if t < t_lo:
        return UNDECIDED
    return t


@njit(cache=True)
def _window(first: np.ndarray, g: int, lo: int, pt: np.ndarray, a: int, z: int) -> tuple[int, int]:
    """The positions of game ``g`` where an image whose stones are all down at ``lo``
    may match, ``start <= t < until``, from its wanted-empty points ``pt[a:z]``:
    ``until`` is the first where one of them is filled for good (``NEVER`` when
    none); a point filled at or before ``start`` and first emptied by a capture later
    stays filled until then, so ``start`` moves to that capture (as often as that
    happens). A replay is needed only when ``start < until``."""
    until = np.int64(NEVER)
    for k in range(a, z):
        q = pt[k]
        if first[g, q, CLEARED] == NEVER:
            until = min(until, np.int64(first[g, q, 0]), np.int64(first[g, q, 1]))
    start = np.int64(lo)
    moved = True
    while moved and start < until:
        moved = False
        for k in range(a, z):
            q = pt[k]
            cleared = np.int64(first[g, q, CLEARED])
            if start < cleared < NEVER and min(np.int64(first[g, q, 0]), np.int64(first[g, q, 1])) <= start:
                start = cleared
                moved = True
    return start, until


@njit(cache=True)
def replay_match(size: int, todo: Replays, games: GameArrays, img: QueryImages, t_lo: int, t_hi: int) -> Hits:
    """Replay each game of ``todo`` (sorted by game) and return the first position
    ``t_lo <= t <= t_hi`` before its ``until`` where each image matches with
    ``img.next[v]`` to move."""
    n_points = size * size
    n_img = len(img.ptr) - 1
    s = ReplayScratch(np.zeros(n_img, dtype=np.bool_), np.zeros(n_img, dtype=np.int32),
                      np.zeros(n_points, dtype=np.int8), np.empty(n_points + 1, dtype=np.int64),
                      np.full(n_points, -1, dtype=np.int32), np.empty(len(img.pt), dtype=np.int32),
                      np.empty(len(img.pt), dtype=np.int32), np.empty(len(img.pt), dtype=np.int8))
    hits, nh = _no_hits(), 0
    i = 0
    while i < len(todo.game):
        j = i
        while j < len(todo.game) and todo.game[j] == todo.game[i]:
            j += 1
        b, m = _set_up(size, games, img, todo, i, j, s)
        hits, nh = _replay_game(b, m, size, games, img, todo, i, j, s, t_lo, t_hi, hits, nh)
        i = j
    return Hits(hits.game[:nh], hits.image[:nh], hits.t[:nh])


@njit(cache=True, inline=PER_GAME)
def _set_up(size: int, games: GameArrays, img: QueryImages, todo: Replays, i: int, j: int,
            s: ReplayScratch) -> tuple[np.ndarray, np.ndarray]:
    """The board of game ``todo.game[i]`` before its first move, with the images
    ``todo.image[i:j]`` listed on their points, none found, and their mismatches counted."""
    found, wrong, col, _, head, link, entry_image, entry_col = s
    images = todo.image
    g = todo.game[i]
    b, m = new_board(size)
    for k in range(games.setup_ptr[g], games.setup_ptr[g + 1]):
        place_setup(b, m, games.setup_col[k], to_point(games.setup_pt[k], size))
    for p in range(size * size):
        col[p] = b[COLOR, to_point(p, size)]
    pt, img_col, ptr = img.pt, img.col, img.ptr
    n = 0
    for k in range(i, j):
        v = images[k]
        found[v] = False
        wrong[v] = 0
        for e in range(ptr[v], ptr[v + 1]):
            q = pt[e]
            if col[q] != img_col[e]:
                wrong[v] += 1
            entry_image[n], entry_col[n], link[n] = v, img_col[e], head[q]
            head[q] = n
            n += 1
    return b, m


@njit(cache=True, inline=PER_GAME)
def _replay_game(b: np.ndarray, m: np.ndarray, size: int, games: GameArrays, img: QueryImages, todo: Replays,
                 i: int, j: int, s: ReplayScratch, t_lo: int, t_hi: int, hits: Hits, nh: int) -> tuple[Hits, int]:
    """Play game ``todo.game[i]`` on from its set-up board until each image of
    ``todo.image[i:j]`` is found or can no longer match, adding its hits to ``hits``
    (``nh`` of them so far); the images' points end unlisted."""
    found, wrong, col, removed, head, link, entry_image, entry_col = s
    images, until, to_move = todo.image, todo.until, img.next
    g = todo.game[i]
    stop = 0
    for k in range(i, j):
        stop = max(stop, until[k])
    left = j - i
    color = games.first_color[g]
    start = games.offsets[g]
    n_moves = games.offsets[g + 1] - start
    moves = games.moves
    for t in range(n_moves + 1):
        if t > t_hi or t >= stop:
            break
        if t >= t_lo:
            for k in range(i, j):
                v = images[k]
                if not found[v] and wrong[v] == 0 and t < until[k] and (to_move[v] == 0 or to_move[v] == color):
                    found[v] = True
                    left -= 1
                    hits = Hits(*_append(hits.game, hits.image, hits.t, nh, g, v, t))
                    nh += 1
        if left == 0 or t == n_moves:
            break
        x = moves[start + t]
        n = play_capturing(b, m, color, to_point(x, size), removed)
        if x >= 0:
            _set(x, color, col, wrong, head, link, entry_image, entry_col)
        for k in range(n):
            _set(to_index(removed[k], size), EMPTY, col, wrong, head, link, entry_image, entry_col)
        color = 3 - color
    for k in range(i, j):
        v = images[k]
        for e in range(img.ptr[v], img.ptr[v + 1]):
            head[img.pt[e]] = -1
    return hits, nh


@njit(cache=True)
def _set(p: int, c: int, col: np.ndarray, wrong: np.ndarray, head: np.ndarray, link: np.ndarray,
         entry_image: np.ndarray, entry_col: np.ndarray) -> None:
    """Point ``p`` becomes colour ``c``: update the mismatch count of the images listed
    on it (``ReplayScratch``'s arrays)."""
    old = col[p]
    col[p] = c
    e = head[p]
    while e >= 0:
        v = entry_image[e]
        if entry_col[e] == old:
            wrong[v] += 1
        if entry_col[e] == c:
            wrong[v] -= 1
        e = link[e]


@njit(cache=True)
def continuations(hits: Hits, games: GameArrays, zone: np.ndarray) -> Continuations:
    """Each hit's continuation: the first move from its position on that lands in its
    image's ``zone``, -1 (colour 0) when the game ends first."""
    n = len(hits.game)
    out = Continuations(np.full(n, -1, dtype=np.int32), np.zeros(n, dtype=np.int8), np.full(n, -1, dtype=np.int32))
    point, color, at = out
    moves, offsets, first_color = games.moves, games.offsets, games.first_color
    hit_g, hit_v, hit_t = hits
    for h in range(n):
        g, v = hit_g[h], hit_v[h]
        for i in range(offsets[g] + hit_t[h], offsets[g + 1]):
            x = moves[i]
            if x >= 0 and zone[v, x]:
                t = i - offsets[g]
                point[h] = x
                color[h] = first_color[g] if t % 2 == 0 else 3 - first_color[g]
                at[h] = t
                break
    return out

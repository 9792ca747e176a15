"""The string family: captures, extensions, ataris, self-ataris and ladders of a move.

Reading order: ``string_features`` counts the strings around the move and the
liberties of the string it makes, then hands each tactical question to its own
function: ``capture_level``, ``extension_level``, ``atari_level``. Ladders are read
only for ataris, extensions to two liberties and captures whose string could extend
to two liberties (``go.reading.read_ladder``); the ladder reader's stack ``work``
holds the position after the move once one of them has played it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...go.reading import LADDER_BUDGET, adjacent_strings, escapes_at_once, read_ladder, string_after
from ...go.rules import COLOR, EMPTY, HEAD, KO, LAST, NEXT, PASS, STONES, STRIDE, atari_point, play
from .table import (
    F_ATARI,
    F_CAPTURE,
    F_CAPTURE_SIZE,
    F_EXTENSION,
    F_LADDER,
    F_LIBS_AFTER,
    F_SELF_ATARI,
    F_SELF_ATARI_SIZE,
    MAX_LIBS,
    MAX_SIZE,
)


@njit(cache=True)
def string_features(b: np.ndarray, m: np.ndarray, color: int, p: int, libs3: np.ndarray,
                    mark: np.ndarray, work: np.ndarray, mwork: np.ndarray,
                    moves: np.ndarray, out: np.ndarray) -> int:
    """The string family's levels of the move ``color`` at empty ``p`` into ``out``;
    returns the number of own strings the move touches. Scratch as for
    ``point_features``."""
    w = m[STRIDE]
    own = adjacent_strings(b, w, color, p)
    opp = adjacent_strings(b, w, 3 - color, p)
    n_empty = 0
    for q in (p - 1, p + 1, p - w, p + w):
        if b[COLOR, q] == EMPTY:
            n_empty += 1
    n_own = 0
    n_ext = 0
    for h in own:
        if h >= 0:
            n_own += 1
            if libs3[h] == 1:
                n_ext += 1
    cap_stones = 0
    n_atari_targets = 0
    for h in opp:
        if h >= 0:
            if libs3[h] == 1:
                cap_stones += b[STONES, h]
            elif libs3[h] == 2:
                n_atari_targets += 1

    if n_own == 0 and cap_stones == 0:
        libs = n_empty
        stones = 1
    else:
        libs, stones = string_after(b, m, color, p, np.int64(MAX_LIBS), mark, np.bool_(True))
    out[F_LIBS_AFTER] = min(libs, MAX_LIBS)
    out[F_CAPTURE_SIZE] = min(cap_stones, MAX_SIZE)
    if libs == 1:
        out[F_SELF_ATARI] = 1 if cap_stones == 0 else 2
        out[F_SELF_ATARI_SIZE] = min(stones, MAX_SIZE)
    if cap_stones > 0:
        ko = cap_stones == 1 and libs == 1 and stones == 1
        out[F_CAPTURE] = capture_level(b, m, color, p, opp, ko, libs3, mark, work, mwork, moves)
    played = False
    if n_ext > 0:
        played = extension_level(b, m, color, p, own, libs, libs3, mark, work, mwork, moves, out)
    if n_atari_targets > 0:
        out[F_ATARI] = atari_level(b, m, color, p, opp, cap_stones, played, libs3, mark, work, mwork,
                                   moves, out)
    return n_own


@njit(cache=True)
def capture_level(b: np.ndarray, m: np.ndarray, color: int, p: int, opp: tuple, ko: bool,
                  libs3: np.ndarray, mark: np.ndarray, work: np.ndarray, mwork: np.ndarray,
                  moves: np.ndarray) -> int:
    """The capture feature's level (``FEATURE_TABLE`` gives each) of ``color`` at ``p``,
    which captures those of the opponent's strings ``opp`` (heads, -1 padded) that
    are in atari: the first level that applies to any of them."""
    w = m[STRIDE]
    other = 3 - color
    last = m[LAST]
    last_is_theirs = last != PASS and b[COLOR, last] == other
    best = 7
    for h in opp:
        if h < 0 or libs3[h] != 1:
            continue
        level = 7
        s = h
        while True:
            for q in (s - 1, s + 1, s - w, s + w):
                if b[COLOR, q] == color and libs3[b[HEAD, q]] == 1:
                    level = 1
            s = b[NEXT, s]
            if s == h or level == 1:
                break
        if level > 2 and last_is_theirs and b[HEAD, last] == h:
            level = 2
        if level > 3 and last_is_theirs and (last == p - 1 or last == p + 1 or last == p - w
                                             or last == p + w):
            level = 3
        if level > 4 and ko:
            level = 4
        best = min(best, level)
    if best <= 4:
        return best
    # would the captured strings escape if the opponent extended at p?
    ext, _ = string_after(b, m, other, p, np.int64(3), mark, np.bool_(True))
    if ext >= 3:
        return 5
    if ext <= 1:
        return 6
    work[0] = b
    mwork[0] = m
    mwork[0, KO] = 0
    play(work[0], mwork[0], other, p)
    return 6 if read_ladder(work, mwork, moves, mark, p, np.bool_(False), np.int64(LADDER_BUDGET)) else 5


@njit(cache=True)
def extension_level(b: np.ndarray, m: np.ndarray, color: int, p: int, own: tuple, libs: int,
                    libs3: np.ndarray, mark: np.ndarray, work: np.ndarray, mwork: np.ndarray,
                    moves: np.ndarray, out: np.ndarray) -> bool:
    """The extension feature (``FEATURE_TABLE``) of ``color`` at ``p``, which extends
    those of its strings ``own`` that are in atari to ``libs`` liberties, into ``out``,
    with the ladder feature's escape; returns whether it played the move into
    ``work[0]`` to read the ladder."""
    w = m[STRIDE]
    last = m[LAST]
    new_atari = False
    if last != PASS and b[COLOR, last] == 3 - color:
        for h in own:
            if h >= 0 and libs3[h] == 1:
                for q in (last - 1, last + 1, last - w, last + w):
                    if b[COLOR, q] == color and b[HEAD, q] == h:
                        new_atari = True
    played = False
    if libs >= 3:
        caught = False
    elif libs <= 1:
        caught = True
    else:
        work[0] = b
        mwork[0] = m
        play(work[0], mwork[0], color, p)
        played = True
        caught = read_ladder(work, mwork, moves, mark, p, np.bool_(False), np.int64(LADDER_BUDGET))
        if not caught:
            out[F_LADDER] = 2
    out[F_EXTENSION] = (1 if new_atari else 3) + (1 if caught else 0)
    return played


@njit(cache=True)
def atari_level(b: np.ndarray, m: np.ndarray, color: int, p: int, opp: tuple, cap_stones: int,
                played: bool, libs3: np.ndarray, mark: np.ndarray, work: np.ndarray,
                mwork: np.ndarray, moves: np.ndarray, out: np.ndarray) -> int:
    """The atari feature's level (``FEATURE_TABLE``) of ``color`` at ``p``, which puts
    those of the opponent's strings ``opp`` that have two liberties in atari; writes
    the ladder feature's capture into ``out``. ``played``: ``work[0]`` already holds
    the position after the move."""
    other = 3 - color
    level = 2 if m[KO] != PASS else 3
    for h in opp:
        if h < 0 or libs3[h] != 2:
            continue
        if cap_stones == 0 and escapes_at_once(b, m, other, h, p, mark):
            continue
        if not played:
            work[0] = b
            mwork[0] = m
            play(work[0], mwork[0], color, p)
            played = True
        if read_ladder(work, mwork, moves, mark, np.int64(h), np.bool_(True), np.int64(LADDER_BUDGET)):
            level = 1
            lib = atari_point(work[0], work[0, HEAD, h])
            ext, _ = string_after(work[0], mwork[0], other, np.int64(lib), np.int64(3), mark,
                                 np.bool_(True))
            if ext == 2:
                out[F_LADDER] = 1
    return level

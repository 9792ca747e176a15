"""The string family: captures, extensions, ataris, self-ataris and ladders of a move.

Ladders are read only for ataris, extensions to two liberties and captures whose
string could extend to two liberties (``go.reading.read_ladder``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...go.reading import LADDER_BUDGET, escapes_at_once, read_ladder, string_after
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
def _adjacent_strings(b: np.ndarray, w: int, c: int, p: int) -> tuple:
    """The heads of the strings of colour ``c`` next to ``p`` (four, -1 after the
    last) and how many there are."""
    h0 = -1
    h1 = -1
    h2 = -1
    h3 = -1
    n = 0
    for q in (p - 1, p + 1, p - w, p + w):
        if b[COLOR, q] == c:
            h = b[HEAD, q]
            if h != h0 and h != h1 and h != h2:
                if n == 0:
                    h0 = h
                elif n == 1:
                    h1 = h
                elif n == 2:
                    h2 = h
                else:
                    h3 = h
                n += 1
    return (h0, h1, h2, h3), n


@njit(cache=True)
def _opponent_liberties(b: np.ndarray, opp: tuple, libs3: np.ndarray) -> tuple:
    """The stones a move next to the opponent's strings ``opp`` captures, and how many
    of those strings it puts in atari."""
    cap_stones = 0
    n_atari_targets = 0
    for h in opp:
        if h < 0:
            break
        if libs3[h] == 1:
            cap_stones += b[STONES, h]
        elif libs3[h] == 2:
            n_atari_targets += 1
    return cap_stones, n_atari_targets


@njit(cache=True)
def _own_in_atari(b: np.ndarray, m: np.ndarray, color: int, own: tuple, libs3: np.ndarray) -> tuple:
    """How many of the own strings ``own`` are in atari (a move next to them extends
    them), and whether the last move put one of them in atari."""
    w = m[STRIDE]
    last = m[LAST]
    other = 3 - color
    n_ext = 0
    new_atari = False
    for h in own:
        if h < 0:
            break
        if libs3[h] == 1:
            n_ext += 1
            if last != PASS and b[COLOR, last] == other:
                for q in (last - 1, last + 1, last - w, last + w):
                    if b[COLOR, q] == color and b[HEAD, q] == h:
                        new_atari = True
    return n_ext, new_atari


@njit(cache=True)
def _capture_level(b: np.ndarray, m: np.ndarray, color: int, p: int, opp: tuple, libs3: np.ndarray,
                   ko: bool, mark: np.ndarray, work: np.ndarray, mwork: np.ndarray, moves: np.ndarray) -> int:
    """The capture feature's level of the move at ``p`` taking the opponent's strings
    ``opp`` in atari: 1 saves an own string in atari, 2 takes the last move's string,
    3 captures next to the last move, 4 takes a ko, 5/6 the captured stones would
    (not) escape by extending at ``p``, 7 any other."""
    w = m[STRIDE]
    other = 3 - color
    last = m[LAST]
    best = 7
    for h in opp:
        if h < 0:
            break
        if libs3[h] != 1:
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
        if level > 2 and last != PASS and b[COLOR, last] == other and b[HEAD, last] == h:
            level = 2
        if level > 3 and last != PASS and b[COLOR, last] == other and (
            last == p - 1 or last == p + 1 or last == p - w or last == p + w
        ):
            level = 3
        if level > 4 and ko:
            level = 4
        best = min(best, level)
    if best > 4:
        # would the captured strings escape if the opponent extended at p?
        ext, _ = string_after(b, m, other, p, np.int64(3), mark, np.bool_(True))
        if ext >= 3:
            best = 5
        elif ext <= 1:
            best = 6
        else:
            work[0] = b
            mwork[0] = m
            mwork[0, KO] = 0
            play(work[0], mwork[0], other, p)
            caught = read_ladder(work, mwork, moves, mark, p, np.bool_(False), np.int64(LADDER_BUDGET))
            best = 6 if caught else 5
    return best


@njit(cache=True)
def _extension_caught(b: np.ndarray, m: np.ndarray, color: int, p: int, libs: int, mark: np.ndarray,
                      work: np.ndarray, mwork: np.ndarray, moves: np.ndarray) -> tuple:
    """Whether the string made by extending at ``p`` (``libs`` liberties) is caught
    (in a ladder at two liberties), and whether the move was played into ``work[0]``."""
    if libs >= 3:
        return False, False
    if libs <= 1:
        return True, False
    work[0] = b
    mwork[0] = m
    play(work[0], mwork[0], color, p)
    return read_ladder(work, mwork, moves, mark, p, np.bool_(False), np.int64(LADDER_BUDGET)), True


@njit(cache=True)
def _atari_level(b: np.ndarray, m: np.ndarray, color: int, p: int, opp: tuple, libs3: np.ndarray,
                 cap_stones: int, played: bool, mark: np.ndarray, work: np.ndarray, mwork: np.ndarray,
                 moves: np.ndarray) -> tuple:
    """The atari feature's level of the move at ``p`` (1 a ladder, 2 with a ko on the
    board, 3 any other) and whether a ladder caught a string that had two liberties
    after extending. ``played``: the move is already in ``work[0]``."""
    other = 3 - color
    level = 2 if m[KO] != PASS else 3
    ladder = False
    for h in opp:
        if h < 0:
            break
        if libs3[h] != 2:
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
                ladder = True
    return level, ladder


@njit(cache=True)
def string_features(b: np.ndarray, m: np.ndarray, color: int, p: int, libs3: np.ndarray,
                    mark: np.ndarray, work: np.ndarray, mwork: np.ndarray,
                    moves: np.ndarray, out: np.ndarray) -> int:
    """The string family's levels of the move ``color`` at empty ``p`` into ``out``;
    returns the number of own strings the move touches. Scratch as for
    ``point_features``."""
    w = m[STRIDE]
    own, n_own = _adjacent_strings(b, w, color, p)
    opp, _ = _adjacent_strings(b, w, 3 - color, p)
    n_empty = 0
    for q in (p - 1, p + 1, p - w, p + w):
        if b[COLOR, q] == EMPTY:
            n_empty += 1

    cap_stones, n_atari_targets = _opponent_liberties(b, opp, libs3)
    n_ext, new_atari = _own_in_atari(b, m, color, own, libs3)

    # liberties and size of the new string
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
        out[F_CAPTURE] = _capture_level(b, m, color, p, opp, libs3, ko, mark, work, mwork, moves)

    # extension and atari: read ladders in the position after the move
    played = False
    if n_ext > 0:
        caught, played = _extension_caught(b, m, color, p, libs, mark, work, mwork, moves)
        if played and not caught:
            out[F_LADDER] = 2
        out[F_EXTENSION] = (1 if new_atari else 3) + (1 if caught else 0)
    if n_atari_targets > 0:
        level, ladder = _atari_level(b, m, color, p, opp, libs3, cap_stones, played, mark, work, mwork, moves)
        if ladder:
            out[F_LADDER] = 1
        out[F_ATARI] = level
    return n_own

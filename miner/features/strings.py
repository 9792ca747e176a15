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
def string_features(b: np.ndarray, m: np.ndarray, color: int, p: int, libs3: np.ndarray,
                    mark: np.ndarray, work: np.ndarray, mwork: np.ndarray,
                    moves: np.ndarray, out: np.ndarray) -> int:
    """The string family's levels of the move ``color`` at empty ``p`` into ``out``;
    returns the number of own strings the move touches. Scratch as for
    ``point_features``."""
    w = m[STRIDE]
    other = 3 - color
    budget = np.int64(LADDER_BUDGET)
    last = m[LAST]
    # neighbouring strings
    own0 = -1
    own1 = -1
    own2 = -1
    own3 = -1
    n_own = 0
    opp0 = -1
    opp1 = -1
    opp2 = -1
    opp3 = -1
    n_opp = 0
    n_empty = 0
    for q in (p - 1, p + 1, p - w, p + w):
        cq = b[COLOR, q]
        if cq == EMPTY:
            n_empty += 1
        elif cq == color:
            h = b[HEAD, q]
            if h != own0 and h != own1 and h != own2:
                if n_own == 0:
                    own0 = h
                elif n_own == 1:
                    own1 = h
                elif n_own == 2:
                    own2 = h
                else:
                    own3 = h
                n_own += 1
        elif cq == other:
            h = b[HEAD, q]
            if h != opp0 and h != opp1 and h != opp2:
                if n_opp == 0:
                    opp0 = h
                elif n_opp == 1:
                    opp1 = h
                elif n_opp == 2:
                    opp2 = h
                else:
                    opp3 = h
                n_opp += 1

    cap_stones = 0
    n_atari_targets = 0
    for h in (opp0, opp1, opp2, opp3):
        if h < 0:
            break
        if libs3[h] == 1:
            cap_stones += b[STONES, h]
        elif libs3[h] == 2:
            n_atari_targets += 1
    n_ext = 0
    new_atari = False
    for h in (own0, own1, own2, own3):
        if h < 0:
            break
        if libs3[h] == 1:
            n_ext += 1
            if last != PASS and b[COLOR, last] == other:
                for q in (last - 1, last + 1, last - w, last + w):
                    if b[COLOR, q] == color and b[HEAD, q] == h:
                        new_atari = True

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

    # capture
    if cap_stones > 0:
        ko = cap_stones == 1 and libs == 1 and stones == 1
        best = 7
        for h in (opp0, opp1, opp2, opp3):
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
                caught = read_ladder(work, mwork, moves, mark, p, np.bool_(False), budget)
                best = 6 if caught else 5
        out[F_CAPTURE] = best

    # extension and atari: read ladders in the position after the move
    played = False
    if n_ext > 0:
        if libs >= 3:
            caught = False
        elif libs <= 1:
            caught = True
        else:
            work[0] = b
            mwork[0] = m
            play(work[0], mwork[0], color, p)
            played = True
            caught = read_ladder(work, mwork, moves, mark, p, np.bool_(False), budget)
            if not caught:
                out[F_LADDER] = 2
        out[F_EXTENSION] = (1 if new_atari else 3) + (1 if caught else 0)
    if n_atari_targets > 0:
        level = 2 if m[KO] != PASS else 3
        for h in (opp0, opp1, opp2, opp3):
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
            if read_ladder(work, mwork, moves, mark, np.int64(h), np.bool_(True), budget):
                level = 1
                lib = atari_point(work[0], work[0, HEAD, h])
                ext, _ = string_after(work[0], mwork[0], other, np.int64(lib), np.int64(3), mark,
                                     np.bool_(True))
                if ext == 2:
                    out[F_LADDER] = 1
        out[F_ATARI] = level
    return n_own

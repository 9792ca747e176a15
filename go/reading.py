"""Tactical reading: liberties, liberties after a move, ladders, legal moves.

One implementation for the miner's features, the rating's candidates, the playout
policies and the engine. Liberty counts are exact (pseudo-liberties are not):
``liberties`` walks a string with a stamp array, ``libs_after`` counts the
liberties a move's string would have without playing it.

Ladders are read on a stack of board copies (``read_ladder``): the attacker
ataris, the defender extends or captures an attacking string in atari; an atari
the defender escapes at once (three liberties after extending) is ruled out
without playing it. A reading visits at most ``LADDER_BUDGET`` positions, shared
evenly among the moves tried at each node, and ``LADDER_DEPTH`` moves; a line it
cannot finish counts as an escape (``ladder_reading`` tells such an escape, ``UNREAD``,
from a read one). Each move's share does not depend on the order
the moves are tried in, so neither does the outcome: a ladder reads the same on a
rotated, mirrored or colour-swapped board. Superko is ignored while reading.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .rules import (
    COLOR,
    EMPTY,
    HEAD,
    NEXT,
    OK,
    PLIBS,
    SIZE,
    STONES,
    STRIDE,
    atari_point,
    illegal_reason,
    in_atari,
    play,
)
from .vertices import flat

#: Positions a ladder reading may visit before it gives up (and calls it an escape).
LADDER_BUDGET = 200


@njit(cache=True)
def libs_up_to_3(b: np.ndarray, w: int, h: int) -> int:
    """min(liberties, 3) of the string of stone ``h``, exact, without scratch memory."""
    h = b[HEAD, h]
    if in_atari(b, h):
        return 1
    if b[PLIBS, h] <= 2:
        return 2
    l1 = -1
    l2 = -1
    s = h
    while True:
        for q in (s - 1, s + 1, s - w, s + w):
            if b[COLOR, q] == EMPTY and q != l1 and q != l2:
                if l1 < 0:
                    l1 = q
                elif l2 < 0:
                    l2 = q
                else:
                    return 3
        s = b[NEXT, s]
        if s == h:
            break
    return 2



@njit(cache=True)
def string_libs3(b: np.ndarray, m: np.ndarray, libs3: np.ndarray) -> None:
    """Fill ``libs3[head]`` with min(liberties, 3) for every string on the board."""
    w = m[STRIDE]
    for p in range(b.shape[1]):
        c = b[COLOR, p]
        if (c == 1 or c == 2) and b[HEAD, p] == p:
            libs3[p] = libs_up_to_3(b, w, np.int64(p))


@njit(cache=True)
def _next_stamp(mark: np.ndarray) -> int:
    """A fresh stamp for ``mark``; ``mark[0]`` (a border point) keeps the counter."""
    s = mark[0] + 1
    if s >= 0x3FFFFFFF:
        mark[:] = 0
        s = 1
    mark[0] = s
    return s


@njit(cache=True)
def liberties(b: np.ndarray, m: np.ndarray, h: int, limit: int, mark: np.ndarray) -> int:
    """Distinct liberties of the string of stone ``h``, counted up to ``limit``.

    ``mark`` is an int32 scratch array of the board's length, zeroed once and
    reused: each call takes a fresh stamp, kept in ``mark[0]``.
    """
    w = m[STRIDE]
    stamp = _next_stamp(mark)
    n = 0
    s = h
    while True:
        for q in (s - 1, s + 1, s - w, s + w):
            if b[COLOR, q] == EMPTY and mark[q] != stamp:
                mark[q] = stamp
                n += 1
                if n >= limit:
                    return n
        s = b[NEXT, s]
        if s == h:
            break
    return n


@njit(cache=True)
def adjacent_strings(b: np.ndarray, w: int, color: int, p: int) -> tuple[int, int, int, int]:
    """The heads of the distinct strings of ``color`` next to point ``p``, in the
    order of their first stone next to it, padded with -1."""
    h0 = -1
    h1 = -1
    h2 = -1
    h3 = -1
    for q in (p - 1, p + 1, p - w, p + w):
        if b[COLOR, q] == color:
            h = b[HEAD, q]
            if h != h0 and h != h1 and h != h2:
                if h0 < 0:
                    h0 = h
                elif h1 < 0:
                    h1 = h
                elif h2 < 0:
                    h2 = h
                else:
                    h3 = h
    return h0, h1, h2, h3


@njit(cache=True)
def string_after(b: np.ndarray, m: np.ndarray, color: int, p: int, limit: int,
                mark: np.ndarray, with_captures: bool) -> tuple[int, int]:
    """(liberties up to ``limit``, stones) of the string ``color`` would make by playing
    at empty ``p``; with ``with_captures``, the points of the opponent's strings in
    atari next to ``p`` count as liberties (they are captured)."""
    w = m[STRIDE]
    other = 3 - color
    stamp = _next_stamp(mark)
    mark[p] = stamp
    if with_captures:
        for h in adjacent_strings(b, w, other, p):
            if h >= 0 and mark[h] != -stamp and in_atari(b, h):
                s = h
                while True:
                    mark[s] = -stamp
                    s = b[NEXT, s]
                    if s == h:
                        break
    own = adjacent_strings(b, w, color, p)
    stones = 1
    for h in own:
        if h >= 0:
            stones += b[STONES, h]
    n = 0
    for q in (p - 1, p + 1, p - w, p + w):
        if (b[COLOR, q] == EMPTY or mark[q] == -stamp) and mark[q] != stamp:
            mark[q] = stamp
            n += 1
    if n >= limit:
        return n, stones
    for h in own:
        if h < 0:
            break
        s = h
        while True:
            for q in (s - 1, s + 1, s - w, s + w):
                if (b[COLOR, q] == EMPTY or mark[q] == -stamp) and mark[q] != stamp:
                    mark[q] = stamp
                    n += 1
                    if n >= limit:
                        return n, stones
            s = b[NEXT, s]
            if s == h:
                break
    return n, stones


@njit(cache=True)
def libs_after(
    b: np.ndarray, m: np.ndarray, color: int, p: int, limit: int, mark: np.ndarray
) -> tuple[int, int]:
    """(liberties, stones) of ``color``'s string at empty ``p`` if it played there.

    Captures are counted (captured stones next to the new string become its
    liberties); nothing is played. Liberties are counted up to ``limit``;
    ``mark`` is scratch as for ``liberties``.
    """
    return string_after(b, m, color, np.int64(p), np.int64(limit), mark, np.bool_(True))


#: Deepest ladder reading, in moves (a ladder across a 19x19 board is about 70).
LADDER_DEPTH = 96
#: Most moves a ladder position has (``ladder_moves`` writes at most this many).
LADDER_WIDTH = 8


@njit(cache=True)
def captures_any(b: np.ndarray, w: int, color: int, x: int) -> bool:
    """Whether ``color`` playing at ``x`` would capture something."""
    for q in (x - 1, x + 1, x - w, x + w):
        if b[COLOR, q] == 3 - color and in_atari(b, b[HEAD, q]):
            return True
    return False


@njit(cache=True)
def other_liberty(b: np.ndarray, w: int, h: int, p: int) -> int:
    """The liberty of the two-liberty string ``h`` that is not ``p``."""
    s = h
    while True:
        for q in (s - 1, s + 1, s - w, s + w):
            if b[COLOR, q] == EMPTY and q != p:
                return q
        s = b[NEXT, s]
        if s == h:
            return -1


@njit(cache=True)
def escapes_at_once(b: np.ndarray, m: np.ndarray, color: int, h: int, x: int, mark: np.ndarray) -> bool:
    """Whether ``color``'s two-liberty string ``h``, ataried at its liberty ``x`` by a
    move that captures nothing, escapes by extending at the other: three liberties or
    more (``x`` taken; captures only add). Such an atari is no ladder."""
    y = other_liberty(b, m[STRIDE], h, x)
    return string_after(b, m, color, np.int64(y), np.int64(4), mark, np.bool_(False))[0] - 1 >= 3


@njit(cache=True)
def ladder_moves(b: np.ndarray, m: np.ndarray, s: int, attacker: bool,
                 moves: np.ndarray, mark: np.ndarray) -> int:
    """The ladder's moves in this position for the string of stone ``s``, written into
    ``moves`` (int32, ``LADDER_WIDTH`` long); returns their number, or when the
    position is decided already -2 (captured) or -1 (escaped).

    Attacker to move: one liberty, captured if taking it is legal (else escaped);
    three or more, escaped; two, the ataris at either liberty, less those the
    defender escapes at once (three liberties after extending); none left: escaped.
    Defender to move (the string in atari): escaped if extending gives three or more
    liberties; else extending when it gives two, and capturing each adjacent
    attacking string in atari; none: captured. The one definition of a ladder, for
    ``read_ladder`` and the solver's ``ladder`` goal."""
    h = b[HEAD, s]
    d = np.int64(b[COLOR, s])
    if attacker:
        return _attacker_ladder_moves(b, m, h, d, moves, mark)
    return _defender_ladder_moves(b, m, h, d, moves, mark)


@njit(cache=True)
def _attacker_ladder_moves(b: np.ndarray, m: np.ndarray, h: int, d: int, moves: np.ndarray,
                           mark: np.ndarray) -> int:
    """``ladder_moves`` with the attacker to move, the defender ``d``'s string ``h``."""
    w = m[STRIDE]
    a = 3 - d
    n = libs_up_to_3(b, w, np.int64(h))
    if n == 1:
        return -2 if illegal_reason(b, m, a, atari_point(b, h)) == OK else -1
    if n >= 3:
        return -1
    l1 = -1
    l2 = -1
    t = h
    while l2 < 0:
        for q in (t - 1, t + 1, t - w, t + w):
            if b[COLOR, q] == EMPTY and q != l1:
                if l1 < 0:
                    l1 = q
                elif l2 < 0:
                    l2 = q
        t = b[NEXT, t]
        if t == h:
            break
    k = 0
    for i in range(2):
        x = l1 if i == 0 else l2
        if illegal_reason(b, m, a, x) != OK:
            continue
        # an atari the defender escapes at once is skipped unplayed
        if not captures_any(b, w, a, np.int64(x)) and escapes_at_once(b, m, d, h, x, mark):
            continue
        moves[k] = x
        k += 1
    return k if k > 0 else -1


@njit(cache=True)
def _defender_ladder_moves(b: np.ndarray, m: np.ndarray, h: int, d: int, moves: np.ndarray,
                           mark: np.ndarray) -> int:
    """``ladder_moves`` with the defender ``d`` to move, its string ``h`` in atari."""
    w = m[STRIDE]
    a = 3 - d
    k = 0
    lib = atari_point(b, h)
    if illegal_reason(b, m, d, lib) == OK:
        n, _ = string_after(b, m, d, np.int64(lib), np.int64(3), mark, np.bool_(True))
        if n >= 3:
            return -1
        if n == 2:
            moves[k] = lib
            k += 1
    t = h
    while True:
        for q in (t - 1, t + 1, t - w, t + w):
            if b[COLOR, q] == a:
                ha = b[HEAD, q]
                if in_atari(b, ha):
                    cp = atari_point(b, ha)
                    if cp != lib and k < LADDER_WIDTH and illegal_reason(b, m, d, cp) == OK:
                        fresh = True
                        for j in range(k):
                            if moves[j] == cp:
                                fresh = False
                        if fresh:
                            moves[k] = cp
                            k += 1
        t = b[NEXT, t]
        if t == h:
            break
    return k if k > 0 else -2


#: ``ladder_reading``'s verdicts: caught; escaped; counted as escaped because a line
#: it needed was not read (no share of the budget left, or past the stack's depth).
CAUGHT, ESCAPED, UNREAD = 1, 0, -1


@njit(cache=True)
def read_ladder(work: np.ndarray, mwork: np.ndarray, moves: np.ndarray, mark: np.ndarray,
                s: int, defender_to_move: bool, budget: int) -> bool:
    """Whether the string of stone ``s`` in the position ``work[0], mwork[0]`` is
    captured by a ladder (``ladder_reading`` says ``CAUGHT``); an unread line is an escape."""
    return ladder_reading(work, mwork, moves, mark, s, defender_to_move, budget) == CAUGHT


@njit(cache=True)
def _open_node(k: int, r: int, budget: int, start: int, nmv: np.ndarray, nxt: np.ndarray,
               share: np.ndarray, value: np.ndarray) -> None:
    """Node ``k`` of the reading's stack with ``r`` moves sharing ``budget`` positions,
    its value ``start`` until a move says otherwise."""
    nmv[k] = r
    nxt[k] = 0
    share[k] = budget // r
    value[k] = start


@njit(cache=True)
def _pass_up(value: np.ndarray, k: int, v: int, defender_to_move: bool) -> tuple:
    """A child of node ``k`` has value ``v``: settle node ``k`` and pass ``v`` up while it
    decides its parent. Returns the node to go on with (its next child) and whether
    ``v`` settled the root (then the reading's value)."""
    while True:
        attacker = (k % 2 == 1) == defender_to_move
        if v != (CAUGHT if attacker else ESCAPED):
            if v == UNREAD:
                value[k] = UNREAD
            return k, False
        if k == 0:
            return k, True
        k -= 1


@njit(cache=True)
def ladder_reading(work: np.ndarray, mwork: np.ndarray, moves: np.ndarray, mark: np.ndarray,
                   s: int, defender_to_move: bool, budget: int) -> int:
    """Whether the string of stone ``s`` in the position ``work[0], mwork[0]`` is
    captured by a ladder: ``CAUGHT``, ``ESCAPED``, or ``UNREAD`` when the answer
    rests on a line the budget or the depth cut; level 0 of the stack is left as it was.

    Defender to move: the string is in atari; it may extend or capture an
    adjacent attacking string in atari, and is captured if every such move
    fails. Attacker to move: one liberty, it captures; two, it tries an atari on
    each; three or more, the string escapes. An and-or search, depth first, on
    the board stack ``work``/``mwork`` (``LADDER_DEPTH`` levels), with three values:
    an attacker's node is caught as soon as one move catches, escaped when every
    move escapes, else unread; a defender's node the other way round. A node may
    visit ``budget`` positions below it, split evenly among its moves (each move's
    position costs one); a move it has no share for, or past the stack's depth, is
    unread. A move's outcome depends on its position and share only, so the
    reading's does not depend on the order of the moves.
    """
    depth = work.shape[0]
    nmv = np.empty(depth, dtype=np.int64)
    nxt = np.empty(depth, dtype=np.int64)
    share = np.empty(depth, dtype=np.int64)
    value = np.empty(depth, dtype=np.int64)  # node k's value so far, from the moves tried
    # node k: attacker to move when (k odd) == defender_to_move
    r = ladder_moves(work[0], mwork[0], np.int64(s), not defender_to_move, moves[0], mark)
    if r < 0:
        return CAUGHT if r == -2 else ESCAPED
    _open_node(0, r, budget, CAUGHT if defender_to_move else ESCAPED, nmv, nxt, share, value)
    k = 0
    d = np.int64(work[0, COLOR, s])
    while True:
        attacker = (k % 2 == 1) == defender_to_move
        if nxt[k] < nmv[k]:
            mv = moves[k, nxt[k]]
            nxt[k] += 1
            if share[k] < 1 or k + 1 >= depth:
                v = UNREAD
            else:
                work[k + 1] = work[k]
                mwork[k + 1] = mwork[k]
                play(work[k + 1], mwork[k + 1], 3 - d if attacker else d, mv)
                r = ladder_moves(
                    work[k + 1], mwork[k + 1], np.int64(s), not attacker, moves[k + 1], mark
                )
                if r >= 0:
                    # node k + 1 is the other side's: a defender's starts caught
                    _open_node(k + 1, r, share[k] - 1, CAUGHT if attacker else ESCAPED, nmv, nxt, share, value)
                    k += 1
                    continue
                v = CAUGHT if r == -2 else ESCAPED
        else:
            v = value[k]  # every move of node k tried
            if k == 0:
                return v
            k -= 1
        k, settled = _pass_up(value, k, v, defender_to_move)
        if settled:
            return v


@njit(cache=True)
def ladder_scratch(b: np.ndarray, m: np.ndarray):
    """Scratch arrays for ``read_ladder``: board stack, meta stack, moves."""
    work = np.empty((LADDER_DEPTH, b.shape[0], b.shape[1]), dtype=np.int32)
    mwork = np.empty((LADDER_DEPTH, m.shape[0]), dtype=np.int64)
    moves = np.empty((LADDER_DEPTH, LADDER_WIDTH), dtype=np.int32)
    return work, mwork, moves


@njit(cache=True)
def ladder_verdict(b: np.ndarray, m: np.ndarray, s: int, defender_to_move: bool) -> int:
    """``ladder_reading``'s verdict on the string of stone ``s`` (``CAUGHT``, ``ESCAPED``
    or ``UNREAD``), with fresh scratch and the default budget: for tools and tests."""
    work, mwork, moves = ladder_scratch(b, m)
    mark = np.zeros(b.shape[1], dtype=np.int32)
    work[0] = b
    mwork[0] = m
    return ladder_reading(work, mwork, moves, mark, np.int64(s), np.bool_(defender_to_move),
                          np.int64(LADDER_BUDGET))


@njit(cache=True)
def ladder_captured(b: np.ndarray, m: np.ndarray, s: int, defender_to_move: bool) -> bool:
    """Whether the string of stone ``s`` dies in a ladder, as the miner reads it
    (``read_ladder``, the default budget): for tools and tests."""
    return ladder_verdict(b, m, s, defender_to_move) == CAUGHT


@njit(cache=True)
def runs_dead_ladder(b: np.ndarray, m: np.ndarray, color: int, p: int) -> bool:
    """Whether ``color``'s move at ``p`` captures nothing and extends a string in atari
    that dies in a ladder whatever its owner does (running it only feeds the opponent)."""
    w = m[STRIDE]
    if captures_any(b, w, color, np.int64(p)):
        return False
    for q in (p - 1, p + 1, p - w, p + w):
        if b[COLOR, q] == color and in_atari(b, b[HEAD, q]) and ladder_captured(b, m, q, True):
            return True
    return False


@njit(cache=True)
def legal_moves(b: np.ndarray, m: np.ndarray, color: int) -> np.ndarray:
    """Board points where ``color`` may play (simple ko and suicide checked, not
    superko), in point order; PASS is not included."""
    w = m[STRIDE]
    n = m[SIZE]
    out = np.empty(n * n, dtype=np.int32)
    k = 0
    for r in range(n):
        for c in range(n):
            p = flat(r, c, w)
            if illegal_reason(b, m, color, p) == OK:
                out[k] = p
                k += 1
    return out[:k]


@njit(cache=True)
def libs_after_up_to_2(b: np.ndarray, m: np.ndarray, color: int, p: int) -> int:
    """Liberties of ``color``'s string after playing at empty ``p``, counted up to 2
    (enough to tell a self-atari); a capture counts as 2 since it opens liberties.

    Two scalars hold the liberties found: no array is allocated, since the
    playout policy asks this of up to nine points a move."""
    w = m[STRIDE]
    first = -1
    for q in (p - 1, p + 1, p - w, p + w):
        c = b[COLOR, q]
        if c == 3 - color and in_atari(b, b[HEAD, q]):
            return 2
        if c == EMPTY:
            if first >= 0 and q != first:
                return 2
            first = q
        elif c == color:
            s = q
            while True:  # walk the string for its liberties other than p
                for r in (s - 1, s + 1, s - w, s + w):
                    if b[COLOR, r] == EMPTY and r != p:
                        if first >= 0 and r != first:
                            return 2
                        first = r
                s = b[NEXT, s]
                if s == q:
                    break
    return 0 if first < 0 else 1


class ReadingScratch(NamedTuple):
    """Scratch arrays of tactical reading, reusable across positions of one board size."""

    libs3: np.ndarray  # int32[points]: liberties up to 3, at each string's head
    mark: np.ndarray  # int32[points]: visit stamps
    work: np.ndarray  # int32[LADDER_DEPTH, rows, points]: the ladder reader's board stack
    mwork: np.ndarray  # int64[LADDER_DEPTH, meta]: its meta rows
    moves: np.ndarray  # int32[LADDER_DEPTH, LADDER_WIDTH]: its candidate moves a depth


@njit(cache=True)
def reading_scratch(b: np.ndarray, m: np.ndarray) -> ReadingScratch:
    """Scratch for tactical reading (``miner.features.tactical_features_with``, the
    trackers), reusable across positions of one board size."""
    work, mwork, moves = ladder_scratch(b, m)
    return ReadingScratch(np.zeros(b.shape[1], dtype=np.int32), np.zeros(b.shape[1], dtype=np.int32), work, mwork, moves)

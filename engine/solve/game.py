"""The game the searches play: a position, a goal, a region, on the numba rules.

A goal is decided for Black or White (``BLACK_WINS``, ``WHITE_WINS``) or, for
``score``, worth Black's area less White's when both sides pass in a row.
Moves are the region's points (and pass). Stones outside the region are
immortal: a move that would capture one is not generated. A ``LADDER`` goal's
moves are the ladder's (``go.reading.ladder_moves``) anywhere on the board, and
a pass that loses for the side that makes it. Positional superko
needs the path and is left to the searches (see ``Problem.expand``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

from ...go.benson import unconditionally_alive
from ...go.eye_spaces import lives_by_space
from ...go.eyespace import dead_shape, liberty_off, stone_off
from ...go.reading import LADDER_WIDTH, ladder_moves, liberties
from ...go.rules import (
    BLACK,
    BORDER,
    COLOR,
    EMPTY,
    HASH,
    HEAD,
    KO,
    LAST,
    OK,
    PASS,
    SIZE,
    STRIDE,
    WHITE,
    ZOBRIST,
    area_score,
    illegal_reason,
    in_atari,
    is_eye,
    play,
)
from ...go.vertices import flat_index
from ...patterns.prior import move_strengths, prior_cache

#: Goal kinds: the area score, a string's life (or its capture), two strings' connection,
#: a string's capture in a ladder.
SCORE, LIFE, CONNECT, LADDER = range(4)
#: Goal array fields: kind, target, second target, defender, liberties that count as escape,
#: (``kill``/``live``) whether the defender must be unconditionally alive when both
#: sides pass (``STRICT``: a seki is then the attacker's), and the colour that has a ko
#: threat for every ko (``KO_FREE``, 0: neither): it may retake a ko at once and repeat a
#: position, so a fight that turns on a ko goes its way; ``SEARCH_ONLY`` (1) keeps
#: ``decided`` from reading the living eye spaces' table (``go.eye_spaces``), for the
#: searches that make it.
KIND, TARGET, TARGET2, DEFENDER, ESCAPE, STRICT, KO_FREE, SEARCH_ONLY = range(8)
GOAL_FIELDS = 8
#: A value not decided yet (a child to search), else Black's value.
OPEN = -(1 << 40)

_KEYS = np.random.default_rng(20261124).integers(1, 1 << 62, size=(3, 1024), dtype=np.int64)
#: The transposition key's part for a pass just made.
_PASSED = _KEYS[0, 1]


@njit(cache=True)
def _captures_outside(b: np.ndarray, m: np.ndarray, region: np.ndarray, color: int, p: int) -> bool:
    """Whether ``color`` at ``p`` captures a string with a stone outside the region."""
    w = m[STRIDE]
    for q in (p - 1, p + 1, p - w, p + w):
        if b[COLOR, q] == 3 - color and in_atari(b, b[HEAD, q]) and stone_off(b, region, q):
            return True
    return False


@njit(cache=True)
def decided(b: np.ndarray, m: np.ndarray, goal: np.ndarray, mark: np.ndarray, color: int,
            region: np.ndarray) -> int:
    """The winner of a goal already settled on the board with ``color`` to move (Black's
    value for ±1), or OPEN. A ``kill``/``live`` target not in atari has won when it has a
    liberty outside the region (no move may take it) or, just after its owner moved, when
    it is unconditionally alive (Benson) or its eye spaces live (``go.eye_spaces``), both
    looked at only after a move on or next to it; it has lost when it is shut in with a
    dead eye space (``go.eyespace.dead_shape``)."""
    kind = goal[KIND]
    if kind == SCORE:
        return OPEN
    d = goal[DEFENDER]
    win = 1 if d == BLACK else -1
    a = goal[TARGET]
    if b[COLOR, a] != d:
        return -win
    if kind == CONNECT:
        a2 = goal[TARGET2]
        if b[COLOR, a2] != d:
            return -win
        return win if b[HEAD, a] == b[HEAD, a2] else OPEN
    if kind == LADDER:
        r = ladder_moves(b, m, a, color != d, np.empty(LADDER_WIDTH, dtype=np.int32), mark)
        return OPEN if r >= 0 else win if r == -1 else -win
    if goal[ESCAPE] > 0:
        return win if liberties(b, m, np.int64(b[HEAD, a]), goal[ESCAPE], mark) >= goal[ESCAPE] else OPEN
    if kind == LIFE and not in_atari(b, b[HEAD, a]):
        if liberty_off(b, m[STRIDE], region, b[HEAD, a]):
            return win  # out of the region: no move can take that liberty
        if color != d and _touches(b, m, m[LAST], b[HEAD, a]):
            if unconditionally_alive(b, m, d)[b[HEAD, a]]:
                return win
            if not goal[SEARCH_ONLY] and lives_by_space(b, m, region, np.int64(b[HEAD, a])):
                return win
        if dead_shape(b, m, region, np.int64(b[HEAD, a]), color != d):  # int64: dead_shape's one specialization
            return -win
    return OPEN


@njit(cache=True)
def _touches(b: np.ndarray, m: np.ndarray, p: int, h: int) -> bool:
    """Whether point ``p`` is a stone of the string of ``h`` or next to one."""
    if p == PASS:
        return False
    w = m[STRIDE]
    for q in (p, p - 1, p + 1, p - w, p + w):
        if b[COLOR, q] == b[COLOR, h] and b[HEAD, q] == h:
            return True
    return False


@njit(cache=True)
def final_value(b: np.ndarray, m: np.ndarray, goal: np.ndarray) -> int:
    """Black's value when both sides have passed: the area score (komi 0), or for
    a string's goal, whether its defender kept it (and, to connect, joined it; with
    ``STRICT``, kept it unconditionally alive, so that a seki is a loss)."""
    kind = goal[KIND]
    if kind == SCORE:
        return np.int64(area_score(b, m, 0.0))
    win = 1 if goal[DEFENDER] == BLACK else -1
    if kind == CONNECT:
        return -win
    a = goal[TARGET]
    if b[COLOR, a] != goal[DEFENDER]:
        return -win
    if kind == LIFE and goal[STRICT] and not unconditionally_alive(b, m, goal[DEFENDER])[b[HEAD, a]]:
        return -win
    return win


@njit(cache=True)
def may_play(b: np.ndarray, m: np.ndarray, region: np.ndarray, color: int, p: int) -> bool:
    """Whether ``color`` may play region point ``p`` (superko aside)."""
    return (region[p] != 0 and illegal_reason(b, m, color, p) == OK
            and not _captures_outside(b, m, region, color, p))


@njit(cache=True)
def expand(b: np.ndarray, m: np.ndarray, color: int, passed: bool, region: np.ndarray,
           goal: np.ndarray, mark: np.ndarray, efforts: np.ndarray):
    """The moves of ``color`` (pass last) with, for each, the board hash after it,
    the ko point after it and Black's value if the move decides the goal (else OPEN).
    Moves that fill the mover's own eye come after the pass: they are rarely good.
    The goal's ``KO_FREE`` colour may retake a ko. A ladder's moves are
    ``ladder_moves``, then a pass that loses (in a settled position, the pass alone
    with the settled value). ``efforts`` (rows as many as the board's points and one,
    or none: ``NO_EFFORTS``) gets, for a ``kill``/``live`` goal, each undecided move's row
    of ``efforts_after`` (1 and 1 for the others)."""
    n = b.shape[1]
    hinted = efforts.shape[0] > 0 and goal[KIND] == LIFE
    if efforts.shape[0] > 0:
        efforts[:] = 1
    seen = np.zeros(n if hinted else 0, dtype=np.uint8)
    stack = np.empty(n if hinted else 0, dtype=np.int64)
    if goal[KO_FREE] == color and m[KO] != 0:
        m = m.copy()
        m[KO] = 0  # the ko threat answered: the ban is lifted
    moves = np.empty(n + 1, dtype=np.int64)
    hashes = np.empty(n + 1, dtype=np.int64)
    kos = np.empty(n + 1, dtype=np.int64)
    values = np.empty(n + 1, dtype=np.int64)
    k = 0
    if goal[KIND] == LADDER:
        ladder = np.empty(LADDER_WIDTH, dtype=np.int32)
        r = ladder_moves(b, m, goal[TARGET], color != goal[DEFENDER], ladder, mark)
        win = 1 if goal[DEFENDER] == BLACK else -1
        for i in range(max(r, 0)):
            b2 = b.copy()
            m2 = m.copy()
            play(b2, m2, color, ladder[i])
            moves[k] = ladder[i]
            hashes[k] = m2[HASH]
            kos[k] = m2[KO]
            values[k] = decided(b2, m2, goal, mark, 3 - color, region)
            k += 1
        moves[k] = PASS
        hashes[k] = m[HASH]
        kos[k] = 0
        mover = 1 if color == BLACK else -1
        values[k] = -mover if r >= 0 else win if r == -1 else -win
        return moves[:k + 1], hashes[:k + 1], kos[:k + 1], values[:k + 1]
    for fill in range(2):
        if fill == 1:
            moves[k] = PASS
            hashes[k] = m[HASH]
            kos[k] = 0
            values[k] = final_value(b, m, goal) if passed else OPEN
            if hinted and values[k] == OPEN:  # a decided child's numbers are its value's
                efforts_after(b, m, goal, mark, seen, stack, efforts[k])
            k += 1
        for p in range(n):
            if (region[p] != 0 and b[COLOR, p] == EMPTY and is_eye(b, m, color, p) == (fill == 1)
                    and may_play(b, m, region, color, p)):
                b2 = b.copy()
                m2 = m.copy()
                play(b2, m2, color, p)
                moves[k] = p
                hashes[k] = m2[HASH]
                kos[k] = m2[KO]
                values[k] = decided(b2, m2, goal, mark, 3 - color, region)
                if hinted and values[k] == OPEN:
                    efforts_after(b2, m2, goal, mark, seen, stack, efforts[k])
                k += 1
    return moves[:k], hashes[:k], kos[:k], values[:k]


@njit(cache=True)
def _strongest_first(moves: np.ndarray, strength: np.ndarray) -> np.ndarray:
    """The order of ``moves`` by ``strength`` (by point): those before the pass, strongest
    first (ties in their order), then those after it likewise, then the pass."""
    order = np.empty(len(moves), dtype=np.int64)
    at = 0
    while at < len(moves) and moves[at] != PASS:
        at += 1
    k = 0
    for lo, hi in ((0, at), (at + 1, len(moves))):
        if hi > lo:
            order[k:k + hi - lo] = lo + np.argsort(-strength[moves[lo:hi]], kind="mergesort")
            k += hi - lo
    if at < len(moves):
        order[k] = at
    return order


@njit(cache=True)
def expand_ordered(b: np.ndarray, m: np.ndarray, color: int, passed: bool, region: np.ndarray,
                   goal: np.ndarray, mark: np.ndarray, efforts: np.ndarray, knowledge, cache):
    """``expand``; with ``knowledge`` (``patterns.prior.MovePrior.knowledge``, and its
    ``cache``), the moves before the pass and then those after it each strongest first,
    the pass last (``efforts``' rows in their order)."""
    moves, hashes, kos, values = expand(b, m, color, passed, region, goal, mark, efforts)
    if knowledge is None:
        return moves, hashes, kos, values
    strength = np.zeros(b.shape[1])
    move_strengths(b, m, color, knowledge, strength, cache, np.int64(0))  # int64: the search's specialization
    order = _strongest_first(moves, strength)
    if efforts.shape[0] > 0:
        efforts[:len(order)] = efforts[order]
    return moves[order], hashes[order], kos[order], values[order]


#: The efforts count the target's liberties up to one more than this (more change nothing).
HINT_LIBERTIES = 6
#: The most effort a position is given: the attacker's and the defender's add up to it
#: (10: 21 of seed 1's 30 Beginner problems proved in 300,000 nodes; 8 and 16: fewer).
HINT_CAP = 10
#: Empty points of the target's space past which ``efforts_after`` stops counting.
SPACE_LIMIT = 40
#: No efforts wanted (``expand``'s ``efforts`` for a search that starts its children at 1).
NO_EFFORTS = np.empty((0, 2), dtype=np.int64)


@njit(cache=True)
def efforts_after(b: np.ndarray, m: np.ndarray, goal: np.ndarray, mark: np.ndarray, seen: np.ndarray,
                  stack: np.ndarray, out: np.ndarray) -> None:
    """Writes to ``out`` how hard a ``kill``/``live`` goal looks in this position, as
    df-pn's first proof and disproof numbers (Kishimoto and Müller 2005 start them from
    the defender's liberties and eye space): the attacker's effort is the target's
    liberties (at most ``HINT_LIBERTIES`` and one) plus half its *inner space*, the empty
    points it reaches through its own stones and empty points that touch no stone of the
    attacker (at most ``SPACE_LIMIT`` looked at): room for eyes the attacker has not
    reached yet; the defender's is ``HINT_CAP`` less that, each at least 1. ``seen`` and
    ``stack`` are work arrays of the board's length."""
    t = goal[TARGET]
    d = goal[DEFENDER]
    if b[COLOR, t] != d:
        out[0], out[1] = 1, 1
        return
    h = b[HEAD, t]
    libs = liberties(b, m, np.int64(h), np.int64(HINT_LIBERTIES + 1), mark)
    w = m[STRIDE]
    seen[:] = 0
    stack[0] = h
    seen[h] = 1
    top, empties, inner = 1, 0, 0
    while top > 0 and empties < SPACE_LIMIT and libs + inner // 2 < HINT_CAP:  # past the cap: no change
        top -= 1
        p = stack[top]
        if b[COLOR, p] == EMPTY:
            empties += 1
            alone = True
            for q in (p - 1, p + 1, p - w, p + w):
                if b[COLOR, q] == 3 - d:
                    alone = False
            inner += alone
        for q in (p - 1, p + 1, p - w, p + w):
            c = b[COLOR, q]
            if not seen[q] and (c == EMPTY or c == d):
                seen[q] = 1
                stack[top] = q
                top += 1
    effort = min(max(libs + inner // 2, 1), HINT_CAP)
    out[0], out[1] = effort, max(1, HINT_CAP - effort)


@njit(cache=True)
def seed_playouts(seed: int) -> None:
    """Seed the random generator of ``playout_value`` (numba keeps its own)."""
    np.random.seed(seed)


@njit(cache=True)
def playout_value(b: np.ndarray, m: np.ndarray, color: int, passed: bool, region: np.ndarray,
                  goal: np.ndarray, mark: np.ndarray) -> int:
    """Black's value after random region moves (no own eye filled, superko ignored)
    from the position, in place, until the goal is decided or both sides pass; for a
    ladder, random ladder moves until it is decided."""
    cand = np.flatnonzero(region).astype(np.int64)
    passes = 1 if passed else 0
    if goal[KIND] == LADDER:
        ladder = np.empty(LADDER_WIDTH, dtype=np.int32)
        for _ in range(4 * len(cand) + 8):
            v = decided(b, m, goal, mark, color, region)
            if v != OPEN:
                return v
            r = ladder_moves(b, m, goal[TARGET], color != goal[DEFENDER], ladder, mark)
            play(b, m, color, ladder[np.random.randint(r)])
            color = 3 - color
        return 1 if goal[DEFENDER] == BLACK else -1  # not over: an escape, as for the miner
    for _ in range(4 * len(cand) + 8):
        np.random.shuffle(cand)
        p = PASS
        for q in cand:
            if b[COLOR, q] == EMPTY and not is_eye(b, m, color, q) and may_play(b, m, region, color, q):
                p = q
                break
        play(b, m, color, p)
        if p == PASS:
            passes += 1
            if passes == 2:
                break
        else:
            passes = 0
            v = decided(b, m, goal, mark, 3 - color, region)
            if v != OPEN:
                return v
        color = 3 - color
    return final_value(b, m, goal)


def symmetries(size: int) -> np.ndarray:
    """The board's eight symmetries as point maps (``[t, p]`` is the image of point ``p``)."""
    w = size + 2
    maps = np.tile(np.arange(w * w, dtype=np.int64), (8, 1))
    for t in range(8):
        for r in range(size):
            for c in range(size):
                rr, cc = (c, r) if t & 4 else (r, c)
                rr = size - 1 - rr if t & 1 else rr
                cc = size - 1 - cc if t & 2 else cc
                maps[t, flat_index((r, c), size)] = flat_index((rr, cc), size)
    return maps


@njit(cache=True)
def symmetric_hashes(b: np.ndarray, maps: np.ndarray) -> np.ndarray:
    """The Zobrist hash of the stones under each symmetry of ``maps``."""
    hs = np.zeros(maps.shape[0], dtype=np.int64)
    for p in range(b.shape[1]):
        c = b[COLOR, p]
        if c == BLACK or c == WHITE:
            for t in range(len(hs)):
                hs[t] ^= ZOBRIST[c, maps[t, p]]
    return hs


@njit(cache=True)
def _smallest(hs: np.ndarray, maps: np.ndarray, color: int, ko: int):
    """The smallest over the symmetries of the stones' hash (``hs``) with the ko point and
    the side to move, and the symmetry that gives it."""
    best, which = np.int64(0), 0
    for t in range(len(hs)):
        h = hs[t] ^ _KEYS[color, maps[t, ko]]
        if t == 0 or h < best:
            best, which = h, t
    return best, which


@njit(cache=True)
def canonical_hash(b: np.ndarray, m: np.ndarray, maps: np.ndarray, color: int):
    """The smallest over the symmetries of the stones' Zobrist hash with the ko point and the
    side to move, and the symmetry that gives it."""
    return _smallest(symmetric_hashes(b, maps), maps, color, m[KO])


@njit(cache=True)
def child_keys(b: np.ndarray, m: np.ndarray, color: int, moves: np.ndarray, hashes: np.ndarray,
               kos: np.ndarray, maps: np.ndarray) -> np.ndarray:
    """The transposition keys under the symmetries of the positions after ``color``'s
    ``moves`` (``expand``'s board hashes and ko points after them): the child's
    ``Problem.canonical``. A move that captures nothing adds its stone to each
    symmetry's hash; one that captures is played."""
    keys = np.empty(len(moves), dtype=np.int64)
    if maps.shape[0] == 1:  # the identity alone: the board hash after the move is the stones' hash
        for i in range(len(moves)):
            keys[i] = hashes[i] ^ _KEYS[3 - color, maps[0, kos[i]]] ^ (_PASSED if moves[i] == PASS else 0)
        return keys
    hs = symmetric_hashes(b, maps)
    after = np.empty_like(hs)
    for i in range(len(moves)):
        p = moves[i]
        if p == PASS:
            after[:] = hs
        elif hashes[i] == m[HASH] ^ ZOBRIST[color, p]:
            for t in range(len(hs)):
                after[t] = hs[t] ^ ZOBRIST[color, maps[t, p]]
        else:
            b2, m2 = b.copy(), m.copy()
            play(b2, m2, color, p)
            after[:] = symmetric_hashes(b2, maps)
        keys[i] = _smallest(after, maps, 3 - color, kos[i])[0] ^ (_PASSED if p == PASS else 0)
    return keys


def child_key(board_hash: int, color: int, ko: int, passed: bool) -> int:
    """Transposition key of a position from its board hash, side to move, ko point and pass flag."""
    return board_hash ^ int(_KEYS[color, ko]) ^ (int(_PASSED) if passed else 0)


@dataclass
class State:
    """A position in a search: the board arrays, the side to move, whether the last move passed."""

    b: np.ndarray
    m: np.ndarray
    color: int
    passed: bool = False


@dataclass
class Problem:
    """A position to solve: root state, goal array, region mask and value range."""

    root: State
    goal: np.ndarray
    region: np.ndarray
    lo: int = -1
    hi: int = 1
    mark: np.ndarray = field(default=None)
    #: point maps of the symmetries positions are looked up under (the whole board's eight
    #: for ``score`` on the whole board, else the identity), and their inverses
    maps: np.ndarray = field(default=None)
    inverse: np.ndarray = field(default=None)
    #: move strengths (a ``patterns.prior.MovePrior``) that order each position's moves,
    #: strongest first; None keeps the board's order
    prior: object = None
    _ordering: tuple | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.mark is None:
            self.mark = np.zeros(self.root.b.shape[1], dtype=np.int32)
        n = self.root.b.shape[1]
        whole = all(self.region[p] or self.root.b[COLOR, p] == BORDER for p in range(n))
        if self.maps is None:
            self.maps = (symmetries(self.size) if self.goal[KIND] == SCORE and whole
                         else np.arange(n, dtype=np.int64)[None, :])
        self.inverse = np.argsort(self.maps, axis=1)

    @property
    def size(self) -> int:
        return int(self.root.m[SIZE])

    def key(self, s: State) -> int:
        """Transposition key: the stones, the side to move, the ko point, a pass just made."""
        return child_key(int(s.m[HASH]), s.color, int(s.m[KO]), s.passed)

    def canonical(self, s: State) -> tuple[int, int]:
        """Transposition key of the position under its symmetries, and the symmetry used."""
        h, t = canonical_hash(s.b, s.m, self.maps, s.color)
        return int(h) ^ (int(_PASSED) if s.passed else 0), int(t)

    def ordering(self) -> tuple:
        """What ``expand_ordered`` orders the moves by: the prior's ratings knowledge and a
        pattern cache, made once per problem; (None, None) without a prior."""
        if self.prior is None:
            return None, None
        if self._ordering is None:
            self._ordering = self.prior.knowledge(self.size), prior_cache(self.root.b.shape[1], 1)
        return self._ordering

    def expand(self, s: State):
        """``expand_ordered`` of the numba core for this problem's state and prior."""
        return expand_ordered(s.b, s.m, s.color, s.passed, self.region, self.goal, self.mark, NO_EFFORTS,
                              *self.ordering())

    def child(self, s: State, move: int) -> State:
        """The state after ``move`` (a board point or PASS)."""
        b, m = s.b.copy(), s.m.copy()
        play(b, m, s.color, move)
        return State(b, m, 3 - s.color, move == PASS)

    def playout(self, s: State) -> int:
        """Black's value at the end of one random playout from ``s``."""
        return int(playout_value(s.b.copy(), s.m.copy(), s.color, s.passed, self.region, self.goal, self.mark))

    def root_value(self) -> int:
        """Black's value if the goal is settled in the root position already, else OPEN."""
        return int(decided(self.root.b, self.root.m, self.goal, self.mark, self.root.color, self.region))


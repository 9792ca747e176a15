"""The MoGo playout policy (Gelly, Wang, Munos, Teytaud 2006; Gelly & Silver 2007;
MoGo 2008, section 6), in two orders of its rules.

``mogo``, the seed's order (``mogo_move``): each move is the first rule that yields
a candidate of

1. save atari: the last move put one of our strings in atari -- capture a
   neighbour in atari of that string, or extend at its last liberty when that
   gives two or more liberties;
2. nakade: the last move left a three-point space next to it inside the
   opponent's stones -- play its vital (middle) point, which kills;
3. fill-board: a few random points whose 3x3 block is empty;
4. patterns: an empty point among the 8 neighbours of the last move matches one
   of the 3x3 MoGo shapes (hane, cut, edge) and is no self-atari;
5. capture: an opponent string in atari anywhere on the board;
6. a random legal move that fills no own eye (``engine.playout_random.random_move``).

``mogo-local`` (``mogo_move`` with ``local``), the engine's order before the seed's: save
atari, nakade inside stones of either colour (to kill or to live), patterns,
capture next to the last two moves, fill-board, random.

Candidates of a rule are drawn uniformly among the rule's candidates. The
3x3 shapes are a 65536-entry table indexed by the colours of the 8 neighbours,
built once at import from Michi's pattern source (color-symmetric, all 8
symmetries), so a match is a table look-up.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...go.nbr3x3 import colour_code
from ...go.reading import libs_after_up_to_2
from ...go.rules import (
    BORDER,
    COLOR,
    EMPTIES,
    EMPTY,
    HEAD,
    LAST,
    LAST2,
    N_EMPTY,
    NEXT,
    PASS,
    SIZE,
    STRIDE,
    area_score,
    atari_point,
    illegal_reason,
    in_atari,
    is_eye,
    new_board,
    play,
)
from .random import random_move

# Michi's 3x3 shapes around the move (the centre). X and O are the two colours
# (either may be the player), x: not X, o: not O, ?: anything, #: off board.
PATTERN_SOURCE = (
    ("XOX", "...", "???"),  # enclosing hane
    ("XO.", "...", "?.?"),  # non-cutting hane
    ("XO?", "X..", "x.?"),  # magari
    (".O.", "X..", "..."),  # katatsuke / diagonal attachment
    ("XO?", "O.o", "?o?"),  # unprotected cut
    ("XO?", "O.X", "???"),  # peeped cut
    ("?X?", "O.O", "ooo"),  # cut2 (de)
    ("OX?", "o.O", "???"),  # cut keima
    ("X.?", "O.#", "?##"),  # edge: chase
    ("OX?", "X.O", "###"),  # edge: block side cut
    ("?X?", "x.O", "###"),  # edge: block side connection
    ("?XO", "x.x", "###"),  # edge: sagari
    ("?OX", "X.O", "###"),  # edge: cut
)

# The 8 neighbours in code order, as (row, col) offsets in a pattern picture
# (row 0 at the top); the board point of each is given by ``_ring``.
RING = ((0, 0), (0, 1), (0, 2), (1, 2), (2, 2), (2, 1), (2, 0), (1, 0))
CELL_VALUES = {".": (EMPTY,), "X": (1,), "O": (2,), "x": (EMPTY, 2), "o": (EMPTY, 1),
               "?": (EMPTY, 1, 2, BORDER), "#": (BORDER,)}

MAX_CANDIDATES = 64
FILL_BOARD_TRIES = 4


def _symmetries(rows: tuple[str, str, str]) -> list[list[str]]:
    grid = [list(r) for r in rows]
    out = []
    for _ in range(4):
        grid = [list(r) for r in zip(*grid[::-1])]  # rotate 90 degrees
        out.append(grid)
        out.append([r[::-1] for r in grid])  # and its mirror image
    return out


def build_pattern_table() -> np.ndarray:
    """uint8[65536]: 1 where the 8 neighbour colours (2 bits each, ring order) match a shape."""
    table = np.zeros(1 << 16, dtype=np.uint8)
    swap = str.maketrans("XOxo", "OXox")
    for source in PATTERN_SOURCE:
        for rows in (source, tuple(r.translate(swap) for r in source)):
            for grid in _symmetries(rows):
                codes = [0]
                for k, (r, c) in enumerate(RING):
                    codes = [code | (v << (2 * k)) for code in codes for v in CELL_VALUES[grid[r][c]]]
                table[codes] = 1
    return table


PATTERNS = build_pattern_table()


@njit(cache=True)
def _good(b: np.ndarray, m: np.ndarray, color: int, p: int) -> bool:
    """Legal, no own eye filled, and no self-atari: fit for a heuristic rule."""
    return (b[COLOR, p] == EMPTY and illegal_reason(b, m, color, p) == 0
            and not is_eye(b, m, color, p) and libs_after_up_to_2(b, m, color, p) >= 2)


@njit(cache=True)
def _push(cands: np.ndarray, n: int, p: int) -> int:
    if n < len(cands):
        cands[n] = p
        n += 1
    return n


@njit(cache=True)
def _pick(cands: np.ndarray, n: int) -> int:
    return PASS if n == 0 else cands[np.random.randint(n)]


@njit(cache=True)
def save_atari_moves(b: np.ndarray, m: np.ndarray, color: int, cands: np.ndarray) -> int:
    """Moves that save ``color``'s strings put in atari by the last move."""
    w = m[STRIDE]
    last = m[LAST]
    n = 0
    if last == PASS:
        return 0
    for q in (last - 1, last + 1, last - w, last + w):
        if b[COLOR, q] != color or not in_atari(b, b[HEAD, q]):
            continue
        h = b[HEAD, q]
        s = h
        while True:  # counter-capture: an opponent neighbour in atari
            for r in (s - 1, s + 1, s - w, s + w):
                if b[COLOR, r] == 3 - color and in_atari(b, b[HEAD, r]):
                    a = atari_point(b, b[HEAD, r])
                    if illegal_reason(b, m, color, a) == 0:
                        n = _push(cands, n, a)
            s = b[NEXT, s]
            if s == h:
                break
        a = atari_point(b, h)
        if illegal_reason(b, m, color, a) == 0 and libs_after_up_to_2(b, m, color, a) >= 2:
            n = _push(cands, n, a)
    return n


@njit(cache=True)
def capture_moves(b: np.ndarray, m: np.ndarray, color: int, cands: np.ndarray) -> int:
    """Moves capturing an opponent string at or next to the last two moves."""
    w = m[STRIDE]
    n = 0
    for last in (m[LAST], m[LAST2]):
        if last == PASS:
            continue
        for q in (last, last - 1, last + 1, last - w, last + w):
            if b[COLOR, q] == 3 - color and in_atari(b, b[HEAD, q]):
                a = atari_point(b, b[HEAD, q])
                if illegal_reason(b, m, color, a) == 0:
                    n = _push(cands, n, a)
    return n


@njit(cache=True)
def capture_anywhere_moves(b: np.ndarray, m: np.ndarray, color: int, cands: np.ndarray) -> int:
    """Moves capturing an opponent string in atari anywhere on the board (each string once)."""
    w = m[STRIDE]
    size = m[SIZE]
    other = 3 - color
    n = 0
    for row in range(1, size + 1):
        for h in range(row * w + 1, row * w + size + 1):
            if b[COLOR, h] == other and b[HEAD, h] == h and in_atari(b, h):
                a = atari_point(b, h)
                if illegal_reason(b, m, color, a) == 0:
                    n = _push(cands, n, a)
    return n


@njit(cache=True)
def pattern_moves(b: np.ndarray, m: np.ndarray, color: int, cands: np.ndarray) -> int:
    """Empty neighbours of the last move that match a 3x3 MoGo shape."""
    w = m[STRIDE]
    last = m[LAST]
    n = 0
    if last == PASS:
        return 0
    for p in (last + w - 1, last + w, last + w + 1, last + 1, last - w + 1, last - w, last - w - 1, last - 1):
        if b[COLOR, p] == EMPTY and PATTERNS[colour_code(b, w, p)] and _good(b, m, color, p):
            n = _push(cands, n, p)
    return n


@njit(cache=True)
def nakade_point(b: np.ndarray, m: np.ndarray, color: int, either: bool) -> int:
    """The vital point of a three-point empty space next to the last move, enclosed by
    the opponent's stones (with ``either``, by stones of one colour, ours or the
    opponent's), or PASS.

    A straight or bent three enclosed by one colour lives or dies by its middle
    point, whoever owns it; random playouts rarely find it, so it is played here.
    """
    w = m[STRIDE]
    last = m[LAST]
    if last == PASS:
        return PASS
    for e in (last - 1, last + 1, last - w, last + w):
        if b[COLOR, e] != EMPTY:
            continue
        # Flood the empty region from e into r0, r1, r2 (scalars: this runs every
        # playout move), stopping at a fourth point.
        r0, r1, r2 = e, -1, -1
        size = 1
        wall = 0
        i = 0
        while i < size and size <= 3:
            s = r0 if i == 0 else (r1 if i == 1 else r2)
            for q in (s - 1, s + 1, s - w, s + w):
                c = b[COLOR, q]
                if c == EMPTY:
                    if q != r0 and q != r1 and q != r2:
                        if size == 3:
                            size = 4
                            break
                        if size == 1:
                            r1 = q
                        else:
                            r2 = q
                        size += 1
                elif c != BORDER:
                    wall |= c
            i += 1
        if size != 3 or (wall != 3 - color and not (either and wall == color)):
            continue
        for s in (r0, r1, r2):  # the middle point touches both others
            touches = 0
            for q in (s - 1, s + 1, s - w, s + w):
                touches += q == r0 or q == r1 or q == r2
            if touches == 2 and illegal_reason(b, m, color, s) == 0:
                return s
    return PASS


@njit(cache=True)
def fill_board_move(b: np.ndarray, m: np.ndarray, color: int) -> int:
    """A random empty point whose 8 neighbours are all empty, from a few tries
    (a pass on a full board)."""
    if m[N_EMPTY] == 0:
        return PASS
    w = m[STRIDE]
    for _ in range(FILL_BOARD_TRIES):
        p = b[EMPTIES, np.random.randint(m[N_EMPTY])]
        if colour_code(b, w, p) == 0:
            return p
    return PASS


@njit(cache=True)
def mogo_move(b: np.ndarray, m: np.ndarray, color: int, cands: np.ndarray, local: bool) -> int:
    """The MoGo playout policy's move for ``color`` (PASS when none is left): in the
    seed's order save atari, nakade, fill-board, patterns, capture anywhere, random;
    with ``local`` (``mogo-local``) save atari, nakade of either colour, patterns,
    capture next to the last two moves, fill-board, random."""
    if m[N_EMPTY] == 0:
        return PASS
    p = _pick(cands, save_atari_moves(b, m, color, cands))
    if p == PASS:
        p = nakade_point(b, m, color, local)
    if p == PASS and not local:
        p = fill_board_move(b, m, color)
    if p == PASS:
        p = _pick(cands, pattern_moves(b, m, color, cands))
    if p == PASS:
        p = _pick(cands, capture_moves(b, m, color, cands) if local else capture_anywhere_moves(b, m, color, cands))
    if p == PASS and local:
        p = fill_board_move(b, m, color)
    if p == PASS:
        p = random_move(b, m, color)
    return p


@njit(cache=True)
def mogo_playout(b: np.ndarray, m: np.ndarray, color: int, komi: float, moves: np.ndarray,
                 local: bool) -> tuple[float, int]:
    """Play the MoGo policy to the end, in place (``color`` to move), in the seed's
    order or with ``local`` in ``mogo-local``'s; returns the area score (Black minus
    White) and how many moves were written to ``moves`` (for AMAF; ``moves`` needs
    room for ``3 * size * size`` points)."""
    size = m[SIZE]
    limit = min(3 * size * size, len(moves))
    cands = np.empty(MAX_CANDIDATES, dtype=np.int64)
    passes = 0
    n = 0
    while passes < 2 and n < limit:
        p = mogo_move(b, m, color, cands, local)
        play(b, m, color, p)
        moves[n] = p
        passes = passes + 1 if p == PASS else 0
        n += 1
        color = 3 - color
    return area_score(b, m, komi), n


@njit(cache=True)
def run_mogo_playouts(size: int, n: int, komi: float, seed: int, local: bool) -> float:
    """Run ``n`` MoGo playouts (``local``: in ``mogo-local``'s order) from the empty
    board; returns Black's win rate."""
    np.random.seed(seed)
    wins = 0
    b0, m0 = new_board(size)
    moves = np.empty(3 * size * size, dtype=np.int64)
    for _ in range(n):
        b, m = b0.copy(), m0.copy()
        if mogo_playout(b, m, 1, komi, moves, local)[0] > 0:
            wins += 1
    return wins / n

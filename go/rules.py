"""The rules of Go on flat numba arrays: the one implementation shared by miner and engine.

A board of size N lives in two arrays, so that copying a position is two memcpys:

``b``: ``int32[ROWS, L]`` with ``L = (N + 2) ** 2``, one row per field, indexed by
point. Points are laid out row-major with a one-point border of ``BORDER`` all
round, so the four neighbours of ``p`` are ``p - 1, p + 1, p - W, p + W`` with
``W = N + 2`` and no bounds checks are needed.

- ``COLOR``: EMPTY, BLACK, WHITE or BORDER.
- ``HEAD`` / ``NEXT``: each stone's string is named by a head stone; ``NEXT`` links
  the stones of a string in a ring, so strings merge by swapping two links.
- ``STONES``, ``PLIBS``, ``PSUM``, ``PSUM2`` (valid at heads): the string's stone
  count and its *pseudo-liberties* -- the number of (stone, empty neighbour)
  adjacencies, and the sum and sum of squares of those empty points. They update
  in O(1) per move, and a string is in atari exactly when all its pseudo-liberties
  are the same point, i.e. when ``PLIBS * PSUM2 == PSUM ** 2``; that point is
  ``PSUM / PLIBS``.
- ``EMPTIES`` / ``EMPTY_AT``: the empty points as a list with O(1) removal, from
  which playouts draw moves.

``m``: ``int64[META]``: size, stride, the simple-ko point, the number of empty
points, the Zobrist hash, captures, the last two moves and the move count.

Colours are 1 (black) and 2 (white), so ``3 - c`` is the opponent. Game records
index points as ``row * N + col`` with row 0 at the bottom (sgfmill's convention);
``to_point`` / ``to_index`` convert. Pass is -1 in records and ``PASS`` (0, a border
point) on the board. Suicide is illegal; simple ko is checked here; positional
superko needs the game's history of hashes and is checked by ``Board``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

EMPTY, BLACK, WHITE, BORDER = 0, 1, 2, 3
PASS = 0
MAX_SIZE = 25

COLOR, HEAD, NEXT, STONES, PLIBS, PSUM, PSUM2, EMPTIES, EMPTY_AT = range(9)
ROWS = 9

SIZE, STRIDE, KO, N_EMPTY, HASH, CAPS_B, CAPS_W, LAST, LAST2, N_MOVES = range(10)
META = 10

#: Why a move is illegal, by the code ``illegal_reason`` returns.
REASONS = ("", "occupied", "suicide", "ko")
OK, OCCUPIED, SUICIDE, KO_BAN = range(4)

#: Zobrist keys per (colour, point); the hash of a position is the XOR of its stones.
ZOBRIST = np.random.default_rng(20261122).integers(
    np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=(3, (MAX_SIZE + 2) ** 2), dtype=np.int64
)


@njit(cache=True)
def new_board(size: int) -> tuple[np.ndarray, np.ndarray]:
    """An empty board of ``size`` x ``size`` with its border."""
    w = size + 2
    b = np.zeros((ROWS, w * w), dtype=np.int32)
    m = np.zeros(META, dtype=np.int64)
    m[SIZE] = size
    m[STRIDE] = w
    n = 0
    for p in range(w * w):
        row, col = p // w, p % w
        if row == 0 or col == 0 or row == w - 1 or col == w - 1:
            b[COLOR, p] = BORDER
        else:
            b[EMPTIES, n] = p
            b[EMPTY_AT, p] = n
            n += 1
    m[N_EMPTY] = n
    return b, m


@njit(cache=True)
def to_point(index: int, size: int) -> int:
    """Board point of a record index ``row * size + col`` (-1, pass, gives PASS)."""
    if index < 0:
        return PASS
    return (index // size + 1) * (size + 2) + index % size + 1


@njit(cache=True)
def to_index(p: int, size: int) -> int:
    """Record index ``row * size + col`` of a board point (PASS gives -1)."""
    if p == PASS:
        return -1
    w = size + 2
    return (p // w - 1) * size + p % w - 1


@njit(cache=True)
def in_atari(b: np.ndarray, h: int) -> bool:
    """Whether the string with head ``h`` has exactly one liberty."""
    n = np.int64(b[PLIBS, h])
    s = np.int64(b[PSUM, h])
    return n > 0 and n * np.int64(b[PSUM2, h]) == s * s


@njit(cache=True)
def atari_point(b: np.ndarray, h: int) -> int:
    """The last liberty of a string in atari."""
    return b[PSUM, h] // b[PLIBS, h]


@njit(cache=True)
def _add_plib(b: np.ndarray, h: int, p: int) -> None:
    b[PLIBS, h] += 1
    b[PSUM, h] += p
    b[PSUM2, h] += p * p


@njit(cache=True)
def _remove_plib(b: np.ndarray, h: int, p: int) -> None:
    b[PLIBS, h] -= 1
    b[PSUM, h] -= p
    b[PSUM2, h] -= p * p


@njit(cache=True)
def _take_empty(b: np.ndarray, m: np.ndarray, p: int) -> None:
    """Remove ``p`` from the empty list by moving the last entry into its slot."""
    i = b[EMPTY_AT, p]
    last = b[EMPTIES, m[N_EMPTY] - 1]
    b[EMPTIES, i] = last
    b[EMPTY_AT, last] = i
    m[N_EMPTY] -= 1


@njit(cache=True)
def _give_empty(b: np.ndarray, m: np.ndarray, p: int) -> None:
    n = m[N_EMPTY]
    b[EMPTIES, n] = p
    b[EMPTY_AT, p] = n
    m[N_EMPTY] = n + 1


@njit(cache=True)
def _merge(b: np.ndarray, h1: int, h2: int) -> int:
    """Join two strings; the smaller is relabelled. Returns the surviving head."""
    if b[STONES, h1] < b[STONES, h2]:
        h1, h2 = h2, h1
    s = h2
    while True:
        b[HEAD, s] = h1
        s = b[NEXT, s]
        if s == h2:
            break
    b[NEXT, h1], b[NEXT, h2] = b[NEXT, h2], b[NEXT, h1]
    b[STONES, h1] += b[STONES, h2]
    b[PLIBS, h1] += b[PLIBS, h2]
    b[PSUM, h1] += b[PSUM, h2]
    b[PSUM2, h1] += b[PSUM2, h2]
    return h1


@njit(cache=True)
def _capture(b: np.ndarray, m: np.ndarray, h: int) -> int:
    """Remove the string with head ``h``; its points become liberties of its neighbours."""
    w = m[STRIDE]
    color = b[COLOR, h]
    other = 3 - color
    n = 0
    s = h
    while True:
        b[COLOR, s] = EMPTY
        m[HASH] ^= ZOBRIST[color, s]
        _give_empty(b, m, s)
        for q in (s - 1, s + 1, s - w, s + w):
            if b[COLOR, q] == other:
                _add_plib(b, b[HEAD, q], s)
        n += 1
        s = b[NEXT, s]
        if s == h:
            break
    return n


@njit(cache=True)
def illegal_reason(b: np.ndarray, m: np.ndarray, color: int, p: int) -> int:
    """Why ``color`` may not play at point ``p`` (OK when it may), ignoring superko."""
    if p == PASS:
        return OK
    if b[COLOR, p] != EMPTY:
        return OCCUPIED
    # The ko ban binds only the capturer's opponent: the capturer may fill the
    # point (a record can have two moves of one colour). m[KO] is set only by the
    # last move, so the capturer is the colour of the stone at m[LAST].
    if p == m[KO] and b[COLOR, m[LAST]] != color:
        return KO_BAN
    w = m[STRIDE]
    for q in (p - 1, p + 1, p - w, p + w):
        c = b[COLOR, q]
        if c == EMPTY:
            return OK
        if c == color:
            if not in_atari(b, b[HEAD, q]):
                return OK
        elif c != BORDER and in_atari(b, b[HEAD, q]):
            return OK
    return SUICIDE


@njit(cache=True)
def play(b: np.ndarray, m: np.ndarray, color: int, p: int) -> int:
    """Play a legal move (or PASS) for ``color``; returns the number of stones captured."""
    m[LAST2] = m[LAST]
    m[LAST] = p
    m[N_MOVES] += 1
    m[KO] = 0
    if p == PASS:
        return 0
    w = m[STRIDE]
    other = 3 - color
    _take_empty(b, m, p)
    b[COLOR, p] = color
    b[HEAD, p] = p
    b[NEXT, p] = p
    b[STONES, p] = 1
    b[PLIBS, p] = 0
    b[PSUM, p] = 0
    b[PSUM2, p] = 0
    m[HASH] ^= ZOBRIST[color, p]
    for q in (p - 1, p + 1, p - w, p + w):
        c = b[COLOR, q]
        if c == EMPTY:
            _add_plib(b, p, q)
        elif c != BORDER:
            _remove_plib(b, b[HEAD, q], p)
    h = p
    for q in (p - 1, p + 1, p - w, p + w):
        if b[COLOR, q] == color and b[HEAD, q] != h:
            h = _merge(b, h, b[HEAD, q])
    captured = 0
    ko = 0
    for q in (p - 1, p + 1, p - w, p + w):
        if b[COLOR, q] == other and b[PLIBS, b[HEAD, q]] == 0:
            if b[STONES, b[HEAD, q]] == 1:
                ko = q
            captured += _capture(b, m, b[HEAD, q])
    if captured == 1 and b[STONES, h] == 1 and in_atari(b, h):
        m[KO] = ko
    m[CAPS_B + color - 1] += captured
    return captured


@njit(cache=True)
def place_setup(b: np.ndarray, m: np.ndarray, color: int, p: int) -> None:
    """Put a setup stone (handicap, AB/AW) without counting it as a move."""
    if b[COLOR, p] == EMPTY:
        play(b, m, color, p)
        m[N_MOVES] -= 1
        m[LAST] = m[LAST2] = PASS
        m[KO] = 0  # a setup stone is not a move, so no ko ban follows it


@njit(cache=True)
def is_eye(b: np.ndarray, m: np.ndarray, color: int, p: int) -> bool:
    """Whether empty ``p`` is an eye of ``color`` that a playout must not fill.

    All four neighbours are ``color`` or border, and the opponent holds fewer than
    two diagonal points (none when ``p`` is on the edge): the classic true-eye test.
    """
    w = m[STRIDE]
    for q in (p - 1, p + 1, p - w, p + w):
        c = b[COLOR, q]
        if c != color and c != BORDER:
            return False
    bad = 0
    edge = 0
    for q in (p - w - 1, p - w + 1, p + w - 1, p + w + 1):
        c = b[COLOR, q]
        if c == BORDER:
            edge = 1
        elif c == 3 - color:
            bad += 1
    return bad + edge < 2


@njit(cache=True)
def area_score(b: np.ndarray, m: np.ndarray, komi: float) -> float:
    """Tromp-Taylor area score, Black minus White: stones plus empty regions that
    reach stones of one colour only, minus komi."""
    w = m[STRIDE]
    region = np.zeros(w * w, dtype=np.int32)
    stack = np.empty(w * w, dtype=np.int32)
    score = 0.0
    for p in range(w * w):
        c = b[COLOR, p]
        if c == BLACK:
            score += 1
        elif c == WHITE:
            score -= 1
        elif c == EMPTY and region[p] == 0:
            region[p] = 1
            stack[0] = p
            top, size, reach = 1, 0, 0
            while top > 0:
                top -= 1
                s = stack[top]
                size += 1
                for q in (s - 1, s + 1, s - w, s + w):
                    cq = b[COLOR, q]
                    if cq == EMPTY:
                        if region[q] == 0:
                            region[q] = 1
                            stack[top] = q
                            top += 1
                    elif cq != BORDER:
                        reach |= cq
            if reach == BLACK:
                score += size
            elif reach == WHITE:
                score -= size
    return score - komi


@njit(cache=True)
def replay_check(
    size: int,
    setup_black: np.ndarray,
    setup_white: np.ndarray,
    moves: np.ndarray,
    first_color: int,
) -> tuple[int, int]:
    """Replay a game record; returns how many leading moves are legal and, if one
    is not, the reason code of the first illegal one (0 when all are legal).

    Moves are record indices (``row * size + col``, -1 pass) alternating colours
    from ``first_color``. Simple ko and suicide are checked, not superko: the
    Korean and Japanese rules of most archives have no superko.
    """
    b, m = new_board(size)
    for i in setup_black:
        place_setup(b, m, BLACK, to_point(i, size))
    for i in setup_white:
        place_setup(b, m, WHITE, to_point(i, size))
    color = first_color
    for n in range(len(moves)):
        p = to_point(moves[n], size)
        reason = illegal_reason(b, m, color, p)
        if reason != OK:
            return n, reason
        play(b, m, color, p)
        color = 3 - color
    return len(moves), OK

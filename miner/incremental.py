"""Incremental counting pass: the same table as ``mine.count``, some 15 times faster.

The counting pass of :mod:`shapemill.miner.mine` walks every ring of every legal
candidate of every position. Between two positions only the points near the
move and the captured stones change colour, so most candidates' ring patterns
are the same as one move before. This kernel keeps, per game, each candidate's
*chain*: the ids of its rings 2 .. depth (depth being where counting stops: the
first ring past the smallest missing from the dictionary), the eight
per-symmetry hashes after each ring up to the stopping one, and, per ring, the
*instance* it belongs to: the ply it opened at and how often it was played.

A point whose colour goes from ``a`` to ``b`` at gridcular distance ``j`` from a
candidate changes the candidate's rings ``j`` and up, and nothing below; since
a symmetric hash is a XOR over the pattern's points, each of those rings' hash
under symmetry ``s`` changes by the same ``Z[o, a] ^ Z[o, b]``, ``o`` being the
point's offset index under ``s``: eight XORs a ring instead of hashing it again.
Only rings that grow past the stored ones are hashed from the board.

Chains are kept per *view*, black or white to move (the relative colours
differ), and a view is brought up to date only at the plies where that colour
is to move, from the colour changes since its previous turn. An instance
unchanged from ply ``a`` to ply ``b`` (exclusive) is seen at ``a, a + 2, ...``:
``(b - a + 1) // 2`` times, with its first occurrence, at ``a``, as witness; these
are added to the table when it closes (its id changes, the point becomes an
illegal move, or the counted positions end). Sums and minima do not depend on
how occurrences are grouped, so the table equals the straightforward one.

An instance keeps its id's slot in the table, so that closing it is a write
with no probe, and the ids of a chain's changed rings are looked up together,
so that their cache misses overlap: on a big dictionary the table, not the
hashing, is what costs.

Every game starts from the chains of the empty board, computed once per board
size (the opening's patterns are the largest: hashing them afresh in every
game would cost more than the rest of the game), with the setup stones and the
moves before a view's first turn as its first colour changes. Its instances
open at that first turn; those closed there were never seen and add nothing.

Legality is recomputed for every empty point at every turn (nanoseconds a
point): a point's suicide status can change far from the move, through the
liberties of a long string, and the ko ban binds one colour only.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from shapemill.datasets.corpus import Corpus
from shapemill.engine.rules import (
    BORDER,
    COLOR,
    EMPTIES,
    EMPTY,
    N_EMPTY,
    OK,
    PASS,
    SIZE,
    illegal_reason,
    new_board,
    play,
    to_point,
)
from shapemill.miner import counts
from shapemill.miner.spatial import (
    MIN_RING,
    PATTERN_ZOBRIST,
    RELATIVE,
    RING_END,
    RING_KEY,
    RING_OF,
    fill_padded,
    geometry,
    grow_ring,
    padded_point,
)

# The helpers called per point or per ring are inlined (``inline="always"``): a call
# passes the arrays of ``Chains`` by value, some sixty words, and costs more than it does.

#: Columns of a ring's row in ``Chains.rings``: its hash under each of the eight
#: symmetries (columns 0..7), its id, its instance's opening ply and plays, and the
#: id's slot in the table (-1: not known, as for a smallest ring not yet in the
#: table, or the template's).
ID, OPENED, PLAYED, SLOT = 8, 9, 10, 11
RING_COLUMNS = 12

#: Most smallest-ring patterns one ply can insert into the table, per point: a turn
#: closes one, and the game's end one per view.
INSERTS = 3


class Chains(NamedTuple):
    """The chains of one game, per view (0: black to move, 1: white) and board point."""

    depth: np.ndarray  # int32[2, L]: deepest ring counted, 0 when not a legal move
    rings: np.ndarray  # int64[2, L, max_ring + 1, RING_COLUMNS]; hashes current up to depth + 1
    state: np.ndarray  # int8[padded]: the board the chains were computed on
    changed: np.ndarray  # int32[2, n, 3]: (point, old colour, new colour) since the view's last turn
    n_changed: np.ndarray  # int32[2]
    fresh: np.ndarray  # int64[max_ring + 1, 2]: scratch, new ids and their slots


class Template(NamedTuple):
    """What every game of one board size starts from."""

    chains: Chains  # the empty board's
    padded: np.ndarray  # int32[L]: padded index of each board point
    inverse: np.ndarray  # int16[8, 2 * base + 1]: offset index of a padded displacement
    base: int  # index of displacement 0 in ``inverse``


def template(size: int, max_ring: int, table: counts.Table) -> Template:
    """The empty board's chains for ``size``, gated by the patterns in ``table``.

    Valid for the whole counting pass: only smallest-ring patterns are inserted
    while counting, and they do not gate.
    """
    geo = geometry(size)
    b, m = new_board(size)
    points = len(b[COLOR])
    state = np.empty(geo.stride * geo.stride, dtype=np.int8)
    fill_padded(b, m, geo.pad, state)
    rings = np.zeros((2, points, max_ring + 1, RING_COLUMNS), dtype=np.int64)
    # Between two turns of a view: the setup stones, or two moves and what they captured.
    changed = np.zeros((2, 2 * points + 2, 3), dtype=np.int32)
    fresh = np.zeros((max_ring + 1, 2), dtype=np.int64)
    chains = Chains(np.zeros((2, points), dtype=np.int32), rings, state, changed, np.zeros(2, dtype=np.int32), fresh)
    padded = np.array([padded_point(p, m, geo.pad) for p in range(points)], dtype=np.int32)
    base = geo.pad * (geo.stride + 1)
    inverse = np.zeros((8, 2 * base + 1), dtype=np.int16)
    n = RING_END[geo.max_ring]
    for s in range(8):
        inverse[s, geo.delta[s, :n] + base] = np.arange(n)
    _open_all(b, chains, table, padded, geo.delta, max_ring)
    rings[..., SLOT] = -1  # a game's table may be another
    return Template(chains, padded, inverse, base)


def _adopt(tpl: Template, first_color: int, chains: Chains) -> None:
    """Make ``chains`` the template's, its instances opening at each view's first turn."""
    for dst, src in zip(chains, tpl.chains):
        np.copyto(dst, src)
    chains.rings[first_color - 1, :, :, OPENED] = 0
    chains.rings[2 - first_color, :, :, OPENED] = 1


@njit(cache=True, inline="always")
def _close(rings, table, v, p, k, ply, game) -> None:
    """Add the counts of ring ``k``'s instance at point ``p`` of view ``v``, ended at ``ply``."""
    a = rings[v, p, k, OPENED]
    seen = (ply - a + 1) // 2
    if seen == 0:
        return
    first = counts.witness(game, a, p)
    i = rings[v, p, k, SLOT]
    if i < 0:
        counts.add(table, rings[v, p, k, ID], k, seen, rings[v, p, k, PLAYED], first)
        return
    # The slot is known: no probe, and the write need not wait for the memory.
    rows = table[0]
    rows[i, counts.SEEN] += seen
    rows[i, counts.PLAYED] += rings[v, p, k, PLAYED]
    rows[i, counts.WITNESS] = min(rows[i, counts.WITNESS], first)


@njit(cache=True)
def _drop(chains, table, v, p, ply, game) -> None:
    """Close every instance of point ``p`` in view ``v``: it is no longer a legal move."""
    for k in range(MIN_RING, chains.depth[v, p] + 1):
        _close(chains.rings, table, v, p, k, ply, game)
    chains.depth[v, p] = 0


@njit(cache=True, inline="always")
def _ring_id(rings, v, p, k) -> int:
    """The id of ring ``k`` from its eight symmetric hashes, as ``grow_ring`` gives it."""
    h = rings[v, p, k, 0]
    for s in range(1, 8):
        h = min(h, rings[v, p, k, s])
    key = h ^ RING_KEY[k]
    return key if key != 0 else 1


@njit(cache=True)
def _rechain(chains, table, v, p, q, j, top, ply, game, delta, max_ring) -> None:
    """Bring rings ``j`` and up of point ``p`` (padded ``q``) in view ``v`` up to date;
    their hashes are current up to ring ``top``, the rings past it are hashed from
    the board.

    Rings whose id changed close their instance and open a new one at ``ply``.
    Growth stops, as in ``mine._count_candidate``, at the first ring past the
    smallest whose id is not in the table; the smallest always counts.
    """
    rings, fresh = chains.rings, chains.fresh
    rows = table[0]
    old = chains.depth[v, p]
    # The ids of the rings whose hashes are current, looked up together so that the
    # table's cache misses overlap (-1 for a slot: the id did not change).
    for k in range(j, top + 1):
        key = _ring_id(rings, v, p, k)
        fresh[k, 0] = key
        fresh[k, 1] = -1 if k <= old and rings[v, p, k, ID] == key else counts.slot(rows, key)
    k = j
    while k <= max_ring:
        if k > top:
            for s in range(8):
                rings[v, p, k, s] = rings[v, p, k - 1, s]
            fresh[k, 0] = grow_ring(rings[v, p, k, :8], chains.state, q, RELATIVE[v + 1], delta, k)
            fresh[k, 1] = counts.slot(rows, fresh[k, 0])
        key, i = fresh[k, 0], fresh[k, 1]
        if i < 0:
            k += 1
            continue
        if rows[i, counts.KEY] == 0:
            if k > MIN_RING:
                break
            i = -1  # a smallest ring not in the table goes in when it closes, seen
        if k <= old:
            _close(rings, table, v, p, k, ply, game)
        rings[v, p, k, ID] = key
        rings[v, p, k, OPENED] = ply
        rings[v, p, k, PLAYED] = 0
        rings[v, p, k, SLOT] = i
        k += 1
    for r in range(k, old + 1):
        _close(rings, table, v, p, r, ply, game)
    chains.depth[v, p] = k - 1


@njit(cache=True)
def _open_all(b, chains, table, padded, delta, max_ring) -> None:
    """Open the chains of every point in both views (the template: an empty board)."""
    for v in range(2):
        for p in range(len(padded)):
            if b[COLOR, p] != BORDER:
                _rechain(chains, table, v, p, padded[p], MIN_RING, MIN_RING - 1, 0, 0, delta, max_ring)


@njit(cache=True, inline="always")
def _apply_changes(chains, v, p, top, padded, inverse, base) -> int:
    """XOR the colour changes since view ``v``'s last turn into the hashes of point
    ``p``'s rings up to ``top``; returns the smallest ring changed (``top + 1``: none)."""
    rings, changed = chains.rings, chains.changed
    rel = RELATIVE[v + 1]
    first = top + 1
    for i in range(chains.n_changed[v]):
        # Padded displacement from p to the changed point; 0 (p itself) is in no ring.
        d = padded[changed[v, i, 0]] - padded[p]
        if d == 0:
            continue
        j = RING_OF[inverse[0, d + base]]
        if j > top:
            continue
        first = min(first, j)
        old, new = rel[changed[v, i, 1]], rel[changed[v, i, 2]]
        for s in range(8):
            o = inverse[s, d + base]
            x = PATTERN_ZOBRIST[o, old] ^ PATTERN_ZOBRIST[o, new]
            for k in range(j, top + 1):
                rings[v, p, k, s] ^= x
    return first


@njit(cache=True)
def _turn(b, m, color, chains, table, ply, game, delta, max_ring, padded, inverse, base) -> None:
    """Bring ``color``'s chains up to date with the board before move ``ply``."""
    depth, changed = chains.depth, chains.changed
    v = color - 1
    # A point that was a legal move and got a stone is not in the empty list any more.
    for i in range(chains.n_changed[v]):
        p = changed[v, i, 0]
        if depth[v, p] > 0 and b[COLOR, p] != EMPTY:
            _drop(chains, table, v, p, ply, game)
    for i in range(m[N_EMPTY]):
        p = b[EMPTIES, i]
        old = depth[v, p]
        if illegal_reason(b, m, color, p) != OK:
            if old > 0:
                _drop(chains, table, v, p, ply, game)
        elif old == 0:
            _rechain(chains, table, v, p, padded[p], MIN_RING, MIN_RING - 1, ply, game, delta, max_ring)
        else:
            # The stopping ring old + 1 can enter the dictionary when it changes.
            top = min(old + 1, max_ring)
            j = _apply_changes(chains, v, p, top, padded, inverse, base)
            if j <= top:
                _rechain(chains, table, v, p, padded[p], j, top, ply, game, delta, max_ring)
    chains.n_changed[v] = 0


@njit(cache=True)
def _sync(b, chains, padded) -> None:
    """Copy the colours that changed (the move, captured stones, setup stones) into
    the padded state and record the changes for both views."""
    state, changed, n_changed = chains.state, chains.changed, chains.n_changed
    for p in range(len(padded)):
        q = padded[p]
        color = b[COLOR, p]
        if color != BORDER and state[q] != color:
            for v in range(2):
                i = n_changed[v]
                changed[v, i, 0] = p
                changed[v, i, 1] = state[q]
                changed[v, i, 2] = color
                n_changed[v] = i + 1
            state[q] = color


@njit(cache=True)
def _close_all(chains, table, ply, game) -> None:
    """Close every open instance at the end of the counted positions."""
    for v in range(2):
        for p in range(len(chains.depth[v])):
            _drop(chains, table, v, p, ply, game)


# Without the runtime here, the arrays this entry point borrows from Python carry no
# reference count, so the kernel's helpers skip the atomic increments (full memory
# fences) that would otherwise cost a third of its time; it allocates nothing.
@njit(cache=True, _nrt=False)
def count_moves(b, m, moves, start, first_color, game, delta, max_ring, table, chains, padded, inverse, base) -> int:
    """Count the patterns of the positions before ``moves[start:]`` and play them.

    The incremental twin of ``mine.mine_moves`` in COUNT mode, with its protocol:
    returns ``len(moves)`` when the game is done, less when the table needs room
    first (grow it and call again from there with the same chains), or ``-1`` on
    an illegal move, after counting the positions before it.
    """
    size = m[SIZE]
    if start == 0:
        _sync(b, chains, padded)
    for n in range(start, len(moves)):
        if 2 * (table[2][0] + INSERTS * size * size) > len(table[1]):
            return n
        color = first_color if n % 2 == 0 else 3 - first_color
        chosen = to_point(moves[n], size)
        if illegal_reason(b, m, color, chosen) != OK:
            _close_all(chains, table, n, game)
            return -1
        _turn(b, m, color, chains, table, n, game, delta, max_ring, padded, inverse, base)
        if chosen != PASS:
            for k in range(MIN_RING, chains.depth[color - 1, chosen] + 1):
                chains.rings[color - 1, chosen, k, PLAYED] += 1
        play(b, m, color, chosen)
        _sync(b, chains, padded)
    _close_all(chains, table, len(moves), game)
    return len(moves)


def count_game(corpus: Corpus, i: int, params, table: counts.Table, cache: dict) -> counts.Table:
    """Count game ``i`` into ``table`` (growing it when needed); returns the table.

    The same counts as ``mine._mine_game(corpus, i, params, table, COUNT, 0, 0)``.
    ``cache`` keeps, per board size, the template and the chains reused by every
    game of the pass (``params`` and the dictionary must not change).
    """
    size = int(corpus.board_size[i])
    geo = geometry(size)
    max_ring = min(params.max_ring, geo.max_ring)
    if max_ring < MIN_RING:
        return table
    if size not in cache:
        tpl = template(size, max_ring, table)
        cache[size] = tpl, Chains(*(a.copy() for a in tpl.chains))
    tpl, chains = cache[size]
    first_color = int(corpus.first_color[i])
    _adopt(tpl, first_color, chains)
    b, m = corpus.start_position(i)
    moves = corpus.game_moves(i)
    n = 0
    while True:
        n = count_moves(
            b, m, moves, n, first_color, i, geo.delta, max_ring, table, chains, tpl.padded, tpl.inverse, tpl.base
        )
        if not 0 <= n < len(moves):
            return table
        table = counts.rebuilt(table, room=4 * (counts.used(table) + INSERTS * size * size))
        chains.rings[..., SLOT] = -1  # they were the old table's

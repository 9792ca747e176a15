"""Incremental counting: the counting pass (the same table as the straightforward
walk of ``tests/oracles.py``, some 15 times faster) and discovery.

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

Discovery (a ``threshold``) runs the same kernel with a growing gate: a chain
grows past ring k while ring k's pattern has occurred ``threshold`` times, in an
earlier round's dictionary or in the counts so far, and its last ring, the
frontier, is counted too, so that it can become frequent.

Legality is recomputed for every empty point at every turn (nanoseconds a
point): a point's suicide status can change far from the move, through the
liberties of a long string, and the ko ban binds one colour only.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..datasets.corpus import Corpus
from ..go.rings import (
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
from ..go.rules import (
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
from . import counts

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


@njit(cache=True)
def room_needed(size: int, max_ring: int, threshold: int) -> int:
    """Most entries one ply can insert: counting inserts smallest rings only,
    discovery any ring it closes (every ring of every point, at the game's end)."""
    if threshold == 0:
        return INSERTS * size * size
    return 2 * size * size * (max_ring + 1)


class Chains(NamedTuple):
    """The chains of one game, per view (0: black to move, 1: white) and board point."""

    depth: np.ndarray  # int32[2, L]: deepest ring counted, 0 when not a legal move
    rings: np.ndarray  # int64[2, L, max_ring + 1, RING_COLUMNS]; hashes current up to depth + 1
    state: np.ndarray  # int8[padded]: the board the chains were computed on
    changed: np.ndarray  # int32[2, n, 3]: (point, old colour, new colour) since the view's last turn
    n_changed: np.ndarray  # int32[2]
    fresh: np.ndarray  # int64[max_ring + 1, 2]: scratch, new ids and their slots
    # Discovery's instances closed during a turn, added to the table at its end so
    # that the turn's gates do not depend on the order its points are visited in
    # (mirrored positions are treated alike); no rows when counting.
    closed: np.ndarray  # int64[n, 5]: id, ring, seen, played, witness
    n_closed: np.ndarray  # int64[1]


class Template(NamedTuple):
    """What every game of one board size starts from."""

    chains: Chains  # the empty board's
    padded: np.ndarray  # int32[L]: padded index of each board point
    inverse: np.ndarray  # int16[8, 2 * base + 1]: offset index of a padded displacement
    base: int  # index of displacement 0 in ``inverse``


def template(
    size: int, max_ring: int, table: counts.Table, threshold: int = 0, counted: counts.Table | None = None
) -> Template:
    """The empty board's chains for ``size``, gated by the patterns in ``table``
    (``threshold`` and ``counted``: see :func:`count_moves`).

    Valid for the whole counting pass: only smallest-ring patterns are inserted
    while counting, and they do not gate. Discovery's dictionary grows, so its
    template is brought up to date between games (:func:`_regrow`).
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
    closed = np.zeros((2 * points * (max_ring + 1) if threshold else 0, 5), dtype=np.int64)
    chains = Chains(
        np.zeros((2, points), dtype=np.int32), rings, state, changed, np.zeros(2, dtype=np.int32), fresh,
        closed, np.zeros(1, dtype=np.int64),
    )
    padded = np.array([padded_point(p, m, geo.pad) for p in range(points)], dtype=np.int32)
    base = geo.pad * (geo.stride + 1)
    inverse = np.zeros((8, 2 * base + 1), dtype=np.int16)
    n = RING_END[geo.max_ring]
    for s in range(8):
        inverse[s, geo.delta[s, :n] + base] = np.arange(n)
    _open_all(b, chains, table, table if counted is None else counted, padded, geo.delta, max_ring, threshold)
    rings[..., SLOT] = -1  # a game's table may be another
    return Template(chains, padded, inverse, base)


def _adopt(tpl: Template, first_color: int, chains: Chains) -> None:
    """Make ``chains`` the template's, its instances opening at each view's first turn."""
    for dst, src in zip(chains, tpl.chains):
        np.copyto(dst, src)
    chains.rings[first_color - 1, :, :, OPENED] = 0
    chains.rings[2 - first_color, :, :, OPENED] = 1


@njit(cache=True, inline="always")
def _close(chains, table, v, p, k, ply, game) -> None:
    """Add the counts of ring ``k``'s instance at point ``p`` of view ``v``, ended at ``ply``.

    Discovery puts them aside until the end of the turn, and counts the instance
    once however many positions it lasted: a shape that lingers for many moves of
    one game must not pass the sample's low threshold on that game alone.
    """
    rings = chains.rings
    a = rings[v, p, k, OPENED]
    seen = (ply - a + 1) // 2
    if seen == 0:
        return
    first = counts.witness(game, a, p)
    if len(chains.closed):
        j = chains.n_closed[0]
        chains.closed[j, 0] = rings[v, p, k, ID]
        chains.closed[j, 1] = k
        chains.closed[j, 2] = 1
        chains.closed[j, 3] = rings[v, p, k, PLAYED]
        chains.closed[j, 4] = first
        chains.n_closed[0] = j + 1
        return
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
def _add_closed(chains, table) -> None:
    """Add the instances discovery put aside to the table."""
    closed = chains.closed
    for j in range(chains.n_closed[0]):
        counts.add(table, closed[j, 0], closed[j, 1], closed[j, 2], closed[j, 3], closed[j, 4])
    chains.n_closed[0] = 0


@njit(cache=True)
def _drop(chains, table, v, p, ply, game) -> None:
    """Close every instance of point ``p`` in view ``v``: it is no longer a legal move."""
    for k in range(MIN_RING, chains.depth[v, p] + 1):
        _close(chains, table, v, p, k, ply, game)
    chains.depth[v, p] = 0


@njit(cache=True, inline="always")
def _ring_id(rings, v, p, k) -> int:
    """The id of ring ``k`` from its eight symmetric hashes, as ``grow_ring`` gives it."""
    h = rings[v, p, k, 0]
    for s in range(1, 8):
        h = min(h, rings[v, p, k, s])
    key = h ^ RING_KEY[k]
    return key if key != 0 else 1


@njit(cache=True, inline="always")
def _frequent(rings, rows, counted, v, p, k, threshold) -> bool:
    """Whether ring ``k``'s pattern has been seen ``threshold`` times, in the
    dictionary found earlier (``rows``) or in this round's counts (discovery's gate)."""
    i = rings[v, p, k, SLOT]
    if i < 0:
        i = counts.slot(rows, rings[v, p, k, ID])
    if rows[i, counts.KEY] != 0 and rows[i, counts.SEEN] >= threshold:
        return True
    own = counted[0]
    i = counts.slot(own, rings[v, p, k, ID])
    return own[i, counts.KEY] != 0 and own[i, counts.SEEN] >= threshold


@njit(cache=True)
def _rechain(chains, table, counted, v, p, q, j, top, ply, game, delta, max_ring, threshold) -> None:
    """Bring rings ``j`` and up of point ``p`` (padded ``q``) in view ``v`` up to date;
    their hashes are current up to ring ``top``, the rings past it are hashed from
    the board.

    Rings whose id changed close their instance and open a new one at ``ply``.
    Counting (``threshold`` 0) stops, as in ``mine._count_candidate``, at the
    first ring past the smallest whose id is not in the table; the smallest always
    counts. Discovery counts every ring it reaches (into ``counted``) and stops
    past the first whose pattern was seen fewer than ``threshold`` times: the
    *frontier*, counted so that it can become frequent.
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
        key, i = fresh[k, 0], fresh[k, 1]  # a slot of -1: the ring did not change
        if i >= 0:
            if rows[i, counts.KEY] == 0:
                if k > MIN_RING and threshold == 0:
                    break
                i = -1  # a ring not in the table goes in when it closes, seen
            if k <= old:
                _close(chains, table, v, p, k, ply, game)
            rings[v, p, k, ID] = key
            rings[v, p, k, OPENED] = ply
            rings[v, p, k, PLAYED] = 0
            rings[v, p, k, SLOT] = i
        k += 1
        if threshold > 0 and not _frequent(rings, rows, counted, v, p, k - 1, threshold):
            break
    for r in range(k, old + 1):
        _close(chains, table, v, p, r, ply, game)
    chains.depth[v, p] = k - 1


@njit(cache=True)
def _open_all(b, chains, table, counted, padded, delta, max_ring, threshold) -> None:
    """Open the chains of every point in both views (the template: an empty board)."""
    for v in range(2):
        for p in range(len(padded)):
            if b[COLOR, p] != BORDER:
                _rechain(chains, table, counted, v, p, padded[p], MIN_RING, MIN_RING - 1, 0, 0, delta, max_ring, threshold)


@njit(cache=True)
def _regrow(chains, table, counted, padded, delta, max_ring, threshold) -> None:
    """Grow the template's chains past frontiers that have become frequent.

    The board is empty and nothing changed, so each chain is re-gated from its
    frontier: hashing only the rings it grows by, closing nothing.
    """
    depth = chains.depth
    for v in range(2):
        for p in range(len(padded)):
            k = depth[v, p]
            if k > 0:
                _rechain(chains, table, counted, v, p, padded[p], k, k, 0, 0, delta, max_ring, threshold)
    chains.rings[..., SLOT] = -1


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
def _turn(b, m, color, chains, table, counted, ply, game, delta, max_ring, padded, inverse, base, threshold) -> None:
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
            _rechain(chains, table, counted, v, p, padded[p], MIN_RING, MIN_RING - 1, ply, game, delta, max_ring, threshold)
        else:
            # Counting: the stopping ring old + 1 can enter the dictionary when it
            # changes. Discovery counts its frontier, so its hashes stop there.
            top = min(old + (threshold == 0), max_ring)
            j = _apply_changes(chains, v, p, top, padded, inverse, base)
            if j <= top:
                _rechain(chains, table, counted, v, p, padded[p], j, top, ply, game, delta, max_ring, threshold)
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
def count_moves(
    b, m, moves, start, first_color, game, delta, max_ring, gate, chains, padded, inverse, base, threshold, table
) -> int:
    """Count the patterns of the positions before ``moves[start:]`` into ``table``
    and play them.

    With ``threshold`` 0, the incremental twin of the tests' oracle: the
    dictionary's patterns and every smallest ring, ``gate`` and ``table`` being the
    dictionary. With a ``threshold``, discovery: a candidate's rings grow past
    ring k while ring k's pattern has been seen ``threshold`` times, in ``gate``
    (the dictionary of an earlier round) or in ``table`` so far, and are all
    counted, the frontier included.
    Returns ``len(moves)`` when the game is done, less when the table needs room
    first (grow it and call again from there with the same chains), or ``-1`` on
    an illegal move, after counting the positions before it.
    """
    size = m[SIZE]
    room = room_needed(size, max_ring, threshold)
    if start == 0:
        _sync(b, chains, padded)
    for n in range(start, len(moves)):
        if 2 * (table[2][0] + room) > len(table[1]):
            return n
        color = first_color if n % 2 == 0 else 3 - first_color
        chosen = to_point(moves[n], size)
        if illegal_reason(b, m, color, chosen) != OK:
            _close_all(chains, gate, n, game)
            _add_closed(chains, table)
            return -1
        _turn(b, m, color, chains, gate, table, n, game, delta, max_ring, padded, inverse, base, threshold)
        _add_closed(chains, table)
        if chosen != PASS:
            for k in range(MIN_RING, chains.depth[color - 1, chosen] + 1):
                chains.rings[color - 1, chosen, k, PLAYED] += 1
        play(b, m, color, chosen)
        _sync(b, chains, padded)
    _close_all(chains, gate, len(moves), game)
    _add_closed(chains, table)
    return len(moves)


def count_game(
    corpus: Corpus, i: int, params, table: counts.Table, cache: dict, threshold: int = 0,
    gate: counts.Table | None = None,
) -> counts.Table:
    """Count game ``i`` into ``table`` (growing it when needed); returns the table.

    With ``threshold`` 0, the same counts as the tests' oracle ``mine_game(corpus, i, params,
    table)``; ``cache`` keeps, per board size, the template and the chains reused
    by every game of the pass (``params`` and the dictionary must not change).
    With a ``threshold``, discovery (see :func:`count_moves`) gated by ``gate`` and
    the table's own counts; when it reaches ``params.table_capacity`` slots it is
    pruned of its rarest patterns (lossy counting), so it never grows past that.
    """
    size = int(corpus.board_size[i])
    geo = geometry(size)
    max_ring = min(params.max_ring, geo.max_ring)
    if max_ring < MIN_RING:
        return table
    gate = table if gate is None else gate
    if size not in cache:
        tpl = template(size, max_ring, gate, threshold, table)
        cache[size] = tpl, Chains(*(a.copy() for a in tpl.chains))
    tpl, chains = cache[size]
    if threshold:
        _regrow(tpl.chains, gate, table, tpl.padded, geo.delta, max_ring, threshold)
    first_color = int(corpus.first_color[i])
    _adopt(tpl, first_color, chains)
    b, m = corpus.start_position(i)
    moves = corpus.game_moves(i)
    room = room_needed(size, max_ring, threshold)
    n = 0
    while True:
        n = count_moves(
            b, m, moves, n, first_color, i, geo.delta, max_ring, gate, chains,
            tpl.padded, tpl.inverse, tpl.base, threshold, table,
        )
        if not 0 <= n < len(moves):
            return table
        if threshold and counts.capacity(table) >= params.table_capacity:
            table = counts.pruned(table, params.table_capacity, room)
        if 2 * (counts.used(table) + room) > counts.capacity(table):
            table = counts.rebuilt(table, room=2 * (counts.used(table) + room))
        if not threshold:
            gate = table
            chains.rings[..., SLOT] = -1  # they were the old table's

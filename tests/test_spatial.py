"""Spatial patterns: geometry, and invariance under symmetry and colour swap."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from shapemill.go import Board
from shapemill.go import rings as sp
from shapemill.go.vertices import flat_index

SIZE = 9
GEO = sp.geometry(SIZE)
TRANSFORMS = [
    lambda r, c: (r, c),
    lambda r, c: (c, SIZE - 1 - r),
    lambda r, c: (SIZE - 1 - r, SIZE - 1 - c),
    lambda r, c: (SIZE - 1 - c, r),
    lambda r, c: (r, SIZE - 1 - c),
    lambda r, c: (SIZE - 1 - r, c),
    lambda r, c: (c, r),
    lambda r, c: (SIZE - 1 - c, SIZE - 1 - r),
]


def ring_ids(board: Board, point: tuple[int, int], color: int) -> np.ndarray:
    state = np.empty(GEO.stride**2, dtype=np.int8)
    sp.fill_padded(board.b, board.m, GEO.pad, state)
    p = (point[0] + 1) * (SIZE + 2) + point[1] + 1
    out = np.zeros(GEO.max_ring + 1, dtype=np.int64)
    sp.ring_ids(state, sp.padded_point(p, board.m, GEO.pad), color, GEO.delta, GEO.max_ring, out)
    return out[sp.MIN_RING :]


def position(black, white, transform=TRANSFORMS[0], swap=False) -> Board:
    board = Board(SIZE)
    colors = ("w", "b") if swap else ("b", "w")
    board.setup(colors[0], [transform(*p) for p in black])
    board.setup(colors[1], [transform(*p) for p in white - black])
    return board


points = st.tuples(st.integers(0, SIZE - 1), st.integers(0, SIZE - 1))


def test_ring_geometry():
    assert sp.gridcular(1, 0) == 2 and sp.gridcular(1, 1) == 3 and sp.gridcular(2, 1) == 5
    assert list(sp.RING_END[2:6]) == [4, 8, 12, 20]  # neighbours, diagonals, 2-away, knights
    # The largest ring on 19x19 covers the whole board from a corner.
    geo = sp.geometry(19)
    assert geo.max_ring == 54
    corner_window = {
        (int(dx), int(dy))
        for dx, dy in sp.OFFSETS[: sp.RING_END[54]]
        if 0 <= dx <= 18 and 0 <= dy <= 18
    }
    assert len(corner_window | {(0, 0)}) == 361
    assert sp.ring_points(53) < sp.ring_points(54)
    assert max(sp.gridcular(dx, dy) for dx, dy in corner_window) == 54


@settings(max_examples=40, deadline=None)
@given(st.sets(points, max_size=30), st.sets(points, max_size=30), points, st.integers(0, 7))
def test_ids_invariant_under_symmetry_and_colour(black, white, point, t):
    black.discard(point)
    white.discard(point)
    base = ring_ids(position(black, white), point, 1)
    turned = position(black, white, TRANSFORMS[t])
    assert (ring_ids(turned, TRANSFORMS[t](*point), 1) == base).all()
    swapped = position(black, white, TRANSFORMS[t], swap=True)
    assert (ring_ids(swapped, TRANSFORMS[t](*point), 2) == base).all()


def test_ids_distinguish_own_from_opponent_and_rings():
    board = position({(4, 5)}, set())
    as_black = ring_ids(board, (4, 4), 1)
    as_white = ring_ids(board, (4, 4), 2)
    assert (as_black != as_white).all()
    assert len(set(as_black.tolist())) == len(as_black)


def test_canonical_key_is_the_same_for_symmetric_positions_and_round_trips():
    black, white = {(2, 3), (3, 3)}, {(2, 4)}
    rel = sp.RELATIVE[1]
    keys = set()
    for t in TRANSFORMS:
        board = position(black, white, t)
        state = np.empty(GEO.stride**2, dtype=np.int8)
        sp.fill_padded(board.b, board.m, GEO.pad, state)
        r, c = t(3, 4)
        q = sp.padded_point((r + 1) * (SIZE + 2) + c + 1, board.m, GEO.pad)
        h = np.zeros(8, dtype=np.int64)
        for k in range(sp.MIN_RING, 9):
            sp.grow_ring(h, state, q, rel, GEO.delta, k)
        s = sp.canonical_symmetry(h)
        packed = np.zeros(sp.key_bytes(8), dtype=np.uint8)
        sp.pack_key(state, q, rel, GEO.delta, s, 8, packed)
        assert (sp.unpack_key(packed.tobytes(), 8) == rel[state[q + GEO.delta[s, : sp.RING_END[8]]]]).all()
        keys.add(packed.tobytes())
    assert len(keys) == 1
    states = sp.unpack_key(keys.pop(), 8)
    assert sorted(np.bincount(states, minlength=4)[1:3].tolist()) == [1, 2]



def test_far_rings_hashed_from_the_stones_give_the_ids_of_the_point_by_point_hash():
    from shapemill.patterns.candidates import _largest_pattern, pattern_slots

    rng = np.random.default_rng(5)
    board = Board(19)
    for n in range(80):
        for row, col in rng.integers(0, 19, (20, 2)).tolist():
            if board.is_legal("bw"[n % 2], (row, col)):
                board.play("bw"[n % 2], (row, col))
                break
    geo, far = sp.geometry(19), sp.far_rings(19, near=6)
    state = np.empty(geo.stride**2, dtype=np.int8)
    sp.fill_padded(board.b, board.m, geo.pad, state)
    stones = sp.board_stones(board.b, board.m)
    acc = np.zeros((geo.max_ring + 1, 8), dtype=np.int64)
    for color in (1, 2):
        for row, col in [(0, 0), (3, 15), (9, 9), (18, 4)]:
            q = sp.padded_point(flat_index((row, col), 19), board.m, geo.pad)
            ids = np.zeros(geo.max_ring + 1, dtype=np.int64)
            sp.ring_ids(state, q, color, geo.delta, geo.max_ring, ids)
            # A vocabulary of rings 2..top: the largest found must be ring top, so
            # every ring up to it, near and far, hashed to the same id both ways.
            for top in (4, 7, 20, geo.max_ring):
                known = np.unique(ids[2 : top + 1])
                found, reach = _largest_pattern(
                    state, q, row, col, sp.RELATIVE[color], geo.delta, geo.max_ring, pattern_slots(known), far,
                    stones, np.zeros(8, dtype=np.int64), acc,
                )
                assert known[found] == ids[top]
                assert reach == min(top + 1, geo.max_ring)  # the ring the vocabulary lacks was read last
                assert not acc.any()

"""Tactical features: hand-built positions where each feature fires (and where it
does not), ladders with and without a breaker, 3x3 codes invariant under symmetry
and colour swap, and agreement with a plain-Python reference on random games."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapemill.go import Board, rules
from shapemill.go.nbr3x3 import (
    NBR3X3_CODES,
    NBR3X3_LEVELS,
    nbr3x3_canonical,
    nbr3x3_describe,
    nbr3x3_id,
    nbr3x3_level,
    nbr3x3_raw,
)
from shapemill.go.reading import (
    LADDER_BUDGET,
    LADDER_DEPTH,
    ladder_captured,
    ladder_verdict,
    legal_moves,
    liberties,
    libs_after,
    reading_scratch,
)
from shapemill.go.vertices import flat_index, point_at
from shapemill.patterns.features import (
    FEATURE_LEVELS,
    FEATURES,
    N_FEATURES,
    features_of,
    tactical_features,
    tactical_features_with,
)
from shapemill.patterns.features.table import F_NBR3X3

# ---------------------------------------------------------------------------
# helpers: positions from diagrams
# ---------------------------------------------------------------------------


def board(diagram: str, moves=()) -> tuple[Board, dict[str, tuple[int, int]]]:
    """A position from a diagram (top row first): X black, O white, . empty, and
    letters / ``*`` naming empty points. ``moves`` (colour, name or (row, col))
    are then played, so that they become the previous moves."""
    rows = [r.replace(" ", "") for r in diagram.strip().splitlines()]
    n = len(rows)
    bd = Board(n)
    black, white, names = [], [], {}
    for i, line in enumerate(rows):
        assert len(line) == n, diagram
        for j, ch in enumerate(line):
            rc = (n - 1 - i, j)
            if ch == "X":
                black.append(rc)
            elif ch == "O":
                white.append(rc)
            elif ch != ".":
                names[ch] = rc
    bd.setup("b", black)
    bd.setup("w", white)
    for color, where in moves:
        bd.play(color, names[where] if isinstance(where, str) else where)
    return bd, names


def point(bd: Board, rc: tuple[int, int]) -> int:
    return (rc[0] + 1) * (bd.size + 2) + rc[1] + 1


def feats(bd: Board, color: str, rc: tuple[int, int]) -> dict[str, int]:
    _, out = features_of(bd, color, [point(bd, rc)])
    return dict(zip(FEATURES, map(int, out[0])))


def at(diagram: str, color: str = "b", moves=(), where: str = "*") -> dict[str, int]:
    bd, names = board(diagram, moves)
    assert bd.is_legal(color, names[where])
    return feats(bd, color, names[where])


EMPTY9 = "\n".join(["........."] * 9)


# ---------------------------------------------------------------------------
# interface
# ---------------------------------------------------------------------------


def test_interface():
    assert len(FEATURES) == N_FEATURES == len(FEATURE_LEVELS) == len(set(FEATURES))
    assert FEATURE_LEVELS[FEATURES.index("nbr3x3")] == NBR3X3_LEVELS + 1
    codes = NBR3X3_CODES
    assert NBR3X3_LEVELS == len(codes) == 47714
    assert np.all(np.diff(codes) > 0)
    assert all(nbr3x3_canonical(int(c)) == c for c in codes[::97])
    assert nbr3x3_id(int(codes[0])) == 1 and nbr3x3_id(int(codes[-1])) == NBR3X3_LEVELS
    assert nbr3x3_id(0o10) == 0  # own 1-liberty stone north, empty points beside it: impossible
    assert "*" in nbr3x3_describe(1)
    with pytest.raises(ValueError):
        nbr3x3_describe(0)


def test_position_is_unchanged_and_pass_or_occupied_gives_zeros():
    bd, _ = board(EMPTY9, [("b", (4, 4)), ("w", (4, 5)), ("b", (5, 5))])
    b0, m0 = bd.b.copy(), bd.m.copy()
    pts, out = features_of(bd, "w")
    assert len(pts) == 78 and out.shape == (78, N_FEATURES)
    assert np.array_equal(b0, bd.b) and np.array_equal(m0, bd.m)
    _, z = features_of(bd, "w", [rules.PASS, point(bd, (4, 4))])
    assert not z.any()


# ---------------------------------------------------------------------------
# capture
# ---------------------------------------------------------------------------


def test_capture_saving_own_string_in_atari():
    # X (0,1) is in atari; capturing O (0,2) at * saves it
    f = at("""
        .........
        .........
        .........
        .........
        .........
        .........
        .........
        .OX......
        .XO*.....""")
    assert f["capture"] == 1 and f["capture_size"] == 1 and f["extension"] == 0


def test_capture_of_previous_move():
    f = at("""
        .........
        .........
        .........
        .........
        .........
        .........
        .........
        XX.......
        X.*......""", moves=[("w", (0, 1))])
    assert f["capture"] == 2 and f["capture_size"] == 1 and f["self_atari"] == 0


def test_capture_preventing_connection_to_previous_move():
    f = at("""
        .........
        .........
        .........
        .........
        .........
        .........
        .........
        XX.......
        XO*a.....""", moves=[("w", "a")])
    assert f["capture"] == 3
    # the same capture without that previous move: the string could not escape
    g = at("""
        .........
        .........
        .........
        .........
        .........
        .........
        .........
        XX.......
        XO*a.....""")
    assert g["capture"] == 6


def test_ko_capture():
    diagram = """
        .........
        .........
        .........
        .........
        .........
        .........
        .........
        XXO......
        XO*O.....
    """
    f = at(diagram)
    assert f["capture"] == 4 and f["self_atari"] == 2 and f["self_atari_size"] == 1
    assert f["libs_after"] == 1 and f["capture_size"] == 1


def test_capture_of_string_that_could_escape_or_not():
    f = at("""
        .........
        .........
        .........
        .........
        ..X......
        .XO*.....
        ..X......
        .........
        .........""")
    assert f["capture"] == 5
    g = at("""
        .........
        .........
        .........
        .........
        .........
        .........
        .X.......
        XOX......
        .*.......""")
    assert g["capture"] == 6 and g["libs_after"] == 3


def test_no_capture():
    f = at("""
        .........
        .........
        .........
        .........
        ..X......
        .XO*.....
        .........
        .........
        .........""")
    assert f["capture"] == 0 and f["capture_size"] == 0 and f["atari"] == 3


def test_capture_size_is_clipped():
    # nine O stones in atari on the first line, captured at *
    f = at("\n".join(["..........."] * 9 + ["XXXXXXXXXX.", "OOOOOOOOO*X"]))
    assert f["capture"] > 0 and f["capture_size"] == 8
    g = at("""
        .........
        .........
        .........
        .........
        .........
        .........
        .........
        XXX......
        OO*......""")
    assert g["capture_size"] == 2


# ---------------------------------------------------------------------------
# extension, self-atari, atari, ladders
# ---------------------------------------------------------------------------

ESCAPE = """
    .........
    .........
    .........
    .........
    .........
    ..*......
    .OXO.....
    ..a......
    .........
"""

CAUGHT = """
    .........
    .........
    .........
    .........
    .........
    .........
    .........
    .O*O.....
    .OXa.....
"""


def test_extension_levels():
    assert at(ESCAPE, moves=[("w", "a")])["extension"] == 1  # new atari, escapes
    assert at(ESCAPE, moves=[("w", "a"), ("b", (8, 8)), ("w", (8, 0))])["extension"] == 3
    f = at(CAUGHT, moves=[("w", "a")])
    assert f["extension"] == 2 and f["self_atari"] == 1 and f["self_atari_size"] == 2
    assert at(CAUGHT, moves=[("w", "a"), ("b", (8, 8)), ("w", (8, 0))])["extension"] == 4
    # no string in atari: no extension
    bd, names = board(ESCAPE)
    assert feats(bd, "b", names["*"])["extension"] == 0


# X ataris the O stone from above; the ladder runs to the lower left
LADDER = """
    .........
    .........
    .........
    ...X*....
    ....OX...
    ....X....
    .........
    .........
    .........
"""
BROKEN = """
    .........
    .........
    .........
    ...X*....
    ....OX...
    ....X....
    .........
    .O.......
    .........
"""


def test_ladder_atari_and_breaker():
    f = at(LADDER)
    assert f["atari"] == 1 and f["ladder"] == 1
    g = at(BROKEN)
    assert g["atari"] == 3 and g["ladder"] == 0
    # the same ataris seen through ladder_captured
    bd, names = board(LADDER, [("b", "*")])
    assert ladder_captured(bd.b, bd.m, point(bd, (4, 4)), True)
    bd, names = board(BROKEN, [("b", "*")])
    assert not ladder_captured(bd.b, bd.m, point(bd, (4, 4)), True)


def test_long_ladder_on_19x19():
    def position(*white):
        bd = Board(19)
        bd.setup("b", [(2, 4), (3, 2), (4, 3)])
        bd.setup("w", [(3, 3), *white])
        return bd

    # the ladder runs from (3, 3) to the upper right corner
    assert feats(position(), "b", (2, 3))["atari"] == 1
    for breaker in [(15, 15), (16, 17), (12, 11)]:
        f = feats(position(breaker), "b", (2, 3))
        assert f["atari"] == 3 and f["ladder"] == 0
    for bystander in [(15, 3), (3, 15), (18, 0), (10, 14)]:
        assert feats(position(bystander), "b", (2, 3))["atari"] == 1


def test_ladder_escape():
    # O in atari after X's last move; extending at * gives two liberties
    diagram = """
        .........
        .........
        .........
        ...XX....
        ...*OX...
        ....X....
        .........
        .........
        .........
    """
    caught = at(diagram, "w", moves=[("b", (8, 8))])
    assert caught["extension"] == 4 and caught["ladder"] == 0 and caught["libs_after"] == 2
    broken = diagram.strip().splitlines()
    broken[7] = ".O......."
    escaped = at("\n".join(broken), "w", moves=[("b", (8, 8))])
    assert escaped["extension"] == 3 and escaped["ladder"] == 2 and escaped["libs_after"] == 2


def test_atari_with_ko_on_the_board():
    diagram = """
        .........
        .........
        .........
        .........
        ....*....
        ...XO....
        ....X....
        .XO......
        X.XO.....
    """
    # O takes the ko at (0,1); X may not retake and ataris elsewhere (not a ladder)
    bd, names = board(diagram, [("w", (0, 1))])
    assert bd.ko == (0, 2)
    assert feats(bd, "b", names["*"])["atari"] == 2
    bd, names = board(diagram, [("w", (8, 8))])
    assert feats(bd, "b", names["*"])["atari"] == 3


def test_no_atari_no_self_atari():
    f = at(EMPTY9.replace(".........", "....*....", 1))
    assert f["atari"] == f["self_atari"] == f["extension"] == f["ladder"] == 0
    assert f["libs_after"] == 3 and f["self_atari_size"] == 0


def test_self_atari_levels_and_size():
    f = at("""
        .........
        .........
        .........
        .........
        .........
        .........
        .........
        XO.......
        X*O......""")
    assert f["self_atari"] == 1 and f["self_atari_size"] == 3 and f["libs_after"] == 1
    big = "\n".join(["..........."] * 8 + [".OOOOOOOOO.", "XXXXXXXXXXO", "*OOOOOOOOOO"])
    g = at(big)
    assert g["self_atari"] == 1 and g["self_atari_size"] == 8


# ---------------------------------------------------------------------------
# distances and liberties
# ---------------------------------------------------------------------------


def test_border_distance():
    bd, _ = board(EMPTY9)
    assert [feats(bd, "b", (r, 4))["border"] for r in range(5)] == [1, 2, 3, 4, 0]
    assert feats(bd, "b", (8, 8))["border"] == 1 and feats(bd, "b", (2, 7))["border"] == 2


def test_previous_move_distances():
    bd, _ = board(EMPTY9)
    f = feats(bd, "b", (4, 4))
    assert f["last_dist"] == 0 and f["last2_dist"] == 0 and f["last_dists"] == 0
    bd, _ = board(EMPTY9, [("b", (0, 0)), ("w", (4, 4))])
    assert feats(bd, "b", (4, 5))["last_dist"] == 2  # d(1, 0)
    assert feats(bd, "b", (5, 5))["last_dist"] == 3  # d(1, 1)
    assert feats(bd, "b", (6, 5))["last_dist"] == 5  # d(2, 1)
    assert feats(bd, "b", (8, 8))["last_dist"] == 12  # d(4, 4)
    assert feats(bd, "b", (1, 0))["last2_dist"] == 2
    bd19 = Board(19)
    bd19.play("b", (0, 0))
    bd19.play("w", (18, 18))
    f = feats(bd19, "b", (0, 1))
    assert f["last_dist"] == 17 and f["last2_dist"] == 2  # d = 18 + 17 + 18, clipped
    assert f["last_dists"] == 17 + 18 * 2  # the pair, one level each
    f = feats(bd19, "b", (2, 3))
    # d(2, 3) = 2 + 3 + 3 to the move before
    assert (f["last_dist"], f["last2_dist"], f["last_dists"]) == (17, 8, 17 + 18 * 8)
    # a pass as the previous move
    bd, _ = board(EMPTY9, [("b", (0, 0)), ("w", None)])
    f = feats(bd, "b", (1, 1))
    assert f["last_dist"] == 0 and f["last2_dist"] == 3 and f["last_dists"] == 18 * 3


def test_last2_on_the_same_point():
    # X's stone at a was captured by O's last move; X plays there again
    diagram = """
        .........
        .........
        .........
        .........
        .........
        .........
        O........
        XO.......
        a.O......
    """
    bd, names = board(diagram, [("b", "a"), ("w", (0, 1))])  # O captures the two X stones
    assert bd.get((0, 0)) is None
    assert feats(bd, "b", (0, 0))["last2_dist"] == 1


def test_liberties_after_and_clipping():
    bd, _ = board(EMPTY9)
    assert feats(bd, "b", (4, 4))["libs_after"] == 4
    assert feats(bd, "b", (0, 0))["libs_after"] == 2
    f = at("""
        .........
        .........
        .........
        .........
        .........
        .........
        .........
        ...XX....
        .XX*.....""")
    assert f["libs_after"] == 7 and f["connect"] == 1
    g = at("""
        .........
        .........
        .........
        .........
        .........
        .........
        ...XX....
        .XX*.....
        .........""")
    assert g["libs_after"] == 8  # ten liberties, clipped
    # liberties gained by a capture count
    h = at("""
        .........
        .........
        .........
        .........
        .........
        .........
        .........
        XXO......
        XO*O.....""")
    assert h["libs_after"] == 1


def test_libs_after_and_liberties_helpers():
    bd, _ = board("""
        .........
        .........
        .........
        .........
        .........
        .........
        .........
        XX.......
        XO.O.....""")
    mark = np.zeros(bd.b.shape[1], dtype=np.int32)
    assert liberties(bd.b, bd.m, point(bd, (1, 0)), 100, mark) == 3
    assert liberties(bd.b, bd.m, point(bd, (1, 0)), 2, mark) == 2
    assert libs_after(bd.b, bd.m, 2, point(bd, (0, 2)), 100, mark) == (3, 3)  # O connects
    assert libs_after(bd.b, bd.m, 1, point(bd, (0, 2)), 100, mark) == (2, 1)  # X captures


# ---------------------------------------------------------------------------
# MoGo shapes
# ---------------------------------------------------------------------------


def test_line3_and_line1_alone():
    bd, _ = board(EMPTY9)
    f = feats(bd, "b", (2, 4))
    assert f["line3"] == 1 and f["line1_alone"] == 0
    assert feats(bd, "b", (0, 4))["line1_alone"] == 1 and feats(bd, "b", (0, 4))["line3"] == 0
    assert feats(bd, "b", (3, 4))["line3"] == 0
    bd, _ = board(EMPTY9, [("w", (2, 6))])
    assert feats(bd, "b", (2, 4))["line3"] == 0  # a stone two points away
    assert feats(bd, "b", (0, 4))["line1_alone"] == 0
    assert feats(bd, "b", (0, 1))["line1_alone"] == 1


def test_connect_and_peep_connect():
    diagram = """
        .........
        .........
        .........
        .........
        .........
        ...X*X...
        ....a....
        .........
        .........
    """
    f = at(diagram, moves=[("w", "a")])
    assert f["connect"] == 1 and f["peep_connect"] == 1
    g = at(diagram, moves=[("w", (8, 8))])
    assert g["connect"] == 1 and g["peep_connect"] == 0
    h = at(EMPTY9.replace(".........", "...X*....", 1), moves=[("w", (7, 4))])
    assert h["connect"] == 0 and h["peep_connect"] == 0


def test_hane():
    diagram = """
        .........
        .........
        .........
        .........
        ...*.....
        ...OX....
        .....a...
        .........
        .........
    """
    assert at(diagram)["hane"] == 1
    assert at(diagram, where="a")["hane"] == 0
    blocked = diagram.replace("...*.....", "...*X....")
    assert at(blocked)["hane"] == 0  # the fourth point is taken


def test_wall():
    diagram = """
        .........
        .........
        .........
        .........
        ...*XX...
        .........
        ....a....
        .........
        .........
    """
    assert at(diagram)["wall"] == 1
    assert at(diagram, where="a")["wall"] == 0
    assert at(diagram.replace("...*XX...", "...*XO..."))["wall"] == 0


def test_bad_kogeima():
    diagram = """
        .........
        .........
        .........
        .........
        .....X...
        ...*O....
        .........
        .........
        .........
    """
    assert at(diagram)["bad_kogeima"] == 1
    assert at(diagram.replace("...*O....", "...*.....")) ["bad_kogeima"] == 0  # plain kogeima
    assert at(diagram.replace(".....X...", "....XX..."))["bad_kogeima"] == 0  # own stone between


def test_empty_triangle():
    diagram = """
        .........
        .........
        .........
        .........
        ...XX....
        ...*.....
        .........
        .........
        .........
    """
    assert at(diagram)["empty_triangle"] == 1
    assert at(diagram.replace("...*.....", "...*O...."))["empty_triangle"] == 0
    assert at(diagram.replace("...XX....", "...X.X..."))["empty_triangle"] == 0
    assert at(diagram.replace("...XX....", "....X....").replace("...*.....", "...*X...."))[
        "empty_triangle"
    ] == 1


# ---------------------------------------------------------------------------
# 3x3 codes
# ---------------------------------------------------------------------------

SIZE = 9
TRANSFORMS = [
    lambda r, c, n: (r, c),
    lambda r, c, n: (c, n - 1 - r),
    lambda r, c, n: (n - 1 - r, n - 1 - c),
    lambda r, c, n: (n - 1 - c, r),
    lambda r, c, n: (r, n - 1 - c),
    lambda r, c, n: (n - 1 - r, c),
    lambda r, c, n: (c, r),
    lambda r, c, n: (n - 1 - c, n - 1 - r),
]


def test_nbr3x3_distinguishes_liberties_and_edges():
    bd, _ = board(EMPTY9)
    centre = feats(bd, "b", (4, 4))["nbr3x3"]
    edge = feats(bd, "b", (0, 4))["nbr3x3"]
    corner = feats(bd, "b", (0, 0))["nbr3x3"]
    assert len({centre, edge, corner}) == 3
    assert edge == feats(bd, "b", (4, 8))["nbr3x3"] == feats(bd, "w", (8, 3))["nbr3x3"]
    assert corner == feats(bd, "b", (8, 8))["nbr3x3"]
    one = at(EMPTY9.replace(".........", "....*X...", 1))["nbr3x3"]
    two = at(EMPTY9.replace(".........", "....*X...", 1).replace(".........", ".....O...", 1))
    assert one != two["nbr3x3"]
    own = at(EMPTY9.replace(".........", "....*X...", 1))
    opp = at(EMPTY9.replace(".........", "....*O...", 1))
    assert own["nbr3x3"] != opp["nbr3x3"]


def random_game(size: int, seed: int, n_moves: int) -> list[tuple[int, int] | None]:
    """Uniformly random legal moves (an occasional pass), replayable as (row, col)."""
    rng = np.random.default_rng(seed)
    b, m = rules.new_board(size)
    color = 1
    moves = []
    for _ in range(n_moves):
        pts = legal_moves(b, m, color)
        if len(pts) == 0 or rng.random() < 0.03:
            p = rules.PASS
            moves.append(None)
        else:
            p = int(pts[rng.integers(len(pts))])
            moves.append(point_at(p, size))
        rules.play(b, m, color, p)
        color = 3 - color
    return moves


def replay(size, moves, transform=TRANSFORMS[0], swap=False):
    b, m = rules.new_board(size)
    color = 2 if swap else 1
    for mv in moves:
        p = rules.PASS if mv is None else point_of(size, transform(*mv, size))
        assert rules.illegal_reason(b, m, color, p) == 0
        rules.play(b, m, color, p)
        color = 3 - color
    return b, m, color


def point_of(size, rc):
    return flat_index(rc, size)


def all_features(b, m, color):
    pts = legal_moves(b, m, color)
    out = np.zeros((len(pts), N_FEATURES), dtype=np.int32)
    tactical_features(b, m, color, pts, out)
    return pts, out


games = st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 90))


@settings(max_examples=80, deadline=None)
@given(games, st.integers(0, 7), st.booleans(), st.sampled_from([7, 9]))
def test_features_invariant_under_symmetry_and_colour_swap(game, t, swap, size):
    moves = random_game(size, *game)
    b, m, color = replay(size, moves)
    pts, out = all_features(b, m, color)
    b2, m2, color2 = replay(size, moves, TRANSFORMS[t], swap)
    assert color2 == 3 - color if swap else color2 == color
    pts2, out2 = all_features(b2, m2, color2)
    where = {int(p): i for i, p in enumerate(pts2)}
    assert len(pts) == len(pts2)
    for i, p in enumerate(pts):
        q = point_of(size, TRANSFORMS[t](*point_at(int(p), size), size))
        assert np.array_equal(out[i], out2[where[q]]), (p, FEATURES)
    assert (out[:, F_NBR3X3] > 0).all()


def test_reused_scratch_gives_the_same_features():
    scratch = reading_scratch(*rules.new_board(9))
    for seed in range(12):
        b, m, color = replay(9, random_game(9, seed, 10 * seed))
        pts, out = all_features(b, m, color)
        again = np.full_like(out, -1)
        tactical_features_with(b, m, color, pts, again, scratch)
        assert np.array_equal(out, again)
        levels = [nbr3x3_level(b, m, color, int(p)) for p in pts]
        assert levels == list(out[:, F_NBR3X3])


# ---------------------------------------------------------------------------
# plain-Python reference on random games
# ---------------------------------------------------------------------------


def py_strings(b, m):
    """head-independent strings: point -> (colour, frozenset of stones, liberties)."""
    w = int(m[rules.STRIDE])
    color = b[rules.COLOR]
    seen = {}
    for p in range(len(color)):
        if color[p] in (1, 2) and p not in seen:
            stack, stones, libs = [p], {p}, set()
            while stack:
                s = stack.pop()
                for q in (s - 1, s + 1, s - w, s + w):
                    if color[q] == color[p] and q not in stones:
                        stones.add(q)
                        stack.append(q)
                    elif color[q] == 0:
                        libs.add(q)
            for s in stones:
                seen[s] = (int(color[p]), frozenset(stones), len(libs))
    return seen


def py_raw3x3(b, m, color, p):
    w = int(m[rules.STRIDE])
    strings = py_strings(b, m)
    raw = 0
    for i, d in enumerate((w - 1, w, w + 1, 1, -w + 1, -w, -w - 1, -1)):
        q = p + d
        c = b[rules.COLOR, q]
        if c == 0:
            s = 0
        elif c == 3:
            s = 7
        else:
            s = min(strings[q][2], 3) + (0 if c == color else 3)
        raw |= s << (3 * i)
    return raw


@settings(max_examples=150, deadline=None)
@given(games, st.sampled_from([5, 7, 9]))
def test_against_python_reference(game, size):
    b, m, color = replay(size, random_game(size, *game))
    pts, out = all_features(b, m, color)
    w = size + 2
    strings = py_strings(b, m)
    for i, p in enumerate(pts):
        p = int(p)
        f = dict(zip(FEATURES, out[i]))
        nbrs = (p - 1, p + 1, p - w, p + w)
        opp = {strings[q][1]: strings[q][2] for q in nbrs if b[rules.COLOR, q] == 3 - color}
        own = {strings[q][1]: strings[q][2] for q in nbrs if b[rules.COLOR, q] == color}
        b2, m2 = b.copy(), m.copy()
        captured = rules.play(b2, m2, color, p)
        after = py_strings(b2, m2)[p]
        assert f["libs_after"] == min(after[2], 8)
        assert f["capture_size"] == min(captured, 8)
        assert (f["capture"] > 0) == (captured > 0)
        assert f["self_atari"] == (0 if after[2] > 1 else 1 if captured == 0 else 2)
        assert f["self_atari_size"] == (min(len(after[1]), 8) if after[2] == 1 else 0)
        assert (f["atari"] > 0) == (2 in opp.values())
        assert (f["extension"] > 0) == (1 in own.values())
        assert f["connect"] == (len(own) >= 2)
        # ladder-aware levels, against ladder_captured (itself checked below)
        last = int(m[rules.LAST])
        targets = [g for g, libs in opp.items() if libs == 2]
        caught_targets = [g for g in targets if ladder_captured(b2, m2, min(g), True)]
        if targets:
            assert (f["atari"] == 1) == bool(caught_targets)
        in_atari = [g for g, libs in own.items() if libs == 1]
        if in_atari:
            n = after[2]
            caught = n <= 1 or (n == 2 and ladder_captured(b2, m2, p, False))
            new = any(last in (t - 1, t + 1, t - w, t + w) for g in in_atari for t in g)
            new = new and b[rules.COLOR, last] == 3 - color
            assert f["extension"] == (1 if new else 3) + caught
        chased = []
        for g in caught_targets:
            b3, m3 = b2.copy(), m2.copy()
            (lib,) = {q for t in g for q in (t - 1, t + 1, t - w, t + w) if b3[rules.COLOR, q] == 0}
            if rules.illegal_reason(b3, m3, 3 - color, lib) == 0:
                rules.play(b3, m3, 3 - color, lib)
                chased.append(py_strings(b3, m3)[lib][2] == 2)
        escaped = in_atari and after[2] == 2 and f["extension"] in (1, 3)
        assert f["ladder"] == (1 if any(chased) else 2 if escaped else 0)
        if f["capture"] >= 5:
            b3, m3 = b.copy(), m.copy()
            m3[rules.KO] = 0
            escape = False
            if rules.illegal_reason(b3, m3, 3 - color, p) == 0:
                rules.play(b3, m3, 3 - color, p)
                n = py_strings(b3, m3)[p][2]
                escape = n >= 3 or (n == 2 and not ladder_captured(b3, m3, p, False))
            assert f["capture"] == (5 if escape else 6)
        raw = py_raw3x3(b, m, color, p)
        assert nbr3x3_raw(b, m, color, p) == raw
        assert f["nbr3x3"] == nbr3x3_id(raw) > 0
        for name, level in f.items():
            assert 0 <= level < FEATURE_LEVELS[FEATURES.index(name)]


#: The reading's verdicts and its stack's depth, as ``go.reading`` documents them.
CAUGHT_, ESCAPED_, UNREAD_ = 1, 0, -1


def py_ladder(b, m, s, defender_to_move, budget, depth=0):
    """The ladder as ``ladder_reading``'s docstring defines it, written out recursively:
    CAUGHT_, ESCAPED_ or UNREAD_. The moves: the attacker, facing two liberties, ataris at
    either, less an atari that captures nothing and that the defender escapes at once
    (three liberties after extending, not counting what the extension captures); the
    defender extends when that gives two liberties (three or more: escaped) and captures
    each adjacent attacking string in atari. The budget: a node shares its own evenly
    among its moves, each move's position costing one; a move with no share, or past
    ``LADDER_DEPTH`` levels, is unread. An attacker's node is caught if one move catches,
    escaped if every move escapes, else unread; a defender's the other way round."""
    w = int(m[rules.STRIDE])
    strings = py_strings(b, m)
    d = int(b[rules.COLOR, s])
    a = 3 - d
    stones = strings[s][1]

    def libs_of(board, group):
        return sorted({q for t in group for q in (t - 1, t + 1, t - w, t + w) if board[rules.COLOR, q] == 0})

    def child(color, p):
        b2, m2 = b.copy(), m.copy()
        rules.play(b2, m2, color, p)
        return b2, m2

    libs = libs_of(b, stones)
    moves = []
    if not defender_to_move:
        if len(libs) == 1:
            return CAUGHT_ if rules.illegal_reason(b, m, a, libs[0]) == 0 else ESCAPED_
        if len(libs) >= 3:
            return ESCAPED_
        for x in libs:
            if rules.illegal_reason(b, m, a, x) != 0:
                continue
            b2, _ = child(a, x)
            captures = any(b[rules.COLOR, q] == d and b2[rules.COLOR, q] == 0 for q in (x - 1, x + 1, x - w, x + w))
            (y,) = [q for q in libs if q != x]
            joined = set(stones) | {y}  # the defender's string extended at y, before it captures
            for q in (y - 1, y + 1, y - w, y + w):
                if b2[rules.COLOR, q] == d:
                    joined |= set(strings[q][1])
            if not captures and len([q for q in libs_of(b2, joined) if q != y]) >= 3:
                continue
            moves.append(x)
        if not moves:
            return ESCAPED_
    else:
        (lib,) = libs
        if rules.illegal_reason(b, m, d, lib) == 0:
            b2, m2 = child(d, lib)
            n = py_strings(b2, m2)[s][2]
            if n >= 3:
                return ESCAPED_
            if n == 2:
                moves.append(lib)
        for t in stones:
            for q in (t - 1, t + 1, t - w, t + w):
                if b[rules.COLOR, q] == a and strings[q][2] == 1:
                    (cp,) = libs_of(b, strings[q][1])
                    if cp != lib and cp not in moves and rules.illegal_reason(b, m, d, cp) == 0:
                        moves.append(cp)
        if not moves:
            return CAUGHT_
    share = budget // len(moves)
    mover = d if defender_to_move else a
    verdicts = [UNREAD_ if share < 1 or depth + 1 >= LADDER_DEPTH
                else py_ladder(*child(mover, x), s, not defender_to_move, share - 1, depth + 1) for x in moves]
    win, loss = (ESCAPED_, CAUGHT_) if defender_to_move else (CAUGHT_, ESCAPED_)
    return win if win in verdicts else loss if all(v == loss for v in verdicts) else UNREAD_


@settings(max_examples=100, deadline=None, derandomize=True)
@given(games, st.sampled_from([7, 9]))
def test_ladder_reader_against_python_reference(game, size):
    _ladder_reader_agrees(game, size)


def test_ladder_reader_against_python_reference_on_an_unbalanced_tree():
    """A 9x9 white stone at A2 (liberties A3, B2; Black's A1 below it in atari), Black to
    play: read by hand, B2 starts a ladder up the A file that Black wins (White's B1,
    capturing A1, does not save it), but the tree of Black's two ataris and White's capture
    at every step is deep and unbalanced, and the budget's even split leaves its deepest
    lines unread: the reading says unread (an escape, for the features), as its definition
    does; a reference that read the whole tree said caught, which a random run found."""
    b, m, _ = replay(9, random_game(9, 443, 27))
    assert int(b[rules.COLOR, 23]) == rules.WHITE and py_strings(b, m)[23][2] == 2
    assert py_ladder(b, m, 23, False, 10 ** 6) == CAUGHT_  # the whole tree, read by hand above
    assert py_ladder(b, m, 23, False, LADDER_BUDGET) == UNREAD_ == ladder_verdict(b, m, 23, False)
    _ladder_reader_agrees((443, 27), 9)


def _ladder_reader_agrees(game, size):
    b, m, _ = replay(size, random_game(size, *game))
    strings = py_strings(b, m)
    heads = {}
    for p, (c, stones, libs) in strings.items():
        heads.setdefault(stones, (p, libs))
    for p, libs in heads.values():
        if libs > 2:
            continue
        for defender_to_move in ((True, False) if libs == 1 else (False,)):
            want = py_ladder(b, m, p, defender_to_move, LADDER_BUDGET)
            assert ladder_verdict(b, m, p, defender_to_move) == want


# ---------------------------------------------------------------------------
# real games
# ---------------------------------------------------------------------------

@pytest.mark.shared_data
def test_real_games_levels_in_range(tygem_archives):
    sgf = pytest.importorskip("sgfmill.sgf")
    archive = tygem_archives[0]
    with zipfile.ZipFile(archive) as z:
        names = [n for n in z.namelist() if n.endswith(".sgf")][:3]
        for name in names:
            game = sgf.Sgf_game.from_bytes(z.read(name))
            size = game.get_size()
            b, m = rules.new_board(size)
            for node in game.get_main_sequence()[1:]:
                c, mv = node.get_move()
                if c is None:
                    continue
                color = 1 if c == "b" else 2
                p = rules.PASS if mv is None else point_of(size, mv)
                if rules.illegal_reason(b, m, color, p):
                    break
                pts, out = all_features(b, m, color)
                assert (out[:, F_NBR3X3] > 0).all()
                assert (out >= 0).all() and (out < np.array(FEATURE_LEVELS)).all()
                if p != rules.PASS:
                    assert p in pts
                rules.play(b, m, color, p)


def test_running_a_dead_ladder_is_seen_and_the_engine_can_refuse_it():
    from shapemill.engine.search import Search, SearchConfig, choose_move
    from shapemill.go.reading import runs_dead_ladder
    from shapemill.go.rules import HEAD, WHITE, atari_point

    for diagram, dead in ((LADDER, True), (BROKEN, False)):
        bd, _ = board(diagram, [("b", "*")])
        run = int(atari_point(bd.b, bd.b[HEAD, point(bd, (4, 4))]))
        assert runs_dead_ladder(bd.b, bd.m, WHITE, run) == dead
    bd, _ = board(LADDER, [("b", "*")])
    prior = np.zeros(bd.b.shape[1])
    prior[run] = 1.0  # a table that wants the run
    chosen = {}
    for check in (False, True):
        search = Search(SearchConfig(playouts=60, seed=3, check_ladders=check))
        chosen[check] = choose_move(search, bd, WHITE, False, prior).move
    assert chosen[False] == run and chosen[True] not in (run, 0)
    assert not runs_dead_ladder(bd.b, bd.m, WHITE, chosen[True])

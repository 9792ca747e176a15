"""go/vertices.py against sgfmill, the independent reader and writer of GTP vertices and
SGF points, and against the rules' own layout conversions (``rules.to_point``)."""

from __future__ import annotations

import itertools
import string

import pytest
from sgfmill import common, sgf_properties

from shapemill.go import rules
from shapemill.go.board import Board, IllegalMove
from shapemill.go.vertices import (
    ColorError,
    VertexError,
    color_code,
    color_name,
    flat_index,
    flat_vertex,
    format_sgf_point,
    format_vertex,
    opponent,
    parse_color,
    parse_sgf_point,
    parse_vertex,
    point_at,
    row_col,
)

SIZES = range(2, rules.MAX_SIZE + 1)


def points(size: int) -> list[tuple[int, int]]:
    return [(r, c) for r in range(size) for c in range(size)]


def sgfmill_vertex(text: str, size: int):
    """sgfmill's reading, or the string 'error'."""
    try:
        return common.move_from_vertex(text, size)
    except ValueError:
        return "error"


def our_vertex(text: str, size: int):
    try:
        return parse_vertex(text, size)
    except VertexError as e:
        assert "\n" not in str(e) and repr(text) in str(e)
        return "error"


def test_gtp_vertices_are_written_as_sgfmill_writes_them():
    for point in [None, *points(rules.MAX_SIZE)]:
        assert format_vertex(point) == common.format_vertex(point)
    assert format_vertex((6, 0)) == "A7" and format_vertex((0, 8)) == "J1"  # no I
    with pytest.raises(VertexError):
        format_vertex((0, rules.MAX_SIZE))


@pytest.mark.parametrize("size", SIZES)
def test_every_vertex_round_trips_and_reads_as_sgfmill_reads_it(size):
    for point in points(size):
        text = format_vertex(point)
        assert parse_vertex(text, size) == point
        for spelling in (text, text.lower(), f" {text} "):
            assert our_vertex(spelling, size) == sgfmill_vertex(spelling.strip(), size), spelling
    for spelling in ("pass", "PASS", "Pass"):
        assert parse_vertex(spelling, size) is None and sgfmill_vertex(spelling, size) is None


@pytest.mark.parametrize("size", [2, 9, 13, 19, 25])
def test_bad_vertices_are_refused_with_the_reason_as_sgfmill_refuses_them(size):
    letters = string.ascii_uppercase
    texts = [f"{c}{r}" for c in letters for r in (0, 1, size, size + 1, 26)]
    texts += ["", "A", "1", "5A", "AA1", "A-1", "I1", "i3", "A1.5", "pas", "passe", "-"]
    for text in texts:
        assert our_vertex(text, size) == sgfmill_vertex(text, size), text
    # Stricter than sgfmill's int(): a GTP vertex is one token of letter and digits.
    for text in ("A 1", "A+1", "A1_0"):
        assert our_vertex(text, size) == "error"
    with pytest.raises(VertexError, match="off the 9x9 board"):
        parse_vertex("K5", 9)


def sgfmill_point(text: str, size: int):
    try:
        return sgf_properties.interpret_go_point(text.encode(), size)
    except ValueError:
        return "error"


@pytest.mark.parametrize("size", SIZES)
def test_sgf_points_read_as_sgfmill_reads_them(size):
    pairs = ["".join(p) for p in itertools.product(string.ascii_lowercase, repeat=2)]
    for text in ["", "tt", "a", "abc", "A1", "Aa", "aA", *pairs]:
        try:
            ours = parse_sgf_point(text, size)
        except VertexError as e:
            assert "\n" not in str(e)
            ours = "error"
        assert ours == sgfmill_point(text, size), text
        if ours != "error":
            assert parse_sgf_point(text.encode(), size) == ours


@pytest.mark.parametrize("size", SIZES)
def test_sgf_points_are_written_as_sgfmill_writes_them(size):
    for point in points(size):
        text = format_sgf_point(point, size)
        assert text.encode() == sgf_properties.serialise_go_point(point, size)
        assert parse_sgf_point(text, size) == point
    # A pass is written '' (FF[4]); sgfmill writes 'tt' up to 19x19 but reads both.
    assert format_sgf_point(None, size) == ""
    assert sgf_properties.interpret_go_point(b"", size) is None
    with pytest.raises(VertexError):
        format_sgf_point((size, 0), size)


@pytest.mark.parametrize("size", SIZES)
def test_flat_indices_are_the_rules_layout(size):
    w = size + 2
    seen = set()
    for r, c in points(size):
        p = flat_index((r, c), size)
        assert p == rules.to_point(r * size + c, size)
        assert rules.to_index(p, size) == r * size + c
        assert point_at(p, size) == (r, c) and row_col(p, w) == (r, c)
        assert flat_vertex(p, size) == common.format_vertex((r, c))
        seen.add(p)
    assert len(seen) == size * size
    assert flat_index(None, size) == rules.PASS and point_at(rules.PASS, size) is None
    assert flat_vertex(rules.PASS, size) == "pass"
    for off in ((-1, 0), (0, -1), (size, 0), (0, size)):
        with pytest.raises(VertexError):
            flat_index(off, size)


def test_a_stone_played_at_a_vertex_lands_at_its_flat_index():
    for size in (2, 9, 19, 25):
        board = Board(size)
        for point in [(0, 0), (size - 1, size - 1), (size // 2, 1)]:
            board.setup("b", [point])
            assert board.b[rules.COLOR, flat_index(point, size)] == rules.BLACK
        assert board.stones("b") == {(0, 0), (size - 1, size - 1), (size // 2, 1)}


def test_colours():
    for word, name in (("b", "b"), ("B", "b"), ("black", "b"), ("BLACK", "b"), ("w", "w"), ("White", "w")):
        assert parse_color(word) == name
    for bad in ("", "x", "blue", "bw"):
        with pytest.raises(ColorError, match=repr(bad)):
            parse_color(bad)
    assert color_code("b") == rules.BLACK and color_code("w") == rules.WHITE
    assert color_name(rules.BLACK) == "b" and color_name(rules.WHITE) == "w"
    assert color_name(rules.EMPTY) is None and color_name(rules.BORDER) is None
    assert opponent("b") == "w" and opponent("w") == "b"
    with pytest.raises(ColorError):
        color_code("black")


def test_board_errors_name_points_as_gtp_vertices():
    board = Board(9)
    board.play("b", (6, 0))
    with pytest.raises(IllegalMove, match=r"^w A7: occupied$"):
        board.play("w", (6, 0))
    with pytest.raises(IllegalMove, match=r"^w J10: off board$"):
        board.play("w", (9, 8))
    with pytest.raises(IllegalMove, match="J10 is off the 9x9 board"):
        board.setup("w", [(9, 8)])
    with pytest.raises(ValueError, match="colour must be 'b' or 'w'"):
        board.play("x", (0, 0))

"""The rules core (``engine.rules``) and its Python face ``Board``.

Hand-built positions check each rule once; hypothesis then plays random move
sequences on small boards against ``Reference``, a plain flood-fill Go board
written here, and against sgfmill's board, and checks the incremental
structures (strings, pseudo-liberties, empty list, Zobrist hash) after every move.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sgfmill import boards
from shapemill.go import Board, IllegalMove, rules
from shapemill.go.vertices import flat_index

Point = tuple[int, int]
OTHER = {"b": "w", "w": "b"}


# --------------------------------------------------------------------------- #
# An independent reference: a dict of stones, liberties by flood fill.
# --------------------------------------------------------------------------- #


class Reference:
    """A slow, plain Go board with the same rules as ``Board``: no suicide, simple
    ko (binding the capturer's opponent on the next move only) and positional
    superko."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.stones: dict[Point, str] = {}
        self.ko: tuple[Point, str] | None = None  # (point, colour barred from it)
        self.history = {self.position()}

    def position(self) -> frozenset[tuple[Point, str]]:
        return frozenset(self.stones.items())

    def neighbours(self, p: Point) -> list[Point]:
        row, col = p
        return [
            (r, c)
            for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
            if 0 <= r < self.size and 0 <= c < self.size
        ]

    def string(self, stones: dict[Point, str], p: Point) -> tuple[set[Point], set[Point]]:
        """The string through ``p`` and its liberties."""
        color = stones[p]
        string, liberties, todo = {p}, set(), [p]
        while todo:
            for q in self.neighbours(todo.pop()):
                if q not in stones:
                    liberties.add(q)
                elif stones[q] == color and q not in string:
                    string.add(q)
                    todo.append(q)
        return string, liberties

    def _after(self, color: str, p: Point) -> tuple[dict[Point, str], list[Point]]:
        """The stones after ``color`` plays ``p``, and the points it captures."""
        stones = dict(self.stones)
        stones[p] = color
        captured: list[Point] = []
        for q in self.neighbours(p):
            if stones.get(q) == OTHER[color]:
                string, liberties = self.string(stones, q)
                if not liberties:
                    captured += string
                    for s in string:
                        del stones[s]
        return stones, captured

    def reason(self, color: str, p: Point | None) -> str:
        """Why ``color`` may not play ``p``, in ``Board.illegal_reason``'s words."""
        if p is None:
            return ""
        if not (0 <= p[0] < self.size and 0 <= p[1] < self.size):
            return "off board"
        if p in self.stones:
            return "occupied"
        if self.ko == (p, color):
            return "ko"
        stones, _ = self._after(color, p)
        if not self.string(stones, p)[1]:
            return "suicide"
        if frozenset(stones.items()) in self.history:
            return "superko"
        return ""

    def play(self, color: str, p: Point | None) -> int:
        """Play a legal move; returns the number of stones captured."""
        self.ko = None
        if p is None:
            return 0
        self.stones, captured = self._after(color, p)
        string, liberties = self.string(self.stones, p)
        if len(captured) == 1 and len(string) == 1 and len(liberties) == 1:
            self.ko = (captured[0], OTHER[color])
        self.history.add(self.position())
        return len(captured)


# --------------------------------------------------------------------------- #
# Helpers
# --------------------------------------------------------------------------- #


def position(diagram: str) -> Board:
    """A board set up from a diagram of ``.XO`` rows, top row first (row 0 is the
    bottom, as in sgfmill)."""
    rows = diagram.split()
    size = len(rows)
    board = Board(size)
    for color, mark in (("b", "X"), ("w", "O")):
        board.setup(color, [(size - 1 - i, j) for i, row in enumerate(rows) for j, c in enumerate(row) if c == mark])
    return board


def state(board: Board) -> tuple[np.ndarray, np.ndarray, frozenset[int]]:
    return board.b.copy(), board.m.copy(), board.seen_positions


def assert_same_state(a: tuple, b: tuple) -> None:
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert a[2] == b[2]


def stone_dict(board: Board) -> dict[Point, str]:
    return {p: c for c in "bw" for p in board.stones(c)}


def sgfmill_stones(board: boards.Board) -> dict[Point, str]:
    return {p: c for c, p in board.list_occupied_points()}


def check_structures(board: Board) -> None:
    """The incremental structures agree with what a flood fill recomputes: every
    string's HEAD and NEXT ring, stone count, pseudo-liberty sums, atari test and
    atari point; the empty list; the Zobrist hash."""
    b, m = board.b, board.m
    size, w = board.size, board.size + 2
    color = b[rules.COLOR]
    empties, heads = [], set()
    zobrist = np.int64(0)
    for p in range(w * w):
        row, col = divmod(p, w)
        if not (1 <= row <= size and 1 <= col <= size):
            assert color[p] == rules.BORDER
            continue
        c = color[p]
        if c == rules.EMPTY:
            empties.append(p)
            continue
        zobrist ^= rules.ZOBRIST[c, p]
        h = int(b[rules.HEAD, p])
        if h in heads:
            continue
        heads.add(h)
        string, todo = {p}, [p]
        while todo:
            s = todo.pop()
            for q in (s - 1, s + 1, s - w, s + w):
                if color[q] == c and q not in string:
                    string.add(q)
                    todo.append(q)
        assert h in string and all(b[rules.HEAD, s] == h for s in string)
        ring = [h]
        while (s := int(b[rules.NEXT, ring[-1]])) != h:
            assert s not in ring and len(ring) <= len(string)
            ring.append(s)
        assert set(ring) == string
        assert b[rules.STONES, h] == len(string)
        plibs = [q for s in string for q in (s - 1, s + 1, s - w, s + w) if color[q] == rules.EMPTY]
        assert b[rules.PLIBS, h] == len(plibs)
        assert b[rules.PSUM, h] == sum(plibs)
        assert b[rules.PSUM2, h] == sum(q * q for q in plibs)
        liberties = set(plibs)
        assert rules.in_atari(b, h) == (len(liberties) == 1)
        if len(liberties) == 1:
            assert rules.atari_point(b, h) == liberties.pop()
    n = int(m[rules.N_EMPTY])
    assert n == len(empties)
    assert sorted(b[rules.EMPTIES, :n]) == empties
    assert all(b[rules.EMPTY_AT, b[rules.EMPTIES, i]] == i for i in range(n))
    assert m[rules.HASH] == zobrist


# --------------------------------------------------------------------------- #
# Hand-built positions
# --------------------------------------------------------------------------- #


def test_single_stone_capture() -> None:
    board = position(
        """
        .....
        ..X..
        .XOX.
        .....
        .....
        """
    )
    assert board.play("b", (1, 2)) == 1
    assert board.get((2, 2)) is None
    assert board.stones("w") == set()
    assert board.stones("b") == {(3, 2), (2, 1), (2, 3), (1, 2)}
    check_structures(board)


def test_multi_string_capture() -> None:
    board = position(
        """
        .X...
        XOXX.
        XO.OX
        .X.X.
        .....
        """
    )
    assert board.play("b", (2, 2)) == 3
    assert board.stones("w") == set()
    assert board.ko is None  # three stones taken: no ko
    check_structures(board)


def test_corner_and_edge_captures() -> None:
    board = position(
        """
        ....O
        .....
        .....
        .....
        OX.XO
        """
    )
    assert board.play("b", (1, 0)) == 1  # bottom-left corner
    assert board.play("b", (1, 4)) == 1  # bottom-right corner
    assert board.stones("w") == {(4, 4)}
    board.play("b", (4, 3))
    assert board.play("b", (3, 4)) == 1  # top-right corner
    edge = position(
        """
        .....
        .....
        .....
        .XX..
        XOO..
        """
    )
    assert edge.play("b", (0, 3)) == 2  # a two-stone string on the edge
    assert edge.stones("w") == set()
    check_structures(board)
    check_structures(edge)


def test_single_stone_suicide_is_illegal() -> None:
    board = position(
        """
        ...
        X..
        .X.
        """
    )
    before = state(board)
    assert board.illegal_reason("w", (0, 0)) == "suicide"
    with pytest.raises(IllegalMove, match="suicide"):
        board.play("w", (0, 0))
    assert_same_state(state(board), before)
    assert board.illegal_reason("b", (0, 0)) == ""  # filling one's own eye is legal


def test_multi_stone_suicide_is_illegal() -> None:
    board = position(
        """
        ....
        ....
        XXX.
        OO.X
        """
    )
    assert board.illegal_reason("w", (0, 2)) == "suicide"
    assert board.illegal_reason("b", (0, 2)) == ""  # and for Black it captures
    assert board.play("b", (0, 2)) == 2


def test_capture_without_liberties_is_not_suicide() -> None:
    board = position(
        """
        ...
        XO.
        .XO
        """
    )
    assert board.illegal_reason("w", (0, 0)) == ""
    assert board.play("w", (0, 0)) == 1
    assert board.stones("b") == {(1, 0)}
    assert board.ko == (0, 1)  # a lone stone took a lone stone: a ko
    check_structures(board)


KO = """
    .....
    .XO..
    XO.O.
    .XO..
    .....
    """


def test_simple_ko_ban_and_ko_threat() -> None:
    board = position(KO)
    assert board.play("b", (2, 2)) == 1
    assert board.ko == (2, 1)
    assert board.illegal_reason("w", (2, 1)) == "ko"
    assert rules.illegal_reason(board.b, board.m, rules.WHITE, flat_index((2, 1), board.size)) == rules.KO_BAN
    with pytest.raises(IllegalMove, match="ko"):
        board.play("w", (2, 1))
    board.play("w", (4, 4))  # a ko threat
    assert board.ko is None
    board.play("b", (4, 3))  # answered
    assert board.illegal_reason("w", (2, 1)) == ""
    assert board.play("w", (2, 1)) == 1
    assert board.ko == (2, 2)
    assert board.illegal_reason("b", (2, 2)) == "ko"
    check_structures(board)


def test_ko_ban_binds_only_the_opponent() -> None:
    board = position(KO)
    board.play("b", (2, 2))
    assert board.illegal_reason("b", (2, 1)) == ""  # the capturer may fill the ko
    assert board.play("b", (2, 1)) == 0


def test_retaking_a_ko_after_two_passes_is_superko() -> None:
    board = position(KO)
    board.play("b", (2, 2))
    board.play("w", None)
    assert board.ko is None
    board.play("b", None)
    # Simple ko has lapsed, but retaking recreates the position before Black's capture.
    assert rules.illegal_reason(board.b, board.m, rules.WHITE, flat_index((2, 1), board.size)) == rules.OK
    assert board.illegal_reason("w", (2, 1)) == "superko"


def test_positional_superko_cycle() -> None:
    # On 2x2: White's fourth move takes two stones, White's sixth takes one, and
    # Black taking back the three would bring back the position after move one.
    board = Board(2)
    for color, point in zip("bwbwbw", [(0, 0), (0, 1), (1, 0), (1, 1), (0, 0), (1, 0)]):
        board.play(color, point)
    assert board.stones("w") == {(0, 1), (1, 0), (1, 1)}
    p = flat_index((0, 0), board.size)
    assert rules.illegal_reason(board.b, board.m, rules.BLACK, p) == rules.OK  # not a simple ko
    assert board.illegal_reason("b", (0, 0)) == "superko"
    with pytest.raises(IllegalMove, match="superko"):
        board.play("b", (0, 0))
    board.undo()
    assert board.stones("b") == {(0, 0)} and board.stones("w") == {(0, 1), (1, 1)}


def test_pass() -> None:
    board = position(KO)
    board.play("b", (2, 2))
    before = state(board)
    zobrist = board.zobrist
    assert board.is_legal("w", None)
    assert board.play("w", None) == 0
    assert board.zobrist == zobrist
    assert board.ko is None  # a pass lifts the ko ban
    np.testing.assert_array_equal(board.b, before[0])  # no stone moved
    board.undo()
    assert_same_state(state(board), before)


def test_zobrist_depends_on_stones_not_order() -> None:
    a, b = Board(9), Board(9)
    for color, point in zip("bwb", [(0, 0), (4, 4), (8, 8)]):
        a.play(color, point)
    for color, point in zip("bwb", [(8, 8), (4, 4), (0, 0)]):
        b.play(color, point)
    assert a.zobrist == b.zobrist != Board(9).zobrist


@pytest.mark.parametrize(
    ("diagram", "komi", "expected"),
    [
        # empty board: no stones, and the one region reaches none
        (".... .... .... ....", 7.5, -7.5),
        # a black wall: both sides are Black's territory
        (".X. .X. .X.", 0.0, 9.0),
        # Black 3 columns (wall + territory), White 2
        ("..XO. ..XO. ..XO. ..XO. ..XO.", 0.5, 15 - 10 - 0.5),
        # the middle column touches both colours: it counts for nobody
        (".X.O. .X.O. .X.O. .X.O. .X.O.", 0.0, 0.0),
        # shared points, as in seki: the three touching both colours count for
        # nobody; Black 5 stones, White 5 stones + 3 territory
        ("XXO. X.O. XXOO ..O.", 0.0, 5 - 8),
    ],
)
def test_area_score(diagram: str, komi: float, expected: float) -> None:
    board = position(diagram)
    assert board.score(komi) == expected
    reference = boards.Board(board.size)
    reference.apply_setup(board.stones("b"), board.stones("w"), [])
    assert board.score(komi) == reference.area_score() - komi  # sgfmill counts shared points for both


@pytest.mark.parametrize("size", range(2, 26))
def test_sizes(size: int) -> None:
    board = Board(size)
    last = size - 1
    board.play("b", (0, 0))
    board.play("w", (last, last))
    assert board.stones("b") == {(0, 0)} and board.stones("w") == {(last, last)}
    assert all(type(i) is int for p in board.stones("b") for i in p)
    assert board.illegal_reason("b", (size, 0)) == "off board"
    assert board.illegal_reason("b", (0, -1)) == "off board"
    with pytest.raises(IllegalMove, match="off"):
        board.play("b", (last, size))
    assert board.score(0.0) == 0.0  # one stone each; every empty point touches both
    check_structures(board)


@pytest.mark.parametrize("size", [1, 26])
def test_unsupported_sizes(size: int) -> None:
    with pytest.raises(ValueError):
        Board(size)


def test_illegal_move_messages() -> None:
    board = position(KO)
    with pytest.raises(IllegalMove, match="occupied"):
        board.play("w", (2, 1))
    with pytest.raises(ValueError, match="colour"):
        board.play("x", (0, 0))


def test_copy_shares_no_state_with_the_original() -> None:
    board = position(KO)
    board.play("b", (0, 0))
    before = state(board)
    twin = board.copy()
    twin.undo()
    twin.play("w", (0, 0))
    twin.play("b", (4, 4))
    assert_same_state(state(board), before)
    board.undo()  # the undo stack is shared with the twin, and must be intact
    assert board.get((0, 0)) is None and board.stones("w") == position(KO).stones("w")
    check_structures(board)


def record(*points: Point | None, size: int = 5) -> np.ndarray:
    return np.array([-1 if p is None else p[0] * size + p[1] for p in points], dtype=np.int16)  # as scan stores them


def test_replay_check_reasons() -> None:
    none = np.zeros(0, dtype=np.int16)
    assert rules.replay_check(5, none, none, record((2, 2), (1, 1), (2, 2)), rules.BLACK) == (2, rules.OCCUPIED)
    suicide = record((0, 1), (4, 4), (1, 0), (0, 0))
    assert rules.replay_check(5, none, none, suicide, rules.BLACK) == (3, rules.SUICIDE)
    assert rules.replay_check(5, none, none, suicide[1:], rules.WHITE) == (3, rules.OK)
    ko = position(KO)
    black = record(*ko.stones("b"))
    white = record(*ko.stones("w"))
    take, retake = (2, 2), (2, 1)
    assert rules.replay_check(5, black, white, record(take, retake), rules.BLACK) == (1, rules.KO_BAN)
    assert rules.replay_check(5, black, white, record(take, (4, 4), (4, 3), retake), rules.BLACK) == (4, rules.OK)
    assert rules.replay_check(5, black, white, record(take, None, None, retake), rules.BLACK) == (4, rules.OK)


# --------------------------------------------------------------------------- #
# Random sequences against the reference
# --------------------------------------------------------------------------- #


class Checked:
    """A ``Board``, a ``Reference`` and an sgfmill board played in step, checking
    after every move everything the three must agree on."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.board = Board(size)
        self.reference = Reference(size)
        self.sgfmill = boards.Board(size)
        self.hashes: dict[frozenset, int] = {self.reference.position(): self.board.zobrist}

    def step(self, color: str, point: Point | None) -> bool:
        """Try a move in all three; returns whether it was legal."""
        board, reference = self.board, self.reference
        reason = reference.reason(color, point)
        assert board.illegal_reason(color, point) == reason
        before = state(board)
        if reason:
            with pytest.raises(IllegalMove, match=reason):
                board.play(color, point)
            assert_same_state(state(board), before)
            return False
        n_before = len(reference.stones)
        captured = board.play(color, point)
        assert captured == reference.play(color, point)
        after = state(board)
        board.undo()
        assert_same_state(state(board), before)
        board.play(color, point)
        assert_same_state(state(board), after)
        if point is not None:
            self.sgfmill.play(*point, color)
            assert len(reference.stones) == n_before + 1 - captured
        stones = stone_dict(board)
        assert stones == reference.stones == sgfmill_stones(self.sgfmill)
        assert board.ko == (reference.ko[0] if reference.ko else None)
        # Equal positions, equal hashes; different positions, different hashes.
        assert self.hashes.setdefault(reference.position(), board.zobrist) == board.zobrist
        assert len(set(self.hashes.values())) == len(self.hashes)
        check_structures(board)
        return True


@st.composite
def sequences(draw: st.DrawFn) -> tuple[int, list[tuple[int, bool]]]:
    """A board size and moves as (choice, again): the move is the choice-th empty
    point modulo their number plus one (the last is a pass), and ``again`` says
    whether the same colour moves next, which records allow."""
    size = draw(st.integers(2, 9))
    moves = draw(
        st.lists(
            st.tuples(st.integers(0, 2**16), st.integers(0, 7).map(lambda k: k == 0)),
            min_size=2 * size * size,
            max_size=4 * size * size,
        )
    )
    return size, moves


def chosen(board: Board, choice: int) -> Point | None:
    """The choice-th empty point of ``board`` (in row, col order), or a pass."""
    empties = sorted(set(np.ndindex(board.size, board.size)) - board.stones("b") - board.stones("w"))
    k = choice % (len(empties) + 1)
    return empties[k] if k < len(empties) else None


@settings(max_examples=100, deadline=None)
@given(sequences())
def test_random_sequences_agree_with_reference(sequence: tuple[int, list[tuple[int, bool]]]) -> None:
    size, moves = sequence
    game = Checked(size)
    color = "b"
    for choice, again in moves:
        if game.step(color, chosen(game.board, choice)) and not again:
            color = OTHER[color]
    assert game.board.score(0.0) == game.sgfmill.area_score()


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(5, 9))
def test_long_random_games_agree_with_reference(seed: int, size: int) -> None:
    """Whole games of random legal moves (many captures, kos, full boards)."""
    rng = random.Random(seed)
    game = Checked(size)
    color, passes = "b", 0
    points = [(r, c) for r in range(size) for c in range(size)]
    for _ in range(3 * size * size):
        rng.shuffle(points)
        move = None
        for p in points:  # every point tried, legal or not, must get the same verdict
            reason = game.reference.reason(color, p)
            assert game.board.illegal_reason(color, p) == reason
            if not reason and rng.random() < 0.9:
                move = p
                break
        assert game.step(color, move)
        passes = passes + 1 if move is None else 0
        if passes == 2:
            break
        color = OTHER[color]


@settings(max_examples=30, deadline=None)
@given(sequences(), st.integers(0, 120), st.integers(0, 2**32 - 1))
def test_copy_and_undo_are_independent(sequence: tuple[int, list[tuple[int, bool]]], split: int, seed: int) -> None:
    """A copy that undoes and plays other moves leaves the original, and the
    original's undo history, exactly as they were."""
    size, moves = sequence
    board = Board(size)
    states = [state(board)]
    color = "b"
    for choice, again in moves:
        point = chosen(board, choice)
        if board.is_legal(color, point):
            board.play(color, point)
            states.append(state(board))
            color = color if again else OTHER[color]
    twin = board.copy()
    rng = random.Random(seed)
    for _ in range(min(split, len(states) - 1)):
        twin.undo()
    for _ in range(20):
        point = (rng.randrange(size), rng.randrange(size))
        if twin.is_legal(color, point):
            twin.play(color, point)
            color = OTHER[color]
    assert_same_state(state(board), states[-1])
    for expected in reversed(states[:-1]):
        board.undo()
        assert_same_state(state(board), expected)
    with pytest.raises(IndexError):
        board.undo()


def test_history_properties_count_moves_and_distinct_positions_as_sgfmill_replays_them():
    """``moves_played`` is the moves (passes included) undo can take back; ``seen_positions``
    holds one hash per distinct position of the game, counted on sgfmill's board."""
    moves = [("b", (0, 0)), ("w", (0, 1)), ("b", None), ("w", (1, 0)), ("b", (2, 2)), ("w", None), ("b", (1, 1))]
    board, reference = Board(5), boards.Board(5)
    positions = {frozenset(reference.list_occupied_points())}
    assert board.moves_played == 0 and len(board.seen_positions) == 1
    for n, (color, point) in enumerate(moves, 1):
        board.play(color, point)
        if point is not None:
            reference.play(point[0], point[1], color)
        positions.add(frozenset(reference.list_occupied_points()))
        assert board.moves_played == n
        assert len(board.seen_positions) == len(positions)
        assert int(board.m[rules.HASH]) in board.seen_positions
    before = board.seen_positions
    board.undo()
    assert board.moves_played == len(moves) - 1 and len(board.seen_positions) == len(positions) - 1
    assert board.seen_positions < before


def test_moves_and_the_position_before_them_are_the_game_as_played():
    """``moves`` lists what was played (passes as None), oldest first, and shrinks with
    ``undo``; ``before_moves`` holds the setup stones only, on sgfmill's board too."""
    board = Board(5)
    board.setup("b", [(2, 2)])
    board.setup("w", [(0, 4)])
    played = [("b", (0, 0)), ("w", (0, 1)), ("b", None), ("w", (1, 0))]
    for color, point in played:
        board.play(color, point)
    assert board.moves == [p for _, p in played]
    start = board.before_moves()
    reference = boards.Board(5)
    reference.apply_setup([(2, 2)], [(0, 4)], [])
    assert start.stones("b") == {p for c, p in reference.list_occupied_points() if c == "b"}
    assert start.stones("w") == {p for c, p in reference.list_occupied_points() if c == "w"}
    assert start.moves_played == 0 and start.moves == []
    board.undo()
    assert board.moves == [p for _, p in played[:-1]]

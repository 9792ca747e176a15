"""Equivalent moves (``go.equivalent``) against a plain-Python reference on sgfmill's board,
and evaluate's count of them: on the empty board the four 4-4 points are one move."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest
from sgfmill import boards, sgf
from shapemill.datasets.corpus import load_corpus
from shapemill.go import Board
from shapemill.miner.evaluate import evaluate_teams
from shapemill.miner.positions import build_teams
from shapemill.patterns.knowledge import Knowledge

from replayed import replayed_positions


def reference_symmetries(board: boards.Board, fixed: list[tuple[int, int]]) -> list:
    """The symmetries of the square, as maps of (row, col), that take every stone of
    sgfmill's ``board`` onto a stone of its colour and each point of ``fixed`` (the last two
    moves, the ko point) onto itself."""
    n = board.side - 1
    maps = (lambda r, c: (r, c), lambda r, c: (c, n - r), lambda r, c: (n - r, n - c), lambda r, c: (n - c, r),
            lambda r, c: (r, n - c), lambda r, c: (n - r, c), lambda r, c: (c, r), lambda r, c: (n - c, n - r))
    return [f for f in maps if all(f(*p) == p for p in fixed) and all(
        board.get(*f(r, c)) == board.get(r, c) for r in range(board.side) for c in range(board.side))]


def test_the_empty_board_by_hand() -> None:
    board = Board(19)
    assert board.equivalent_points((3, 3)) == 4  # the 4-4 points
    assert board.equivalent_points((3, 2)) == 8  # the 3-4 points
    assert board.equivalent_points((9, 9)) == 1  # tengen
    assert board.equivalent_points(None) == 1
    board.play("b", (3, 3))  # D4: the diagonal through it is the one symmetry left
    assert board.equivalent_points((3, 15)) == 2  # Q4, and D16 across the diagonal
    assert board.equivalent_points((15, 15)) == 1  # Q16, on the diagonal
    board.play("w", (15, 2))  # C16: off the diagonal, nothing is kept
    assert board.equivalent_points((3, 15)) == 1
    small = Board(9)
    assert small.equivalent_points((4, 4)) == 1 and small.equivalent_points((2, 2)) == 4


@pytest.mark.shared_data
def test_real_openings_against_the_reference(tygem_archives) -> None:
    """Every empty point of the first eight positions of 40 Tygem games, read by sgfmill."""
    checked = symmetric = 0
    with zipfile.ZipFile(tygem_archives[0]) as z:
        names = [n for n in z.namelist() if n.endswith(".sgf")][:40]
        for name in names:
            game = sgf.Sgf_game.from_bytes(z.read(name))
            board, sgf_board = Board(game.get_size()), boards.Board(game.get_size())
            last = before = ko = None
            for node in game.get_main_sequence()[1:9]:
                keeps = reference_symmetries(sgf_board, [p for p in (last, before, ko) if p is not None])
                for r in range(board.size):
                    for c in range(board.size):
                        if board.get((r, c)) is None:
                            want = len({f(r, c) for f in keeps})
                            assert board.equivalent_points((r, c)) == want, (name, r, c)
                            checked += 1
                            symmetric += want > 1
                colour, point = node.get_move()
                board.play(colour, point)
                ko = sgf_board.play(*point, colour) if point is not None else None
                before, last = last, point
    assert checked > 100_000 and symmetric > 1000


def test_a_symmetric_board_whose_last_moves_are_not_kept_has_none() -> None:
    """Black C3 and C7, White G7 and G3: the board is kept by the mirror through the fifth
    column, but White's last move G3 is not."""
    board, sgf_board, last, before = Board(9), boards.Board(9), None, None
    for move in [(2, 2), (6, 6), (2, 6), (6, 2)]:
        colour = "b" if board.moves_played % 2 == 0 else "w"
        board.play(colour, move)
        sgf_board.play(*move, colour)
        before, last = last, move
    for r in range(9):
        for c in range(9):
            if board.get((r, c)) is None:
                keeps = reference_symmetries(sgf_board, [last, before])
                assert board.equivalent_points((r, c)) == len({f(r, c) for f in keeps}) == 1


def test_evaluate_counts_the_four_4_4_points_as_one_move(tmp_path) -> None:
    """The bundled table ranks the four 4-4 points first and alike on the empty board; a
    game opening on one of them has its first move ranked 1, not 4."""
    knowledge = Knowledge.load()
    p = knowledge.probabilities(Board(19), "b")
    corners = [p.of(q) for q in [(3, 3), (3, 15), (15, 3), (15, 15)]]
    assert len(set(corners)) == 1 and corners[0] == p.points.max()
    assert p.rank((15, 15)) == 4 and p.rank((15, 15), Board(19).equivalent_points((15, 15))) == 1
    game = tmp_path / "g.sgf"
    game.write_text("(;GM[1]FF[4]SZ[19];B[pd];W[dd];B[pq];W[dp])")  # Q16, D16, Q3, D4
    corpus = load_corpus([str(game)], split="all")
    teams = build_teams(corpus, knowledge.vocabulary, np.ones(corpus.n_positions, dtype=bool))
    # Q16 is one of four; D16 one of two (Q4 across the diagonal through Q16); then none
    assert list(teams.images) == [4, 2, 1, 1]
    report = evaluate_teams(teams, knowledge.gamma, knowledge.latent)
    firsts = [knowledge.probabilities(b, colour).rank(q, b.equivalent_points(q)) == 1
              for b, colour, q, _ in replayed_positions(corpus)]
    assert firsts[0] and report["top1"] == pytest.approx(sum(firsts) / 4)

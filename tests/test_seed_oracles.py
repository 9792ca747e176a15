"""The package's seed algorithms against tests/seed_oracles.py, which is written from the
seeds' text alone: PPA as course 004 writes it and the paper's form, adapt_simple,
Figure 1's shapes as the caption conditions them, MoGo's expert values, fill-board,
progressive widening and Cazenave 2009's NMCS (the formulas of the tree's selection are
in tests/test_seed_formulas.py)."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest
import seed_oracles as so
from shapemill.engine.search.expert import shape_amaf
from shapemill.engine.search.figure1 import FIGURE1, figure1_shapes
from shapemill.engine.search import Search, SearchConfig
from shapemill.engine.playouts.nmcs import OwnMoves, nmcs
from shapemill.engine.playouts.gamma import ppa_update, ppa_weights
from shapemill.engine.playouts.mogo import fill_board_move
from shapemill.engine.playouts.ppa import adapt_simple, ppa_course_update, ppa_playout
from shapemill.engine.playouts.random import playout_moves
from shapemill.engine.search.selection import FIRST, NCHILD, N_FIELDS, N_NODE_INTS, PROB, PVISITS, PWINS, VISITS, WINS, \
    select_child
from shapemill.go import rules
from shapemill.go.board import Board
from shapemill.go.vertices import flat_index, row_col
from test_playout import seed


@pytest.mark.parametrize("name", sorted(so.HAND))
def test_each_oracle_gives_its_value_worked_by_hand(name):
    assert so.hand_agrees(name), (name, so.HAND[name])


def test_the_seed_oracles_import_nothing_from_the_package():
    tree = ast.parse(Path(so.__file__).read_text())
    imported = {a.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module and node.level == 0}
    assert imported <= {"__future__", "math", "typing"}, imported
    assert not any(isinstance(node, ast.ImportFrom) and node.level for node in ast.walk(tree))


def three_empty_points() -> tuple[Board, list[int]]:
    """tests/test_ppa.py's position: a 5x5 board full of Black but three points in a row on
    the top edge, Black's only moves."""
    board = Board(5)
    board.setup("b", [(r, c) for r in range(5) for c in range(5) if r > 0 or c > 2])
    return board, [flat_index((0, c), board.size) for c in range(3)]


@pytest.mark.parametrize("alpha", [0.5, 1.0])
def test_ppa_course_on_the_small_position(alpha):
    board, points = three_empty_points()
    weights = np.zeros((3, board.b.shape[1]))
    weights[rules.BLACK, points[1]] = math.log(2)
    ppa_course_update(board.b.copy(), board.m.copy(), rules.BLACK, np.array([points[1]]), 1, rules.BLACK,
                      weights, alpha)
    want = so.ppa_course({("b", 1): math.log(2)}, [("b", 1, (0, 1, 2))], "b", alpha)
    assert weights[rules.BLACK, points] == pytest.approx([want[("b", k)] for k in range(3)], abs=1e-12)
    hand = so.HAND["ppa-course" if alpha == 0.5 else "ppa-course-alpha1"][1]  # -0.094, ln 2 + 0.189, -0.094
    assert weights[rules.BLACK, points] == pytest.approx([hand[("b", k)] for k in range(3)], abs=5e-7)
    assert not weights[rules.WHITE].any()


def test_ppa_paper_form_on_the_small_position():
    # z from the policy before the update: the draw's probabilities 1/4, 1/2, 1/4 as the mass
    board, points = three_empty_points()
    adapt = ppa_weights(board.b.shape[1], 0.5)
    adapt.weights[rules.BLACK, points[1]] = math.log(2)
    adapt.mass[rules.BLACK, points] = [0.25, 0.5, 0.25]
    ppa_update(adapt, np.array([points[1]]), 1, rules.BLACK, rules.BLACK)
    want = so.ppa_course({("b", 1): math.log(2)}, [("b", 1, (0, 1, 2))], "b", 0.5, paper=True)
    assert adapt.weights[rules.BLACK, points] == pytest.approx([want[("b", k)] for k in range(3)], abs=1e-12)


def replayed_steps(board: Board, color: int, moves) -> list:
    """The playout ``moves`` (the first by ``color``) as the oracle reads them: (player,
    move, the position's playout moves) per step but the passes (drawn when there is no move),
    the position advanced move by move."""
    b, m = board.b.copy(), board.m.copy()
    cands = np.empty(b.shape[1], dtype=np.int64)
    steps = []
    for p in moves:
        k = playout_moves(b, m, color, cands)
        if p != rules.PASS:
            steps.append((color, int(p), [int(q) for q in cands[:k]]))
        rules.play(b, m, color, int(p))
        color = 3 - color
    return steps


@pytest.mark.parametrize("simple", [False, True])
def test_a_whole_ppa_playout_adapts_as_the_oracle(simple):
    # A 7x7 playout from a few stones, weights random at the start: the engine's adaptation
    # equals the oracle's replay of the same moves (course: every step; simple: integer bonuses).
    board = Board(7)
    board.setup("b", [(2, 2), (3, 4)])
    board.setup("w", [(4, 2), (2, 4)])
    rng = np.random.default_rng(5)
    adapt = ppa_weights(board.b.shape[1], 1.0)
    start = rng.integers(0, 120, size=adapt.weights.shape).astype(float) if simple else \
        rng.normal(0, 0.5, size=adapt.weights.shape)
    adapt.weights[:] = start
    moves = np.empty(3 * 49, dtype=np.int64)
    seed(3)
    score, n = ppa_playout(board.b.copy(), board.m.copy(), rules.BLACK, 7.5, moves, adapt, simple)
    assert n > 10
    winner = rules.BLACK if score > 0 else rules.WHITE
    steps = replayed_steps(board, rules.BLACK, moves[:n])
    if simple:
        want = start.copy()
        for player, p, _ in steps:
            if player == winner and p != rules.PASS:
                want[player, p] = so.adapt_simple(int(want[player, p]))
        assert np.array_equal(adapt.weights, want)
    else:
        before = {(c, p): start[c, p] for c in (1, 2) for p in range(start.shape[1])}
        after = so.ppa_course(before, steps, winner, 1.0)
        assert adapt.weights[1:] == pytest.approx(np.array([[after[(c, p)] for p in range(start.shape[1])]
                                                            for c in (1, 2)]), abs=1e-9)


def test_adapt_simple_by_hand():
    moves = np.array([11, 12, 13, 14, 15, 16])  # Black plays 11, 13, 15
    weights = np.zeros((3, 20))
    weights[rules.BLACK, [11, 13, 15]] = [0, 9, 100]
    weights[rules.WHITE, 12] = 5
    adapt_simple(moves, 6, rules.BLACK, rules.BLACK, weights)
    assert list(weights[rules.BLACK, [11, 13, 15]]) == [1, 11, 101] and weights[rules.WHITE, 12] == 5


def grid_of(board: Board) -> list[str]:
    chars = {rules.EMPTY: ".", rules.BLACK: "X", rules.WHITE: "O"}
    return ["".join(chars[int(board.b[rules.COLOR, flat_index((r, c), board.size)])] for c in range(board.size))
            for r in range(board.size)]


def engine_shapes(board: Board, color: int, point) -> set[str]:
    bits = figure1_shapes(board.b, board.m, color, flat_index(point, board.size))
    return {name for k, name in enumerate(FIGURE1) if bits & (1 << k)}


def test_figure1_shapes_equal_the_captions_on_random_positions():
    rng = np.random.default_rng(7)
    checked = {name: 0 for name in FIGURE1}
    for trial in range(60):
        board = Board(9)
        cells = rng.choice(3, size=(9, 9), p=[0.7, 0.15, 0.15])
        board.setup("b", [(r, c) for r in range(9) for c in range(9) if cells[r, c] == 1])
        board.setup("w", [(r, c) for r in range(9) for c in range(9) if cells[r, c] == 2])
        grid = grid_of(board)
        for color, own in ((rules.BLACK, "X"), (rules.WHITE, "O")):
            for r in range(9):
                for c in range(9):
                    if grid[r][c] == ".":
                        want = so.figure1_shapes(grid, r, c, own)
                        assert engine_shapes(board, color, (r, c)) == want, (grid, r, c, own)
                        for name in want:
                            checked[name] += 1
    assert min(checked.values()) > 20, checked  # every shape met often


# (the caption's condition, black, white, Black's move, the shape, whether it holds)
CAPTION = [
    ("hane: the white stone alone", [(9, 9)], [(9, 10)], (10, 10), "hane", True),
    ("hane: the white stone has a friend", [(9, 9)], [(9, 10), (8, 10)], (10, 10), "hane", False),
    ("bad kogeima: nothing around the cross", [(9, 9)], [], (10, 11), "bad_kogeima", True),
    ("bad kogeima: a black stone around the cross", [(9, 9), (11, 12)], [], (10, 11), "bad_kogeima", False),
    ("kogeima: no white stone between", [(9, 9)], [], (10, 11), "kogeima", True),
    ("kogeima: a white stone between", [(9, 9)], [(10, 10)], (10, 11), "kogeima", False),
    ("kosumi: no white stone between", [(9, 9)], [], (10, 10), "kosumi", True),
    ("kosumi: a white stone between", [(9, 9)], [(9, 10)], (10, 10), "kosumi", False),
    ("bad tobi: no black stone around the cross", [(9, 9)], [], (9, 11), "bad_tobi", True),
    ("bad tobi: a black stone around the cross", [(9, 9), (10, 12)], [], (9, 11), "bad_tobi", False),
    ("first line: the 5 points around empty", [], [(2, 9)], (0, 9), "line1_alone", True),
    ("first line: a stone among the 5", [], [(1, 10)], (0, 9), "line1_alone", False),
    ("third line: no condition", [(2, 10)], [(3, 9)], (2, 9), "line3", True),
]


@pytest.mark.parametrize("label, black, white, move, shape, holds", CAPTION, ids=[c[0] for c in CAPTION])
def test_figure1_caption_conditions(label, black, white, move, shape, holds):
    board = Board(19)
    board.setup("b", black)
    board.setup("w", white)
    grid = grid_of(board)
    assert (shape in so.figure1_shapes(grid, *move)) == holds
    assert (shape in engine_shapes(board, rules.BLACK, move)) == holds
    # colours swapped for White
    swapped = Board(19)
    swapped.setup("w", black)
    swapped.setup("b", white)
    assert (shape in engine_shapes(swapped, rules.WHITE, move)) == holds


def test_expert_mogo_gives_section_4s_values_to_figure_1s_shapes():
    # a third-line move next to stones still counts (the caption states no condition); a lone
    # first-line move loses, one beside a stone does not; a bad kogeima loses 2.5; kosumi none.
    cases = [([(2, 10)], [(3, 9)], (2, 9), ["line3"]),
             ([], [(2, 9)], (0, 9), ["line1_alone"]),
             ([], [(1, 10)], (0, 9), []),
             ([(9, 9)], [(10, 10)], (10, 11), ["bad_kogeima"]),
             ([(9, 9)], [], (10, 10), [])]
    for black, white, move, shapes in cases:
        board = Board(19)
        board.setup("b", black)
        board.setup("w", white)
        visits, wins = np.zeros(1), np.zeros(1)
        shape_amaf(board.b, board.m, rules.BLACK, np.array([flat_index(move, 19)]), visits, wins, True)
        want = (sum(so.MOGO_EXPERT[s][0] for s in shapes), sum(so.MOGO_EXPERT[s][1] for s in shapes))
        assert (visits[0], wins[0]) == pytest.approx(want), (black, white, move)


def test_expert_mogo_features_keeps_the_miners_definitions():
    # --expert mogo-features (the form before issue 48): a third-line move next to stones is no
    # line3 feature (the miner asks an empty 5x5 square), where the caption's third line counts.
    board = Board(19)
    board.setup("b", [(2, 10)])
    board.setup("w", [(3, 9)])
    move = np.array([flat_index((2, 9), 19)])
    visits, wins = np.zeros(1), np.zeros(1)
    shape_amaf(board.b, board.m, rules.BLACK, move, visits, wins, False)
    assert (visits[0], wins[0]) == (0.0, 0.0)
    shape_amaf(board.b, board.m, rules.BLACK, move, visits, wins, True)
    assert (visits[0], wins[0]) == pytest.approx(so.MOGO_EXPERT["line3"])


def test_fill_board_draws_points_whose_3x3_block_is_empty():
    board = Board(9)
    board.setup("b", [(2, 2), (6, 5), (4, 7)])
    board.setup("w", [(5, 1), (1, 6)])
    allowed = so.fill_board_points(grid_of(board))
    seed(4)
    drawn = set()
    for _ in range(400):
        p = fill_board_move(board.b, board.m, rules.BLACK)
        if p != rules.PASS:
            drawn.add(row_col(p, board.size + 2))
    assert drawn and drawn <= allowed and len(drawn) > len(allowed) // 2


def test_progressive_widening_searches_only_the_k_best_by_prior():
    # Five children sorted by prior, as expansion leaves them, each valued above the one before. With
    # widen 2, K(N) = 2 + floor(ln(N + 1) / ln 2) (docs/search.md): 2 children at N = 0, 5 at N = 7.
    priors = [0.4, 0.3, 0.15, 0.1, 0.05]
    t = np.zeros((N_NODE_INTS, 6), dtype=np.int64)
    t[FIRST] = -1
    t[FIRST, 0], t[NCHILD, 0] = 1, 5
    f = np.zeros((1, N_FIELDS, 6))
    for c, (prob, won) in enumerate(zip(priors, (1, 2, 3, 4, 9)), start=1):
        f[0, VISITS, c], f[0, WINS, c], f[0, PVISITS, c], f[0, PWINS, c], f[0, PROB, c] = 10, won, 10, 5, prob
    for parent, k in ((0, 2), (3, 4), (7, 5)):
        f[0, VISITS, 0] = parent
        sel, _ = Search(SearchConfig(widen=2.0, bandit="ucb1", c_ucb=0.0)).records(9, tree_prior=False)
        allowed = so.widened(priors, k)
        chosen = select_child(0, t, f, sel) - 1
        assert chosen in allowed and chosen == max(allowed)  # the last allowed has the best value


def test_nmcs_follows_the_memorised_sequence_as_the_oracle():
    # The hand-worked example: the step's own argmax would play L at step 2 (LLL 4); the best
    # sequence found, LRR (10), is followed.
    game = so.ScriptedGame("RRLLLL")
    assert nmcs(game, "", 1) == so.HAND["nmcs"][1]
    game = so.ScriptedGame("RRLLLL")
    assert so.nmcs(game.moves, game.play, game.score, game.playout, "", 1) == (10, ["L", "R", "R"])


def test_nmcs_of_own_moves_finds_the_best_two_moves_in_a_row():
    # Black's two moves in a row on a 5x5 board: level 2 over length 2 tries every pair, so it
    # finds the best area a brute force over the pairs finds (capturing White's two stones).
    board = Board(5)
    board.setup("b", [(1, 1), (1, 2), (2, 0), (3, 1)])
    board.setup("w", [(2, 1), (2, 2), (3, 2)])
    game = OwnMoves(board, rules.BLACK, 2)
    best = -math.inf
    for p in game.moves(game.start):
        s1 = game.play(game.start, p)
        for q in game.moves(s1):
            best = max(best, game.score(game.play(s1, q)))
    seed(2)
    score, played = nmcs(game, game.start, 2)
    assert score == best and len(played) == 2
    state = game.start
    for p in played:
        state = game.play(state, p)
    assert game.score(state) == score

"""The seed options in the search: leaf parallelism, MoGo's expert knowledge as virtual
AMAF results at expansion, the playout policies of the seed's order and nested
playouts, each selectable in ``gtp``."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from shapemill.engine.search.expert import NEAR_LAST_HALF, near_last_bonus, shape_amaf
from shapemill.engine.search import Search, SearchConfig
from shapemill.engine.search.selection import AVISITS, AWINS, MOVE, NEAR, VISITS, child_score
from shapemill.go import rules
from shapemill.go.board import Board
from shapemill.go.vertices import flat_index


def capturing_race() -> Board:
    """tests/test_mcts.py's race: whoever plays G5 (4, 6) captures and wins at komi 20.5."""
    board = Board(9)
    board.setup("b", [(r, 4) for r in range(9)] + [(r, 6) for r in range(9) if r != 4])
    board.setup("w", [(r, 5) for r in range(9)] + [(r, 7) for r in range(9)]
                + [(r, 8) for r in range(9) if r not in (1, 6)])
    return board


def test_leaf_parallelism_adds_each_leafs_playouts_together():
    board = capturing_race()
    result = Search(SearchConfig(playouts=2000, seed=1, komi=20.5, threads=2, parallel="leaf")).run(board,
                                                                                                    rules.BLACK)
    assert result.playouts == 2000 and result.visits.sum() == 2000
    assert not (result.visits % 2).any()  # every simulation brought its leaf's two playouts back together
    assert result.move == flat_index((4, 6), board.size)


def test_leaf_parallelism_refuses_ppa():
    with pytest.raises(ValueError, match="ppa"):
        Search(SearchConfig(threads=2, parallel="leaf", playout_policy="ppa", gammas=np.ones((1, 1))))


@pytest.mark.parametrize("expert, figure1", [("mogo", True), ("mogo-features", False)])
def test_expert_mogo_gives_the_children_the_shapes_amaf_and_the_near_bonus(expert, figure1):
    board = Board(9)
    for color, point in (("b", (4, 4)), ("w", (4, 5)), ("b", (2, 2))):
        board.play(color, point)
    search = Search(SearchConfig(playouts=1, seed=3, expert=expert, rave=False, bandit="ucb1"))
    search.run(board, rules.WHITE)  # without RAVE no playout adds AMAF results: only the virtual ones
    tree = search.trees[0]
    kids = tree.children(tree.root)
    moves = tree.t[MOVE, kids].astype(np.int64)
    visits, wins, bonus = np.zeros(len(kids)), np.zeros(len(kids)), np.zeros(len(kids))
    shape_amaf(board.b, board.m, rules.WHITE, moves, visits, wins, figure1)
    near_last_bonus(board.b, board.m, moves, bonus)
    assert visits.any() and bonus.any()
    assert np.array_equal(tree.f[:, AVISITS, kids].sum(axis=0), visits)
    assert np.array_equal(tree.f[:, AWINS, kids].sum(axis=0), wins)
    assert np.array_equal(tree.f[0, NEAR, kids], bonus)


def test_the_near_bonus_enters_the_score_and_fades_with_the_nodes_simulations():
    search = Search(SearchConfig(playouts=1, seed=3, expert="mogo", rave=False, bandit="ucb1"))
    board = Board(9)
    board.play("b", (4, 4))
    search.run(board, rules.WHITE)
    tree = search.trees[0]
    kid = int(tree.children(tree.root)[0])
    tree.f[0, NEAR, kid] = 0.1
    params = search.records(9, tree_prior=False)[0]
    off = Search(SearchConfig(rave=False, bandit="ucb1")).records(9, tree_prior=False)[0]
    for n in (0.0, 100.0, 10_000.0):
        tree.f[:, VISITS, tree.root] = 0.0
        tree.f[0, VISITS, tree.root] = n
        gain = child_score(tree.root, kid, tree.t, tree.f, params) - child_score(tree.root, kid, tree.t, tree.f, off)
        assert gain == pytest.approx(0.1 * NEAR_LAST_HALF / (NEAR_LAST_HALF + n), rel=1e-12)


@pytest.mark.parametrize("policy, playouts", [("mogo", 1500), ("nested1", 200)])
def test_the_seed_playouts_find_the_capture(policy, playouts):
    board = capturing_race()
    result = Search(SearchConfig(playouts=playouts, seed=1, komi=20.5, playout_policy=policy)).run(board, rules.BLACK)
    assert result.move == flat_index((4, 6), board.size)


def test_a_nested_search_by_time_stops_after_the_simulation_that_outlasts_it():
    # a level-2 nested playout of 9x9 takes seconds: a search given a millisecond plays one
    # simulation, then sees its clock (not a batch of 64 first, minutes past its time)
    result = Search(SearchConfig(time_per_move=1e-3, playout_policy="nested2", seed=1)).run(Board(9), rules.BLACK)
    assert result.playouts == 1


@pytest.mark.parametrize("options", [
    ["--playout-policy", "nested2", "--playouts", "4", "--size", "5"],
    ["--playout-policy", "mogo", "--expert", "mogo", "--prior-mode", "mogo", "--bandit", "tuned2"],
    ["--parallel", "leaf", "--threads", "2", "--prior-mode", "puct", "--bandit", "ucb1"],
    ["--rave-equiv", "1000", "--expand-at", "4"],
])
def test_gtp_takes_the_seed_options(options):
    out = subprocess.run([sys.executable, "-m", "shapemill.cli", "gtp", "--size", "9", "--playouts", "50", *options],
                         input="1 protocol_version\n2 genmove b\n3 quit\n", capture_output=True, text=True,
                         timeout=300)
    if out.returncode != 0 and "No module named shapemill.cli" in out.stderr:
        pytest.skip("shapemill is not installed as a package")
    blocks = out.stdout.split("\n\n")
    assert blocks[0] == "=1 2" and blocks[1].startswith("=2 ") and blocks[2] == "=3", out.stderr

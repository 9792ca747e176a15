"""The MoGo playout policy and the MCTS: tactics, determinism, speed sanity."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from shapemill.engine.frontends.gtp import GtpEngine
from shapemill.engine.search import Search, SearchConfig, choose_move
from shapemill.engine.playouts.mogo import PATTERNS, mogo_playout, nakade_point, run_mogo_playouts
from shapemill.engine.search.selection import MOVE
from shapemill.go import rules
from shapemill.go.board import Board
from shapemill.go.vertices import flat_index, point_at


def board_with(size: int, black: list[tuple[int, int]], white: list[tuple[int, int]]) -> Board:
    board = Board(size)
    board.setup("b", black)
    board.setup("w", white)
    return board


def best_move(board: Board, color: int, playouts: int = 2000, seed: int = 1,
              komi: float = 7.5, **config) -> tuple[int, int] | None:
    result = Search(SearchConfig(playouts=playouts, seed=seed, komi=komi, **config)).run(board, color)
    return None if result.move == rules.PASS else point_at(int(result.move), board.size)


def test_pattern_table_is_colour_symmetric():
    codes = np.flatnonzero(PATTERNS)
    assert 0 < len(codes) < len(PATTERNS)
    swap = np.array([0, 2, 1, 3])
    for code in codes[:500]:
        cells = [(code >> (2 * k)) & 3 for k in range(8)]
        swapped = sum(int(swap[c]) << (2 * k) for k, c in enumerate(cells))
        assert PATTERNS[swapped]


def test_mogo_playout_ends_with_a_score():
    b, m = rules.new_board(9)
    moves = np.empty(3 * 81, dtype=np.int64)
    score, n = mogo_playout(b, m, rules.BLACK, 7.5, moves, True)
    assert 0 < n <= 243 and abs(score) <= 81 + 7.5
    assert 0.0 <= run_mogo_playouts(9, 50, 7.5, 3, True) <= 1.0


def test_nakade_rule_plays_the_vital_point():
    # White closes a straight three (0,0)-(0,2) in the corner: (0,1) is vital.
    board = board_with(9, [(0, 4), (1, 4), (2, 0), (2, 1), (2, 2), (2, 3), (2, 4)],
                       [(1, 0), (1, 1), (1, 2), (1, 3)])
    board.play("w", (0, 3))
    assert nakade_point(board.b, board.m, rules.BLACK, False) == flat_index((0, 1), board.size)


def capturing_race() -> Board:
    """White's column F and Black's two strings on column G each have the one
    liberty G5 (4, 6): whoever plays there captures. White's right side lives with
    two eyes. Black is 24.5 ahead after capturing and 11.5 behind after being
    captured at komi 20.5, so the capture decides the game for either side."""
    return board_with(9, [(r, 4) for r in range(9)] + [(r, 6) for r in range(9) if r != 4],
                      [(r, 5) for r in range(9)] + [(r, 7) for r in range(9)]
                      + [(r, 8) for r in range(9) if r not in (1, 6)])


# Tactical positions are ones where the tactic decides the game: in a position that
# one side wins anyway, a win-rate search rightly ignores a move that changes no result.

@pytest.mark.parametrize("color", [rules.BLACK, rules.WHITE])
def test_both_sides_capture_to_win_the_race(color):
    assert best_move(capturing_race(), color, komi=20.5) == (4, 6)


@pytest.mark.parametrize("color", [rules.BLACK, rules.WHITE])
def test_black_saves_its_string_in_atari_and_white_captures_it(color):
    # Black's two stones G5-H5 inside White's living right side have the one
    # liberty F5 (4, 5), next to Black's wall: there Black connects them, White
    # captures them. Black wins by 2.5 after saving, loses by 3.5 after the
    # capture (komi 12.5).
    white = [(r, c) for r in range(9) for c in range(5, 9)
             if (r, c) not in ((4, 5), (4, 6), (4, 7), (1, 7), (6, 7))]
    board = board_with(9, [(r, 4) for r in range(9)] + [(4, 6), (4, 7)], white)
    assert best_move(board, color, komi=12.5) == (4, 5)


@pytest.mark.parametrize("color", [rules.BLACK, rules.WHITE])
def test_both_sides_play_the_nakade_vital_point(color):
    # White's corner group has a straight three (0,0)-(0,2) inside Black's wall; the
    # rest of the board is split by two walls. With White alive Black is 11 points
    # ahead, with it dead 27: at komi 19.5 the corner decides the game, so Black must
    # kill at the vital point (0,1) and White must live there.
    board = board_with(9, [(r, 5) for r in range(9)] + [(0, 4), (1, 4), (2, 0), (2, 1), (2, 2), (2, 3), (2, 4)],
                       [(r, 6) for r in range(9)] + [(0, 3), (1, 0), (1, 1), (1, 2), (1, 3)])
    assert best_move(board, color, komi=19.5) == (0, 1)


def test_same_seed_same_move():
    board = Board(9)
    for color, point in (("b", (4, 4)), ("w", (2, 6)), ("b", (6, 2))):
        board.play(color, point)
    first = Search(SearchConfig(playouts=800, seed=7)).run(board, rules.WHITE)
    second = Search(SearchConfig(playouts=800, seed=7)).run(board, rules.WHITE)
    assert first.move == second.move
    assert np.array_equal(first.visits, second.visits)


def test_two_threads_grow_two_trees_and_still_capture():
    board = capturing_race()
    search = Search(SearchConfig(playouts=4000, seed=1, komi=20.5, threads=2))
    result = search.run(board, rules.BLACK)
    assert result.per_thread == [2000, 2000] and result.visits.sum() == 4000
    assert result.move == flat_index((4, 6), board.size)
    again = Search(SearchConfig(playouts=4000, seed=1, komi=20.5, threads=2)).run(board, rules.BLACK)
    assert np.array_equal(result.visits, again.visits)  # each thread's stream is seeded


def test_tree_parallelism_grows_one_tree_whose_visits_add_up_to_the_playouts():
    board = capturing_race()
    search = Search(SearchConfig(playouts=4000, seed=1, komi=20.5, threads=2, parallel="tree"))
    result = search.run(board, rules.BLACK)
    assert len(search.trees) == 1 and search.trees[0].f.shape[0] == 2
    assert sum(result.per_thread) == 4000 and result.visits.sum() == 4000
    assert result.move == flat_index((4, 6), board.size)
    tree = search.trees[0]
    assert np.all(tree.pool[:, 0] > tree.bounds[:, 0])  # both threads added nodes, each in its own share
    assert np.all(tree.pool[:, 0] <= tree.bounds[:, 1])


def test_one_thread_gives_the_same_move_for_a_seed_whatever_the_parallelism():
    board = Board(9)
    board.play("b", (4, 4))
    runs = [Search(SearchConfig(playouts=600, seed=5, parallel=mode)).run(board, rules.WHITE)
            for mode in ("root", "tree", "tree")]
    assert runs[0].move == runs[1].move == runs[2].move
    assert np.array_equal(runs[0].visits, runs[1].visits) and np.array_equal(runs[1].visits, runs[2].visits)


def test_passes_when_opponent_passed_and_game_is_won():
    # Two walls: Black has columns 0-4, White 6-8; Black wins by 10.5 as it stands.
    board = Board(9)
    board.setup("b", [(r, 4) for r in range(9)])
    board.setup("w", [(r, 6) for r in range(9)])
    board.play("b", (0, 0))
    board.play("w", None)
    result = choose_move(Search(SearchConfig(playouts=300, seed=1)), board, rules.BLACK, opponent_passed=True)
    assert board.score(7.5) > 0 and result.move == rules.PASS


def test_ratings_priors_reach_the_nodes_below_the_root():
    """With the table's knowledge, a grandchild's prior is the table's strength of its
    move in its own position, normalised over its siblings; without, uniform."""
    from shapemill.engine.search.selection import FIRST, MOVE, NCHILD, PROB
    from shapemill.patterns.prior import MovePrior
    from shapemill.patterns.defaults import RATINGS, default_table

    prior = MovePrior(default_table(RATINGS))
    board = Board(9)
    board.play("b", (4, 4))
    for knowledge in (prior.knowledge(9), None):
        search = Search(SearchConfig(playouts=300, seed=1))
        search.run(board, rules.WHITE, prior(board.b, board.m, rules.WHITE), knowledge)
        tree = search.trees[0]
        first, k = tree.t[FIRST, tree.root], tree.t[NCHILD, tree.root]
        child = next(c for c in range(first, first + k) if tree.t[FIRST, c] >= 0)
        after = board.copy()
        after.play("w", point_at(int(tree.t[MOVE, child]), board.size))
        kids = np.arange(tree.t[FIRST, child], tree.t[FIRST, child] + tree.t[NCHILD, child])
        strength = prior(after.b, after.m, rules.BLACK)[tree.t[MOVE, kids]]
        expected = strength / strength.sum() if knowledge is not None else np.full(len(kids), 1 / len(kids))
        assert np.allclose(tree.f[0, PROB, kids], expected)
        assert (knowledge is None) == np.allclose(expected, expected[0])


def _answers_within(seconds: float, work) -> bool:
    """Whether ``work()`` returns within ``seconds`` (run in a daemon thread, so a
    search that never ends fails the test instead of hanging the suite)."""
    done = threading.Event()
    threading.Thread(target=lambda: (work(), done.set()), daemon=True).start()
    return done.wait(seconds)


@pytest.mark.parametrize("policy", ["mogo", "mogo-local", "nested2", "random"])
@pytest.mark.parametrize("size", [2, 3, 4])
def test_timed_and_counted_searches_on_tiny_boards_end(size, policy):
    Search(SearchConfig(playouts=1, playout_policy=policy)).run(Board(5), rules.BLACK)  # compile outside the deadline
    engine = GtpEngine(SearchConfig(playouts=3, seed=1, playout_policy=policy), size=size)
    for line in ("play b B2", "time_settings 1 0.1 1"):  # issue 19's report on 3x3
        assert engine.handle(line)[0] == "=\n\n"
    answers = []
    assert _answers_within(60, lambda: answers.append(engine.handle("genmove w")[0]))
    assert answers[0].startswith("= ")
    board = Board(size)
    result = []
    assert _answers_within(60, lambda: result.append(Search(SearchConfig(playouts=500, playout_policy=policy)).run(
        board, rules.BLACK)))
    assert result[0].playouts == 500


def _root_moves(search: Search, board: Board) -> list[tuple[int, int]]:
    """The points the search's root offers, as ``(row, col)``."""
    tree = search.trees[0]
    return [point_at(int(p), board.size) for p in tree.t[MOVE, tree.children(tree.root)]]


# A 4x4 self-play game (mogo-local playouts, 100 a move, seed 5) whose 12th genmove was
# White's superko (0, 2): a root reused from the previous tree kept a child the
# position's history forbids.
SUPERKO_GAME = ["C2", "B3", "C3", "B2", "B4", "C1", "D2", "A2", "A1", "D1", "B1"]


def test_every_genmove_of_a_4x4_self_play_game_is_legal():
    engine = GtpEngine(SearchConfig(playouts=100, seed=5, playout_policy="mogo-local"), size=4)
    answers = []
    for i in range(40):
        color = "bw"[i % 2]
        answers.append(engine.handle(f"genmove {color}")[0].strip())
        assert answers[-1].startswith("= "), answers  # an illegal choice fails the engine's own play
        if answers[-1] == "= resign" or answers[-2:] == ["= pass", "= pass"]:
            break
    assert [a[2:] for a in answers[:len(SUPERKO_GAME)]] == SUPERKO_GAME


def test_a_reused_root_offers_only_moves_legal_under_superko():
    search = Search(SearchConfig(playouts=100, seed=5, playout_policy="mogo-local"))
    board = Board(4)
    for i, vertex in enumerate(SUPERKO_GAME + [None]):
        color = "bw"[i % 2]
        search.run(board, rules.BLACK if color == "b" else rules.WHITE)
        offered = _root_moves(search, board)
        assert offered and all(board.is_legal(color, p) for p in offered), (i, offered)
        if 0 < i < len(SUPERKO_GAME):  # the played moves' subtrees, free of superko, are still reused
            assert search.trees[0].root != 0, i
        if vertex is not None:
            board.play(color, (int(vertex[1:]) - 1, "ABCD".index(vertex[0])))


def test_a_root_reused_for_the_same_stones_follows_the_ko_point():
    # White (1, 1) in atari; Black's capture at (1, 2) makes a ko that White may not retake at once.
    black, white = [(0, 1), (2, 1), (1, 0)], [(0, 2), (2, 2), (1, 3)]
    game = board_with(5, black, white + [(1, 1)])
    game.play("b", (1, 2))
    set_up = board_with(5, black + [(1, 2)], white)  # the same stones, no ko
    assert game.zobrist == set_up.zobrist and game.ko == (1, 1) and set_up.ko is None
    search = Search(SearchConfig(playouts=50, seed=1))
    search.run(set_up, rules.WHITE)
    assert (1, 1) in _root_moves(search, set_up)  # the capture, legal without the ko
    search.run(game, rules.WHITE)
    offered = _root_moves(search, game)
    assert offered and all(game.is_legal("w", p) for p in offered), offered
    search.run(set_up, rules.WHITE)
    assert (1, 1) in _root_moves(search, set_up)


def test_a_timed_search_ends_once_the_rest_of_its_time_could_not_change_the_move():
    """A root whose most visited move leads the next by L visits is settled when fewer
    than L playouts remain; a root with no choice is settled at once, so a timed
    search there takes one simulation, not its seconds; a search by playouts runs them all."""
    board = Board(9)
    board.play("b", (4, 4))
    search = Search(SearchConfig(playouts=640, seed=1))
    result = search.run(board, rules.WHITE)
    second, first = np.sort(result.visits)[-2:]
    tree = search.trees[0]
    assert tree.settled(first - second - 1) and not tree.settled(first - second)
    assert result.playouts == 640
    no_choice = board_with(2, [(0, 0), (1, 1)], [])  # White may only pass
    timed = Search(SearchConfig(time_per_move=5.0, seed=1)).run(no_choice, rules.WHITE)
    assert timed.move == rules.PASS and timed.playouts == 1 and timed.seconds < 2.5

"""The table's priors in the tree made cheap: the pattern cache, the largest ring, and
priors given after a node's expansion equal the exact ones computed at once."""

from __future__ import annotations

import numpy as np
import pytest
from shapemill.engine.search import Search, SearchConfig
from shapemill.engine.search.tree_priors import add_table_prior
from shapemill.engine.search.walk import ChildPriors, expand
from shapemill.engine.search.selection import (
    FIRST,
    KNOWN,
    MOVE,
    N_FIELDS,
    N_NODE_INTS,
    NCHILD,
    PROB,
    PVISITS,
    PWINS,
    VISITS,
)
from shapemill.go import rules
from shapemill.go.board import Board
from shapemill.go.rings import geometry, gridcular_distance
from shapemill.go.vertices import flat_index, point_at
from shapemill.patterns.prior import MovePrior, move_strengths, position_key, prior_cache
from shapemill.patterns.defaults import RATINGS, default_table


@pytest.fixture(scope="module")
def prior() -> MovePrior:
    return MovePrior(default_table(RATINGS))


def game(size: int, moves: list[tuple[int, int]]) -> list[Board]:
    """The positions of a game, one after each move (Black first)."""
    board, out = Board(size), []
    for i, point in enumerate(moves):
        board.play("b" if i % 2 == 0 else "w", point)
        out.append(board.copy())
    return out


MOVES = [(2, 2), (6, 6), (2, 6), (6, 2), (4, 4), (3, 3), (3, 2), (4, 3), (5, 4), (2, 4), (3, 4)]


def strengths(board: Board, color: int, knowledge: tuple, cache: tuple) -> np.ndarray:
    out = np.zeros(board.b.shape[1])
    move_strengths(board.b, board.m, color, knowledge, out, cache, 0)
    return out


def test_cached_strengths_equal_a_fresh_read(prior):
    """Every position read twice through one cache (the second read hits it) gives the
    strengths of a fresh read, for both colours; and the same stones reached by other
    last moves (a transposition: the patterns hit, the distances differ) too."""
    knowledge = prior.knowledge(9)
    cache = prior_cache(121)
    for board in game(9, MOVES):
        for color in (rules.BLACK, rules.WHITE):
            fresh = strengths(board, color, knowledge, prior_cache(121))
            assert fresh.max() > 0
            assert np.array_equal(strengths(board, color, knowledge, cache), fresh)
            assert np.array_equal(strengths(board, color, knowledge, cache), fresh)
    swapped = MOVES[:-3] + [MOVES[-1], MOVES[-2], MOVES[-3]]  # the same stones, other last moves
    other = game(9, swapped)[-1]
    assert other.zobrist == game(9, MOVES)[-1].zobrist
    fresh = strengths(other, rules.WHITE, knowledge, prior_cache(121))
    assert np.array_equal(strengths(other, rules.WHITE, knowledge, cache), fresh)
    assert not np.array_equal(fresh, strengths(game(9, MOVES)[-1], rules.WHITE, knowledge, prior_cache(121)))


def test_rings_past_the_tables_largest_are_not_read_and_change_nothing(prior):
    knowledge = prior.knowledge(9)
    largest = int(prior.model[0].pattern_rings.max())
    assert knowledge.max_ring == min(geometry(9).max_ring, largest)
    every_ring = knowledge._replace(max_ring=geometry(9).max_ring)
    for board in game(9, MOVES):
        assert np.array_equal(strengths(board, rules.BLACK, knowledge, prior_cache(121)),
                              strengths(board, rules.BLACK, every_ring, prior_cache(121)))


def test_priors_given_after_expansion_equal_those_given_at_expansion(prior):
    """A node expanded with the uniform prior and given the table's later ends with the
    children's virtual visits, wins and probabilities of a node expanded with the table's."""
    board = game(9, MOVES)[-1]
    strength = prior(board.b, board.m, rules.WHITE)
    _, settings = Search(SearchConfig()).records(9, tree_prior=True)
    w = board.size + 2
    trees = []
    for late in (False, True):
        t, f = np.zeros((N_NODE_INTS, 200), dtype=np.int64), np.zeros((1, N_FIELDS, 200))
        t[FIRST, 0] = -1
        kids = ChildPriors(prior=np.ones(w * w) if late else strength, allowed=np.ones(w * w, dtype=np.bool_),
                           prior_n=settings.prior_n, by_prob=False, known=not late, table=not late, expert=0)
        expand(board.b, board.m, rules.WHITE, 0, t, f, 1, 200, kids)
        assert t[KNOWN, 0] == (not late)
        if late:
            add_table_prior(0, t, f, strength, settings.prior_n)
        kids = np.arange(t[FIRST, 0], t[FIRST, 0] + t[NCHILD, 0])
        order = np.argsort(t[MOVE, kids])
        trees.append((t[MOVE, kids][order], f[0][:, kids][:, order]))
        assert t[KNOWN, 0] == 1
    assert np.array_equal(trees[0][0], trees[1][0])
    for field in (PVISITS, PWINS, PROB):
        assert np.allclose(trees[0][1][field], trees[1][1][field])
    assert not np.allclose(trees[0][1][PROB], trees[0][1][PROB][0])


def test_nodes_get_the_tables_priors_once_they_have_the_visits(prior):
    board = game(9, MOVES[:4])[-1]
    search = Search(SearchConfig(playouts=600, seed=3, prior_visits=8))
    search.run(board, rules.BLACK, prior(board.b, board.m, rules.BLACK), prior.knowledge(9))
    tree = search.trees[0]
    expanded = np.flatnonzero(tree.t[FIRST, 1:tree.pool[0, 0]] >= 0) + 1
    known = tree.t[KNOWN, expanded] == 1
    visits = tree.f[0, VISITS, expanded]
    assert known.any() and (~known).any()
    assert np.all(visits[~known] < 8) and np.all(visits[known] >= 7)
    for node in expanded[~known]:
        kids = tree.children(node)
        assert np.allclose(tree.f[0, PROB, kids], 1 / len(kids))


def drawn_game(prior: MovePrior, size: int, moves: int, seed: int) -> list[Board]:
    """The positions of a game whose moves are drawn from the table's own strengths
    (strong-player shapes, captures among them), one after each move."""
    rng = np.random.default_rng(seed)
    board, out = Board(size), []
    for i in range(moves):
        color = rules.BLACK if i % 2 == 0 else rules.WHITE
        strength = prior(board.b, board.m, color)
        p = int(rng.choice(len(strength), p=strength / strength.sum()))
        board.play("b" if color == rules.BLACK else "w", point_at(p, size))
        out.append(board.copy())
    return out


def test_patterns_two_moves_on_are_read_again_only_where_the_moves_reach(prior):
    """The search reads a node's patterns with the position two moves up as the base: a
    point's pattern is taken from it when every stone that differs lies past the last
    ring read for the point. Along a 19x19 game the strengths so read equal a fresh
    read; and a base's pattern changed by hand shows where it was taken: at points the
    two moves cannot reach, never where they can."""
    knowledge = prior.knowledge(19)
    positions = drawn_game(prior, 19, 120, seed=3)
    points = positions[0].b.shape[1]
    captures = 0
    for before, after in zip(positions, positions[2:]):
        color = rules.WHITE if before.moves_played % 2 else rules.BLACK
        captures += len(before.stones("b") | before.stones("w")) + 2 != len(after.stones("b") | after.stones("w"))
        cache = prior_cache(points)
        strengths(before, color, knowledge, cache)
        out = np.zeros(points)
        move_strengths(after.b, after.m, color, knowledge, out, cache, position_key(before.m, color))
        assert np.array_equal(out, strengths(after, color, knowledge, prior_cache(points)))
    assert captures > 0
    before, after = positions[40], positions[42]
    cache = prior_cache(points)
    strengths(before, rules.BLACK, knowledge, cache)
    held = np.flatnonzero(cache.keys)[0]
    changed = [flat_index(q, 19) for q in (after.stones("b") | after.stones("w")) - (before.stones("b") | before.stones("w"))]
    far = [p for p in np.flatnonzero(cache.known[held] >= 0)
           if min(gridcular_distance(p, q, 21) for q in changed) > cache.reach[held, p]]
    near = [p for p in np.flatnonzero(cache.known[held] >= 0) if p not in far]
    assert far and near
    other = next(i for i in range(points) if i not in set(cache.known[held]))  # a pattern read nowhere here
    cache.known[held, far + near] = other
    out = np.zeros(points)
    move_strengths(after.b, after.m, rules.BLACK, knowledge, out, cache, position_key(before.m, rules.BLACK))
    slot = [s for s in np.flatnonzero(cache.keys) if s != held][0]
    legal = [p for p in far if out[p] > 0]
    assert legal and all(cache.known[slot, p] == other for p in legal)
    assert all(cache.known[slot, p] != other for p in near if out[p] > 0)

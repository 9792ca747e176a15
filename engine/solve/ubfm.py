"""Unbounded best-first minimax (Korf and Chickering 1996) with Monte-Carlo leaf values.

The tree grows one leaf at a time: from the root, each node descends to the child with the
best estimate for the side to move among those that can still change its value, and the
leaf reached gets all its children, each valued by the mean of a few random playouts
inside the region (``Problem.playout``). Estimates back up by minimax. Each node also
keeps exact bounds on Black's value (a move that decides the goal is exact, an unexpanded
position has the problem's whole range); the search ends when the root's bounds meet.
The tree is not a graph, so superko is exact: every node knows its own path.
"""

from __future__ import annotations

from ...go.rules import BLACK, HASH, PASS
from .game import OPEN, Problem, seed_playouts
from .table import OutOfBudget, Progress, Result, Search

#: Random playouts a new leaf is valued by.
PLAYOUTS = 8


class Node:
    """A tree node: its move, side to move, estimate and bounds on Black's value, children."""

    __slots__ = ("black", "children", "estimate", "hi", "lo", "move", "parent")

    def __init__(self, move: int, black: bool, parent: Node | None, lo: int, hi: int, estimate: float) -> None:
        self.move, self.black, self.parent = move, black, parent
        self.lo, self.hi, self.estimate = lo, hi, estimate
        self.children: list[Node] | None = None


def _relevant(node: Node) -> list[Node]:
    """The children whose value can still change the node's: not above what Black already
    has at Black's nodes, not below what White already concedes at White's."""
    if node.black:
        return [c for c in node.children if c.lo < c.hi and c.hi > node.lo]
    return [c for c in node.children if c.lo < c.hi and c.lo < node.hi]


def _update(node: Node) -> None:
    kids = node.children
    pick = max if node.black else min
    node.lo = pick(c.lo for c in kids)
    node.hi = pick(c.hi for c in kids)
    node.estimate = min(max(pick(c.estimate for c in kids), node.lo), node.hi)


def ubfm(problem: Problem, max_nodes: int = 1_000_000, seconds: float | None = None,
         progress: Progress | None = None, playouts: int = PLAYOUTS, seed: int = 1) -> Result:
    """Black's exact value by unbounded best-first minimax and the root's best move by the
    estimates; value None when the budget runs out first."""
    search = Search(max_nodes, seconds, progress)
    seed_playouts(seed)
    start = problem.root
    root = Node(PASS, start.color == BLACK, None, problem.lo, problem.hi, 0.0)
    try:
        while root.lo < root.hi:
            node, s = root, start
            path = {int(start.m[HASH]): 0}
            while node.children is not None:
                kids = _relevant(node)
                node = (max if node.black else min)(kids, key=lambda c: c.estimate)
                s = problem.child(s, node.move)
                if node.move != PASS:
                    path[int(s.m[HASH])] = len(path)
            search.visit()
            node.children = []
            moves, hashes, _, values = problem.expand(s)
            for mv, h, v in zip(moves.tolist(), hashes.tolist(), values.tolist()):
                if mv != PASS and h in path:
                    continue  # positional superko
                if v != OPEN:
                    node.children.append(Node(mv, not node.black, node, v, v, float(v)))
                    continue
                child = problem.child(s, mv)
                mean = sum(problem.playout(child) for _ in range(playouts)) / playouts
                node.children.append(Node(mv, not node.black, node, problem.lo, problem.hi, mean))
            while node is not None:
                _update(node)
                node = node.parent
    except OutOfBudget:
        return search.result(None, _best(root))
    return search.result(root.lo, _best(root))


def _best(root: Node) -> int | None:
    """The root move with the best bounds, then estimate, for the side to move."""
    if not root.children:
        return None
    sign = 1 if root.black else -1
    return max(root.children, key=lambda c: (sign * c.lo, sign * c.hi, sign * c.estimate)).move

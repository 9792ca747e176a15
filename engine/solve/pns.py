"""Proof-number search (Allis 1988) on a tree, and a value by a few of its proofs.

Each search proves or disproves "Black's value is at least ``goal``": Black's
nodes are OR nodes. The most-proving leaf is reached by replaying moves from
the root; its children are scored at once (a move that decides the goal, or a
position the table has settled, is a proved or disproved leaf). Solved nodes
free their children and go to the table when no superko ban above them
shaped their proof. A ``KO_FREE`` side's moves that repeat a board of the path are
dropped as the other side's are, so a proof that it wins holds with its threats too
(more moves cannot hurt it), and a proof that it loses does not.
"""

from __future__ import annotations

from numba import njit

from ...go.rules import BLACK, HASH, PASS
from .game import KIND, OPEN, SCORE, Problem, State, child_key
from .table import FREE, OutOfBudget, Progress, Result, Search

INF = 1 << 40


class Node:
    """A tree node: its move, proof and disproof numbers, children, superko dependency."""

    __slots__ = ("ban", "black", "children", "dep", "dn", "key", "move", "own", "parent", "pn")

    def __init__(self, move: int, key: int, black: bool, parent: Node | None, pn: int = 1, dn: int = 1) -> None:
        self.move, self.key, self.black, self.parent = move, key, black, parent
        self.pn, self.dn = pn, dn
        self.children: list[Node] | None = None
        self.own = 0
        self.dep = FREE
        self.ban = FREE


@njit(cache=True)
def leaf_numbers(value: int, lo: int, hi: int, goal: int) -> tuple[int, int]:
    """(pn, dn) of a child: settled by its value (OPEN: none) or its stored bounds
    ``lo..hi``, else (1, 1)."""
    if value != OPEN:
        return (0, INF) if value >= goal else (INF, 0)
    if lo >= goal:
        return 0, INF
    if hi < goal:
        return INF, 0
    return 1, 1


def leaf(search: Search, problem: Problem, goal: int, key: int, value: int) -> tuple[int, int]:
    """(pn, dn) of a child: settled by its value or the table, else (1, 1)."""
    return leaf_numbers(value, *search.bounds(key, problem.lo, problem.hi), goal)


def children(search: Search, problem: Problem, s: State, goal: int, parent: Node) -> tuple[list[Node], int]:
    """The children of ``s`` as leaves, and the shallowest path index a superko ban hit."""
    moves, hashes, kos, values = problem.expand(s)
    out, ban = [], FREE
    for mv, h, ko, v in zip(moves.tolist(), hashes.tolist(), kos.tolist(), values.tolist()):
        if mv != PASS and h in search.path:
            ban = min(ban, search.path[h])
            continue
        key = child_key(h, 3 - s.color, ko, mv == PASS)
        out.append(Node(mv, key, s.color != BLACK, parent, *leaf(search, problem, goal, key, v)))
    return out, ban


def update(node: Node) -> None:
    """Proof and disproof numbers from the children; when solved, the dependency."""
    kids, black = node.children, node.black
    if black:
        node.pn = min(c.pn for c in kids)
        node.dn = min(INF, sum(c.dn for c in kids))
    else:
        node.pn = min(INF, sum(c.pn for c in kids))
        node.dn = min(c.dn for c in kids)
    if node.pn == 0 or node.dn == 0:
        proved = node.pn == 0
        if proved == black:  # one child settles it
            node.dep = next(c.dep for c in kids if (c.pn if proved else c.dn) == 0)
        else:
            node.dep = min([node.ban] + [c.dep for c in kids])


def prove(search: Search, problem: Problem, goal: int) -> tuple[bool | None, int | None]:
    """Whether Black's value is at least ``goal``, and the root move that shows it."""
    root_state = problem.root
    root = Node(PASS, problem.key(root_state), root_state.color == BLACK, None)
    search.path = {int(root_state.m[HASH]): 0}
    root.children, root.ban = children(search, problem, root_state, goal, root)
    update(root)
    while root.pn and root.dn:
        node, s = root, root_state
        path = {int(root_state.m[HASH]): 0}
        while node.children is not None:
            node = min(node.children, key=(lambda c: c.pn) if node.black else (lambda c: c.dn))
            s = problem.child(s, node.move)
            if node.move != PASS:
                path[int(s.m[HASH])] = len(path)
            node.own = path[int(s.m[HASH])]
        search.visit()
        search.path = path
        node.children, node.ban = children(search, problem, s, goal, node)
        while node is not None:
            update(node)
            if node.pn == 0 or node.dn == 0:
                if node.dep >= node.own:
                    lo, hi = (goal, problem.hi) if node.pn == 0 else (problem.lo, goal - 1)
                    search.store(node.key, lo, hi)
                if node is not root:
                    node.children = []  # never selected again
            node = node.parent
    proved = root.pn == 0
    if proved != (root_state.color == BLACK):
        return proved, None
    return proved, next(c.move for c in root.children if (c.pn if proved else c.dn) == 0)



def pns(problem: Problem, max_nodes: int = 1_000_000, seconds: float | None = None,
        progress: Progress | None = None) -> Result:
    """Black's value by proof-number search: one proof for a goal, a binary search
    over thresholds for the score; None when the budget runs out."""
    return pns_by_thresholds(problem, prove, max_nodes, seconds, progress)


def pns_by_thresholds(problem: Problem, prover, max_nodes: int, seconds: float | None,
                      progress: Progress | None = None) -> Result:
    """Black's value from proofs of "at least goal" (``prover``), bisecting the value range;
    a goal other than ``score`` is won or lost (its value ``lo`` or ``hi``, nothing between),
    so one proof of "at least ``hi``" settles it."""
    search = Search(max_nodes, seconds, progress)
    lo, hi = problem.lo, problem.hi  # the value lies in lo..hi
    won_or_lost = problem.goal[KIND] != SCORE
    move = None
    try:
        while lo < hi:
            goal = hi if won_or_lost else (lo + hi + 1) // 2
            proved, m = prover(search, problem, goal)
            if proved:
                lo = goal
            else:
                hi = lo if won_or_lost else goal - 1
            move = m if m is not None else move
    except OutOfBudget:
        return search.result(None, None)
    return search.result(lo, move)

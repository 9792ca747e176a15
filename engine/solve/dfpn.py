"""Depth-first proof-number search (df-pn, Nagai 2002): PNS in the memory of the table.

A node is searched while its proof and disproof numbers stay under thresholds
given by its parent; the children's numbers live on the stack, seeded from the
table (solved bounds, or numbers left by earlier visits). The best child's threshold is
the second best's number times 1 + ``EPSILON`` (Pawlewicz and Lew 2007), not plus one:
proofs that depend on the path (superko) are not stored, so each return to a sibling
searches them again, and with plus one 2x2 (disproving "Black by 2") seesawed between
symmetric first moves past 200,000 nodes; with 1.25 it takes 460.
"""

from __future__ import annotations

from ...go.rules import BLACK, HASH, PASS
from .game import Problem, State
from .pns import INF, children, pns_by_thresholds
from .table import FREE, Progress, Search

#: Slack of the best child's proof threshold over the second best's number.
EPSILON = 0.25


def prove_dfpn(search: Search, problem: Problem, goal: int) -> tuple[bool, int | None]:
    """Whether Black's value is at least ``goal`` (df-pn), and the root move that shows it."""
    numbers: dict[int, tuple[int, int]] = {}

    def mid(s: State, key: int, tpn: int, tdn: int) -> tuple[int, int, int, int | None]:
        search.visit()
        black = s.color == BLACK
        own = search.path[int(s.m[HASH])]
        kids, ban = children(search, problem, s, goal, None)
        for c in kids:
            if c.pn and c.dn and c.key in numbers:
                c.pn, c.dn = numbers[c.key]
        while True:
            first = (lambda c: c.pn) if black else (lambda c: c.dn)
            second = (lambda c: c.dn) if black else (lambda c: c.pn)
            a = min(first(c) for c in kids)
            b = min(INF, sum(second(c) for c in kids))
            pn, dn = (a, b) if black else (b, a)
            if pn == 0 or dn == 0 or pn >= tpn or dn >= tdn:
                break
            kids.sort(key=first)
            best = kids[0]
            a2 = first(kids[1]) if len(kids) > 1 else INF
            ta = min(tpn if black else tdn, a2 + 1 + int(a2 * EPSILON))
            tb = (tdn if black else tpn) - b + second(best)
            child = problem.child(s, best.move)
            h = int(child.m[HASH])
            if best.move != PASS:
                search.path[h] = len(search.path)
            try:
                best.pn, best.dn, best.dep, _ = mid(child, best.key, *((ta, tb) if black else (tb, ta)))
            finally:
                if best.move != PASS:
                    del search.path[h]
        move, dep = None, FREE
        if pn == 0 or dn == 0:
            win = (pn == 0) == black
            settle = [c for c in kids if (c.pn if pn == 0 else c.dn) == 0]
            dep = settle[0].dep if win else min([ban] + [c.dep for c in kids])
            move = settle[0].move if win else None
            if dep >= own:
                search.store(key, *((goal, problem.hi) if pn == 0 else (problem.lo, goal - 1)))
        else:
            numbers[key] = (pn, dn)
        return pn, dn, dep, move

    root = problem.root
    search.path = {int(root.m[HASH]): 0}
    pn, _, _, move = mid(root, problem.key(root), INF, INF)
    return pn == 0, move


def dfpn(problem: Problem, max_nodes: int = 1_000_000, seconds: float | None = None,
         progress: Progress | None = None):
    """Black's value by df-pn: one proof for a goal, a binary search over thresholds for the score."""
    return pns_by_thresholds(problem, prove_dfpn, max_nodes, seconds, progress)

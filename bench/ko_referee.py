"""df-pn's ko checks against a search that keeps no table.

    python bench/ko_referee.py ID [ID ...] [--nodes 1500000]

Each named book problem of ``../shared/data/tsumego/problems.jsonl.gz`` is read as ``solve``
reads it and searched with a ko threat for every ko for the defender (``run.with_ko_threats``)
twice: by df-pn, and by a proof-number search on a tree that lets the defender repeat a
board of its path, as df-pn does, and stores nothing, so no result is read on a path it
was not proved on (``pns`` drops those repetitions, and so retakes no ko). A row per
problem: the defender, each search's value for Black (None: past ``--nodes``) and nodes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time

from shapemill.engine.solve.dfpn import dfpn
from shapemill.engine.solve.game import KO_FREE, Problem, State
from shapemill.engine.solve.pns import Node, leaf_numbers, update
from shapemill.engine.solve.run import with_ko_threats
from shapemill.go.rules import BLACK, HASH, PASS

from tsumego import PROBLEMS, read_problem


def _children(problem: Problem, s: State, goal: int, parent: Node, path: dict[int, int]) -> list[Node]:
    """The children of ``s`` as leaves: the bound side's moves that repeat a board of the path dropped."""
    moves, hashes, _, values = problem.expand(s)
    free = problem.goal[KO_FREE] == s.color
    return [Node(mv, 0, s.color != BLACK, parent, *leaf_numbers(v, problem.lo, problem.hi, goal))  # no table: no key
            for mv, h, v in zip(moves.tolist(), hashes.tolist(), values.tolist())
            if mv == PASS or h not in path or free]


def tree_value(problem: Problem, max_nodes: int) -> tuple[int | None, int]:
    """Black's value of a won-or-lost goal by PNS on a tree with no table, and the nodes."""
    start = problem.root
    root = Node(PASS, 0, start.color == BLACK, None)
    root.children = _children(problem, start, problem.hi, root, {int(start.m[HASH]): 0})
    update(root)
    nodes = 1
    while root.pn and root.dn:
        node, s, path = root, start, {int(start.m[HASH]): 0}
        while node.children is not None:
            node = min(node.children, key=(lambda c: c.pn) if node.black else (lambda c: c.dn))
            s = problem.child(s, node.move)
            if node.move != PASS:
                path.setdefault(int(s.m[HASH]), len(path))
        nodes += 1
        if nodes > max_nodes:
            return None, nodes
        node.children = _children(problem, s, problem.hi, node, path)
        while node is not None:
            update(node)
            if (node.pn == 0 or node.dn == 0) and node is not root:
                node.children = []
            node = node.parent
    return (problem.hi if root.pn == 0 else problem.lo), nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ids", nargs="+")
    parser.add_argument("--nodes", type=int, default=1_500_000)
    args = parser.parse_args()
    with gzip.open(PROBLEMS, "rt") as f:
        problems = {p["id"]: p for p in map(json.loads, f) if p["id"] in args.ids}
    for pid in args.ids:
        t, _, plain = read_problem(problems[pid])
        threats = with_ko_threats(plain, t.defender)
        d = dfpn(threats, args.nodes)
        begin = time.perf_counter()
        value, nodes = tree_value(threats, args.nodes)
        print(f"{pid}: defender {t.defender}; df-pn {d.value} ({d.nodes:,} nodes); the tree, no table: {value} "
              f"({nodes:,} nodes, {time.perf_counter() - begin:.0f} s)", flush=True)


if __name__ == "__main__":
    main()

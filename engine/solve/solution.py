"""The solution tree of a solved problem as SGF: the proof's main line, the opponent's tries.

From the root, the side the proof is for (the side to move) plays the solver's move and
then alpha-beta's best move in each position; at the opponent's turns every legal try is
a variation (the best reply, by alpha-beta, first) down to ``TRY_PLIES`` plies, the best
reply alone below. The searches share one table (the proof's when it was alpha-beta's; else
alpha-beta proves the root first to fill it) and a node budget (``solve`` gives it four
times the nodes the proof took, at least 100,000); when it is spent the tree stops where it is.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ...files import write_text_atomic
from ...go.rules import BLACK, COLOR, HASH, PASS, WHITE
from ...go.vertices import color_name, point_at
from .alphabeta import alphabeta
from .game import OPEN, Problem, State
from .table import Result

#: Plies from the root within which every try of the opponent is a variation.
TRY_PLIES = 6
#: Most SGF nodes a tree gets.
MAX_NODES = 2_000


def write_solution_sgf(path: str | Path, problem: Problem, result: Result, max_nodes: int,
                       tables: tuple[dict, dict] | None = None) -> int:
    """Write the solution tree of ``problem`` (solved as ``result``) to ``path``; its node count.
    ``tables``: alpha-beta's bounds and best moves to start from (those of the proof)."""
    from sgfmill import sgf

    size = problem.size
    game = sgf.Sgf_game(size)
    root = game.get_root()
    b = problem.root.b
    black, white = ([point_at(p, size) for p in range(b.shape[1]) if b[COLOR, p] == c]
                    for c in (BLACK, WHITE))
    root.set_setup_stones(black, white)
    root.set("PL", color_name(problem.root.color))
    value = "unknown" if result.value is None else f"{result.value:+d} for Black"
    root.set("C", f"shapemill solve: value {value}")
    budget = {"nodes": max_nodes, "sgf": MAX_NODES}
    me = problem.root.color

    def best_move(s: State, history: tuple[int, ...]) -> int | None:
        if budget["nodes"] <= 0:
            return None
        r = alphabeta(replace(problem, root=s, maps=problem.maps), budget["nodes"], None, history, tables)
        budget["nodes"] -= r.nodes
        return r.move

    def grow(node, s: State, history: tuple[int, ...], ply: int, first: int | None) -> None:
        moves, hashes, _, values = problem.expand(s)
        legal = {int(mv): int(v) for mv, h, v in zip(moves, hashes, values)
                 if int(mv) == PASS or int(h) not in history}
        main = first if first in legal else best_move(s, history)
        if main is None:
            return
        tries = [main] + ([mv for mv in legal if mv != main] if s.color != me and ply < TRY_PLIES else [])
        for mv in tries:
            if budget["sgf"] <= 0:
                return
            budget["sgf"] -= 1
            child = node.new_child()
            child.set_move(color_name(s.color), point_at(mv, size))
            if legal[mv] == OPEN:
                nxt = problem.child(s, mv)
                grow(child, nxt, history + (int(s.m[HASH]),), ply + 1, None)

    if tables is None:  # another search's proof: alpha-beta proves the root first, for its table
        tables = ({}, {})
        best_move(problem.root, ())
    grow(root, problem.root, (), 0, result.move)
    write_text_atomic(path, game.serialise().decode())
    return MAX_NODES - budget["sgf"] + 1

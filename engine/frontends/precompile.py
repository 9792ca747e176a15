"""The kernels a front end needs before its first answer, compiled now: what ``shapemill
compile`` runs, and what the package's build runs so that an install answers at once.

numba compiles a kernel on its first use and keeps it in ``__pycache__`` beside the source,
keyed on the source's content and the machine's CPU; a cache made when the package is built
on the machine that runs it (``pip install`` from a checkout or an sdist) is found by the
installed copy, since the installed files have the same content (HACKING.md, "The numba cache").
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from ...go.board import Board
from ...go.vertices import parse_vertex
from ...patterns.defaults import RATINGS, default_table
from ...patterns.knowledge import Knowledge
from ..playouts.gamma import playout_gammas
from ..search import SearchConfig, warm_up
from ..solve.run import solve_file
from .gtp import GtpEngine

#: The board the warm-ups use: the kernels are the same for every size (the size is a value,
#: not a type), so one size compiles what all sizes use.
SIZE = 19
#: A few moves of an opening, so that the review's kernels meet stones of both colours.
OPENING = ("Q16", "D4", "Q3", "D16")
#: A 9x9 game's end with a dead white stone at D4 inside Black's wall: ``final_score`` reads
#: it (the solver's proof of its status, seki), as a GUI or the demo asks at a game's end.
GAME_END = ("C3", "D4", "D3", "G7", "E3", "G6", "C4", "F6", "E4", "G5", "C5", "F5", "E5", "G4", "D6")
#: A book's corner problem (Black kills: B1), solved as ``shapemill solve`` reads one.
PROBLEM = "(;GM[1]SZ[19]PL[B]AW[ar][br][cr][dr][ds]AB[aq][bq][cq][dq][eq][er][es])"


def _review_kernels(knowledge: Knowledge) -> None:
    """The table's judgement of each move of a game (``review``, ``explain``)."""
    board = Board(SIZE)
    for i, vertex in enumerate(OPENING):
        colour = "bw"[i % 2]
        knowledge.probabilities(board, colour)
        board.equivalent_points(parse_vertex(vertex, SIZE))  # the rank the review gives the move
        board.play(colour, parse_vertex(vertex, SIZE))


def _game_end_kernels(knowledge: Knowledge) -> None:
    """``final_score`` and ``final_status_list`` at a game's end (the solver's proofs, seki)."""
    engine = GtpEngine(SearchConfig(playouts=50), 9, knowledge)
    for i, vertex in enumerate(GAME_END):
        engine.handle(f"play {'bw'[i % 2]} {vertex}")
    for command in ("final_score", "final_status_list dead", "final_status_list seki"):
        engine.handle(command)


def _solver_kernels() -> None:
    """``shapemill solve`` on a book's problem (df-pn, the default), without and with
    ``--ratings`` (the moves ordered by the table: a specialization of its own)."""
    with tempfile.TemporaryDirectory(prefix="shapemill-compile-") as folder:
        path = Path(folder) / "problem.sgf"
        path.write_text(PROBLEM, encoding="utf-8")
        for ratings in (None, str(default_table(RATINGS))):
            solve_file(path, None, None, None, "dfpn", 10_000, None, ratings=ratings)


def precompile(say: Callable[[str], None] = lambda line: None) -> str | None:
    """Compile (or load from the cache) the search, the priors, the table's judgement of a
    move, the scoring of a game's end and the solver; each step is announced through ``say``.
    The first failure's message, or None."""
    knowledge = Knowledge.load(default_table(RATINGS))

    def search(config: SearchConfig) -> None:
        failure = warm_up(config, SIZE, knowledge)
        if failure:
            raise RuntimeError(failure)

    steps = [("the search and its priors (gtp, analysis, demo)", lambda: search(SearchConfig())),
             # the kernel with the gamma playouts' branch and the one with leaf parallelism's loop are
             # specializations of their own (engine/search/walk.py's simulate), each a minute cold
             ("the search with --playout-policy gamma or ppa-paper",
              lambda: search(SearchConfig(playout_policy="gamma", gammas=playout_gammas(default_table(RATINGS))))),
             ("the search with --parallel leaf", lambda: search(SearchConfig(parallel="leaf", threads=2))),
             ("the table's judgement of a move (review, explain)", lambda: _review_kernels(knowledge)),
             ("a game's end (final_score, final_status_list)", lambda: _game_end_kernels(knowledge)),
             ("the exact solver (solve)", _solver_kernels)]
    for label, step in steps:
        say(label)
        try:
            step()
        except Exception as e:  # a build or a user's command: one line, never a traceback
            return f"{label}: {' '.join(str(e).split()) or type(e).__name__}"
    return None

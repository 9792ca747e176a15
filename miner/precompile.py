"""The table stages' kernels compiled now, on a few generated games: what ``shapemill compile``
runs after the engine's (``engine/frontends/precompile.py``), and what the package's build
runs beside them in a second process (``tools/build_kernels.py``).

From an empty cache, ``mine``'s and ``rate``'s kernels take two to three minutes to compile
on one core (bench/first_use.py, RESULTS); compiled once at install they load in a second.
The stages run as a user runs them (the command lines of ``table_commands``), so that the
kernels compiled are the very specializations a user's run asks for (the fit's shards, read
only, are their own).
"""

from __future__ import annotations

import random
from pathlib import Path

from sgfmill import sgf

from ..go.board import Board

#: Games of the sample: enough that scan's hash puts some in the test split (the kernels are
#: the same for any number of games: counts are values, not types).
SAMPLE_GAMES = 16
#: Moves a game: a game long enough for captures, ladders and ko fights of random play.
SAMPLE_MOVES = 160
#: The sample's size, the one users mine (the kernels take the size as a value).
SIZE = 19
#: The seed of the sample's random moves: the same games every time.
SEED = 45


def write_sample_games(folder: Path, games: int = SAMPLE_GAMES, moves: int = SAMPLE_MOVES) -> list[Path]:
    """``games`` random legal games of ``moves`` moves (seeded) written as SGF files into ``folder``."""
    rng = random.Random(SEED)
    points = [(row, col) for row in range(SIZE) for col in range(SIZE)]
    paths = []
    for g in range(games):
        board, game = Board(SIZE), sgf.Sgf_game(SIZE)
        root = game.get_root()
        for prop, value in (("KM", 6.5), ("RU", "Chinese"), ("PB", f"black {g}"), ("PW", f"white {g}"),
                            ("DT", f"2026-01-{g % 28 + 1:02d}"), ("RE", "B+R" if g % 2 else "W+R")):
            root.set(prop, value)
        for i in range(moves):
            colour = "bw"[i % 2]
            legal = [p for p in rng.sample(points, 40) if board.is_legal(colour, p)]
            if not legal:
                break
            board.play(colour, legal[0])
            game.extend_main_sequence().set_move(colour, legal[0])
        path = folder / f"sample-{g:02d}.sgf"
        path.write_bytes(game.serialise())
        paths.append(path)
    return paths


def table_commands(folder: Path) -> list[tuple[str, list[str]]]:
    """The table stages on the sample games in ``folder``, as command lines (``shapemill``'s
    arguments) with what each compiles: scan, mine, rate, evaluate, vectors and evaluate with
    them, export for mm, index, find."""
    games, patterns, ratings, vectors = (str(folder / f"{name}.parquet")
                                         for name in ("games", "patterns", "ratings", "vectors"))
    fragment = folder / "fragment.sgf"
    fragment.write_text("(;GM[1]SZ[19]AB[pd][qf]AW[qc])", encoding="utf-8")
    return [
        ("scan (reading SGF collections)", ["scan", str(folder), "-o", games, "-j", "1", "-q"]),
        ("mine (shape patterns and tactical features)",
         ["mine", games, "-o", patterns, "--split", "all", "--min-count", "1", "-j", "1", "-q"]),
        ("rate (the MM fit from its shards)",
         ["rate", games, "--patterns", patterns, "-o", ratings, "--split", "all", "--max-iter", "2", "-j", "1",
          "-q"]),
        ("evaluate (move prediction)", ["evaluate", games, "--ratings", ratings, "--split", "all", "-j", "1", "-q"]),
        ("vectors (the latent vectors' fit)",
         ["vectors", games, "--ratings", ratings, "-o", vectors, "--split", "all", "--iterations", "2", "-j", "1",
          "-q"]),
        ("evaluate with latent vectors",
         ["evaluate", games, "--ratings", vectors, "--split", "all", "-j", "1", "-q"]),
        ("export --format mm", ["export", ratings, "--format", "mm", "-o", str(folder / "fit.mm"), "-q"]),
        ("index (the search index of find)", ["index", games, "-q"]),
        ("find (pattern search)", ["find", games, "--sgf", str(fragment), "--json"]),
    ]

"""Seconds of ``shapemill review`` on one long 19x19 game, table only and with the search.

The game is the first of at least ``--moves`` moves in the first Tygem 9-dan archive
(``../shared/data/tygem9d``, cut to ``--moves`` moves). Table only, the review runs
warm (the table read and the kernels loaded once before); the reference in the same run
is the bare ``Knowledge.probabilities`` of every position. With the search, each position
is searched with ``--playouts`` on ``--threads`` threads; the reference is the same positions
searched without the table's priors (the search's own cost). Wall and CPU seconds (all
threads): on a shared machine the CPU seconds are the steadier.

    python bench/review.py [--moves 250] [--playouts 1000] [--threads 2] [--no-engine]
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

from shapemill.engine.search import Search, SearchConfig
from shapemill.engine.frontends.review import GameReview, review_game
from shapemill.go import Board
from shapemill.go.rules import BLACK, WHITE
from shapemill.go.vertices import parse_vertex
from shapemill.miner import Knowledge

TYGEM = Path(__file__).resolve().parents[2] / "shared" / "data" / "tygem9d"
MOVE = re.compile(rb";[BW]\[[a-s]{0,2}\]")


def long_game(moves: int, folder: Path) -> str:
    """The first game of the first archive with at least ``moves`` moves, cut to ``moves``, as an SGF file."""
    archive = sorted(TYGEM.glob("*.zip"))[0]
    with zipfile.ZipFile(archive) as z:
        for name in z.namelist():
            data = z.read(name)
            found = list(MOVE.finditer(data))
            if len(found) >= moves:
                path = folder / "game.sgf"
                path.write_bytes(data[: found[moves - 1].end()] + b")")
                return str(path)
    raise SystemExit(f"no game of {moves} moves in {archive}")


def positions(review: GameReview) -> Iterator[tuple[Board, str]]:
    """The board before each reviewed move and the colour to play."""
    board = Board(review.size)
    for m in review.moves:
        yield board, m.colour
        board.play(m.colour, parse_vertex(m.move, review.size))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=250)
    parser.add_argument("--playouts", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-engine", action="store_true", help="the table-only rows alone")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = long_game(args.moves, Path(folder))
        knowledge = Knowledge.load()
        review_game(path, knowledge)  # warm: the table read, the kernels loaded
        start = time.perf_counter()
        review = review_game(path, knowledge)
        table_only = time.perf_counter() - start
        start = time.perf_counter()
        for board, colour in positions(review):
            knowledge.probabilities(board, colour)
        bare = time.perf_counter() - start
        print("| review of a 19x19 game | seconds | reference, same run | seconds |")
        print("|---|---|---|---|")
        print(f"| {len(review.moves)} moves, table only, warm | {table_only:.2f} | "
              f"`Knowledge.probabilities` of {len(review.moves)} positions | {bare:.2f} |")
        if args.no_engine:
            return
        config = SearchConfig(playouts=args.playouts, threads=args.threads)
        start, cpu = time.perf_counter(), time.process_time()
        review_game(path, knowledge, config)
        engine, engine_cpu = time.perf_counter() - start, time.process_time() - cpu
        search = Search(config)
        start, cpu = time.perf_counter(), time.process_time()
        for board, colour in positions(review):
            search.run(board, BLACK if colour == "b" else WHITE)
        searches, searches_cpu = time.perf_counter() - start, time.process_time() - cpu
        print(f"| {len(review.moves)} moves, --engine --playouts {args.playouts}, {args.threads} threads "
              f"(wall; CPU of all threads) | {engine:.1f}; {engine_cpu:.1f} | the same positions searched without "
              f"the table's priors | {searches:.1f}; {searches_cpu:.1f} |")


if __name__ == "__main__":
    main()

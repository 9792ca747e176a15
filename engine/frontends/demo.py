"""``shapemill demo``: the whole product in two minutes, offline, on the bundled tables.

It draws the highest-rated shapes, the engine's prior over an opening position,
plays a short 9x9 game (against GnuGo when it is installed, else engine against
engine) and saves it as SGF, then says which commands to run next.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np
import pyarrow.compute as pc

from ...files import check_writable, write_text_atomic
from ...go.board import Board
from ...go.vertices import GTP_LETTERS, color_code, flat_index, flat_vertex
from ...patterns.defaults import RATINGS, default_table
from ...patterns.knowledge import Knowledge
from ...patterns.show import rating_lines
from ...progress import progress_bar
from ...tables import read_metadata, read_table
from ..search import SearchConfig
from .gtp import GtpEngine
from .match import GtpClient, LocalClient, play_game, to_sgf

GNUGO = "/usr/games/gnugo"
#: A common opening: Black's two star points against White's, Black to move; strong
#: players most often approach one of White's corners here.
OPENING = (("b", (15, 15)), ("w", (3, 3)), ("b", (3, 15)), ("w", (15, 3)))
HEAT = " .:-=+*#%@"  # share of the best move's strength, tenths, darkest last


def top_shapes(path: str, n: int, max_ring: int = 6, min_seen: int = 100) -> list[str]:
    """The ``n`` highest-rated local shapes of a ratings table (rings up to
    ``max_ring``, seen at least ``min_seen`` times in the fit), drawn.

    Ranked by the low end of the Elo's 95% interval, so a shape played twice in a
    few hundred chances does not outrank one that proved itself often. The highest
    gammas of all belong to whole-board opening patterns seen a few dozen times;
    the local shapes are the ones a player recognises."""
    table, _ = read_table(path, "ratings")
    local = pc.and_(pc.and_(pc.equal(table["feature"], "pattern"), pc.less_equal(table["size"], max_ring)),
                    pc.greater_equal(table["seen"], min_seen))
    shapes = table.filter(local)
    order = np.argsort(-shapes["ci_low"].to_numpy(), kind="stable")[:n]
    out = []
    for rank, i in enumerate(order, 1):
        row = {name: shapes[name][int(i)].as_py() for name in shapes.column_names}
        head, *drawing = rating_lines(row)
        out += [f"#{rank}  {head}", *drawing, ""]
    return out


def prior_heat_map(board: Board, color: str, prior: Callable) -> list[str]:
    """The board with each empty point shaded by the prior strength of a move there
    for ``color`` (share of the strongest move's), and the five strongest moves."""
    strength = prior(board.b, board.m, color_code(color))
    top = strength.max()
    lines = ["   " + " ".join(GTP_LETTERS[: board.size])]
    for row in range(board.size - 1, -1, -1):
        cells = []
        for col in range(board.size):
            stone = board.get((row, col))
            share = strength[flat_index((row, col), board.size)] / top
            cells.append({"b": "X", "w": "O"}[stone] if stone else HEAT[min(9, int(share * 10))])
        lines.append(f"{row + 1:>2} {' '.join(cells)} {row + 1}")
    lines.append(f"shade: a move's strength as a share of the strongest's, '{HEAT[1]}' 10% to "
                 f"'{HEAT[-1]}' 90% and more, blank under 10%")
    total = strength.sum()
    best = np.argsort(-strength, kind="stable")[:5]
    lines.append("strongest moves: " + ", ".join(
        f"{flat_vertex(int(p), board.size)} {strength[p] / total:.1%}" for p in best))
    return lines


def run_demo(sgf_path: str, playouts: int, size: int, gnugo_level: int, echo: Callable[[str], None]) -> None:
    """Run the demo, writing its text with ``echo`` and the game to ``sgf_path``
    (checked writable first, written atomically)."""
    check_writable(sgf_path)
    ratings = default_table(RATINGS)
    meta = read_metadata(ratings)
    accuracy = meta.get("top1")
    echo(f"shapemill demo: the bundled ratings ({ratings}), fitted on "
         f"{meta.get('games_used', '?')} Tygem 9-dan games"
         + (f", top-1 move prediction {accuracy:.1%} on held-out games" if accuracy else ""))
    echo("\n== 1. The ten highest-rated local shapes, up to 29 points (X: the player to move, "
         "O: the opponent, *: the move, #: off the board) ==\n")
    for line in top_shapes(ratings, 10):
        echo(line)

    prior = Knowledge.load(ratings)
    opening = Board(19)
    for color, point in OPENING:
        opening.play(color, point)
    echo("== 2. The prior: how strongly each point is rated for Black after four star points ==\n")
    for line in prior_heat_map(opening, "b", prior):
        echo(line)

    engine = LocalClient(GtpEngine(SearchConfig(playouts=playouts, seed=1), size, prior))
    if os.path.exists(GNUGO):
        opponent = GtpClient(f"{GNUGO} --mode gtp --level {gnugo_level}", timeout=60)
        name = f"GnuGo 3.8 (level {gnugo_level})"
    else:
        opponent = LocalClient(GtpEngine(SearchConfig(playouts=playouts, seed=2), size, prior))
        name = "shapemill"
    echo(f"\n== 3. A {size}x{size} game: shapemill ({playouts} playouts a move, Black) against {name} ==\n")

    bar = progress_bar(False, None, "move", "game", leave=False)  # each move, between the boards shown

    def show(board: Board, n: int) -> None:
        if bar is not None:
            bar.update(1)
        if n % 10 == 0:
            if bar is not None:
                bar.clear()
            echo(f"after move {n}:\n{board}\n")

    try:
        record = play_game(engine, opponent, size, 7.5, on_move=show)
    finally:
        opponent.close()
        if bar is not None:
            bar.close()
    board = Board(size)
    for color, point in record.moves:
        if board.is_legal(color, point):  # a losing illegal move is recorded, not shown
            board.play(color, point)
    echo(f"final position, {len(record.moves)} moves:\n{board}\nresult: {record.result}"
         + (f" ({record.reason})" if record.reason else ""))
    write_text_atomic(sgf_path, to_sgf(record, size, 7.5, "shapemill", name))
    echo(f"\nwrote the game to {sgf_path}")
    echo("""
What you saw: shape patterns mined from strong players' games and rated with
Bradley-Terry (Elo) strengths, the same ratings used as move priors, and the MCTS
engine that searches with them. Next:
  shapemill scan YOUR_ARCHIVE -o games.parquet          # your own SGF collection
  shapemill mine games.parquet -o patterns.parquet -j 2  # its shape patterns
  shapemill rate games.parquet --patterns patterns.parquet -o ratings.parquet
  shapemill evaluate games.parquet                      # move prediction, bundled ratings
  shapemill gtp                                         # the engine, for GoGui or Sabaki
  shapemill play                                        # play it in the terminal""")

"""How often each player of a folder of games ran a dead ladder: the effect of ``gtp --check-ladders``.

    python bench/dead_ladders.py FOLDER [FOLDER ...]

Every SGF game under the folders (e.g. those ``bench/strength.py`` keeps) is replayed,
and each move is checked with ``go.reading.runs_dead_ladder`` (the move extends a string
in atari that dies in a ladder whatever its owner does): the moves that
``--check-ladders`` would have replaced, had the engine played them with it on. Counts
are per player (the ``PB`` / ``PW`` command line, shortened), with the opponent in the
same games as the reference. Prints one row per player and each such move.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from sgfmill import sgf, sgf_moves
from shapemill.go.board import Board
from shapemill.go.reading import runs_dead_ladder
from shapemill.go.rules import BLACK, WHITE


def player(command: str) -> str:
    """A player's short name: the program and its options, without the interpreter's path
    and the seed (which changes with the game)."""
    words = command.split()
    words = words[words.index("-m") + 1:] if "-m" in words else [Path(words[0]).name, *words[1:]]
    if "--seed" in words:
        del words[words.index("--seed"):words.index("--seed") + 2]
    return " ".join(words)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+")
    args = parser.parse_args()
    moves, dead = Counter(), Counter()
    for path in sorted(p for folder in args.folders for p in Path(folder).rglob("*.sgf")):
        game = sgf.Sgf_game.from_bytes(path.read_bytes())
        root = game.get_root()
        names = {c: player(root.get(k)) for c, k in (("b", "PB"), ("w", "PW"))}
        board = Board(game.get_size())
        for n, (color, point) in enumerate(sgf_moves.get_setup_and_moves(game)[1], 1):
            name = names[color]
            if point is not None:
                moves[name] += 1
                p = (point[0] + 1) * (board.size + 2) + point[1] + 1
                if runs_dead_ladder(board.b, board.m, BLACK if color == "b" else WHITE, p):
                    dead[name] += 1
                    print(f"{path.parent.name}/{path.name} move {n}: {name} ran a dead ladder")
            board.play(color, point)
    print(f"{'player':70} {'moves':>7} {'dead-ladder runs':>17}")
    for name in sorted(moves):
        print(f"{name[:70]:70} {moves[name]:>7} {dead[name]:>17}")


if __name__ == "__main__":
    main()

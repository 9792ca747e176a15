"""How much of the table's knowledge the search keeps: how often the engine's move, at a
time per move, is the 9-dan move, beside the table's own first choice (its top-1 prior).

Positions: ``--per-game`` seeded move numbers (4 to 149) of each of the first
``--test-games`` test games (of 150 moves or more) of ``--games`` (a games table or SGF
sources; by default the Tygem archive of 2016-07). Each search is fresh, one after
another, with the bundled table's priors at the root and, by default, in the tree.
``--playouts N`` searches N playouts a move instead of ``--seconds``.
``--configs`` names ``SearchConfig`` variants as JSON (``{"name": {"field": value}}``);
the defaults are always measured, as the reference of the same run. A proxy, not
strength: a search that follows the table blindly scores the table's own rate.

    python bench/agreement.py --configs '{"prior_n 200": {"prior_n": 200}}' --seconds 0.365
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "tygem9d" / "tygem9d-2016-07.zip"


def positions(source: str, games: int, per_game: int) -> list[tuple[list, int, int]]:
    """``(moves, k, size)``: the game's moves (record indices) and a move number ``k`` whose
    move is predicted, ``per_game`` of each long test game."""
    from shapemill.datasets.corpus import load_corpus

    corpus = load_corpus([source], "test", limit=4 * games)
    rng = np.random.default_rng(7)
    out = []
    for i in range(len(corpus)):
        moves = corpus.game_moves(i).tolist()
        if len(moves) < 150 or len(corpus.setup_black[i]) or len(corpus.setup_white[i]):
            continue
        out += [(moves, int(k), int(corpus.board_size[i])) for k in sorted(rng.choice(np.arange(4, 150), per_game,
                                                                                         replace=False))]
        if len(out) >= games * per_game:
            break
    return out


def main() -> None:
    from shapemill.engine.search import Search, SearchConfig
    from shapemill.go import rules
    from shapemill.go.board import Board
    from shapemill.patterns.prior import MovePrior
    from shapemill.patterns.defaults import RATINGS, default_table

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=str(CORPUS), help="games table or SGF sources (their test split)")
    parser.add_argument("--test-games", type=int, default=60)
    parser.add_argument("--per-game", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=0.365, help="time per move of each search")
    parser.add_argument("--playouts", type=int, default=None, help="playouts per move instead of --seconds")
    parser.add_argument("--configs", default="{}", help="JSON: name -> SearchConfig fields")
    args = parser.parse_args()
    configs = {"defaults": {}, **json.loads(args.configs)}
    prior = MovePrior(default_table(RATINGS))
    cases = positions(args.games, args.test_games, args.per_game)
    knowledge = prior.knowledge(cases[0][2])
    Search(SearchConfig(playouts=64)).run(Board(cases[0][2]), rules.BLACK, None, knowledge)  # compile first
    hits = dict.fromkeys(["table's top move", *configs], 0)
    playouts = dict.fromkeys(configs, 0)
    for moves, k, size in cases:
        board = Board(size)
        for i, index in enumerate(moves[:k]):
            board.play("b" if i % 2 == 0 else "w", None if index < 0 else (index // size, index % size))
        color = rules.BLACK if k % 2 == 0 else rules.WHITE
        target = rules.to_point(moves[k], size) if moves[k] >= 0 else rules.PASS
        root = prior(board.b, board.m, color)
        hits["table's top move"] += int(np.argmax(root) == target)
        for name, fields in configs.items():
            tree = knowledge if fields.get("tree_priors", True) else None
            limit = {"playouts": args.playouts} if args.playouts else {"time_per_move": args.seconds}
            result = Search(SearchConfig(seed=k, **limit, **fields)).run(board, color, root, tree)
            hits[name] += int(result.move == target)
            playouts[name] += result.playouts
    limit = f"{args.playouts} playouts" if args.playouts else f"{args.seconds} s"
    print(f"{len(cases)} positions of {Path(args.games).name}, {limit} a move")
    print("| engine | agrees with the 9-dan move | playouts a move |")
    print("|---|---|---|")
    for name, n in hits.items():
        print(f"| {name} | {n / len(cases):.1%} | {playouts[name] // len(cases) if name in playouts else '-'} |")


if __name__ == "__main__":
    main()

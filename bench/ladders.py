"""The miner's ladders against the solver's on real games, position by position.

    python bench/ladders.py GAMES [--games 1000] [--cpu 300] [--max-nodes 20000]

GAMES is a games table (``shapemill scan ARCHIVE -o GAMES``). The first ``--games`` games
of the test split are replayed (until ``--cpu`` seconds of this process's CPU are spent).
In every position, for every move of the side to move whose ladder feature the miner
reads (``miner/features/strings.py``: an extension to exactly two liberties, and an atari
on a two-liberty string that the defender does not escape at once), both are asked
whether the string is caught: the miner's reader (``go.reading.ladder_captured``, its
budget) and PNS on the solver's ``ladder`` goal (exact within ``--max-nodes``). Every
move with a ladder feature must be among the questions (checked). Prints the counts,
each disagreement and each unfinished search with the game id and move number; a
disagreement is read again by the miner's reader with ``--big-budget`` positions, and
counted as the budget's when that reading agrees with the solver.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit
from shapemill.datasets.corpus import load_corpus
from shapemill.engine.solve.game import LADDER, Problem, State
from shapemill.engine.solve.pns import pns
from shapemill.engine.solve.position import ESCAPE_LIBERTIES
from shapemill.go.reading import (
    escapes_at_once,
    ladder_captured,
    ladder_scratch,
    legal_moves,
    libs_after,
    read_ladder,
    reading_scratch,
    string_libs3,
)
from shapemill.go.rules import (
    BLACK,
    BORDER,
    COLOR,
    EMPTY,
    HEAD,
    OK,
    PASS,
    SIZE,
    STRIDE,
    illegal_reason,
    play,
    to_point,
)
from shapemill.miner.features import N_FEATURES, tactical_features_with
from shapemill.miner.features.table import F_LADDER


@njit(cache=True)
def questions(b: np.ndarray, m: np.ndarray, color: int, libs3: np.ndarray, mark: np.ndarray,
              out: np.ndarray) -> int:
    """Rows (move, target stone, defender to move) of the ladders the miner reads for
    ``color``'s moves (the conditions of ``string_features``); returns their number."""
    w = m[STRIDE]
    n = m[SIZE]
    other = 3 - color
    k = 0
    heads = np.empty(4, dtype=np.int64)
    for r in range(n):
        for c in range(n):
            p = (r + 1) * w + c + 1
            if b[COLOR, p] != EMPTY or illegal_reason(b, m, color, p) != OK:
                continue
            extends = False
            captures = False
            nh = 0
            for q in (p - 1, p + 1, p - w, p + w):
                if b[COLOR, q] == color and libs3[b[HEAD, q]] == 1:
                    extends = True
                if b[COLOR, q] == other:
                    h = b[HEAD, q]
                    if libs3[h] == 1:
                        captures = True
                    elif libs3[h] == 2:
                        fresh = True
                        for j in range(nh):
                            fresh = fresh and heads[j] != h
                        if fresh:
                            heads[nh] = h
                            nh += 1
            if extends and libs_after(b, m, color, p, 3, mark)[0] == 2:
                out[k, 0], out[k, 1], out[k, 2] = p, p, 0
                k += 1
            for i in range(nh):
                h = heads[i]
                if not captures and escapes_at_once(b, m, other, h, p, mark):
                    continue
                out[k, 0], out[k, 1], out[k, 2] = p, h, 1
                k += 1
    return k


def solver_caught(b: np.ndarray, m: np.ndarray, to_move: int, target: int, region: np.ndarray,
                  max_nodes: int) -> tuple[bool | None, int]:
    """Whether PNS proves the string of ``target`` caught on the ``ladder`` goal (None: budget),
    and its nodes."""
    d = int(b[COLOR, target])
    goal = np.array([LADDER, target, target, d, ESCAPE_LIBERTIES], dtype=np.int64)
    r = pns(Problem(State(b, m, to_move), goal, region), max_nodes)
    if r.value is None:
        return None, r.nodes
    return r.value == (-1 if d == BLACK else 1), r.nodes


def miner_caught_with(b: np.ndarray, m: np.ndarray, target: int, defender_to_move: bool, budget: int) -> bool:
    """The miner's ladder reading with ``budget`` positions instead of ``LADDER_BUDGET``."""
    work, mwork, moves = ladder_scratch(b, m)
    work[0], mwork[0] = b, m
    return bool(read_ladder(work, mwork, moves, np.zeros(b.shape[1], dtype=np.int32), np.int64(target),
                            np.bool_(defender_to_move), np.int64(budget)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("games")
    parser.add_argument("--games", dest="n_games", type=int, default=1000)
    parser.add_argument("--cpu", type=float, default=300.0, help="CPU seconds before no new game starts")
    parser.add_argument("--max-nodes", type=int, default=20_000)
    parser.add_argument("--big-budget", type=int, default=2**62,
                        help="the miner's budget when it disagrees (shared evenly among a node's moves)")
    args = parser.parse_args()
    corpus = load_corpus([args.games], "test", args.n_games)
    start = time.process_time()
    counts = {"agree caught": 0, "agree escaped": 0, "disagree (miner's budget)": 0, "disagree": 0,
              "unfinished": 0}
    nodes = []
    games = positions = 0
    rows = np.empty((4 * 19 * 19, 3), dtype=np.int64)
    for i in range(len(corpus)):
        if time.process_time() - start > args.cpu:
            break
        b, m = corpus.start_position(i)
        size = int(corpus.board_size[i])
        region = (b[COLOR] != BORDER).astype(np.uint8)
        scratch = reading_scratch(b, m)
        libs3, mark = scratch[0], scratch[1]
        color = int(corpus.first_color[i])
        for move_no, index in enumerate(corpus.game_moves(i).tolist(), 1):
            string_libs3(b, m, libs3)
            k = questions(b, m, color, libs3, mark, rows)
            asked = set(rows[:k, 0].tolist())
            legal = legal_moves(b, m, color)
            feats = np.zeros((len(legal), N_FEATURES), dtype=np.int32)
            tactical_features_with(b, m, color, legal, feats, scratch)
            featured = set(legal[feats[:, F_LADDER] != 0].tolist())
            assert featured <= asked, (corpus.ids[i], move_no, featured - asked)
            positions += 1
            for p, target, defender_to_move in rows[:k].tolist():
                b2, m2 = b.copy(), m.copy()
                play(b2, m2, color, p)
                miner = bool(ladder_captured(b2, m2, target, bool(defender_to_move)))
                solver, n = solver_caught(b2, m2, 3 - color, target, region, args.max_nodes)
                nodes.append(n)
                w = size + 2
                where = (f"{corpus.ids[i]} move {move_no}: {'bw'[color - 1]} "
                         f"{'ABCDEFGHJKLMNOPQRST'[p % w - 1]}{p // w}")
                if solver is None:
                    counts["unfinished"] += 1
                    print(f"unfinished {where} (miner: {'caught' if miner else 'escaped'})", flush=True)
                elif solver != miner:
                    big = miner_caught_with(b2, m2, target, bool(defender_to_move), args.big_budget)
                    kind = "disagree (miner's budget)" if big == solver else "disagree"
                    counts[kind] += 1
                    print(f"{kind} {where}: miner {'caught' if miner else 'escaped'}, "
                          f"solver {'caught' if solver else 'escaped'}", flush=True)
                else:
                    counts["agree caught" if miner else "agree escaped"] += 1
            p = PASS if index < 0 else to_point(index, size)
            if p != PASS and illegal_reason(b, m, color, p) != OK:
                break
            play(b, m, color, p)
            color = 3 - color
        games += 1
    total = sum(counts.values())
    print(f"games {games}, positions {positions}, ladder questions {total}: "
          + ", ".join(f"{k} {v}" for k, v in counts.items())
          + f"; solver nodes mean {np.mean(nodes) if nodes else 0:.1f}, max {max(nodes, default=0)}; "
          f"CPU {time.process_time() - start:.0f} s")


if __name__ == "__main__":
    main()

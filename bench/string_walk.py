"""A numba generator over a string's stones against the hand-written walk (issue 43, item 5).

The board keeps each string as a ring of stones (``b[NEXT]``); twenty loops in the package
walk it by hand. One ``go`` helper for the walk is worth having only if numba keeps it as
fast: this counts the liberty contacts of every string of 40 random 19x19 positions, the
walk by hand and through a generator, in the same process, best of three, CPU seconds.

    python bench/string_walk.py
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from shapemill.go.board import Board
from shapemill.go.rules import COLOR, EMPTY, HEAD, NEXT, STRIDE

REPS = 20_000


@njit
def _stones_of(b: np.ndarray, h: int):
    s = h
    while True:
        yield s
        s = b[NEXT, s]
        if s == h:
            break


@njit
def by_hand(bs: np.ndarray, w: int, reps: int) -> int:
    total = 0
    for r in range(reps):
        b = bs[r % bs.shape[0]]
        for p in range(b.shape[1]):
            if b[COLOR, p] == 1 or b[COLOR, p] == 2:
                h = b[HEAD, p]
                s = h
                while True:
                    for q in (s - 1, s + 1, s - w, s + w):
                        if b[COLOR, q] == EMPTY:
                            total += 1
                    s = b[NEXT, s]
                    if s == h:
                        break
    return total


@njit
def by_generator(bs: np.ndarray, w: int, reps: int) -> int:
    total = 0
    for r in range(reps):
        b = bs[r % bs.shape[0]]
        for p in range(b.shape[1]):
            if b[COLOR, p] == 1 or b[COLOR, p] == 2:
                for s in _stones_of(b, b[HEAD, p]):
                    for q in (s - 1, s + 1, s - w, s + w):
                        if b[COLOR, q] == EMPTY:
                            total += 1
    return total


def positions() -> tuple[np.ndarray, int]:
    """40 random 19x19 positions of 100 to 217 moves (seed 1)."""
    rng = np.random.default_rng(1)
    boards = []
    for g in range(40):
        board = Board(19)
        for i in range(100 + 3 * g):
            colour = "bw"[i % 2]
            legal = [(r, c) for r in range(19) for c in range(19) if board.is_legal(colour, (r, c))]
            board.play(colour, legal[rng.integers(len(legal))])
        boards.append(board.b.copy())
    return np.stack(boards), int(board.m[STRIDE])


def main() -> None:
    bs, w = positions()
    assert by_hand(bs, w, 40) == by_generator(bs, w, 40)
    best = {}
    for _ in range(3):
        for f in (by_hand, by_generator):
            start = time.process_time()
            f(bs, w, REPS)
            best[f.__name__] = min(best.get(f.__name__, 1e9), time.process_time() - start)
    print("| walk | CPU s | relative |\n|---|---|---|")
    for name, s in best.items():
        print(f"| {name} | {s:.3f} | {s / best['by_hand']:.2f} |")


if __name__ == "__main__":
    main()

"""Uniform random playouts per second on 9x9 and 19x19, on one core.

The numba playouts (``engine.playout.run_playouts``: empty board, no filling of
own true eyes, area score) run in this process after a warm-up call, in batches
until ``--seconds`` of this process's CPU time have passed: CPU time, not wall
time, so that other work on the machine does not count against one core. The reference is the same policy written in
plain Python (flat list board, liberties by flood fill), timed in the same run.

Then the playout policies of the engine, from the empty board: MoGo's rules in
both orders (``engine.playout_mogo``, with its targets) and the gamma policy (``engine.gamma``,
the bundled ratings table's tactical gammas).

    python bench/playouts.py [--seconds S] [--json]

``--json`` prints one object, the numba rates: ``{"9": ..., "19": ...}``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable

import numpy as np
from shapemill.engine.playouts.gamma import gamma_playout, playout_gammas, ppa_weights
from shapemill.engine.playouts.mogo import run_mogo_playouts
from shapemill.engine.playouts.random import run_playouts
from shapemill.go.rules import new_board
from shapemill.patterns.defaults import RATINGS, default_table

SIZES = (9, 19)
TARGETS = {9: 25_000, 19: 5_000}
MOGO_TARGETS = {9: 10_000, 19: 2_000}
KOMI = 7.5
EMPTY, BLACK, WHITE, BORDER = 0, 1, 2, 3


def python_playout(size: int, komi: float, rng: random.Random) -> float:
    """One random playout from the empty board in plain Python; the area score."""
    w = size + 2
    color = [BORDER] * (w * w)
    for row in range(1, size + 1):
        color[row * w + 1 : row * w + size + 1] = [EMPTY] * size
    empties = {p for p in range(w * w) if color[p] == EMPTY}

    def string(p: int) -> tuple[set[int], set[int]]:
        """The string through ``p`` and its liberties."""
        stones, liberties, todo = {p}, set(), [p]
        while todo:
            s = todo.pop()
            for q in (s - 1, s + 1, s - w, s + w):
                if color[q] == EMPTY:
                    liberties.add(q)
                elif color[q] == color[p] and q not in stones:
                    stones.add(q)
                    todo.append(q)
        return stones, liberties

    def is_eye(c: int, p: int) -> bool:
        if any(color[q] not in (c, BORDER) for q in (p - 1, p + 1, p - w, p + w)):
            return False
        diagonals = [color[q] for q in (p - w - 1, p - w + 1, p + w - 1, p + w + 1)]
        return diagonals.count(3 - c) + (BORDER in diagonals) < 2

    def try_play(c: int, p: int) -> list[int] | None:
        """Play ``p`` if legal (no suicide); the captured points, or None."""
        color[p] = c
        captured = []
        for q in (p - 1, p + 1, p - w, p + w):
            if color[q] == 3 - c:
                stones, liberties = string(q)
                if not liberties:
                    captured += stones
                    for s in stones:
                        color[s] = EMPTY
        if not captured and not string(p)[1]:
            color[p] = EMPTY
            return None
        return captured

    c, ko, passes, moves = BLACK, 0, 0, 0
    while passes < 2 and moves < 3 * size * size:
        candidates = list(empties)
        captured = None
        while candidates and captured is None:
            i = rng.randrange(len(candidates))
            p = candidates[i]
            candidates[i] = candidates[-1]
            candidates.pop()
            if p != ko and not is_eye(c, p):
                captured = try_play(c, p)
        if captured is None:
            passes += 1
            ko = 0
        else:
            passes = 0
            empties.discard(p)
            empties.update(captured)
            stones, liberties = string(p)
            ko = captured[0] if len(captured) == 1 and len(stones) == 1 and len(liberties) == 1 else 0
        moves += 1
        c = 3 - c
    score = 0
    for p in empties:
        reach = {color[q] for q in (p - 1, p + 1, p - w, p + w)} - {EMPTY, BORDER}
        if reach == {BLACK}:
            score += 1
        elif reach == {WHITE}:
            score -= 1
    # At the end of a playout no two empty points touch (either would be a legal
    # move that fills no eye), so each empty point is a region of its own.
    return score + color.count(BLACK) - color.count(WHITE) - komi


def rate(run: Callable[[int], object], seconds: float) -> tuple[int, float]:
    """Call ``run(n)`` (n playouts) in growing batches for about ``seconds``;
    returns the playouts done and the CPU seconds they took."""
    done, spent, batch = 0, 0.0, 1
    while spent < seconds:
        start = time.process_time()
        run(batch)
        spent += time.process_time() - start
        done += batch
        batch = max(1, min(2 * batch, int(done / spent * (seconds - spent)) + 1))
    return done, spent


def gamma_playouts(size: int, k: int, gammas: np.ndarray) -> None:
    """``k`` gamma-policy playouts from the empty board."""
    b, m = new_board(size)
    moves = np.empty(3 * size * size, dtype=np.int64)
    gammas_alone = ppa_weights(b.shape[1], 0.0)  # as the engine's gamma policy: no adaptation
    for _ in range(k):
        gamma_playout(b.copy(), m.copy(), BLACK, KOMI, moves, gammas, gammas_alone)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="timing per size and implementation (default 2)")
    parser.add_argument("--json", action="store_true", help='print {"9": rate, "19": rate} only')
    args = parser.parse_args()
    rng = random.Random(1)
    rows = []
    for size in SIZES:
        run_playouts(size, 10, KOMI, 0)  # compile, or load from the cache, before timing
        seed = iter(range(1, 1 << 30))
        n, spent = rate(lambda k: run_playouts(size, k, KOMI, next(seed)), args.seconds)
        n_py, spent_py = rate(lambda k: [python_playout(size, KOMI, rng) for _ in range(k)], args.seconds / 2)
        rows.append((size, n, spent, n / spent, n_py / spent_py))
    if args.json:
        print(json.dumps({str(size): round(per_s, 1) for size, _, _, per_s, _ in rows}))
        return
    header = ("board", "playouts", "seconds", "playouts/s", "target", "pure Python/s", "speed-up")
    print("  ".join(f"{h:>10}" for h in header))
    for size, n, spent, per_s, py_per_s in rows:
        cells = (f"{size}x{size}", n, f"{spent:.2f}", f"{per_s:,.0f}", f"{TARGETS[size]:,}", f"{py_per_s:,.1f}")
        print("  ".join(f"{c:>10}" for c in cells) + f"  {per_s / py_per_s:>9.0f}x")
    print("one core, CPU seconds; numba engine vs the same policy in plain Python, both measured in this run")
    for size in SIZES:  # the MoGo policy (engine.playout_mogo), in both orders of its rules
        for name, local in (("mogo-local", True), ("mogo", False)):
            run_mogo_playouts(size, 10, KOMI, 0, local)
            seed = iter(range(1, 1 << 30))
            n, spent = rate(lambda k: run_mogo_playouts(size, k, KOMI, next(seed), local), args.seconds)
            print(f"MoGo policy ({name}) {size}x{size}: {n / spent:,.0f} playouts/s (target {MOGO_TARGETS[size]:,})")
    gammas = playout_gammas(default_table(RATINGS))
    for size in SIZES:  # the gamma policy (engine.gamma) with the bundled table's gammas
        gamma_playouts(size, 1, gammas)
        n, spent = rate(lambda k: gamma_playouts(size, k, gammas), args.seconds)
        print(f"gamma policy {size}x{size}: {n / spent:,.0f} playouts/s (no target)")


if __name__ == "__main__":
    main()

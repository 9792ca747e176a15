"""Where a cold start's numba compile time goes, kernel by kernel.

Run with an empty cache (``NUMBA_CACHE_DIR`` a fresh folder), it warms up what a command
compiles before its first answer and prints each compile numba reports (its
``numba:compile`` events): seconds with the kernels compiled inside it, its depth in the
chain of callers, the kernel and its argument types. A kernel listed twice at the same
depth compiled two specializations (a literal or an ``int32`` argument; HACKING.md).

- ``search``: the engine's warm-up (the bundled table's priors and one 19x19 search), what
  ``analysis`` and ``gtp`` compile before their first answer;
- ``review``: the table's judgement of a short game (``Knowledge.probabilities``).

    NUMBA_CACHE_DIR=$(mktemp -d) python bench/compile_time.py [search|review] [--top 40]
"""

from __future__ import annotations

import argparse
import time

from numba.core import event

from shapemill.compiling import kernel_name


class Recorder(event.Listener):
    """Each compile's seconds, depth and kernel, as numba reports them."""

    def __init__(self) -> None:
        self.stack: list[tuple[float, str, str]] = []
        self.rows: list[tuple[float, int, str, str]] = []

    def on_start(self, ev: event.Event) -> None:
        self.stack.append((time.perf_counter(), kernel_name(ev.data["dispatcher"]), str(ev.data["args"])))

    def on_end(self, ev: event.Event) -> None:
        start, name, args = self.stack.pop()
        self.rows.append((time.perf_counter() - start, len(self.stack), name, args))


def warm_search() -> None:
    from shapemill.engine.search import SearchConfig, warm_up
    from shapemill.patterns.defaults import RATINGS, default_table
    from shapemill.patterns.knowledge import Knowledge

    failure = warm_up(SearchConfig(), 19, Knowledge.load(default_table(RATINGS)))
    if failure:
        raise SystemExit(failure)


def warm_review() -> None:
    from shapemill.go import Board
    from shapemill.go.vertices import parse_vertex
    from shapemill.patterns.defaults import RATINGS, default_table
    from shapemill.patterns.knowledge import Knowledge

    knowledge = Knowledge.load(default_table(RATINGS))
    board = Board(19)
    for i, v in enumerate(["Q16", "D4", "Q3", "D16"]):
        colour = "bw"[i % 2]
        knowledge.probabilities(board, colour)
        board.play(colour, parse_vertex(v, 19))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", nargs="?", default="search", choices=["search", "review"])
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    recorder = Recorder()
    event.register("numba:compile", recorder)
    start = time.perf_counter()
    {"search": warm_search, "review": warm_review}[args.what]()
    total = time.perf_counter() - start
    outer = sum(s for s, depth, _, _ in recorder.rows if depth == 0)
    print(f"{args.what}: {total:.1f} s in all, {outer:.1f} s compiling ({len(recorder.rows)} compiles)")
    print("| seconds (callees included) | depth | kernel | argument types |\n|---|---|---|---|")
    for seconds, depth, name, types in sorted(recorder.rows, reverse=True)[:args.top]:
        print(f"| {seconds:.1f} | {depth} | {name} | {types[:90]} |")


if __name__ == "__main__":
    main()

"""Replay every game of the Tygem 9-dan archive with our rules and with sgfmill.

For each game the moves (read once, with sgfmill's SGF parser) are replayed by the
numba rules core and by sgfmill's ``boards.Board``; the final stones must be equal.
Our rules forbid occupied points, suicide, simple ko and positional superko; a game
with a move they forbid is compared up to that move and counted by the reason.
sgfmill enforces no ko rule and allows suicide, so it is the independent witness for
captures only.

    python bench/replay_all.py [--limit N] [--json] [--data DIR]

Archives are shared out over processes (one per core); the per-game times are CPU
seconds summed over processes, so they compare ours with sgfmill's, not with the
wall clock, and other work on the machine does not inflate them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import zipfile
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from numba import njit
from sgfmill import boards, sgf
from shapemill.go import rules
from shapemill.go.rules import (
    BLACK,
    HASH,
    OK,
    PASS,
    WHITE,
    illegal_reason,
    new_board,
    place_setup,
    play,
    to_point,
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "tygem9d"
SUPERKO = len(rules.REASONS)
REASONS = (*rules.REASONS[1:], "superko")
COLOR_CODES = {None: rules.EMPTY, "b": rules.BLACK, "w": rules.WHITE}
Point = tuple[int, int]


@njit(cache=True)
def replay(
    size: int, setup_black: np.ndarray, setup_white: np.ndarray, colors: np.ndarray, moves: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Replay a record (indices ``row * size + col``, -1 pass, each with its colour).

    Returns the board, how many leading moves are legal and the reason code of the
    first illegal one (``SUPERKO`` for a repeated position; then the board is one
    move past it, and the caller replays the legal prefix again).
    """
    b, m = new_board(size)
    for i in setup_black:
        place_setup(b, m, BLACK, to_point(i, size))
    for i in setup_white:
        place_setup(b, m, WHITE, to_point(i, size))
    seen = np.empty(len(moves) + 1, dtype=np.int64)
    seen[0] = m[HASH]
    for n in range(len(moves)):
        p = to_point(moves[n], size)
        reason = illegal_reason(b, m, colors[n], p)
        if reason != OK:
            return b, m, n, reason
        play(b, m, colors[n], p)
        if p != PASS:
            for k in range(n + 1):
                if seen[k] == m[HASH]:
                    return b, m, n, SUPERKO
        seen[n + 1] = m[HASH]
    return b, m, len(moves), OK


def read_game(data: bytes) -> tuple[int, list[Point], list[Point], list[tuple[str, Point | None]]]:
    """Size, setup stones and main-line moves of an SGF game, as sgfmill reads them."""
    game = sgf.Sgf_game.from_bytes(data)
    black, white, _ = game.get_root().get_setup_stones()
    moves = [node.get_move() for node in game.get_main_sequence()[1:]]
    return game.get_size(), sorted(black), sorted(white), [(c, p) for c, p in moves if c is not None]


def indices(points: list[Point | None], size: int) -> np.ndarray:
    return np.array([-1 if p is None else p[0] * size + p[1] for p in points], dtype=np.int64)


def check_archive(path: Path, limit: int | None) -> dict:
    """Replay the games of one zip both ways; counts, reasons and seconds."""
    stats = {"archive": path.stem, "games": 0, "moves": 0, "mismatches": 0, "unreadable": 0}
    stats |= dict.fromkeys(REASONS, 0)
    stats |= {"parse_s": 0.0, "ours_s": 0.0, "sgfmill_s": 0.0, "mismatched": []}
    with zipfile.ZipFile(path) as archive:
        names = [n for n in archive.namelist() if n.lower().endswith(".sgf")][:limit]
        for name in names:
            data = archive.read(name)
            t0 = time.process_time()
            try:
                size, black, white, moves = read_game(data)
            except ValueError:
                stats["unreadable"] += 1
                continue
            colors = np.array([COLOR_CODES[c] for c, _ in moves], dtype=np.int64)
            points = indices([p for _, p in moves], size)
            t1 = time.process_time()
            b, m, n, reason = replay(size, indices(black, size), indices(white, size), colors, points)
            if reason == SUPERKO:
                b, m, n, reason = replay(size, indices(black, size), indices(white, size), colors[:n], points[:n])
                reason = SUPERKO
            w = size + 2
            ours = b[rules.COLOR].reshape(w, w)[1:-1, 1:-1].copy()
            t2 = time.process_time()
            board = boards.Board(size)
            board.apply_setup(black, white, [])
            for color, point in moves[:n]:
                if point is not None:
                    board.play(point[0], point[1], color)
            theirs = board.board
            t3 = time.process_time()
            stats["games"] += 1
            stats["moves"] += len(moves)
            if reason:
                stats[REASONS[reason - 1]] += 1
            if not np.array_equal(ours, [[COLOR_CODES[c] for c in row] for row in theirs]):
                stats["mismatches"] += 1
                stats["mismatched"].append(name)
            stats["parse_s"] += t1 - t0
            stats["ours_s"] += t2 - t1
            stats["sgfmill_s"] += t3 - t2
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="folder of zip archives of SGF files")
    parser.add_argument("--limit", type=int, help="games per archive (default: all)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args()
    archives = sorted(args.data.glob("*.zip"))
    if not archives:
        sys.exit(f"no zip archives in {args.data}")
    replay(19, *(np.zeros(0, dtype=np.int64),) * 4)  # compile (or load) before timing
    start = time.perf_counter()
    processes = min(len(archives), os.cpu_count() or 1)
    with Pool(processes) as pool:
        rows = pool.starmap(check_archive, [(path, args.limit) for path in archives])
    wall = time.perf_counter() - start
    total = {k: sum(r[k] for r in rows) for k in rows[0] if k not in ("archive", "mismatched")}
    total["archive"] = "total"
    mismatched = [name for r in rows for name in r["mismatched"]]
    if args.json:
        del total["archive"]
        archives = [{k: v for k, v in r.items() if k != "mismatched"} for r in rows]
        print(json.dumps({**total, "wall_s": wall, "mismatched": mismatched, "archives": archives}))
        return
    columns = ["archive", "games", "moves", "mismatches", "unreadable", *REASONS, "parse_s", "ours_s", "sgfmill_s"]
    widths = [max(len(c), 16 if c == "archive" else 9) for c in columns]
    print("  ".join(c.ljust(w) if c == "archive" else c.rjust(w) for c, w in zip(columns, widths)))
    for row in [*rows, total]:
        cells = [f"{row[c]:.1f}" if c.endswith("_s") else str(row[c]) for c in columns]
        print("  ".join(s.ljust(w) if c == "archive" else s.rjust(w) for s, c, w in zip(cells, columns, widths)))
    print(
        f"\nwall {wall:.1f} s on {processes} processes; replay only: "
        f"ours {total['moves'] / total['ours_s']:,.0f} moves/s, "
        f"sgfmill {total['moves'] / total['sgfmill_s']:,.0f} moves/s ({total['sgfmill_s'] / total['ours_s']:.0f}x)"
    )
    print(
        "a move our rules refuse ends the comparison there; superko counts repeated positions, "
        "which the archive's Korean rules allow"
    )
    for name in mismatched[:20]:
        print("mismatch:", name)


if __name__ == "__main__":
    main()

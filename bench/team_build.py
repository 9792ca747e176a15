"""Benchmark of team building (``rate``'s build stage): CPU a position, and where it goes.

    python bench/team_build.py GAMES.parquet --games 100

Builds the teams of every position (or a ``--share`` of them, sampled as ``rate``
samples) of the first ``--games`` train games of GAMES with the patterns table
``--patterns`` (the bundled one by default) on one thread,
``--rounds`` times, and prints the CPU time a position of each stage, each stage a
kernel that does what the one before did and one thing more:

- replay: the moves played, the legal moves of every position listed;
- tactical: + every candidate's tactical feature levels;
- patterns: + every candidate's largest known pattern;

each read afresh at every position, then the same stages carried along the game (the moves
played tracked, the levels and patterns kept from the colour's previous turn where the moves
since changed nothing: ``tracked_features``, ``carried_patterns``), then

- kernel: + the combination keys written out (the team-building kernel itself);
- chunk: + the candidates compacted, their combinations interned and packed (``chunk_teams``).

The kernel compiles on first use, outside the timing.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from numba import njit
from shapemill.datasets.corpus import load_corpus
from shapemill.go.changes import new_tracker, play_tracked
from shapemill.go.reading import legal_moves, reading_scratch
from shapemill.go.rings import far_rings, geometry
from shapemill.go.rules import BLACK, OK, WHITE, illegal_reason, new_board, place_setup, play, to_point
from shapemill.miner import positions
from shapemill.miner.positions import GameLines, Replay, TeamBuffers, chunk_teams, sample_mask
from shapemill.miner.rate_command import VOCABULARY_COLUMNS
from shapemill.patterns.candidates import (
    Vocabulary,
    candidate_patterns,
    candidate_tactical,
    carried_patterns,
    pattern_memory,
)
from shapemill.patterns.features import N_FEATURES, tracked_features
from shapemill.patterns.latent import NO_LATENT
from shapemill.patterns.prior import KnowledgeArrays
from shapemill.tables import read_table

STAGE_REPLAY, STAGE_TACTICAL, STAGE_PATTERNS = 0, 1, 2


@njit(cache=True)
def _stage_game(g, lines, size, knowledge, stage, carry) -> int:
    """Replay game ``g`` doing the work of ``stage`` at every sampled position, each candidate
    read afresh or (``carry``) carried along the game as the team-building kernel does; the
    candidates read."""
    moves, offsets, first_color, setup, setup_start, mask = lines
    pad, delta, max_ring, lookup = knowledge.pad, knowledge.delta, knowledge.max_ring, knowledge.lookup
    far, level_index = knowledge.far, knowledge.level_index
    b, m = new_board(size)
    for color, row in ((BLACK, 2 * g), (WHITE, 2 * g + 1)):
        for i in range(setup_start[row], setup_start[row + 1]):
            place_setup(b, m, color, to_point(setup[i], size))
    scratch = reading_scratch(b, m)
    tracker = new_tracker(b, m)
    state = np.empty((size + 2 * pad) ** 2, dtype=np.int8)
    levels = np.zeros((size * size, N_FEATURES), dtype=np.int32)
    kept = np.zeros((3, b.shape[1], N_FEATURES), dtype=np.int32)
    read_at = np.full(3, -3)
    memory = (pattern_memory(b.shape[1]), pattern_memory(b.shape[1]))
    pattern = np.zeros(size * size, dtype=np.int32)
    reach = np.zeros(size * size, dtype=np.int32)
    read = 0
    lo = offsets[g]
    for n in range(offsets[g + 1] - lo):
        color = first_color[g] if n % 2 == 0 else 3 - first_color[g]
        point = to_point(moves[lo + n], size)
        if illegal_reason(b, m, color, point) != OK:
            return read
        if mask[lo + n]:
            points = legal_moves(b, m, color)
            if stage >= STAGE_TACTICAL and carry:
                tracked_features(b, m, color, points, tracker, n, kept[color], read_at[color] != n - 2)
                read_at[color] = n
            elif stage >= STAGE_TACTICAL:
                candidate_tactical(b, m, color, points, level_index, scratch, levels)
            if stage >= STAGE_PATTERNS and carry:
                carried_patterns(b, m, color, points, pad, delta, max_ring, lookup, far, state, memory[color - 1],
                                 pattern)
            elif stage >= STAGE_PATTERNS:
                candidate_patterns(b, m, color, points, pad, delta, max_ring, lookup, far, state, pattern, reach)
            read += len(points)
        if carry:
            play_tracked(b, m, color, point, tracker, n)
        else:
            play(b, m, color, point)
    return read


@njit(cache=True)
def _stage(games, lines, size, knowledge, stage, carry) -> int:
    read = 0
    for g in games:
        read += _stage_game(g, lines, size, knowledge, stage, carry)
    return read


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", help="a games table")
    parser.add_argument("--patterns", default=None, help="patterns table (default: the bundled one)")
    parser.add_argument("--games", dest="n_games", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--share", type=float, default=1.0,
                        help="share of the positions sampled (seed 0), as rate samples them (default: all)")
    args = parser.parse_args()
    if args.patterns is None:
        from shapemill.patterns.defaults import PATTERNS, default_table

        args.patterns = default_table(PATTERNS)
    corpus = load_corpus([args.games], split="train", limit=None)
    vocab = Vocabulary.from_patterns(read_table(args.patterns, "patterns", VOCABULARY_COLUMNS)[0])
    games = np.flatnonzero(corpus.board_size == 19)[: args.n_games]
    mask = sample_mask(corpus, None if args.share >= 1 else int(args.share * corpus.n_positions))
    replay = Replay.of(corpus, mask)
    n_pos = int(replay.per_game[games].sum())
    geo = geometry(19)
    knowledge = KnowledgeArrays(geo.pad, geo.delta, geo.max_ring, vocab.lookup, far_rings(19), vocab.level_index,
                                vocab.twin, positions.NO_GAMMA, *NO_LATENT)
    lines = GameLines(corpus.moves, replay.offsets, replay.first_color, replay.setup, replay.setup_start, mask)
    positions.use_threads(1)
    stages = {
        f"{name}{', carried' if carry else ''}": (lambda stage=stage, carry=carry:
                                                 _stage(games, lines, 19, knowledge, stage, carry))
        for carry in (False, True)
        for name, stage in (("replay", STAGE_REPLAY), ("tactical", STAGE_TACTICAL), ("patterns", STAGE_PATTERNS))
    }
    stages["kernel"] = lambda: _kernel(corpus, vocab, mask, replay, games)
    stages["chunk"] = lambda: chunk_teams(corpus, vocab, mask, replay, games)
    for run in stages.values():  # compile
        run()
    best = {name: float("inf") for name in stages}
    for _ in range(args.rounds):
        for name, run in stages.items():
            t = time.process_time()
            run()
            best[name] = min(best[name], time.process_time() - t)
    print(f"team building, {n_pos:,} positions ({args.share:.0%} sampled) of {len(games)} train games of "
          f"{args.games}, one thread, "
          f"best of {args.rounds} rounds (CPU microseconds a position; the stage alone in brackets)")
    before = 0.0
    for name, seconds in best.items():
        us = seconds / n_pos * 1e6
        print(f"{name:>18} {us:8.1f} us  ({'+' if name != 'replay, carried' else ''}{us - before:.1f})")
        before = 0.0 if name == "patterns" else us
    return 0


def _kernel(corpus, vocab, mask, replay, games) -> None:
    """The team-building kernel alone, into the buffers ``chunk_teams`` makes."""
    width = 19 * 19 + 1
    n_pos = int(replay.per_game[games].sum())
    out = TeamBuffers(np.empty(n_pos * width, dtype=np.int32), np.empty(n_pos * width, dtype=np.int64),
                      np.zeros(n_pos, dtype=np.int64), np.zeros(n_pos, dtype=np.int32), np.zeros(n_pos, dtype=np.int32),
                      np.ones(n_pos, dtype=np.int8))
    slots = np.concatenate([[0], np.cumsum(replay.per_game[games])]).astype(np.int64)
    geo = geometry(19)
    lines = GameLines(corpus.moves, replay.offsets, replay.first_color, replay.setup, replay.setup_start, mask)
    positions._chunk_candidates(games, lines, slots, 19, geo.pad, geo.delta, geo.max_ring, vocab.lookup,
                                far_rings(19), vocab.level_index, vocab.twin, out)


if __name__ == "__main__":
    sys.exit(main())

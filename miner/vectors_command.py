"""``shapemill vectors``: latent vectors fitted over a ratings table's gammas.

MM fits the gammas on every position, streamed from disk (``rate``); the latent vectors
(``patterns.latent``) are fitted by L-BFGS on a sample of positions held in memory, with
the gammas held (the settings: ``patterns.latent_settings``).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..datasets.info import ACCURACY_KEYS
from ..errors import ShapemillError
from ..files import output_errors
from ..patterns.candidates import Vocabulary, feature_numbers, rows_of
from ..patterns.knowledge import Knowledge
from ..patterns.latent import LATENT_META, with_latent
from ..patterns.latent_settings import BAND_STARTS
from ..progress import progress_bar
from ..tables import TableError, read_table, write_table
from .latent import fit_latent
from .mine_command import command_corpus
from .positions import build_teams, sample_mask


def vector_flags(table: pa.Table, vocab: Vocabulary, played: int, patterns: pa.Table | None = None) -> np.ndarray:
    """By feature of ``vocab`` (the vocabulary of the ratings table ``table``), whether it gets
    a latent vector: every tactical level and the pass, and the patterns and near twins the
    table says were played at least ``played`` times. A compact table keeps the counts of
    few patterns (``miner.compact``); ``patterns``, a patterns table's ``pattern_id`` and
    ``played``, gives the others theirs."""
    is_shape = pc.is_in(table["feature"].cast(pa.string()), value_set=pa.array(["pattern", "near_pattern"]))
    often = pc.greater_equal(table["played"].fill_null(0), played).to_numpy(zero_copy_only=False)
    flags = np.zeros(vocab.size, dtype=bool)
    flags[feature_numbers(table, vocab)] = ~is_shape.to_numpy(zero_copy_only=False) | often
    if patterns is not None:
        often = pc.and_(pc.is_valid(patterns["pattern_id"]), pc.greater_equal(patterns["played"].fill_null(0), played))
        ids = pc.filter(patterns["pattern_id"], often).combine_chunks().to_numpy()
        at = rows_of(vocab.pattern_ids, ids.view(np.int64))
        flags[at[at >= 0]] = True
    return flags


def run_vectors(games: list[str], ratings: str | None, output: str, positions: int, split: str, k: int,
                lam: float, played: int, iterations: int, seed: int, workers: int, quiet: bool = False,
                patterns: str | None = None) -> None:
    """Fit latent vectors over the gammas of ``ratings`` (None: the bundled table) on
    ``positions`` positions of the ``split`` games of ``games`` (seeded) and write the table
    with them to ``output``; ``patterns``: a patterns table whose counts say which patterns
    were played ``played`` times (``vector_flags``). Says what it fitted in one line."""
    knowledge = Knowledge.load(ratings)
    try:
        table, meta = read_table(knowledge.path, "ratings")
        vocab, gamma = knowledge.vocabulary, knowledge.gamma
        counts = None if patterns is None else read_table(patterns, "patterns", ["pattern_id", "played"])[0]
    except TableError as exc:
        raise ShapemillError(str(exc)) from None
    corpus = command_corpus(games, split, None)
    mask = sample_mask(corpus, positions, seed)
    start = time.perf_counter()
    bar = progress_bar(quiet, len(corpus), "game", "positions")
    teams = build_teams(corpus, vocab, mask, workers=workers, progress=bar.update if bar is not None else None)
    if bar is not None:
        bar.close()
    flags = vector_flags(table, vocab, played, counts)
    bar = progress_bar(quiet, iterations, "iteration", "vectors")
    latent, model = fit_latent(teams, gamma, flags, k, lam, iterations, np.array(BAND_STARTS), seed, workers,
                               bar.update if bar is not None else None)
    if bar is not None:
        bar.close()
    out, out_meta = with_latent(table, meta, vocab, latent)
    for key in (*ACCURACY_KEYS, "curve"):  # measured without the vectors: not this table's
        out_meta.pop(key, None)
        out_meta.get("params", {}).pop(key, None)
    out_meta[LATENT_META].update({"k": k, "features": int(flags.sum()), "positions": teams.n_positions,
                                  "lambda": lam, "played": played, "iterations": model.iterations, "seed": seed,
                                  "played_from": "the ratings" if patterns is None else Path(patterns).name})
    with output_errors(output):
        write_table(out, output, out_meta)
    print(f"{output}: vectors of {k} for {int(flags.sum()):,} features and {len(BAND_STARTS) + 1} move-number "
          f"bands, fitted on {teams.n_positions:,} positions in {model.iterations} iterations "
          f"({time.perf_counter() - start:.0f} s)")

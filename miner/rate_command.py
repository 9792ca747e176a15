"""``shapemill rate`` and ``shapemill evaluate``: games and tables in, ratings and reports out."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..datasets.corpus import table_files
from ..errors import ShapemillError
from ..files import check_writable, output_errors
from ..patterns.candidates import GROUP_NAMES, Vocabulary
from ..patterns.knowledge import Knowledge
from ..plots import pyplot, save_png
from ..progress import progress_bar
from ..tables import TableError, read_table, table_metadata, write_table
from .evaluate import evaluate_table
from .mine_command import command_corpus, peak_memory_mb, peak_memory_parts_mb
from .positions import build_teams, fit_memory, positions_within, sample_mask
from .rate import fit

ELO_PER_LOG = 400 / np.log(10)


def _table(path: str, kind: str, columns: list[str] | None = None) -> tuple[pa.Table, dict]:
    try:
        return read_table(path, kind, columns)
    except (TableError, OSError) as exc:
        raise ShapemillError(str(exc)) from None


def ratings_table(vocab: Vocabulary, result, keys: dict[int, bytes]) -> pa.Table:
    """The ratings table: a row per feature, highest Elo first."""
    elo = ELO_PER_LOG * np.log(result.gamma)
    order = np.argsort(-elo, kind="stable")
    is_pattern = vocab.group == 0
    rings = np.zeros(vocab.size, dtype=np.int16)
    rings[: len(vocab.pattern_rings)] = vocab.pattern_rings
    return pa.table(
        {
            "feature": pa.array([GROUP_NAMES[g] for g in vocab.group[order]], pa.string()).dictionary_encode(),
            "value": pa.array(vocab.value[order], pa.uint64()),
            "size": pa.array([int(rings[i]) if is_pattern[i] else None for i in order], pa.int16()),
            "key": pa.array([keys.get(int(vocab.value[i])) if is_pattern[i] else None for i in order], pa.binary()),
            "gamma": pa.array(result.gamma[order]),
            "elo": pa.array(elo[order]),
            "ci_low": pa.array(ELO_PER_LOG * np.log(result.ci_low[order])),
            "ci_high": pa.array(ELO_PER_LOG * np.log(result.ci_high[order])),
            "seen": pa.array(result.seen[order]),
            "played": pa.array(result.played[order]),
        }
    )


#: The columns of a patterns table that the fit's vocabulary reads.
VOCABULARY_COLUMNS = ["feature", "pattern_id", "level", "size"]


def _positions_within_memory(corpus, vocab: Vocabulary, max_memory: float, max_positions: int | None) -> int:
    """As many positions (at most ``max_positions``) as a fit's peak can hold within
    ``max_memory`` GB beside what is loaded; says so on stdout."""
    loaded = peak_memory_parts_mb()[0] * 2**20
    chosen = positions_within(corpus, max_memory * 2**30 - loaded, vocab.size, max_positions)
    if chosen == 0:
        raise ShapemillError(f"--max-memory {max_memory:g} GB: no room for a fit beside the "
                             f"{loaded / 2**30:.1f} GB of games and patterns loaded")
    print(f"--max-memory {max_memory:g} GB: {chosen:,} of {corpus.n_positions:,} positions "
          f"(estimated {(loaded + fit_memory(corpus, chosen, vocab.size)) / 2**30:.1f} GB at the peak)")
    return chosen


def _fit_with_progress(teams, max_iter: int, tol: float, workers: int):
    """The MM fit of ``teams``, each sweep's line (log-likelihood and its change) printed,
    above a progress bar on a terminal as when piped."""
    bar = progress_bar(False, max_iter, "sweep", "MM")
    previous = []

    def report(it: int, objective: float, ll: float, seconds: float) -> None:
        change = f"{ll - previous[-1]:+.5f}" if previous else "       -"
        previous.append(ll)
        line = (f"iteration {it:3d}  log-likelihood/position {ll:.5f}  change {change}  with prior {objective:.5f}  "
                f"{seconds:.2f} s/iteration")
        if bar is None:
            print(line)
        else:
            bar.write(line)  # above the bar, as the lines are when piped
            bar.update(1)

    result = fit(teams, max_iter=max_iter, tol=tol, report=report, workers=workers)
    if bar is not None:
        bar.close()
    return result


def _pattern_keys(patterns: str) -> dict[int, bytes]:
    """Pattern id -> packed key, from the patterns table."""
    keys_table, _ = _table(patterns, "patterns", ["feature", "pattern_id", "key"])
    patterns_only = keys_table.filter(pc.equal(keys_table["feature"], "pattern"))
    return dict(zip(patterns_only["pattern_id"].to_pylist(), patterns_only["key"].to_pylist()))


def run_rate(
    games: list[str], patterns: str, output: str, max_iter: int, tol: float, split: str,
    max_positions: int | None, limit: int | None, seed: int, workers: int, max_memory: float | None = None,
) -> None:
    """Fit the ratings of every feature of ``patterns`` on positions of ``games``;
    with ``max_memory`` (GB), on as many positions (at most ``max_positions``) as
    the fit's peak can hold within it."""
    start = time.perf_counter()
    with output_errors(output):
        check_writable(output)
    table, pmeta = _table(patterns, "patterns", VOCABULARY_COLUMNS)
    corpus = command_corpus(games, split, limit)
    vocab = Vocabulary.from_patterns(table)
    del table
    if max_memory is not None:
        max_positions = _positions_within_memory(corpus, vocab, max_memory, max_positions)
    built = time.perf_counter()
    bar = progress_bar(False, len(corpus), "game", "positions")
    teams = build_teams(corpus, vocab, sample_mask(corpus, max_positions, seed), workers=workers,
                        progress=bar.update if bar is not None else None)
    if bar is not None:
        bar.close()
    del vocab.lookup  # the fit looks no pattern up: its hash table's memory back before the fit's peak
    print(
        f"{teams.n_positions:,} positions of {len(corpus):,} games, {teams.n_candidates:,} candidates "
        f"({teams.nbytes / 2**20:,.0f} MB), {len(teams.combos):,} combinations of tactical features, "
        f"{vocab.size:,} features ({len(vocab.pattern_ids):,} patterns); built in {time.perf_counter() - built:.1f} s"
    )
    result = _fit_with_progress(teams, max_iter, tol, workers)
    n_positions = teams.n_positions
    del teams
    keys = _pattern_keys(patterns)
    meta = table_metadata(
        "ratings",
        fingerprint=corpus.fingerprint(),
        params={
            "patterns": str(patterns),
            "patterns_fingerprint": pmeta.get("fingerprint", ""),
            "games": [str(g) for g in games],
            "split": split,
            "limit_games": limit,
            "positions": n_positions,
            "max_positions": max_positions,
            "max_memory_gb": max_memory,
            "seed": seed,
            "max_iter": max_iter,
            "tol": tol,
            "iterations": len(result.objective),
            "objective": result.objective,
            "seconds_per_iteration": result.seconds_per_iteration,
        },
    )
    with output_errors(output):
        write_table(ratings_table(vocab, result, keys), output, meta)
    print(
        f"wrote {vocab.size:,} ratings to {output} in {time.perf_counter() - start:.0f} s, "
        f"peak memory {peak_memory_mb():,.0f} MB"
    )


def run_evaluate(
    games: list[str], ratings: str, split: str | None, as_json: bool, plot: str | None,
    max_positions: int | None, limit: int | None, seed: int, workers: int,
) -> None:
    """Report how well ``ratings`` predict the moves of ``games`` (``split`` None: the test
    split of games tables, every game of SGF input)."""
    if plot:
        with output_errors(plot):
            check_writable(plot)
    if split is None:  # a games table has its held-out games; the user's own SGF files are all to evaluate
        split = "test" if any(table_files(g) for g in games if Path(g).exists()) else "all"
    knowledge = Knowledge.load(ratings)  # a TableError (one line) before the games are read
    corpus = command_corpus(games, split, limit)
    bar = progress_bar(False, len(corpus), "game", "evaluate")
    report = evaluate_table(knowledge, corpus, sample_mask(corpus, max_positions, seed), workers,
                            progress=bar.update if bar is not None else None)
    if bar is not None:
        bar.close()
    if plot:
        _plot(report["cumulative"], plot)
    if as_json:
        print(json.dumps(report))
        return
    print(f"{'moves':>10} {'positions':>10} {'top-1':>7} {'top-5':>7} {'top-10':>7} {'log-lik':>8}")
    for name, row in [("all", report), *report["bands"].items()]:
        if not row["positions"]:
            print(f"{name:>10} {0:>10} {'-':>7} {'-':>7} {'-':>7} {'-':>8}")
            continue
        print(
            f"{name:>10} {row['positions']:>10,} {row['top1']:>7.1%} {row['top5']:>7.1%} "
            f"{row['top10']:>7.1%} {row['mean_log_likelihood']:>8.3f}"
        )


def _plot(cumulative: list[float], path: str) -> None:
    plt = pyplot()
    k = np.arange(1, len(cumulative) + 1)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(k, np.array(cumulative) * 100, marker="o", markersize=3)
    ax.set_xlabel("k")
    ax.set_ylabel("played move within the model's top k (%)")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    save_png(fig, path)

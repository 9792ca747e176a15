"""``shapemill rate`` and ``shapemill evaluate``: games and tables in, ratings and reports out."""

from __future__ import annotations

import json
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ShapemillError
from ..patterns.tables import TableError, read_table, table_metadata, write_table
from .candidates import GROUP_NAMES, Vocabulary, ratings_model
from .evaluate import evaluate_teams
from .mine_command import command_corpus, peak_memory_mb
from .positions import build_teams, sample_mask
from .rate import fit

ELO_PER_LOG = 400 / np.log(10)


def _table(path: str, kind: str) -> tuple[pa.Table, dict]:
    try:
        return read_table(path, kind)
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


def run_rate(
    games: list[str], patterns: str, output: str, max_iter: int, tol: float, split: str,
    max_positions: int | None, limit: int | None, seed: int, workers: int,
) -> None:
    """Fit the ratings of every feature of ``patterns`` on positions of ``games``."""
    start = time.perf_counter()
    table, pmeta = _table(patterns, "patterns")
    corpus = command_corpus(games, split, limit)
    vocab = Vocabulary.from_patterns(table)
    built = time.perf_counter()
    teams = build_teams(corpus, vocab, sample_mask(corpus, max_positions, seed), workers=workers)
    print(
        f"{teams.n_positions:,} positions of {len(corpus):,} games, {teams.n_candidates:,} candidates "
        f"({teams.nbytes / 2**20:,.0f} MB), {len(teams.combos):,} combinations of tactical features, "
        f"{vocab.size:,} features ({len(vocab.pattern_ids):,} patterns); built in {time.perf_counter() - built:.1f} s"
    )

    def report(it: int, objective: float, ll: float, seconds: float) -> None:
        print(f"iteration {it:3d}  log-likelihood/position {ll:.5f}  with prior {objective:.5f}  {seconds:.2f} s/iteration")

    result = fit(teams, max_iter=max_iter, tol=tol, report=report, workers=workers)
    patterns_only = table.filter(pc.equal(table["feature"], "pattern"))
    keys = dict(zip(patterns_only["pattern_id"].to_pylist(), patterns_only["key"].to_pylist()))
    meta = table_metadata(
        "ratings",
        fingerprint=corpus.fingerprint(),
        params={
            "patterns": str(patterns),
            "patterns_fingerprint": pmeta.get("fingerprint", ""),
            "games": [str(g) for g in games],
            "split": split,
            "positions": teams.n_positions,
            "max_positions": max_positions,
            "seed": seed,
            "max_iter": max_iter,
            "tol": tol,
            "iterations": len(result.objective),
            "objective": result.objective,
            "seconds_per_iteration": result.seconds_per_iteration,
        },
    )
    write_table(ratings_table(vocab, result, keys), output, meta)
    print(
        f"wrote {vocab.size:,} ratings to {output} in {time.perf_counter() - start:.0f} s, "
        f"peak memory {peak_memory_mb():,.0f} MB"
    )


def run_evaluate(
    games: list[str], ratings: str, split: str, as_json: bool, plot: str | None,
    max_positions: int | None, limit: int | None, seed: int, workers: int,
) -> None:
    """Report how well ``ratings`` predict the moves of ``games``."""
    table, _ = _table(ratings, "ratings")
    corpus = command_corpus(games, split, limit)
    vocab, gamma = ratings_model(table)
    teams = build_teams(corpus, vocab, sample_mask(corpus, max_positions, seed), workers=workers)
    report = evaluate_teams(teams, gamma)
    if plot:
        _plot(report["cumulative"], plot)
    if as_json:
        print(json.dumps(report))
        return
    print(f"{'moves':>10} {'positions':>10} {'top-1':>7} {'top-5':>7} {'top-10':>7} {'log-lik':>8}")
    for name, row in [("all", report), *report["bands"].items()]:
        print(
            f"{name:>10} {row['positions']:>10,} {row['top1']:>7.1%} {row['top5']:>7.1%} "
            f"{row['top10']:>7.1%} {row['mean_log_likelihood']:>8.3f}"
        )


def _plot(cumulative: list[float], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ShapemillError("--plot needs matplotlib: pip install 'shapemill[plot]'") from None
    k = np.arange(1, len(cumulative) + 1)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(k, np.array(cumulative) * 100, marker="o", markersize=3)
    ax.set_xlabel("k")
    ax.set_ylabel("played move within the model's top k (%)")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)

"""``shapemill rate`` and ``shapemill evaluate``: games and tables in, ratings and reports out."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..datasets.corpus import table_files
from ..errors import ShapemillError
from ..files import check_writable, output_errors
from ..patterns.candidates import GROUP_NAMES, NEAR_GROUP, Vocabulary
from ..patterns.near import NEAR_PLAYED
from ..patterns.knowledge import Knowledge
from ..plots import pyplot, save_png
from ..progress import progress_bar
from ..tables import TableError, read_table, table_metadata, write_table
from .evaluate import evaluate_table
from .mine_command import command_corpus, peak_memory_mb, peak_memory_parts_mb
from .positions import fit_memory, positions_within, sample_mask, use_threads
from .rate import fit_competitions
from .team_shards import OnDisk, WorkFolder, build_shards, identity_of, shard_bytes

ELO_PER_LOG = 400 / np.log(10)


def _table(path: str, kind: str, columns: list[str] | None = None) -> tuple[pa.Table, dict]:
    try:
        return read_table(path, kind, columns)
    except (TableError, OSError) as exc:
        raise ShapemillError(str(exc)) from None


def ratings_table(vocab: Vocabulary, result, keys: pa.Array) -> pa.Table:
    """The ratings table: a row per feature, highest Elo first; ``keys``: each pattern's
    packed key, in the vocabulary's order. A near twin's row has its pattern's id, ring
    and key, and a twin the fit never saw has none (its pattern's gamma stands for it,
    ``ratings_model``). Built column by column in Arrow: millions of rows, no Python object
    a row."""
    elo = ELO_PER_LOG * np.log(result.gamma)
    order = np.argsort(-elo, kind="stable")
    order = order[(vocab.group[order] != NEAR_GROUP) | (result.seen[order] > 0)]
    n_patterns = len(vocab.pattern_ids)
    shape = np.full(vocab.size, -1, dtype=np.int64)  # the pattern row of each pattern and twin
    shape[:n_patterns] = np.arange(n_patterns)
    shape[vocab.twin[vocab.twin >= 0]] = np.flatnonzero(vocab.twin >= 0)
    of_row = shape[order]
    is_shape = of_row >= 0
    at = pa.array(np.where(is_shape, of_row, 0), mask=~is_shape)
    names = pa.array(GROUP_NAMES, pa.string())
    return pa.table(
        {
            "feature": pa.DictionaryArray.from_arrays(pa.array(vocab.group[order].astype(np.int32)), names),
            "value": pa.array(vocab.value[order], pa.uint64()),
            "size": pa.array(vocab.pattern_rings.astype(np.int16)).take(at),
            "key": keys.cast(pa.binary()).take(at),
            "gamma": pa.array(result.gamma[order]),
            "elo": pa.array(elo[order]),
            "ci_low": pa.array(ELO_PER_LOG * np.log(result.ci_low[order])),
            "ci_high": pa.array(ELO_PER_LOG * np.log(result.ci_high[order])),
            "seen": pa.array(result.seen[order]),
            "played": pa.array(result.played[order]),
        }
    )


#: The columns of a patterns table that the fit's vocabulary reads.
VOCABULARY_COLUMNS = ["feature", "pattern_id", "level", "size", "played"]


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


def _sweep_reporter(bar):
    """A fit's ``report``: each sweep's line (log-likelihood and its change), above a
    progress bar on a terminal as when piped."""
    previous = []

    def report(it: int, objective: float, ll: float, seconds: float) -> None:
        change = f"{ll - previous[-1]:+.5f}" if previous else "       -"
        previous.append(ll)
        line = (f"iteration {it:3d}  log-likelihood/position {ll:.5f}  change {change}  with prior {objective:.5f}  "
                f"{seconds:.2f} s/iteration")
        if bar is None:
            print(line, flush=True)
        else:
            bar.write(line)  # above the bar, as the lines are when piped
            bar.update(1)

    return report


def _pattern_keys(patterns: str, vocab: Vocabulary) -> pa.Array:
    """Each pattern's packed key, from the patterns table, in ``vocab``'s order (which is
    the table's: ``Vocabulary.from_patterns``)."""
    keys_table, _ = _table(patterns, "patterns", ["feature", "pattern_id", "key"])
    patterns_only = keys_table.filter(pc.equal(keys_table["feature"], "pattern"))
    if not np.array_equal(patterns_only["pattern_id"].to_numpy().view(np.int64), vocab.pattern_ids):
        raise ShapemillError(f"{patterns}: the patterns table changed during the fit")
    return patterns_only["key"].combine_chunks()


def _check_disk(work: WorkFolder, corpus, mask: np.ndarray) -> None:
    """Say how much disk the shards take; refuse in one line when the disk cannot hold them."""
    need = shard_bytes(corpus, mask)
    held = work.held_bytes()
    there = work.path
    while not there.exists():
        there = there.parent
    free = shutil.disk_usage(there).free
    print(f"shards of {int(mask.sum()):,} positions: about {need / 2**30:,.2f} GB in {work.path} "
          f"({need / max(1, int(mask.sum())):,.0f} bytes a position; {free / 2**30:,.1f} GB free)", flush=True)
    if need - held > free:
        raise ShapemillError(f"{work.path}: the shards need about {(need - held) / 2**30:,.2f} GB more, "
                             f"and the disk has {free / 2**30:,.2f} GB free; give another --work-dir")


def run_rate(
    games: list[str], patterns: str, output: str, max_iter: int, tol: float, split: str,
    max_positions: int | None, limit: int | None, seed: int, workers: int, max_memory: float | None = None,
    work_dir: str | None = None, scheduler: str | None = None, quiet: bool = False,
    near_played: int = NEAR_PLAYED,
) -> None:
    """Fit the ratings of every feature of ``patterns`` (a near twin for each pattern played
    ``near_played`` times) on positions of ``games``
    (``max_positions`` None: all of them); with ``max_memory`` (GB), on as many
    positions as the in-memory fit's peak could hold within it. The teams go to
    shards in ``work_dir`` (default: beside the output), which the sweeps stream and
    which, with the gammas of the last finished sweep, let the same command resume;
    on the Dask cluster ``scheduler`` when given; ``quiet``: no progress bars."""
    start = time.perf_counter()
    with output_errors(output):
        check_writable(output)
    table, pmeta = _table(patterns, "patterns", VOCABULARY_COLUMNS)
    corpus = command_corpus(games, split, limit)
    vocab = Vocabulary.from_patterns(table, near_played)
    del table
    if max_positions is not None and max_positions > corpus.n_positions:
        print(f"--max-positions {max_positions:,}: the games hold {corpus.n_positions:,} positions; "
              "fitting all of them", flush=True)
    if max_memory is not None:
        max_positions = _positions_within_memory(corpus, vocab, max_memory, max_positions)
    mask = sample_mask(corpus, max_positions, seed)
    work = WorkFolder(work_dir or f"{output}.work", identity_of(corpus, vocab, mask))
    with output_errors(work.path):
        _check_disk(work, corpus, mask)
        work.open()
    if scheduler is None:
        use_threads(workers)
        result, where = _rate_here(work, corpus, vocab, mask, max_iter, tol, quiet), ""
    else:
        from .rate_cluster import rate_on_cluster

        built_at = time.perf_counter()
        with output_errors(work.path):
            result, n_workers = rate_on_cluster(
                scheduler, work, corpus, vocab, mask, max_iter, tol, _sweep_reporter,
                lambda built: print(built_line(built, corpus, vocab, time.perf_counter() - built_at), flush=True),
                lambda state: print(resumed_line(work, state), flush=True))
        where = f" on {n_workers} Dask worker(s)"
    keys = _pattern_keys(patterns, vocab)
    meta = table_metadata(
        "ratings",
        fingerprint=corpus.fingerprint(),
        params={
            "patterns": str(patterns),
            "patterns_fingerprint": pmeta.get("fingerprint", ""),
            "games": [str(g) for g in games],
            "split": split,
            "limit_games": limit,
            "positions": int(mask.sum()),
            "max_positions": max_positions,
            "max_memory_gb": max_memory,
            "seed": seed,
            "near_played": near_played,
            "max_iter": max_iter,
            "tol": tol,
            "iterations": len(result.objective),
            "objective": result.objective,
            "seconds_per_iteration": result.seconds_per_iteration,
        },
    )
    with output_errors(output):
        write_table(ratings_table(vocab, result, keys), output, meta)
    work.remove()
    print(
        f"wrote {vocab.size:,} ratings to {output}{where} in {time.perf_counter() - start:.0f} s, "
        f"peak memory {peak_memory_mb():,.0f} MB"
    )


def built_line(built, corpus, vocab, seconds: float) -> str:
    """The line that says what the shards hold."""
    shards = f"{built.n_shards:,} shard{'s' if built.n_shards != 1 else ''}"
    return (f"{built.positions:,} positions of {len(corpus):,} games in {shards} "
            f"({built.bytes / 2**20:,.0f} MB, {built.bytes / max(1, built.positions):,.0f} bytes a position), "
            f"{len(built.combos):,} combinations of tactical features, {vocab.size:,} features "
            f"({len(vocab.pattern_ids):,} patterns, {vocab.first_tactical - len(vocab.pattern_ids):,} near twins); "
            f"built in {seconds:.1f} s")


def resumed_line(work: WorkFolder, state) -> str:
    return f"resuming the fit in {work.path} after sweep {len(state.objective) + 1} (the gammas it kept)"


def _rate_here(work: WorkFolder, corpus, vocab: Vocabulary, mask: np.ndarray, max_iter: int, tol: float,
               quiet: bool):
    """Build the shards in this process and fit on them."""
    built_at = time.perf_counter()
    bar = progress_bar(quiet, len(corpus), "game", "positions")
    with output_errors(work.path):
        built = build_shards(work, corpus, vocab, mask, bar.update if bar is not None else None)
    if bar is not None:
        bar.close()
    vocab.__dict__.pop("lookup", None)  # the fit looks no pattern up: its hash table's memory back before the fit
    print(built_line(built, corpus, vocab, time.perf_counter() - built_at), flush=True)
    state = work.state()
    if state is not None:
        print(resumed_line(work, state), flush=True)
    bar = progress_bar(quiet, max_iter, "sweep", "MM")
    with output_errors(work.path):
        result = fit_competitions(OnDisk(work, built, vocab.size, vocab.first_tactical), max_iter, tol,
                                  report=_sweep_reporter(bar), resume=state, checkpoint=work.save_state)
    if bar is not None:
        bar.close()
    return result


def run_evaluate(
    games: list[str], ratings: str, split: str | None, as_json: bool, plot: str | None,
    max_positions: int | None, limit: int | None, seed: int, workers: int, scheduler: str | None = None,
    quiet: bool = False,
) -> None:
    """Report how well ``ratings`` predict the moves of ``games`` (``split`` None: the test
    split of games tables, every game of SGF input), on the Dask cluster ``scheduler`` when
    given; ``quiet``: no progress bar."""
    if plot:
        with output_errors(plot):
            check_writable(plot)
    if split is None:  # a games table has its held-out games; the user's own SGF files are all to evaluate
        split = "test" if any(table_files(g) for g in games if Path(g).exists()) else "all"
    knowledge = Knowledge.load(ratings)  # a TableError (one line) before the games are read
    corpus = command_corpus(games, split, limit)
    mask = sample_mask(corpus, max_positions, seed)
    if scheduler is None:
        bar = progress_bar(quiet, len(corpus), "game", "evaluate")
        report = evaluate_table(knowledge, corpus, mask, workers, progress=bar.update if bar is not None else None)
        if bar is not None:
            bar.close()
    else:
        from .cluster import dask_client
        from .rate_cluster import evaluate_on_cluster

        with dask_client(scheduler) as client:
            report = evaluate_on_cluster(client, corpus, mask, knowledge.vocabulary, knowledge.gamma, knowledge.latent)
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

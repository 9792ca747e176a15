"""``shapemill mine``: games in, patterns table out, with a summary people can read."""

from __future__ import annotations

import os
import resource
import time
from dataclasses import asdict

import numpy as np
import pyarrow as pa

from ..datasets import InputError
from ..datasets.corpus import Corpus, load_corpus
from ..errors import ShapemillError
from ..files import check_writable, output_errors
from ..go.rings import ring_points
from ..progress import progress_bar
from ..tables import TableError, table_metadata, write_table
from ..workers import WorkerDied
from .feature_counts import count_features
from .mine import Mined, MineParams, discovery_sample, mine_patterns

WHOLE_BOARD = 361


def patterns_table(rows: dict, features: dict) -> pa.Table:
    """The patterns table: a row per kept spatial pattern (``feature`` = 'pattern'),
    most played first, then a row per tactical-feature level."""
    order = np.lexsort((rows["pattern_id"], -rows["played"]))
    n, k = len(order), len(features["level"])
    seen = np.concatenate([rows["seen"][order], features["seen"]])
    played = np.concatenate([rows["played"][order], features["played"]])
    rings = rows["ring"][order]
    return pa.table(
        {
            "feature": pa.array(["pattern"] * n + features["feature"], pa.string()).dictionary_encode(),
            "pattern_id": pa.array(list(rows["pattern_id"][order]) + [None] * k, pa.uint64()),
            "level": pa.array([None] * n + features["level"].tolist(), pa.int32()),
            "size": pa.array(list(rings) + [None] * k, pa.int16()),
            "points": pa.array([ring_points(int(r)) for r in rings] + [None] * k, pa.int16()),
            "key": pa.concat_arrays([rows["key"].take(order), pa.nulls(k, pa.binary())]),
            "seen": pa.array(seen, pa.int64()),
            "played": pa.array(played, pa.int64()),
            "p_played": pa.array(played / np.maximum(seen, 1), pa.float64()),
        }
    )


def command_corpus(games: list[str], split: str, limit: int | None) -> Corpus:
    """The games of a command, or a one-line error naming what could not be read."""
    try:
        corpus = load_corpus(games, split=split, limit=limit)
    except (InputError, OSError, ValueError, TableError) as exc:
        raise ShapemillError(str(exc)) from None
    if len(corpus) == 0:
        hint = " (--split all takes every game)" if split != "all" else ""
        raise ShapemillError(f"no {split} games in {', '.join(map(str, games))}{hint}")
    return corpus


def peak_memory_mb() -> float:
    """Peak resident memory of this process plus that of its largest finished
    worker, in MB: an upper bound (forked workers share pages with this process)."""
    return sum(peak_memory_parts_mb())


def peak_memory_parts_mb() -> tuple[float, float]:
    """Peak resident memory of this process and of its largest finished worker, in MB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return own / 1024, children / 1024


def _mine_here(paths: list[str], params: MineParams, split: str, workers: int, limit: int | None, quiet: bool) -> Mined:
    """Mine in this process and ``workers`` forked ones."""
    corpus = command_corpus(paths, split, limit)
    discovery = len(discovery_sample(len(corpus), params)) * (1 + params.discovery_rounds)
    bar = progress_bar(quiet, discovery + 2 * len(corpus), "game", "mine")
    seconds: dict[str, float] = {}
    rows = mine_patterns(corpus, params, workers, bar.update if bar is not None else None, seconds)
    features_start = time.perf_counter()
    features = count_features(corpus, workers, bar.update if bar is not None else None)
    seconds["features"] = time.perf_counter() - features_start
    if bar is not None:
        bar.close()
    threshold, dictionary = rows.pop("discovery_threshold"), rows.pop("dictionary")
    return Mined(
        rows, features, threshold, dictionary, corpus.fingerprint(), len(corpus), corpus.n_positions, workers, seconds
    )


def _mine_on_dask(paths: list[str], params: MineParams, split: str, scheduler: str, limit: int | None, quiet: bool) -> Mined:
    """Mine on the Dask cluster ``scheduler``, with progress in shard tasks."""
    from .cluster import ClusterError, dask_client, mine_on_cluster

    bar = progress_bar(quiet, None, "shard", "mine")

    def planned(n: int) -> None:
        bar.total = n
        bar.refresh()

    try:
        with dask_client(scheduler) as client:
            return mine_on_cluster(
                client, paths, params, split, limit, *((bar.update, planned) if bar is not None else (None, None))
            )
    except ClusterError as exc:
        raise ShapemillError(str(exc)) from None
    finally:
        if bar is not None:
            bar.close()


def write_mined(mined: Mined, output: str | os.PathLike, params: MineParams, split: str, paths: list) -> None:
    """Write the patterns table of ``mined`` (mined from ``paths``) to ``output``."""
    meta = table_metadata(
        "patterns",
        fingerprint=mined.fingerprint,
        params={
            **asdict(params),
            "split": split,
            "games": mined.games,
            "positions": mined.positions,
            "discovery_threshold": mined.threshold,
            "dictionary": mined.dictionary,
            "sources": [str(p) for p in paths],
        },
    )
    write_table(patterns_table(mined.rows, mined.features), output, meta)


def run_mine(
    paths: list[str], output: str, params: MineParams, split: str, workers: int,
    limit: int | None, quiet: bool, scheduler: str | None = None,
) -> None:
    """Mine ``paths`` into the patterns table at ``output`` and print a summary;
    on the Dask cluster ``scheduler`` when given, else with ``workers`` processes."""
    start = time.perf_counter()
    with output_errors(output):
        check_writable(output)
    try:
        if scheduler is None:
            mined = _mine_here(paths, params, split, workers, limit, quiet)
        else:
            mined = _mine_on_dask(paths, params, split, scheduler, limit, quiet)
    except WorkerDied as exc:
        raise ShapemillError(f"{output}: not written, {exc}") from None
    with output_errors(output):
        write_mined(mined, output, params, split, paths)
    rows, features = mined.rows, mined.features
    if not quiet:
        total = time.perf_counter() - start
        sizes = np.bincount(rows["ring"])
        where = f"{mined.workers} Dask worker(s)" if scheduler else f"{mined.workers} worker(s)"
        steps = ", ".join(f"{step} {s:.1f} s" for step, s in mined.seconds.items())
        print(
            f"mined {mined.games:,} games, {mined.positions:,} positions in {total:.1f} s "
            f"({mined.positions / total:,.0f} positions/s, {where})" + (f": {steps}" if steps else "")
        )
        print(f"kept {len(rows['seen']):,} patterns and {len(features['seen']):,} feature levels; rings {', '.join(f'{k}: {n:,}' for k, n in enumerate(sizes) if n)}")
        own, worker = peak_memory_parts_mb()
        print(f"peak memory {own:,.0f} MB in this process, {worker:,.0f} MB in the largest worker; wrote {output}")

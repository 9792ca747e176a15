"""``shapemill mine``: games in, patterns table out, with a summary people can read."""

from __future__ import annotations

import resource
import sys
import time
from dataclasses import asdict

import click
import numpy as np
import pyarrow as pa

from shapemill.datasets import InputError
from shapemill.datasets.corpus import Corpus, load_corpus
from shapemill.miner.mine import MineParams, count_features, mine_patterns
from shapemill.miner.spatial import ring_points
from shapemill.patterns.tables import TableError, table_metadata, write_table

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
            "key": pa.array([rows["key"][i] for i in order] + [None] * k, pa.binary()),
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
        raise click.ClickException(str(exc)) from None
    if len(corpus) == 0:
        raise click.ClickException(f"no {split} games in {', '.join(map(str, games))}")
    return corpus


def peak_memory_mb() -> float:
    """Peak resident memory of this process and its finished workers, in MB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return (own + children) / 1024


def run_mine_command(
    paths: list[str], output: str, params: MineParams, split: str, workers: int,
    limit: int | None, quiet: bool,
) -> None:
    """Mine ``paths`` into the patterns table at ``output`` and print a summary."""
    start = time.perf_counter()
    corpus = command_corpus(paths, split, limit)
    discovery = min(len(corpus), params.discovery_games)
    bar = None
    if not quiet and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=discovery + 2 * len(corpus), unit="game", desc="mine", file=sys.stderr)
    rows = mine_patterns(corpus, params, workers, bar.update if bar else None)
    features = count_features(corpus, workers, bar.update if bar else None)
    if bar:
        bar.close()
    meta = table_metadata(
        "patterns",
        fingerprint=corpus.fingerprint(),
        params={
            **asdict(params),
            "split": split,
            "games": len(corpus),
            "positions": corpus.n_positions,
            "discovery_threshold": rows.pop("discovery_threshold"),
            "sources": [str(p) for p in paths],
        },
    )
    table = patterns_table(rows, features)
    write_table(table, output, meta)
    if not quiet:
        seconds = time.perf_counter() - start
        sizes = np.bincount(rows["ring"])
        click.echo(
            f"mined {len(corpus):,} games, {corpus.n_positions:,} positions in {seconds:.1f} s "
            f"({corpus.n_positions / seconds:,.0f} positions/s, {workers} worker(s))"
        )
        click.echo(f"kept {len(rows['seen']):,} patterns and {len(features['seen']):,} feature levels; rings {', '.join(f'{k}: {n:,}' for k, n in enumerate(sizes) if n)}")
        click.echo(f"peak memory {peak_memory_mb():,.0f} MB; wrote {output}")

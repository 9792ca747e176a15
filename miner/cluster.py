"""``shapemill mine`` on a Dask cluster: the same patterns table, from many machines.

Mining is a map (games -> counts) and a reduce (sums of counts, minima of first
occurrences), run here on Dask distributed rather than forked processes. The
client ships no games: it sends paths and ranges, and the workers read the games
table themselves, so every worker needs read access to the paths given.

1. *Plan* (one task): the games table files of the paths (a partitioned
   dataset's parts, in order) and the number of games of the split in each,
   cut into shards: the split's games ``start:stop`` of one file, with the
   ordinal of game ``start`` in the whole corpus.
2. *Discovery*: a task per discovery shard and round, each worker loading the
   corpus once as one process loads it; a round's shard tables are summed by a
   tree of merges and thresholded on the cluster, as :func:`mine.discover` does,
   and the dictionary travels as columns (pattern ids, rings, counts).
3. *Counting*, a task per shard and pass (tactical features, which need no
   dictionary and run alongside discovery; then patterns): each shard's games
   are counted numbered from 0, and its first occurrences then moved to the
   corpus's ordinals.
4. *Reduce*: sums by a tree of pairwise merges, on the cluster; pruning to the
   kept patterns is one task there.
5. *Keys*: tasks of equal numbers of kept patterns (most are first seen in the
   first games) rebuild their keys from the games of the shard where each was
   first seen.

Sums and minima do not depend on how games are cut into shards or merged, so
the client writes the table of a one-process run byte for byte. Every task is a
pure function of its arguments and of files that do not change during the run,
and merges copy rather than update their inputs: a task lost with its worker is
simply run again.
"""

from __future__ import annotations

import functools
import logging
import math
import os
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from ..datasets.corpus import Corpus, count_games, load_corpus, load_part, table_files
from ..errors import ShapemillError
from . import counts
from .feature_counts import add_feature_counts, feature_columns, feature_counts
from .keys import witness_keys
from .mine import (
    Mined,
    MineParams,
    _CountPatterns,
    _Discover,
    counting_gate,
    dictionary_table,
    discovery_shards,
    discovery_threshold,
    frequent,
    kept_patterns,
)
from .shards import map_games, map_shards

if TYPE_CHECKING:
    from distributed import Client

INSTALL_HINT = "--scheduler needs Dask: pip install 'shapemill[dask]'"
#: Most games a shard holds, and about how many shards each worker gets: enough
#: that the last ones, counted after discovery, end close together; no more,
#: since each shard's counts are sent, sorted and summed (its copy of the
#: dictionary's table and the empty board's chains are built once a worker).
SHARD_GAMES = 1000
SHARDS_PER_WORKER = 4


class ClusterError(ShapemillError):
    """The cluster cannot be reached, or a task failed: the message says which."""


@dataclass(frozen=True)
class Shard:
    """The ``split`` games ``start:stop`` of one games table file; ``first`` is the
    ordinal of game ``start`` in the whole corpus."""

    path: str
    split: str
    start: int
    stop: int
    first: int


@dataclass(frozen=True)
class Discovered:
    """What the discovery task sends back: the dictionary as columns, the
    threshold used, and the corpus's fingerprint, games and positions."""

    pattern_ids: np.ndarray
    rings: np.ndarray
    threshold: int
    fingerprint: str
    games: int
    positions: int


@contextmanager
def dask_client(scheduler: str) -> Iterator[Client]:
    """A Dask client for ``scheduler``: ``local:N`` starts a cluster of N worker
    processes (one thread each) on the loopback interface for the run; anything
    else is the address of a running scheduler (``tcp://HOST:PORT``)."""
    n = scheduler.removeprefix("local:") if scheduler.startswith("local:") else None
    if n is not None and (not n.isdigit() or int(n) < 1):
        raise ClusterError(f"--scheduler {scheduler}: expected local:N with N >= 1 workers")
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError(INSTALL_HINT) from None
    if n is not None:
        cluster = LocalCluster(
            n_workers=int(n), threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address="127.0.0.1:0", silence_logs=logging.CRITICAL,
        )
        with cluster, Client(cluster) as client:
            yield client
        return
    try:
        client = Client(scheduler, timeout="20s")
    except (OSError, ValueError, TypeError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
    with client:
        yield client


def _plan(paths: list[str], split: str) -> list[tuple[str, int]]:
    """Each games table file of ``paths`` (in corpus order) with its ``split`` games."""
    files = []
    for p in paths:
        if not Path(p).exists():
            raise FileNotFoundError(f"{p}: no such file or folder")
        found = table_files(p)
        if not found:
            raise ValueError(f"{p}: not a games table or dataset (with --scheduler, run `shapemill scan` first)")
        files.extend((str(f), count_games(f, split)) for f in found)
    return files


def shards_of(files: list[tuple[str, int]], split: str, limit: int | None, workers: int) -> list[Shard]:
    """The shards of ``files`` (each with its number of games), in corpus order:
    at most :data:`SHARD_GAMES` games each, and about :data:`SHARDS_PER_WORKER` a worker."""
    total = sum(n for _, n in files) if limit is None else min(limit, sum(n for _, n in files))
    size = max(1, min(SHARD_GAMES, math.ceil(total / (SHARDS_PER_WORKER * workers))))
    shards, first = [], 0
    for path, n in files:
        n = min(n, total - first)
        shards.extend(Shard(path, split, a, min(n, a + size), first + a) for a in range(0, n, size))
        first += n
    return shards


@functools.lru_cache(maxsize=1)
def _whole_corpus(paths: tuple[str, ...], split: str, limit: int | None) -> Corpus:
    """The corpus as one process loads it, read once per worker: discovery's
    shards are spread over all of it."""
    return load_corpus(list(paths), split=split, limit=limit)


def _discover_shard(
    paths: tuple[str, ...], split: str, limit: int | None, params: MineParams, threshold: int, k: int,
    dictionary: dict | None,
) -> dict[str, np.ndarray]:
    """Discovery shard ``k``'s counts in one round, as columns, gated by the
    ``dictionary`` columns of the rounds before (``None`` in the first)."""
    corpus = _whole_corpus(paths, split, limit)
    gate = counts.new_table(16) if dictionary is None else dictionary_table(dictionary)
    return map_shards(_Discover(corpus, params, threshold, gate), [discovery_shards(len(corpus), params)[k]], 1)


def _discovered(paths: tuple[str, ...], split: str, limit: int | None, threshold: int, dictionary: dict) -> Discovered:
    corpus = _whole_corpus(paths, split, limit)
    return Discovered(
        dictionary["pattern_id"], dictionary["ring"], threshold, corpus.fingerprint(), len(corpus), corpus.n_positions
    )


def _discover(client: Client, paths: tuple[str, ...], split: str, limit: int | None, params: MineParams, games: int):
    """The future of discovery's :class:`Discovered`, a task per shard and round."""
    shards, threshold = len(discovery_shards(games, params)), discovery_threshold(games, params)
    dictionary = None
    for _ in range(1 + params.discovery_rounds):
        found = [
            client.submit(_discover_shard, paths, split, limit, params, threshold, k, dictionary, retries=1)
            for k in range(shards)
        ]
        dictionary = client.submit(frequent, _tree(client, found, counts.summed), threshold, retries=1)
    return client.submit(_discovered, paths, split, limit, threshold, dictionary, retries=1)


#: What the count shards of one dictionary start from, built once per worker thread
#: (a second or more for a big dictionary, the time of many games): the zeroed
#: dictionary table a shard copies to count into, and count_game's empty-board
#: templates, whose scratch chains a thread must not share. By the id of the
#: :class:`Discovered` (the same object in every task of a worker while it holds
#: it) and the thread; an entry goes when its dictionary is freed.
_COUNTING: dict[tuple[int, int], tuple[counts.Table, dict]] = {}


def _counting(found: Discovered) -> tuple[counts.Table, dict]:
    """The gate and template cache of the count shards of ``found`` in this thread."""
    key = (id(found), threading.get_ident())
    if key not in _COUNTING:
        _COUNTING[key] = counting_gate(found.pattern_ids, found.rings), {}
        weakref.finalize(found, _COUNTING.pop, key, None)
    return _COUNTING[key]


def _count_shard(shard: Shard, found: Discovered, params: MineParams) -> dict[str, np.ndarray]:
    """The shard's pattern counts as columns, first occurrences at the corpus's ordinals."""
    corpus = load_part(shard.path, shard.split, shard.start, shard.stop)
    gate, cache = _counting(found)
    rows = map_games(_CountPatterns(corpus, gate, params, cache), corpus, 1)
    rows["witness"] = counts.shift_witnesses(rows["witness"], shard.first)
    return rows


def _features_shard(shard: Shard) -> tuple[np.ndarray, np.ndarray]:
    return feature_counts(load_part(shard.path, shard.split, shard.start, shard.stop))


def _shard_keys(shard: Shard, witnesses: np.ndarray, rings: np.ndarray) -> pa.BinaryArray:
    """The keys of patterns first seen in the shard, as one Arrow array (Dask sends
    a list of many small bytes objects one by one: a second per 20,000)."""
    corpus = load_part(shard.path, shard.split, shard.start, shard.stop)
    return witness_keys(corpus, {"witness": counts.shift_witnesses(witnesses, -shard.first), "ring": rings})


def _keys(client: Client, shards: list[Shard], rows: dict[str, np.ndarray], workers: int) -> pa.BinaryArray:
    """The keys of the kept ``rows``, rebuilt on the cluster in tasks of at most
    a quarter of a worker's share of the rows, each within one shard."""
    order = np.argsort(rows["witness"], kind="stable")
    owner = np.searchsorted([s.first for s in shards], counts.witness_games(rows["witness"][order]), side="right") - 1
    chunk = max(1, math.ceil(len(order) / (4 * workers)))
    tasks = []
    for k in np.unique(owner):
        own = order[owner == k]
        for a in range(0, len(own), chunk):
            todo = own[a : a + chunk]
            tasks.append(client.submit(_shard_keys, shards[k], rows["witness"][todo], rows["ring"][todo], retries=1))
    # owners grow along ``order``, so the tasks' keys come in the order of ``order``
    keys = pa.chunked_array(client.gather(tasks), pa.binary()).combine_chunks()
    return keys.take(np.argsort(order))


def _tree(client: Client, futures: list, merge: Callable):
    """The future of the pairwise merge of ``futures``, level by level, on the cluster."""
    while len(futures) > 1:
        pairs = [client.submit(merge, a, b, retries=1) for a, b in zip(futures[::2], futures[1::2])]
        futures = pairs + futures[len(pairs) * 2 :]
    return futures[0]


def _workers(client: Client) -> int:
    """The number of workers, once at least one has joined (a minute at most)."""
    try:
        client.wait_for_workers(1, timeout=60)
    except TimeoutError:
        raise ClusterError(f"no Dask worker joined the scheduler {client.scheduler.address} within a minute") from None
    return len(client.scheduler_info(n_workers=-1)["workers"])


def mine_on_cluster(
    client: Client, paths: list[str], params: MineParams, split: str, limit: int | None,
    progress: Callable[[int], object] | None = None, on_plan: Callable[[int], object] | None = None,
) -> Mined:
    """Mine the games tables or datasets ``paths`` on the cluster of ``client``.

    ``on_plan(n)`` is called with the number of shard tasks (two a shard: features
    and patterns), ``progress(1)`` as each is done. Raises :class:`ClusterError`
    for inputs the workers cannot read and for failed tasks.
    """
    from distributed import as_completed

    paths = [os.path.abspath(p) for p in paths]
    try:
        files = client.submit(_plan, paths, split, retries=1).result()
    except (OSError, ValueError) as exc:
        raise ClusterError(str(exc)) from None
    except Exception as exc:  # TableError and the like, raised on a worker
        raise ClusterError(f"{type(exc).__name__}: {exc}") from None
    workers = _workers(client)
    shards = shards_of(files, split, limit, workers)
    if not shards:
        raise ClusterError(f"no {split} games in {', '.join(paths)}")
    if on_plan:
        on_plan(2 * len(shards))
    found = _discover(client, tuple(paths), split, limit, params, sum(s.stop - s.start for s in shards))
    # Features wait whenever discovery's chain or a count task is ready: left to
    # the end, they overlap the serial tail (the counts' last merges, the keys).
    features = [client.submit(_features_shard, s, retries=1, priority=-1) for s in shards]
    tables = [client.submit(_count_shard, s, found, params, retries=1) for s in shards]
    pruned = client.submit(kept_patterns, _tree(client, tables, counts.summed), params, retries=1)
    summed = _tree(client, features, add_feature_counts)
    try:
        for _ in as_completed(features + tables):
            if progress:
                progress(1)
        rows, (seen, played), discovered = client.gather([pruned, summed, found])
        rows["key"] = _keys(client, shards, rows, workers)
    except Exception as exc:
        raise ClusterError(f"a Dask task failed: {type(exc).__name__}: {exc}") from None
    return Mined(
        rows, feature_columns(seen, played), discovered.threshold, len(discovered.rings),
        discovered.fingerprint, discovered.games, discovered.positions, workers,
    )

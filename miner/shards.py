"""Running a mining job over shards of games, in forked worker processes.

A *job* says how to count one shard (``start``, ``game``, ``end``) and how to add
two shards' results (``merge``). Results are merged in shard order, so a run's
result depends on how the games are cut into shards, never on how many workers
count them: the tables ``mine`` writes are the same byte for byte whatever ``-j``.

Before the pool forks, the parent counts one game of the first shard and throws the
result away: the workers inherit the kernels it loaded, so on a cold numba cache they are
compiled once, not once a worker at the same time (a minute each, and concurrent writes
to the same cache files).
"""

from __future__ import annotations

import multiprocessing
from queue import Empty

import numpy as np

from ..datasets.corpus import Corpus
from ..workers import POLL_SECONDS, Watch, worker_pool


class Job:
    """A ``map_shards`` job whose shard result is its state; subclasses define
    ``start()``, ``game(state, i)`` and ``merge(a, b)``, and may define ``end``."""

    @staticmethod
    def end(state):
        return state


_WORK: dict = {}


def _run_shard(job, shard: np.ndarray, queue=None):
    """One shard of a ``map_shards`` job: its games counted into a fresh state."""
    state = job.start()
    for i in shard.tolist():
        state = job.game(state, i)
        if queue is not None:
            queue.put(1)
    return job.end(state)


def _forked_shard(k: int):
    """Shard ``k`` of the job set up before the pool forked."""
    return _run_shard(_WORK["job"], _WORK["shards"][k], _WORK["queue"])


def _warm_up(job: Job, shard: np.ndarray) -> None:
    """The first game of ``shard`` counted here and thrown away: the kernels it loads (or
    compiles) are in this process when the pool forks."""
    if len(shard):
        job.end(job.game(job.start(), int(shard[0])))


def map_shards(job: Job, shards: list[np.ndarray], workers: int, progress=None):
    """Run ``job`` over shards of games, in ``workers`` forked processes.

    ``job.start()`` makes a shard's state, ``job.game(state, i)`` adds game ``i``
    to it, ``job.end(state)`` makes it the shard's result and ``job.merge(a, b)``
    adds two results; results are merged in shard order as they come (so that
    few wait in memory), and the total depends on the shards, not on the
    workers. ``progress(1)`` is called as games are done. A worker that raises
    stops the run with a ``RuntimeError`` naming its error; a worker that dies
    (killed, out of memory) with :class:`~shapemill.workers.WorkerDied`. No
    shards give the result of an empty one.
    """
    if not shards:
        return job.end(job.start())
    total = None
    if workers <= 1 or len(shards) <= 1:
        for shard in shards:
            own = _run_shard(job, shard)
            total = own if total is None else job.merge(total, own)
            if progress:
                progress(len(shard))
        return total
    _warm_up(job, shards[0])
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    _WORK.update(job=job, shards=shards, queue=queue)
    merged = 0
    with worker_pool(ctx, min(workers, len(shards))) as pool:
        watch = Watch(pool)
        pending = [pool.apply_async(_forked_shard, (k,)) for k in range(len(shards))]
        while merged < len(shards):
            try:
                n = queue.get(timeout=POLL_SECONDS)
                if progress:
                    progress(n)
            except Empty:
                pass
            for result in pending[merged:]:
                if result.ready() and not result.successful():
                    _shard_result(result)
            watch.check()
            while merged < len(shards) and pending[merged].ready():
                own = _shard_result(pending[merged])
                total = own if total is None else job.merge(total, own)
                pending[merged] = None
                merged += 1
    return total


def _shard_result(result):
    """A finished shard's result; a failed worker's error raised as this
    process's own, naming it (a shard may fail between the two checks above)."""
    try:
        return result.get()
    except Exception as exc:
        raise RuntimeError(f"a mining worker failed: {type(exc).__name__}: {exc}") from exc


def map_games(job: Job, corpus: Corpus, workers: int, progress=None):
    """Run ``job`` (see :func:`map_shards`) over every game, dealt round robin to
    ``workers`` shards: for jobs whose merge is a sum (or a minimum), the result
    is the same for any number of workers."""
    shards = [np.arange(w, len(corpus), max(1, workers)) for w in range(max(1, workers))]
    return map_shards(job, shards, workers, progress)

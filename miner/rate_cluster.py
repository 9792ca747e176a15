"""``shapemill rate`` and ``evaluate`` on Dask: the same table, from many processes and machines.

The fit's work folder (:mod:`shapemill.miner.team_shards`) is the meeting point:
every worker reads and writes it by the same path, so on several machines it is
a shared folder (NFS and the like) mounted at the same path everywhere.

1. *Build*: a task per chunk of games (the chunks of the local build), sent with
   its games and sampled positions; the worker builds the chunk's teams and
   writes its shard into the work folder. The client then numbers the shards'
   combinations in shard order, as the local build does: the shards and the
   numbers are those of a local run, byte for byte.
2. *Sweeps*: each pass is a task per shard, with the gammas and the combinations'
   strengths broadcast to the workers; a task reads its shard and returns its
   sums, sparse (the features and combinations it holds), which the client adds
   in shard order as they come. A shard's sums are computed over a fixed number
   of blocks, so the sums, the gammas and the table do not depend on which worker
   computed what: they are the local fit's.

Every task is a pure function of its arguments and of files that do not change
while it runs: a task lost with its worker is run again elsewhere.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import TypeVar

import numpy as np

from ..datasets.corpus import Corpus
from ..errors import ShapemillError
from ..patterns.candidates import Vocabulary
from ..patterns.latent import NO_LATENT, Latent
from . import positions
from .cluster import ClusterError, _workers, dask_client
from .evaluate import Ranked, rank_moves, ranked_report
from .positions import Replay, build_teams, use_threads
from .rate import Fit, fit_competitions
from .team_shards import Built, OnDisk, WorkFolder, build_chunk, build_shards

T = TypeVar("T")


def games_of(corpus: Corpus, mask: np.ndarray, games: np.ndarray) -> tuple[Corpus, np.ndarray]:
    """The corpus of ``games`` alone (in order) and their part of ``mask``: what a build task is sent."""
    offsets = corpus.offsets
    spans = [np.arange(offsets[g], offsets[g + 1]) for g in games.tolist()]
    flat = np.concatenate(spans) if spans else np.zeros(0, np.int64)
    lengths = np.array([len(s) for s in spans], dtype=np.int64)
    part = Corpus(
        ids=[corpus.ids[g] for g in games.tolist()],
        board_size=corpus.board_size[games],
        first_color=corpus.first_color[games],
        moves=corpus.moves[flat],
        offsets=np.concatenate([[0], np.cumsum(lengths)]),
        setup_black=[corpus.setup_black[g] for g in games.tolist()],
        setup_white=[corpus.setup_white[g] for g in games.tolist()],
    )
    return part, mask[flat]


def _build_task(corpus: Corpus, mask: np.ndarray, vocab: Vocabulary, path: str, fid: bytes) -> int:
    """Build every sampled position of ``corpus`` (one chunk's games) into the shard ``path``."""
    use_threads(1)
    return build_chunk(corpus, vocab, mask, Replay.of(corpus, mask), np.arange(len(corpus)), path, fid)


def _same(value: T) -> T:
    return value


def ship(client, value):
    """A future of ``value`` on the cluster, made by a task that holds it: a worker lost
    with its copy costs a copy again, not the run (scattered data would be gone)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "sending large graph": once a pass, on purpose
        return client.submit(_same, value, pure=False)


def _one_thread(task: Callable, *args):
    """``task(*args)`` on one numba thread: a Dask worker runs a task a thread."""
    use_threads(1)
    return task(*args)


class OnCluster(OnDisk):
    """:class:`OnDisk` whose shard tasks run on the Dask cluster of ``client``;
    ``progress(i)`` is called on the client as shard ``i``'s result arrives."""

    def __init__(self, client, work: WorkFolder, built: Built, vocab: Vocabulary,
                 progress: Callable[[int], object] | None = None) -> None:
        super().__init__(work, built, vocab.size, vocab.first_tactical)
        self.client, self.progress = client, progress
        vocab.__dict__.pop("lookup", None)  # the passes look no pattern up
        self.rows_from = vocab  # the information's rows made on the workers: less to send than the fit's

    def results(self, task: Callable, *args) -> Iterator:
        from distributed import as_completed

        shipped = [a if isinstance(a, (bool, int, float, str, bytes)) else ship(self.client, a) for a in args]
        futures = [self.client.submit(_one_thread, task, *self.where, i, *shipped, pure=False, retries=2)
                   for i in range(self.n_shards)]
        index = {f.key: i for i, f in enumerate(futures)}
        arrived, following = {}, 0
        for future in as_completed(futures):
            i = index[future.key]
            arrived[i] = future
            if self.progress:
                self.progress(i)
            while following in arrived:  # in shard order, whatever order they come in
                yield arrived.pop(following).result()
                futures[following] = None
                following += 1


def fit_on_cluster(
    client, work: WorkFolder, corpus: Corpus, vocab: Vocabulary, mask: np.ndarray, max_iter: int, tol: float,
    report: Callable | None = None, progress: Callable[[int], object] | None = None,
    on_built: Callable[[Built], object] | None = None, on_resume: Callable[[object], object] | None = None,
) -> Fit:
    """Build the shards of ``mask`` on the cluster of ``client`` and fit on them,
    resuming from the gammas ``work`` kept; ``progress(i)`` as each shard task's
    result arrives (build and passes)."""
    from distributed import as_completed

    def run_chunks(todo: list[tuple[int, np.ndarray]]) -> None:
        if not todo:
            return
        vocab.__dict__.pop("lookup", None)  # each worker builds its own
        shipped = ship(client, vocab)
        futures = [client.submit(_build_task, *games_of(corpus, mask, games), shipped, str(work.shard(i)), work.fid,
                                 pure=False, retries=2) for i, games in todo]
        for future in as_completed(futures):
            future.result()
            if progress:
                progress(-1)

    built = build_shards(work, corpus, vocab, mask, run_chunks=run_chunks)
    if on_built:
        on_built(built)
    state = work.state()
    if state is not None and on_resume:
        on_resume(state)
    competitions = OnCluster(client, work, built, vocab, progress)
    return fit_competitions(competitions, max_iter, tol, report=report, resume=state, checkpoint=work.save_state)


def rate_on_cluster(
    scheduler: str, work: WorkFolder, corpus: Corpus, vocab: Vocabulary, mask: np.ndarray, max_iter: int,
    tol: float, reporter: Callable, on_built: Callable, on_resume: Callable,
) -> tuple[Fit, int]:
    """``rate``'s build and fit on the Dask cluster ``scheduler`` (``local:N`` or an
    address): the fit and the number of workers."""
    with dask_client(scheduler) as client:
        workers = _workers(client)
        try:
            result = fit_on_cluster(client, work, corpus, vocab, mask, max_iter, tol, reporter(None), None,
                                    on_built, on_resume)
        except (ShapemillError, OSError):  # a damaged shard, a full disk: their own line
            raise
        except Exception as exc:
            raise ClusterError(f"a Dask task failed: {type(exc).__name__}: {exc}") from None
    return result, workers


def _rank_task(corpus: Corpus, mask: np.ndarray, vocab: Vocabulary, gamma: np.ndarray, latent: Latent) -> Ranked:
    """How ``gamma`` and ``latent`` rank the moves played in the sampled positions of ``corpus`` (some games)."""
    use_threads(1)
    return rank_moves(build_teams(corpus, vocab, mask), gamma, latent)


def evaluate_on_cluster(client, corpus: Corpus, mask: np.ndarray, vocab: Vocabulary, gamma: np.ndarray,
                        latent: Latent = NO_LATENT,
                        progress: Callable[[int], object] | None = None) -> dict:
    """``evaluate``'s report, the games ranked on the cluster of ``client`` in tasks of
    about ``CHUNK_POSITIONS`` sampled positions (at least four a worker); the same
    report as in one process."""
    from distributed import as_completed

    replay = Replay.of(corpus, mask)
    games = np.flatnonzero(replay.per_game)
    tasks = max(4 * _workers(client), -(-int(mask.sum()) // positions.CHUNK_POSITIONS))
    chunks = [c for c in np.array_split(games, min(tasks, max(1, len(games)))) if len(c)]
    vocab.__dict__.pop("lookup", None)  # each worker builds its own
    shipped = [ship(client, vocab), ship(client, gamma), ship(client, latent)]
    futures = [client.submit(_rank_task, *games_of(corpus, mask, c), *shipped, pure=False, retries=2) for c in chunks]
    for _ in as_completed(futures):
        if progress:
            progress(1)
    try:
        parts = client.gather(futures)
    except ShapemillError:
        raise
    except Exception as exc:
        raise ClusterError(f"a Dask task failed: {type(exc).__name__}: {exc}") from None
    if not parts:
        return ranked_report(Ranked(np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int32)))
    return ranked_report(Ranked(*(np.concatenate([getattr(p, f) for p in parts]) for f in Ranked._fields)))

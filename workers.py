"""Worker processes of a ``multiprocessing`` pool, watched so that a dead one stops the run.

A pool replaces a worker that dies (killed by the out-of-memory killer, SIGKILL, a
crash) but loses the task it was running, whose result then never comes: a caller
that only waits on its results waits forever. :class:`Watch` waits on results while
checking the workers the pool started (which end only when the pool does).
"""

from __future__ import annotations

import signal

from .errors import ShapemillError

POLL_SECONDS = 0.2


class WorkerDied(ShapemillError):
    """A worker process ended without a result: killed (out of memory, SIGKILL) or
    crashed; its task's result is lost, so the run's result would be wrong."""


def ignore_sigint() -> None:
    """A pool's initializer: the worker leaves Ctrl-C to the parent, which stops the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class Watch:
    """The worker processes ``pool`` has started, watched from the parent."""

    def __init__(self, pool) -> None:
        self.started = list(pool._pool)

    def check(self) -> None:
        """Raise :class:`WorkerDied` if one of the watched workers has ended."""
        for p in self.started:
            code = p.exitcode
            if code is not None:
                how = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
                hint = " (out of memory?)" if code == -signal.SIGKILL else ""
                raise WorkerDied(f"a worker process died: {how}{hint}")

    def get(self, result):
        """The value of ``result`` (an ``AsyncResult`` of the pool), or
        :class:`WorkerDied` as soon as a worker has died before it came."""
        while not result.ready():
            self.check()
            result.wait(POLL_SECONDS)
        return result.get()

"""Worker processes of a ``multiprocessing`` pool, watched so that a dead one stops the run.

A pool replaces a worker that dies (killed by the out-of-memory killer, SIGKILL, a
crash) but loses the task it was running, whose result then never comes: a caller
that only waits on its results waits forever. :class:`Watch` waits on results while
checking the workers the pool started (which end only when the pool does).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from .errors import ShapemillError, Terminated

T = TypeVar("T")

POLL_SECONDS = 0.2


class WorkerDied(ShapemillError):
    """A worker process ended without a result: killed (out of memory, SIGKILL) or
    crashed; its task's result is lost, so the run's result would be wrong."""


#: The signals a pool's workers are forked with held: the parent's handlers (Ctrl-C, and
#: SIGTERM raising ``Terminated``) are copied into each fork until ``init_worker`` sets the
#: worker's own, and one arriving in between would unwind the fork through the parent's
#: code: a second copy of the command, printing its "interrupted" line and waiting as the
#: parent did (a pool's ``terminate`` sends SIGTERM to a worker it has just forked).
HELD = frozenset({signal.SIGINT, signal.SIGTERM})


def worker_pool(context, processes: int):
    """A pool of ``processes`` workers from the ``multiprocessing`` ``context``, each set
    up by ``init_worker``; forked with ``HELD`` held, as are the workers the pool forks
    later in place of dead ones (its threads, started here, keep the mask)."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    try:
        return context.Pool(processes, initializer=init_worker)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def init_worker() -> None:
    """A pool's initializer: the worker leaves Ctrl-C to the parent, which stops the pool,
    and ends in silence once its parent has died (killed): an orphan would finish its task
    and print a ``BrokenPipeError`` traceback handing in the result. Handing it in to no
    one now ends it (SIGPIPE), and a thread ends it within ``POLL_SECONDS`` otherwise
    (also when it waits on a lock that a worker ended so held)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's handler is its own: the pool ends workers so
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD)  # held by worker_pool's fork until now
    threading.Thread(target=_end_with_parent, args=(os.getppid(),), daemon=True).start()


def _end_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL_SECONDS)
    os._exit(1)


def interruptible(what: str, kernel: Callable[..., T], *args) -> T:
    """``kernel(*args)``, a numba kernel compiled ``nogil``, run in a thread so that
    Ctrl-C stops the command within ``POLL_SECONDS`` rather than when the kernel
    returns (seconds later), with one line naming ``what`` was interrupted.

    The kernel cannot be stopped and its threads would hold up the interpreter's
    exit, so the process ends at once (exit 1); no output has been written yet
    while a kernel runs, and atomic writes leave previous files intact."""
    from numba import get_num_threads, set_num_threads

    box: dict[str, object] = {}
    threads = get_num_threads()  # numba's thread count is per calling thread

    def run() -> None:
        try:
            set_num_threads(threads)
            box["value"] = kernel(*args)
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=run, name=what, daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(POLL_SECONDS)
    except KeyboardInterrupt as exc:
        print(f"Error: interrupted ({signal_name(exc)}) during {what}; nothing written", file=sys.stderr, flush=True)
        os._exit(1)
    if "error" in box:
        raise box["error"]
    return box["value"]


def signal_name(exc: KeyboardInterrupt | None) -> str:
    """How a command was interrupted, for its line: ``SIGTERM`` or ``Ctrl-C``."""
    return "SIGTERM" if isinstance(exc, Terminated) else "Ctrl-C"


def stop(pool) -> None:
    """End ``pool`` and every worker process it has, then wait for them. ``terminate`` ends
    the workers it knows of while holding the task queue's lock for good; a worker the pool
    had started in place of a dead one can be left waiting on that lock, and ``join`` would
    wait on it forever (seen once, a scan whose workers were killed): such a one is killed."""
    pool.terminate()
    for p in list(pool._pool):
        if p.exitcode is None:
            p.kill()
    pool.join()


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

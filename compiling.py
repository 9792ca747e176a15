"""What a process does around numba's compiles: one line on standard error when a kernel
compiles for longer than a moment, and numba's cache read and written under a lock.

numba compiles each kernel on its first use on a machine (then loads it from its cache,
``__pycache__`` or ``NUMBA_CACHE_DIR``): from a fresh install that can take a minute,
and a user or a GUI watching a silent engine cannot tell it from a hang. ``announce``
listens to numba's compile events; a compile still running after ``NOTICE_SECONDS``
prints one line naming the kernel and saying that it happens once. Kernels compiled
inside it (the callees numba compiles for it) say nothing of their own.

numba saves a kernel's cache by reading its index, adding the entry, writing the index and
then the data file, unlocked (``numba.core.caching.IndexDataCacheFile``): two processes
compiling signatures of one kernel at once (the build's two parts, a ``match`` of two
engines on a cold cache, the test suite's workers) can both claim data file 1, or one can
read an index entry whose data file another is still writing or still holds another
signature's code (a reinstall restores the index and leaves the old data files). A
segfault followed once. ``lock_cache`` takes an ``flock`` on the cache folder around each
read (shared) and each save (exclusive).
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from typing import Callable, TextIO

from numba.core import caching, event

#: A compile that takes longer than this is announced.
NOTICE_SECONDS = 2.0
#: The name of a front end's background thread that loads (or compiles) the kernels while
#: the first commands are read: a process leaving while one runs numba code must not let the
#: interpreter finalize under it (it aborts: ``cli.py`` leaves by ``os._exit`` then).
WARM_UP_THREAD = "shapemill-warm-up"

_installed = threading.Lock()
_listener: _Notice | None = None
_cache_locked = False


def warming_up() -> bool:
    """Whether a front end's warm-up thread (``WARM_UP_THREAD``) is still running."""
    return any(t.name == WARM_UP_THREAD and t.is_alive() for t in threading.enumerate())


def kernel_name(dispatcher) -> str:
    """``module.function`` of a numba dispatcher, without the package's name."""
    func = dispatcher.py_func
    module = func.__module__.split(".", 1)[-1] if func.__module__.startswith("shapemill.") else func.__module__
    return f"{module}.{func.__qualname__}"


class _Notice(event.Listener):
    """Times each thread's outermost compile; says so once it passes ``NOTICE_SECONDS``."""

    def __init__(self, stream: TextIO | None, seconds: float) -> None:
        self.stream = stream
        self.seconds = seconds
        self.local = threading.local()

    def _say(self, name: str) -> None:
        stream = self.stream or sys.__stderr__  # the process's: a test's captured output stays the command's
        try:
            print(f"shapemill: compiling {name} for this machine (numba; once: later runs load it "
                  f"from the cache)...", file=stream, flush=True)
        except (OSError, ValueError):  # a closed standard error: the compile goes on regardless
            pass

    def on_start(self, ev: event.Event) -> None:
        depth = getattr(self.local, "depth", 0)
        self.local.depth = depth + 1
        if depth == 0:
            timer = threading.Timer(self.seconds, self._say, args=(kernel_name(ev.data["dispatcher"]),))
            timer.daemon = True
            self.local.timer = timer
            timer.start()

    def on_end(self, ev: event.Event) -> None:
        self.local.depth = max(0, getattr(self.local, "depth", 1) - 1)
        if self.local.depth == 0 and getattr(self.local, "timer", None) is not None:
            self.local.timer.cancel()
            self.local.timer = None


def announce(stream: TextIO | None = None, seconds: float = NOTICE_SECONDS) -> None:
    """From now on, a numba compile that runs past ``seconds`` says so in one line on
    ``stream`` (the process's standard error by default). Installed once a process; later calls keep the first."""
    global _listener
    with _installed:
        if _listener is None:
            _listener = _Notice(stream, seconds)
            event.register("numba:compile", _listener)


def _under_flock(method: Callable, exclusive: bool) -> Callable:
    """``method`` of numba's cache file run holding an ``flock`` on its cache folder."""
    import fcntl

    @functools.wraps(method)
    def locked(self, *args):
        try:
            folder = os.open(self._cache_path, os.O_RDONLY)
        except OSError:  # no folder yet: nothing to read, and a save makes it first
            return method(self, *args)
        try:
            fcntl.flock(folder, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            return method(self, *args)
        finally:
            os.close(folder)  # releases the lock
    return locked


def lock_cache() -> None:
    """From now on this process reads numba's cache under a shared ``flock`` on the cache
    folder and saves under an exclusive one, so that processes compiling at once leave a
    sound cache. Installed once a process; a no-op where ``fcntl`` is missing (Windows)."""
    global _cache_locked
    with _installed:
        if _cache_locked or os.name != "posix":
            return
        cache_file = caching.IndexDataCacheFile
        cache_file.load = _under_flock(cache_file.load, exclusive=False)
        cache_file.save = _under_flock(cache_file.save, exclusive=True)
        _cache_locked = True

"""One line on standard error when numba compiles a kernel for longer than a moment.

numba compiles each kernel on its first use on a machine (then loads it from its cache,
``__pycache__`` or ``NUMBA_CACHE_DIR``): from a fresh install that can take a minute,
and a user or a GUI watching a silent engine cannot tell it from a hang. ``announce``
listens to numba's compile events; a compile still running after ``NOTICE_SECONDS``
prints one line naming the kernel and saying that it happens once. Kernels compiled
inside it (the callees numba compiles for it) say nothing of their own.
"""

from __future__ import annotations

import sys
import threading
from typing import TextIO

from numba.core import event

#: A compile that takes longer than this is announced.
NOTICE_SECONDS = 2.0
#: The name of a front end's background thread that loads (or compiles) the kernels while
#: the first commands are read: a process leaving while one runs numba code must not let the
#: interpreter finalize under it (it aborts: ``cli.py`` leaves by ``os._exit`` then).
WARM_UP_THREAD = "shapemill-warm-up"

_installed = threading.Lock()
_listener: _Notice | None = None


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

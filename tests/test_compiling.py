"""A numba compile that lasts says so in one line; a quick one (or a cache load) says nothing."""

from __future__ import annotations

import io
import numpy as np
from numba.core import event

from shapemill.compiling import _Notice, kernel_name


class _Dispatcher:  # what a compile event carries: the dispatcher, whose py_func names the kernel
    def __init__(self, func) -> None:
        self.py_func = func


def _kernel_a() -> None: ...


def _kernel_b() -> None: ...


def _event(status: event.EventStatus, func) -> event.Event:
    return event.Event("numba:compile", status, {"dispatcher": _Dispatcher(func)})


def test_a_compile_past_the_threshold_prints_one_line_naming_the_outer_kernel():
    out = io.StringIO()
    notice = _Notice(out, 0.0)
    notice.on_start(_event(event.EventStatus.START, _kernel_a))
    notice.local.timer.join()  # the compile "lasts" past the threshold
    notice.on_start(_event(event.EventStatus.START, _kernel_b))  # a callee compiled inside: no line of its own
    notice.on_end(_event(event.EventStatus.END, _kernel_b))
    notice.on_end(_event(event.EventStatus.END, _kernel_a))
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    assert "compiling test_compiling._kernel_a " in lines[0] and "once" in lines[0]


def test_a_compile_that_ends_before_the_threshold_prints_nothing():
    out = io.StringIO()
    notice = _Notice(out, 3600.0)
    notice.on_start(_event(event.EventStatus.START, _kernel_a))
    timer = notice.local.timer
    notice.on_end(_event(event.EventStatus.END, _kernel_a))
    timer.join()  # cancelled: it ends without printing
    assert out.getvalue() == ""


def test_a_real_cold_compile_reaches_the_notice_with_the_kernel_s_name():
    from numba import njit

    started = []

    class Recording(_Notice):
        def on_start(self, ev):
            started.append(kernel_name(ev.data["dispatcher"]))
            super().on_start(ev)

    notice = Recording(io.StringIO(), 3600.0)
    event.register("numba:compile", notice)
    try:
        @njit
        def _sum(a):
            return a.sum()
        assert _sum(np.arange(4)) == 6
    finally:
        event.unregister("numba:compile", notice)
    assert started[0] == "test_compiling.test_a_real_cold_compile_reaches_the_notice_with_the_kernel_s_name.<locals>._sum"
    assert notice.local.depth == 0 and notice.local.timer is None

"""The bounds of every number a user gives shapemill, on the command line, in GTP, in an
analysis query or a config file: one place, so that every surface refuses the same values."""

from __future__ import annotations

import math

#: The largest count any option takes (games, playouts, nodes, ...): kernels index with
#: 32-bit integers, and nothing real comes near it.
COUNT_MAX = 2**31 - 1
#: Seeds are numpy's and numba's 32-bit seeds.
SEED_MAX = 2**32 - 1
#: Processes and threads: more than any machine has cores, fewer than would exhaust one.
WORKERS_MAX = 256
#: Seconds any time option takes (11 days): longer waits overflow the timers beneath.
SECONDS_MAX = 1e6
#: Komi, in points, either way: far past any board's area.
KOMI_MAX = 1000.0
#: Weights and constants of the search (--c-ucb, --prior-n, ...).
WEIGHT_MAX = 1e6
#: Largest SGF file or archive member read, in MB (--max-member-mb).
MEMBER_MB_MAX = 1024.0
#: The longest principal variation reported (``analysisPVLen``): deeper nodes have few visits.
PV_LENGTH_MAX = 100
#: The most characters a number may have in a GTP command: a few dozen, far past any
#: real value (Python refuses integers past 4,300 digits, and reading one takes time).
NUMBER_CHARS_MAX = 40


def finite_number(text: str) -> float | None:
    """``text`` as a finite number, or None: not a number, not finite, or longer than
    ``NUMBER_CHARS_MAX`` characters."""
    if len(text) > NUMBER_CHARS_MAX:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def komi_within(komi: float, size: int) -> bool:
    """Whether ``komi`` is a finite number of points within a ``size`` board's area: a
    komi past it decides every game before a stone is played."""
    return math.isfinite(komi) and abs(komi) <= size * size


def out_of_range(value: float, low: float, high: float, low_open: bool = False) -> str | None:
    """Why ``value`` is not a finite number in ``[low, high]`` (``low`` excluded with
    ``low_open``), or None when it is."""
    if not math.isfinite(value):
        return f"{value} is not a finite number"
    if value < low or (low_open and value == low) or value > high:
        return f"{value} is not in the range {range_text(low, high, low_open, isinstance(value, int))}"
    return None


def range_text(low: float, high: float, low_open: bool = False, integer: bool = False) -> str:
    """``low<=x<=high`` as the errors and the help show a range."""
    lo, hi = (str(int(v)) if integer else f"{v:g}" for v in (low, high))
    return f"{lo}{'<' if low_open else '<='}x<={hi}"

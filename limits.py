"""The bounds every surface shares: the command line's options, GTP's commands and the
analysis engine's queries and config take the same numbers, declared here once."""

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

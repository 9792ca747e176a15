"""Chain distance (the common-fate-graph distance): a string of stones counts as one point.

From a point, each step goes to a neighbour; the stones of one string are one node, so
reaching any stone of a string reaches all of them at the same distance. This is how
MoGo 2008 (section 4) measures "near the last move": a move touching the last move's
string is next to it, however long the string.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .rules import BORDER, COLOR, EMPTY, HEAD, NEXT, STRIDE

FAR = 1 << 20  # the distance of a point not reached within the limit


@njit(cache=True)
def _reach_string(b: np.ndarray, q: int, d: int, out: np.ndarray, queue: np.ndarray, tail: int) -> int:
    """Give every stone of the string through ``q`` the distance ``d`` and queue it;
    returns the queue's new end."""
    h = b[HEAD, q]
    s = h
    while True:
        out[s] = d
        queue[tail] = s
        tail += 1
        s = b[NEXT, s]
        if s == h:
            return tail


@njit(cache=True)
def chain_distances(b: np.ndarray, m: np.ndarray, source: int, limit: int, out: np.ndarray) -> None:
    """``out[p]``: the chain distance from point ``source`` to ``p``, for every point
    within ``limit`` steps, else ``FAR`` (border points always ``FAR``). The
    source's own string (when ``source`` is a stone) is at distance 0."""
    w = m[STRIDE]
    out[:] = FAR
    queue = np.empty(len(out), dtype=np.int64)
    head, tail = 0, 0
    if b[COLOR, source] == BORDER:
        return
    if b[COLOR, source] == EMPTY:
        out[source] = 0
        queue[tail] = source
        tail += 1
    else:
        tail = _reach_string(b, source, 0, out, queue, tail)
    while head < tail:
        p = queue[head]
        head += 1
        d = out[p] + 1
        if d > limit:
            continue
        for q in (p - 1, p + 1, p - w, p + w):
            if out[q] != FAR or b[COLOR, q] == BORDER:
                continue
            if b[COLOR, q] == EMPTY:
                out[q] = d
                queue[tail] = q
                tail += 1
            else:
                tail = _reach_string(b, q, d, out, queue, tail)

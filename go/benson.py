"""Benson's unconditional life (Benson 1976, "Life in the game of Go").

A string of one colour is *unconditionally alive* when the opponent cannot capture it
even if its owner always passes. Regions are the maximal connected sets of points that
are not the colour's stones (empty points and opponent stones); a region is *vital* to a
string when each of its empty points is a liberty of that string. Benson's algorithm
starts from every string and every region and repeats, until nothing changes: drop the
strings with fewer than two vital regions left, then drop the regions next to a dropped
string. The strings left are unconditionally alive. Suicide is illegal, as in
``go.rules``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .rules import BORDER, COLOR, EMPTY, HEAD, STRIDE


@njit(cache=True)
def unconditionally_alive(b: np.ndarray, m: np.ndarray, color: int) -> np.ndarray:
    """A flag per point: 1 at the head of each of ``color``'s strings that is
    unconditionally alive (Benson), else 0."""
    n = b.shape[1]
    w = m[STRIDE]
    alive = np.zeros(n, dtype=np.uint8)
    region = np.full(n, -1, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    # pairs (region, string head): every string next to a region, and whether the region is vital to it
    pair_r = np.empty(4 * n, dtype=np.int64)
    pair_h = np.empty(4 * n, dtype=np.int64)
    pair_vital = np.zeros(4 * n, dtype=np.uint8)
    seen = np.full(n, -1, dtype=np.int64)  # the region that last listed this head
    pairs = 0
    regions = 0
    for p in range(n):
        if b[COLOR, p] == color:
            alive[b[HEAD, p]] = 1
    for start in range(n):
        c = b[COLOR, start]
        if c == BORDER or c == color or region[start] >= 0:
            continue
        r = regions
        regions += 1
        region[start] = r
        top = 1
        stack[0] = start
        members = 0
        while top > 0:  # the region's points, then its strings
            top -= 1
            p = stack[top]
            stack[n - 1 - members] = p  # members stored from the stack's far end
            members += 1
            for q in (p - 1, p + 1, p - w, p + w):
                cq = b[COLOR, q]
                if cq == BORDER:
                    continue
                if cq == color:
                    h = b[HEAD, q]
                    if seen[h] != r:
                        seen[h] = r
                        pair_r[pairs], pair_h[pairs], pair_vital[pairs] = r, h, 1
                        pairs += 1
                elif region[q] < 0:
                    region[q] = r
                    stack[top] = q
                    top += 1
        first = pairs
        while first > 0 and pair_r[first - 1] == r:
            first -= 1
        for i in range(members):  # vital to a string: each empty point a liberty of it
            p = stack[n - 1 - i]
            if b[COLOR, p] != EMPTY:
                continue
            for k in range(first, pairs):
                if pair_vital[k]:
                    h = pair_h[k]
                    if not (b[COLOR, p - 1] == color and b[HEAD, p - 1] == h
                            or b[COLOR, p + 1] == color and b[HEAD, p + 1] == h
                            or b[COLOR, p - w] == color and b[HEAD, p - w] == h
                            or b[COLOR, p + w] == color and b[HEAD, p + w] == h):
                        pair_vital[k] = 0
    healthy = np.ones(regions, dtype=np.uint8)
    vital = np.zeros(n, dtype=np.int64)
    changed = True
    while changed:
        changed = False
        vital[:] = 0
        for k in range(pairs):
            if pair_vital[k] and healthy[pair_r[k]]:
                vital[pair_h[k]] += 1
        for p in range(n):
            if alive[p] and vital[p] < 2:
                alive[p] = 0
                changed = True
        for k in range(pairs):
            if healthy[pair_r[k]] and not alive[pair_h[k]]:
                healthy[pair_r[k]] = 0
    return alive

"""The compact ratings table: what the engine reads, cut by accuracy per megabyte.

The engine needs, of a ratings table, each pattern's id, ring and gamma and the
gammas of the tactical features: a compact table keeps those columns for every
row it keeps, and the rest (key, Elo, interval, counts) only for the rows that
``show`` and ``demo`` draw (the most and least rated features, the local shapes
seen often). It has the full table's schema, the dropped cells null, and its
floats are rounded to a float32's precision, which halves their bytes on disk.

A move takes its largest known pattern, growing ring by ring while the table
knows the next one; so a pattern is reachable only while its whole chain of
smaller rings is kept, and dropping a pattern drops its descendants with it.
Cutting the subtree under a pattern ``P`` moves every candidate whose largest
pattern lay in it onto ``P``'s parent ``R``; its cost is

    cost(P) = sum over Q in subtree(P) of seen_Q * |log gamma_Q - log gamma_R|,

the log-strength the fit's candidates lose, and the cut saves the subtree's rows.
A tolerance ``t`` keeps a pattern when its parent is kept and ``cost / rows > t``:
``t = 0`` keeps every reachable pattern, a larger ``t`` trades accuracy for bytes.

A pattern's near twin (``patterns/near.py``) rides with it: its candidates move to
the parent's twin with the pattern's, so the cost adds their loss, and the subtree's
rows count the twins. A kept pattern keeps its twin when the twin's own row is worth it,
``seen_twin * |log gamma_twin - log gamma_P| > t``; without it the pattern's own gamma
stands near the previous move too.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from ..go.rings import MIN_RING, RING_END, geometry, grow_ring
from ..patterns.candidates import MODEL_COLUMNS, NEAR_GROUP, feature_groups, rows_of

#: Rows drawn by ``show``: the highest and the lowest rated this many.
SHOWN = 100
#: Local shapes ``demo`` may draw: rings up to this, seen at least ``DRAWN_SEEN`` times.
DRAWN_RING, DRAWN_SEEN = 6, 100


@njit(cache=True)
def _parents(data, offsets, rings, delta, stride) -> tuple[np.ndarray, np.ndarray]:
    """The id of each pattern's parent (its ring minus one; 0 for the smallest ring)
    and the pattern's own id, both hashed from its packed canonical key."""
    parent = np.zeros(len(rings), dtype=np.int64)
    own = np.zeros(len(rings), dtype=np.int64)
    state = np.zeros(stride * stride, dtype=np.int8)
    q = (stride // 2) * stride + stride // 2
    rel = np.arange(4).astype(np.int8)
    h = np.zeros(8, dtype=np.int64)
    for i in range(len(rings)):
        k = rings[i]
        base = offsets[i]
        for o in range(RING_END[k]):
            state[q + delta[0, o]] = (data[base + o // 4] >> (2 * (o % 4))) & 3
        h[:] = 0
        for r in range(MIN_RING, k + 1):
            x = grow_ring(h, state, q, rel, delta, r)
            if r == k - 1:
                parent[i] = x
            own[i] = x
    return parent, own


def pattern_parents(keys: pa.Array, rings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(parent ids, own ids)`` of patterns given their canonical keys and rings
    (ids as ``int64``; the parent of a smallest-ring pattern is 0)."""
    keys = pc.cast(keys, pa.binary()).combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys
    offsets = np.frombuffer(keys.buffers()[1], dtype=np.int32)[keys.offset : keys.offset + len(keys) + 1]
    data = np.frombuffer(keys.buffers()[2], dtype=np.uint8)
    geo = geometry(19)
    return _parents(data, offsets.astype(np.int64), rings.astype(np.int64), geo.delta, geo.stride)


@njit(cache=True)
def _subtree_costs(parent, order, log_gamma, seen, weight) -> tuple[np.ndarray, np.ndarray]:
    """Per pattern (``parent`` its parent's row, -1 for none), the cost of cutting the
    subtree under it (see the module docstring; ``log_gamma`` and ``seen`` have a column
    for the pattern and one for its twin) and the subtree's rows (``weight`` a pattern's
    own); ``order`` lists the rows by ring, descending."""
    n = len(parent)
    cost = np.zeros(n)
    rows = weight.astype(np.int64)
    for i in order:
        if parent[i] >= 0:
            rows[parent[i]] += rows[i]
    for q in range(n):
        cur = q
        while parent[cur] >= 0:
            r = parent[cur]
            for k in range(log_gamma.shape[1]):
                cost[cur] += seen[q, k] * abs(log_gamma[q, k] - log_gamma[r, k])
            cur = r
    return cost, rows


def pattern_tree(table: pa.Table) -> tuple[np.ndarray, np.ndarray]:
    """The pattern rows of a full ratings table and, for each, the row of its
    parent pattern (-1 for a smallest ring, -2 when the table lacks the parent:
    a pattern no move can reach)."""
    rows = np.flatnonzero(pc.equal(table["feature"], "pattern").to_numpy(zero_copy_only=False))
    patterns = table.take(pa.array(rows))
    if patterns["key"].null_count:
        raise ValueError("the ratings table lacks pattern keys: only a full table can be compacted")
    rings = patterns["size"].to_numpy()
    parent_id, own = pattern_parents(patterns["key"], rings)
    ids = patterns["value"].to_numpy().view(np.int64)
    if not np.array_equal(own, ids):
        raise ValueError("pattern keys do not hash to their ids")
    parent = rows_of(ids, parent_id)
    parent[rings == MIN_RING] = -1
    return rows, parent


def twin_rows(table: pa.Table, rows: np.ndarray) -> np.ndarray:
    """The row of the near twin of each pattern row ``rows`` of a ratings table, -1 for none."""
    twins = np.flatnonzero(feature_groups(table["feature"]) == NEAR_GROUP)
    twin = np.full(len(rows), -1, dtype=np.int64)
    if len(twins) and len(rows):
        ids = table["value"].to_numpy()
        at = rows_of(ids[rows].view(np.int64), ids[twins].view(np.int64))
        if (at < 0).any():
            raise ValueError("a near pattern's row has no row of its pattern")
        twin[at] = twins
    return twin


def kept_patterns(table: pa.Table, tolerance: float) -> np.ndarray:
    """Which rows of the full ratings table ``table`` the compact table keeps (every
    tactical feature, and the patterns and twins chosen as the module docstring says)."""
    rows, parent = pattern_tree(table)
    twin = twin_rows(table, rows)
    has_twin = twin >= 0
    all_gamma = table["gamma"].to_numpy()
    all_seen = table["seen"].to_numpy().astype(np.float64)
    log_gamma = np.log(all_gamma[rows])
    log_twin = np.where(has_twin, np.log(all_gamma[np.where(has_twin, twin, rows)]), log_gamma)
    seen_twin = np.where(has_twin, all_seen[np.where(has_twin, twin, rows)], 0.0)
    rings = table["size"].to_numpy()[rows]
    order = np.argsort(-rings, kind="stable")
    cost, size = _subtree_costs(np.where(parent >= 0, parent, -1), order, np.stack([log_gamma, log_twin], axis=1),
                                np.stack([all_seen[rows], seen_twin], axis=1), 1 + has_twin)
    keep = np.zeros(len(rows), dtype=np.bool_)
    for i in order[::-1]:
        p = parent[i]
        keep[i] = p == -1 or (p >= 0 and keep[p] and (tolerance <= 0 or cost[i] / size[i] > tolerance))
    out = np.ones(table.num_rows, dtype=np.bool_)
    out[rows] = keep
    twin_worth = tolerance <= 0 or seen_twin * np.abs(log_twin - log_gamma) > tolerance
    out[twin[has_twin]] = (keep & twin_worth)[has_twin]
    return out


def compact_ratings(table: pa.Table, tolerance: float = 0.0) -> pa.Table:
    """The compact form of the full ratings table ``table`` at ``tolerance``: the rows
    it keeps, with keys, Elo, intervals and counts only where ``show`` or ``demo``
    draws them. Row order is kept (highest Elo first)."""
    kept = table.filter(pa.array(kept_patterns(table, tolerance)))
    gamma = kept["gamma"].to_numpy()
    is_pattern = pc.equal(kept["feature"], "pattern").to_numpy(zero_copy_only=False)
    drawn = np.zeros(kept.num_rows, dtype=np.bool_)
    by_gamma = np.argsort(-gamma, kind="stable")
    drawn[by_gamma[:SHOWN]] = drawn[by_gamma[-SHOWN:]] = True
    local = pc.fill_null(pc.and_(pc.less_equal(kept["size"], DRAWN_RING), pc.greater_equal(kept["seen"], DRAWN_SEEN)),
                         False)
    drawn |= local.to_numpy(zero_copy_only=False) & is_pattern
    drawn |= ~is_pattern
    mask = pa.array(~drawn)
    columns = {
        name: kept[name] if name in MODEL_COLUMNS else pc.if_else(mask, pa.scalar(None, kept[name].type), kept[name])
        for name in kept.column_names
    }
    columns = {name: _float32_precision(c) if pa.types.is_floating(c.type) else c for name, c in columns.items()}
    return pa.table(columns, schema=kept.schema)


def _float32_precision(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """``column``'s floats rounded to a float32's 24 bits (a relative 6e-8, far inside
    the fit's own error), kept in the column's type: the low bytes left zero cost
    nothing written byte-stream-split (``tables``)."""
    return column.cast(pa.float32(), safe=False).cast(column.type)

"""What ``find`` looks for: a fragment of a position and where it may stand.

A :class:`Query` is a set of points, each wanted empty, black or white, on a board
of one size, in the coordinates of the fragment as given (x the column, y the row,
0 at the bottom left). Its *images* are where it is looked for: each of the eight
symmetries of the board (about its centre), with colours swapped or not, and with
``anywhere`` every translation that keeps it on the board and keeps its off-board
points (the edges it touches) off it. Two images asking for the same points and
colours are one image.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import ShapemillError
from ..go.symmetry import SYMMETRIES

#: Letters of GTP columns (no I).
GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
#: A continuation is the first later move this close to the region (Chebyshev distance).
CONTINUATION_REACH = 2
EMPTY, BLACK, WHITE = 0, 1, 2


def _inverse(s: int) -> int:
    a, b, c, e = SYMMETRIES[s]
    m = np.array([[a, b], [c, e]])
    for t, (a2, b2, c2, e2) in enumerate(SYMMETRIES):
        if (np.array([[a2, b2], [c2, e2]]) @ m == np.eye(2)).all():
            return t
    raise AssertionError("the symmetries form a group")


#: INVERSE[s]: the symmetry that undoes ``s``.
INVERSE = tuple(_inverse(s) for s in range(8))


def transform(x: np.ndarray, y: np.ndarray, s: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates under symmetry ``s`` of the board (about its centre)."""
    a, b, c, e = SYMMETRIES[s]
    cx, cy = 2 * np.asarray(x) - (size - 1), 2 * np.asarray(y) - (size - 1)
    return (a * cx + b * cy + size - 1) // 2, (c * cx + e * cy + size - 1) // 2


def vertex(x: int, y: int) -> str:
    """GTP name of a point (``A1`` bottom left)."""
    return f"{GTP_COLUMNS[x]}{y + 1}"


def parse_vertex(text: str, size: int, what: str) -> tuple[int, int]:
    """(x, y) of a GTP vertex; a one-line error naming ``what`` when it is not one on the board."""
    t = text.strip().upper()
    if len(t) < 2 or t[0] not in GTP_COLUMNS[:size] or not t[1:].isdigit() or not 1 <= int(t[1:]) <= size:
        raise ShapemillError(f"{what}: {text!r} is not a point of the {size}x{size} board")
    return GTP_COLUMNS.index(t[0]), int(t[1:]) - 1


@dataclass
class Query:
    """A fragment: ``points`` (x, y) with wanted ``colors`` (0 empty, 1 black, 2 white).

    ``off`` are (x, y) that must be off the board (an edge the fragment touches);
    only ``anywhere`` uses them, a fixed fragment never leaves its place.
    ``next`` is the colour that must be to move (0 either).
    """

    size: int
    points: np.ndarray  # int[k, 2]
    colors: np.ndarray  # int8[k]
    off: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    next: int = 0
    symmetry: bool = True
    swap: bool = True
    anywhere: bool = False
    source: str = ""

    @property
    def stones(self) -> int:
        """Stones the fragment asks for."""
        return int(np.count_nonzero(self.colors))

    def box(self) -> tuple[int, int, int, int]:
        """The bounding rectangle (x0, y0, x1, y1) of the region."""
        x, y = self.points[:, 0], self.points[:, 1]
        return int(x.min()), int(y.min()), int(x.max()), int(y.max())

    def region_text(self) -> str:
        """The region in GTP coordinates: a rectangle ``A1:G7``, plus its point count if not full."""
        x0, y0, x1, y1 = self.box()
        text = f"{vertex(x0, y0)}:{vertex(x1, y1)}"
        full = (x1 - x0 + 1) * (y1 - y0 + 1)
        return text if full == len(self.points) else f"{text} ({len(self.points)} points)"


def edge_offs(points: np.ndarray, size: int) -> np.ndarray:
    """Off-board points that pin a region to the edges it touches."""
    x, y = points[:, 0], points[:, 1]
    offs = []
    for axis, other in ((x, y), (y, x)):
        for edge, step in ((0, -1), (size - 1, 1)):
            if axis.min() == edge or axis.max() == edge:
                for o in np.unique(other[axis == edge]):
                    offs.append((edge + step, int(o)) if axis is x else (int(o), edge + step))
    return np.array(offs, dtype=np.int64).reshape(-1, 2)


@dataclass
class Images:
    """The query's images side by side, as the kernels read them.

    Image ``v``: ``pt[ptr[v]:ptr[v+1]]`` record indices wanting ``col[...]``,
    ``next[v]`` to move, made by symmetry ``sym[v]``, ``swapped[v]`` and translation
    ``(dx[v], dy[v])``; ``region[v]`` and ``want_empty[v]`` are its points and those
    it wants empty, as boolean rows over the board.
    """

    pt: np.ndarray
    col: np.ndarray
    ptr: np.ndarray
    next: np.ndarray
    sym: np.ndarray
    swapped: np.ndarray
    dx: np.ndarray
    dy: np.ndarray
    region: np.ndarray
    want_empty: np.ndarray

    def __len__(self) -> int:
        return len(self.ptr) - 1

    def zone(self, v: np.ndarray, size: int) -> np.ndarray:
        """The points a continuation of images ``v`` may land on (their regions grown by
        ``CONTINUATION_REACH``, less the points that are off the board in the query's
        orientation: a translated image's zone may reach past the query's edge), as
        boolean rows over the board: asked for the images with hits only (an
        ``--anywhere`` query has thousands of images)."""
        p = np.arange(size * size)
        qx, qy = p[None, :] % size - self.dx[v][:, None], p[None, :] // size - self.dy[v][:, None]
        on_board = (qx >= 0) & (qx < size) & (qy >= 0) & (qy < size)  # the symmetries keep the board
        return _dilate(self.region[v], size, CONTINUATION_REACH) & on_board

    def to_query(self, v: np.ndarray, x: np.ndarray, y: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
        """Board points (x, y) of images ``v`` back in the query's orientation."""
        qx = np.empty(len(v), dtype=np.int64)
        qy = np.empty(len(v), dtype=np.int64)
        bx, by = np.asarray(x) - self.dx[v], np.asarray(y) - self.dy[v]
        for s in range(8):
            sel = self.sym[v] == s
            qx[sel], qy[sel] = transform(bx[sel], by[sel], INVERSE[s], size)
        return qx, qy


def images(q: Query) -> Images:
    """Every distinct image of ``q`` (identity first, unswapped before swapped)."""
    n = q.size
    groups = []
    for swapped in (False, True) if q.swap else (False,):
        colors = np.where(q.colors == EMPTY, EMPTY, 3 - q.colors) if swapped else q.colors
        nxt = (3 - q.next if q.next else 0) if swapped else q.next
        for s in range(8) if q.symmetry else (0,):
            x, y = transform(q.points[:, 0], q.points[:, 1], s, n)
            ox, oy = transform(q.off[:, 0], q.off[:, 1], s, n)
            if q.anywhere:
                dx, dy = (a.ravel() for a in np.meshgrid(np.arange(-x.min(), n - x.max()),
                                                          np.arange(-y.min(), n - y.max()), indexing="ij"))
                ax, ay = ox[None, :] + dx[:, None], oy[None, :] + dy[:, None]
                fits = ~((ax >= 0) & (ax < n) & (ay >= 0) & (ay < n)).any(axis=1)
                dx, dy = dx[fits], dy[fits]
            else:
                dx, dy = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
            # every translation at once: a row of points per translation, each sorted
            pts = (y[None, :] + dy[:, None]) * n + (x[None, :] + dx[:, None])
            order = np.argsort(pts[0])  # a translation keeps the points' order
            k = len(pts)
            groups.append((pts[:, order], np.broadcast_to(colors[order], pts.shape), np.full(k, nxt), np.full(k, s),
                           np.full(k, swapped), dx, dy))
    pts, cols, nxts, syms, swaps, dxs, dys = (np.concatenate(parts) for parts in zip(*groups))
    # an image asking for the same points and colours as an earlier one is that image
    keys = np.ascontiguousarray(np.concatenate([pts, cols, nxts[:, None]], axis=1).astype(np.int16))
    _, first = np.unique(keys.view(np.dtype((np.void, keys.shape[1] * 2))).ravel(), return_index=True)
    keep = np.sort(first)
    width = pts.shape[1]
    ptr = np.arange(len(keep) + 1, dtype=np.int64) * width
    pt = pts[keep].ravel().astype(np.uint16)  # unsigned: the kernels index by it without a sign check
    col = cols[keep].ravel().astype(np.int8)
    image = np.repeat(np.arange(len(keep)), width)
    region = np.zeros((len(keep), n * n), dtype=bool)
    want_empty = np.zeros((len(keep), n * n), dtype=bool)
    region[image, pt] = True
    want_empty[image[col == EMPTY], pt[col == EMPTY]] = True
    return Images(pt=pt, col=col, ptr=ptr, next=nxts[keep].astype(np.int8), sym=syms[keep].astype(np.int8),
                  swapped=swaps[keep].astype(bool), dx=dxs[keep].astype(np.int64), dy=dys[keep].astype(np.int64),
                  region=region, want_empty=want_empty)


def _dilate(region: np.ndarray, n: int, reach: int) -> np.ndarray:
    """The points within Chebyshev distance ``reach`` of each row's points (a square:
    grown along the rows, then along the columns)."""
    out = region.reshape(-1, n, n)
    for axis in (2, 1):
        grid, out = out, out.copy()
        for d in range(1, reach + 1):
            lo, hi = [slice(None)] * 3, [slice(None)] * 3
            lo[axis], hi[axis] = slice(0, n - d), slice(d, n)
            out[tuple(lo)] |= grid[tuple(hi)]
            out[tuple(hi)] |= grid[tuple(lo)]
    return out.reshape(len(region), n * n)

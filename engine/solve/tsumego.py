"""A book's life-and-death problem read from its stones alone: who attacks, which group
is at stake, and where the fight is.

Book problems sit in a corner or on a side of an otherwise empty 19x19 board. The
*attacker* is the side whose stones face the open board (its wall surrounds the corner
or side), the *defender* the other; the group at stake is the defender's largest string.
The region is the stones' box (stretched to an edge within ``EDGE_LINES``), the points
within ``ESCAPE_LINES`` steps of a defender's stone beyond it, and of those only what the
target reaches without crossing the attacker's stones (with those stones); then only
the defender's side of the attacker's wall: the points the defender's stones reach
without crossing the wall's stones or the links between them (``_links``), with the
links and ``LINK_MARGIN`` points beyond them. Moves are the region's points, and a point
outside it is out of play, so a string that reaches a liberty outside it has escaped (it
lives), and a wall stone with such a liberty cannot be captured. docs/solve.md says why
and what it costs."""

from __future__ import annotations

from typing import NamedTuple

from ...errors import ShapemillError
from ...go.vertices import format_vertex

Point = tuple[int, int]

#: Most empty points a region may hold: past it df-pn does not finish in minutes.
MAX_REGION_EMPTIES = 60
#: Lines between the stones and an edge of the board that still belong to the problem.
EDGE_LINES = 2
#: Lines beyond the stones' box, within reach of a defender's stone, that are still the
#: problem's: a defender's string escapes when it reaches past them.
ESCAPE_LINES = 1
#: Stones closer than this (in rows or columns) belong to one problem.
APART = 3
#: Lines between the edge and a wall stone that link it to the edge (1: a stone on the
#: second line, the point below it).
EDGE_LINK_LINES = 1
#: Empty points beyond the wall's links that are still the region (the other side of a gap).
LINK_MARGIN = 1


class Tsumego(NamedTuple):
    """A problem's reading: the attacker and defender ('b' or 'w'), a stone of the
    group at stake, and the region's points."""

    attacker: str
    defender: str
    target: Point
    region: list[Point]


def read_tsumego(size: int, black: list[Point], white: list[Point],
                 max_empties: int = MAX_REGION_EMPTIES, margin: int = ESCAPE_LINES, wall: bool = True) -> Tsumego:
    """The attacker, the group at stake and the region of a corner or side problem (the
    points ``margin`` steps past the stones' box from a defender's stone still in it; with
    ``wall``, only those on the defender's side of the attacker's wall and its links);
    ShapemillError (the reason in one line) for stones that are no such problem."""
    stones = {p: "b" for p in black} | {p: "w" for p in white}
    if not black or not white:
        raise ShapemillError("no surrounded group: the problem needs stones of both colours")
    parts = _clusters(list(stones))
    if len(parts) > 1:
        where = ", ".join(format_vertex(min(p)) for p in parts)
        raise ShapemillError(f"several separate problems on the board (near {where})")
    rows = [r for r, _ in stones]
    cols = [c for _, c in stones]
    box = _to_edges((min(rows), max(rows), min(cols), max(cols)), size)
    outside = _outside(size, stones, _grown(box, 1, size))
    touch = {c: _share_touching(outside, [p for p, s in stones.items() if s == c]) for c in "bw"}
    distance = {c: sum(_edge_distance(p, size) for p in ps) / len(ps)
                for c, ps in (("b", black), ("w", white))}
    attacker = max("bw", key=lambda c: (touch[c], distance[c]))
    defender = "w" if attacker == "b" else "b"
    strings = _strings({p for p, s in stones.items() if s == defender})
    target = min(max(strings, key=lambda s: (len(s), not any(q in outside for p in s for q in _near(p)))))
    r0, r1, c0, c1 = _grown(box, margin, size)
    guard = [p for p, s in stones.items() if s == defender]
    region = [(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)
              if box[0] <= r <= box[1] and box[2] <= c <= box[3]
              or any(abs(r - g[0]) + abs(c - g[1]) <= margin for g in guard)]
    region = _enclosure(region, stones, attacker, target)
    if wall:
        region = _walled(size, region, stones, attacker, _grown(box, 1, size))
    empties = sum(1 for q in region if q not in stones)
    if empties > max_empties:
        raise ShapemillError(f"the region around the problem holds {empties} empty points, more than "
                             f"the solver takes ({max_empties}); give --goal and --region")
    if len(region) == size * size:
        raise ShapemillError("no surrounded group: the stones span the whole board")
    return Tsumego(attacker, defender, target, region)


class Cropped(NamedTuple):
    """A problem moved onto a smaller board: its size, stones, target and region, and
    the offset (rows, columns) that takes its points back to the original board."""

    size: int
    black: list[Point]
    white: list[Point]
    target: Point
    region: list[Point]
    offset: Point


def crop(size: int, black: list[Point], white: list[Point], t: Tsumego, frame: bool = True) -> Cropped:
    """The problem on the smallest square board that holds the stones' box grown by two
    lines (clipped at the edges, which stay edges): every stone keeps its neighbours, so
    the region's fight is the same; the search's work per node shrinks with the board.
    With ``frame``, the empty points off the region are the attacker's stones (``_frame``),
    as a tsumego frame settles the rest of the board: the group at stake lives only
    inside the region; without it such a point is a way out (the group has escaped)."""
    rows = [r for r, _ in (*black, *white, *t.region)]
    cols = [c for _, c in (*black, *white, *t.region)]
    r0, r1, c0, c1 = _grown((min(rows), max(rows), min(cols), max(cols)), 2, size)
    side = max(r1 - r0, c1 - c0) + 1
    dr = min(r0, size - side) if r0 > 0 else 0
    dc = min(c0, size - side) if c0 > 0 else 0
    dr = size - side if r1 == size - 1 else dr
    dc = size - side if c1 == size - 1 else dc

    def moved(points):
        return [(r - dr, c - dc) for r, c in points]

    black, white = moved(black), moved(white)
    walls = _frame(side, black + white, moved(t.region)) if frame else []
    (black if t.attacker == "b" else white).extend(walls)
    return Cropped(side, black, white, moved([t.target])[0], moved(t.region), (dr, dc))


def _frame(size: int, stones: list[Point], region: list[Point]) -> list[Point]:
    """The attacker's frame: the empty points off the region next to one of its points.
    Its stones are out of play, so they are never captured, and they shut the region
    in: the group at stake has no way out. The points beyond stay empty, so that the
    frame has liberties and no region of the defender's reaches past it (Benson's
    test would take a frame without liberties for a string that can be captured)."""
    inside = set(region)
    taken = set(stones)
    return sorted({q for p in inside for q in _near(p)
                   if 0 <= q[0] < size and 0 <= q[1] < size and q not in inside and q not in taken})


def _enclosure(region: list[Point], stones: dict, attacker: str, target: Point) -> list[Point]:
    """The points of ``region`` that the target reaches without crossing the attacker's
    stones, and the attacker's stones next to them: the rest is outside the attacker's
    wall, where neither side has a move that matters."""
    inside, todo = {target}, [target]
    area = set(region)
    while todo:
        for q in _near(todo.pop()):
            if q in area and q not in inside and stones.get(q) != attacker:
                inside.add(q)
                todo.append(q)
    wall = {q for p in inside for q in _near(p) if q in area and stones.get(q) == attacker}
    return sorted(inside | wall)


def _walled(size: int, region: list[Point], stones: dict, attacker: str,
            box: tuple[int, int, int, int]) -> list[Point]:
    """The points of ``region`` on the defender's side of the attacker's wall: what the
    defender's stones in it reach without crossing an attacker's stone or a link of the
    wall (``_wall``, ``_links``), the links and attacker's stones next to that, and the
    empty points within ``LINK_MARGIN`` steps beyond those links (with the attacker's
    stones next to them). A loose wall (stones a jump or a diagonal apart, a stone on the
    second line) keeps the corner behind it out."""
    area = set(region)
    links = _links(size, stones, _wall(size, stones, attacker, box))
    seeds = [p for p in region if stones.get(p) not in (None, attacker)]
    inside, todo = set(seeds), list(seeds)
    while todo:
        for q in _near(todo.pop()):
            if q in area and q not in inside and stones.get(q) != attacker and q not in links:
                inside.add(q)
                todo.append(q)
    edge = {q for p in inside for q in _near(p) if q in area and q in links}
    beyond = edge
    for _ in range(LINK_MARGIN):
        beyond = {q for p in beyond for q in _near(p) if q in area and q not in stones} - inside - edge
        edge |= beyond
    points = inside | edge
    return sorted(points | {q for p in points for q in _near(p) if q in area and stones.get(q) == attacker})


def _wall(size: int, stones: dict, attacker: str, box: tuple[int, int, int, int]) -> set[Point]:
    """The attacker's stones that face the open board: its strings next to an empty point
    the board reaches from outside ``box`` without crossing a stone or a link between the
    attacker's stones, or next to a link next to such a point. The attacker's stones
    inside the defender's area (cutting stones, placements) are not the wall."""
    links = _links(size, stones, {p for p, s in stones.items() if s == attacker})
    outside = _outside(size, stones | dict.fromkeys(links, attacker), box)
    facing = outside | {q for q in links if any(x in outside for x in _near(q))}
    return {p for s in _strings({p for p, s in stones.items() if s == attacker})
            if any(q in facing for p in s for q in _near(p)) for p in s}


def _links(size: int, stones: dict, wall: set[Point]) -> set[Point]:
    """The empty points that link stones of ``wall``: the point between two stones one
    point apart on a line, the two points next to both of two diagonal stones, and the
    points between a stone within ``EDGE_LINK_LINES`` lines of an edge and that edge."""
    def empty(q):
        return 0 <= q[0] < size and 0 <= q[1] < size and q not in stones

    out = set()
    for r, c in wall:
        for dr, dc in ((0, 2), (2, 0)):
            if (r + dr, c + dc) in wall and empty((r + dr // 2, c + dc // 2)):
                out.add((r + dr // 2, c + dc // 2))
        for dc in (1, -1):
            if (r + 1, c + dc) in wall:
                out.update(q for q in ((r + 1, c), (r, c + dc)) if empty(q))
        for dr, dc, lines in ((-1, 0, r), (1, 0, size - 1 - r), (0, -1, c), (0, 1, size - 1 - c)):
            between = [(r + dr * k, c + dc * k) for k in range(1, lines + 1)]
            if 1 <= lines <= EDGE_LINK_LINES and all(empty(q) for q in between):
                out.update(between)
    return out


def _grown(box: tuple[int, int, int, int], margin: int, size: int) -> tuple[int, int, int, int]:
    """The box (first row, last row, first column, last column) grown by ``margin`` within the board."""
    return (max(0, box[0] - margin), min(size - 1, box[1] + margin),
            max(0, box[2] - margin), min(size - 1, box[3] + margin))


def _to_edges(box: tuple[int, int, int, int], size: int) -> tuple[int, int, int, int]:
    """The box stretched to each edge of the board within ``EDGE_LINES`` lines of it: the
    points between a problem and the edge are the problem's."""
    r0, r1, c0, c1 = box
    far = size - 1 - EDGE_LINES
    return (0 if r0 <= EDGE_LINES else r0, size - 1 if r1 >= far else r1,
            0 if c0 <= EDGE_LINES else c0, size - 1 if c1 >= far else c1)


def _near(p: Point) -> list[Point]:
    """The four points next to ``p`` (on the board or not)."""
    r, c = p
    return [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]


def _outside(size: int, stones: dict, box: tuple[int, int, int, int]) -> set[Point]:
    """The empty points that the open board reaches from outside ``box`` through empty points."""
    seen = {(r, c) for r in range(size) for c in range(size)
            if not (box[0] <= r <= box[1] and box[2] <= c <= box[3])}
    todo = list(seen)
    while todo:
        for q in _near(todo.pop()):
            if q not in seen and q not in stones and 0 <= q[0] < size and 0 <= q[1] < size:
                seen.add(q)
                todo.append(q)
    return seen


def _share_touching(outside: set[Point], points: list[Point]) -> float:
    """The share of ``points`` next to a point of ``outside``."""
    return sum(1 for p in points if any(q in outside for q in _near(p))) / len(points)


def _edge_distance(p: Point, size: int) -> int:
    """Lines between ``p`` and the nearest edge of the board (0 on the first line)."""
    r, c = p
    return min(r, c, size - 1 - r, size - 1 - c)


def _clusters(points: list[Point]) -> list[list[Point]]:
    """The points in groups, two points closer than ``APART`` lines in both directions
    being in one group."""
    return _components(points, lambda p, left: [q for q in left
                                                if abs(q[0] - p[0]) < APART and abs(q[1] - p[1]) < APART])


def _strings(points: set[Point]) -> list[list[Point]]:
    """The strings (orthogonally connected sets) of ``points``."""
    return _components(points, lambda p, left: [q for q in ((p[0] - 1, p[1]), (p[0] + 1, p[1]),
                                                            (p[0], p[1] - 1), (p[0], p[1] + 1)) if q in left])


def _components(points, linked) -> list[list[Point]]:
    """The connected parts of ``points`` under ``linked(p, left)``, the points still
    unplaced that are linked to ``p``."""
    left, parts = set(points), []
    while left:
        todo = [left.pop()]
        part = list(todo)
        while todo:
            near = linked(todo.pop(), left)
            left.difference_update(near)
            todo += near
            part += near
        parts.append(part)
    return parts

"""The oracle of ``shapemill find``: a plain-Python pattern search over sgfmill boards.

Every position of every game is a fresh sgfmill board; every image of the fragment
(the eight symmetries written out as coordinate maps, colours swapped, translations
for ``anywhere``) is checked point by point at every position. Nothing of
``shapemill.find`` is used. (Kept apart from ``oracles.py``, whose numba oracles
are for the miner.)
"""

from __future__ import annotations

from dataclasses import dataclass

from sgfmill import boards

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
REACH = 2


def symmetries(n: int) -> list:
    """The eight maps of the n x n board onto itself, on (x, y)."""
    m = n - 1
    return [
        lambda x, y: (x, y), lambda x, y: (m - x, y), lambda x, y: (x, m - y), lambda x, y: (m - x, m - y),
        lambda x, y: (y, x), lambda x, y: (m - y, x), lambda x, y: (y, m - x), lambda x, y: (m - y, m - x),
    ]


def positions(size: int, setup: list[tuple[str, int, int]], moves: list[tuple[str, tuple[int, int] | None]]):
    """Each position of a game as ``{(x, y): 'b'|'w'}`` (after 0, 1, ... moves), with
    the moves as (colour, (x, y) or None)."""
    board = boards.Board(size)
    for color, x, y in setup:
        board.play(y, x, color)
    out = []
    for color, pt in [*moves, (None, None)]:
        out.append({(c, r): col for col, (r, c) in board.list_occupied_points()})
        if color is not None and pt is not None:
            board.play(pt[1], pt[0], color)
    return out


@dataclass(frozen=True)
class Hit:
    game: str
    move: int
    image: frozenset
    played: tuple[int, int] | None  # board point of the continuation
    played_color: str | None  # its colour as played
    continuation: tuple[int, int] | None  # in the query's orientation (None when ambiguous)
    continuation_color: str | None  # in the query's colours


def images(size: int, points: dict, symmetry=True, swap=True, anywhere=False, next_color=None) -> dict:
    """Distinct images: frozenset of ((x, y), colour) -> (to-move colour, list of
    (inverse point map, swapped) that make it)."""
    swap_c = {"b": "w", "w": "b", None: None}
    syms = symmetries(size) if symmetry else symmetries(size)[:1]
    out: dict = {}
    for swapped in (False, True) if swap else (False,):
        for f in syms:
            inv = next(g for g in symmetries(size) if all(g(*f(x, y)) == (x, y) for x in range(size) for y in range(size)))
            base = {f(x, y): (swap_c[c] if swapped else c) for (x, y), c in points.items()}
            shifts = [(0, 0)]
            if anywhere:
                # an image touching an edge stays there; otherwise it moves wherever it fits
                bx = [x for x, _ in base]
                by = [y for _, y in base]
                pin_x = min(bx) == 0 or max(bx) == size - 1
                pin_y = min(by) == 0 or max(by) == size - 1
                shifts = [(dx, dy) for dx in (range(-min(bx), size - max(bx)) if not pin_x else (0,))
                          for dy in (range(-min(by), size - max(by)) if not pin_y else (0,))]
            nxt = swap_c[next_color] if swapped else next_color
            for dx, dy in shifts:
                img = frozenset(((x + dx, y + dy), c) for (x, y), c in base.items())
                key = (img, nxt)

                def back(x, y, dx=dx, dy=dy, inv=inv):
                    return inv(x - dx, y - dy)

                out.setdefault(key, []).append((back, swapped))
    return out


def search(game_id: str, size: int, setup, moves, query_points: dict, **options) -> list[Hit]:
    """The hits of a fragment (``{(x, y): None|'b'|'w'}``) in one game, by brute force.

    ``options``: symmetry, swap, anywhere, next_color (b, w or None), move_range (lo, hi)."""
    lo, hi = options.pop("move_range", (0, 10**9))
    imgs = images(size, query_points, **options)
    pos = positions(size, setup, moves)
    first_color = moves[0][0] if moves else "b"
    hits = []
    for (img, nxt), makers in imgs.items():
        for t, board in enumerate(pos):
            if not lo <= t <= hi:
                continue
            to_move = first_color if t % 2 == 0 else {"b": "w", "w": "b"}[first_color]
            if nxt is not None and to_move != nxt:
                continue
            if all(board.get(p) == c for p, c in img):
                pts = [p for p, _ in img]
                back, swapped = makers[0]
                played = played_color = None
                for color, pt in moves[t:]:
                    if (pt is not None and any(max(abs(pt[0] - x), abs(pt[1] - y)) <= REACH for x, y in pts)
                            and all(0 <= c < size for c in back(*pt))):  # on the query's board
                        played, played_color = pt, color
                        break
                cont = cc = None
                if played is not None:
                    if len({sw for _, sw in makers}) == 1:
                        cc = {"b": "w", "w": "b"}[played_color] if swapped else played_color
                    if len(makers) == 1:
                        cont = back(*played)
                hits.append(Hit(game_id, t, img, played, played_color, cont, cc))
                break
    return hits


def vertex(p: tuple[int, int] | None) -> str | None:
    """GTP name of (x, y)."""
    return None if p is None else f"{COLUMNS[p[0]]}{p[1] + 1}"

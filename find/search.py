"""The search: a query's hits in indexed games, their continuations, and the summary tables.

A *hit* is an image of the query at its first position in a game (counted as
Kombilo counts: one per distinct image per game). Its *continuation* is the first
later move inside the image's region or within ``CONTINUATION_REACH`` points of it,
turned back to the query's orientation and colours.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import UsageError
from .index import GameIndex, GameInfo
from .query import GTP_COLUMNS, Images, Query, images
from .records import Hits, QueryImages, Replays

#: The largest move number a hit can have (positions are counted in uint16).
LAST_MOVE = 65534
#: Added to an empty point's mean fill move so that an image's stones sort before its
#: empty points (a mean move number is below ``LAST_MOVE + 1``).
FILL_CLASS = 1e6
#: Continuation labels, most played first.
LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


#: A date as ``--since`` and ``--until`` take it (and the games table writes it): a year, a month or a day.
DATE = re.compile(r"\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?")


@dataclass
class Filters:
    """Which games and positions a search keeps (the games table's columns).

    ``player``: a substring of the black or white name (any case); ``since`` /
    ``until``: dates compared as written (``2015`` keeps 2015-...); ``winner``:
    ``b`` or ``w`` as the table says; ``moves``: the move numbers kept (a hit at
    move ``t`` is the position after ``t`` moves).
    """

    player: str | None = None
    since: str | None = None
    until: str | None = None
    winner: str | None = None
    moves: tuple[int, int] = (0, LAST_MOVE)

    def __post_init__(self) -> None:
        for option, value in (("--since", self.since), ("--until", self.until)):
            if value is not None and not DATE.fullmatch(value):
                raise UsageError(f"{option}: {value!r} is not a date (YYYY, YYYY-MM or YYYY-MM-DD)")
        if self.since and self.until and self.since[:len(self.until)] > self.until:
            raise UsageError(f"--since {self.since} is after --until {self.until}: no game can be kept")

    def keep(self, info: GameInfo, size: int) -> np.ndarray:
        """Boolean mask of the games of ``info`` kept (and of board ``size``)."""
        mask = pc.equal(info["board_size"], size)
        if self.player:
            low = self.player.lower()
            mask = pc.and_(mask, pc.or_(pc.match_substring(pc.utf8_lower(info["black"]), low),
                                        pc.match_substring(pc.utf8_lower(info["white"]), low)))
        if self.since:
            mask = pc.and_(mask, pc.greater_equal(info["date"], self.since))
        if self.until:
            # "2015" keeps every date of 2015: compare on the prefix as long as the bound
            mask = pc.and_(mask, pc.less_equal(pc.utf8_slice_codeunits(info["date"], 0, len(self.until)), self.until))
        if self.winner:
            mask = pc.and_(mask, pc.equal(info["winner"], self.winner))
        return pc.fill_null(mask, False).to_numpy(zero_copy_only=False)


@dataclass
class FindResult:
    """What a search found: the query, its images, and the hits as a table."""

    query: Query
    images: Images
    hits: pa.Table
    info: list[GameInfo] = field(default_factory=list)

    @property
    def n_games(self) -> int:
        """Distinct games with a hit."""
        if not self.hits.num_rows:
            return 0
        return len(np.unique(self.hits["part"].to_numpy().astype(np.int64) << 32 | self.hits["game"].to_numpy()))


def search_index(index: GameIndex, q: Query, imgs: Images, filters: Filters) -> dict[str, np.ndarray]:
    """The hits of the query's images in one indexed games table, as columns."""
    t_lo, t_hi = filters.moves
    keep = index.bitset(filters.keep(index.info, q.size)) if index.size == q.size else None
    if keep is None or not len(imgs):
        return _columns(Hits(*(np.zeros(0, np.int32),) * 3), index, imgs, q.size)
    # each image's stones first, then its empty points by how early games fill them,
    # so that the pruning meets a point that rules a game out within a few reads
    # (every image has the query's number of points: a row each)
    width = len(q.points)
    key = (index.fill[imgs.pt] + (imgs.col == 0) * FILL_CLASS).reshape(-1, width)
    order = (np.argsort(key, axis=1, kind="stable") + imgs.ptr[:-1, None]).ravel()
    from .kernels import prune, replay_match  # numba: loaded by the first search

    wanted = QueryImages(imgs.pt[order], imgs.col[order], imgs.ptr, imgs.next, imgs.region, imgs.want_empty, q.stones)
    proved, todo = prune(index.first, index.bits(keep), index.games, wanted, t_lo, t_hi)
    if len(todo.game) == 0:
        return _columns(proved, index, imgs, q.size)
    order = np.argsort(todo.game, kind="stable")
    todo = Replays(todo.game[order], todo.image[order], todo.until[order])
    as_is = QueryImages(imgs.pt, imgs.col, imgs.ptr, imgs.next, imgs.region, imgs.want_empty, q.stones)
    replayed = replay_match(q.size, todo, index.games, as_is, t_lo, t_hi)
    return _columns(Hits(*(np.concatenate(pair) for pair in zip(proved, replayed))), index, imgs, q.size)


def _columns(hits: Hits, index: GameIndex, imgs: Images, size: int) -> dict:
    order = np.lexsort((hits.image, hits.t, hits.game))
    hits = Hits(hits.game[order], hits.image[order], hits.t[order])
    g, v, t = hits
    from .kernels import continuations

    used, row = np.unique(v, return_inverse=True)
    pt, color, at = continuations(Hits(g, row.astype(np.int32), t), index.games, imgs.zone(used, size))
    has = pt >= 0
    qx, qy = imgs.to_query(v[has], pt[has] % size, pt[has] // size, size) if len(v) else (pt[has], pt[has])
    cx = np.full(len(g), -1, dtype=np.int64)
    cy = np.full(len(g), -1, dtype=np.int64)
    cx[has], cy[has] = qx, qy
    swapped = imgs.swapped[v] if len(v) else np.zeros(0, dtype=bool)
    rel = np.where(color == 0, 0, np.where(swapped, 3 - color, color))
    return {"game": g, "move": t, "image": v, "cx": cx, "cy": cy, "ccolor": rel, "cmove": at,
            "px": np.where(has, pt % size, -1), "py": np.where(has, pt // size, -1)}


def find(indexes: list[GameIndex], q: Query, filters: Filters | None = None) -> FindResult:
    """Search ``q`` in indexed games tables; the hits, one row each, as a pyarrow table.

    Columns: ``part`` (which index), ``game`` (row in it), ``id``, ``move`` (the
    position after that many moves), ``symmetry``, ``swapped``, ``continuation``
    (GTP vertex in the query's orientation, null when the game ends first),
    ``continuation_color`` (``b``/``w`` in the query's colours), ``continuation_move``,
    ``played`` (the continuation as played in the game, in its own orientation).
    """
    filters = filters or Filters()
    imgs = images(q)
    parts = []
    for k, index in enumerate(indexes):
        cols = search_index(index, q, imgs, filters)
        ids = index.info["id"].take(pa.array(cols["game"], pa.int64())) if len(cols["game"]) else pa.array([], pa.string())
        parts.append(pa.table({
            "part": pa.array(np.full(len(cols["game"]), k, dtype=np.int32)),
            "game": pa.array(cols["game"].astype(np.int32)),
            "id": ids,
            "move": pa.array(cols["move"].astype(np.int32)),
            "symmetry": pa.array(imgs.sym[cols["image"]].astype(np.int8)),
            "swapped": pa.array(imgs.swapped[cols["image"]]),
            "continuation": pa.array(_vertices(cols["cx"], cols["cy"]), pa.string()),
            "continuation_color": pa.array(np.array([None, "b", "w"], dtype=object)[cols["ccolor"]], pa.string()),
            "continuation_move": pa.array(cols["cmove"], pa.int32(), mask=cols["cmove"] < 0),
            "played": pa.array(_vertices(cols["px"], cols["py"]), pa.string()),
        }))
    hits = pa.concat_tables(parts) if parts else pa.table({})
    return FindResult(q, imgs, hits, [index.info for index in indexes])


def _vertices(x: np.ndarray, y: np.ndarray) -> list[str | None]:
    return [None if a < 0 else f"{GTP_COLUMNS[a]}{b + 1}" for a, b in zip(x.tolist(), y.tolist())]


def game_rows(result: FindResult, columns: list[str]) -> pa.Table:
    """One row per hit with the ``columns`` of its game (of the games table's
    ``INFO_COLUMNS``: source, players, ranks, date, result, winner...)."""
    hits = result.hits
    if hits.num_rows == 0:
        return pa.table({name: pa.array([], pa.string()) for name in columns})
    chunks = []
    for k, info in enumerate(result.info):
        sel = pc.equal(hits["part"], k)
        rows = hits.filter(sel)
        chunks.append(info.select(columns).take(rows["game"]))
    games = pa.concat_tables(chunks)
    # the hits are in part order already, so the taken rows line up with them
    return games


def continuation_table(result: FindResult) -> pa.Table:
    """Continuations by frequency: ``label``, ``move``, ``count``, ``by_black``,
    ``by_white``, ``black_wins``, ``white_wins`` (in the query's colours),
    ``first_date``, ``last_date``."""
    hits = result.hits
    names = ["label", "move", "count", "by_black", "by_white", "black_wins", "white_wins", "first_date", "last_date"]
    if hits.num_rows == 0:
        return pa.table({n: pa.array([], pa.string() if n in ("label", "move", "first_date", "last_date") else pa.int64())
                         for n in names})
    games = game_rows(result, ["winner", "date"])
    move = hits["continuation"].to_numpy(zero_copy_only=False)
    color = hits["continuation_color"].to_numpy(zero_copy_only=False)
    swapped = hits["swapped"].to_numpy(zero_copy_only=False)
    winner = games["winner"].to_numpy(zero_copy_only=False)
    winner = np.where(swapped, np.where(winner == "b", "w", np.where(winner == "w", "b", winner)), winner)
    date = games["date"].to_numpy(zero_copy_only=False)
    has = move != None  # noqa: E711 (object array)
    color, winner, date = color[has], winner[has], date[has]
    moves, inverse, count = np.unique(move[has].astype(str), return_inverse=True, return_counts=True)
    rows = []
    for j in np.lexsort((moves, -count)):
        sel = inverse == j
        d = [x for x in date[sel] if x]
        rows.append({
            "move": str(moves[j]), "count": int(count[j]),
            "by_black": int((color[sel] == "b").sum()), "by_white": int((color[sel] == "w").sum()),
            "black_wins": int((winner[sel] == "b").sum()), "white_wins": int((winner[sel] == "w").sum()),
            "first_date": min(d) if d else None, "last_date": max(d) if d else None,
        })
    for k, row in enumerate(rows):
        row["label"] = LABELS[k] if k < len(LABELS) else None
    return pa.Table.from_pylist(rows, schema=pa.schema([
        ("label", pa.string()), ("move", pa.string()), ("count", pa.int64()), ("by_black", pa.int64()),
        ("by_white", pa.int64()), ("black_wins", pa.int64()), ("white_wins", pa.int64()),
        ("first_date", pa.string()), ("last_date", pa.string())]))


def top_games(result: FindResult, n: int) -> pa.Table:
    """The ``n`` most recent games with a hit (each at its first hit)."""
    hits = result.hits
    if hits.num_rows == 0 or n <= 0:
        return pa.table({"id": pa.array([], pa.string())})
    games = game_rows(result, ["source", "black", "black_rank", "white", "white_rank", "date", "result"])
    key = hits["part"].to_numpy().astype(np.int64) << 32 | hits["game"].to_numpy()
    _, first = np.unique(key, return_index=True)  # hits run by game, then move: its first hit
    rows = pa.table({"id": hits["id"], "move": hits["move"], **{c: games[c] for c in games.column_names}}).take(first)
    rows = rows.sort_by([("date", "descending"), ("id", "ascending")])
    return rows.slice(0, n).select(["id", "source", "black", "black_rank", "white", "white_rank", "date", "result", "move"])

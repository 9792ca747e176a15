"""A book problem framed on the whole board (engine/solve/frame.py): the frame lives as it
stands, leaves the problem as the book gives it, and its komi makes the group at stake the
game: checked on the books' problems with Benson's test and a plain area count."""

from __future__ import annotations

import gzip
import json
import random

import pytest

from shapemill.engine.solve.frame import LEAD, frame_problem
from shapemill.engine.solve.tsumego import read_tsumego
from shapemill.errors import ShapemillError
from shapemill.go import rules
from shapemill.go.benson import unconditionally_alive
from shapemill.go.board import Board
from shapemill.go.vertices import flat_index, parse_sgf_point


def _area(size: int, stones: dict) -> dict:
    """Chinese area of each colour by hand: its stones, and each empty region only it borders."""
    area = {"b": 0, "w": 0}
    seen = set()
    for r in range(size):
        for c in range(size):
            if (r, c) in stones:
                area[stones[(r, c)]] += 1
                continue
            if (r, c) in seen:
                continue
            region, borders, todo = [], set(), [(r, c)]
            seen.add((r, c))
            while todo:
                p = todo.pop()
                region.append(p)
                for q in ((p[0] + 1, p[1]), (p[0] - 1, p[1]), (p[0], p[1] + 1), (p[0], p[1] - 1)):
                    if 0 <= q[0] < size and 0 <= q[1] < size:
                        if q in stones:
                            borders.add(stones[q])
                        elif q not in seen:
                            seen.add(q)
                            todo.append(q)
            if len(borders) == 1:
                area[borders.pop()] += len(region)
    return area


@pytest.mark.shared_data
def test_framed_book_problems_live_keep_the_problem_and_give_the_attacker_the_lead_if_the_group_dies(shared_data):
    with gzip.open(shared_data / "tsumego" / "problems.jsonl.gz", "rt") as f:
        problems = [json.loads(line) for line in f]
    checked = 0
    for p in random.Random(7).sample(problems, 150):
        size = p["size"]
        black = [parse_sgf_point(s, size) for s in p["black"]]
        white = [parse_sgf_point(s, size) for s in p["white"]]
        try:
            t = read_tsumego(size, black, white)
        except ShapemillError:
            continue
        framed = frame_problem(size, black, white, t)
        assert set(black) <= set(framed.black) and set(white) <= set(framed.white)
        board = Board(size)
        board.setup("b", framed.black)
        board.setup("w", framed.white)
        for colour, added in (("b", set(framed.black) - set(black)), ("w", set(framed.white) - set(white))):
            alive = unconditionally_alive(board.b, board.m, rules.BLACK if colour == "b" else rules.WHITE)
            assert all(alive[board.b[rules.HEAD, flat_index(q, size)]] for q in added), p["id"]
        # the group at stake dead: the problem's box (its stones' and region's) all the attacker's
        kept = [*t.region, *black, *white]
        rows, cols = [r for r, _ in kept], [c for _, c in kept]
        stones = {q: "b" for q in framed.black} | {q: "w" for q in framed.white}
        for r in range(min(rows), max(rows) + 1):
            for c in range(min(cols), max(cols) + 1):
                stones[(r, c)] = t.attacker
        area = _area(size, stones)
        lead = area[t.attacker] - area[t.defender] + (framed.komi if t.attacker == "w" else -framed.komi)
        assert lead == pytest.approx(LEAD), p["id"]
        checked += 1
    assert checked >= 140

"""Fixed-seed searches pinned to what the engine found before the house moved (issue 43).

``fixtures/pinned_search.json`` holds the chosen move, the root's visits per point and the
playouts' mean ownership of six searches, computed by the commit before the reorganisation
(e98ff01, the engine's modules flat in ``engine/``) with ``fixtures/pinned_ratings.parquet``:
a copy of the bundled ratings table as it was then (its tactical features and its patterns
of rings 2 and 3), pinned so that a refit of the bundled table does not move these cases.
(Issue 48 made Algorithm 3's bandits read the move's own statistics by default; the ucb1 case
pins the form before it, ``bandit_stats="virtual"``.) A refactoring must give the same searches; a change meant to change them regenerates the
file and says why in its commit.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from shapemill.engine.search import Search, SearchConfig
from shapemill.go import rules
from shapemill.go.board import Board
from shapemill.patterns.knowledge import Knowledge

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PINNED = json.loads((FIXTURES / "pinned_search.json").read_text())
OPENING = [("b", (2, 2)), ("w", (6, 6)), ("b", (2, 6)), ("w", (6, 2)), ("b", (4, 4))]
#: name: board size, opening moves played, playouts, with the table, other settings.
CASES = {
    "9x9 opening, table, tree priors": (9, 5, 400, True, {}),
    "9x9 empty, no table": (9, 0, 400, False, {}),
    "9x9 opening, table, puct": (9, 5, 300, True, {"prior_mode": "puct"}),
    "13x13 opening, table, root priors": (13, 3, 300, True, {"tree_priors": False}),
    "9x9 opening, ucb1 no rave": (9, 5, 300, False, {"bandit": "ucb1", "rave": False, "bandit_stats": "virtual"}),
}


@pytest.fixture(scope="module")
def knowledge() -> Knowledge:
    return Knowledge.load(FIXTURES / "pinned_ratings.parquet")


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_fixed_seed_search_finds_what_it_found_before(name, knowledge) -> None:
    size, n, playouts, with_table, extra = CASES[name]
    board = Board(size)
    for colour, point in OPENING[:n]:
        board.play(colour, point)
    colour = rules.WHITE if n % 2 else rules.BLACK
    search = Search(SearchConfig(playouts=playouts, seed=3, **extra), knowledge if with_table else None)
    prior, tree = search.priors(board, colour)
    result = search.run(board, colour, prior, tree)
    pinned = PINNED[name]
    assert int(result.move) == pinned["move"]
    assert [int(v) for v in np.asarray(result.visits)] == pinned["visits"]
    assert np.allclose(np.asarray(result.owner), pinned["owner"], rtol=0, atol=1e-9)

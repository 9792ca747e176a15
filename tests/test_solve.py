"""Exact search: tiny boards against published values, eye shapes against their textbook status."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from shapemill.cli import main
from shapemill.engine.solve.alphabeta import alphabeta
from shapemill.engine.solve.dfpn import dfpn
from shapemill.engine.solve.pns import pns
from shapemill.engine.solve.position import make_problem, parse_diagram
from shapemill.engine.solve.run import parse_points

SEARCHES = {"alphabeta": alphabeta, "pns": pns}


def problem(diagram: str, to_play: str, goal: str, target: str, region: str | None = None):
    size, black, white = parse_diagram(diagram.strip().splitlines())
    targets = parse_points(target, size)
    area = parse_points(region, size) if region else None
    return make_problem(size, black, white, to_play, goal, targets, area), size


def gtp(point: int, size: int) -> str:
    w = size + 2
    return "ABCDEFGHJKLMNOPQRST"[point % w - 1] + str(point // w)


@pytest.mark.parametrize("to_play, value", [("b", 1), ("w", -1)])
def test_2x2_is_won_by_one_point_by_the_first_player(to_play, value):
    # 2x2, area scoring, positional superko: the first player wins by 1 (Bill Taylor's
    # proof, https://senseis.xmp.net/?2x2Board; John Tromp's solver, tromp.github.io/java/go/twoxtwo.html)
    p = make_problem(2, [], [], to_play, "score")
    values = {name: f(p, 100_000).value for name, f in SEARCHES.items()}
    assert values == {"alphabeta": value, "pns": value}


# the eye is A1 B1 C1 on the bottom edge; white's string A2-D2, D1
STRAIGHT_THREE = """
. . . . .
. . . . .
X X X X X
O O O O X
. . . O X
"""

BENT_THREE_CORNER = """
. . . . .
X X X X .
O O O X .
. O O X .
. . O X .
"""

TWO_EYES = """
. . . . . .
. . . . . .
. . . . . .
X X X X X X
O O O O O X
. O . O O X
"""

# C1 is false: Black holds its diagonal D2 and D1 falls in atari
FALSE_EYE = """
. . . . . .
. . . . . .
. . . . . .
X X X X X .
O O O X X .
. O . O X .
"""

@pytest.mark.parametrize("name", sorted(SEARCHES))
@pytest.mark.parametrize("diagram, vital", [(STRAIGHT_THREE, "B1"), (BENT_THREE_CORNER, "A1")])
def test_three_point_eyes_die_or_live_by_the_vital_point(name, diagram, vital):
    search = SEARCHES[name]
    kill, size = problem(diagram, "b", "kill", "A3" if diagram is BENT_THREE_CORNER else "A2")
    r = search(kill, 200_000)
    assert r.value == 1 and gtp(r.move, size) == vital
    live, _ = problem(diagram, "w", "live", "A3" if diagram is BENT_THREE_CORNER else "A2")
    r = search(live, 200_000)
    assert r.value == -1 and gtp(r.move, size) == vital


@pytest.mark.parametrize("name", sorted(SEARCHES))
def test_two_eyes_live_and_a_false_eye_dies_with_black_to_play(name):
    search = SEARCHES[name]
    alive, _ = problem(TWO_EYES, "b", "kill", "A2")
    assert search(alive, 200_000).value == -1
    dead, _ = problem(FALSE_EYE, "b", "kill", "A2")
    assert search(dead, 200_000).value == 1


def test_dfpn_agrees_on_the_straight_three():
    kill, _ = problem(STRAIGHT_THREE, "b", "kill", "A2")
    assert dfpn(kill, 200_000).value == alphabeta(kill, 200_000).value == 1


def test_cli_solves_an_sgf_problem(tmp_path):
    sgf = tmp_path / "three.sgf"
    sgf.write_text("(;GM[1]SZ[5]PL[B]AB[ac][bc][cc][dc][ec][eb][ea]AW[ab][bb][cb][db][da])")
    out = CliRunner().invoke(main, ["solve", str(sgf), "--goal", "kill A4", "--json"])
    assert out.exit_code == 0, out.output
    answer = json.loads(out.output)
    assert answer["result"] == "win" and answer["move"] == "B5"


@pytest.mark.parametrize("search", [pns, dfpn])
def test_3x3_is_black_by_9_from_the_centre(search):
    # van der Werf, van den Herik, Uiterwijk 2003, "Solving Go on small boards": 3x3 is
    # Black by 9 (area scoring, positional superko), the optimal first move the centre
    p = make_problem(3, [], [], "b", "score")
    r = search(p, 300_000)
    assert r.value == 9 and gtp(r.move, 3) == "B2"

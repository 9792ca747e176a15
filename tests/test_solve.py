"""Exact search: tiny boards against published values, eye shapes against their textbook status."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace

import pytest
from click.testing import CliRunner
from sgfmill import common
from shapemill.cli import main
from shapemill.engine.solve.alphabeta import alphabeta
from shapemill.engine.solve.dfpn import Dfpn, dfpn
from shapemill.engine.solve.pns import pns
from shapemill.engine.solve.position import make_problem, parse_diagram
from shapemill.engine.solve.game import OPEN
from shapemill.engine.solve.run import FIRST_MOVE_NODES, first_moves, parse_points, seki_only, with_ko_threats
from shapemill.engine.solve.ubfm import ubfm
from shapemill.go.rules import BLACK, COLOR, HEAD, WHITE
from shapemill.go.vertices import flat_index, point_at
from shapemill.errors import ShapemillError

SEARCHES = {"alphabeta": alphabeta, "pns": pns}


def problem(diagram: str, to_play: str, goal: str, target: str, region: str | None = None):
    size, black, white = parse_diagram(diagram.strip().splitlines())
    targets = parse_points(target, size)
    area = parse_points(region, size) if region else None
    return make_problem(size, black, white, to_play, goal, targets, area), size


def gtp(point: int, size: int) -> str:
    return common.format_vertex(point_at(point, size))


@pytest.mark.parametrize("to_play, value", [("b", 1), ("w", -1)])
def test_2x2_is_won_by_one_point_by_the_first_player(to_play, value):
    # 2x2, area scoring, positional superko: the first player wins by 1 (Bill Taylor's
    # proof, https://senseis.xmp.net/?2x2Board; John Tromp's solver, tromp.github.io/java/go/twoxtwo.html)
    p = make_problem(2, [], [], to_play, "score")
    values = {name: f(p, 100_000).value for name, f in {**SEARCHES, "dfpn": dfpn}.items()}
    assert values == {"alphabeta": value, "pns": value, "dfpn": value}


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

# Textbook shapes. The nakade shapes are White groups inside an immortal Black wall (outside
# the region); Black's value +1 means Black's side wins the fight.
BULKY_FIVE = """
. . . . . . .
. . . . . . .
. . . . . . .
X X X X X X .
O O O O X X .
O . . O O X .
O . . . O X .
"""

RABBITY_SIX = """
. . . . . . .
. . . . . . .
X X X X X . .
X O O O X X .
O O . O O X .
O . . . O X .
O O . . O X .
"""

# The L group: Black's stones enclose a 2 by 3 corner area without the two first-line stones
# ("legs") at the ends of the L; White's wall leaves it no outside liberty.
L_GROUP = """
. . . . . . .
. . . . . . .
. . . . . . .
O O O O O . .
. X X X O . .
. . . X O . .
. . . . O . .
"""

L_LEG_LONG = L_GROUP.replace(". . . . O . .\n", ". . . X O . .\n")
L_LEG_SHORT = L_GROUP.replace(". X X X O . .", "X X X X O . .")

# The J group as reconstructed here: the L group with a leg on the short side, its corner
# stone replaced by a diagonal step down to the edge.
J_GROUP = """
. . . . . . .
. . . . . . .
. . . . . . .
O O O O O O .
X X X . O . .
. . . X O . .
. . . X O . .
"""

# Seki: Black's and White's inner strings each have one eye and share C1; the outer walls
# (row 3) are immortal. Whoever plays C1 is captured, so both pass and both live.
SEKI = """
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
O O O X X X X
X X X O O O X
. X . O . O X
"""

SHAPES = {
    # name: (diagram, target, region, Black's value with Black to play, with White to play)
    "straight three": (STRAIGHT_THREE, "A2", None, 1, -1),
    "bent three": (BENT_THREE_CORNER, "A3", None, 1, -1),
    "bulky five": (BULKY_FIVE, "A1", None, 1, -1),
    "rabbity six": (RABBITY_SIX, "A1", None, 1, -1),
    "two eyes": (TWO_EYES, "A2", None, -1, -1),
    "false eye": (FALSE_EYE, "A2", None, 1, 1),
    # https://senseis.xmp.net/?LGroup: "This shape is dead even if Black plays first."
    "L group": (L_GROUP, "B3", None, -1, -1),
    # https://senseis.xmp.net/?L1group: with a leg on either side "the group lives or dies
    # according to who plays first".
    "L+1, leg on the long side": (L_LEG_LONG, "B3", None, 1, -1),
    "L+1, leg on the short side": (L_LEG_SHORT, "B3", None, 1, -1),
    # https://senseis.xmp.net/?JGroups: "It has the same status as an L+1 group: it lives or
    # dies according to who has sente." (The stored page has the text, not the diagram.)
    "J group": (J_GROUP, "A3", "A1-F3", 1, -1),
    # seki counts as alive: the defender keeps the string when both pass
    "seki": (SEKI, "E2", "A1-G2", -1, -1),
}

#: (name, to play) -> PNS's result, shared by the status and the agreement tests
_PNS: dict = {}


def shape_problem(name: str, to_play: str):
    diagram, target, region, _, _ = SHAPES[name]
    return problem(diagram, to_play, "kill", target, region)[0]


def pns_result(name: str, to_play: str):
    if (name, to_play) not in _PNS:
        _PNS[name, to_play] = pns(shape_problem(name, to_play), 400_000)
    return _PNS[name, to_play]


@pytest.mark.parametrize("to_play", ["b", "w"])
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_textbook_shapes_have_their_textbook_status(name, to_play):
    expected = SHAPES[name][3 if to_play == "b" else 4]
    assert pns_result(name, to_play).value == expected


@pytest.mark.parametrize("to_play", ["b", "w"])
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_alphabeta_and_pns_agree_on_every_shape(name, to_play):
    assert alphabeta(shape_problem(name, to_play), 400_000).value == pns_result(name, to_play).value


@pytest.mark.parametrize("name, to_play", [("L+1, leg on the long side", "b"), ("J group", "b"), ("rabbity six", "b"),
                                           ("bulky five", "w"), ("L+1, leg on the short side", "w")])
def test_first_moves_read_from_the_solvers_table_are_the_moves_alphabeta_proves_one_by_one(name, to_play):
    p = shape_problem(name, to_play)
    solver = Dfpn(p)
    result = solver.solve(p, 1_000_000)
    listed = first_moves(p, 2 * result.nodes + FIRST_MOVE_NODES, None, solver=solver)
    mover = 1 if to_play == "b" else -1
    moves, _, _, values = p.expand(p.root)
    winning = []
    for move, value in zip(moves.tolist(), values.tolist()):
        child = replace(p, root=p.child(p.root, move), maps=p.maps)
        value = value if value != OPEN else child.root_value()
        if value == OPEN:
            value = alphabeta(child, 2_000_000).value  # a fresh search of another kind
        if mover * value > 0:
            winning.append(move)
    assert listed == winning and len(winning) >= 1
    with pytest.raises(ValueError, match="one goal and region"):
        solver.solve(with_ko_threats(p, to_play), 1000)


@pytest.mark.parametrize("name", sorted(SEARCHES))
@pytest.mark.parametrize("shape, vital", [("straight three", "B1"), ("bent three", "A1"),
                                          ("bulky five", "C1"), ("rabbity six", "C2")])
def test_nakade_shapes_die_or_live_by_the_vital_point(name, shape, vital):
    diagram, target, region, _, _ = SHAPES[shape]
    kill, size = problem(diagram, "b", "kill", target, region)
    r = SEARCHES[name](kill, 200_000)
    assert r.value == 1 and gtp(r.move, size) == vital
    # White lives by taking the vital point: with it White's, Black to play cannot kill
    size, black, white = parse_diagram(diagram.strip().splitlines())
    area = parse_points(region, size) if region else None
    after = make_problem(size, black, white + parse_points(vital, size), "b", "kill",
                         parse_points(target, size), area)
    assert SEARCHES[name](after, 200_000).value == -1


@pytest.mark.parametrize("shape, vital", [("straight three", "B1"), ("bent three", "A1")])
def test_ubfm_finds_the_vital_point_of_three_point_eyes(shape, vital):
    diagram, target, _, _, _ = SHAPES[shape]
    for to_play, goal, value in (("b", "kill", 1), ("w", "live", -1)):
        p, size = problem(diagram, to_play, goal, target)
        r = ubfm(p, 10_000)
        assert r.value == value and gtp(r.move, size) == vital


@pytest.mark.parametrize("to_play", ["b", "w"])
def test_ubfm_agrees_with_pns_on_2x2(to_play):
    p = make_problem(2, [], [], to_play, "score")
    assert ubfm(p, 100_000).value == pns(p, 100_000).value == (1 if to_play == "b" else -1)


def test_mined_priors_order_the_moves_strongest_first_and_keep_the_value():
    from shapemill.patterns.prior import MovePrior
    from shapemill.patterns.defaults import RATINGS, default_table

    kill, size = problem(STRAIGHT_THREE, "b", "kill", "A2")
    plain = alphabeta(kill, 200_000)
    kill.prior = MovePrior(default_table(RATINGS))
    moves, _, _, _ = kill.expand(kill.root)
    strength = kill.prior(kill.root.b, kill.root.m, kill.root.color)
    before_pass = [int(mv) for mv in moves[: list(moves).index(0)]]
    assert [strength[mv] for mv in before_pass] == sorted((strength[mv] for mv in before_pass), reverse=True)
    unordered = problem(STRAIGHT_THREE, "b", "kill", "A2")[0].expand(kill.root)[0]
    assert sorted(moves.tolist()) == sorted(unordered.tolist()) and moves.tolist() != unordered.tolist()
    r = alphabeta(kill, 200_000)
    assert r.value == plain.value == 1 and gtp(r.move, size) == "B1"


def test_seki_is_held_by_passing_and_counts_as_alive():
    live, _ = problem(SEKI, "w", "live", "E2", "A1-G2")
    r = alphabeta(live, 100_000)
    assert r.value == -1 and r.move == 0  # White keeps the string, by passing
    kill, _ = problem(SEKI, "w", "kill", "B2", "A1-G2")
    assert alphabeta(kill, 100_000).value == 1  # nor can White kill Black's inner string


def test_a_seki_is_told_apart_from_life():
    # By hand: in SEKI, White's D2-F2 and Black's A2-C2 share C1 and whoever fills it is
    # captured, so White lives with one eye (E1): Black cannot kill it, and White is not
    # alive unconditionally. In TWO_EYES White lives with eyes A1 and C1: no seki.
    seki, _ = problem(SEKI, "b", "kill", "E2", "A1-G2")
    assert dfpn(seki, 100_000).value == -1
    assert seki_only(seki, 100_000, None)
    eyes, _ = problem(TWO_EYES, "b", "kill", "B2")
    assert dfpn(eyes, 100_000).value == -1
    assert not seki_only(eyes, 100_000, None)


def test_dfpn_agrees_on_the_straight_three():
    kill, _ = problem(STRAIGHT_THREE, "b", "kill", "A2")
    assert dfpn(kill, 200_000).value == alphabeta(kill, 200_000).value == 1


def test_cli_solves_an_sgf_problem(tmp_path):
    sgf = tmp_path / "three.sgf"
    sgf.write_text("(;GM[1]SZ[5]PL[B]AB[ac][bc][cc][dc][ec][eb][ea]AW[ab][bb][cb][db][da])")
    out = CliRunner().invoke(main, ["solve", str(sgf), "--goal", "kill A4", "--json"])
    assert out.exit_code == 0, out.output
    answer = json.loads(out.stdout)
    assert answer["result"] == "win" and answer["move"] == "B5"


def test_solution_tree_is_sgf_that_starts_with_the_solvers_move(tmp_path):
    from sgfmill import sgf as sgfmill_sgf

    problem_file, tree = tmp_path / "three.sgf", tmp_path / "tree.sgf"
    problem_file.write_text("(;GM[1]SZ[5]PL[B]AB[ac][bc][cc][dc][ec][eb][ea]AW[ab][bb][cb][db][da])")
    out = CliRunner().invoke(main, ["solve", str(problem_file), "--goal", "kill A4", "--sgf", str(tree)])
    assert out.exit_code == 0 and out.output.startswith("win B5"), out.output
    game = sgfmill_sgf.Sgf_game.from_bytes(tree.read_bytes())
    root = game.get_root()
    first = root[0]
    assert first.get_move() == ("b", (4, 1))  # B5
    assert len(root.get_setup_stones()[0]) == 7 and len(root.get_setup_stones()[1]) == 5
    tries = {child.get_move()[1] for child in first}
    assert len(tries) > 1 and None in tries  # White's tries, pass among them, as variations
    colours = [node.get_move()[0] for node in game.get_main_sequence()[1:]]
    assert colours == ["b", "w"] * (len(colours) // 2) + ["b"] * (len(colours) % 2)


@pytest.mark.parametrize("algorithm", ["alphabeta", "dfpn"])
def test_3x3_solution_tree_goes_to_the_end_of_the_game(tmp_path, algorithm):
    from sgfmill import sgf as sgfmill_sgf

    problem_file, tree = tmp_path / "empty.sgf", tmp_path / "tree.sgf"
    problem_file.write_text("(;GM[1]SZ[3]PL[B])")
    out = CliRunner().invoke(main, ["solve", str(problem_file), "--goal", "score", "--algorithm", algorithm,
                                    "--sgf", str(tree)])
    assert out.exit_code == 0 and out.output.startswith("win B2 value +9"), out.output
    line = [node.get_move() for node in sgfmill_sgf.Sgf_game.from_bytes(tree.read_bytes()).get_main_sequence()[1:]]
    assert line[0] == ("b", (1, 1)) and len(line) > 8
    assert [c for c, _ in line] == ["b", "w"] * (len(line) // 2) + ["b"] * (len(line) % 2)
    assert line[-2:] == [("w", None), ("b", None)]  # two passes end the game


@pytest.mark.parametrize("search", [alphabeta, pns, dfpn])
def test_3x3_is_black_by_9_from_the_centre(search):
    # van der Werf, van den Herik, Uiterwijk 2003, "Solving Go on small boards": 3x3 is
    # Black by 9 (area scoring, positional superko), the optimal first move the centre
    p = make_problem(3, [], [], "b", "score")
    r = search(p, 300_000)
    assert r.value == 9 and gtp(r.move, 3) == "B2"


def test_4x4_after_black_b2_is_black_by_2():
    # van der Werf, van den Herik, Uiterwijk 2003: 4x4 is Black by 2 (area scoring, positional
    # superko), B2 an optimal first move; df-pn proves it in about 4 million nodes
    r = dfpn(make_problem(4, [(1, 1)], [], "w", "score"), 10_000_000)
    assert r.value == 2


def test_dfpn_grows_its_table_and_stack_without_changing_the_search(monkeypatch):
    from shapemill.engine.solve import dfpn as kernel

    p = make_problem(3, [], [], "b", "score")
    roomy = dfpn(p, 300_000)
    monkeypatch.setattr(kernel, "TABLE_SLOTS", 4)
    monkeypatch.setattr(kernel, "STACK_FRAMES", 2)
    cramped = dfpn(p, 300_000)
    assert (cramped.value, cramped.move, cramped.nodes) == (roomy.value, roomy.move, roomy.nodes)
    assert roomy.value == 9


def test_child_keys_are_the_canonical_keys_of_the_children():
    # df-pn looks children up by child_keys, which plays only the moves that capture
    import numpy as np
    from shapemill.engine.solve.game import child_keys
    from shapemill.go.rules import KO, N_EMPTY, PASS

    p = make_problem(4, [], [], "b", "score")
    s, rng, captures, kos = p.root, np.random.default_rng(1), 0, 0
    for _ in range(80):
        moves, hashes, ko_points, _ = p.expand(s)
        kids = [p.child(s, int(mv)) for mv in moves]
        assert child_keys(s.b, s.m, s.color, moves, hashes, ko_points, p.maps).tolist() == [
            p.canonical(c)[0] for c in kids]
        captures += sum(int(c.m[N_EMPTY]) >= int(s.m[N_EMPTY]) for c, mv in zip(kids, moves) if mv != PASS)
        kos += sum(int(c.m[KO]) != 0 for c in kids)
        s = kids[rng.integers(len(kids))]
    assert captures > 0 and kos > 0


@pytest.mark.parametrize("search", [alphabeta, pns, dfpn, ubfm])
def test_long_searches_report_their_progress(monkeypatch, search):
    from shapemill.engine.solve import table

    monkeypatch.setattr(table, "PROGRESS_EVERY", 0.0)  # a report at every check, 1,024 nodes apart
    reports = []
    r = search(make_problem(3, [], [], "b", "score"), 5_000, None, progress=lambda n, s: reports.append((n, s)))
    assert r.nodes == 5_001  # out of budget: the reports stop at the last full 1,024
    assert [n for n, _ in reports] == [1024, 2048, 3072, 4096]
    assert all(0 <= s1 <= s2 for (_, s1), (_, s2) in itertools.pairwise(reports))


# Ladders on 9x9: White's C3 after Black's C2 B3 D4 runs to the left edge or to the bottom
# edge, whichever Black chooses; B5 breaks the first, E2 the second, E1 and A5 F2 neither.
LADDERS = [
    ("C2 B3 D4", "C3", "b", True),
    ("C2 B3 D4", "C3 B5 E2", "b", False),
    ("C2 B3 D4", "C3 B5 E1", "b", True),
    ("C2 B3 D4", "C3 A5 F2", "b", True),
    ("C2 B3 D4 D3", "C3", "w", True),  # in atari, White to move
    ("C2 B3 D4 D3", "C3 B5", "w", False),
]


@pytest.mark.parametrize("black, white, to_play, caught", LADDERS)
def test_ladder_reader_and_solver_agree(black, white, to_play, caught):
    from shapemill.go.reading import ladder_captured

    size = 9
    p = make_problem(size, parse_points(black, size), parse_points(white, size), to_play, "capture",
                     parse_points("C3", size), [(r, c) for r in range(size) for c in range(size)])
    read = ladder_captured(p.root.b, p.root.m, 3 * (size + 2) + 3, to_play == "w")
    assert read == caught
    assert pns(p, 300_000).value == (1 if caught else -1)


# Ladders across 19x19: Black's E4 ataris White's D4 (Black C4 D3 C5 around it); the ladder
# runs up and to the right to the top edge unless a White stone on its way breaks it.
LONG_LADDERS = [
    ("C4 D3 C5", "D4", "b", True),
    ("C4 D3 C5 E4", "D4", "w", True),
    ("C4 D3 C5 E4", "D4 Q16", "w", False),
    ("C4 D3 C5 E4", "D4 O14", "w", False),
    ("C4 D3 C5", "D4 R17", "b", False),
]


@pytest.mark.parametrize("black, white, to_play, caught", LONG_LADDERS)
@pytest.mark.parametrize("search", [alphabeta, pns, dfpn])
def test_ladder_goal_agrees_with_the_miner_across_the_board(black, white, to_play, caught, search):
    from shapemill.go.reading import ladder_captured

    size = 19
    p = make_problem(size, parse_points(black, size), parse_points(white, size), to_play, "ladder",
                     parse_points("D4", size))
    assert ladder_captured(p.root.b, p.root.m, 4 * (size + 2) + 4, to_play == "w") == caught
    r = search(p, 2_000)
    assert r.value == (1 if caught else -1) and r.nodes < 2_000


def test_ladder_goal_needs_the_defender_in_atari_and_escapes_at_three_liberties():
    # White's C3 with Black C2 B3 on 9x9, Black to move: either atari leaves White three
    # liberties after extending, so the ladder fails; with White to move C3 is not in atari
    size = 9
    black, white, c3 = parse_points("C2 B3", size), parse_points("C3", size), parse_points("C3", size)
    r = pns(make_problem(size, black, white, "b", "ladder", c3), 10_000)
    assert r.value == -1 and r.nodes <= 3
    with pytest.raises(ShapemillError, match="in atari"):
        make_problem(size, black, white, "w", "ladder", c3)


def test_proven_status_of_two_eyes_and_a_false_eye():
    from shapemill.engine.solve.status import proven_status

    for diagram, white_status in ((TWO_EYES, "alive"), (FALSE_EYE, "dead")):
        size, black, white = parse_diagram(diagram.strip().splitlines())
        found = proven_status(size, set(black), set(white))
        assert {found.get(p) for p in white} == {white_status}
        assert "dead" not in {found.get(p) for p in black}  # the wall: alive, or unproved in budget


def test_gtp_final_status_list_uses_the_proof():
    from shapemill.engine.frontends.gtp import GtpEngine
    from shapemill.engine.search import SearchConfig

    engine = GtpEngine(SearchConfig(playouts=50, seed=1), size=6)
    assert engine.handle("boardsize 6")[0] == "=\n\n"
    size, black, white = parse_diagram(FALSE_EYE.strip().splitlines())
    for color, stones in (("b", black), ("w", white)):
        for point in stones:
            assert engine.handle(f"play {color} {common.format_vertex(point)}")[0] == "=\n\n"
    dead = set(engine.handle("final_status_list dead")[0][2:].split())
    assert dead == {"A2", "B2", "C2", "B1", "D1"}


def test_final_status_list_seki_names_the_strings_that_live_in_seki():
    from shapemill.engine.frontends.gtp import GtpEngine
    from shapemill.engine.search import SearchConfig

    size, black, white = parse_diagram(SEKI.strip().splitlines())
    engine = GtpEngine(SearchConfig(playouts=50, seed=1), size=size)
    assert engine.handle(f"boardsize {size}")[0] == "=\n\n"
    for color, stones in (("b", black), ("w", white)):
        for point in stones:
            assert engine.handle(f"play {color} {common.format_vertex(point)}")[0] == "=\n\n"
    seki = set(engine.handle("final_status_list seki")[0][2:].split())
    assert seki == {"A2", "B2", "C2", "B1", "D2", "E2", "F2", "D1", "F1"}
    alive = set(engine.handle("final_status_list alive")[0][2:].split())
    assert not alive & seki and {"A3", "D3", "G1"} <= alive


def test_a_race_with_an_outside_liberty_is_no_seki():
    from shapemill.go.board import Board
    from shapemill.go.seki import seki_stones

    size, black, white = parse_diagram(SEKI.strip().splitlines())
    for gap, in_seki in ((None, 9), ((2, 2), 0)):  # without C3, Black's inner string has a liberty outside
        board = Board(size)
        board.setup("b", black)
        board.setup("w", [p for p in white if p != gap])
        assert seki_stones(board.b, board.m).sum() == in_seki


@pytest.mark.parametrize("black, white, to_play, verdict", [
    ("C4 D3 C5", "D4", "b", "CAUGHT"),
    ("C4 D3 C5", "D4 R17", "b", "ESCAPED"),
])
def test_a_ladder_reading_the_budget_cuts_is_unread_not_escaped(black, white, to_play, verdict):
    from shapemill.go import reading

    size = 19
    p = make_problem(size, parse_points(black, size), parse_points(white, size), to_play, "ladder",
                     parse_points("D4", size))
    d4 = 4 * (size + 2) + 4
    work, mwork, moves = reading.ladder_scratch(p.root.b, p.root.m)
    mark = work[0, 0].copy()
    for budget, want in ((reading.LADDER_BUDGET, getattr(reading, verdict)), (6, reading.UNREAD)):
        work[0], mwork[0] = p.root.b, p.root.m
        assert reading.ladder_reading(work, mwork, moves, mark, d4, to_play == "w", budget) == want
        assert reading.read_ladder(work, mwork, moves, mark, d4, to_play == "w", budget) == (want == reading.CAUGHT)


@pytest.mark.shared_data
def test_the_miner_and_the_solver_agree_on_every_ladder_the_miner_reads_in_60_test_games(tygem_archives):
    """60 games (some 45,000 ladder questions) here; bench/ladders.py reads 1,000 (RESULTS)."""
    from shapemill.datasets.corpus import load_corpus
    from shapemill.engine.solve.ladders import compare_ladders

    corpus = load_corpus([str(tygem_archives[0])], "test", 60)
    tally = compare_ladders(corpus)
    assert tally.games == 60 and tally.caught > 15_000 and tally.escaped > 15_000
    assert tally.disagree == 0 and tally.unfinished == 0
    # the readings its budget cuts count as escapes in the miner's features: a few in a thousand
    assert 0 < tally.unread_caught + tally.unread_escaped < tally.questions / 200


def _board(diagram: str):
    from shapemill.go.board import Board

    size, black, white = parse_diagram(diagram.strip().splitlines())
    board = Board(size)
    board.setup("b", black)
    board.setup("w", white)
    return board


@pytest.mark.parametrize("to_move, kill", [(BLACK, True), (WHITE, False)])
def test_the_vital_point_of_a_straight_three_is_urgent_for_both_sides(to_move, kill):
    from shapemill.engine.solve.urgent import LifeReader, Urgent

    board = _board(STRAIGHT_THREE)
    size = board.size
    found = LifeReader().urgent(board, to_move, seconds=10.0)
    group = int(board.b[HEAD, flat_index((1, 0), size)])  # White's A2 string
    assert found == [Urgent(flat_index((0, 1), size), group, 5, kill)]  # B1; the wall is not urgent


def test_reading_stops_when_its_seconds_are_spent():
    from shapemill.engine.solve.urgent import LifeReader

    assert LifeReader().urgent(_board(STRAIGHT_THREE), BLACK, seconds=0.0) == []  # not even the first string


@pytest.mark.parametrize("diagram", [TWO_EYES, FALSE_EYE])
def test_a_group_alive_or_dead_whoever_moves_first_is_not_urgent(diagram):
    from shapemill.engine.solve.urgent import LifeReader

    board = _board(diagram)
    white = {int(board.b[HEAD, p]) for p in range(board.b.shape[1]) if board.b[COLOR, p] == WHITE}
    for to_move in (BLACK, WHITE):
        assert not {u.head for u in LifeReader().urgent(board, to_move, seconds=10.0)} & white


def test_an_urgent_move_gets_its_share_of_the_root_prior():
    import numpy as np
    from shapemill.engine.solve.urgent import Urgent, raise_urgent

    strength = np.array([0.0, 1.0, 1.0, 2.0, 4.0])  # total 8
    raised = raise_urgent(strength, [Urgent(1, 9, 3, True), Urgent(4, 9, 1, False)])
    # 3 stones: 3 / (3 + 3) of 8 = 4; one stone: 1 / 4 of 8 = 2, below the move's own 4
    assert raised.tolist() == [0.0, 4.0, 1.0, 2.0, 4.0] and strength.tolist() == [0.0, 1.0, 1.0, 2.0, 4.0]


def test_gtp_read_life_plays_the_vital_point():
    from shapemill.engine.frontends.gtp import GtpEngine
    from shapemill.engine.search import SearchConfig
    from shapemill.patterns.prior import MovePrior
    from shapemill.patterns.defaults import RATINGS, default_table

    size, black, white = parse_diagram(STRAIGHT_THREE.strip().splitlines())
    prior = MovePrior(default_table(RATINGS))
    engine = GtpEngine(SearchConfig(playouts=30, seed=1, read_life=True), size=size, prior=prior)
    assert engine.handle(f"boardsize {size}")[0] == "=\n\n"
    for color, stones in (("b", black), ("w", white)):
        for point in stones:
            assert engine.handle(f"play {color} {common.format_vertex(point)}")[0] == "=\n\n"
    assert engine.handle("genmove b")[0] == "= B1\n\n"

"""The GTP commands beyond GTP 2 that GUIs and servers send: KataGo's, KGS's and GoGui's.

Answers are checked against KataGo's GTP_Extensions.md (through ``katago_protocol``),
sgfmill (printsgf) and hand-built positions (cleanup, explain)."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pyarrow.parquet as pq
import pytest
from katago_protocol import ProtocolError, check_rules, parse_analyze_line
from sgfmill import sgf, sgf_moves
from shapemill.engine.frontends.gtp import GtpEngine
from shapemill.engine.search import SearchConfig
from shapemill.patterns.knowledge import Knowledge
from shapemill.patterns.defaults import RATINGS, default_table


@pytest.fixture(scope="module")
def prior() -> Knowledge:
    return Knowledge(default_table(RATINGS))


@pytest.fixture
def gtp(prior) -> GtpEngine:
    return GtpEngine(SearchConfig(playouts=300, seed=1), size=9, prior=prior)


def answer(engine: GtpEngine, line: str) -> str:
    response = engine.handle(line)[0]
    assert response.startswith("=") and response.endswith("\n\n"), (line, response)
    return response[1:].strip()


def test_the_documents_examples_pass_the_parser_and_broken_lines_do_not():
    # the kata-analyze example line of GTP_Extensions.md, shortened to two moves of a 19x19 board
    example = ("info move E4 visits 487 utility -0.0408357 winrate 0.480018 scoreMean -0.611848 scoreStdev 24.7058 "
               "scoreLead -0.611848 scoreSelfplay -0.515178 prior 0.221121 lcb 0.477221 utilityLcb -0.0486664 "
               "order 0 pv E4 E3 F3 D3 info move P16 visits 470 utility -0.0414945 winrate 0.479712 scoreMean "
               "-0.63075 scoreStdev 24.7179 scoreLead -0.63075 scoreSelfplay -0.5221 prior 0.220566 lcb 0.47657 "
               "utilityLcb -0.0502929 order 1 pv P16 P17 O17")
    parsed = parse_analyze_line(example, "kata", 19)
    assert [e["move"] for e in parsed["infos"]] == ["E4", "P16"] and parsed["infos"][1]["pv"] == ["P16", "P17", "O17"]
    lz = "info move E4 visits 1178 winrate 4802 prior 2211 lcb 4781 order 0 pv E4 E3 F3"
    assert parse_analyze_line(lz, "lz", 19)["infos"][0]["winrate"] == 4802
    broken = [example.replace("winrate 0.480018", "winrate 48.0018"),  # kata win rates are in [0, 1]
              example.replace("order 1", "order 2"),  # orders run 0, 1, 2, ...
              example.replace("scoreLead -0.611848", "scoreLead 3"),  # scoreMean is scoreLead
              example.replace(" prior 0.221121", ""),  # a field a GUI reads
              example + " ownership " + " ".join(["0.5"] * 360),  # 19 x 19 values, not 360
              lz.replace("winrate 4802", "winrate 0.48")]  # lz win rates are integers
    for line in broken:
        with pytest.raises(ProtocolError):
            parse_analyze_line(line, "lz" if line.startswith(lz[:30]) and "utility" not in line else "kata", 19)
    assert check_rules('{"hasButton":false,"ko":"POSITIONAL","scoring":"AREA","suicide":true,"tax":"NONE",'
                       '"whiteHandicapBonus":"N-1"}')["ko"] == "POSITIONAL"  # the document's example


def test_printsgf_gives_the_game_sgfmill_reads_back(gtp, tmp_path):
    for line in ("fixed_handicap 2", "play w E5", "play b D4", "play w pass", "genmove b"):
        answer(gtp, line)
    text = answer(gtp, "printsgf")
    game = sgf.Sgf_game.from_string(text)
    setup, moves = sgf_moves.get_setup_and_moves(game)
    assert game.get_size() == 9 and game.get_komi() == 7.5 and game.get_root().get("RU") == "Chinese"
    assert {p for c, p in setup.list_occupied_points() if c == "b"} == {(2, 6), (6, 2)}  # G3, C7: GTP 2 4.1.1
    assert [c for c, _ in moves] == ["w", "b", "w", "b"] and moves[0][1] == (4, 4) and moves[2][1] is None
    played = moves[3][1]
    assert f"{'ABCDEFGHJ'[played[1]]}{played[0] + 1}" in answer(gtp, "list_stones b").split()
    path = tmp_path / "game.sgf"
    assert answer(gtp, f"printsgf {path}") == ""
    other = GtpEngine(SearchConfig(playouts=10), size=19)
    assert answer(other, f"loadsgf {path}") == "white"
    for color in ("b", "w"):
        assert set(answer(other, f"list_stones {color}").split()) == set(answer(gtp, f"list_stones {color}").split())


def test_genmove_cleanup_captures_the_dead_stone_before_passing(prior):
    """Black walls off column A, White columns D-J; a lone White stone at A5, in a strip one
    point wide, is dead. In the cleanup phase (KGS, after the players disagreed on the dead
    stones) Black plays on its liberties until it is captured, then passes."""
    engine = GtpEngine(SearchConfig(playouts=400, seed=2), size=9, prior=prior)
    answer(engine, "komi -40.5")  # Black's 18 points win: the game is over but for the cleanup
    for row in range(1, 10):
        answer(engine, f"play b B{row}")
        answer(engine, f"play w D{row}")
    answer(engine, "play w A5")
    moves = []
    while "A5" in answer(engine, "list_stones w").split() and len(moves) < 4:
        moves.append(answer(engine, "kgs-genmove_cleanup b"))
        answer(engine, "play w pass")
    assert sorted(moves) == ["A4", "A6"]  # its two liberties, no pass before the capture
    assert "A5" not in answer(engine, "list_stones w").split()
    assert answer(engine, "genmove_cleanup b") == "pass"  # nothing dead is left: as genmove


def test_rules_area_accepted_territory_played_by_area_with_a_line_on_stderr(gtp, capsys):
    rules = check_rules(answer(gtp, "kata-get-rules"))
    assert rules["scoring"] == "AREA"
    answer(gtp, "kata-set-rules tromp-taylor")
    # GTP_Extensions.md: tromp-taylor is positional superko, suicide allowed, no handicap bonus
    assert check_rules(answer(gtp, "kata-get-rules"))["ko"] == "POSITIONAL"
    assert check_rules(answer(gtp, "kata-get-rules"))["whiteHandicapBonus"] == "0"
    answer(gtp, "kgs-rules aga")  # AGA: situational superko, N-1 points for N handicap stones
    assert {k: check_rules(answer(gtp, "kata-get-rules"))[k] for k in ("ko", "whiteHandicapBonus")} == {
        "ko": "SITUATIONAL", "whiteHandicapBonus": "N-1"}
    answer(gtp, 'kata-set-rules {"scoring":"AREA","ko":"SIMPLE"}')
    assert check_rules(answer(gtp, "kata-get-rules"))["ko"] == "SIMPLE"
    # territory rules and stone scoring: accepted as given (kata-get-rules says them), scored by area,
    # and a line on standard error says so; GTP_Extensions.md's fields for japanese
    capsys.readouterr()
    for line, scoring in (("kata-set-rules japanese", "TERRITORY"), ("kata-set-rules korean", "TERRITORY"),
                          ("kgs-rules japanese", "TERRITORY"), ('kata-set-rules {"scoring":"TERRITORY"}', "TERRITORY"),
                          ("kata-set-rules stone-scoring", "AREA")):
        answer(gtp, line)
        assert check_rules(answer(gtp, "kata-get-rules"))["scoring"] == scoring
        assert "analysed by area scoring" in capsys.readouterr().err, line
    before = answer(gtp, "kata-get-rules")
    for line in ("kata-set-rules aga-button", "kata-set-rules nonsense", "kata-set-rules {bad json", "kgs-rules",
                 "kata-set-rules"):
        response = gtp.handle(line)[0]
        assert response.startswith("? ") and response.count("\n") == 2, (line, response)
    assert answer(gtp, "kata-get-rules") == before


def test_loadsgf_takes_the_game_s_rules_and_territory_ones_are_scored_by_area(gtp, tmp_path, capsys):
    game = tmp_path / "korean.sgf"
    game.write_text("(;GM[1]FF[4]SZ[9]KM[6.5]RU[Korean];B[ee];W[cc])")
    capsys.readouterr()
    assert answer(gtp, f"loadsgf {game}") == "black"
    assert check_rules(answer(gtp, "kata-get-rules"))["scoring"] == "TERRITORY"
    assert "RU[Korean]" in capsys.readouterr().err
    score = answer(gtp, "final_score")  # an area score, said on standard error
    assert score[0] in "BW0" and "area scores" in capsys.readouterr().err
    chinese = tmp_path / "chinese.sgf"
    chinese.write_text("(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese];B[ee])")
    answer(gtp, f"loadsgf {chinese}")
    assert check_rules(answer(gtp, "kata-get-rules"))["scoring"] == "AREA" and capsys.readouterr().err == ""
    odd = tmp_path / "odd.sgf"
    odd.write_text("(;GM[1]FF[4]SZ[9]RU[Moon rules];B[ee])")
    before = answer(gtp, "kata-get-rules")
    answer(gtp, f"loadsgf {odd}")  # the game loads; the rules stay, and a line says why
    assert answer(gtp, "kata-get-rules") == before and "RU[Moon rules]" in capsys.readouterr().err


def test_cputime_is_the_engine_s_processor_seconds_and_grows_with_a_search(gtp):
    first = float(answer(gtp, "cputime"))
    answer(gtp, "genmove b")
    assert float(answer(gtp, "cputime")) > first >= 0.0


def test_list_commands_lists_exactly_what_is_answered(prior):
    engine = GtpEngine(SearchConfig(playouts=20, seed=1), size=9, prior=prior)
    listed = answer(engine, "list_commands").split("\n")
    assert {"printsgf", "genmove_cleanup", "kgs-genmove_cleanup", "kgs-rules", "kata-get-rules", "kata-set-rules",
            "stop", "clear_cache", "showboard", "kata-analyze", "lz-analyze"} <= set(listed)
    out = io.StringIO()
    for name in listed:
        if name == "quit":
            continue
        response = engine.handle(name, out)[0]
        engine.analysis.stop(out)
        assert not response.startswith("? unknown command"), name
        assert answer(engine, f"known_command {name}") == "true"
    for name in ("kata-raw-nn", "rectangular_boardsize", "frobnicate"):
        assert engine.handle(name)[0] == "? unknown command\n\n"
        assert answer(engine, f"known_command {name}") == "false"


def test_stop_and_clear_cache(gtp):
    out = io.StringIO()
    gtp.handle("kata-analyze b 5", out)
    gtp.analysis.stop(out)
    assert answer(gtp, "stop") == "" and out.getvalue().endswith("\n\n")
    answer(gtp, "genmove b")
    assert answer(gtp, "clear_cache") == ""
    assert gtp.state.last is None  # the next search starts afresh


def test_gogui_analyze_commands_answer_gogui_gfx(gtp):
    commands = answer(gtp, "gogui-analyze_commands").split("\n")
    assert all(c.count("/") >= 2 and c.split("/")[0] == "gfx" for c in commands)
    answer(gtp, "play b E5")
    percent = answer(gtp, "shapemill-prior-percent")
    assert percent.startswith("LABEL ") and " E5 " not in percent + " "
    labels = percent.split()[1:]
    assert 90 <= sum(int(v) for v in labels[1::2]) <= 101  # percent of the legal moves, rounded
    influence = answer(gtp, "shapemill-ownership").split()
    assert influence[0] == "INFLUENCE" and len(influence) == 1 + 2 * 81
    values = dict(zip(influence[1::2], map(float, influence[2::2])))
    assert all(-1 <= v <= 1 for v in values.values()) and values["E5"] > 0  # Black's stone: positive, as GoGui


def test_explain_names_the_capture_and_its_gammas_make_the_prior(gtp, prior):
    """White's E5 stone in atari (Black C... around it): Black's capture at E6 is explained by the
    capture feature; the parts' gammas multiply to the table's strength of the move."""
    for line in ("play b D5", "play w E5", "play b F5", "play w J9", "play b E4", "play w J8"):
        answer(gtp, line)
    text = answer(gtp, "shapemill-explain E6")
    lines = text.split("\n")
    assert lines[0].startswith("TEXT E6 (Black)") and lines[1] == "CIRCLE E6" and lines[2].startswith("LABEL E6 ")
    why = gtp.gogui.explainer(gtp.state.board, "b", (5, 4))
    names = [p.name for p in why.parts]
    assert "capture" in names and "capture_size" in names
    assert all(math.isclose(p.elo, 400 * math.log10(p.gamma)) for p in why.parts)
    strength = prior(gtp.state.board.b, gtp.state.board.m, 1)
    w = 11
    assert math.isclose(np.prod([p.gamma for p in why.parts]), strength[6 * w + 5], rel_tol=1e-9)
    ratings = pq.read_table(default_table(RATINGS), columns=["feature", "gamma", "vector"]).to_pylist()
    passing = next(r for r in ratings if r["feature"] == "pass")  # the pass competes too, with its pair
    band = json.loads(pq.read_schema(default_table(RATINGS)).metadata[b"shapemill"])["latent"]["vectors"][0]
    pass_strength = passing["gamma"] * math.exp(sum(x * y for x, y in zip(passing["vector"], band)))  # move 7: band 0
    assert math.isclose(why.probability, strength[6 * w + 5] / (strength.sum() + pass_strength), rel_tol=1e-9)
    for bad in ("shapemill-explain E5", "shapemill-explain pass", "shapemill-explain Z99", "shapemill-explain"):
        assert gtp.handle(bad)[0].startswith("? ")


def analyze_over_pipes(commands: list[str], analyze: str, lines: int = 3) -> list[str]:
    """Drive ``shapemill gtp`` as Lizzie and Sabaki do: ``commands``, then the ``analyze``
    command, ``lines`` of its output, then another command that ends the stream."""
    import queue
    import subprocess
    import sys
    import threading

    proc = subprocess.Popen([sys.executable, "-m", "shapemill.cli", "gtp", "--size", "9"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)
    out: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [out.put(x.rstrip("\n")) for x in proc.stdout], daemon=True).start()
    try:
        for command in commands:
            proc.stdin.write(command + "\n")
            proc.stdin.flush()
            assert out.get(timeout=180).startswith("=") and out.get(timeout=180) == ""
        proc.stdin.write(f"9 {analyze}\n")
        proc.stdin.flush()
        assert out.get(timeout=180) == "=9"
        got = [out.get(timeout=180) for _ in range(lines)]
        proc.stdin.write("10 name\n")
        proc.stdin.flush()
        while (line := out.get(timeout=180)) != "=10 shapemill":
            got.append(line)
        assert got[-1] == ""  # the stream ends with its blank line before the next answer
        return got[:-1]
    finally:
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        proc.wait(timeout=60)


def test_kata_analyze_gives_every_field_a_gui_reads():
    lines = analyze_over_pipes(["komi 7.5", "play b E5"],
                               "kata-analyze w interval 20 maxmoves 2 ownership true pvVisits true rootInfo true")
    parsed = [parse_analyze_line(x, "kata", 9, ownership=True, pv_visits=True, root_info=True, max_moves=2)
              for x in lines]
    last = parsed[-1]
    assert len(last["infos"]) == 2 and all(e["move"] != "E5" for e in last["infos"])
    # from the player to move (White): Black's stone at E5 is the opponent's, negative ownership
    assert last["ownership"][4 * 9 + 4] < 0
    assert last["rootInfo"]["visits"] >= sum(e["visits"] for e in last["infos"])
    visits = [p["rootInfo"]["visits"] for p in parsed]
    assert visits == sorted(visits) and visits[-1] > visits[0]  # the search goes on between lines
    for e in last["infos"]:
        assert e["pv"][0] == e["move"] and e["pvVisits"][0] == e["visits"]
        assert e["lcb"] <= e["winrate"] and math.isclose(e["utility"], 2 * e["winrate"] - 1, abs_tol=1e-5)


def test_kata_analyze_minmoves_lists_unvisited_moves_and_lz_keeps_leela_zeros_format():
    lines = analyze_over_pipes([], "kata-analyze b interval 5 minmoves 40", lines=1)
    first = parse_analyze_line(lines[0], "kata", 9)
    assert len(first["infos"]) >= 40 and any(e["visits"] == 0 for e in first["infos"])
    sabaki = analyze_over_pipes([], "analyze b 10", lines=1)  # KataGo's name for Sabaki
    assert parse_analyze_line(sabaki[0], "kata", 9)["infos"]
    lz = analyze_over_pipes(["play b E5"], "lz-analyze w 20")
    for line in lz:
        parsed = parse_analyze_line(line, "lz", 9)
        assert "scoreMean" not in line and parsed["ownership"] is None


def test_kata_genmove_analyze_takes_the_kata_options(gtp):
    out = io.StringIO()
    gtp.handle("kata-genmove_analyze b interval 5 ownership true maxmoves 3", out)
    lines = out.getvalue().rstrip("\n").split("\n")
    assert lines[0] == "=" and lines[-1].startswith("play ")
    final = parse_analyze_line(lines[-2], "kata", 9, ownership=True, max_moves=3)
    assert final["infos"][0]["move"] == lines[-1].split()[1]


def test_the_visits_map_is_of_the_current_position_whatever_was_played(prior):
    engine = GtpEngine(SearchConfig(playouts=100, seed=1), size=9, prior=prior)
    answer(engine, "play b E5")
    answer(engine, "genmove w")
    heat = answer(engine, "shapemill-visits")  # Black to move now: a search of this position
    assert heat.startswith("INFLUENCE ")
    occupied = set(answer(engine, "list_stones b").split() + answer(engine, "list_stones w").split())
    assert not occupied & set(heat.split()[1::2])


def test_the_explain_seam_takes_the_miners_explanation(gtp, prior):
    """``knowledge_explanation`` reads an explanation of the miner's ``Knowledge.explain`` form
    (pattern ring and gamma, features with level and gamma, the pairs' factor, probability): given the reasons
    the table's own reading finds, GoGui gets the same parts and Elo."""
    from types import SimpleNamespace

    from shapemill.engine.frontends.explain import knowledge_explanation

    answer(gtp, "play b D5")
    ours = gtp.gogui.explainer(gtp.state.board, "w", (4, 4))
    shapes = ("pattern", "near_pattern")  # the pattern, or its near twin: D5 is next to E5
    pattern = next(p for p in ours.parts if p.name in shapes)
    miner = SimpleNamespace(explain=lambda board, colour, vertex: SimpleNamespace(
        probability=ours.probability,
        pattern=SimpleNamespace(ring=pattern.value, gamma=pattern.gamma, near=pattern.name != "pattern"),
        features=tuple(SimpleNamespace(feature=p.name, level=p.value, gamma=p.gamma)
                       for p in ours.parts if p.name not in (*shapes, "pairs")),
        pairs=next((p.gamma for p in ours.parts if p.name == "pairs"), 1.0)))
    adapted = knowledge_explanation(miner)(gtp.state.board, "w", (4, 4))
    assert adapted == ours and [p.elo for p in adapted.parts] == [p.elo for p in ours.parts]


def test_gogui_interrupt_ends_a_running_genmove_with_the_move_it_has(prior):
    # GoGui's protocol: the engine answers gogui-interrupt, and a "# interrupt" line sent while a
    # command runs ends it early. Here the line is already waiting when genmove starts: its search
    # of a million playouts ends after its first batch, and the move is answered.
    engine = GtpEngine(SearchConfig(playouts=1_000_000, seed=1), size=9, prior=prior)
    out = io.StringIO()
    engine.loop(io.StringIO("gogui-interrupt\ngenmove b\n# interrupt\ncputime\n"), out)
    answers = [line for line in out.getvalue().split("\n") if line]
    assert answers[0] == "=" and answers[1].startswith("= ") and answers[1] != "= resign"
    assert engine.state.last.playouts < 1_000_000
    assert float(answers[2][2:]) > 0 and not engine.interrupt.is_set()  # cleared once genmove ended

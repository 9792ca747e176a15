"""``shapemill analysis``: KataGo's JSON analysis engine, driven over pipes as its clients do.

Every response is checked by ``katago_protocol`` (written from KataGo's
Analysis_Engine.md), and positions by sgfmill's board, not by shapemill's own."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from katago_protocol import (
    check_action,
    check_analysis,
    check_error,
    check_final_responses,
    parse_json_line,
    response_kind,
    vertex_index,
)
from sgfmill import boards

LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
ENGINE = [sys.executable, "-m", "shapemill.cli", "analysis"]
#: Seconds a test waits for one response (a cold numba cache compiles the kernels first: minutes
#: on a loaded two-core machine). A guard against a hang, not a timing.
WAIT = 900


class Client:
    """``shapemill analysis`` in a subprocess: queries in, response objects out."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([*ENGINE, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(parse_json_line(line))
        self.lines.put(None)

    def send(self, query: dict | str) -> None:
        self.proc.stdin.write((query if isinstance(query, str) else json.dumps(query)) + "\n")
        self.proc.stdin.flush()

    def read(self, timeout: float = WAIT) -> dict:
        obj = self.lines.get(timeout=timeout)
        assert obj is not None, "the engine closed its output"
        return obj

    def until_final(self, query: dict, extra: list | None = None) -> list[dict]:
        """Responses until every asked turn of ``query`` has its final one."""
        turns = set(query.get("analyzeTurns", [len(query["moves"])]))
        got = []
        while turns:
            obj = self.read()
            got.append(obj)
            if obj.get("id") == query["id"] and response_kind(obj) in ("analysis", "noResults") \
                    and not obj["isDuringSearch"]:
                turns.discard(obj["turnNumber"])
        if extra is not None:
            extra.extend(got)
        return got

    def close(self) -> int:
        self.proc.stdin.close()
        code = self.proc.wait(timeout=WAIT)
        return code


@pytest.fixture
def client():
    c = Client("--max-visits", "60", "--seed", "1")
    yield c
    if c.proc.poll() is None:
        c.proc.kill()
        c.proc.wait()


def position(query: dict, turn: int) -> tuple[set[str], str]:
    """sgfmill's board after ``turn`` moves of ``query``: the occupied vertices and the player to move."""
    size = query["boardXSize"]
    board = boards.Board(size)
    for color, vertex in query.get("initialStones", []):
        board.play(int(vertex[1:]) - 1, LETTERS.index(vertex[0]), color.lower())
    for color, vertex in query["moves"][:turn]:
        if vertex.lower() != "pass":
            board.play(int(vertex[1:]) - 1, LETTERS.index(vertex[0]), color.lower())
    occupied = {f"{LETTERS[c]}{r + 1}" for (r, c) in ((r, c) for r in range(size) for c in range(size))
                if board.get(r, c) is not None}
    if turn < len(query["moves"]):
        to_move = query["moves"][turn][0]
    else:
        to_move = "W" if query["moves"][-1][0] == "B" else "B"
    return occupied, to_move


GAME = {"id": "game", "moves": [["B", "E5"], ["W", "C3"], ["B", "G3"], ["W", "C6"], ["B", "D4"], ["W", "pass"],
                                ["B", "D3"]],
        "rules": "chinese", "komi": 7.5, "boardXSize": 9, "boardYSize": 9, "analyzeTurns": [0, 1, 2, 3, 4, 5, 6, 7],
        "includeOwnership": True, "includePolicy": True, "includePVVisits": True}


def test_a_game_is_analysed_turn_by_turn_as_the_document_says(client):
    client.send(GAME)
    final = check_final_responses(client.until_final(GAME), GAME)
    for turn, obj in final.items():
        occupied, to_move = position(GAME, turn)
        check_analysis(obj, GAME, occupied, to_move=to_move)
        assert obj["moveInfos"] and obj["rootInfo"]["visits"] >= 60
    assert client.close() == 0


def test_ownership_and_policy_are_row_major_from_the_top_left(client):
    """Black owns the top-left corner (A9 ... ), White the bottom-right (J1 ...): from Black's
    point of view (the default, KataGo's example config) ownership is positive at the top left."""
    black = ["A7", "B7", "C7", "C8", "C9"]
    white = ["G1", "G2", "G3", "H3", "J3"]
    query = {"id": "corner", "initialStones": [["B", v] for v in black] + [["W", v] for v in white], "moves": [],
             "initialPlayer": "B", "rules": "tromp-taylor", "komi": 0, "boardXSize": 9, "boardYSize": 9,
             "includeOwnership": True, "includePolicy": True, "maxVisits": 200}
    client.send(query)
    obj = client.until_final(query)[-1]
    check_analysis(obj, query, set(black + white), to_move="B")
    own, policy = obj["ownership"], obj["policy"]
    assert own[vertex_index("A9", 9)] > 0.5 and own[vertex_index("J1", 9)] < -0.5
    assert vertex_index("A9", 9) == 0 and vertex_index("J1", 9) == 80
    assert all(policy[vertex_index(v, 9)] == -1 for v in black + white)
    # a playout's area score is the sum of its points' owners less komi: so are their means
    assert abs(obj["rootInfo"]["scoreLead"] - (sum(own) - query["komi"])) < 3


def test_side_to_move_perspective_flips_white_s_turns():
    c = Client("--max-visits", "200", "--seed", "1", "--report-as", "SIDETOMOVE")
    query = {"id": "w", "initialStones": [["B", v] for v in ("A7", "B7", "C7", "C8", "C9")], "moves": [],
             "initialPlayer": "W", "rules": "chinese", "komi": 0, "boardXSize": 9, "boardYSize": 9,
             "includeOwnership": True}
    try:
        c.send(query)
        obj = c.until_final(query)[-1]
        check_analysis(obj, query, None, to_move="W")
        assert obj["ownership"][0] < -0.5  # Black's corner, seen by White
        # a query's overrideSettings may choose the perspective; KataGo's settings shapemill lacks are warned of
        black = {**query, "id": "b", "overrideSettings": {"reportAnalysisWinratesAs": "BLACK", "wideRootNoise": 0.04}}
        c.send(black)
        got = c.until_final(black)
        check_error(got[0], "b", "overrideSettings")
        check_analysis(got[-1], black, None, to_move="W")
        assert got[-1]["ownership"][0] > 0.5 and len(got) == 2
    finally:
        c.close()


def test_hostile_queries_get_one_error_each_and_the_engine_goes_on(client):
    good = {"id": "good", "moves": [["B", "E5"]], "rules": "chinese", "komi": 7.5, "boardXSize": 9,
            "boardYSize": 9}
    cases = [
        ('{"id": "a", "moves": [', None, None),  # malformed JSON: a general error
        ("[1, 2]", None, None),
        ('{"moves": []}', None, None),  # no id
        ({**good, "id": "occupied", "moves": [["B", "E5"], ["W", "E5"]]}, "occupied", "moves"),
        ({**good, "id": "offboard", "moves": [["B", "Z9"]]}, "offboard", "moves"),
        ({**good, "id": "zero", "boardXSize": 0, "boardYSize": 0}, "zero", "boardXSize"),
        ({**good, "id": "fifty", "boardXSize": 50, "boardYSize": 50}, "fifty", "boardXSize"),
        ({**good, "id": "oblong", "boardYSize": 13}, "oblong", "boardYSize"),
        ({**good, "id": "button", "rules": "aga-button"}, "button", "rules"),
        ({**good, "id": "komi", "komi": 7.3}, "komi", "komi"),
        ({**good, "id": "turns", "analyzeTurns": [5]}, "turns", "analyzeTurns"),
        ({**good, "id": "visits", "maxVisits": 0}, "visits", "maxVisits"),
        ({k: v for k, v in good.items() if k != "rules"} | {"id": "norules"}, "norules", "rules"),
        ({**good, "id": "action", "action": "explode"}, "action", "action"),
    ]
    for query, qid, field in cases:
        client.send(query)
        obj = client.read()
        assert response_kind(obj) == "error", (query, obj)
        check_error(obj, qid, field)
        if qid is None:
            assert set(obj) == {"error"}
    # an unknown field: a warning, and the query is answered all the same
    unknown = {**good, "id": "unknown", "frobnicate": 1}
    client.send(unknown)
    got = client.until_final(unknown)
    warnings = [o for o in got if response_kind(o) == "warning"]
    assert len(warnings) == 1
    check_error(warnings[0], "unknown", "frobnicate")
    # a huge maxVisits is clamped with a warning; a query sent while it runs is answered meanwhile
    huge = {**good, "id": "huge", "maxVisits": 10 ** 12}
    client.send(huge)
    warning = client.read()
    check_error(warning, "huge", "maxVisits")
    client.send(good)
    got = client.until_final(good)
    check_analysis(got[-1], good, {"E5"}, to_move="W")
    stop = {"id": "stop", "action": "terminate", "terminateId": "huge"}
    client.send(stop)
    responses = client.until_final(huge)
    check_action(next(o for o in responses if o.get("id") == "stop"), stop)
    check_analysis(responses[-1], huge, {"E5"}, to_move="W")  # what the search found until then
    client.send(good)
    check_analysis(client.until_final(good)[-1], good, {"E5"}, to_move="W")


@pytest.mark.parametrize("rules", ["japanese", "korean", "stone_scoring", {"scoring": "TERRITORY"}])
def test_territory_rules_are_analysed_by_area_with_a_warning_that_says_so(client, rules):
    # the same position under Chinese rules is the reference: area scoring inside, same seed, same answer
    chinese = {"id": "chinese", "moves": [["B", "E5"], ["W", "C3"]], "rules": "chinese", "komi": 6.5,
               "boardXSize": 9, "boardYSize": 9, "maxVisits": 60, "includeOwnership": True}
    client.send(chinese)
    reference = client.until_final(chinese)[-1]
    territory = {**chinese, "id": "territory", "rules": rules}
    client.send(territory)
    got = client.until_final(territory)
    warnings = [o for o in got if response_kind(o) == "warning"]
    assert len(warnings) == 1 and warnings[0]["field"] == "rules" and "area" in warnings[0]["warning"]
    answer = got[-1]
    check_analysis(answer, territory, None, to_move="B")
    assert answer["rootInfo"]["scoreLead"] == reference["rootInfo"]["scoreLead"]
    assert answer["moveInfos"] == reference["moveInfos"] and answer["ownership"] == reference["ownership"]


def test_avoid_and_allow_moves_restrict_the_search_as_katago_s_until_depth_says(client):
    base = {"id": "free", "moves": [["B", "E5"], ["W", "C3"]], "rules": "chinese", "komi": 7.5,
            "boardXSize": 9, "boardYSize": 9, "maxVisits": 80}
    client.send(base)
    free = client.until_final(base)[-1]
    top = [m["move"] for m in free["moveInfos"][:3]]
    avoid = {**base, "id": "avoid", "avoidMoves": [{"player": "B", "moves": top, "untilDepth": 1}]}
    client.send(avoid)
    got = client.until_final(avoid)
    assert not [o for o in got if response_kind(o) == "warning"]
    moves = [m["move"] for m in got[-1]["moveInfos"]]
    assert moves and not set(moves) & set(top)
    # untilDepth 1 is the root only: Black may play them later in a variation
    allow = {**base, "id": "allow", "allowMoves": [{"player": "B", "moves": ["C7", "G7", "G3"], "untilDepth": 1}]}
    client.send(allow)
    assert {m["move"] for m in client.until_final(allow)[-1]["moveInfos"]} <= {"C7", "G7", "G3"}
    # White's replies, the second ply, avoid the points given for White until depth 2
    white = ["D5", "E4", "F5", "E6", "D4", "F4", "D6", "F6"]
    deep = {**base, "id": "deep", "maxVisits": 200,
            "avoidMoves": [{"player": "W", "moves": white, "untilDepth": 2}]}
    client.send(deep)
    infos = client.until_final(deep)[-1]["moveInfos"]
    replies = [m["pv"][1] for m in infos if len(m["pv"]) > 1]
    assert replies and not set(replies) & set(white)
    bad = {**base, "id": "bad", "allowMoves": [{"player": "B", "moves": ["C7"], "untilDepth": 1}] * 2}
    client.send(bad)
    check_error(client.read(), "bad", "allowMoves")


def test_moves_ownership_is_each_move_s_and_they_average_to_the_root_s(client):
    query = {"id": "own", "moves": [["B", "E5"], ["W", "C3"]], "rules": "chinese", "komi": 7.5, "boardXSize": 9,
             "boardYSize": 9, "maxVisits": 120, "includeOwnership": True, "includeMovesOwnership": True}
    client.send(query)
    got = client.until_final(query)
    assert not [o for o in got if response_kind(o) == "warning"]
    answer = got[-1]
    infos = [m for m in answer["moveInfos"] if m["visits"] > 0]
    for m in infos:
        own = m["ownership"]
        assert len(own) == 81 and all(-1.0 <= v <= 1.0 for v in own)
    # the point the search's favourite move takes is Black's at the end of most of its playouts
    best = infos[0]
    row, col = int(best["move"][1:]), LETTERS.index(best["move"][0])
    assert best["ownership"][(9 - row) * 9 + col] > 0.5, best["move"]
    # every playout but the root's own passed through one root move: the visit-weighted mean is the root's
    total = sum(m["visits"] for m in infos)
    mean = [sum(m["visits"] * m["ownership"][i] for m in infos) / total for i in range(81)]
    assert max(abs(a - b) for a, b in zip(mean, answer["ownership"])) < 0.15


def test_action_queries(client):
    version = {"id": "v", "action": "query_version"}
    client.send(version)
    check_action(client.read(), version)
    clear = {"id": "c", "action": "clear_cache"}
    client.send(clear)
    check_action(client.read(), clear)
    # queued turns that are terminated are answered noResults; "exactly one final response" each
    long = {**GAME, "id": "long", "maxVisits": 100000, "includePolicy": False}
    client.send(long)
    stop = {"id": "t", "action": "terminate", "terminateId": "long", "turnNumbers": list(range(8))}
    time.sleep(1.0)
    client.send(stop)
    got = client.until_final(long)
    check_action(next(o for o in got if o.get("id") == "t"), stop)
    final = check_final_responses(got, long)
    dropped = [o for o in final.values() if response_kind(o) == "noResults"]
    assert dropped and all(set(o) == {"id", "isDuringSearch", "noResults", "turnNumber"} for o in dropped)
    for obj in final.values():
        if response_kind(obj) == "analysis":
            check_analysis(obj, long, position(long, obj["turnNumber"])[0])


def test_reports_during_the_search_when_asked(client):
    query = {"id": "during", "moves": [["B", "E5"]], "rules": "chinese", "komi": 7.5, "boardXSize": 9,
             "boardYSize": 9, "maxVisits": 6000, "reportDuringSearchEvery": 0.2, "includeOwnership": True}
    client.send(query)
    got = client.until_final(query)
    during = [o for o in got if o.get("isDuringSearch")]
    assert during and not got[-1]["isDuringSearch"]
    for obj in got:
        check_analysis(obj, query, {"E5"}, to_move="W")
    visits = [o["rootInfo"]["visits"] for o in got]
    assert visits == sorted(visits) and visits[-1] >= 6000


def test_priority_puts_a_later_query_first():
    c = Client("--max-visits", "400", "--seed", "1", "--workers", "1")
    low = {**GAME, "id": "low", "priority": -5, "includeOwnership": False, "includePolicy": False}
    high = {**GAME, "id": "high", "analyzeTurns": [3], "priority": 10, "includeOwnership": False,
            "includePolicy": False}
    try:
        c.send(low)
        c.send(high)
        order = []
        while len(order) < 9:
            obj = c.read()
            if response_kind(obj) == "analysis" and not obj["isDuringSearch"]:
                order.append(obj["id"])
        assert order.index("high") <= 1  # at most the turn already running when it came
    finally:
        c.close()


def test_end_of_input_finishes_the_queued_turns(client):
    client.send(GAME)
    out, _ = client.proc.communicate(timeout=WAIT)
    final = [json.loads(line) for line in out.splitlines() if line.strip()]
    while not client.lines.empty():
        obj = client.lines.get()
        if obj is not None:
            final.append(obj)
    check_final_responses(final, GAME)
    assert client.proc.returncode == 0


KATAGOANAL = shutil.which("katagoanal")


@pytest.mark.skipif(KATAGOANAL is None, reason="KataGoAnal is not installed (pip install -e '.[test]')")
def test_katagoanal_annotates_a_game_through_shapemill_analysis(tmp_path):
    """KataGoAnal (PyPI), unmodified, starts ``KATAGO analysis -config CFG -model MODEL`` as it
    would KataGo and writes each move's win rate and score lead into the SGF's comments."""
    from shapemill.patterns.defaults import RATINGS, default_table

    launcher = tmp_path / "katago"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} -m shapemill.cli \"$@\"\n")
    launcher.chmod(0o755)
    config = tmp_path / "analysis.cfg"
    config.write_text("reportAnalysisWinratesAs = BLACK\nmaxVisits = 40\nnumAnalysisThreads = 2\n")
    home = tmp_path / "config"
    (home / "katagoanal").mkdir(parents=True)
    (home / "katagoanal" / "paths.json").write_text(json.dumps(
        {"binary": str(launcher), "model": str(default_table(RATINGS)), "config": str(config)}))
    game = tmp_path / "game.sgf"
    game.write_text("(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese];B[ee];W[cc];B[gc];W[cg];B[dd];W[gg])")
    out = tmp_path / "out"
    out.mkdir()
    env = {**os.environ, "XDG_CONFIG_HOME": str(home)}
    run = subprocess.run([KATAGOANAL, str(game), "--visits", "40", "-o", str(out)], env=env, capture_output=True,
                         text=True, timeout=WAIT)
    assert run.returncode == 0, run.stdout + run.stderr
    annotated = Path(out / "game.injected.sgf")
    assert annotated.exists(), run.stdout + run.stderr
    from sgfmill import sgf

    nodes = sgf.Sgf_game.from_bytes(annotated.read_bytes()).get_main_sequence()
    comments = [n.get("C") for n in nodes[1:]]
    assert len(comments) == 6 and all("%" in c for c in comments), comments

"""The hostile battery's generated cases (issue 46): Hypothesis writes GTP command lines,
analysis JSON queries and SGF fragments, and each must meet the guarantees of
docs/guarantees.md: one answer of one line (GTP ``=``/``?``, one KataGo-form JSON line),
a one-line error or a result for a game (never another exception), the engine alive
after each. Derandomized and bounded (``EXAMPLES`` each, about a minute in all);
``bench/fuzz.py`` runs them longer with fresh seeds (``SHAPEMILL_FUZZ_EXAMPLES``,
``SHAPEMILL_FUZZ_SEED``)."""

from __future__ import annotations

import io
import json
import os
import shutil
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from shapemill.datasets.sgf_game import read_game_line
from shapemill.engine.frontends.analysis import AnalysisEngine, AnalysisSettings
from shapemill.engine.frontends.gtp import GtpEngine
from shapemill.engine.frontends.review import annotate, review_game
from shapemill.engine.search import SearchConfig
from shapemill.errors import ShapemillError
from shapemill.find.fragment import query_from_sgf
from shapemill.patterns.knowledge import Knowledge

#: Examples per fuzzer: about a minute for the three in CI; bench/fuzz.py asks for more.
EXAMPLES = int(os.environ.get("SHAPEMILL_FUZZ_EXAMPLES", "150"))
#: A seed for a fresh run (bench/fuzz.py); without one the examples are derandomized.
SEED = os.environ.get("SHAPEMILL_FUZZ_SEED")
FIXTURES = sorted((Path(__file__).parent / "fixtures" / "hostile").glob("*.sgf"))


def fuzz(test):
    """``test`` under the fuzzers' settings: derandomized unless a seed is given."""
    run = settings(max_examples=EXAMPLES, deadline=None, derandomize=SEED is None, database=None,
                   suppress_health_check=list(HealthCheck))(test)
    return seed(int(SEED))(run) if SEED is not None else run


# -- values: what a hostile user types where a number, a point or a word is expected -----------

HOSTILE_NUMBERS = st.sampled_from(["nan", "inf", "-inf", "-1", "0", "1e300", "-1e308", "1e-320", "10" * 12,
                                   "9" * 5000, "1_000", "0x10", "1e", "", "+", ".", "2147483648", "-0"])
SMALL = st.one_of(st.integers(0, 25).map(str), st.floats(0, 0.05).map(lambda x: f"{x:.3f}"))
WORDS = st.text(alphabet=string.ascii_letters + string.digits + string.punctuation + " \x00\x7f\u00ff\u4e00",
                max_size=12).map(lambda s: s.replace("#", ""))
VERTICES = st.builds(lambda c, n: f"{c}{n}", st.sampled_from("ABCDEFGHJKLMNOPQRSTUVWXYZI"), st.integers(-2, 30))
COLORS = st.sampled_from(["b", "w", "black", "white", "B", "x", ""])


def gtp_lines(sgfs: list[str]):
    """A GTP command line: a known command (or a near miss) and hostile arguments."""
    names = st.sampled_from(sorted(GtpEngine(SearchConfig(playouts=2), size=5).commands) + ["genmove x", "Play"])
    argument = st.one_of(HOSTILE_NUMBERS, SMALL, WORDS, VERTICES, COLORS, st.sampled_from(sgfs))
    return st.builds(lambda cid, name, args: " ".join([cid, name, *args]).strip(),
                     st.sampled_from(["", "1", "99", "-1", "9" * 60]), names, st.lists(argument, max_size=4))


# -- SGF fragments -----------------------------------------------------------------------------

POINTS = st.one_of(st.builds(lambda a, b: a + b, st.sampled_from("abcdefghijklmnopqrstuvwxyz"),
                             st.sampled_from("abcdefghijklmnopqrstuvwxyz")),
                   st.sampled_from(["", "tt", "zz", "P4", "a", "aa:ss", "ss:aa", "aa:zz", "A1"]))
PROPERTY_VALUES = {
    "B": POINTS, "W": POINTS, "AB": POINTS, "AW": POINTS, "AE": POINTS, "SQ": POINTS,
    "SZ": st.one_of(st.integers(0, 30).map(str), st.sampled_from(["9:5", "abc", "", "19:19", "1e3"])),
    "KM": st.one_of(HOSTILE_NUMBERS, st.sampled_from(["6.5", "650", "7,5", "-3"])),
    "CA": st.sampled_from(["UTF-8", "latin-1", "GB2312", "no-such-charset", ""]),
    "PL": COLORS, "C": WORDS, "PB": WORDS, "GM": st.sampled_from(["1", "2", "x"]),
}


@st.composite
def sgf_fragments(draw) -> bytes:
    """An SGF game, damaged: properties with values out of range, bytes outside its charset,
    nodes cut short or nested, moves after two passes."""
    nodes = []
    for _ in range(draw(st.integers(1, 8))):
        props = draw(st.lists(st.sampled_from(sorted(PROPERTY_VALUES)), max_size=3))
        nodes.append(";" + "".join(f"{p}[{draw(PROPERTY_VALUES[p])}]" for p in props))
    text = "(;GM[1]" + "".join(nodes) + ")"
    data = text.encode("utf-8", "surrogatepass")
    damage = draw(st.sampled_from(["none", "cut", "bytes", "nest", "passes"]))
    if damage == "cut":
        data = data[: draw(st.integers(0, len(data)))]
    elif damage == "bytes":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=4)) + data[at:]
    elif damage == "nest":
        data = b"(" * 50 + data + b")" * 50
    elif damage == "passes":
        data = data[:-1] + b";B[];W[tt];B[cc]" * draw(st.integers(1, 50)) + b")"
    return data


# -- analysis queries --------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.floats(allow_nan=False), WORDS,
              st.sampled_from([1e300, -1e300, 10**50, "B", "W", "C3", "pass", "(1,2)", "tromp-taylor"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(WORDS, inner, max_size=3)), max_leaves=8)
FIELDS = ["id", "moves", "initialStones", "initialPlayer", "rules", "komi", "boardXSize", "boardYSize",
          "analyzeTurns", "maxVisits", "includeOwnership", "includePolicy", "includePVVisits",
          "reportDuringSearchEvery", "priority", "priorities", "whiteHandicapBonus", "overrideSettings", "action",
          "terminateId", "turnNumbers", "avoidMoves"]
BASE = {"id": "q", "moves": [["B", "C3"], ["W", "D4"]], "rules": "tromp-taylor", "komi": 7.5, "boardXSize": 5,
        "boardYSize": 5, "maxVisits": 3}


@st.composite
def analysis_lines(draw) -> str:
    """A query line: a valid query with fields replaced by hostile values, or any JSON, or
    text that is not JSON at all."""
    kind = draw(st.sampled_from(["mutated", "mutated", "json", "text", "deep"]))
    if kind == "text":
        return draw(WORDS)
    if kind == "deep":
        depth = draw(st.integers(500, 5000))
        return '{"id": "d", "moves": ' + "[" * depth + "]" * depth + "}"
    if kind == "json":
        return json.dumps(draw(JSON_VALUES))
    query = dict(BASE)
    for key in draw(st.lists(st.sampled_from(FIELDS), min_size=1, max_size=3)):
        query[key] = draw(JSON_VALUES)
    if isinstance(query.get("maxVisits"), (int, float)) and not isinstance(query["maxVisits"], bool) \
            and query["maxVisits"] > 50:
        query["maxVisits"] = 3  # valid and huge: a long search, not a hostile one (MAX_VISITS clamps it)
    return json.dumps(query)


# -- the properties -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sgfs(tmp_path_factory) -> list[str]:
    """SGF files for loadsgf (and printsgf, which may write over them): copies of the
    fixture games and damaged ones."""
    folder = tmp_path_factory.mktemp("sgfs")
    paths = []
    for game in FIXTURES:
        shutil.copy(game, folder / game.name)
        paths.append(str(folder / game.name))
    for name, data in {"empty.sgf": b"", "garbage.sgf": b"((((;;;[[", "setup.sgf": b"(;SZ[5];B[cc]AE[cc]AB[aa];W[cc])",
                       "passes.sgf": b"(;SZ[5]" + b";B[];W[]" * 1000 + b")", "off.sgf": b"(;SZ[5];B[zz];W[P4])"}.items():
        (folder / name).write_bytes(data)
        paths.append(str(folder / name))
    return paths + [str(folder / "missing.sgf"), str(folder)]


@pytest.fixture(scope="module")
def gtp_engine() -> GtpEngine:
    return GtpEngine(SearchConfig(playouts=3, seed=1), size=5)


def test_fuzzed_gtp_lines_are_each_answered_in_one_line(gtp_engine, sgfs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # printsgf writes where its word says

    @fuzz
    @given(st.lists(gtp_lines(sgfs), min_size=1, max_size=6))
    def check(lines):
        for line in lines:
            out = io.StringIO()
            gtp_engine.loop(io.StringIO(line + "\n"), out)  # streams end at the next line, as in a session
            response = out.getvalue()
            if not response:
                assert not line.split("#")[0].strip() or line.split()[0] in ("lz-analyze", "kata-analyze", "analyze"), line
                continue
            first = response.split("\n\n")[0]
            assert response[:1] in "=?" and response.endswith("\n\n"), (line[:80], response[:200])
            assert "Traceback" not in response and "internal error" not in response, (line[:80], response[:200])
            if response[0] == "?":
                assert "\n" not in first, (line[:80], response[:200])
        alive, done = gtp_engine.handle("name")
        assert alive == "= shapemill\n\n" and not done
        gtp_engine.handle("time_settings 0 0 0")  # a clock the lines set must not slow the next example

    check()


def test_fuzzed_analysis_lines_are_each_answered_in_katago_form(tmp_path):
    out = io.StringIO()
    engine = AnalysisEngine(SearchConfig(seed=1), AnalysisSettings(max_visits=3, workers=1), None, out)

    @fuzz
    @given(analysis_lines())
    def check(line):
        start = len(out.getvalue())
        engine.handle(line)  # never raises
        engine.terminate(None, None)
        engine.handle(json.dumps({**BASE, "id": "alive"}))
        engine.terminate(None, None)
        with engine._cond:  # the queued turns answered (noResults) and the searches ended
            while engine._running or engine._jobs:
                engine._cond.wait(0.05)
        answers = [json.loads(text) for text in out.getvalue()[start:].splitlines()]
        assert answers and all(isinstance(a, dict) for a in answers), answers
        assert not any("internal error" in str(a.get("error", "")) for a in answers), answers
        assert any(a.get("id") == "alive" for a in answers), answers

    check()
    engine.close()


@pytest.fixture(scope="module")
def knowledge() -> Knowledge:
    return Knowledge.load()


def test_fuzzed_sgf_fragments_are_read_warned_about_or_refused_in_one_line(tmp_path, knowledge, gtp_engine):
    path = tmp_path / "fragment.sgf"

    @fuzz
    @given(sgf_fragments())
    def check(data):
        path.write_bytes(data)
        try:
            line = read_game_line(data, 25)
        except ValueError as e:
            assert isinstance(str(e), str)  # one_line makes it one line for the user
        else:
            assert all("\n" not in w for w in line.warnings)
            try:
                review = review_game(str(path), knowledge, line=line)
            except ShapemillError as e:  # an illegal first move: one line naming the file
                assert str(e).startswith(f"{path}:"), str(e)
            else:
                json.loads(review.as_json())
                annotate(line, review)
        response, done = gtp_engine.handle(f"loadsgf {path}")
        assert response[:1] in "=?" and response.count("\n") == 2 and not done, response
        assert "internal error" not in response, response
        try:
            query_from_sgf(str(path))
        except ShapemillError as e:
            assert str(e).startswith(f"{path}:"), str(e)

    check()

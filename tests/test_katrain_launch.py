"""KaTrain's default backend starts ``shapemill analysis`` with KataGo's launch line and
sends KataGo queries: the line is accepted and a game with Japanese rules is analysed.

The launch lines and the query are KaTrain's own (``katrain/core/engine.py``,
``KataGoEngine.__init__`` and ``request_analysis``, version 1.20, and the
``-analysis-threads`` of its earlier versions), replayed here: KaTrain's package imports
kivy, a GUI toolkit, so its engine class is not driven directly.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading

import pytest

ANALYSIS = [sys.executable, "-m", "shapemill.cli", "analysis"]
#: Seconds to wait for one line (a cold numba cache compiles the search kernel first).
WAIT = 300
#: KaTrain's bundled analysis config, the keys that matter here (``katrain/KataGo/analysis_config.cfg``).
KATRAIN_CONFIG = """# KaTrain's analysis config (excerpt)
logDir = analysis_logs
reportAnalysisWinratesAs = BLACK
conservativePass = true
maxVisits = 500
numAnalysisThreads = 12
numSearchThreads = 8
nnMaxBatchSize = 96
"""


def _katrain_query(qid: str, moves: list[list[str]], **extra) -> dict:
    """A query as ``KataGoEngine.request_analysis`` builds it for a 9x9 game node."""
    return {"id": qid, "rules": "japanese", "priority": 0, "analyzeTurns": [len(moves)], "maxVisits": 40,
            "komi": 6.5, "boardXSize": 9, "boardYSize": 9, "includeOwnership": True,
            "includeMovesOwnership": True, "includePolicy": True, "initialStones": [], "initialPlayer": "B",
            "moves": moves,
            "overrideSettings": {"reportAnalysisWinratesAs": "BLACK", "wideRootNoise": 0.04, "maxTime": 8.0},
            "_kt_continuous": False, **extra}


def _start(argv: list[str]) -> tuple[subprocess.Popen, queue.Queue, list[str]]:
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, bufsize=1)
    lines: queue.Queue = queue.Queue()
    err: list[str] = []
    threading.Thread(target=lambda: [lines.put(json.loads(x)) for x in proc.stdout] + [lines.put(None)],
                     daemon=True).start()
    threading.Thread(target=lambda: err.extend(proc.stderr), daemon=True).start()
    return proc, lines, err


def _final(lines: queue.Queue, qid: str) -> list[dict]:
    got = []
    while True:
        obj = lines.get(timeout=WAIT)
        assert obj is not None, "the engine closed its output"
        got.append(obj)
        if obj.get("id") == qid and ("error" in obj or "moveInfos" in obj and not obj["isDuringSearch"]):
            return got


@pytest.mark.parametrize("style", ["1.20", "analysis-threads"])
def test_katrain_s_launch_line_starts_the_engine_and_a_japanese_game_is_analysed(tmp_path, style):
    network = tmp_path / "b10c384h6nbttflrs.bin.gz"
    network.write_bytes(b"\x1f\x8b\x08\x00not a real network")
    config = tmp_path / "analysis_config.cfg"
    config.write_text(KATRAIN_CONFIG, encoding="utf-8")
    human = tmp_path / "b18c384nbt-humanv0.bin.gz"
    human.write_bytes(b"\x1f\x8b\x08\x00")
    if style == "1.20":
        argv = [*ANALYSIS, "-model", str(network), "-human-model", str(human), "-config", str(config),
                "-override-config", f"homeDataDir={tmp_path / 'home'}"]
    else:
        argv = [*ANALYSIS, "-model", str(network), "-config", str(config), "-analysis-threads", "2",
                "-override-config", f"homeDataDir={tmp_path / 'home'}"]
    proc, lines, err = _start(argv)
    try:
        moves = [["B", "E5"], ["W", "C3"], ["B", "G3"]]
        proc.stdin.write(json.dumps(_katrain_query("QUERY:1", moves)) + "\n")
        proc.stdin.flush()
        got = _final(lines, "QUERY:1")
        answer = got[-1]
        assert "error" not in answer, answer
        assert answer["moveInfos"] and answer["rootInfo"]["currentPlayer"] == "W"
        assert len(answer["ownership"]) == 81 and len(answer["policy"]) == 82
        assert all(m["move"] not in ("E5", "C3", "G3") for m in answer["moveInfos"])
        warned = {w["field"] for w in got if "warning" in w}
        assert "rules" in warned  # Japanese rules: analysed by area, and the warning says so
    finally:
        proc.stdin.close()
        proc.wait(timeout=WAIT)
    text = "".join(err)
    assert "No such option" not in text and "Traceback" not in text
    assert "KataGo network" in text and "homeDataDir" in text
    assert ("-human-model" in text) == (style == "1.20")
    assert proc.returncode == 0


def test_an_override_out_of_range_is_refused_before_any_work_with_exit_2():
    done = subprocess.run([*ANALYSIS, "-override-config", "maxVisits=0,homeDataDir=x"], capture_output=True,
                          text=True, input="", timeout=WAIT)
    assert done.returncode == 2 and "maxVisits = 0" in done.stderr and "not in the range 1<=" in done.stderr
    assert done.stdout == ""


def test_gtp_takes_katago_s_config_flags_and_its_own_options_win(tmp_path, monkeypatch):
    from click.testing import CliRunner
    from shapemill.cli import main
    from shapemill.engine.frontends import gtp

    network = tmp_path / "kata1.bin.gz"
    network.write_bytes(b"\x1f\x8b\x08\x00")
    config = tmp_path / "gtp.cfg"
    config.write_text("maxVisits = 50  # KataGo's\nnumSearchThreads = 3\nponderingEnabled = false\n", encoding="utf-8")
    started = []
    monkeypatch.setattr(gtp, "run_gtp", lambda config, size, prior: started.append((config, prior)))
    runner = CliRunner()
    base = ["gtp", "-model", str(network), "-config", str(config)]
    result = runner.invoke(main, [*base, "-override-config", "maxPlayouts=70,homeDataDir=/x"])
    assert result.exit_code == 0, result.output
    searched, prior = started[-1]
    assert (searched.playouts, searched.threads) == (70, 3) and prior is not None  # the bundled table
    assert "KataGo network" in result.stderr and "homeDataDir is KataGo's own" in result.stderr
    result = runner.invoke(main, [*base, "--playouts", "200"])  # the command line's option wins
    assert result.exit_code == 0 and (started[-1][0].playouts, started[-1][0].threads) == (200, 3)
    for bad in ("maxVisits=0", "numSearchThreads=9999", "maxVisits=many", "novalue"):
        result = runner.invoke(main, [*base, "-override-config", bad])
        assert result.exit_code == 2 and "-override-config" in result.output, (bad, result.output)
    assert len(started) == 2

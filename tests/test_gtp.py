"""GTP conformance of ``shapemill gtp`` and a refereed game against GnuGo."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from shapemill.engine.gtp import GtpEngine
from shapemill.engine.mcts import SearchConfig

REQUIRED = ("protocol_version", "name", "version", "known_command", "list_commands", "quit",
            "boardsize", "clear_board", "komi", "play", "genmove")


@pytest.fixture
def gtp() -> GtpEngine:
    return GtpEngine(SearchConfig(playouts=200, seed=1), size=9)


def test_responses_carry_ids_and_blank_lines(gtp):
    assert gtp.handle("7 protocol_version\n") == ("=7 2\n\n", False)
    assert gtp.handle("name") == ("= shapemill\n\n", False)
    assert gtp.handle("  # a comment only") == ("", False)
    assert gtp.handle("3 quit") == ("=3\n\n", True)


def test_errors_never_crash(gtp):
    for line in ("frobnicate", "12 frobnicate", "12", "boardsize", "boardsize x", "boardsize 99",
                 "play", "play b", "play x A1", "play b Z99", "play b I5", "komi abc", "genmove purple",
                 "fixed_handicap 20", "time_left b", "final_status_list maybe", "loadsgf /no/such/file",
                 "undo", "\x00\x01play b A1 A2"):
        response, done = gtp.handle(line)
        assert response.startswith("?") and response.endswith("\n\n") and not done, line
    assert gtp.handle("5 frobnicate")[0] == "?5 unknown command\n\n"


def test_required_commands_are_listed(gtp):
    listed = gtp.handle("list_commands")[0][2:].split()
    for name in REQUIRED + ("undo", "fixed_handicap", "final_score", "gogui-analyze_commands"):
        assert name in listed
        assert gtp.handle(f"known_command {name}")[0] == "= true\n\n"
    assert gtp.handle("known_command nope")[0] == "= false\n\n"


def test_illegal_moves_are_refused_with_the_reason(gtp):
    assert gtp.handle("play b E5")[0] == "=\n\n"
    assert gtp.handle("play w E5")[0] == "? illegal move: occupied\n\n"
    for line in ("play b A2", "play b B1"):
        gtp.handle(line)
    assert gtp.handle("play w A1")[0] == "? illegal move: suicide\n\n"


def test_play_genmove_undo_and_board_queries(gtp):
    gtp.handle("boardsize 9")
    placed = gtp.handle("fixed_handicap 4")[0]
    assert placed.startswith("= ") and set(placed[2:].split()) == {"C3", "G3", "C7", "G7"}  # GTP 2, 4.1.1
    assert set(gtp.handle("list_stones black")[0][2:].split()) == {"C3", "G3", "C7", "G7"}
    move = gtp.handle("genmove w")[0]
    assert move.startswith("= ") and len(gtp.handle("list_stones w")[0][2:].split()) == 1
    assert gtp.handle("undo")[0] == "=\n\n"
    assert gtp.handle("list_stones w")[0] == "=\n\n"
    assert gtp.handle("reg_genmove w")[0].startswith("= ")
    assert gtp.handle("list_stones w")[0] == "=\n\n"  # reg_genmove plays nothing
    assert gtp.handle("gogui-analyze_commands")[0].startswith("= gfx/")
    assert gtp.handle("shapemill-visits")[0].startswith("= INFLUENCE ")
    assert gtp.handle("showboard")[0].count("\n") >= 10
    assert gtp.handle("final_score")[0][2] in "BW0"
    assert gtp.handle("time_settings 60 0 0")[0] == "=\n\n"
    assert gtp.handle("time_left w 30 0")[0] == "=\n\n"
    assert gtp.handle("final_status_list dead")[0].startswith("=")


def test_loadsgf(gtp, tmp_path):
    path = tmp_path / "g.sgf"
    path.write_text("(;GM[1]SZ[9]KM[6.5];B[ee];W[cc];B[gg])")
    assert gtp.handle(f"loadsgf {path} 3")[0] == "= black\n\n"
    assert gtp.handle("list_stones b")[0] == "= E5\n\n"


@pytest.mark.parametrize("policy", ["mogo", "gamma"])
def test_cli_answers_over_pipes(policy):
    out = subprocess.run([sys.executable, "-m", "shapemill.cli", "gtp", "--size", "9", "--playouts", "50",
                          "--playout-policy", policy],
                         input="1 protocol_version\n2 genmove b\n3 quit\n", capture_output=True, text=True,
                         timeout=120)
    if out.returncode != 0 and "No module named shapemill.cli" in out.stderr:
        pytest.skip("shapemill is not installed as a package")
    blocks = out.stdout.split("\n\n")
    assert blocks[0] == "=1 2" and blocks[1].startswith("=2 ") and blocks[2] == "=3"


GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if os.path.exists("/usr/games/gnugo") else None)


@pytest.mark.skipif(GNUGO is None, reason="GnuGo is not installed")
def test_full_legal_game_against_gnugo():
    from shapemill.engine.match import GtpClient, play_game

    ours = GtpClient(f"{sys.executable} -m shapemill.cli gtp --size 9 --playouts 300 --seed 3")
    gnugo = GtpClient(f"{GNUGO} --mode gtp --level 1 --chinese-rules")
    try:
        record = play_game(ours, gnugo, size=9, komi=7.5)
    finally:
        ours.close()
        gnugo.close()
    assert not record.result.endswith("+F")  # no illegal move by either side
    assert record.result.endswith("+R") or record.scores[0][:1] == record.scores[1][:1]


def test_warm_up_reads_the_table_and_leaves_the_config_alone():
    from shapemill.engine.gtp import warm_up
    from shapemill.miner.prior import MovePrior
    from shapemill.patterns.defaults import RATINGS, default_table

    config = SearchConfig(playouts=200, seed=1)
    prior = MovePrior(default_table(RATINGS))
    warm_up(config, 9, prior)
    assert prior.model is not None
    assert config.playouts == 200 and config.time_per_move is None

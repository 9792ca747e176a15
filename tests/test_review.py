"""``shapemill review``: per-move rows that agree with ``Knowledge``, an annotated SGF that
sgfmill reads back with the same moves, strict JSON, one-line errors for bad games."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from sgfmill import sgf

from shapemill.cli import main
from shapemill.go import Board
from shapemill.miner import Knowledge

# A 9x9 opening: (colour, SGF point); sgfmill reads "ee" as row 4, col 4 (E5).
MOVES = ["ee", "cg", "gc", "cc", "gg", "dh", "ec", "cd", "hf", "fh"]


def _sgf(path: Path, moves: list[str], size: int = 9, extra: str = "") -> str:
    body = "".join(f";{'BW'[i % 2]}[{m}]" for i, m in enumerate(moves))
    path.write_text(f"(;GM[1]FF[4]SZ[{size}]KM[7]PB[Black one]PW[White two]{extra}{body})")
    return str(path)


def _run(*args: str):
    return CliRunner().invoke(main, ["review", *args])


def _strict(text: str) -> dict:
    def refuse(name: str):
        raise ValueError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def test_rows_agree_with_knowledge_and_the_sgf_reads_back(tmp_path: Path) -> None:
    game = _sgf(tmp_path / "g.sgf", MOVES, extra="C[a comment of the player]")
    out = tmp_path / "annotated.sgf"
    result = _run(game, "-o", str(out), "--json")
    assert result.exit_code == 0, result.output
    report = _strict(result.output)
    assert [row["number"] for row in report["moves"]] == list(range(1, len(MOVES) + 1))
    knowledge, board = Knowledge.load(), Board(9)
    for row, (i, m) in zip(report["moves"], enumerate(MOVES)):
        colour, point = "bw"[i % 2], (ord(m[1]) - 97, ord(m[0]) - 97)  # SGF: column letter first, row from the top
        point = (8 - point[0], point[1])
        p = knowledge.probabilities(board, colour)
        assert row["probability"] == pytest.approx(p.points[point], rel=1e-12)
        assert row["surprise"] == pytest.approx(-np.log(p.points[point]), rel=1e-12)
        ties = int((p.points >= p.points[point]).sum() + (p.p_pass >= p.points[point]))
        assert row["rank"] == ties - (board.equivalent_points(point) - 1)  # its symmetric images are one move
        assert [b["move"] for b in row["best"]] == [v for v, _ in knowledge.top(board, colour, 3)]
        assert row["winrate_before"] is None and row["cost"] is None
        board.play(colour, point)
    black = report["summary"]["b"]
    assert black["moves"] == 5 and black["top1"] == sum(r["rank"] == 1 for r in report["moves"][::2]) / 5
    # sgfmill reads the annotation back: the same moves, a comment and labels on each, the summary at the root
    original = sgf.Sgf_game.from_bytes(Path(game).read_bytes()).get_main_sequence()
    annotated = sgf.Sgf_game.from_bytes(out.read_bytes())
    nodes = annotated.get_main_sequence()
    assert [n.get_move() for n in nodes] == [n.get_move() for n in original]
    assert nodes[0].get("C").startswith("a comment of the player") and "top-1" in nodes[0].get("C")
    for node, row in zip(nodes[1:], report["moves"]):
        assert node.get("C").startswith(f"Move {row['number']} ")
        labels = dict((label, point) for point, label in node.get("LB"))
        assert [_vertex(labels[c]) for c in "ABC"] == [b["move"] for b in row["best"]]


def _vertex(point: tuple[int, int]) -> str:
    return f"{'ABCDEFGHJ'[point[1]]}{point[0] + 1}"


def test_an_illegal_move_ends_the_review_there_with_one_line_and_status_1(tmp_path: Path) -> None:
    game = _sgf(tmp_path / "g.sgf", MOVES[:4] + ["ee"] + MOVES[5:])  # move 5 on the stone of move 1
    result = _run(game, "--json")
    assert result.exit_code == 1
    report_line, error = result.output.strip().splitlines()
    assert len(_strict(report_line)["moves"]) == 4
    assert error.startswith(f"Error: {game}: move 5 (B E5) is illegal: occupied")


@pytest.mark.parametrize("text, reason", [
    ("this is not a game record", "not an SGF game"),
    ("(;GM[1]FF[4]SZ[9]KM[7])", "no moves"),
    ("(;GM[1]FF[4]SZ[26];B[bb])", "26x26 board"),
])
def test_bad_games_are_one_line_and_status_1(tmp_path: Path, text: str, reason: str) -> None:
    path = tmp_path / "bad.sgf"
    path.write_text(text)
    result = _run(str(path))
    assert result.exit_code == 1
    assert len(result.output.strip().splitlines()) == 1 and reason in result.output and str(path) in result.output


def test_engine_win_rates_chain_from_move_to_move(tmp_path: Path) -> None:
    result = _run(_sgf(tmp_path / "g.sgf", MOVES[:4]), "--engine", "--playouts", "50", "--threads", "1", "--json")
    assert result.exit_code == 0, result.output
    rows = _strict(result.output)["moves"]
    for row, after in zip(rows, rows[1:]):
        assert 0 <= row["winrate_before"] <= 1 and 0 <= row["winrate_after"] <= 1
        assert row["winrate_after"] == pytest.approx(1 - after["winrate_before"])  # the same search, other side
        assert row["score_after"] == pytest.approx(-after["score_before"])
        assert row["cost"] == pytest.approx(row["winrate_before"] - row["winrate_after"])


def test_playouts_without_engine_is_a_usage_error(tmp_path: Path) -> None:
    assert _run(_sgf(tmp_path / "g.sgf", MOVES), "--playouts", "5").exit_code == 2


def test_plot_is_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    picture = tmp_path / "review.png"
    assert _run(_sgf(tmp_path / "g.sgf", MOVES), "--plot", str(picture)).exit_code == 0
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_engine_sees_a_position_won_by_hand(tmp_path: Path) -> None:
    # 5x5, komi 0: Black's full second and fourth rows split the board into three eyes of
    # five points, so White has no living stone and Black's area is the whole board.
    path = tmp_path / "won.sgf"
    path.write_text("(;GM[1]FF[4]SZ[5]KM[0]AB[ab][bb][cb][db][eb][ad][bd][cd][dd][ed]PL[W];W[aa];B[ee];W[cc])")
    result = _run(str(path), "--engine", "--playouts", "300", "--threads", "1", "--json")
    assert result.exit_code == 0, result.output
    for row in _strict(result.output)["moves"]:
        black = row["colour"] == "b"
        assert (row["winrate_before"] > 0.9) if black else (row["winrate_before"] < 0.1)
        assert (row["score_before"] > 15) if black else (row["score_before"] < -15)

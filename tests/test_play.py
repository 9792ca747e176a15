"""shapemill play: the terminal game loop, driven by scripted input."""

import io

from shapemill.engine.search import SearchConfig
from shapemill.engine.frontends.terminal import run_play


def run(lines: list[str], human: str = "b") -> str:
    moves = iter(lines)
    out = io.StringIO()
    run_play(SearchConfig(playouts=50, seed=3), 5, human, None, read=lambda: next(moves), out=out)
    return out.getvalue()


def test_moves_errors_undo_and_quit():
    text = run(["C3", "C3", "Z9", "undo", "B2", "quit"])
    assert "shapemill plays" in text
    assert "C3: illegal move: occupied" in text
    assert "Z9: invalid vertex" in text
    assert text.count(" 3 . . X . . 3") >= 1  # the board is drawn with coordinates
    # After undo, Black's C3 and the engine's reply are gone; B2 stands.
    last_board = text.rstrip().split("shapemill plays")[-1]
    assert " 2 . X " in last_board and " 3 . . X" not in last_board  # the reply may stand on row 2
    assert sum(row.count("X") for row in last_board.splitlines()) == 1


def test_two_passes_end_the_game_with_a_score():
    text = run(["pass", "pass", "pass", "pass", "quit"], human="w")
    assert "Game over:" in text or "resigns" in text


def test_undo_before_the_persons_first_move_takes_nothing_back():
    text = run(["undo", "C3", "quit"], human="w")
    first, after_undo = text.split("nothing to undo")[:2]
    assert first.count("X") == 1  # the engine opened as Black
    board = after_undo.split("A B C D E")[1]  # the rows of the board drawn next
    assert board.count("X") == 1 and "O" not in board
    last = text.rsplit("shapemill plays", 1)[1]
    assert sum(row.count("X") for row in last.splitlines()) == 2  # White's C3 answered by Black
    assert " 3 . . O" in last

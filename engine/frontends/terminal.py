"""``shapemill play``: a person plays the engine in the terminal."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from ...files import check_writable, output_errors, write_text_atomic
from ...go.vertices import opponent
from ...patterns.prior import MovePrior
from ..search import SearchConfig
from .gtp import GtpEngine
from .match import GameRecord, to_sgf
from .protocol import parse_vertex

HELP = "moves like D4, 'pass', 'undo' (takes back your last move and the engine's), 'quit'"


def _answer(engine: GtpEngine, command: str) -> tuple[bool, str]:
    """Run a GTP command: (succeeded, text)."""
    response, _ = engine.handle(command)
    return response.startswith("="), response[1:].strip()


def _undo_turn(engine: GtpEngine, human: str) -> bool:
    """Take back the person's last move and the engine's moves after it, so that it
    is again the person's turn; False (nothing taken back) before their first move."""
    if human not in engine.state.movers:
        return False
    while engine.state.movers[-1] != human:
        if not _answer(engine, "undo")[0]:
            return False
    return _answer(engine, "undo")[0]


def run_play(
    config: SearchConfig, size: int, human: str, prior: MovePrior | None,
    read: Callable[[], str] | None = None, out: TextIO | None = None, sgf_path: str | None = None,
) -> None:
    """Alternate the person's moves (read with ``read``) and the engine's, redrawing
    the board after each, until two passes, a resignation or 'quit'; with ``sgf_path``,
    the game is saved there as SGF when it ends, however it ends."""
    import sys

    out = out or sys.stdout
    if sgf_path:
        with output_errors(sgf_path):
            check_writable(sgf_path)
    engine = GtpEngine(config, size, prior)
    moves: list[tuple[str, tuple[int, int] | None]] = []
    result = _play(engine, config, size, human, read, out, moves)
    if sgf_path:
        record = GameRecord(result[:1].lower(), result, moves)
        names = {human: "you", "w" if human == "b" else "b": "shapemill"}
        with output_errors(sgf_path):
            write_text_atomic(sgf_path, to_sgf(record, size, config.komi, names["b"], names["w"]))
        print(f"Game saved to {sgf_path}", file=out)


def _play(engine: GtpEngine, config: SearchConfig, size: int, human: str, read: Callable[[], str] | None,
          out: TextIO, moves: list[tuple[str, tuple[int, int] | None]]) -> str:
    """The game loop of ``run_play``, the moves kept in ``moves`` (colour, point); returns
    the result as SGF's RE writes it ('' when unfinished)."""
    read = read or (lambda: input("your move> "))
    _answer(engine, f"boardsize {size}")
    _answer(engine, f"komi {config.komi}")
    computer = opponent(human)
    to_move, passes = "b", 0
    print(f"You play {'Black (X)' if human == 'b' else 'White (O)'}; {HELP}.", file=out)
    while passes < 2:
        print(engine.state.board, file=out)
        if to_move == computer:
            _, move = _answer(engine, f"genmove {computer}")
            print(f"shapemill plays {move}", file=out)
            if move == "resign":
                print("shapemill resigns: you win.", file=out)
                return f"{human.upper()}+R"
            moves.append((computer, parse_vertex(move, size)))
        else:
            try:
                move = read().strip()
            except EOFError:
                return ""
            if move.lower() == "quit":
                return ""
            if move.lower() == "undo":
                print("" if _undo_turn(engine, human) else "nothing to undo", file=out)
                del moves[len(engine.state.movers):]
                passes = 0
                continue
            ok, text = _answer(engine, f"play {human} {move}")
            if not ok:
                print(f"{move}: {text} ({HELP})", file=out)
                continue
            moves.append((human, parse_vertex(move, size)))
        passes = passes + 1 if move.lower() == "pass" else 0
        to_move = opponent(to_move)
    score = _answer(engine, "final_score")[1]
    print(f"Game over: {score}", file=out)
    return score if score[:2] in ("B+", "W+") or score == "0" else ""

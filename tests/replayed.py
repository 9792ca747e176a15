"""The positions of a corpus replayed move by move with ``Board``, for tests that ask a table
about each of them."""

from __future__ import annotations

from collections.abc import Iterator

from shapemill.go import Board


def replayed_positions(corpus) -> Iterator[tuple[Board, str, tuple[int, int] | None, int]]:
    """(board, colour to move, the point played or None for a pass, moves played before) of
    every position of ``corpus``; the board is the same object, moved on after each."""
    for g in range(len(corpus)):
        size = int(corpus.board_size[g])
        board = Board(size)
        board.setup("b", [divmod(int(i), size) for i in corpus.setup_black[g]])
        board.setup("w", [divmod(int(i), size) for i in corpus.setup_white[g]])
        colour = "b" if corpus.first_color[g] == 1 else "w"
        for n, index in enumerate(corpus.moves[corpus.offsets[g]:corpus.offsets[g + 1]]):
            point = None if index < 0 else divmod(int(index), size)
            yield board, colour, point, n
            board.play(colour, point)
            colour = "w" if colour == "b" else "b"

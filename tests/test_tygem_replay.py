"""Real games: a sample of the Tygem 9-dan archive replayed with ``Board`` and with
sgfmill's ``boards.Board`` ends in the same stones. ``bench/replay_all.py`` checks
every game the same way.

``Board`` forbids what sgfmill lets through (suicide, ko, positional superko); a
game with such a move is compared up to it, and the reasons met must be ones the
archive is known to contain.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from sgfmill import boards, sgf
from shapemill.go import Board, IllegalMove

GAMES = 300

pytestmark = pytest.mark.shared_data


def sample(archives: list[Path]) -> list[tuple[str, bytes]]:
    """About ``GAMES`` games, evenly spread over every archive."""
    games = []
    for path in archives:
        with zipfile.ZipFile(path) as archive:
            names = sorted(archive.namelist())
            step = max(1, len(names) * len(archives) // GAMES)
            games += [(name, archive.read(name)) for name in names[::step]]
    return games


def test_sample_replays_to_sgfmills_stones(tygem_archives) -> None:
    games = sample(tygem_archives)
    assert len(games) >= GAMES
    illegal = {}
    for name, data in games:
        game = sgf.Sgf_game.from_bytes(data)
        size = game.get_size()
        moves = [node.get_move() for node in game.get_main_sequence()[1:]]
        ours, theirs = Board(size), boards.Board(size)
        for color, point in moves:
            if color is None:
                continue
            try:
                ours.play(color, point)
            except IllegalMove as e:
                illegal[name] = str(e)
                break
            if point is not None:
                theirs.play(*point, color)
        expected = {c: {p for colour, p in theirs.list_occupied_points() if colour == c} for c in "bw"}
        assert {c: ours.stones(c) for c in "bw"} == expected, name
    # The whole archive holds one immediate ko retake (a record glitch) and 17 games
    # that repeat a position (legal under its Korean rules): nothing else is refused.
    assert all(message.rsplit(": ", 1)[1] in ("ko", "superko") for message in illegal.values()), illegal
    assert len(illegal) <= len(games) // 100, illegal

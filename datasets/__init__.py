"""Reading game collections: SGF files, folders, zip and tar archives -> game records.

>>> from shapemill.datasets import read_games
>>> for game in read_games("games.zip", on_error=print):
...     print(game.id, game.black, game.white, game.n_moves)

:func:`read_games` yields every readable game as a :class:`GameRecord`;
:func:`scan` adds filters, de-duplication and the train/test split; the
``shapemill scan`` command writes the result as the games table.
"""

from .records import GameRecord, ScanError, game_id, split_of
from .scanner import ScanOptions, ScanResult, read_games, scan, write_tables
from .sources import DEFAULT_MAX_BYTES, InputError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "GameRecord",
    "InputError",
    "ScanError",
    "ScanOptions",
    "ScanResult",
    "game_id",
    "read_games",
    "scan",
    "split_of",
    "write_tables",
]

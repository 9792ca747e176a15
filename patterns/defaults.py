"""The tables bundled with shapemill: knowledge mined from Tygem 9-dan games.

``tools/make_default_tables.py`` makes them from ``../shared/data/tygem9d`` (train
split only) and writes the command, the games and the measured accuracy into their
metadata. With them the engine, ``evaluate`` and ``show`` work before a user has an
archive of their own.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from ..tables import TableError

RATINGS = "default_ratings.parquet"
PATTERNS = "default_patterns.parquet"


def default_table(name: str) -> str:
    """The path of the bundled table ``name`` (``RATINGS`` or ``PATTERNS``).

    Raises ``TableError`` naming the file when the installation lacks it.
    """
    path = Path(str(files("shapemill.patterns") / name))
    if not path.is_file():
        raise TableError(f"{path}: the bundled table is missing (reinstall shapemill, or give a table)")
    return str(path)

"""The index's ``first[g, point, k]`` table: per game and point, the first position
(number of moves played) where black (``k = 0``) or white (``k = 1``) stood there,
and where a stone there had been captured (``k = CLEARED``)."""

from __future__ import annotations

import numpy as np

#: ``first`` time of a colour that never reached a point (larger than any move number).
NEVER = int(np.iinfo(np.uint16).max)
#: ``first[g, point, CLEARED]``: the first position where a stone there had been captured.
CLEARED = 2

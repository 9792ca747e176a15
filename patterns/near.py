"""The near twins of the move model: which moves they rate, and which patterns have one.

A pattern played with the previous move close by has a gamma of its own, its *near twin*:
a shape played as an answer is not the same move as that shape elsewhere (docs/rating.md,
"The model"). Constants only, so that the command line reads them without loading numba.
"""

from __future__ import annotations

#: The previous move at gridcular distance 2 to 4: next to the move, diagonal to it, a
#: jump or a knight's move away (bench/model_variants.py: +0.65 points of top-1 at a
#: million positions; 2 to 6 no better).
NEAR_FROM, NEAR_TO = 2, 4
#: `rate` gives a twin to the patterns played this often in the mined games: the patterns
#: of the measurement above (the bundled patterns table's). A rarer pattern's twin would be
#: fitted on a few positions, and the prior pulls it towards gamma 1, not its pattern's.
NEAR_PLAYED = 200

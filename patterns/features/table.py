"""The tactical features: one table of names, level counts and meanings.

A feature's *level* is a small non-negative int, 0 meaning "feature absent". Own =
the player to move, opponent = the other; "the previous move" is ``m[LAST]`` (the
opponent's), "the move before" is ``m[LAST2]`` (ours). ``FEATURE_LEVELS[f]`` is
max level + 1, the size of an array indexed by level.
"""

from __future__ import annotations

from ...go.nbr3x3 import NBR3X3_LEVELS

#: Clipping of the count features and of the distances.
MAX_LIBS = 8
MAX_SIZE = 8
MAX_DIST = 17

#: (name, levels, meaning), in column order.
FEATURE_TABLE: tuple[tuple[str, int, str], ...] = (
    ("capture", 7, "the move captures; the first that applies of 1 a captured string touches an "
     "own string in atari, 2 it contains the previous move's stone, 3 the previous move's stone "
     "is next to the move, 4 takes a ko (one stone captured, the capturing stone left alone in "
     "atari), 5 the string could have escaped (not in a ladder), 6 caught in a ladder anyway "
     "(Coulom 2007's levels 1-5, ko added as 4)"),
    ("extension", 5, "the move is the last liberty of an own string in atari: 1 a new atari "
     "(the previous move touches the string) escaped, 2 a new atari still caught (one liberty "
     "after, or a working ladder), 3 an older atari escaped, 4 an older atari still caught"),
    ("self_atari", 3, "the move's string has one liberty after it: 1 and it captures nothing, "
     "2 though it captures"),
    ("atari", 4, "the move leaves an opponent string with one liberty: 1 the string cannot "
     "escape (ladder or immediate), 2 other atari while a ko is on the board, 3 other atari"),
    ("border", 5, "distance to the nearest edge, 1 (first line) .. 4; 0 from the fifth line in"),
    ("last_dist", MAX_DIST + 1, "gridcular distance |dx|+|dy|+max(|dx|,|dy|) to the previous "
     "move, 17 for 17 or more; 0 when there is none (pass, start, setup)"),
    ("last2_dist", MAX_DIST + 1, "the same for the move before the previous one; 1 when the "
     "move is on that very point (our stone there was captured since)"),
    ("last_dists", (MAX_DIST + 1) ** 2, "the two distances together, last_dist + 18 x last2_dist, "
     "0 when both are: a gamma for each pair beside each distance's own, since where a move answers "
     "depends on where the move before was (derived: no digit of a combination's key)"),
    ("libs_after", MAX_LIBS + 1, "liberties of the move's string after it (captures counted), "
     "8 for 8 or more"),
    ("capture_size", MAX_SIZE + 1, "stones the move captures, 8 for 8 or more"),
    ("self_atari_size", MAX_SIZE + 1, "stones of the move's string when it is left in atari, "
     "8 for 8 or more"),
    ("ladder", 3, "1 ladder capture: an atari whose string, extended, has two liberties and is "
     "chased to capture by a working ladder; 2 ladder escape: an extension to exactly two "
     "liberties that a ladder cannot catch"),
    ("nbr3x3", NBR3X3_LEVELS + 1, "the 3x3 neighbourhood (each neighbour empty, own string with "
     "1, 2, 3+ liberties, opponent's with 1, 2, 3+, off board), canonical under the 8 "
     "symmetries, as a dense id"),
    ("line3", 2, "third line, no stone in the 5x5 square around (territory line)"),
    ("line1_alone", 2, "first line, no stone in the 5x5 square around (the death line)"),
    ("peep_connect", 2, "connects two own strings next to the opponent's previous move"),
    ("hane", 2, "diagonal to an own stone, next to an opponent stone that touches it, the "
     "fourth point of the 2x2 empty"),
    ("connect", 2, "touches two or more different own strings"),
    ("wall", 2, "extends a straight line of two or more own stones"),
    ("bad_kogeima", 2, "a knight's move from an own stone with an opponent stone and no own "
     "stone on the two points between"),
    ("empty_triangle", 2, "makes three own stones in a 2x2 square with the fourth point empty"),
)

FEATURES: tuple[str, ...] = tuple(name for name, _, _ in FEATURE_TABLE)
FEATURE_LEVELS: tuple[int, ...] = tuple(levels for _, levels, _ in FEATURE_TABLE)
N_FEATURES = len(FEATURES)

(
    F_CAPTURE,
    F_EXTENSION,
    F_SELF_ATARI,
    F_ATARI,
    F_BORDER,
    F_LAST_DIST,
    F_LAST2_DIST,
    F_LAST_DISTS,
    F_LIBS_AFTER,
    F_CAPTURE_SIZE,
    F_SELF_ATARI_SIZE,
    F_LADDER,
    F_NBR3X3,
    F_LINE3,
    F_LINE1_ALONE,
    F_PEEP_CONNECT,
    F_HANE,
    F_CONNECT,
    F_WALL,
    F_BAD_KOGEIMA,
    F_EMPTY_TRIANGLE,
) = range(N_FEATURES)

"""The tactical features' levels in words, for a person reading a table or an explanation.

One phrase per level, drawn from ``FEATURE_TABLE``'s meanings; the ``nbr3x3`` level is
drawn as its 3x3 neighbourhood (``go.nbr3x3.nbr3x3_describe``).
"""

from __future__ import annotations

from ...go.nbr3x3 import nbr3x3_describe
from .table import FEATURE_LEVELS, FEATURE_TABLE, FEATURES, MAX_DIST, MAX_LIBS, MAX_SIZE

#: The phrase of each level of the features whose levels are cases, not counts.
CASES: dict[str, tuple[str, ...]] = {
    "capture": (
        "captures a string that touches an own string in atari",
        "captures the string of the previous move",
        "captures a string next to the previous move",
        "takes a ko",
        "captures a string that could have escaped",
        "captures a string caught in a ladder anyway",
    ),
    "extension": (
        "extends a string just put in atari, and escapes",
        "extends a string just put in atari, still caught",
        "extends a string in atari since earlier, and escapes",
        "extends a string in atari since earlier, still caught",
    ),
    "self_atari": ("self-atari, capturing nothing", "self-atari, though it captures"),
    "atari": ("ataris a string that cannot escape", "ataris while a ko is on the board", "ataris"),
    "ladder": ("ladder capture: an atari the ladder works for", "ladder escape: the ladder does not work"),
}


def _count(level: int, top: int, unit: str) -> str:
    return f"{level}{' or more' if level == top else ''} {unit}{'s' if level != 1 else ''}"


def level_words(feature: str, level: int) -> str:
    """What level ``level`` of tactical feature ``feature`` (or the pass) means, in words;
    a multi-line 3x3 picture for ``nbr3x3``. A name or level no table holds is a ``ValueError``."""
    if feature == "pass":
        return "the pass"
    if feature not in FEATURES or not 1 <= level < FEATURE_LEVELS[FEATURES.index(feature)]:
        raise ValueError(f"{feature} = {level} is no level of a tactical feature")
    if feature in CASES:
        return CASES[feature][level - 1]
    if feature == "nbr3x3":
        return ("3x3 neighbourhood (X own, O opponent, their liberties 1, 2, 3+; # off board):\n"
                + nbr3x3_describe(level))
    if feature == "border":
        return f"on the {('first', 'second', 'third', 'fourth')[level - 1]} line"
    if feature in ("last_dist", "last2_dist"):
        which = "previous move" if feature == "last_dist" else "move before the previous one"
        if feature == "last2_dist" and level == 1:
            return f"on the point of the {which} (its stone was captured)"
        return f"{_count(level, MAX_DIST, 'step')} (gridcular) from the {which}"
    if feature == "last_dists":
        last, last2 = level % (MAX_DIST + 1), level // (MAX_DIST + 1)
        return "; ".join(level_words(name, lv) for name, lv in (("last_dist", last), ("last2_dist", last2)) if lv)
    if feature == "libs_after":
        return f"{_count(level, MAX_LIBS, 'liberty').replace('libertys', 'liberties')} after the move"
    if feature == "capture_size":
        return f"captures {_count(level, MAX_SIZE, 'stone')}"
    if feature == "self_atari_size":
        return f"leaves {_count(level, MAX_SIZE, 'stone')} in atari"
    return dict((name, meaning) for name, _, meaning in FEATURE_TABLE)[feature]

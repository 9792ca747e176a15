"""Time control: the seconds each move may think, from the game's clock.

GTP's ``time_settings`` and KGS's ``kgs-time_settings`` give a ``TimeSettings``
(sudden death, Canadian byo-yomi, Japanese byo-yomi), ``time_left`` a ``TimeLeft``
per colour; ``move_seconds`` turns them into one move's budget, which the engine
passes to the search with that move (``search.Budget``). A referee keeps each side's
clock with ``GameClock`` (``match --clock``, ``parse_clock``). Nothing here knows the
search: the clock is arithmetic on seconds, stones and moves.
"""

from __future__ import annotations

from typing import NamedTuple

#: The longest a move may think under any time settings (huge ones would hang a GUI).
MAX_MOVE_SECONDS = 600.0
#: The shortest: below it a search has hardly started (one batch of playouts).
MIN_MOVE_SECONDS = 0.05
#: The share of its time a move spends; the rest absorbs what the clock sees and the
#: search does not (answering, the pipe to a GUI or referee, a late batch).
SAFETY = 0.8
#: Our moves still to come in main time are the empty points over this: a game lasts
#: about two thirds of the board's points in moves, half of them ours.
POINTS_PER_MOVE = 3
#: ... but never fewer than this many, so that late in a game one move cannot take the rest.
MIN_MOVES_LEFT = 10

KINDS = ("absolute", "canadian", "byoyomi")


class TimeSettings(NamedTuple):
    """A game's clock: main time, then (unless ``absolute``) byo-yomi."""

    kind: str  # absolute (sudden death) | canadian (``stones`` moves a period) | byoyomi (``stones`` periods)
    main: float  # main time, seconds
    period: float  # byo-yomi period, seconds (0 for absolute)
    stones: int  # canadian: the moves each period must hold; byoyomi: the number of periods


class TimeLeft(NamedTuple):
    """One colour's clock as ``time_left`` reports it."""

    seconds: float  # main time left, or in byo-yomi what is left of the current period
    stones: int  # 0 in main time; in byo-yomi the moves (canadian) or periods (byoyomi) left


def moves_to_come(points: int, moves_played: int) -> int:
    """The moves we still expect to play in main time on a board of ``points`` points."""
    return max(MIN_MOVES_LEFT, (points - moves_played) // POINTS_PER_MOVE)


def available_seconds(settings: TimeSettings, left: TimeLeft) -> float:
    """The most one move can take without losing on time or losing a byo-yomi period:
    in main time what is left of it and the first period, in Canadian byo-yomi what is
    left of the period, in Japanese byo-yomi one period."""
    if left.stones > 0 and settings.kind == "canadian":
        return left.seconds
    if left.stones > 0 and settings.kind == "byoyomi":
        return settings.period
    return left.seconds + settings.period


def move_seconds(settings: TimeSettings | None, left: TimeLeft | None, points: int, moves_played: int,
                 own: float | None = None) -> float | None:
    """Seconds for the next move: in main time the time left spread over the moves to
    come (``moves_to_come``) plus a period's share; in byo-yomi the period shared by its
    stones (Canadian) or the whole period (Japanese); ``SAFETY`` of that, at most
    ``MAX_MOVE_SECONDS`` and ``own`` (the engine's own time a move), at least
    ``MIN_MOVE_SECONDS``, never more than ``available_seconds``. Without settings (no
    limit) the engine's own, None for a search by playouts. ``left`` None: the clock
    has not been reported, so the whole main time is left."""
    if settings is None:
        return own
    left = left if left is not None else TimeLeft(settings.main, 0)
    if left.stones > 0 and settings.kind == "canadian":
        budget = left.seconds / left.stones
    elif left.stones > 0 and settings.kind == "byoyomi":
        budget = settings.period
    else:
        share = settings.period / max(settings.stones, 1) if settings.kind == "canadian" else settings.period
        budget = left.seconds / moves_to_come(points, moves_played) + share
    budget = min(budget * SAFETY, MAX_MOVE_SECONDS)
    budget = max(MIN_MOVE_SECONDS, budget if own is None else min(budget, own))
    return min(budget, available_seconds(settings, left))


def parse_clock(text: str) -> TimeSettings:
    """A referee's clock from ``M`` (sudden death, M seconds) or ``M:B:S`` (M seconds of
    main time, then Canadian byo-yomi: S moves in each period of B seconds), whole seconds
    as GTP's ``time_settings`` takes them; ValueError naming what is wrong."""
    parts = text.split(":")
    if len(parts) not in (1, 3) or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"{text!r}: not M or M:B:S (whole seconds, stones)")
    main, period, stones = (int(p) for p in parts) if len(parts) == 3 else (int(parts[0]), 0, 0)
    if period > 0 and stones == 0 or period == 0 and stones > 0:
        raise ValueError(f"{text!r}: a byo-yomi period needs both its seconds and its stones")
    if main == 0 and period == 0:
        raise ValueError(f"{text!r}: no time at all")
    return TimeSettings("absolute" if period == 0 else "canadian", float(main), float(period), stones)


class GameClock:
    """One side's clock as a referee keeps it under GTP's time settings (sudden death or
    Canadian byo-yomi): ``left`` is what ``time_left`` reports (main time and 0 stones,
    then the period's seconds and stones left). A move that runs past the main time
    spends the rest in the first period and counts as its first stone; a period whose
    stones are all played in time starts afresh."""

    def __init__(self, settings: TimeSettings) -> None:
        self.settings = settings
        in_main = settings.main > 0 or settings.kind == "absolute"
        self.left = TimeLeft(settings.main, 0) if in_main else TimeLeft(settings.period, settings.stones)

    def available(self) -> float:
        """The seconds the next move may take before its side loses on time."""
        return available_seconds(self.settings, self.left)

    def spend(self, seconds: float) -> bool:
        """Charge a move that took ``seconds``; False (the clock at 0) when it took more
        than ``available``, the side having lost on time."""
        if seconds > self.available():
            self.left = TimeLeft(0.0, self.left.stones)
            return False
        left, settings = self.left, self.settings
        if left.stones == 0:  # main time
            if settings.kind == "absolute" or seconds < left.seconds:
                self.left = TimeLeft(left.seconds - seconds, 0)
                return True
            seconds -= left.seconds
            left = TimeLeft(settings.period, settings.stones)
        stones = left.stones - 1
        self.left = TimeLeft(left.seconds - seconds, stones) if stones else TimeLeft(settings.period, settings.stones)
        return True

"""Time control against clocks worked by hand: a move never takes more than the time
it has, sudden death lasts the game, a byo-yomi period holds its stones, a Japanese
period is never used up."""

from __future__ import annotations

import random

import pytest
from shapemill.engine.frontends.clock import MAX_MOVE_SECONDS, TimeLeft, TimeSettings, move_seconds


def hand_limit(settings: TimeSettings, left: TimeLeft) -> float:
    """What the rules of each clock allow one move before the player loses on time or
    loses a period: sudden death the time left; main time before byo-yomi the time
    left and one period; a Canadian period what is left of it; a Japanese period itself."""
    if left.stones == 0:
        return left.seconds + (settings.period if settings.kind != "absolute" else 0.0)
    return left.seconds if settings.kind == "canadian" else settings.period


def test_no_time_settings_leave_the_engines_own():
    assert move_seconds(None, None, 81, 0) is None
    assert move_seconds(None, TimeLeft(5.0, 0), 81, 0, own=2.5) == 2.5


def test_sudden_death_first_move_by_hand():
    # 300 s on an empty 9x9 board: 81 points, about 27 moves of ours; 300 / 27 = 11.1 s, of which 4/5
    assert move_seconds(TimeSettings("absolute", 300.0, 0.0, 0), None, 81, 0) == pytest.approx(8.889, abs=1e-3)


@pytest.mark.parametrize(("points", "main", "our_moves"), [(81, 10.0, 50), (361, 60.0, 175), (361, 600.0, 175)])
def test_sudden_death_lasts_a_long_game(points, main, our_moves):
    """Each move spends its whole budget; the clock does not run out within a long game
    (9x9: 100 moves, 19x19: 350). Past that the ``MIN_MOVE_SECONDS`` floor spends the
    last seconds (with 10 s on 9x9 at our 57th move): never more than is left, though."""
    settings, left = TimeSettings("absolute", main, 0.0, 0), main
    for k in range(our_moves):
        budget = move_seconds(settings, TimeLeft(left, 0), points, 2 * k)
        assert 0 < budget <= left
        left -= budget
    assert left > 0


def test_a_canadian_period_holds_its_stones():
    """60 s for 10 stones: every stone played in turn at its budget, the period lasts."""
    settings = TimeSettings("canadian", 0.0, 60.0, 10)
    for start in (60.0, 30.0, 2.0):
        left = start
        for stones in range(10, 0, -1):
            budget = move_seconds(settings, TimeLeft(left, stones), 81, 40)
            assert 0 < budget <= left
            left -= budget
        assert left > 0
    # by hand: 30 s for 5 stones is 6 s a stone, of which 4/5
    assert move_seconds(settings, TimeLeft(30.0, 5), 81, 40) == pytest.approx(4.8)


def test_a_japanese_period_is_never_used_up():
    settings = TimeSettings("byoyomi", 60.0, 10.0, 5)
    for periods in (5, 1):
        assert move_seconds(settings, TimeLeft(10.0, periods), 361, 200) == pytest.approx(8.0)  # 4/5 of 10 s
    # in main time a move may reach into the first period, never past it
    assert move_seconds(settings, TimeLeft(0.5, 0), 361, 200) <= 0.5 + 10.0


def test_a_move_never_thinks_longer_than_the_cap_or_the_engines_own():
    huge = TimeSettings("canadian", 1e308, 1e308, 1)
    assert move_seconds(huge, None, 361, 0) == MAX_MOVE_SECONDS
    assert move_seconds(huge, None, 361, 0, own=3.0) == 3.0


def test_no_clock_ever_gives_more_than_its_rules_allow():
    rng = random.Random(35)
    for _ in range(5000):
        kind = rng.choice(["absolute", "canadian", "byoyomi"])
        period = 0.0 if kind == "absolute" else rng.choice([0.01, 1.0, 10.0, 300.0])
        settings = TimeSettings(kind, rng.choice([0.0, 1.0, 60.0, 3600.0]), period, rng.randint(1, 25))
        in_byo_yomi = kind != "absolute" and rng.random() < 0.5
        left = TimeLeft(rng.choice([0.0, 0.01, 0.04, 0.5, 7.0, 900.0]), rng.randint(1, 25) if in_byo_yomi else 0)
        points = rng.choice([25, 81, 361])
        budget = move_seconds(settings, left, points, rng.randint(0, 2 * points))
        assert 0 <= budget <= min(hand_limit(settings, left), MAX_MOVE_SECONDS), (settings, left)

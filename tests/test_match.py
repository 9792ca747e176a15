"""shapemill match: refereed games between GTP programs, SGF files, resume, tallies."""

import math
import sys

from click.testing import CliRunner
from sgfmill import sgf
from shapemill.cli import main
from shapemill.engine.frontends.match import wilson

ENGINE = f"{sys.executable} -m shapemill.cli gtp --no-priors --playouts 40 --size 7"


def test_match_plays_saves_and_resumes(tmp_path):
    folder = tmp_path / "games"
    args = ["match", "--black", ENGINE + " --seed 1{game}", "--white", ENGINE + " --seed 2",
            "--size", "7", "--sgf-dir", str(folder), "--alternate"]
    first = CliRunner().invoke(main, [*args, "--games", "2"])
    assert first.exit_code == 0, first.output
    files = sorted(p.name for p in folder.iterdir())
    assert files == ["game-0001.sgf", "game-0002.sgf", "match.json"]
    root = sgf.Sgf_game.from_bytes((folder / "game-0002.sgf").read_bytes()).get_root()
    assert root.get("SZ") == 7 and root.has_property("RE")
    # as twogtp: each program by its GTP name and version, the command lines in the game comment
    assert root.get("PB") == root.get("PW") == "shapemill 0.1.0"
    black_line, white_line = root.get("GC").splitlines()
    assert black_line.startswith("Black command: ") and black_line.endswith("--seed 2")
    assert white_line.startswith("White command: ") and white_line.endswith("--seed 12")  # {game}: its number
    again = CliRunner().invoke(main, [*args, "--games", "3"])
    assert again.exit_code == 0, again.output
    assert again.output.count("(from the folder)") == 2 and len(list(folder.glob("game-*.sgf"))) == 3
    tallies = [line for line in again.output.splitlines() if "/3 wins" in line]
    assert len(tallies) == 2
    wins = [float(line.split(": ")[1].split("/")[0]) for line in tallies]
    assert sum(wins) == 3


def test_wilson_interval():
    low, high = wilson(30, 40)
    assert 0.59 < low < 0.61 and 0.85 < high < 0.87
    assert wilson(0, 0) == (0.0, 1.0)
    # no wins: the interval is [0, z^2 / (n + z^2)] by hand (p = 0 in Wilson's formula); the
    # lower bound is 0.0 itself, not the -0.0 or -1e-17 of the subtraction (printed "-0.0%")
    low, high = wilson(0, 40)
    assert low == 0.0 and str(round(100 * low, 1)) == "0.0"
    assert math.isclose(high, 1.96**2 / (40 + 1.96**2))
    low, high = wilson(40, 40)
    assert high == 1.0 and math.isclose(low, 40 / (40 + 1.96**2))


def test_games_played_two_at_once_are_the_games_played_one_by_one(tmp_path):
    """Seeded engines play the same games whether the match runs them one by one or two
    at once, and the tallies count each game once, with its colours."""
    from shapemill.engine.frontends.match import run_match

    first, second = ENGINE + " --seed 1{game}", ENGINE + " --seed 2{game}"
    tallies = {}
    for concurrency in (1, 2):
        folder = tmp_path / str(concurrency)
        tallies[concurrency] = run_match(first, second, 2, 7, 7.5, str(folder), alternate=True,
                                         report=lambda line: None, concurrency=concurrency)
    for name in ("game-0001.sgf", "game-0002.sgf"):
        assert (tmp_path / "1" / name).read_text() == (tmp_path / "2" / name).read_text()
    for one, two in zip(tallies[1], tallies[2]):
        assert (one.games, one.wins, one.moves) == (two.games, two.wins, two.moves) and one.games == 2


SCRIPTED = '''
import sys, time
log, delay, moves = sys.argv[1], sys.argv[2], sys.argv[3:]
delay, _, score = delay.partition(":")  # seconds a move, and the final_score it claims
for line in sys.stdin:
    with open(log, "a") as fh:
        fh.write(line)
    if line.startswith(("genmove", "kgs-genmove_cleanup")):
        time.sleep(float(delay))
        print("= " + (moves.pop(0) if moves else "pass") + "\\n", flush=True)
    elif line.startswith("final_score"):
        print("= " + (score or "0") + "\\n", flush=True)
    elif line.startswith("known_command"):
        print("= true\\n", flush=True)
    else:
        print("=\\n", flush=True)
    if line.startswith("quit"):
        break
'''


def test_a_final_score_disagreement_is_settled_by_kgs_cleanup(tmp_path):
    """5x5, komi 0.5: Black's wall on C, White's on D, then a dead White stone at A3 and two
    passes. Black claims B+4.5, White W+5.5 (A3 alive). In the cleanup phase Black
    (``kgs-genmove_cleanup``) captures A3 (B3, A2, A4) and both pass: by hand, Black's area
    is columns A-C (15), White's D-E (10), B+4.5. Counted at once, A3 would stand and make
    Black's side neutral: Black 5, White 11, W+6.5."""
    from shapemill.engine.frontends.match import run_match

    script = tmp_path / "scripted.py"
    script.write_text(SCRIPTED)
    black = f"{sys.executable} {script} {tmp_path / 'black.log'} 0:B+4.5 C1 C2 C3 C4 C5 pass pass B3 A2 A4"
    white = f"{sys.executable} {script} {tmp_path / 'white.log'} 0:W+5.5 D1 D2 D3 D4 D5 A3"
    said = []
    first, _ = run_match(black, white, 1, 5, 0.5, str(tmp_path / "games"), alternate=False, report=said.append)
    game = sgf.Sgf_game.from_bytes((tmp_path / "games" / "game-0001.sgf").read_bytes())
    assert game.get_root().get("RE") == "B+4.5" and first.wins == 1
    moves = [node.get_move() for node in game.get_main_sequence()[1:]]
    assert len(moves) == 21 and moves[14:19:2] == [("b", (2, 1)), ("b", (1, 0)), ("b", (3, 0))]
    asked = (tmp_path / "black.log").read_text().splitlines()
    assert sum(line.startswith("kgs-genmove_cleanup b") for line in asked) == 4
    assert any("final_score disagreement ('B+4.5', 'W+5.5'), counted B+4.5 after 7 cleanup moves" in line
               for line in said)


def test_equal_time_budget_brings_the_followers_mean_to_the_opponents():
    from shapemill.engine.frontends.match import EqualTime

    equal = EqualTime(0.5)
    assert equal.budget(0.0, 0) == 0.5  # the opponent has not moved yet
    equal.opponent_moved(1.0)
    equal.opponent_moved(3.0)
    assert equal.mean() == 2.0
    assert equal.budget(1.0, 1) == 3.0  # 2 moves at 2 s, 1 s spent
    assert equal.budget(10.0, 1) == 0.5  # far ahead: a quarter of the mean
    assert equal.budget(0.0, 5) == 8.0  # far behind: four times the mean


def test_the_follower_is_told_its_time_before_each_of_its_moves(tmp_path):
    from shapemill.engine.frontends.match import run_match

    script = tmp_path / "scripted.py"
    script.write_text(SCRIPTED)
    follower = f"{sys.executable} {script} {tmp_path / 'follower.log'} 0 A1 C1 E1"
    leader = f"{sys.executable} {script} {tmp_path / 'leader.log'} 0.2 A5 C5 E5"
    first, second = run_match(follower, leader, 1, 5, 7.5, str(tmp_path / "games"), alternate=False,
                              report=lambda line: None, equal_time=0.5)
    lines = (tmp_path / "follower.log").read_text().splitlines()
    told = [float(line.split()[2]) for line in lines if line.startswith("time_settings")]
    asked = [i for i, line in enumerate(lines) if line.startswith("genmove")]
    assert len(told) == len(asked) == 4 and all(lines[i - 1].startswith("time_settings 0 ") for i in asked)
    assert told[0] == 0.5  # the leader had not moved
    mean = second.seconds / second.moves
    assert mean >= 0.2 and first.seconds / first.moves < mean / 2  # the follower answers at once
    # each budget is the leader's mean so far times the moves, less what the follower spent (next to
    # nothing: its whole game at most, which a loaded machine makes more than a rounding); the mean
    # over the leader's first three moves at the follower's fourth is at most the leader's whole
    # time over three (a later leader move only adds to the whole)
    assert 0.2 * 2 - first.seconds <= told[1] and told[1] < told[2] < told[3] <= 4 * second.seconds / 3 + 1e-3
    assert "time_settings" not in (tmp_path / "leader.log").read_text()


def test_a_game_clock_by_hand():
    """GTP's clocks, charged move by move and checked against the arithmetic by hand:
    sudden death runs down to nothing; Canadian byo-yomi takes the overflow of the main
    time into its first period, counts that move as its first stone and starts a period
    afresh once its stones are played."""
    from shapemill.engine.frontends.clock import GameClock, TimeLeft, parse_clock

    sudden = GameClock(parse_clock("10"))
    assert sudden.left == TimeLeft(10, 0) and sudden.available() == 10
    assert sudden.spend(4) and sudden.spend(6) and sudden.left == TimeLeft(0, 0)
    assert not sudden.spend(0.01)  # nothing left: any time loses
    canadian = GameClock(parse_clock("10:30:2"))  # 10 s, then 2 moves in each 30 s
    assert canadian.available() == 40  # the rest of the main time and the first period
    assert canadian.spend(7) and canadian.left == TimeLeft(3, 0)
    assert canadian.spend(5) and canadian.left == TimeLeft(28, 1)  # 2 s into the period, its first stone
    assert canadian.available() == 28
    assert canadian.spend(20) and canadian.left == TimeLeft(30, 2)  # both stones in time: a fresh period
    assert canadian.spend(29) and canadian.left == TimeLeft(1, 1)
    assert not canadian.spend(1.5)  # 1.5 s with 1 s left
    only_byoyomi = GameClock(parse_clock("0:5:1"))
    assert only_byoyomi.left == TimeLeft(5, 1) and only_byoyomi.spend(4.9) and only_byoyomi.left == TimeLeft(5, 1)


def test_clock_spellings():
    import pytest
    from shapemill.engine.frontends.clock import TimeSettings, parse_clock

    assert parse_clock("600") == TimeSettings("absolute", 600, 0, 0)
    assert parse_clock("300:30:5") == TimeSettings("canadian", 300, 30, 5)
    for bad in ("", "1.5", "600:30", "0", "0:0:0", "60:30:0", "60:0:5", "-5", "a:b:c"):
        with pytest.raises(ValueError):
            parse_clock(bad)


def _clocked(tmp_path, clock, black_delay, black_moves, white_moves):
    """A game of two scripted programs at ``clock`` (black answering after ``black_delay``
    seconds, white at once); the saved SGF's root, the CLI's output and Black's log lines."""
    script = tmp_path / "scripted.py"
    script.write_text(SCRIPTED)
    black = f"{sys.executable} {script} {tmp_path / 'black.log'} {black_delay} {' '.join(black_moves)}"
    white = f"{sys.executable} {script} {tmp_path / 'white.log'} 0 {' '.join(white_moves)}"
    folder = tmp_path / "games"
    out = CliRunner().invoke(main, ["match", "--black", black, "--white", white, "--size", "9", "--games", "1",
                                    "--sgf-dir", str(folder), "--clock", clock])
    assert out.exit_code == 0, out.output
    game = sgf.Sgf_game.from_bytes((folder / "game-0001.sgf").read_bytes())
    return game, out.output, (tmp_path / "black.log").read_text().splitlines()


def _sent(lines, command):
    return [line.split()[1:] for line in lines if line.startswith(command)]


def test_a_slow_program_loses_on_time_when_its_clock_runs_out(tmp_path):
    """Sudden death of 2 s, Black answering in 0.7 s: after two moves it holds 0.6 s, so
    its third move loses on time (the referee stops waiting when the clock runs out);
    time_left said 2, 1 and 0 whole seconds before its moves."""
    game, output, lines = _clocked(tmp_path, "2", 0.7, ["C3", "D3", "E3", "F3"], ["C7", "D7", "E7", "F7"])
    root = game.get_root()
    assert root.get("RE") == "W+T" and root.get("TM") == 2 and not root.has_property("OT")
    assert root.get("C").startswith("Black lost on time: ")
    assert len(game.get_main_sequence()) == 1 + 4  # B, W, B, W; Black's third move never came
    assert "W+T (Black lost on time: " in output and "1 lost on time" in output
    assert _sent(lines, "time_settings") == [["2", "0", "0"]]
    assert _sent(lines, "time_left") == [["b", "2", "0"], ["b", "1", "0"], ["b", "0", "0"]]
    assert _sent(tmp_path.joinpath("white.log").read_text().splitlines(), "time_left")[0] == ["w", "2", "0"]


def test_byo_yomi_periods_start_afresh(tmp_path):
    """2 s, then 2 moves in each 2 s period, Black answering in 0.7 s: main time 1.3, 0.6;
    the third move spends 0.1 s of the first period (1.9 s, 1 stone left), the fourth ends
    it in time, so the fifth has a fresh period (2 s, 2 stones), and Black never runs out
    (time_left in GTP's whole seconds, rounded down). With 4 moves a period it is not
    done in time: 1.9, 1.2, 0.5 s, and the sixth move (0.7 s) loses on time."""
    black = ["C3", "D3", "E3", "F3", "G3", "C5"]
    white = ["C7", "D7", "E7", "F7", "G7", "C6"]
    (tmp_path / "two").mkdir()
    game, output, lines = _clocked(tmp_path / "two", "2:2:2", 0.7, black, white)
    root = game.get_root()
    assert root.get("RE") == "0" and root.get("OT") == "2/2 Canadian"
    assert _sent(lines, "time_settings") == [["2", "2", "2"]]
    assert _sent(lines, "time_left") == [["b", "2", "0"], ["b", "1", "0"], ["b", "0", "0"], ["b", "1", "1"],
                                         ["b", "2", "2"], ["b", "1", "1"], ["b", "2", "2"]]  # the 7th: a pass
    (tmp_path / "four").mkdir()
    game, output, lines = _clocked(tmp_path / "four", "2:2:4", 0.7, black, white)
    assert game.get_root().get("RE") == "W+T" and len(game.get_main_sequence()) == 1 + 10
    assert [stones for _, _, stones in _sent(lines, "time_left")] == ["0", "0", "0", "3", "2", "1"]


def test_clock_and_equal_time_are_refused_together(tmp_path):
    args = ["match", "--black", ENGINE, "--white", ENGINE, "--sgf-dir", str(tmp_path / "m")]
    both = CliRunner().invoke(main, [*args, "--clock", "60", "--equal-time", "1"])
    assert both.exit_code == 2 and "--clock and --equal-time" in both.output
    for bad_clock in ("60:30", "2000000"):
        bad = CliRunner().invoke(main, [*args, "--clock", bad_clock])
        assert bad.exit_code == 2 and "--clock" in bad.output
    assert not (tmp_path / "m").exists()

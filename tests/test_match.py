"""shapemill match: refereed games between GTP programs, SGF files, resume, tallies."""

import sys

from click.testing import CliRunner
from sgfmill import sgf
from shapemill.cli import main
from shapemill.engine.match import wilson

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


def test_games_played_two_at_once_are_the_games_played_one_by_one(tmp_path):
    """Seeded engines play the same games whether the match runs them one by one or two
    at once, and the tallies count each game once, with its colours."""
    from shapemill.engine.match import run_match

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
log, delay, moves = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
for line in sys.stdin:
    with open(log, "a") as fh:
        fh.write(line)
    if line.startswith("genmove"):
        time.sleep(delay)
        print("= " + (moves.pop(0) if moves else "pass") + "\\n", flush=True)
    elif line.startswith("final_score"):
        print("= 0\\n", flush=True)
    else:
        print("=\\n", flush=True)
    if line.startswith("quit"):
        break
'''


def test_equal_time_budget_brings_the_followers_mean_to_the_opponents():
    from shapemill.engine.match import EqualTime

    equal = EqualTime(0.5)
    assert equal.budget(0.0, 0) == 0.5  # the opponent has not moved yet
    equal.opponent_moved(1.0)
    equal.opponent_moved(3.0)
    assert equal.mean() == 2.0
    assert equal.budget(1.0, 1) == 3.0  # 2 moves at 2 s, 1 s spent
    assert equal.budget(10.0, 1) == 0.5  # far ahead: a quarter of the mean
    assert equal.budget(0.0, 5) == 8.0  # far behind: four times the mean


def test_the_follower_is_told_its_time_before_each_of_its_moves(tmp_path):
    from shapemill.engine.match import run_match

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
    assert mean >= 0.2 and first.seconds / first.moves < 0.1
    # the follower spends nothing, so each budget is the leader's mean so far times its moves, at most four
    assert 0.2 * 2 <= told[1] and told[1] < told[2] < told[3] <= 4 * mean + 1e-3
    assert "time_settings" not in (tmp_path / "leader.log").read_text()

"""Benchmark of playing strength at equal time: GnuGo, priors, playout policies, parallelism.

One thread each by default: every shapemill command has ``--threads 1`` (``--engine
"--threads 2"`` overrides it, the last of a repeated option counting), GnuGo 3.8 has one,
and every row states the threads of each side (ours/theirs).

GnuGo's own seconds per move are measured first, in the same run: ``--calibrate`` games
(default 2) of GnuGo against itself on each board size, played ``--concurrency`` at a time
as the matches are, so the machine's load is the same. Against GnuGo our engine's time
then follows GnuGo's in the match itself (``run_match``'s ``equal_time``: before each move
it is told the time that keeps its mean equal to GnuGo's mean so far, from the calibrated
time on), since GnuGo thinks longer against it than against itself; the engine-against-
engine parts give both sides the calibrated time (``shapemill gtp --time-per-move``).
``--seconds S`` gives our engine S seconds a move instead, in every part (but ``clock19``,
where both programs manage their own time at a game clock). Colours
alternate, games are kept as SGF under ``--out`` (a run resumes from there), and each row
gives wins, win rate, its 95% Wilson interval, and both sides' measured seconds per move,
over ``--games`` games decided on the board: a game a program crashed in is no contest
(counted apart) and another is played in its place.

    python bench/strength.py                                  # every part (many hours)
    python bench/strength.py --parts gnugo19,gnugo9 --concurrency 1     # the headline rows, 40 games each
    python bench/strength.py --parts clock19 --concurrency 1            # 10 minutes sudden death a side
    python bench/strength.py --parts gnugo9,policies --games 4 --seconds 0.1   # a smoke run

Parts (``--parts``, comma-separated; default all but ``before``):

- ``gnugo19``: shapemill (bundled priors) against ``--gnugo`` on 19x19, one thread each at
  equal time a move. Target (issue 33) >= 55% of at least 40 games (goal 70%).
- ``gnugo9``: the same on 9x9. Target >= 90%.
- ``clock19``: the same on 19x19 at a real game clock (``--clock``, default 600: ten
  minutes sudden death a side; ``match --clock``): both programs get ``time_settings`` and
  ``time_left`` and manage their own time (GnuGo honours them), as servers play; a
  program whose clock runs out loses on time (the row counts those games).
- ``priors``: bundled priors (at every node) against ``--no-priors``, and against
  ``--root-priors``, on 19x19. Target >= 70% against none.
- ``policies``: ``--playout-policy ppa`` against ``mogo`` and against ``gamma`` (``--policy-size``, 9).
- ``selection``: each seed option of ``SELECTION`` (prior modes, bandits, ``--expert mogo``,
  playout policies) against the defaults (``--policy-size``), one thread each;
  ``--selection "--bandit ucb1;--expert mogo"`` plays only those.
- ``parallel``: ``--threads 2 --parallel tree`` and ``leaf`` against ``--parallel root``, then each against
  ``--threads 1`` (``--policy-size``); run it with ``--concurrency 1`` on two cores.
- ``before`` (only when named): the shapemill this Python imports (``PYTHONPATH``, else the
  installed one) against ``--before DIR`` (a folder holding the reference's ``shapemill``
  package, as for ``bench/search_speed.py``: the commit before a change), both with the
  defaults, on ``--policy-size``, one thread each: a change to the engine stays when it wins
  this row. Warm both checkouts' numba caches first (one ``genmove`` each).

Both sides of the engine-against-engine parts get the GnuGo time of their board size.
``--engine`` adds options to every shapemill command (e.g. ``--prior-visits 8``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

GNUGO = "/usr/games/gnugo --mode gtp --level 10 --chinese-rules"
PARTS = ("gnugo19", "gnugo9", "clock19", "priors", "policies", "selection", "parallel", "before")
#: The parts played when ``--parts`` is not given: all but ``before``, which needs ``--before``.
DEFAULT_PARTS = tuple(part for part in PARTS if part != "before")
#: The options of the selection part, each against the defaults: every seed option and
#: knowledge source of issue 33 (docs/search.md) and the formulas kept under their own names.
SELECTION = ("--prior-mode progressive-bias", "--prior-mode puct", "--prior-mode puct-c", "--prior-mode mogo",
             "--bandit ucb1", "--bandit tuned1", "--bandit tuned2", "--bandit auer-tuned", "--bandit ucb-v",
             "--expert mogo", "--prior-mode mogo --expert mogo", "--playout-policy mogo",
             "--playout-policy nested1", "--playout-policy nested2")
#: Issue 33's targets, one thread each at equal time, at least 40 games.
TARGETS = {"vs GnuGo 19x19": ">= 55% (goal 70%)", "vs GnuGo 9x9": ">= 90%", "tree priors vs no-priors 19x19": ">= 70%"}
#: The threads of a command that does not say (our engine's default; GnuGo 3.8 has one).
ONE_THREAD = 1


def threads(command: str) -> int:
    """The search threads a program command runs: its last ``--threads N``, else one."""
    words = command.split()
    given = [words[i + 1] for i, word in enumerate(words[:-1]) if word == "--threads"]
    return int(given[-1]) if given else ONE_THREAD


def shapemill(args: argparse.Namespace, size: int, seconds: float | None, options: str, side: int = 1,
              checkout: str | None = None) -> str:
    """A shapemill GTP command at ``seconds`` a move (None: the time the referee gives
    it), one search thread unless ``options`` or ``--engine`` say otherwise; its seed
    changes with the game (``{game}``) so that games against a deterministic opponent
    differ. ``checkout``: the folder its ``shapemill`` is imported from (else this one's)."""
    seed = args.seeds.split(",")[side - 1]
    timing = f"--time-per-move {seconds:.3f}" if seconds is not None else ""
    env = f"env PYTHONPATH={checkout} " if checkout else ""
    return (f"{env}{sys.executable} -m shapemill.cli gtp --size {size} --threads 1 {timing} {options}"
            f" {args.engine} --seed {seed}{{game}}").replace("  ", " ").replace("  ", " ")


def gnugo_seconds(args: argparse.Namespace, size: int, report) -> float:
    """GnuGo's mean seconds per move against itself on ``size``, measured now."""
    from shapemill.engine.frontends.match import run_match

    folder = Path(args.out) / f"calibration-{size}x{size}"
    shutil.rmtree(folder, ignore_errors=True)  # times of saved games are not known again
    first, second = run_match(args.gnugo, args.gnugo, args.calibrate, size, 7.5, str(folder), alternate=True,
                              report=report, concurrency=args.concurrency)
    moves = first.moves + second.moves
    return (first.seconds + second.seconds) / moves


def decided_match(args: argparse.Namespace, ours: str, theirs: str, size: int, folder: Path, report,
                  equal_time: float | None = None, clock=None):
    """``run_match`` until ``--games`` games are decided on the board. A game that a
    program's failure ended (GnuGo 3.8 crashes in some positions) is no contest, not a
    win, and another game is played in its place, up to ``--games`` more in all.
    ``equal_time``: ours follows the opponent's time per move; ``clock``: both play at
    that game clock (``run_match``). Returns both tallies (ours first) of the last call,
    and the seconds and moves of both sides (ours
    first) over the games played in this run (the times of games read back from the
    folder are not known)."""
    from shapemill.engine.frontends.match import run_match

    seconds, moves = [0.0, 0.0], [0, 0]
    n = args.games
    while True:
        us, them = run_match(ours, theirs, n, size, 7.5, str(folder), alternate=True, report=report,
                             concurrency=args.concurrency, equal_time=equal_time, clock=clock)
        for k, tally in enumerate((us, them)):
            seconds[k] += tally.seconds
            moves[k] += tally.moves
        missing = args.games - (us.games - us.failures)
        if missing <= 0 or n >= 2 * args.games:
            return us, them, seconds, moves
        n = min(n + missing, 2 * args.games)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", default=",".join(DEFAULT_PARTS), help=f"comma-separated, of {', '.join(PARTS)}")
    parser.add_argument("--games", type=int, default=40, help="games per match (default 40, issue 33's least)")
    parser.add_argument("--gnugo", default=GNUGO)
    parser.add_argument("--seconds", type=float, default=None, help="our seconds per move (default: GnuGo's)")
    parser.add_argument("--clock", default="600", help="the clock19 part's game clock, M[:B:S] (default 600)")
    parser.add_argument("--calibrate", type=int, default=2, help="GnuGo-vs-GnuGo games that time GnuGo (default 2)")
    parser.add_argument("--concurrency", type=int, default=1, help="games played at once (default 1)")
    parser.add_argument("--policy-size", type=int, default=9, help="board of the policies, selection and parallel parts")
    parser.add_argument("--engine", default="", help="options added to every shapemill command")
    parser.add_argument("--selection", default=";".join(SELECTION),
                        help="the selection part's options, ';'-separated (default: all of SELECTION)")
    parser.add_argument("--before", help="the before part's reference: a folder holding its shapemill package")
    parser.add_argument("--seeds", default="1,2", help="seed prefixes of our engine and of its opponent")
    parser.add_argument("--out", default="bench-strength", help="folder of the games")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    parts = [p for p in args.parts.split(",") if p]
    if unknown := set(parts) - set(PARTS):
        parser.error(f"unknown parts {sorted(unknown)}")

    from shapemill.engine.frontends.clock import parse_clock
    from shapemill.engine.frontends.match import wilson

    try:
        clock = parse_clock(args.clock)
    except ValueError as e:
        parser.error(f"--clock {e}")

    quiet = (lambda line: None) if args.json else print
    per_move: dict[int, float] = {}

    def seconds(size: int) -> float:
        if args.seconds is not None:
            return args.seconds
        if size not in per_move:
            if not shutil.which(args.gnugo.split()[0]):
                parser.error(f"{args.gnugo.split()[0]} not found: give --seconds")
            per_move[size] = gnugo_seconds(args, size, quiet)
            quiet(f"GnuGo on {size}x{size}: {per_move[size]:.3f} s a move")
        return per_move[size]

    matches = []  # name, (ours, theirs) when called, size, whether ours follows the opponent's time
    for size, part in ((19, "gnugo19"), (9, "gnugo9")):
        if part in parts:
            matches.append((f"vs GnuGo {size}x{size}", lambda s=size: (shapemill(args, s, args.seconds, ""),
                                                                          args.gnugo), size, args.seconds is None))
    clocks = {}  # name: the game clock of a match played at one
    if "clock19" in parts:
        name = f"vs GnuGo 19x19 at clock {args.clock}"
        clocks[name] = clock
        matches.append((name, lambda: (shapemill(args, 19, None, ""), args.gnugo), 19, False))
    if "priors" in parts:
        for other in ("--no-priors", "--root-priors"):
            matches.append((f"tree priors vs {other[2:]} 19x19", lambda o=other: (
                shapemill(args, 19, seconds(19), ""), shapemill(args, 19, seconds(19), o, 2)), 19, False))
    ps = args.policy_size
    if "policies" in parts:
        for other in ("mogo-local", "gamma"):
            matches.append((f"ppa-paper vs {other} {ps}x{ps}", lambda o=other: (
                shapemill(args, ps, seconds(ps), "--playout-policy ppa-paper"),
                shapemill(args, ps, seconds(ps), f"--playout-policy {o}", 2)), ps, False))
    if "selection" in parts:
        for option in (o.strip() for o in args.selection.split(";") if o.strip()):
            matches.append((f"{option[2:]} vs defaults {ps}x{ps}", lambda o=option: (
                shapemill(args, ps, seconds(ps), o), shapemill(args, ps, seconds(ps), "", 2)), ps, False))
    if "before" in parts:
        if not args.before:
            parser.error("the before part needs --before DIR")
        matches.append((f"this checkout vs before {ps}x{ps}", lambda: (
            shapemill(args, ps, seconds(ps), ""), shapemill(args, ps, seconds(ps), "", 2, args.before)), ps, False))
    if "parallel" in parts:
        for mode in ("tree", "leaf"):
            matches.append((f"{mode} vs root 2 threads {ps}x{ps}", lambda m=mode: (
                shapemill(args, ps, seconds(ps), f"--threads 2 --parallel {m}"),
                shapemill(args, ps, seconds(ps), "--threads 2 --parallel root", 2)), ps, False))
        for mode in ("root", "tree", "leaf"):
            matches.append((f"{mode} 2 threads vs 1 thread {ps}x{ps}", lambda m=mode: (
                shapemill(args, ps, seconds(ps), f"--threads 2 --parallel {m}"),
                shapemill(args, ps, seconds(ps), "--threads 1", 2)), ps, False))
    rows = []
    for name, commands, size, follows in matches:
        ours, theirs = commands()
        folder = Path(args.out) / name.replace(" ", "-")
        start = seconds(size) if follows else None
        us, them, spent, moves = decided_match(args, ours, theirs, size, folder, quiet, start, clocks.get(name))
        games, wins = us.games - us.failures, us.wins - us.wins_by_failure
        low, high = wilson(wins, games)
        rows.append({
            "match": name, "games": games, "wins": wins, "win_rate": wins / games if games else 0.0,
            "ci_low": low, "ci_high": high, "no_contest": us.failures, "target": TARGETS.get(name, ""),
            "ours": ours, "theirs": theirs, "threads": [threads(ours), threads(theirs)],
            "lost_on_time": [us.time_losses, them.time_losses],
            "s_per_move": spent[0] / moves[0] if moves[0] else None,
            "opponent_s_per_move": spent[1] / moves[1] if moves[1] else None,
        })
    if args.json:
        print(json.dumps({"gnugo_seconds_per_move": per_move, "matches": rows}))
        return 0
    print(f"{'match':36}{'threads':>9}{'games':>7}{'wins':>7}{'win rate':>10}{'95% interval':>18}{'s/move':>9}"
          f"{'opp s/move':>12}{'target':>20}{'no contest':>12}{'lost on time':>14}")
    for r in rows:
        mine = f"{r['s_per_move']:.2f}" if r["s_per_move"] is not None else "-"
        opp = f"{r['opponent_s_per_move']:.2f}" if r["opponent_s_per_move"] is not None else "-"
        interval = f"[{r['ci_low']:.1%}, {r['ci_high']:.1%}]"
        sides = "{}/{}".format(*r["threads"])
        on_time = "{}/{}".format(*r["lost_on_time"])
        print(f"{r['match']:36}{sides:>9}{r['games']:>7}{r['wins']:>7g}{r['win_rate']:>10.1%}"
              f"{interval:>18}{mine:>9}{opp:>12}{r['target']:>20}{r['no_contest']:>12}{on_time:>14}")
    print("threads and lost on time: ours/theirs")
    for size, s in sorted(per_move.items()):
        print(f"GnuGo's own time on {size}x{size}, measured in this run: {s:.3f} s a move")
    return 0


if __name__ == "__main__":
    from shapemill.errors import ShapemillError

    try:
        sys.exit(main())
    except ShapemillError as e:  # a games folder of another match, a program that will not start
        sys.exit(f"strength.py: {e}")

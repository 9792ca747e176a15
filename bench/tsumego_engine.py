"""The engine's first move on framed book problems, beside GnuGo 3.8's, in one run.

    python bench/tsumego_engine.py [--per-level 20] [--seconds 2] [--seed 1] [--levels beg,int]
                                   [--no-gnugo] [--read-life] [--show] [--set NAME=VALUE ...]

A seeded sample of each level of ``../shared/data/tsumego/problems.jsonl.gz`` (drawn as
``bench/tsumego.py`` draws it), each read as ``solve`` reads a problem with no goal
(``engine.solve.tsumego``) and placed on the whole board with the rest settled
(``engine.solve.frame``: the attacker's living area around the problem, the defender's
beyond, a komi by which the attacker wins by 2.5 points if the group dies). Both engines
get the framed position by ``loadsgf`` and one ``genmove`` for the side the book puts to
play: shapemill's ``gtp`` (the bundled table, one thread, ``--seconds`` a move, never
resigning: a problem asks for the best try), and GnuGo
(``--level 10``, its own time). A move is counted as the book's when it is one of the
book's first moves. Prints per level and engine: problems, book first moves, median and
worst seconds. ``--set`` changes one of shapemill's search settings (``engine/settings.py``,
by its name: ``--set rave_equiv=300 --set prior_n=60``), as a lever is measured here before
it is played in games."""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tsumego import LEVELS, PROBLEMS, sample

from shapemill.engine.frontends.gtp import GtpEngine
from shapemill.engine.frontends.match import GtpClient
from shapemill.engine.search import SearchConfig
from shapemill.engine.settings import BY_NAME, check_value
from shapemill.engine.solve.frame import frame_problem
from shapemill.engine.solve.tsumego import read_tsumego
from shapemill.errors import ShapemillError
from shapemill.go.vertices import format_sgf_point, format_vertex, parse_sgf_point
from shapemill.patterns.defaults import RATINGS, default_table
from shapemill.patterns.knowledge import Knowledge

GNUGO = "/usr/games/gnugo --mode gtp --level 10"


def framed_sgf(p: dict) -> tuple[str, float] | None:
    """The framed problem as an SGF game (setup stones, side to play, komi), and its komi;
    None when the problem cannot be read."""
    size = p["size"]
    black = [parse_sgf_point(s, size) for s in p["black"]]
    white = [parse_sgf_point(s, size) for s in p["white"]]
    try:
        framed = frame_problem(size, black, white, read_tsumego(size, black, white))
    except ShapemillError:
        return None

    def points(stones):
        return "".join(f"[{format_sgf_point(q, size)}]" for q in stones)

    sgf = (f"(;GM[1]FF[4]SZ[{size}]KM[{framed.komi:g}]RU[Chinese]PL[{p['to_play'].upper()}]"
           f"AB{points(framed.black)}AW{points(framed.white)})")
    return sgf, framed.komi


def ask(send, sgf_path: Path, komi: float, mover: str) -> tuple[str, float]:
    """One engine's move in the framed position (through ``send``, a GTP line to its answer) and its seconds."""
    send(f"loadsgf {sgf_path}")
    send(f"komi {komi:g}")
    start = time.perf_counter()
    move = send(f"genmove {mover}").strip().upper()
    return move, time.perf_counter() - start


def settings(pairs: list[str]) -> dict:
    """``--set``'s search settings by name, each read as its declaration's kind and checked
    as the command line checks it (``engine.settings``); a bad one ends the run in one line."""
    out = {}
    for pair in pairs:
        name, _, text = pair.partition("=")
        s = BY_NAME.get(name)
        if s is None:
            sys.exit(f"--set {pair}: no search setting {name!r} (engine/settings.py)")
        try:
            value = {"true": True, "false": False}.get(text.lower(), text) if s.kind is bool else s.kind(text)
        except ValueError:
            value = text
        reason = check_value(s, value)
        if reason:
            sys.exit(f"--set {pair}: {reason}")
        out[name] = value
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-level", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=2.0, help="shapemill's seconds a move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--levels", default="beginner,intermediate")
    parser.add_argument("--no-gnugo", action="store_true")
    parser.add_argument("--read-life", action="store_true", help="shapemill gtp --read-life (df-pn before a genmove)")
    parser.add_argument("--show", action="store_true", help="a row per problem")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a search setting of shapemill's (engine/settings.py, e.g. rave_equiv=300)")
    args = parser.parse_args()
    wanted = [w.strip().lower()[:3] for w in args.levels.split(",")]
    levels = tuple(level for level in LEVELS if level.split()[-1].lower()[:3] in wanted
                   or level.lower()[:3] in wanted)
    knowledge = Knowledge.load(default_table(RATINGS))
    # a problem asks for the best try: no resigning where the engine reads the side to play as lost
    ours = GtpEngine(SearchConfig(time_per_move=args.seconds, threads=1, resign=0.0,
                                    read_life=args.read_life, **settings(args.set)), 19, knowledge)

    def our_send(line: str) -> str:
        answer, _ = ours.handle(line)
        return answer[2:] if answer.startswith("= ") else answer

    gnugo = None if args.no_gnugo else GtpClient(GNUGO)
    results: dict[str, dict[str, list]] = {}
    with tempfile.TemporaryDirectory(prefix="tsumego-engine-") as folder:
        for i, p in enumerate(sample(PROBLEMS, args.per_level, args.seed, levels=levels)):
            framed = framed_sgf(p)
            if framed is None:
                continue
            path = Path(folder) / f"{i}.sgf"
            path.write_text(framed[0], encoding="utf-8")
            book = {format_vertex(parse_sgf_point(s, p["size"])) for s in p["correct"]}
            engines = {"shapemill": our_send, **({"gnugo": gnugo.send} if gnugo else {})}
            for name, send in engines.items():
                move, seconds = ask(send, path, framed[1], p["to_play"].lower())
                results.setdefault(p["level"], {}).setdefault(name, []).append((move in book, seconds))
                if args.show:
                    verdict = "book" if move in book else "book: " + "/".join(sorted(book))
                    print(f"{p['level']} {p.get('id', i)} {name}: {move} ({verdict}) {seconds:.1f} s", flush=True)
    if gnugo:
        gnugo.close()
    print(f"framed problems, {args.per_level} a level (seed {args.seed}); shapemill {args.seconds:g} s a move, "
          f"one thread{', --read-life' if args.read_life else ''}{''.join(', ' + a for a in args.set)}; "
          "GnuGo 3.8 level 10")
    print("| level | engine | problems | book first move | median s | worst s |")
    print("|---|---|---|---|---|---|")
    for level, by_engine in results.items():
        for name, rows in by_engine.items():
            hits = sum(1 for ok, _ in rows if ok)
            secs = [s for _, s in rows]
            print(f"| {level} | {name} | {len(rows)} | {hits} ({hits / len(rows):.0%}) | "
                  f"{statistics.median(secs):.2f} | {max(secs):.2f} |")


if __name__ == "__main__":
    sys.exit(main())

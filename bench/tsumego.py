"""`solve` and GnuGo 3.8 on the books' life-and-death problems, in one run.

    python bench/tsumego.py [--per-level 10] [--seconds 5] [--seed 0] [--no-gnugo]
                            [--levels beginner,intermediate,advanced,hashimoto] [--nodes N]
                            [--no-hints] [--no-frame] [--no-wall] [--margin N] [--priors]
                            [--max-empties N] [--others] [--show]

A seeded sample of each level of ``../shared/data/tsumego/problems.jsonl.gz`` (the
problem alone: side to move and stones). Each problem is read as ``solve`` reads it with
no goal (``engine.solve.tsumego``: attacker, group at stake, region, cropped board), then
solved by df-pn within ``--seconds`` and ``--nodes``. Per level: problems; proved with a
book first move (df-pn's, or else a book move that df-pn then proves wins too, each within
twice the proof's nodes plus 10,000: ``solve`` lists every winning first move); proved
with another first move only (counted apart, not as correct); ko
(the side that loses wins with a ko threat for every ko, ``solve``'s ``run.ko_turns``;
in brackets those whose first move, the side to move's with those threats, is the
book's); proved the other way (the reading or the region is wrong: the side to move
fails); unknown within the budget; unread (the reading refused the problem); median and
worst seconds. GnuGo answers the same problems
in the same run: the same group, ``owl_attack`` when the attacker moves, ``owl_defend``
when the defender does (on the open board, not in the region); its move and seconds are
counted the same way ("fails": owl says the side to move cannot reach its aim; a result
of ko, GnuGo's codes 2 and 3, is reported as ko, its move checked likewise; another move
than the book's counts as the book's when ``owl_does_attack``/``owl_does_defend`` says
the book's move works too). ``--no-hints`` starts df-pn's children
at 1 and 1, ``--no-frame`` leaves the empty points off the region empty (a way out, as
before the frame) instead of the attacker's stones, ``--margin N`` takes the region
``N`` steps past the stones' box (``ESCAPE_LINES``, 1), ``--no-wall`` keeps the region's
points behind the attacker's wall and its links (the region before the wall's cut),
``--priors`` orders its moves by
the bundled ratings; ``--others`` lists, where the side to move wins outright, every winning
first move the book does not give (as ``solve`` lists them) and asks GnuGo's owl whether
each works on the open board (the issue's check of the proved moves a book does not list);
``--show`` prints a row per problem."""

from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import time
from pathlib import Path

from shapemill.engine.frontends.match import GtpClient
from shapemill.engine.solve.dfpn import Dfpn, dfpn
from shapemill.engine.solve.position import make_problem
from shapemill.engine.solve.run import FIRST_MOVE_NODES, book_answer, first_moves, time_left
from shapemill.engine.solve.tsumego import ESCAPE_LINES, crop, read_tsumego
from shapemill.errors import ShapemillError
from shapemill.go.rules import PASS
from shapemill.go.vertices import flat_index, format_vertex, parse_sgf_point, point_at

PROBLEMS = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "tsumego" / "problems.jsonl.gz"
LEVELS = ("Tsumego Beginner", "Tsumego Intermediate", "Tsumego Advanced", "Hashimoto Utaro Tsumego")
GNUGO = "/usr/games/gnugo"


def sample(path: Path, per_level: int, seed: int, max_empties: int | None = None,
           levels: tuple[str, ...] = LEVELS) -> list[dict]:
    """``per_level`` problems of each level, drawn with ``seed`` (among those whose region
    holds at most ``max_empties`` empty points, if given)."""
    with gzip.open(path, "rt") as f:
        problems = [json.loads(line) for line in f]
    rng = random.Random(seed)
    out = []
    for level in levels:
        these = [p for p in problems if p["level"] == level and (max_empties is None or empties(p) <= max_empties)]
        out += rng.sample(these, min(per_level, len(these)))
    return out


def empties(p: dict) -> int:
    """Empty points of the problem's region (a large number when it is not read)."""
    size = p["size"]
    black = [parse_sgf_point(s, size) for s in p["black"]]
    white = [parse_sgf_point(s, size) for s in p["white"]]
    try:
        region = read_tsumego(size, black, white).region
    except ShapemillError:
        return 1 << 30
    return len(set(region) - set(black) - set(white))


def read_problem(p: dict, frame: bool = True, margin: int = ESCAPE_LINES, wall: bool = True) -> tuple:
    """Problem ``p`` as ``solve`` reads it with no goal: the reading (``read_tsumego``), the
    cropped board and the problem to kill or save the group at stake on it; ShapemillError
    when the reading refuses it."""
    size = p["size"]
    black = [parse_sgf_point(s, size) for s in p["black"]]
    white = [parse_sgf_point(s, size) for s in p["white"]]
    t = read_tsumego(size, black, white, margin=margin, wall=wall)
    small = crop(size, black, white, t, frame)
    return t, small, make_problem(small.size, small.black, small.white, p["to_play"].lower(), "kill",
                                  [small.target], small.region)


def solve_one(p: dict, seconds: float, hints: bool = True, nodes: int = 10**9, prior=None,
              frame: bool = True, margin: int = ESCAPE_LINES, wall: bool = True, others: bool = False) -> dict:
    """Our answer to problem ``p``: outcome ('book', 'other', 'ko', 'wrong', 'unknown',
    'unread'), the move, seconds, and the reading. ``solve``'s flow (``run.book_answer``),
    its first moves sought among the book's; with ``others``, where the side to move wins
    outright, also the winning first moves the book does not give (``run.first_moves``
    over every move, within the same seconds again)."""
    size = p["size"]
    mover = p["to_play"].lower()
    book = {format_vertex(parse_sgf_point(s, size)) for s in p["correct"]}
    start = time.perf_counter()
    try:
        t, small, problem = read_problem(p, frame, margin, wall)
    except ShapemillError as e:
        return {"outcome": "unread", "move": None, "seconds": 0.0, "why": str(e), "book": book}
    problem.prior = prior
    solver = Dfpn(problem, hints)
    r = solver.solve(problem, nodes, seconds)
    points = (parse_sgf_point(s, size) for s in p["correct"])
    moved = [(row - small.offset[0], col - small.offset[1]) for row, col in points]
    among = {flat_index(q, small.size) for q in moved if 0 <= min(q) and max(q) < small.size}
    answer = book_answer(problem, t, mover, r, time_left(start, seconds), small.offset, solver, among)
    status, moves = answer["status"], answer["moves"]
    wins = r.value is not None and (r.value == 1) == (mover == "b")  # under superko
    if status in ("unknown", "ko"):
        outcome = status
    else:
        outcome = "wrong" if not wins else "book" if moves else "other"
    move = moves[0] if moves else _vertex(r.move, small) if wins else None
    took = time.perf_counter() - start
    extra = []
    if others and outcome in ("book", "other"):
        found = first_moves(problem, 2 * r.nodes + FIRST_MOVE_NODES, seconds, None, solver, r.move)
        extra = sorted({_vertex(q, small) for q in found} - book - {None})
    return {"outcome": outcome, "move": move, "seconds": took, "book": book, "reading": t, "others": extra}


def _vertex(move: int | None, small) -> str | None:
    """The problem's vertex of a move on the cropped board (None for none or a pass)."""
    if move is None or move == PASS:
        return None
    row, col = point_at(move, small.size)
    return format_vertex((row + small.offset[0], col + small.offset[1]))


def gnugo_one(gnugo: GtpClient, p: dict, target: tuple[int, int] | None) -> dict:
    """GnuGo's owl answer for the same group: outcome ('book', 'other', 'ko', 'fails'), move, seconds."""
    size = p["size"]
    book = {format_vertex(parse_sgf_point(s, size)) for s in p["correct"]}
    _set_up(gnugo, p)
    if target is None:
        return {"outcome": "unread", "move": None, "seconds": 0.0}
    mover = p["to_play"].lower()
    defender = _color_at(p, target)
    command = "owl_defend" if mover == defender else "owl_attack"
    start = time.perf_counter()
    words = gnugo.send(f"{command} {format_vertex(target)}").split()
    took = time.perf_counter() - start
    code = int(words[0]) if words else 0
    move = words[1].upper() if len(words) > 1 else None
    if code == 0:
        outcome = "fails"
    elif code in (2, 3):
        outcome = "ko"
    else:
        outcome = "book" if move in book else "other"
    if outcome == "other":  # owl names one move: does the book's work too?
        for vertex in sorted(book):
            answer = gnugo.send(f"{command.replace('_', '_does_')} {vertex} {format_vertex(target)}").split()
            if answer and answer[0] == "1":
                outcome, move = "book", vertex
                break
    return {"outcome": outcome, "move": move, "seconds": took, "book": book}


def gnugo_works(gnugo: GtpClient, p: dict, target: tuple[int, int], moves: list[str]) -> list[bool]:
    """For each of ``moves`` (the side to move's), whether GnuGo's owl says it reaches the side's
    aim for the group of ``target`` (``owl_does_attack`` / ``owl_does_defend``), on the open board."""
    _set_up(gnugo, p)
    command = "owl_does_defend" if p["to_play"].lower() == _color_at(p, target) else "owl_does_attack"
    return [gnugo.send(f"{command} {m} {format_vertex(target)}").split()[:1] == ["1"] for m in moves]


def _set_up(gnugo: GtpClient, p: dict) -> None:
    """Problem ``p``'s stones on GnuGo's empty board of its size."""
    size = p["size"]
    gnugo.send(f"boardsize {size}")
    gnugo.send("clear_board")
    for color, key in (("black", "black"), ("white", "white")):
        for s in p[key]:
            gnugo.send(f"play {color} {format_vertex(parse_sgf_point(s, size))}")


def _color_at(p: dict, point: tuple[int, int]) -> str:
    size = p["size"]
    return "b" if any(parse_sgf_point(s, size) == point for s in p["black"]) else "w"


def summary(name: str, level: str, rows: list[dict]) -> str:
    n = len(rows)
    count = {k: sum(1 for r in rows if r["outcome"] == k) for k in
             ("book", "other", "wrong", "unknown", "unread", "ko", "fails")}
    ko_book = sum(1 for r in rows if r["outcome"] == "ko" and r["move"] in r.get("book", ()))
    secs = [r["seconds"] for r in rows if r["outcome"] != "unread"] or [0.0]
    return (f"| {level} | {name} | {n} | {count['book']} ({count['book'] / n:.0%}) | {count['other']} | "
            f"{count['ko']} ({ko_book}) | {count['wrong'] + count['fails']} | {count['unknown']} | {count['unread']} | "
            f"{statistics.median(secs):.2f} | {max(secs):.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problems", type=Path, default=PROBLEMS)
    parser.add_argument("--per-level", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=5.0, help="df-pn's seconds a problem")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--levels", default="beginner,intermediate,advanced,hashimoto",
                        help="levels to sample, by the start of a word of their name")
    parser.add_argument("--no-gnugo", action="store_true")
    parser.add_argument("--nodes", type=int, default=10**9,
                        help="df-pn's nodes for the root's proof, a budget the load does not change (the first "
                             "moves and the ko check get solve's budgets from the proof's nodes)")
    parser.add_argument("--priors", action="store_true",
                        help="order df-pn's moves by the bundled ratings table (solve --ratings)")
    parser.add_argument("--no-hints", action="store_true", help="df-pn's new children at 1 and 1")
    parser.add_argument("--no-frame", action="store_true",
                        help="empty points off the region stay empty (a way out) instead of the attacker's frame")
    parser.add_argument("--no-wall", action="store_true",
                        help="keep the region's points behind the attacker's wall and its links")
    parser.add_argument("--margin", type=int, default=ESCAPE_LINES,
                        help="steps from a defender's stone past the stones' box that are still the region")
    parser.add_argument("--max-empties", type=int, default=None, help="only problems whose region holds at most this")
    parser.add_argument("--others", action="store_true",
                        help="also list the winning first moves the book does not give, and GnuGo's owl on each")
    parser.add_argument("--show", action="store_true", help="a row per problem")
    args = parser.parse_args()
    problems = sample(args.problems, args.per_level, args.seed, args.max_empties,
                      tuple(v for v in LEVELS
                            if any(x.lower().startswith(w) for x in v.split() for w in args.levels.split(","))))
    warm = make_problem(5, [(1, 0), (1, 1), (0, 2), (1, 2)], [(0, 0)], "b", "kill", [(0, 0)])
    prior = None
    if args.priors:
        from shapemill.patterns.defaults import RATINGS, default_table
        from shapemill.patterns.prior import MovePrior

        prior = MovePrior(default_table(RATINGS))
        warm.prior = prior
    dfpn(warm, 1000)  # compile before the clock runs
    gnugo = None if args.no_gnugo else GtpClient(f"{GNUGO} --mode gtp", timeout=120)
    ours, theirs = {}, {}
    for p in problems:
        a = solve_one(p, args.seconds, not args.no_hints, args.nodes, prior, not args.no_frame, args.margin,
                      not args.no_wall, args.others)
        if a.get("others") and gnugo is not None:
            a["others_work"] = gnugo_works(gnugo, p, a["reading"].target, a["others"])
        ours.setdefault(p["level"], []).append(a)
        target = a["reading"].target if "reading" in a else None
        if gnugo is not None:
            g = gnugo_one(gnugo, p, target)
            theirs.setdefault(p["level"], []).append(g)
        if args.show:
            g_text = f"gnugo {g['outcome']} {g['move']} {g['seconds']:.2f}s" if gnugo else ""
            extra = "" if not a.get("others") else f" others {a['others']} (owl: {a.get('others_work', '-')})"
            print(f"{p['id']} {p['to_play']} book {sorted(a['book'])}: {a['outcome']} {a['move']} "
                  f"{a['seconds']:.2f}s {a.get('why', '')} {g_text}{extra}", flush=True)
    print(f"seed {args.seed}, {args.per_level} a level, df-pn {args.seconds:g} s and {args.nodes:,} nodes a problem"
          + ("" if args.max_empties is None else f", regions of at most {args.max_empties} empty points")
          + (", no hints" if args.no_hints else "") + (", no frame" if args.no_frame else "")
          + (", no wall" if args.no_wall else "")
          + (f", margin {args.margin}" if args.margin != ESCAPE_LINES else "")
          + (", moves ordered by the ratings" if args.priors else ""))
    print("| level | solver | problems | book first move | other first move | ko (book move) | fails or wrong | "
          "unknown | unread | median s | worst s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for level in LEVELS:
        if level in ours:
            print(summary("solve (df-pn)", level, ours[level]))
            if gnugo is not None:
                print(summary("GnuGo 3.8 owl", level, theirs[level]))
    if args.others:
        print("| level | problems won outright | winning first moves the book does not give | GnuGo's owl: they work | "
              "they fail |")
        print("|---|---|---|---|---|")
        for level in LEVELS:
            if level in ours:
                won = [r for r in ours[level] if r["outcome"] in ("book", "other")]
                extra = sum(len(r["others"]) for r in won)
                works = sum(sum(r.get("others_work", [])) for r in won)
                checked = sum(len(r.get("others_work", [])) for r in won)
                print(f"| {level} | {len(won)} | {extra} | {works if checked else '-'} | "
                      f"{checked - works if checked else '-'} |")
    if gnugo is not None:
        gnugo.send("quit")


if __name__ == "__main__":
    main()

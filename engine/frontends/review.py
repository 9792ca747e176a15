"""``shapemill review``: one game held against the knowledge, move by move.

For every move: its rank and probability under the ratings table (``Knowledge``), its
surprise ``-ln p``, the table's three best; with a search, the win rate and the score of
the side to move before the move and after it (the drop is the move's cost). Written as
text, one strict JSON object, a plot, or the game again as SGF with a comment, labels and
marks per move and a summary at the root.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace

import numpy as np
from sgfmill import sgf

from ...datasets.sgf_game import GameLine, apply_setup, read_game_line, text_value
from ...errors import ShapemillError
from ...files import atomic_path, check_writable, display_name, output_errors
from ...go import rules
from ...go.board import Board
from ...go.vertices import format_vertex, parse_vertex
from ...patterns.knowledge import Knowledge, likeliest
from ...plots import pyplot, save_png
from ...progress import progress_bar, ticker
from ..search import Search, SearchConfig

#: The largest board a review serves: the rules', which the tables' features serve too.
MAX_SIZE = rules.MAX_SIZE
#: The alternatives shown per move, and the moves listed in the root summary per player.
BEST, LISTED = 3, 10
#: Labels of the table's best moves in the annotated SGF, best first.
LABELS = "ABC"


@dataclass
class MoveReview:
    """One move as the table (and the search) saw it; win rates and scores are the
    mover's (None without a search)."""

    number: int
    colour: str
    move: str
    rank: int
    probability: float
    surprise: float
    best: list[tuple[str, float]]
    winrate_before: float | None = None
    winrate_after: float | None = None
    score_before: float | None = None
    score_after: float | None = None

    @property
    def cost(self) -> float | None:
        """The win rate the move lost (None without a search)."""
        return None if self.winrate_after is None else self.winrate_before - self.winrate_after


@dataclass
class GameReview:
    """A reviewed game: its moves up to the end or to the first illegal one (``stopped``),
    and what was skipped in reading it (``warnings``)."""

    path: str
    size: int
    komi: float
    players: dict[str, str]
    moves: list[MoveReview] = field(default_factory=list)
    stopped: str | None = None
    warnings: list[str] = field(default_factory=list)

    def summary(self, colour: str) -> dict:
        """One player's agreement with the table (top 1, top 5), mean surprise, most
        surprising and (with a search) costliest moves."""
        mine = [m for m in self.moves if m.colour == colour]
        n = len(mine)
        costly = [m for m in mine if m.cost is not None]
        return {
            "player": self.players[colour],
            "moves": n,
            "top1": sum(m.rank == 1 for m in mine) / n if n else None,
            "top5": sum(1 <= m.rank <= 5 for m in mine) / n if n else None,
            "mean_surprise": float(np.mean([m.surprise for m in mine])) if n else None,
            "surprising": [m.number for m in sorted(mine, key=lambda m: -m.surprise)[:LISTED]],
            "costliest": [m.number for m in sorted(costly, key=lambda m: -m.cost)[:LISTED]] if costly else [],
        }

    def as_json(self) -> str:
        """The review as one strict JSON object (no NaN, no infinity)."""
        rows = []
        for m in self.moves:
            row = asdict(m)
            row["best"] = [{"move": v, "probability": p} for v, p in m.best]
            row["cost"] = m.cost
            rows.append(row)
        return json.dumps({"file": self.path, "size": self.size, "komi": self.komi, "players": self.players,
                           "stopped": self.stopped, "warnings": self.warnings, "moves": rows,
                           "summary": {c: self.summary(c) for c in "bw"}}, allow_nan=False)


def read_game(path: str) -> GameLine:
    """The SGF game at ``path`` read for replaying (``datasets.sgf_game``); a file that
    cannot be read, is no SGF or has a board review does not serve is a one-line error."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise ShapemillError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        line = read_game_line(data, MAX_SIZE)
    except ValueError as exc:
        raise ShapemillError(f"{path}: not an SGF game review serves ({exc})") from None
    if not line.moves:
        raise ShapemillError(f"{path}: the game has no moves to review")
    return line


def review_game(path: str, knowledge: Knowledge, config: SearchConfig | None = None,
                line: GameLine | None = None, progress: Callable[[int], None] | None = None) -> GameReview:
    """Review the main line of the SGF game at ``path`` with ``knowledge`` and, with
    ``config``, a search of every position (its komi the game's, 0 without one). Setup
    stones apply where they stand; an illegal move ends the review there (``stopped``
    says which and why). ``progress`` hears each move reviewed."""
    line = line or read_game(path)
    komi = 0.0 if line.komi is None else line.komi
    review = GameReview(display_name(path), line.size, komi, line.players, warnings=list(line.warnings))
    board = Board(line.size)
    search = Search(replace(config, komi=komi), knowledge) if config is not None else None
    before = None
    number = 0
    for step in line.steps:
        board = apply_setup(board, step.setup)
        if step.colour is None:
            before = None  # the position changed: searched again before the next move
            continue
        colour, point = step.colour, step.point
        number += 1
        reason = board.illegal_reason(colour, point)
        if reason:
            review.stopped = f"move {number} ({colour.upper()} {format_vertex(point)}) is illegal: {reason}"
            break
        if search and before is None:
            before = _searched(search, knowledge, board, colour)
        p = knowledge.probabilities(board, colour)
        prob = p.of(point)
        rank = p.rank(point, board.equivalent_points(point))
        row = MoveReview(number, colour, format_vertex(point), rank, prob, -math.log(prob), likeliest(p, BEST))
        board.play(colour, point)
        if search:
            after = _searched(search, knowledge, board, "w" if colour == "b" else "b")
            row.winrate_before, row.score_before = before
            row.winrate_after, row.score_after = 1 - after[0], -after[1]
            before = after
        review.moves.append(row)
        if progress is not None:
            progress(1)
    if not review.moves:
        raise ShapemillError(f"{path}: {review.stopped}; no move to review")
    return review


def _searched(search: Search, knowledge: Knowledge, board: Board, colour: str) -> tuple[float, float]:
    """The search's win rate and score (the playouts' mean, komi counted) for ``colour`` to move."""
    c = rules.BLACK if colour == "b" else rules.WHITE
    prior, tree = search.priors(board, c)
    result = search.run(board, c, prior, tree)
    black_lead = float(result.owner.sum()) - search.config.komi
    return result.winrate, black_lead if colour == "b" else -black_lead


def _comment(m: MoveReview) -> str:
    best = ", ".join(f"{label} {v} {p:.1%}" for label, (v, p) in zip(LABELS, m.best))
    text = (f"Move {m.number} {m.colour.upper()} {m.move}: rank {m.rank}, probability {m.probability:.1%}, "
            f"surprise {m.surprise:.2f}. The table's best: {best}.")
    if m.cost is not None:
        text += (f" Win rate {m.winrate_before:.1%} -> {m.winrate_after:.1%} (cost {m.cost:+.1%}), "
                 f"score {m.score_before:+.1f} -> {m.score_after:+.1f}.")
    return text


def summary_text(review: GameReview) -> str:
    """The per-player summary, as the root comment and the text report end with it."""
    lines = []
    by_number = {m.number: m for m in review.moves}
    for c, name in (("b", "Black"), ("w", "White")):
        s = review.summary(c)
        if not s["moves"]:
            continue
        lines.append(f"{name} {s['player']}: {s['moves']} moves, top-1 {s['top1']:.1%}, top-5 {s['top5']:.1%}, "
                     f"mean surprise {s['mean_surprise']:.2f}")
        lines.append("  most surprising: " + ", ".join(
            f"{n} {by_number[n].move} ({by_number[n].probability:.2%})" for n in s["surprising"]))
        if s["costliest"]:
            lines.append("  costliest: " + ", ".join(
                f"{n} {by_number[n].move} ({by_number[n].cost:+.1%})" for n in s["costliest"]))
    if review.stopped:
        lines.append(f"Stopped: {review.stopped}.")
    return "\n".join(lines)


def annotate(line: GameLine, review: GameReview) -> bytes:
    """The game with each reviewed move's comment, the table's best moves as labels
    A, B, C, a triangle on each player's ten most surprising moves, and the summary
    at the root; comments already there are kept above."""
    marked = {n for c in "bw" for n in review.summary(c)["surprising"]}
    game = line.game
    for step, m in zip(line.moves, review.moves):
        node = step.node
        _add_comment(game, node, _comment(m))
        labels = [(parse_vertex(v, review.size), label) for label, (v, _) in zip(LABELS, m.best) if v != "pass"]
        if labels:
            node.set("LB", labels)
        point = parse_vertex(m.move, review.size)
        if m.number in marked and point is not None:
            node.set("TR", {point})
    _add_comment(game, game.get_root(), "shapemill review\n" + summary_text(review))
    return line.serialise()


def _add_comment(game: sgf.Sgf_game, node: sgf.Tree_node, text: str) -> None:
    old = text_value(game, node, "C")
    node.set("C", f"{old}\n\n{text}" if node.has_property("C") else text)


def text_report(review: GameReview) -> str:
    """The review as lines for a person: one per move, then the summary."""
    lines = [f"{review.path}: {review.size}x{review.size}, komi {review.komi:g}, "
             f"Black {review.players['b']}, White {review.players['w']}"]
    for m in review.moves:
        line = (f"{m.number:>4} {m.colour.upper()} {m.move:>4}  rank {m.rank:>3}  p {m.probability:6.1%}  "
                f"surprise {m.surprise:5.2f}  best " + " ".join(f"{v} {p:.0%}" for v, p in m.best))
        if m.cost is not None:
            line += f"  win {m.winrate_before:.0%}->{m.winrate_after:.0%}  score {m.score_before:+.1f}->{m.score_after:+.1f}"
        lines.append(line)
    return "\n".join([*lines, summary_text(review)])


def plot_review(review: GameReview, path: str) -> None:
    """The played move's probability by move number (and with a search Black's win rate) as a PNG."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4))
    for c, name, colour in (("b", "Black", "black"), ("w", "White", "grey")):
        mine = [m for m in review.moves if m.colour == c]
        ax.plot([m.number for m in mine], [m.probability for m in mine], "o", markersize=3, color=colour,
                label=f"{name}: probability of the move played")
    ax.set_yscale("log")
    ax.set_xlabel("move")
    ax.set_ylabel("probability under the table")
    if review.moves and review.moves[0].winrate_before is not None:
        win = ax.twinx()
        black = [m.winrate_after if m.colour == "b" else 1 - m.winrate_after for m in review.moves]
        win.plot([m.number for m in review.moves], black, color="tab:red", label="Black's win rate (search)")
        win.set_ylim(0, 1)
        win.set_ylabel("Black's win rate after the move")
        win.legend(loc="upper right", fontsize=8)
    ax.legend(loc="lower left", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    save_png(fig, path)


def run_review(path: str, ratings: str | None, output: str | None, config: SearchConfig | None, as_json: bool,
               plot: str | None, echo=print, quiet: bool = False) -> None:
    """``shapemill review``: review ``path``, print the report (text or JSON) and write
    the annotated SGF (``output``) and the plot (``plot``) when asked; a game that stops
    at an illegal move is reported up to it, then raises the reason. ``quiet``: no
    progress bar of the searched moves."""
    for out in (output, plot):
        if out:
            with output_errors(out):
                check_writable(out)
    line = read_game(path)
    for warning in line.warnings:
        print(f"warning: {path}: {warning}", file=sys.stderr, flush=True)
    bar = progress_bar(quiet or config is None, len(line.moves), "move", "review")  # the search's moves take long
    try:
        review = review_game(path, Knowledge.load(ratings), config, line, ticker(bar))
    finally:
        if bar is not None:
            bar.close()
    if output:
        with output_errors(output), atomic_path(output) as tmp:
            tmp.write_bytes(annotate(line, review))
    if plot:
        plot_review(review, plot)
    echo(review.as_json() if as_json else text_report(review))
    if review.stopped:
        raise ShapemillError(f"{path}: {review.stopped}; reviewed the {len(review.moves)} moves before it")

"""The ``shapemill`` command line: one click group, a command per stage.

Each command imports its stage lazily so that ``shapemill --help`` and
``shapemill gtp`` start fast.
"""

from __future__ import annotations

import math
import os
import shlex
import stat

import click

from . import __version__
from .errors import ShapemillError

#: The largest count any option takes (games, playouts, nodes, ...): kernels index with
#: 32-bit integers, and nothing real comes near it.
COUNT_MAX = 2**31 - 1
#: Seeds are numpy's and numba's 32-bit seeds.
SEED_MAX = 2**32 - 1
#: Processes and threads: more than any machine has cores, fewer than would exhaust one.
WORKERS_MAX = 256
#: Seconds any time option takes (11 days): longer waits overflow the timers beneath.
SECONDS_MAX = 1e6
#: Komi, in points, either way: far past any board's area.
KOMI_MAX = 1000.0
#: Weights and constants of the search (--c-ucb, --prior-n, ...).
WEIGHT_MAX = 1e6
#: Largest SGF file or archive member read, in MB (--max-member-mb).
MEMBER_MB_MAX = 1024.0


class Ranged(click.ParamType):
    """A finite number of ``kind`` (int or float) in ``[low, high]`` (``low`` excluded
    with ``low_open``): NaN, infinities and values out of range are usage errors (exit 2),
    refused when the options are parsed, before any work. Every numeric option has one."""

    def __init__(self, kind: type, low: float, high: float, low_open: bool = False) -> None:
        self.kind, self.low, self.high, self.low_open = kind, low, high, low_open
        self.name = "integer" if kind is int else "float"

    def convert(self, value, param, ctx):
        if isinstance(value, self.kind) and not isinstance(value, bool):
            number = value
        else:
            try:
                number = self.kind(str(value).strip())
            except ValueError:
                self.fail(f"{value!r} is not a valid {self.name}", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value} is not a finite number", param, ctx)
        if number < self.low or (self.low_open and number == self.low) or number > self.high:
            self.fail(f"{value} is not in the range {self._range()}", param, ctx)
        return number

    def _range(self) -> str:
        low, high = (f"{v:g}" if self.kind is float else str(v) for v in (self.low, self.high))
        return f"{low}{'<' if self.low_open else '<='}x<={high}"

    def get_metavar(self, param, ctx=None) -> str:
        return f"{self.name.upper()} {self._range()}".replace("x", "")


def ints(low: int = 0, high: int = COUNT_MAX) -> Ranged:
    """An integer option's type: ``low`` to ``high``."""
    return Ranged(int, low, high)


def floats(low: float = 0.0, high: float = WEIGHT_MAX, low_open: bool = False) -> Ranged:
    """A float option's type: finite, ``low`` (excluded with ``low_open``) to ``high``."""
    return Ranged(float, low, high, low_open)


SEED = ints(0, SEED_MAX)
WORKERS = ints(1, WORKERS_MAX)
SECONDS = floats(0.0, SECONDS_MAX, low_open=True)
KOMI = floats(-KOMI_MAX, KOMI_MAX)


class Input(click.ParamType):
    """A path to read: it must exist (else one line, exit 1, as for every missing input)
    and be a regular file, or a folder where ``dir_okay``; a FIFO or a device
    (``/dev/zero``) is refused, since reading one may never end."""

    name = "path"

    def __init__(self, dir_okay: bool = True) -> None:
        self.dir_okay = dir_okay

    def convert(self, value, param, ctx):
        from .files import special_kind

        try:
            mode = os.stat(value).st_mode
        except FileNotFoundError:
            raise ShapemillError(f"{value}: no such file or folder") from None
        except OSError as exc:
            raise ShapemillError(f"{value}: cannot read it ({exc.strerror or exc})") from None
        if stat.S_ISDIR(mode) and not self.dir_okay:
            raise ShapemillError(f"{value}: is a folder, expected a file")
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise ShapemillError(f"{value}: {special_kind(value)}, not a regular file; not reading it")
        return value


class Program(click.ParamType):
    """A command line that starts a GTP program: not empty, quotes closed."""

    name = "command"

    def convert(self, value, param, ctx):
        try:
            words = shlex.split(value)
        except ValueError as exc:
            self.fail(f"{value!r}: {exc} (unclosed quote?)", param, ctx)
        if not words:
            self.fail("an empty command line", param, ctx)
        return value


def _check_goal(ctx, param, value: str) -> list[str]:
    """``--goal``: a known goal and its points, as words."""
    from .engine.solve.position import GOALS

    words = value.split()
    if not words or words[0] not in GOALS:
        raise click.BadParameter(f"{value!r}: expected one of {', '.join(GOALS)}, then its points")
    return words


def _check_region(ctx, param, value: str | None) -> str | None:
    """``--region``: points and boxes (``A1-E4,F1``), at least one."""
    from .engine.solve.run import points_syntax

    if value is not None and not points_syntax(value):
        raise click.BadParameter(f"{value!r}: expected GTP points or boxes such as 'A1-E4,F1'")
    return value


def _check_scheduler(ctx, param, value: str | None) -> str | None:
    """``--scheduler``: ``local:N`` (N >= 1) or a scheduler address ``PROTOCOL://HOST:PORT``."""
    if value is None:
        return None
    n = value.removeprefix("local:") if value.startswith("local:") else None
    good = n.isdigit() and 1 <= int(n) <= WORKERS_MAX if n is not None else "://" in value and value.split("://", 1)[1]
    if not good:
        raise click.BadParameter(f"{value!r}: expected local:N (1..{WORKERS_MAX} workers) or tcp://HOST:PORT")
    return value


def _check_clock(ctx, param, value: str | None):
    """``match --clock``: ``M`` or ``M:B:S`` as ``engine.clock.parse_clock`` reads it, each
    number at most ``SECONDS_MAX``; the game clock (``TimeSettings``) or None."""
    if value is None:
        return None
    from .engine.clock import parse_clock

    try:
        settings = parse_clock(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None
    if max(settings.main, settings.period, settings.stones) > SECONDS_MAX:
        raise click.BadParameter(f"{value!r}: more than {SECONDS_MAX:g} seconds or stones")
    return settings


def _distinct(inputs, *outputs) -> None:
    """Refuse an output that is one of the inputs, or two outputs that are one file."""
    from .files import check_distinct

    check_distinct([p for p in inputs if p is not None], list(outputs))


class _Stages(click.Group):
    """The command group: a stage's ``ShapemillError`` becomes click's one-line error (exit 1),
    and Ctrl-C (also inside a numba kernel, which reports it as a ``SystemError``) one line
    naming the command it stopped (exit 1)."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except ShapemillError as exc:
            message = " ".join(str(exc).split()) or type(exc).__name__
            raise click.ClickException(message + (" (no reason given)" if message.endswith(":") else "")) from None
        except KeyboardInterrupt:
            raise click.ClickException(_interrupted(ctx.invoked_subcommand)) from None
        except SystemError as exc:
            if not _from_ctrl_c(exc):
                raise
            raise click.ClickException(_interrupted(ctx.invoked_subcommand)) from None


def _from_ctrl_c(exc: BaseException | None) -> bool:
    """Whether ``exc`` is numba's ``SystemError`` over Ctrl-C: its chain of causes (one
    ``SystemError`` per kernel the signal passed through) ends in a ``KeyboardInterrupt``."""
    seen = 0
    while exc is not None and seen < 1000:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def _interrupted(command: str) -> str:
    """The line that Ctrl-C gives: the command and what became of its output."""
    kept = "the game in play is not saved" if command == "match" else "nothing written"
    return f"{command}: interrupted (Ctrl-C); {kept}"


@click.group(cls=_Stages, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="shapemill")
def main() -> None:
    """Mine rated shape patterns from Go game archives, and play with them."""


@main.command()
@click.argument("paths", nargs=-1, required=True, type=Input())
@click.option("-o", "--output", required=True, type=click.Path(),
              help="The games table to write (Parquet), or with --partition-size the dataset folder.")
@click.option("--partition-size", type=ints(1), default=None,
              help="Write the games table as a partitioned dataset: a folder of part files of N games.")
@click.option("--errors", "errors_path", type=click.Path(dir_okay=False),
              help="Also write the errors table (source, kind, reason) here.")
@click.option("--size", default=19, show_default=True, type=ints(0, 25),
              help="Keep games on this board size only (0: any size).")
@click.option("--no-handicap", is_flag=True, help="Drop handicap games.")
@click.option("--min-moves", default=10, show_default=True, type=ints(0),
              help="Drop games with fewer moves (aborted games).")
@click.option("--test-fraction", default=0.1, show_default=True, type=floats(0, 1),
              help="Share of games whose id hashes into the test split.")
@click.option("--max-member-mb", default=10.0, show_default=True, type=floats(0, MEMBER_MB_MAX, low_open=True),
              help="Largest SGF file or archive member read (zip-bomb guard).")
@click.option("-j", "--workers", type=WORKERS, default=None,
              help="Worker processes (default: the CPU cores, at most 8).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no summary.")
def scan(paths, output, partition_size, errors_path, size, no_handicap, min_moves,
         test_fraction, max_member_mb, workers, quiet) -> None:
    """Read SGF files, folders, zip / tar archives into a games table.

    PATHS are SGF files (collections too), folders (searched recursively), zip
    or tar(.gz/.bz2/.xz) archives, in any mix. Only each game's main line is
    read. Unreadable files, illegal moves and the like are reported (summary and
    --errors table) and never stop the scan.
    """
    from .datasets.scan_command import run_scan

    _distinct(paths, output, errors_path)
    run_scan(
        paths, output, errors_path, size=size, no_handicap=no_handicap, min_moves=min_moves,
        test_fraction=test_fraction, max_bytes=int(max_member_mb * 1024 * 1024),
        workers=workers, quiet=quiet, partition_size=partition_size,
    )


@main.command()
@click.argument("games", nargs=-1, required=True, type=Input())
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="The patterns table to write (Parquet).")
@click.option("--min-count", default=50, show_default=True, type=ints(1),
              help="Keep a pattern larger than the smallest ring only if seen this often.")
@click.option("--max-size", default=361, show_default=True, type=int, callback=lambda ctx, param, value: _ring(value),
              help="Largest ring to grow (2..72), or 361 for the whole-board window.")
@click.option("--split", default="train", show_default=True,
              type=click.Choice(["train", "test", "all"]), help="Which games of the corpus to mine.")
@click.option("-j", "--workers", type=WORKERS, default=None,
              help="Worker processes (default: the CPU cores, at most 8); "
                   "the table does not depend on it.")
@click.option("--limit-games", type=ints(1), default=None, help="Mine the first N games only.")
@click.option("--discovery-games", default=2000, show_default=True, type=ints(1),
              help="Games sampled (spread over the corpus) to discover frequent large patterns.")
@click.option("--discovery-rounds", default=2, show_default=True, type=ints(0),
              help="Extra discovery rounds over the sample, each gated by the patterns found so far.")
@click.option("--discovery-shards", default=2, show_default=True, type=ints(1, WORKERS_MAX),
              help="Shards of the discovery sample, counted apart (in parallel) and summed; "
                   "the table depends on it, not on -j.")
@click.option("--scheduler", default=None, metavar="ADDRESS", callback=_check_scheduler,
              help="Mine on a Dask cluster: a scheduler's tcp://HOST:PORT, or local:N to start N local "
                   "workers (replaces -j; needs pip install 'shapemill[dask]').")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no summary.")
def mine(games, output, min_count, max_size, split, workers, limit_games, discovery_games, discovery_rounds,
         discovery_shards, scheduler, quiet) -> None:
    """Count the shape patterns of every legal move of every position.

    GAMES are games tables or partitioned datasets written by `scan` and/or SGF
    files, folders and archives (with --scheduler, tables and datasets only, read
    by the workers). Patterns are canonical under the 8 symmetries and relative to the
    player to move; the smallest ring is always kept, larger rings when seen at
    least --min-count times.
    """
    from .datasets.scanner import default_workers
    from .go.rings import MAX_RING
    from .miner.mine import MineParams
    from .miner.mine_command import WHOLE_BOARD, run_mine

    _distinct(games, output)
    max_ring = MAX_RING if max_size == WHOLE_BOARD else max_size
    params = MineParams(
        min_count=min_count, max_ring=max_ring, discovery_games=discovery_games, discovery_rounds=discovery_rounds,
        discovery_shards=discovery_shards,
    )
    run_mine(list(games), output, params, split, workers or default_workers(), limit_games, quiet, scheduler)


def _ring(value: int) -> int:
    """``--max-size``: a ring 2..MAX_RING, or the whole board; anything else is refused."""
    from .go.rings import MAX_RING, MIN_RING
    from .miner.mine_command import WHOLE_BOARD

    if not (MIN_RING <= value <= MAX_RING or value == WHOLE_BOARD):
        raise click.BadParameter(f"{value} is not a ring {MIN_RING}..{MAX_RING}, nor {WHOLE_BOARD} (the whole board)")
    return value


@main.command()
@click.argument("table", required=False, type=Input(dir_okay=False))
@click.option("--top", default=10, show_default=True, type=ints(1), help="How many rows to show.")
@click.option("--size", type=ints(2, 361), default=None, help="Only patterns of this ring.")
@click.option("--sort", default="played", show_default=True, type=click.Choice(["played", "p_played", "seen"]),
              help="Order of the patterns shown.")
@click.option("--svg", "svg_dir", type=click.Path(file_okay=False), default=None,
              help="Also write one SVG picture per pattern shown into this folder (patterns and ratings tables).")
@click.pass_context
def show(ctx: click.Context, table, top, size, sort, svg_dir) -> None:
    """Print a patterns table's patterns, or a ratings table's highest and lowest
    rated features, as board diagrams with their counts.

    TABLE defaults to the bundled patterns table. X is a stone of the player to
    move, O an opponent stone, # off the board, * the candidate move. Pattern ids
    are printed as the tables store them (decimal) and in hex; tactical features
    with their level's meaning (the 3x3 neighbourhood drawn).
    """
    from .patterns.defaults import PATTERNS
    from .patterns.show import show_patterns, show_ratings
    from .patterns.tables import TableError, read_metadata, read_table

    given_table = table
    table = _table_or_bundled(table, PATTERNS)
    try:
        kind = "ratings" if read_metadata(table).get("kind") == "ratings" else "patterns"
        data, _ = read_table(table, kind)
    except TableError as exc:
        raise click.ClickException(str(exc)) from None
    if kind == "ratings":
        from .miner.features.words import level_words

        given = [f"--{name}" for name in ("size", "sort") if ctx.get_parameter_source(name) != click.core.ParameterSource.DEFAULT]
        if given:
            raise click.UsageError(f"{', '.join(given)}: for a patterns table; {table} is a ratings table")
        click.echo(show_ratings(data, top, level_words, svg_dir))
        return
    click.echo(show_patterns(data, top, size, sort, svg_dir, given_table))


@main.command()
@click.argument("table", required=False, type=Input())
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def info(table, as_json) -> None:
    """What a table is: kind, where it came from (games, fingerprint, positions,
    command, version), its size and its measured accuracy when it holds one.

    TABLE (a file or a partitioned dataset folder) defaults to the bundled ratings table.
    """
    import json

    from .patterns.defaults import RATINGS
    from .patterns.info import describe, table_info
    from .patterns.tables import TableError

    try:
        found = table_info(_table_or_bundled(table, RATINGS))
    except TableError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps(found) if as_json else describe(found))


@main.command()
@click.argument("games", nargs=-1, required=True, type=Input())
@click.option("--patterns", "patterns_path", required=True, type=Input(dir_okay=False),
              help="The patterns table written by `mine`.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="The ratings table to write (Parquet).")
@click.option("--max-iter", default=30, show_default=True, type=ints(1), help="Most MM sweeps.")
@click.option("--tol", default=1e-4, show_default=True, type=floats(0, 1),
              help="Stop when the log-likelihood per position gains less than this.")
@click.option("--split", default="train", show_default=True, type=click.Choice(["train", "test", "all"]))
@click.option("--max-positions", default=2_000_000, show_default=True, type=ints(1),
              help="Positions sampled (uniformly, seeded) from the games for the fit.")
@click.option("--limit-games", type=ints(1), default=None, help="Use the first N games only.")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Seed of the position sample.")
@click.option("--max-memory", type=floats(0, WEIGHT_MAX, low_open=True), default=None, metavar="GB",
              help="Sample as many positions (at most --max-positions) as fit in this much memory at the peak.")
@click.option("-j", "--workers", type=WORKERS, default=None,
              help="Threads that build the positions and share each MM sweep (default: the CPU cores, at most 8).")
def rate(games, patterns_path, output, max_iter, tol, split, max_positions, limit_games, seed, max_memory,
         workers) -> None:
    """Fit Bradley-Terry / Elo ratings of every pattern and feature (Coulom's MM).

    Each sampled position is a competition among its legal moves and the pass;
    a move's team is its largest known pattern plus its tactical feature levels.
    """
    from .datasets.scanner import default_workers
    from .miner.rate_command import run_rate

    _distinct([*games, patterns_path], output)
    run_rate(
        list(games), patterns_path, output, max_iter, tol, split, max_positions, limit_games, seed,
        workers or default_workers(), max_memory,
    )


@main.command()
@click.argument("games", nargs=-1, required=True, type=Input())
@click.option("--ratings", type=Input(dir_okay=False),
              help="The ratings table of `rate` (default: the bundled one).")
@click.option("--split", default=None, type=click.Choice(["train", "test", "all"]),
              help="Which games to evaluate (default: a games table's test split; every game of SGF input).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="Draw the cumulative accuracy curve (k = 1..30) to this PNG (needs matplotlib).")
@click.option("--max-positions", type=ints(1), default=None, help="Evaluate a seeded sample of positions.")
@click.option("--limit-games", type=ints(1), default=None, help="Use the first N games only.")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Seed of the position sample.")
@click.option("-j", "--workers", type=WORKERS, default=None,
              help="Threads that build the positions (default: the CPU cores, at most 8).")
def evaluate(games, ratings, split, as_json, plot, max_positions, limit_games, seed, workers) -> None:
    """Move-prediction accuracy of a ratings table on held-out games.

    Prints top-1, top-5, top-10 accuracy and the mean log-likelihood of the
    move played, overall and by move-number band.
    """
    from .datasets.scanner import default_workers
    from .miner.rate_command import run_evaluate
    from .patterns.defaults import RATINGS

    _distinct([*games, ratings], plot)
    run_evaluate(
        list(games), _table_or_bundled(ratings, RATINGS), split, as_json, plot, max_positions, limit_games, seed,
        workers or default_workers(),
    )


@main.command()
@click.argument("games", nargs=-1, required=True, type=Input())
@click.option("--sgf", "sgf", type=Input(dir_okay=False), default=None,
              help="The fragment: an SGF position (setup stones and/or moves; the position after the last).")
@click.option("--region", default=None, metavar="A1:G7",
              help="The rectangle searched (default: the SQ marks, else the stones' box grown by one).")
@click.option("--pattern-id", default=None, metavar="ID",
              help="A mined shape instead of a fragment: hex as `show` prints it, or decimal as stored.")
@click.option("--patterns", "patterns_path", type=Input(dir_okay=False), default=None,
              help="The patterns table of --pattern-id (default: the bundled one).")
@click.option("--anywhere", is_flag=True, help="Also match the region moved anywhere it fits (edges kept).")
@click.option("--no-symmetry", is_flag=True, help="Match in the fragment's orientation only.")
@click.option("--no-color-swap", is_flag=True, help="Do not match with colours swapped.")
@click.option("--next", "next_color", default="any", show_default=True, type=click.Choice(["b", "w", "any"]),
              help="Keep positions with this colour to move (the query's colours).")
@click.option("--moves", default=None, metavar="FROM:TO", help="Keep hits at these move numbers.")
@click.option("--player", default=None, help="Keep games where a player's name contains this.")
@click.option("--since", default=None, metavar="DATE", help="Keep games dated on or after DATE (as written: 2015-06).")
@click.option("--until", default=None, metavar="DATE", help="Keep games dated up to DATE (2015 keeps all of 2015).")
@click.option("--winner", default=None, type=click.Choice(["b", "w"]), help="Keep games this colour won.")
@click.option("--top", default=20, show_default=True, type=ints(1), help="Continuations shown.")
@click.option("--games", "n_games", default=0, show_default=True, type=ints(0),
              help="Also list the N most recent games with a hit.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the hits table (Parquet, one row per hit).")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False), default=None,
              help="Draw the fragment with its continuations to this SVG file.")
@click.option("--sgf-out", type=click.Path(dir_okay=False), default=None,
              help="Write the matching games as one SGF collection, the hit commented and marked.")
def find(games, sgf, region, pattern_id, patterns_path, anywhere, no_symmetry, no_color_swap, next_color, moves,
         player, since, until, winner, top, n_games, as_json, output, svg_path, sgf_out) -> None:
    """Where a shape occurs in GAMES, what was played next, and who won.

    GAMES are games tables, datasets, SGF files, folders or archives. A hit is
    counted as Kombilo counts it: each distinct image of the fragment (symmetries,
    colour swap) once per game, at its first occurrence. `shapemill index GAMES`
    saves the index that makes searches fast.
    """
    from .find.find_command import FindOptions, run_find

    _distinct([*games, sgf, patterns_path], output, svg_path, sgf_out)
    from .find.search import Filters
    from .patterns.defaults import PATTERNS

    if (sgf is None) == (pattern_id is None):
        raise click.UsageError("give one of --sgf FRAGMENT or --pattern-id ID")
    if pattern_id is not None:
        given = [name for name, on in (("--region", region is not None), ("--no-symmetry", no_symmetry),
                                       ("--next", next_color != "any")) if on]
        if given:
            raise click.UsageError(f"{', '.join(given)}: not with --pattern-id (a mined shape is "
                                   "symmetric, its own stones to move, anywhere)")
    elif patterns_path is not None:
        raise click.UsageError("--patterns: only with --pattern-id")
    opt = FindOptions(
        sgf=sgf, region=region, pattern_id=pattern_id,
        patterns=_table_or_bundled(patterns_path, PATTERNS) if pattern_id is not None else None,
        anywhere=anywhere, symmetry=not no_symmetry, swap=not no_color_swap, next=next_color, moves=moves,
        filters=Filters(player=player, since=since, until=until, winner=winner), top=top, games=n_games,
        as_json=as_json, output=output, svg=svg_path, sgf_out=sgf_out,
    )
    run_find(list(games), opt)


@main.command()
@click.argument("games", nargs=-1, required=True, type=Input())
@click.option("-q", "--quiet", is_flag=True, help="No summary.")
def index(games, quiet) -> None:
    """Save the search index of `find` beside each games table (GAMES.findex).

    A partitioned dataset gets one per part: after adding parts, only the new
    ones are indexed. An index whose table was rewritten is rebuilt.
    """
    from .find.find_command import run_index

    run_index(list(games), quiet)


def _table_or_bundled(path: str | None, name: str) -> str:
    """``path``, or the bundled table ``name`` when none was given."""
    from .patterns.defaults import default_table
    from .patterns.tables import TableError

    try:
        return path or default_table(name)
    except TableError as exc:
        raise click.ClickException(str(exc)) from None


def _move_prior(ratings: str | None, no_priors: bool, playouts_use_ratings: bool = False):
    """The search's move priors: from ``ratings``, else the bundled table, or None
    with ``--no-priors`` (which contradicts ``--ratings`` unless the playouts use it)."""
    if no_priors:
        if ratings is not None and not playouts_use_ratings:
            raise click.UsageError("--ratings and --no-priors contradict each other: give one")
        return None
    from .miner.knowledge import Knowledge
    from .patterns.tables import TableError

    try:
        return Knowledge.load(ratings)
    except TableError as exc:
        raise click.ClickException(str(exc)) from None


def _playout_gammas(ratings: str | None):
    """The gamma playout policy's table, from ``ratings`` or the bundled table
    (also with ``--no-priors``, which concerns the tree only)."""
    from .engine.playout_gamma import playout_gammas
    from .patterns.defaults import RATINGS
    from .patterns.tables import TableError

    try:
        return playout_gammas(_table_or_bundled(ratings, RATINGS))
    except TableError as exc:
        raise click.ClickException(str(exc)) from None


@main.command()
@click.option("--ratings", type=Input(dir_okay=False),
              help="Ratings table (of `rate`) whose move strengths are the search's priors, and whose "
                   "tactical gammas drive --playout-policy gamma (default: the bundled one).")
@click.option("--no-priors", is_flag=True, help="Search without a ratings table.")
@click.option("--size", default=19, show_default=True, type=ints(2, 25), help="Initial board size.")
@click.option("--playouts", default=3000, show_default=True, type=ints(1), help="Playouts per move.")
@click.option("--time-per-move", type=SECONDS, default=None,
              help="Seconds per move (replaces --playouts as the limit).")
@click.option("--prior-mode", default="virtual-wins", show_default=True,
              type=click.Choice(["virtual-wins", "progressive-bias", "puct", "puct-c", "mogo"]),
              help="How the prior enters the score: virtual wins, + H/(n+1) (Chaslot), the AlphaGo lecture's "
                   "PUCT P/(1+n), the published c P sqrt(N)/(1+n), or MoGo's Eq. 3 (docs/search.md).")
@click.option("--bandit", default="amaf", show_default=True,
              type=click.Choice(["ucb1", "tuned1", "tuned2", "auer-tuned", "ucb-v", "amaf", "uct"]),
              help="Exploration term: MoGo's UCB1, UCB-Tuned.1 or .2, Auer's UCB1-Tuned, UCB-V, none beside "
                   "RAVE's AMAF values (MoGo's Eq. 1), or course 004's UCT p + K sqrt(log N / n), K = --c-ucb.")
@click.option("--c-ucb", default=1.0, show_default=True, type=floats(), help="Exploration constant.")
@click.option("--bandit-stats", default="own", show_default=True, type=click.Choice(["own", "virtual"]),
              help="What ucb1, tuned1, tuned2 and uct read: own, the move's own Wins / Sims (Algorithm 3 as "
                   "written); virtual, the prior mode's value with its virtual visits counted.")
@click.option("--rave-schedule", default="silver", show_default=True, type=click.Choice(["silver", "eq1"]),
              help="The AMAF value's weight: Gelly & Silver's schedule, or MoGo 2008's Eq. 1 with alpha "
                   "depending on the move's simulations alone, 1 - alpha = K / (K + n), K = --rave-equiv.")
@click.option("--c-pb", default=1.0, show_default=True, type=floats(),
              help="Weight of the progressive-bias / PUCT / Eq. 3 delta term.")
@click.option("--playout-policy", default="mogo-local", show_default=True,
              type=click.Choice(["mogo-local", "mogo", "nested1", "nested2", "gamma", "ppa", "ppa-paper",
                                 "ppa-simple", "random"]),
              help="mogo: MoGo's rules in the seed's order; mogo-local: in the order that captures near the last "
                   "moves; nested1, nested2: nested playouts of level 1, 2 over mogo (Cazenave 2016); gamma: moves drawn by their rated tactical gammas (about 30x slower); "
                   "ppa: Playout Policy Adaptation as course 004 writes it (Cazenave 2015); ppa-simple: its "
                   "adapt_simple; ppa-paper: gamma, its weights adapted by the paper's rule; random: uniform.")
@click.option("--ppa-rate", default=None, type=floats(),
              help="Learning rate alpha of the ppa policies (default: 1 for ppa, the course's; 0.32 for "
                   "ppa-paper).")
@click.option("--tree-priors/--root-priors", default=True, show_default=True,
              help="The ratings table's priors at every node of the tree, or at the root only (faster).")
@click.option("--prior-n", default=None, type=floats(),
              help="With --prior-mode virtual-wins, progressive-bias or mogo: a move the table gives probability "
                   "P starts with prior-n * sqrt(P) virtual wins (docs/search.md); more trusts the table longer "
                   "against the playouts. Default: 160 on 19x19, in proportion to the board's points (36 on 9x9).")
@click.option("--prior-visits", default=2, show_default=True, type=ints(1),
              help="With --tree-priors: visits a node has when its moves get the table's priors (2: at once, "
                   "when it is expanded; more is cheaper).")
@click.option("--rave/--no-rave", default=True, show_default=True, help="RAVE / AMAF values in the tree.")
@click.option("--rave-equiv", default=3500.0, show_default=True, type=floats(low_open=True),
              help="Silver's equivalence parameter: the visits at which a move's own value and its AMAF value "
                   "weigh the same (more trusts AMAF longer).")
@click.option("--expand-at", default=2, show_default=True, type=ints(1),
              help="Visits a leaf below the root has before its moves are added to the tree.")
@click.option("--threads", default=1, show_default=True, type=WORKERS, help="Search threads.")
@click.option("--parallel", default="root", show_default=True, type=click.Choice(["root", "tree", "leaf"]),
              help="root: one tree per thread, merged at the root; tree: one shared tree with virtual loss; "
                   "leaf: one tree, --threads playouts at once from each leaf.")
@click.option("--expert", default="none", show_default=True, type=click.Choice(["none", "mogo", "mogo-features"]),
              help="mogo: MoGo's expert knowledge, eight shapes as virtual AMAF results (Figure 1's as its caption "
                   "conditions them) and a bonus near the last move by chain distance; mogo-features: the shapes "
                   "as the miner's features (docs/search.md).")
@click.option("--check-ladders", is_flag=True,
              help="Read the ladder of a string the chosen move extends from atari; if it dies anyway, play the "
                   "most visited move that does not run a dead ladder.")
@click.option("--read-life", is_flag=True,
              help="Before each genmove, read the life and death of strings in small regions by df-pn; a move that "
                   "kills or saves a string whose fate it decides starts with more of the root's prior.")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Random seed: equal seeds, equal moves.")
def gtp(ratings, no_priors, size, playouts, time_per_move, prior_mode, bandit, c_ucb, bandit_stats, rave_schedule,
        c_pb, playout_policy,
        ppa_rate, tree_priors, prior_n, prior_visits, rave, rave_equiv, expand_at, threads, parallel, expert,
        check_ladders, read_life, seed) -> None:
    """A GTP 2 engine on stdin / stdout (MCTS with RAVE and MoGo playouts)."""
    from .engine.gtp import run_gtp
    from .engine.mcts import SearchConfig

    prior = _move_prior(ratings, no_priors, playouts_use_ratings=playout_policy in ("gamma", "ppa-paper"))
    gammas = _playout_gammas(ratings) if playout_policy in ("gamma", "ppa-paper") else None
    if bandit == "amaf" and not rave:
        raise click.UsageError("--bandit amaf explores by the AMAF values: it needs --rave")
    if parallel == "leaf" and threads > 1 and playout_policy.startswith("ppa"):
        raise click.UsageError("--parallel leaf runs playouts at once: not with ppa's shared weights")
    config = SearchConfig(playouts=playouts, time_per_move=time_per_move, prior_mode=prior_mode, bandit=bandit,
                          c_ucb=c_ucb, bandit_stats=bandit_stats, rave_schedule=rave_schedule, c_pb=c_pb,
                          policy=playout_policy, gammas=gammas, tree_priors=tree_priors,
                          prior_n=prior_n, prior_visits=prior_visits, ppa_rate=ppa_rate, rave=rave,
                          rave_equiv=rave_equiv, expand_at=expand_at, seed=seed, threads=threads,
                          parallel=parallel, expert=expert, check_ladders=check_ladders, read_life=read_life)
    run_gtp(config, size, prior)


@main.command()
@click.option("--ratings", "-model", "ratings", type=Input(dir_okay=False),
              help="Ratings table whose move strengths are the priors and the reported policy (default: the "
                   "bundled one). -model is KataGo's spelling, for tools that start KataGo.")
@click.option("--config", "-config", "config_file", type=Input(dir_okay=False),
              help="A KataGo analysis config: maxVisits, numAnalysisThreads, reportAnalysisWinratesAs and "
                   "analysisPVLen are read, its other keys ignored.")
@click.option("--no-priors", is_flag=True, help="Search without a ratings table (the policy is then even).")
@click.option("--max-visits", default=None, type=ints(1),
              help="Playouts per turn when a query gives no maxVisits  [default: 500, or the config's]")
@click.option("--workers", default=None, type=WORKERS,
              help="Turns searched at once  [default: 2, or the config's numAnalysisThreads]")
@click.option("--report-as", default=None, type=click.Choice(["BLACK", "WHITE", "SIDETOMOVE"], case_sensitive=False),
              help="Whose win rates, scores and ownership are reported  [default: BLACK, or the config's]")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Random seed (turn t searches with seed + t).")
@click.option("-quit-without-waiting", "quit_now", is_flag=True,
              help="At the end of input, end the searches and answer the queued turns noResults (KataGo's flag).")
def analysis(ratings, config_file, no_priors, max_visits, workers, report_as, seed, quit_now) -> None:
    """KataGo's JSON analysis engine on stdin / stdout (docs/analysis.md).

    One query a line (id, moves, rules, komi, boardXSize, analyzeTurns, maxVisits,
    includeOwnership, includePolicy, ...), one response a line per analysed turn.
    """
    from dataclasses import replace

    from .engine.analysis import AnalysisSettings, read_katago_config, run_analysis
    from .engine.mcts import SearchConfig

    settings = AnalysisSettings()
    if config_file:
        settings = read_katago_config(config_file, settings)
    overrides = {"max_visits": max_visits, "workers": workers, "report_as": report_as and report_as.upper()}
    settings = replace(settings, **{k: v for k, v in overrides.items() if v is not None})
    prior = _move_prior(ratings, no_priors)
    run_analysis(SearchConfig(seed=seed), settings, prior, finish=not quit_now)


@main.command()
@click.argument("table", type=Input(dir_okay=False))
@click.option("--format", "fmt", required=True, type=click.Choice(["csv", "json", "mm"]),
              help="csv / json: the table's rows; mm (ratings tables): the fit's competitions for Coulom's mm tool.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="The file to write.")
def export(table, fmt, output) -> None:
    """Write a ratings or patterns table as CSV, JSON lines, or (ratings) the input of
    Coulom's mm tool.

    Pattern ids stay the tables' decimal uint64, keys become hex. The mm input is
    rebuilt from the games, split, sample and seed recorded in the table, so the same
    fit can be run with the reference tool and compared.
    """
    from .files import check_writable, output_errors
    from .miner.export import export_mm, write_rows
    from .patterns.tables import read_metadata, read_table

    _distinct([table], output)
    with output_errors(output):
        check_writable(output)
    kind = "patterns" if read_metadata(table).get("kind") == "patterns" else "ratings"
    if fmt == "mm" and kind != "ratings":
        raise click.UsageError(f"--format mm: for a ratings table; {table} is a {kind} table")
    data, meta = read_table(table, kind)
    if fmt == "mm":
        try:
            n = export_mm(data, meta, output)
        except (OSError, KeyError, TypeError, ValueError) as exc:
            raise click.ClickException(f"{table}: cannot rebuild the fit's positions ({exc!r})") from None
        click.echo(f"wrote {n:,} positions for mm to {output}")
    else:
        with output_errors(output):
            write_rows(data, fmt, output)
        click.echo(f"wrote {data.num_rows:,} {kind} rows to {output}")


@main.command()
@click.argument("game", type=Input(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the game again with a comment per move, the table's best moves as labels A, B, C "
                   "and a summary at the root (SGF).")
@click.option("--ratings", type=Input(dir_okay=False),
              help="The ratings table to hold the game against (default: the bundled one).")
@click.option("--engine", "use_engine", is_flag=True,
              help="Also search every position: win rate and score before and after each move.")
@click.option("--playouts", default=1000, show_default=True, type=ints(1),
              help="With --engine: playouts per position.")
@click.option("--threads", type=WORKERS, default=None,
              help="With --engine: search threads (default: the CPU cores, at most 8).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="Draw the played moves' probabilities (and the win rate) by move number to this PNG "
                   "(needs matplotlib).")
@click.pass_context
def review(ctx: click.Context, game, output, ratings, use_engine, playouts, threads, as_json, plot) -> None:
    """Hold one game against the ratings table: per move its rank, probability,
    surprise (-ln p) and the table's three best moves; a summary per player.

    An illegal move ends the review: the moves before it are reported, then the
    reason, and the exit status is 1.
    """
    from .datasets.scanner import default_workers
    from .engine.mcts import SearchConfig
    from .engine.review import run_review

    _distinct([game, ratings], output, plot)

    given = [f"--{name}" for name in ("playouts", "threads")
             if ctx.get_parameter_source(name) != click.core.ParameterSource.DEFAULT]
    if given and not use_engine:
        raise click.UsageError(f"{', '.join(given)}: for --engine")
    config = SearchConfig(playouts=playouts, threads=threads or default_workers()) if use_engine else None
    run_review(game, ratings, output, config, as_json, plot, click.echo)


@main.command()
@click.option("--black", "first", required=True, type=Program(),
              help="Command line of the first GTP program (Black in game 1); {game} becomes the game's number.")
@click.option("--white", "second", required=True, type=Program(), help="Command line of the second GTP program.")
@click.option("--size", default=9, show_default=True, type=ints(2, 25))
@click.option("--komi", default=7.5, show_default=True, type=KOMI)
@click.option("--games", default=2, show_default=True, type=ints(1))
@click.option("--sgf-dir", default="match", show_default=True, type=click.Path(file_okay=False),
              help="Folder of the games' SGF files; a match with the same folder resumes.")
@click.option("--alternate", is_flag=True, help="Swap colours every game.")
@click.option("--move-timeout", default=120.0, show_default=True, type=SECONDS,
              help="Seconds a program may take over a move or any other command (its first answer: at "
                   "least 60); one that takes longer, crashes or answers garbage loses the game.")
@click.option("--equal-time", type=SECONDS, default=None, metavar="SECONDS",
              help="Keep the first program's seconds per move equal to the second's: before each of its moves "
                   "it gets `time_settings 0 T 1`, T bringing its mean to the second's mean so far (SECONDS "
                   "until the second has moved).")
@click.option("--clock", default=None, metavar="M[:B:S]", callback=_check_clock,
              help="A game clock: M seconds each, sudden death, or M seconds then Canadian byo-yomi of S moves "
                   "in B seconds. Both programs get time_settings and time_left and manage their own time; one "
                   "whose clock runs out loses on time. Not with --equal-time.")
def match(first, second, size, komi, games, sgf_dir, alternate, move_timeout, equal_time, clock) -> None:
    """Play games between two GTP programs, refereed by shapemill's rules.

    Prints each result, then each program's wins, win rate with its 95% Wilson
    interval and average time per move.
    """
    from .engine.match import run_match, wilson

    if clock is not None and equal_time is not None:
        raise click.UsageError("--clock and --equal-time: one or the other (a game clock, or equal time a move)")
    try:
        tallies = run_match(first, second, games, size, komi, sgf_dir, alternate, click.echo, move_timeout,
                            equal_time=equal_time, clock=clock)
    except (OSError, RuntimeError) as exc:
        raise click.ClickException(f"match stopped: {exc}") from None
    for t in tallies:
        low, high = wilson(t.wins, t.games)
        per_move = f"{t.seconds / t.moves:.2f} s/move" if t.moves else "time not measured"
        on_time = f", {t.time_losses} lost on time" if t.time_losses else ""
        click.echo(f"{t.command}: {t.wins:g}/{t.games} wins, {t.wins / t.games:.1%} "
                   f"[{low:.1%}, {high:.1%}], {per_move}{on_time}")


@main.command()
@click.option("--size", default=9, show_default=True, type=ints(2, 25))
@click.option("--color", default="black", show_default=True, type=click.Choice(["black", "white"]),
              help="Your colour.")
@click.option("--komi", default=7.5, show_default=True, type=KOMI)
@click.option("--playouts", default=3000, show_default=True, type=ints(1), help="Engine playouts per move.")
@click.option("--ratings", type=Input(dir_okay=False),
              help="Ratings table for the engine's priors (default: the bundled one).")
@click.option("--no-priors", is_flag=True, help="Search without a ratings table.")
@click.option("--seed", default=0, show_default=True, type=SEED)
@click.option("--sgf", "sgf_path", type=click.Path(dir_okay=False), default=None,
              help="Save the game here as SGF when it ends (also after quit).")
def play(size, color, komi, playouts, ratings, no_priors, seed, sgf_path) -> None:
    """Play the engine in the terminal (moves like D4, pass, undo, quit)."""
    from .engine.mcts import SearchConfig
    from .engine.terminal import run_play

    prior = _move_prior(ratings, no_priors)
    run_play(SearchConfig(playouts=playouts, seed=seed, komi=komi), size, color[0], prior, sgf_path=sgf_path)


@main.command()
@click.option("--sgf", "sgf_path", default="demo.sgf", show_default=True, type=click.Path(dir_okay=False),
              help="Where to write the demo game.")
@click.option("--playouts", default=1000, show_default=True, type=ints(1),
              help="The engine's playouts per move.")
@click.option("--size", default=9, show_default=True, type=ints(5, 19), help="Board size of the game.")
@click.option("--gnugo-level", default=1, show_default=True, type=ints(0, 10),
              help="GnuGo's level, when /usr/games/gnugo exists.")
def demo(sgf_path, playouts, size, gnugo_level) -> None:
    """The bundled knowledge at work: top shapes, the prior, a short game.

    Offline, on the tables shipped with shapemill: draws the ten highest-rated
    shapes, the engine's prior over an opening, plays a 9x9 game (against GnuGo
    when installed) and writes it as SGF.
    """
    from .engine.demo import run_demo
    from .patterns.tables import TableError

    try:
        run_demo(sgf_path, playouts, size, gnugo_level, click.echo)
    except (TableError, OSError, RuntimeError) as exc:
        raise click.ClickException(str(exc)) from None

@main.command()
@click.argument("sgf_file", type=Input(dir_okay=False))
@click.option("--goal", required=True, metavar="GOAL [POINTS]", callback=_check_goal,
              help="kill P, live P, capture P, ladder P, connect A B, or score (the whole board, komi 0).")
@click.option("--to-play", type=click.Choice(["b", "w"]), default=None,
              help="Side to move (default: the SGF's PL, or the colour after its last move).")
@click.option("--region", default=None, metavar="POINTS", callback=_check_region,
              help="Points the search may play, e.g. 'A1-E4,F1' (default: the box around the target "
                   "grown by one point; the whole board for score). Stones outside it are immortal.")
@click.option("--max-nodes", default=1_000_000, show_default=True, type=ints(1))
@click.option("--time", "seconds", type=SECONDS, default=None,
              help="Give up after this many seconds.")
@click.option("--algorithm", default="dfpn", show_default=True,
              type=click.Choice(["pns", "dfpn", "alphabeta", "ubfm"]))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--sgf", "sgf_out", default=None, metavar="OUT",
              help="Write the solution tree (main line, the opponent's tries as variations) as SGF.")
@click.option("--ratings", type=Input(dir_okay=False), default=None,
              help="Order each position's moves by this ratings table's move strengths, strongest first.")
def solve(sgf_file, goal, to_play, region, max_nodes, seconds, algorithm, as_json, sgf_out, ratings) -> None:
    """Solve a life-and-death problem, a ladder or a tiny board exactly (superko, area scoring)."""
    import json

    from .engine.solve.run import solve_file
    from .errors import ShapemillError

    def progress(nodes: int, elapsed: float) -> None:
        click.echo(f"{nodes:,} nodes, {elapsed:.0f} s", err=True)

    _distinct([sgf_file, ratings], sgf_out)
    try:
        answer = solve_file(sgf_file, goal, to_play, region, algorithm, max_nodes, seconds, sgf_out,
                            ratings, progress)
    except (ShapemillError, OSError) as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps(answer))
        return
    value = "" if answer["value"] is None else f" value {answer['value']:+d}"
    click.echo(f"{answer['result']} {answer['move'] or '-'}{value} "
               f"({answer['nodes']} nodes, {answer['seconds']:.2f} s)")



if __name__ == "__main__":
    main()

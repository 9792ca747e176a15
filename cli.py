"""The ``shapemill`` command line: one click group, a command per stage.

Each command imports its stage lazily so that ``shapemill --help`` and
``shapemill gtp`` start fast.
"""

from __future__ import annotations

import errno
import io
import os
import shlex
import signal
import stat
import sys
import threading

import click

from . import __version__
from .errors import ShapemillError, Terminated, UsageError
from .limits import (COUNT_MAX, KOMI_MAX, MEMBER_MB_MAX, SECONDS_MAX, SEED_MAX, WEIGHT_MAX, WORKERS_MAX, out_of_range,
                     range_text)
from .patterns.latent_settings import VECTOR_ITERATIONS, VECTOR_K, VECTOR_LAMBDA, VECTOR_PLAYED, VECTOR_POSITIONS
from .patterns.near import NEAR_PLAYED
from .workers import signal_name


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
        reason = out_of_range(number, self.low, self.high, self.low_open)
        if reason:
            self.fail(reason, param, ctx)
        return number

    def _range(self) -> str:
        return range_text(self.low, self.high, self.low_open, self.kind is int)

    def get_metavar(self, param, ctx=None) -> str:
        return f"{self.name.upper()} {self._range()}".replace("x", "")


def ints(low: int = 0, high: int = COUNT_MAX) -> Ranged:
    """An integer option's type: ``low`` to ``high``."""
    return Ranged(int, low, high)


def floats(low: float = 0.0, high: float = WEIGHT_MAX, low_open: bool = False) -> Ranged:
    """A float option's type: finite, ``low`` (excluded with ``low_open``) to ``high``."""
    return Ranged(float, low, high, low_open)


class AllOrCount(Ranged):
    """A count of at least 1, or ``all`` (None)."""

    def __init__(self) -> None:
        super().__init__(int, 1, COUNT_MAX)

    def convert(self, value, param, ctx):
        if value is None or str(value).strip().lower() == "all":
            return None
        return super().convert(value, param, ctx)

    def get_metavar(self, param, ctx=None) -> str:
        return "N|all"


SEED = ints(0, SEED_MAX)
POSITIONS = AllOrCount()
WORKERS = ints(1, WORKERS_MAX)
SECONDS = floats(0.0, SECONDS_MAX, low_open=True)
KOMI = floats(-KOMI_MAX, KOMI_MAX)


def search_options(*names: str, defaults: dict[str, object] | None = None,
                   none: dict[str, str] | None = None):
    """The options of the search settings ``names`` (every one ``gtp`` takes when none are
    named), built from their one declaration (``engine/settings.py``); ``defaults`` and
    ``none`` (what a None default means) override a command's own."""
    from .engine.settings import BY_NAME, SETTINGS

    chosen = [BY_NAME[name] for name in names] if names else [s for s in SETTINGS if s.option]
    defaults, none = defaults or {}, none or {}

    def decorate(command):
        for s in reversed(chosen):
            command = _setting_option(s, defaults.get(s.name, s.default), none.get(s.name, s.none))(command)
        return command

    return decorate


def _setting_option(s, default, none: str):
    """The click option of setting ``s``."""
    if s.kind is bool:
        if s.off:
            return click.option(f"{s.flag}/{s.off}", s.name, default=default, show_default=True, help=s.help)
        return click.option(s.flag, s.name, is_flag=True, default=default, help=s.help)
    if s.kind is str:
        return click.option(s.flag, s.name, default=default, show_default=True, type=click.Choice(s.choices),
                            help=s.help)
    text = s.help + (f"  [default: {none}]" if default is None and none else "")
    return click.option(s.flag, s.name, default=default, show_default=default is not None,
                        type=Ranged(s.kind, s.low, s.high, s.low_open), help=text)


def search_config(settings: dict, **fields):
    """``SearchConfig`` of the settings options a command received, and ``fields``."""
    from .engine.settings import SearchConfig

    return SearchConfig(**settings, **fields)


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


def _check_goal(ctx, param, value: str | None) -> list[str] | None:
    """``--goal``: a known goal and its points, as words."""
    from .engine.solve.position import GOALS

    if value is None:
        return None
    words = value.split()
    if not words or words[0] not in GOALS:
        raise click.BadParameter(f"{value!r}: expected one of {', '.join(GOALS)}, then its points")
    return words


def _check_plot(ctx, param, value: str | None) -> str | None:
    """``--plot``: refused before any work when matplotlib (the ``plot`` extra) is missing."""
    import importlib.util
    import sys

    if value is None:
        return value
    found = sys.modules["matplotlib"] is not None if "matplotlib" in sys.modules else \
        importlib.util.find_spec("matplotlib") is not None
    if not found:
        raise click.BadParameter("needs matplotlib: pip install 'shapemill[plot]'")
    return value


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
    from .engine.frontends.clock import parse_clock

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
    and Ctrl-C or SIGTERM (also inside a numba kernel, which reports it as a ``SystemError``)
    one line naming the command it stopped (exit 1); so does a full standard output."""

    def invoke(self, ctx: click.Context):
        main_thread = threading.current_thread() is threading.main_thread()
        before = signal.signal(signal.SIGTERM, _terminated) if main_thread else None
        try:
            return self._invoke(ctx)
        finally:
            if main_thread:
                signal.signal(signal.SIGTERM, before)

    def _invoke(self, ctx: click.Context):
        try:
            result = super().invoke(ctx)
            sys.stdout.flush()  # what a command printed: a full or closed output shows here, not at exit
            return result
        except OSError as exc:
            if _on_stdout(exc):
                raise  # main's to answer
            raise click.ClickException(f"{exc.filename or ctx.invoked_subcommand}: {exc.strerror or exc}") from None
        except UsageError as exc:
            raise click.UsageError(" ".join(str(exc).split())) from None
        except UnicodeEncodeError as exc:
            if "surrogates" not in exc.reason or not isinstance(exc.object, str):
                raise
            # a name not UTF-8 handed to what takes UTF-8 only (a UTF-8 terminal, pyarrow):
            # SGF files and folders so named are read (datasets.sources), tables refused (tables)
            from .files import display_name

            where = " ".join(display_name(exc.object[max(0, exc.start - 40) : exc.end + 40]).split())
            raise click.ClickException(f"{ctx.invoked_subcommand}: a name that is not UTF-8 cannot be written "
                                       f"here ({where})") from None
        except ShapemillError as exc:
            message = " ".join(str(exc).split()) or type(exc).__name__
            raise click.ClickException(message + (" (no reason given)" if message.endswith(":") else "")) from None
        except KeyboardInterrupt as exc:
            raise click.ClickException(_interrupted(ctx.invoked_subcommand, exc)) from None
        except SystemError as exc:
            if not _from_ctrl_c(exc):
                raise
            raise click.ClickException(_interrupted(ctx.invoked_subcommand, exc)) from None

    def main(self, *args, **kwargs):
        """click's main, and standard output full (``/dev/full``, a full disk) in one line,
        exit 1, from any command or ``--help``; click itself ends in silence, exit 1, when
        the reader of a pipe went away (EPIPE), as Unix tools do."""
        try:
            return super().main(*args, **kwargs)
        except SystemExit as exc:  # click's way out, EPIPE's included
            _leave_past_a_warm_up(exc)
            raise
        except OSError as exc:
            if not _on_stdout(exc):
                raise
            process = True
            try:  # what is left in the buffer must not fail again at exit
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, sys.stdout.fileno())
                os.close(null)
            except (OSError, ValueError, io.UnsupportedOperation):  # no descriptor: a test's captured output
                process = False
            click.echo(f"Error: standard output: {exc.strerror or exc}", err=True)
            if process:  # a background thread (the engine's warm-up compile) must not meet the interpreter's
                sys.stderr.flush()  # finalization, which then aborts (seen once on a cold cache): leave at once
                os._exit(1)
            sys.exit(1)


def _leave_past_a_warm_up(exc: SystemExit) -> None:
    """A real process that ends while a front end's warm-up thread runs numba code leaves at
    once with the same status (``os._exit``, its output flushed): the interpreter's
    finalization under that thread aborts (``PyGILState_Release``, exit -6; seen with gtp
    and a closed standard output). A test's captured output keeps ``SystemExit``."""
    from .compiling import warming_up

    if not warming_up():
        return
    try:
        sys.stdout.fileno()
    except (OSError, ValueError, io.UnsupportedOperation):  # a test's captured output
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1)


def _on_stdout(exc: OSError) -> bool:
    """Whether ``exc`` is standard output's: writing it fails still, or a write error
    that names no file (the commands' own files are named: ``files.output_errors``)."""
    try:
        sys.stdout.flush()
    except OSError:
        return True
    return exc.filename is None and exc.errno in (errno.EPIPE, errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG)


def _terminated(signum, frame) -> None:
    """SIGTERM's handler: the command ends as on Ctrl-C (its temporary files removed)."""
    raise Terminated()


def _from_ctrl_c(exc: BaseException | None) -> KeyboardInterrupt | None:
    """The ``KeyboardInterrupt`` (Ctrl-C or SIGTERM) under numba's ``SystemError``: its chain
    of causes (one ``SystemError`` per kernel the signal passed through) ends in it."""
    seen = 0
    while exc is not None and seen < 1000:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None


def _interrupted(command: str, exc: BaseException) -> str:
    """The line that Ctrl-C or SIGTERM gives: the command and what became of its output."""
    kept = "the game in play is not saved" if command == "match" else "nothing written"
    return f"{command}: interrupted ({signal_name(_from_ctrl_c(exc))}); {kept}"


@click.group(cls=_Stages, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="shapemill")
def main() -> None:
    """Mine rated shape patterns from Go game archives, and play with them."""
    from .compiling import announce, lock_cache

    announce()  # a first use's numba compile says what it compiles, once it lasts
    lock_cache()  # and engines compiling at once leave a sound cache


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
    from .tables import TableError, read_metadata, read_table

    given_table = table
    table = _table_or_bundled(table, PATTERNS)
    try:
        kind = "ratings" if read_metadata(table).get("kind") == "ratings" else "patterns"
        data, _ = read_table(table, kind)
    except TableError as exc:
        raise click.ClickException(str(exc)) from None
    if kind == "ratings":
        from .patterns.features.words import level_words

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

    from .datasets.info import describe, table_info
    from .patterns.defaults import RATINGS
    from .tables import TableError

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
@click.option("--max-positions", default="2000000", show_default=True, type=POSITIONS, metavar="N|all",
              help="Positions sampled (uniformly, seeded) from the games for the fit; all: every position.")
@click.option("--limit-games", type=ints(1), default=None, help="Use the first N games only.")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Seed of the position sample.")
@click.option("--near-played", default=NEAR_PLAYED, show_default=True, type=ints(0), metavar="N",
              help="Patterns played at least N times in the mined games get a near twin: a gamma of their own when "
                   "the previous move is 2 to 4 away (docs/rating.md).")
@click.option("--max-memory", type=floats(0, WEIGHT_MAX, low_open=True), default=None, metavar="GB",
              help="Sample as many positions (at most --max-positions) as an in-memory fit holds in this much memory.")
@click.option("--work-dir", type=click.Path(file_okay=False), default=None,
              help="Folder of the shards of the positions' teams and of the last sweep's gammas, kept until the "
                   "table is written: the same command resumes from it (default: OUTPUT.work beside the output).")
@click.option("-j", "--workers", type=WORKERS, default=None,
              help="Threads that build the positions and share each MM sweep (default: the CPU cores, at most 8).")
@click.option("--scheduler", default=None, metavar="ADDRESS", callback=_check_scheduler,
              help="Build and sweep on a Dask cluster: a scheduler's tcp://HOST:PORT, or local:N to start N local "
                   "workers (replaces -j; the workers read the work folder, needs pip install 'shapemill[dask]').")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
def rate(games, patterns_path, output, max_iter, tol, split, max_positions, limit_games, seed, near_played,
         max_memory, work_dir, workers, scheduler, quiet) -> None:
    """Fit Bradley-Terry / Elo ratings of every pattern and feature (Coulom's MM).

    Each sampled position is a competition among its legal moves and the pass;
    a move's team is its largest known pattern plus its tactical feature levels.
    """
    from .datasets.scanner import default_workers
    from .miner.rate_command import run_rate

    _distinct([*games, patterns_path], output)
    run_rate(
        list(games), patterns_path, output, max_iter, tol, split, max_positions, limit_games, seed,
        workers or default_workers(), max_memory, work_dir, scheduler, quiet, near_played,
    )


@main.command()
@click.argument("games", nargs=-1, required=True, type=Input())
@click.option("--ratings", type=Input(dir_okay=False),
              help="The ratings table of `rate` (default: the bundled one).")
@click.option("--split", default=None, type=click.Choice(["train", "test", "all"]),
              help="Which games to evaluate (default: a games table's test split; every game of SGF input).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--plot", type=click.Path(dir_okay=False), default=None, callback=_check_plot,
              help="Draw the cumulative accuracy curve (k = 1..30) to this PNG (needs matplotlib).")
@click.option("--max-positions", type=ints(1), default=None, help="Evaluate a seeded sample of positions.")
@click.option("--limit-games", type=ints(1), default=None, help="Use the first N games only.")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Seed of the position sample.")
@click.option("-j", "--workers", type=WORKERS, default=None,
              help="Threads that build the positions (default: the CPU cores, at most 8).")
@click.option("--scheduler", default=None, metavar="ADDRESS", callback=_check_scheduler,
              help="Rank the games on a Dask cluster: a scheduler's tcp://HOST:PORT, or local:N to start N local "
                   "workers (replaces -j; needs pip install 'shapemill[dask]').")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
def evaluate(games, ratings, split, as_json, plot, max_positions, limit_games, seed, workers, scheduler,
             quiet) -> None:
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
        workers or default_workers(), scheduler, quiet,
    )


@main.command()
@click.argument("games", nargs=-1, required=True, type=Input())
@click.option("--ratings", type=Input(dir_okay=False),
              help="The ratings table whose gammas are held (default: the bundled one).")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="The ratings table with the vectors (may be --ratings itself).")
@click.option("--positions", default=VECTOR_POSITIONS, show_default=True, type=ints(1),
              help="Positions fitted, a seeded sample.")
@click.option("--split", default="train", show_default=True, type=click.Choice(["train", "test", "all"]))
@click.option("--k", "k", default=VECTOR_K, show_default=True, type=ints(1, 64), help="Numbers a vector.")
@click.option("--lambda", "lam", default=VECTOR_LAMBDA, show_default=True, type=floats(0, WEIGHT_MAX),
              help="Weight of the vectors' squares.")
@click.option("--played", default=VECTOR_PLAYED, show_default=True, type=ints(0), metavar="N",
              help="Patterns played N times get a vector (every tactical feature gets one).")
@click.option("--patterns", "patterns_path", type=Input(dir_okay=False), default=None,
              help="A patterns table whose counts say which patterns were played N times, where the ratings "
                   "table has none (a compact table keeps few).")
@click.option("--iterations", default=VECTOR_ITERATIONS, show_default=True, type=ints(1), help="L-BFGS iterations.")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Seed of the position sample.")
@click.option("-j", "--workers", type=WORKERS, default=None,
              help="Threads (default: the CPU cores, at most 8).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
def vectors(games, ratings, output, positions, split, k, lam, played, patterns_path, iterations, seed, workers,
            quiet) -> None:
    """Latent vectors over a ratings table's gammas: the pairs of a move's features.

    Fits, on a sample of the positions of GAMES with the table's gammas held, a
    vector for every tactical feature and every pattern played often, and one for each
    move-number band; a move's strength gains the dot products of its features' pairs
    (docs/rating.md). The engine, evaluate and review use them.
    """
    from .datasets.scanner import default_workers
    from .miner.vectors_command import run_vectors
    from .patterns.defaults import RATINGS

    _distinct([*games, patterns_path], output)
    run_vectors(list(games), _table_or_bundled(ratings, RATINGS), output, positions, split, k, lam, played,
                iterations, seed, workers or default_workers(), quiet, patterns_path)


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
@click.option("--no-save-index", is_flag=True,
              help="A games table without an index: build it in memory only (by default it is saved beside "
                   "the table, as `shapemill index` saves it, when the folder takes it).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar, nor the note of an index built and saved.")
def find(games, sgf, region, pattern_id, patterns_path, anywhere, no_symmetry, no_color_swap, next_color, moves,
         player, since, until, winner, top, n_games, as_json, output, svg_path, sgf_out, no_save_index,
         quiet) -> None:
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
        as_json=as_json, output=output, svg=svg_path, sgf_out=sgf_out, save_index=not no_save_index, quiet=quiet,
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
    from .tables import TableError

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
    from .patterns.knowledge import Knowledge
    from .tables import TableError

    try:
        return Knowledge.load(ratings)
    except TableError as exc:
        raise click.ClickException(str(exc)) from None


def _katago_model(ratings: str | None, command: str) -> str | None:
    """``-model``'s file as the ratings table, or None (the bundled one) when it is a KataGo
    network, which a tool that starts KataGo passes: a warning says so."""
    from .engine.frontends.katago import katago_network

    if ratings is not None and katago_network(ratings):
        click.echo(f"shapemill {command}: -model {ratings} is a KataGo network, which shapemill does not read; "
                   "the bundled ratings table is used", err=True)
        return None
    return ratings


def _playout_gammas(ratings: str | None):
    """The gamma playout policy's table, from ``ratings`` or the bundled table
    (also with ``--no-priors``, which concerns the tree only)."""
    from .engine.playouts.gamma import playout_gammas
    from .patterns.defaults import RATINGS
    from .tables import TableError

    try:
        return playout_gammas(_table_or_bundled(ratings, RATINGS))
    except TableError as exc:
        raise click.ClickException(str(exc)) from None


@main.command()
@click.option("--ratings", "-model", "ratings", type=Input(dir_okay=False),
              help="Ratings table (of `rate`) whose move strengths are the search's priors, and whose "
                   "tactical gammas drive --playout-policy gamma (default: the bundled one). -model is "
                   "KataGo's spelling: a KataGo network is ignored with a warning, the bundled table used.")
@click.option("-config", "config_file", type=Input(dir_okay=False), default=None,
              help="A KataGo GTP config: maxVisits or maxPlayouts (--playouts) and numSearchThreads (--threads) "
                   "are read, its other keys ignored; options given on the command line win.")
@click.option("-override-config", "override", default=None, metavar="KEY=VALUE,...",
              help="KataGo's overrides of the config: the keys -config reads (range-checked), the others warned of.")
@click.option("--no-priors", is_flag=True, help="Search without a ratings table.")
@click.option("--size", default=19, show_default=True, type=ints(2, 25), help="Initial board size.")
@search_options()
@click.pass_context
def gtp(ctx: click.Context, ratings, config_file, override, no_priors, size, **settings) -> None:
    """A GTP 2 engine on stdin / stdout (MCTS with RAVE and MoGo playouts)."""
    from dataclasses import replace

    from .engine.frontends.gtp import katago_gtp_config, run_gtp

    ratings = _katago_model(ratings, "gtp")
    policy = settings["playout_policy"]
    prior = _move_prior(ratings, no_priors, playouts_use_ratings=policy in ("gamma", "ppa-paper"))
    gammas = _playout_gammas(ratings) if policy in ("gamma", "ppa-paper") else None
    if settings["bandit"] == "amaf" and not settings["rave"]:
        raise click.UsageError("--bandit amaf explores by the AMAF values: it needs --rave")
    if settings["parallel"] == "leaf" and settings["threads"] > 1 and policy.startswith("ppa"):
        raise click.UsageError("--parallel leaf runs playouts at once: not with ppa's shared weights")
    config = search_config(settings, gammas=gammas)
    if config_file is not None or override is not None:
        try:
            katago, ignored = katago_gtp_config(config, config_file, override)
        except ShapemillError as exc:
            if override is not None and str(exc).startswith("-override-config"):
                raise click.BadParameter(str(exc).removeprefix("-override-config: "), param_hint="-override-config")
            raise
        for line in ignored:
            click.echo(f"shapemill gtp: {line}", err=True)
        given = {name: getattr(config, name) for name in ("playouts", "threads")
                 if ctx.get_parameter_source(name) != click.core.ParameterSource.DEFAULT}
        config = replace(katago, **given)  # the command line's own options win over KataGo's config
    run_gtp(config, size, prior)


@main.command()
@click.option("--ratings", "-model", "ratings", type=Input(dir_okay=False),
              help="Ratings table whose move strengths are the priors and the reported policy (default: the "
                   "bundled one). -model is KataGo's spelling, for tools that start KataGo: a KataGo network "
                   "(.bin.gz, .txt.gz) is ignored with a warning, and the bundled table used.")
@click.option("--config", "-config", "config_file", type=Input(dir_okay=False),
              help="A KataGo analysis config: maxVisits, numAnalysisThreads, reportAnalysisWinratesAs and "
                   "analysisPVLen are read (in the ranges of the options of the same meaning), its other keys "
                   "ignored.")
@click.option("-override-config", "override_config", default=None, metavar="KEY=VALUE,...",
              help="Config values over the config file's, as KataGo takes them (the same keys, the same ranges).")
@click.option("--no-priors", is_flag=True, help="Search without a ratings table (the policy is then even).")
@click.option("--max-visits", default=None, type=ints(1),
              help="Playouts per turn when a query gives no maxVisits  [default: 500, or the config's]")
@click.option("--workers", "-analysis-threads", "workers", default=None, type=WORKERS,
              help="Turns searched at once  [default: 2, or the config's numAnalysisThreads]")
@click.option("--report-as", default=None, type=click.Choice(["BLACK", "WHITE", "SIDETOMOVE"], case_sensitive=False),
              help="Whose win rates, scores and ownership are reported  [default: BLACK, or the config's]")
@search_options("seed")
@click.option("-quit-without-waiting", "quit_now", is_flag=True,
              help="At the end of input, end the searches and answer the queued turns noResults (KataGo's flag).")
@click.option("-human-model", "human_model", default=None, type=click.Path(dir_okay=False),
              help="KataGo's human-like network: accepted for KataGo's launch line, not used (a warning).")
@click.pass_context
def analysis(ctx: click.Context, ratings, config_file, no_priors, override_config, max_visits, workers, report_as, seed,
             quit_now, human_model) -> None:
    """KataGo's JSON analysis engine on stdin / stdout (docs/analysis.md).

    One query a line (id, moves, rules, komi, boardXSize, analyzeTurns, maxVisits,
    includeOwnership, includePolicy, ...), one response a line per analysed turn.
    """
    from dataclasses import replace

    from .engine.frontends.analysis import CONFIG_KEYS, AnalysisSettings, run_analysis
    from .engine.frontends.katago import config_values, ignored_keys

    settings = AnalysisSettings()
    overrides = _override_values(override_config)
    for where, values in ((config_file, config_values(config_file) if config_file else {}),
                          ("-override-config", overrides)):
        settings = replace(settings, **_config_settings(ctx, where, values))
    for line in ignored_keys(overrides, CONFIG_KEYS):  # KataGo's own keys, such as KaTrain's homeDataDir
        click.echo(f"shapemill analysis: {line}", err=True)
    if human_model is not None:
        click.echo(f"shapemill analysis: -human-model {human_model}: shapemill has no human-like network; ignored",
                   err=True)
    ratings = _katago_model(ratings, "analysis")
    overrides = {"max_visits": max_visits, "workers": workers, "report_as": report_as and report_as.upper()}
    settings = replace(settings, **{k: v for k, v in overrides.items() if v is not None})
    prior = _move_prior(ratings, no_priors)
    run_analysis(search_config({"seed": seed}), settings, prior, finish=not quit_now)


def _override_values(text: str | None) -> dict[str, str]:
    """``-override-config``'s ``KEY=VALUE`` pairs (``katago.override_values``)."""
    from .engine.frontends.katago import override_values

    try:
        return override_values(text) if text is not None else {}
    except ShapemillError as exc:
        raise click.BadParameter(str(exc).removeprefix("-override-config: ") + ", expected KEY=VALUE",
                                 param_hint="'-override-config'") from None


def _config_settings(ctx: click.Context, where: str, values: dict[str, str]) -> dict:
    """The analysis settings a KataGo config (``values``, read from ``where``) gives, each
    value checked by the type of the option of the same meaning, so that a config takes
    the numbers the command line takes (a bad one: exit 2)."""
    from .engine.frontends.analysis import CONFIG_KEYS
    from .limits import PV_LENGTH_MAX

    types = {p.name: p.type for p in ctx.command.params}
    types["pv_length"] = ints(1, PV_LENGTH_MAX)  # no option: the config's own
    settings = {}
    for key, name in CONFIG_KEYS.items():
        if key in values:
            try:
                value = types[name].convert(values[key], None, ctx)
            except click.BadParameter as exc:
                raise click.BadParameter(f"{where}: {key} = {values[key]}: {exc.message}",
                                         param_hint="'-config' / '-override-config'") from None
            settings[name] = value.upper() if isinstance(value, str) else value
    return settings


@main.command()
@click.argument("table", type=Input(dir_okay=False))
@click.option("--format", "fmt", required=True, type=click.Choice(["csv", "json", "mm"]),
              help="csv / json: the table's rows; mm (ratings tables): the fit's competitions for Coulom's mm tool.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="The file to write.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars (--format mm).")
def export(table, fmt, output, quiet) -> None:
    """Write a ratings or patterns table as CSV, JSON lines, or (ratings) the input of
    Coulom's mm tool.

    Pattern ids stay the tables' decimal uint64, keys become hex. The mm input is
    rebuilt from the games, split, sample and seed recorded in the table, so the same
    fit can be run with the reference tool and compared.
    """
    from .files import check_writable, output_errors
    from .miner.export import export_mm, write_rows
    from .tables import read_metadata, read_table

    _distinct([table], output)
    with output_errors(output):
        check_writable(output)
    kind = "patterns" if read_metadata(table).get("kind") == "patterns" else "ratings"
    if fmt == "mm" and kind != "ratings":
        raise click.UsageError(f"--format mm: for a ratings table; {table} is a {kind} table")
    data, meta = read_table(table, kind)
    if fmt == "mm":
        try:
            n = export_mm(data, meta, output, quiet)
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
@search_options("playouts", "threads", defaults={"playouts": 1000, "threads": None},
                none={"threads": "the CPU cores, at most 8"})
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--plot", type=click.Path(dir_okay=False), default=None, callback=_check_plot,
              help="Draw the played moves' probabilities (and the win rate) by move number to this PNG "
                   "(needs matplotlib).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar (--engine).")
@click.pass_context
def review(ctx: click.Context, game, output, ratings, use_engine, playouts, threads, as_json, plot, quiet) -> None:
    """Hold one game against the ratings table: per move its rank, probability,
    surprise (-ln p) and the table's three best moves; a summary per player.

    An illegal move ends the review: the moves before it are reported, then the
    reason, and the exit status is 1.
    """
    from .datasets.scanner import default_workers
    from .engine.frontends.review import run_review

    _distinct([game, ratings], output, plot)

    given = [f"--{name}" for name in ("playouts", "threads")
             if ctx.get_parameter_source(name) != click.core.ParameterSource.DEFAULT]
    if given and not use_engine:
        raise click.UsageError(f"{', '.join(given)}: for --engine")
    config = search_config({"playouts": playouts, "threads": threads or default_workers()}) if use_engine else None
    run_review(game, ratings, output, config, as_json, plot, click.echo, quiet)


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
@click.option("--move-timeout", default=None, type=SECONDS,
              help="Seconds a program may take over a move or any other command (its first answer: at "
                   "least 60); one that takes longer, crashes or answers garbage loses the game. Default: 120; "
                   "under --clock a move may take what the clock holds, at most 600.")
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
    from .engine.frontends.match import run_match, wilson

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
@search_options("komi", "playouts")
@click.option("--ratings", type=Input(dir_okay=False),
              help="Ratings table for the engine's priors (default: the bundled one).")
@click.option("--no-priors", is_flag=True, help="Search without a ratings table.")
@search_options("seed")
@click.option("--sgf", "sgf_path", type=click.Path(dir_okay=False), default=None,
              help="Save the game here as SGF when it ends (also after quit).")
def play(size, color, komi, playouts, ratings, no_priors, seed, sgf_path) -> None:
    """Play the engine in the terminal (moves like D4, pass, undo, quit)."""
    from .engine.frontends.terminal import run_play

    prior = _move_prior(ratings, no_priors)
    run_play(search_config({"playouts": playouts, "seed": seed, "komi": komi}), size, color[0], prior,
             sgf_path=sgf_path)


@main.command()
@click.option("--sgf", "sgf_path", default="demo.sgf", show_default=True, type=click.Path(dir_okay=False),
              help="Where to write the demo game.")
@search_options("playouts", defaults={"playouts": 1000})
@click.option("--size", default=9, show_default=True, type=ints(5, 19), help="Board size of the game.")
@click.option("--gnugo-level", default=1, show_default=True, type=ints(0, 10),
              help="GnuGo's level, when /usr/games/gnugo exists.")
def demo(sgf_path, playouts, size, gnugo_level) -> None:
    """The bundled knowledge at work: top shapes, the prior, a short game.

    Offline, on the tables shipped with shapemill: draws the ten highest-rated
    shapes, the engine's prior over an opening, plays a 9x9 game (against GnuGo
    when installed) and writes it as SGF.
    """
    from .engine.frontends.demo import run_demo
    from .tables import TableError

    try:
        run_demo(sgf_path, playouts, size, gnugo_level, click.echo)
    except (TableError, OSError, RuntimeError) as exc:
        raise click.ClickException(str(exc)) from None

@main.command("compile")
@click.option("--part", type=click.Choice(["all", "engine", "tables"]), default="all", show_default=True,
              help="engine: what gtp, analysis, review, demo and solve run; tables: what scan, mine, rate, "
                   "evaluate, export and find run (the build compiles the two in parallel).")
@click.option("-q", "--quiet", is_flag=True, help="Say nothing.")
def compile_kernels(part, quiet) -> None:
    """Compile the kernels for this machine now (an install from a checkout does it)."""
    import contextlib
    import tempfile
    import time
    from pathlib import Path

    from .engine.frontends.precompile import precompile
    from .miner.precompile import table_commands, write_sample_games

    def say(line: str) -> None:
        if not quiet:
            click.echo(f"compiling {line}...", err=True)

    start = time.perf_counter()
    failure = precompile(say) if part in ("all", "engine") else None
    if part in ("all", "tables") and not failure:
        with tempfile.TemporaryDirectory(prefix="shapemill-compile-") as folder:
            write_sample_games(Path(folder))
            for label, args in table_commands(Path(folder)):
                say(label)
                try:
                    with contextlib.redirect_stdout(io.StringIO()):
                        main.main(args, standalone_mode=False)
                except click.ClickException as e:
                    failure = f"{label}: {e.format_message()}"
                    break
    if failure:
        raise click.ClickException(f"compile: {failure}")
    if not quiet:
        click.echo(f"compiled in {time.perf_counter() - start:.0f} s; later runs load the kernels from the cache",
                   err=True)


@main.command()
@click.argument("sgf_file", type=Input(dir_okay=False))
@click.option("--goal", default=None, metavar="GOAL [POINTS]", callback=_check_goal,
              help="kill P, live P, capture P, ladder P, connect A B, or score (the whole board, komi 0); "
                   "default: read the position as a book's corner or side problem.")
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

    from .engine.solve.run import GoalError, solve_file

    def progress(nodes: int, elapsed: float) -> None:
        click.echo(f"{nodes:,} nodes, {elapsed:.0f} s", err=True)

    _distinct([sgf_file, ratings], sgf_out)
    try:
        answer = solve_file(sgf_file, goal, to_play, region, algorithm, max_nodes, seconds, sgf_out,
                            ratings, progress)
    except (GoalError, UsageError) as e:
        raise click.UsageError(str(e)) from None
    except (ShapemillError, OSError) as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps(answer))
        return
    if "status" in answer:
        attacker = "Black" if answer["attacker"] == "b" else "White"
        open_ko = "; a ko not ruled out in the time" if answer.get("ko_ruled_out") is False else ""
        click.echo(f"{answer['status']} {', '.join(answer['moves']) or '-'} ({attacker} attacks the group at "
                   f"{answer['group']}; {answer['nodes']} nodes, {answer['seconds']:.2f} s{open_ko})")
        return
    value = "" if answer["value"] is None else f" value {answer['value']:+d}"
    click.echo(f"{answer['result']} {answer['move'] or '-'}{value} "
               f"({answer['nodes']} nodes, {answer['seconds']:.2f} s)")



if __name__ == "__main__":
    main()

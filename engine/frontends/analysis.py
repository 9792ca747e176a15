"""KataGo's JSON analysis engine on stdin / stdout (``shapemill analysis``).

The protocol of lightvector/KataGo ``docs/Analysis_Engine.md``: each input line is
one JSON query (a game's ``moves`` and the ``analyzeTurns`` to search) or an action
(``query_version``, ``terminate``, ``terminate_all``, ``clear_cache``); each output
line is one JSON response. Queries are answered asynchronously, by priority then in
order of arrival, one search per turn on ``workers`` threads (the numba kernel
releases the GIL, so the turns of a game use every core). A bad query gets one
error line in KataGo's form (``{"error", "field", "id"}``) and the engine goes on;
a field it does not know or use gets a warning and the query proceeds. At the end
of input the queued turns are finished before the engine exits.

The ``policy`` of a response is the ratings table's move probabilities (the mined
knowledge, before any search); scores are the playouts' final area scores.
"""

from __future__ import annotations

import heapq
import io
import itertools
import json
import math
import re
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TextIO

import numpy as np

from ...compiling import WARM_UP_THREAD
from ...go import rules
from ...go.board import Board, IllegalMove
from ...go.vertices import GTP_LETTERS, flat_index, format_vertex
from ...limits import PV_LENGTH_MAX, SECONDS_MAX
from ...patterns.prior import MovePrior
from ..search import Budget, Search, SearchConfig, warm_up
from .katago import (
    MAX_VISITS,
    RulesError,
    board_order,
    handicap_bonus,
    komi_ok,
    legal_policy,
    played_rules,
)
from .protocol import NAME, PV_LENGTH, VERSION, one_line
from .report import search_report

#: Visits per turn when neither the query nor the config file says (KataGo's example config: 500).
DEFAULT_VISITS = 500
#: The most visits a query may ask for a turn: about ten minutes of search on 19x19 here; more is clamped.
#: Fields of a query (Analysis_Engine.md); those shapemill reads are in ``USED_FIELDS``.
USED_FIELDS = {"id", "moves", "initialStones", "initialPlayer", "rules", "komi", "boardXSize", "boardYSize",
               "analyzeTurns", "maxVisits", "includeOwnership", "includePolicy", "includePVVisits",
               "reportDuringSearchEvery", "priority", "priorities", "whiteHandicapBonus", "overrideSettings",
               "avoidMoves", "allowMoves", "includeMovesOwnership"}
#: Documented fields shapemill accepts but does not act on: a warning, and the query goes on.
UNUSED_FIELDS = {"rootPolicyTemperature", "rootFpuReductionMax", "includeNoResultValue"}
#: The deepest ply an avoidMoves or allowMoves entry may restrict (``untilDepth``).
MAX_RESTRICTED_DEPTH = 1000
#: Perspectives of ``reportAnalysisWinratesAs``.
PERSPECTIVES = ("BLACK", "WHITE", "SIDETOMOVE")
#: The engine's shortest interval between two reports during a search, in seconds.
MIN_REPORT_SECONDS = 0.05
#: Komi when a query gives none (KataGo's analysis engine's default).
DEFAULT_KOMI = 7.5
#: Decimals of each ownership value in a response (KataGo prints about as many).
OWNERSHIP_DECIMALS = 6
#: The board the kernels warm up on at start: analysis clients mostly ask 19x19.
WARM_UP_SIZE = 19
#: What KataGo prints on standard error once it takes queries (clients wait for it).
READY = "Started, ready to begin handling requests"


class QueryError(Exception):
    """A query that cannot be analysed: one error response naming the field."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


@dataclass
class AnalysisSettings:
    """The engine's defaults, from the command line or a KataGo config file."""

    max_visits: int = DEFAULT_VISITS
    workers: int = 2  # turns searched at once (KataGo's numAnalysisThreads)
    report_as: str = "BLACK"  # reportAnalysisWinratesAs, as KataGo's example analysis config
    pv_length: int = PV_LENGTH


#: The keys of a KataGo config the engine reads, and the setting each one gives (the
#: command line checks each value as it checks the option of that setting).
CONFIG_KEYS = {"maxVisits": "max_visits", "numAnalysisThreads": "workers",
               "reportAnalysisWinratesAs": "report_as", "analysisPVLen": "pv_length"}


@dataclass
class Query:
    """One analysis query, checked: the positions of its turns and what to report."""

    id: str
    raw: dict
    size: int
    komi: float
    rules: dict
    initial: list[tuple[str, tuple[int, int]]]
    moves: list[tuple[str, tuple[int, int] | None]]
    initial_player: str | None
    turns: list[int]
    priorities: list[int]
    max_visits: int
    ownership: bool = False
    policy: bool = False
    pv_visits: bool = False
    report_every: float | None = None
    report_as: str = "BLACK"  # reportAnalysisWinratesAs: the settings', or the query's overrideSettings
    pv_length: int = PV_LENGTH
    warnings: list[dict] = field(default_factory=list)
    restrictions: list[Restriction] = field(default_factory=list)  # avoidMoves, then allowMoves
    moves_ownership: bool = False  # includeMovesOwnership: each move's ownership


@dataclass
class Restriction:
    """One entry of ``avoidMoves`` (``avoid``) or ``allowMoves``: the points ``player``'s
    moves in the first ``until_depth`` plies of the search may not (may only) take."""

    avoid: bool
    player: str
    points: list[tuple[int, int]]
    until_depth: int


def _restrictions(obj: dict, size: int) -> list[Restriction]:
    """The query's ``avoidMoves`` and ``allowMoves`` (Analysis_Engine.md: each a list of
    ``{"player", "moves", "untilDepth"}``, at most one entry of ``allowMoves``). A pass in
    ``moves`` is dropped: the search passes only when it has no other move."""
    out = []
    for key in ("avoidMoves", "allowMoves"):
        entries = obj.get(key, [])
        if not isinstance(entries, list) or key == "allowMoves" and len(entries) > 1:
            raise QueryError(f"{key} must be a list of {{player, moves, untilDepth}} objects"
                             + (" (at most one for allowMoves)" if key == "allowMoves" else ""), key)
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict) or not {"player", "moves", "untilDepth"} <= set(entry):
                raise QueryError(f"{key}[{i}] must hold player, moves and untilDepth", key)
            try:
                until = _int(entry, "untilDepth", 1, MAX_RESTRICTED_DEPTH)
                player = _player(entry["player"], f"{key}[{i}]")
            except QueryError as e:
                raise QueryError(f"{key}[{i}]: {e}", key) from None
            if not isinstance(entry["moves"], list):
                raise QueryError(f"{key}[{i}].moves must be a list of locations", key)
            try:
                points = [parse_location(v, size) for v in entry["moves"]]
            except ValueError as e:
                raise QueryError(f"{key}[{i}]: {e}", key) from None
            out.append(Restriction(key == "avoidMoves", player, [p for p in points if p is not None], until))
    return out


def restriction_masks(restrictions: list[Restriction], size: int, color: str) -> np.ndarray | None:
    """bool[depth, points]: the points the moves at each depth of the search (``color`` to
    move at the root) may take under ``restrictions`` (``Search.run``'s ``masks``); None without any."""
    if not restrictions:
        return None
    w = size + 2
    depth = max(r.until_depth for r in restrictions)
    masks = np.ones((depth, w * w), dtype=np.bool_)
    for d in range(depth):
        mover = color if d % 2 == 0 else ("w" if color == "b" else "b")
        for r in restrictions:
            if r.player != mover or d >= r.until_depth:
                continue
            chosen = np.zeros(w * w, dtype=np.bool_)
            for point in r.points:
                chosen[flat_index(point, size)] = True
            masks[d] &= ~chosen if r.avoid else chosen
    return masks


def parse_location(text: Any, size: int) -> tuple[int, int] | None:
    """A move's location: a GTP vertex (``C4``), ``pass``, or ``(x,y)`` with x from the
    left and y from the top (KataGo's explicit form); (row, col) with row 0 at the bottom."""
    if not isinstance(text, str):
        raise ValueError(f"location {text!r} is not a string")
    t = text.strip().upper()
    if t == "PASS":
        return None
    explicit = re.fullmatch(r"\(\s*(\d+)\s*,\s*(\d+)\s*\)", t)
    if explicit:
        x, y = int(explicit[1]), int(explicit[2])
        row, col = size - 1 - y, x
    elif len(t) >= 2 and t[0] in GTP_LETTERS[:size] and t[1:].isdigit():
        row, col = int(t[1:]) - 1, GTP_LETTERS.index(t[0])
    else:
        raise ValueError(f"invalid location {text!r}")
    if not (0 <= row < size and 0 <= col < size):
        raise ValueError(f"location {text!r} is off a {size}x{size} board")
    return row, col


def _player(value: Any, what: str) -> str:
    """``B``/``W`` (or ``BLACK``/``WHITE``) as b or w; QueryError naming the field ``what`` is in."""
    if isinstance(value, str) and value.upper() in ("B", "W", "BLACK", "WHITE"):
        return value[0].lower()
    shown = repr(value[:20]) if isinstance(value, str) else f"of type {type(value).__name__}"
    raise QueryError(f"{what}: player {shown} is not B or W", what.split("[", 1)[0])


def _int(obj: dict, key: str, low: int, high: int | None = None) -> int:
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value != int(value):
        raise QueryError(f"{key} must be an integer", key)
    value = int(value)
    if value < low or high is not None and value > high:
        raise QueryError(f"{key} must be an integer from {low} to {high}" if high is not None
                         else f"{key} must be at least {low}", key)
    return value


def _bool(obj: dict, key: str) -> bool:
    value = obj.get(key, False)
    if not isinstance(value, bool):
        raise QueryError(f"{key} must be a boolean", key)
    return value


def _stones(obj: dict, key: str, size: int) -> list[tuple[str, tuple[int, int] | None]]:
    value = obj.get(key, [])
    if not isinstance(value, list):
        raise QueryError(f"{key} must be a list of [player, location] pairs", key)
    out = []
    for i, pair in enumerate(value):
        if not isinstance(pair, list) or len(pair) != 2:
            raise QueryError(f"{key}[{i}] is not a [player, location] pair", key)
        try:
            out.append((_player(pair[0], f"{key}[{i}]"), parse_location(pair[1], size)))
        except ValueError as e:
            raise QueryError(f"{key}[{i}]: {e}", key) from None
        except QueryError as e:
            raise QueryError(str(e), key) from None
    return out


def _field_warnings(obj: dict, qid) -> list[dict]:
    """A warning for each field of the query shapemill does not act on."""
    warnings = []
    for key in obj:
        if key in UNUSED_FIELDS:
            warnings.append({"warning": f"{key} is not supported by shapemill and is ignored", "field": key,
                             "id": qid})
        elif key not in USED_FIELDS:
            warnings.append({"warning": "Unexpected or unused field", "field": key, "id": qid})
    return warnings


def _query_rules(obj: dict, warnings: list[dict], qid) -> dict:
    """The query's ``rules``, with its ``whiteHandicapBonus`` when it gives one; territory
    rules add a warning that they are analysed by area (``played_rules``)."""
    try:
        parsed_rules, area_note = played_rules(obj["rules"])
    except RulesError as e:
        raise QueryError(str(e), "rules") from None
    if area_note is not None:
        warnings.append({"warning": area_note, "field": "rules", "id": qid})
    if "whiteHandicapBonus" in obj:
        if obj["whiteHandicapBonus"] not in ("0", "N-1", "N"):
            raise QueryError("whiteHandicapBonus must be \"0\", \"N-1\" or \"N\"", "whiteHandicapBonus")
        parsed_rules["whiteHandicapBonus"] = obj["whiteHandicapBonus"]
    return parsed_rules


def _turns(obj: dict, moves: list) -> tuple[list[int], list[int]]:
    """The turns to analyse (``analyzeTurns``, default the last) and each one's priority."""
    turns = obj.get("analyzeTurns", [len(moves)])
    if (not isinstance(turns, list) or not turns
            or not all(isinstance(t, int) and not isinstance(t, bool) and 0 <= t <= len(moves) for t in turns)):
        raise QueryError(f"analyzeTurns must be a list of turns from 0 to {len(moves)}", "analyzeTurns")
    priorities = [obj.get("priority", 0)] * len(turns)
    if "priorities" in obj:
        priorities = obj["priorities"]
        if not isinstance(priorities, list) or len(priorities) != len(turns):
            raise QueryError("priorities must be a list as long as analyzeTurns", "priorities")
    if not all(isinstance(p, int) and not isinstance(p, bool) for p in priorities):
        raise QueryError("priority must be an integer", "priorities" if "priorities" in obj else "priority")
    return list(turns), list(priorities)


def _overrides(obj: dict, settings: AnalysisSettings, warnings: list[dict], qid) -> tuple[dict, str, int]:
    """The query's ``overrideSettings``, and the perspective and PV length they give
    (the settings' where they say nothing); a warning for each one not acted on."""
    overrides = obj.get("overrideSettings", {})
    if not isinstance(overrides, dict):
        raise QueryError("overrideSettings must be a JSON object", "overrideSettings")
    report_as, pv_length = settings.report_as, settings.pv_length
    for key, value in overrides.items():
        if key == "reportAnalysisWinratesAs":
            if not isinstance(value, str) or value.upper() not in PERSPECTIVES:
                raise QueryError("reportAnalysisWinratesAs must be BLACK, WHITE or SIDETOMOVE", "overrideSettings")
            report_as = value.upper()
        elif key == "analysisPVLen":
            pv_length = _int(overrides, key, 1, PV_LENGTH_MAX)
        elif key != "maxVisits":
            warnings.append({"warning": f"overrideSettings: {key} is not supported by shapemill and is ignored",
                             "field": "overrideSettings", "id": qid})
    return overrides, report_as, pv_length


def _visits(obj: dict, overrides: dict, settings: AnalysisSettings, warnings: list[dict], qid) -> int:
    """Visits per turn: the query's ``maxVisits`` (or its override's), clamped to
    ``MAX_VISITS`` with a warning, else the settings'."""
    visits = settings.max_visits
    given = {"maxVisits": obj.get("maxVisits", overrides.get("maxVisits"))}
    if given["maxVisits"] is not None:
        visits = _int(given, "maxVisits", 1)
        if visits > MAX_VISITS:
            warnings.append({"warning": f"maxVisits {visits} is more than shapemill searches a turn; "
                                        f"clamped to {MAX_VISITS}", "field": "maxVisits", "id": qid})
            visits = MAX_VISITS
    return visits


def parse_query(obj: dict, settings: AnalysisSettings) -> Query:
    """A query checked field by field as Analysis_Engine.md describes it; ``QueryError``
    naming the first bad field. The positions themselves are checked by ``positions``."""
    qid = obj["id"]
    warnings = _field_warnings(obj, qid)
    for key in ("moves", "rules", "boardXSize", "boardYSize"):
        if key not in obj:
            raise QueryError(f"{key} is required", key)
    x = _int(obj, "boardXSize", 2, rules.MAX_SIZE)
    y = _int(obj, "boardYSize", 2, rules.MAX_SIZE)
    if x != y:
        raise QueryError("shapemill plays on square boards only: boardXSize must equal boardYSize", "boardYSize")
    parsed_rules = _query_rules(obj, warnings, qid)
    komi = obj.get("komi", DEFAULT_KOMI)
    if isinstance(komi, bool) or not isinstance(komi, (int, float)) or not komi_ok(float(komi)):
        raise QueryError("komi must be an integer or half-integer within [-150, 150]", "komi")
    moves = _stones(obj, "moves", x)
    initial = _stones(obj, "initialStones", x)
    if any(p is None for _, p in initial):
        raise QueryError("initialStones cannot hold a pass", "initialStones")
    initial_player = _player(obj["initialPlayer"], "initialPlayer") if "initialPlayer" in obj else None
    turns, priorities = _turns(obj, moves)
    overrides, report_as, pv_length = _overrides(obj, settings, warnings, qid)
    visits = _visits(obj, overrides, settings, warnings, qid)
    every = obj.get("reportDuringSearchEvery")
    if every is not None and (isinstance(every, bool) or not isinstance(every, (int, float))
                              or not 0 < every <= SECONDS_MAX):
        raise QueryError(f"reportDuringSearchEvery must be a positive number of seconds, at most {SECONDS_MAX:g}",
                         "reportDuringSearchEvery")
    return Query(qid, obj, x, float(komi), parsed_rules, initial, moves, initial_player, turns,
                 priorities, visits, _bool(obj, "includeOwnership"), _bool(obj, "includePolicy"),
                 _bool(obj, "includePVVisits"), None if every is None else max(float(every), MIN_REPORT_SECONDS),
                 report_as, pv_length, warnings, _restrictions(obj, x), _bool(obj, "includeMovesOwnership"))


def positions(query: Query) -> dict[int, tuple[Board, str]]:
    """The board and the player to move at each turn asked for; ``QueryError`` on
    stones that overlap or an illegal move (ko, superko, suicide, occupied point)."""
    board = Board(query.size)
    seen = set()
    for color in ("b", "w"):
        points = [p for c, p in query.initial if c == color]
        if seen & set(points) or len(set(points)) != len(points):
            raise QueryError("initialStones puts two stones on one point", "initialStones")
        seen |= set(points)
        try:
            board.setup(color, points)
        except (IllegalMove, ValueError) as e:
            raise QueryError(f"initialStones: {one_line(e)}", "initialStones") from None
    wanted = set(query.turns)
    out = {}
    for turn in range(len(query.moves) + 1):
        if turn in wanted:
            out[turn] = (board.copy(), _to_move(query, turn))
        if turn == len(query.moves):
            break
        color, point = query.moves[turn]
        reason = board.illegal_reason(color, point)
        if reason:
            raise QueryError(f"Illegal move {turn}: {color.upper()} {format_vertex(point)} ({reason})", "moves")
        board.play(color, point)
    return out


def _to_move(query: Query, turn: int) -> str:
    """The player of turn ``turn``: the one who played next in the game, else the other
    of the last move's, else ``initialPlayer``, else White after handicap stones, else Black."""
    if turn < len(query.moves):
        return query.moves[turn][0]
    if query.moves:
        return "w" if query.moves[-1][0] == "b" else "b"
    if query.initial_player:
        return query.initial_player
    colours = {c for c, _ in query.initial}
    return "w" if colours == {"b"} else "b"


@dataclass(order=True)
class Job:
    """One turn of a query waiting for a search: ordered by priority (highest first),
    then by arrival."""

    rank: tuple[int, int]
    query: Query = field(compare=False)
    turn: int = field(compare=False)
    board: Board = field(compare=False)
    color: str = field(compare=False)
    stop: threading.Event = field(compare=False, default_factory=threading.Event)


class AnalysisEngine:
    """The query loop and its worker threads; responses go to ``out``, one line each."""

    def __init__(self, config: SearchConfig, settings: AnalysisSettings, prior: MovePrior | None,
                 out: TextIO) -> None:
        self.config = config
        self.settings = settings
        self.prior = prior
        self.out = out
        self._out_lock = threading.Lock()
        self._jobs: list[Job] = []
        self._running: list[Job] = []
        self._cond = threading.Condition()
        self._closing = False
        self._gone = False  # the client closed our output
        self._order = itertools.count()
        self._workers = [threading.Thread(target=self._work, daemon=True) for _ in range(max(1, settings.workers))]
        for worker in self._workers:
            worker.start()

    # --- input ------------------------------------------------------------

    def handle(self, line: str) -> None:
        """Read one input line: queue its turns, carry out its action, or answer its error.
        Whatever the line holds, it is answered and the engine goes on."""
        if not line.strip():
            return
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError) as e:  # RecursionError: nested deeper than Python's stack
            self.send({"error": f"Could not parse json: {one_line(e)}"})
            return
        try:
            self._handle(obj)
        except Exception as e:  # a bug must not take the engine away: the line gets its error
            self.send({"error": f"internal error: {type(e).__name__}: {one_line(e)}"})

    def _handle(self, obj: Any) -> None:
        if not isinstance(obj, dict):
            self.send({"error": "Request line was valid json but was not an object"})
            return
        if not isinstance(obj.get("id"), str):
            self.send({"error": "Request must have a string id field"})
            return
        if "action" in obj:
            self._action(obj)
            return
        try:
            query = parse_query(obj, self.settings)
            boards = positions(query)
        except QueryError as e:
            self.send({"error": str(e), "field": e.field or "id", "id": obj["id"]})
            return
        for warning in query.warnings:
            self.send(warning)
        with self._cond:
            for turn, priority in zip(query.turns, query.priorities):
                board, color = boards[turn]
                heapq.heappush(self._jobs, Job((-priority, next(self._order)), query, turn, board, color))
            self._cond.notify_all()

    def _action(self, obj: dict) -> None:
        action = obj["action"]
        if action == "query_version":
            self.send({**obj, "version": VERSION, "git_hash": "<omitted>"})
        elif action == "clear_cache":
            self.send(obj)  # every turn is searched afresh: nothing is kept between queries
        elif action in ("terminate", "terminate_all"):
            target = obj.get("terminateId")
            turns = obj.get("turnNumbers")
            if action == "terminate" and not isinstance(target, str):
                self.send({"error": "terminate needs a string terminateId", "field": "terminateId", "id": obj["id"]})
                return
            if turns is not None and not (isinstance(turns, list) and all(isinstance(t, int) for t in turns)):
                self.send({"error": "turnNumbers must be a list of integers", "field": "turnNumbers",
                           "id": obj["id"]})
                return
            self.terminate(target, turns)
            self.send(obj)
        else:
            self.send({"error": "action must be query_version, terminate, terminate_all or clear_cache",
                       "field": "action", "id": obj["id"]})

    def terminate(self, target: str | None, turns: list[int] | None) -> None:
        """Stop the matching turns: queued ones are answered ``noResults``, running ones
        end their search and report what they found."""

        def hit(job: Job) -> bool:
            return (target is None or job.query.id == target) and (turns is None or job.turn in turns)

        with self._cond:
            dropped = [job for job in self._jobs if hit(job)]
            self._jobs = [job for job in self._jobs if not hit(job)]
            heapq.heapify(self._jobs)
            for job in self._running:
                if hit(job):
                    job.stop.set()
        for job in sorted(dropped):
            self.send({"id": job.query.id, "isDuringSearch": False, "noResults": True, "turnNumber": job.turn})

    def close(self) -> None:
        """End of input: finish the queued turns, then stop the workers."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        for worker in self._workers:
            worker.join()

    # --- output -----------------------------------------------------------

    def send(self, obj: dict) -> None:
        """Write one response line (``, :`` separators, as KataGo) and flush it. A client
        that closed its end ends the searches, without a traceback."""
        try:
            line = json.dumps(obj, separators=(",", ":"))
        except (ValueError, RecursionError) as e:  # an action echoed back nested too deep to write
            line = json.dumps({"error": f"cannot write the response: {one_line(e)}", "id": obj.get("id")
                               if isinstance(obj.get("id"), str) else None}, separators=(",", ":"))
        with self._out_lock:
            try:
                self.out.write(line + "\n")
                self.out.flush()
            except OSError:  # a broken pipe: nobody is listening any more
                self._gone = True
        if self._gone:
            self.terminate(None, None)

    # --- the searches -------------------------------------------------------

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._jobs and not self._closing:
                    self._cond.wait()
                if not self._jobs:
                    return
                job = heapq.heappop(self._jobs)
                self._running.append(job)
            try:
                self._search(job)
            except Exception as e:  # a bug must not take the engine away: the query gets its error line
                self.send({"error": f"internal error: {type(e).__name__}: {one_line(e)}", "field": "id",
                           "id": job.query.id})
            finally:
                with self._cond:
                    self._running.remove(job)

    def _search(self, job: Job) -> None:
        query = job.query
        c = rules.BLACK if job.color == "b" else rules.WHITE
        komi = query.komi + handicap_bonus(query.rules, job.board)
        config = replace(self.config, komi=komi, threads=1, seed=self.config.seed + job.turn)
        search = Search(config, self.prior)
        prior, knowledge = search.priors(job.board, c)
        reporter = None
        if query.report_every is not None:
            done = threading.Event()
            reporter = threading.Thread(target=self._report_during, args=(job, search, done), daemon=True)
            reporter.start()
        try:
            result = search.run(job.board, c, prior, knowledge, stop=job.stop, budget=Budget(query.max_visits),
                                masks=restriction_masks(query.restrictions, query.size, job.color),
                                move_ownership=query.moves_ownership)
        finally:
            if reporter is not None:
                done.set()
                reporter.join()
        self.send(self._response(job, search, prior, result.owner, during=False))

    def _report_during(self, job: Job, search: Search, done: threading.Event) -> None:
        while not done.wait(job.query.report_every):
            if search.analysis(job.board):
                self.send(self._response(job, search, None, search.owner_so_far(), during=True))

    def _response(self, job: Job, search: Search, prior, owner, during: bool) -> dict:
        """One response of KataGo's form for ``job``'s turn, from the search so far."""
        query = job.query
        perspective = {"BLACK": "b", "WHITE": "w"}.get(query.report_as, job.color)
        report = search_report(search, job.board, job.color, query.pv_length, perspective)
        infos = []
        for order, move in enumerate(report.moves):
            info = {"move": format_vertex(move.point), "visits": move.visits, "winrate": move.winrate,
                    "scoreMean": move.score, "scoreStdev": move.score_stdev, "scoreLead": move.score,
                    "scoreSelfplay": move.score, "prior": move.prior, "utility": move.utility, "lcb": move.lcb,
                    "utilityLcb": move.utility_lcb, "order": order,
                    "pv": [format_vertex(p) for p in move.pv]}
            if query.pv_visits:
                info["pvVisits"] = move.pv_visits
            if query.moves_ownership:
                info["ownership"] = self._ownership(search.move_owner(flat_index(move.point, query.size)),
                                                    query.size, perspective)
            infos.append(info)
        root = report.root
        obj: dict[str, Any] = {
            "id": query.id, "isDuringSearch": during, "turnNumber": job.turn, "moveInfos": infos,
            "rootInfo": {"currentPlayer": job.color.upper(), "visits": root.visits, "winrate": root.winrate,
                         "scoreLead": root.score, "scoreSelfplay": root.score, "scoreStdev": root.score_stdev,
                         "utility": root.utility, "lcb": root.lcb, "utilityLcb": root.utility_lcb,
                         "thisHash": report.this_hash, "symHash": report.sym_hash}}
        if query.ownership:
            obj["ownership"] = self._ownership(owner, query.size, perspective)
        if query.policy:
            if prior is None and self.prior is not None:
                c = rules.BLACK if job.color == "b" else rules.WHITE
                prior = self.prior(job.board.b, job.board.m, c)
            obj["policy"] = legal_policy(job.board, job.color, prior)
        return obj


    @staticmethod
    def _ownership(owner: np.ndarray, size: int, perspective: str) -> list[float]:
        """An ownership array as KataGo writes it: board order, from ``perspective``'s side."""
        sign = 1.0 if perspective == "b" else -1.0
        return [round(sign * float(v), OWNERSHIP_DECIMALS) for v in board_order(owner, size)]


def run_analysis(config: SearchConfig, settings: AnalysisSettings, prior: MovePrior | None = None,
                 stdin: TextIO | None = None, stdout: TextIO | None = None,
                 ready: Callable[[str], None] | None = None, finish: bool = True) -> None:
    """The analysis engine on stdin / stdout until the end of input, then the queued
    turns are finished (``finish``) or terminated (KataGo's ``-quit-without-waiting``).
    The kernels and the table warm up in the background meanwhile; ``ready`` (default: a
    line on standard error) hears KataGo's start-up line, which clients such as
    KataGoAnal wait for."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    if isinstance(stdin, io.TextIOWrapper):
        stdin.reconfigure(errors="replace")
    threading.Thread(target=_warm_up, args=(config, prior), daemon=True, name=WARM_UP_THREAD).start()
    engine = AnalysisEngine(config, settings, prior, stdout)
    (ready or (lambda text: print(text, file=sys.stderr, flush=True)))(f"{NAME} {VERSION}: {READY}")
    for line in stdin:
        engine.handle(line)
    if not finish:
        engine.terminate(None, None)
    engine.close()


def _warm_up(config: SearchConfig, prior: MovePrior | None) -> None:
    """``warm_up`` in the background; a failure is one line on standard error (the query that
    meets it again gets the error)."""
    failure = warm_up(config, WARM_UP_SIZE, prior)
    if failure:
        print(f"shapemill analysis: warm-up failed: {failure}", file=sys.stderr, flush=True)

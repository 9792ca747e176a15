"""Depth-first proof-number search (df-pn, Nagai 2002): PNS in the memory of the table.

A node is searched while its proof and disproof numbers stay under thresholds
given by its parent; the children's numbers live on the stack, seeded from the
table (solved bounds, or numbers left by earlier visits). The best child's threshold is
the second best's number times 1 + ``EPSILON`` (Pawlewicz and Lew 2007), not plus one:
proofs that depend on the path (superko) are not stored, so each return to a sibling
searches them again, and thresholds one above the sibling's make the search seesaw
between symmetric moves (bench/RESULTS.md, "Exact search": the 1+epsilon threshold).

The search is a numba kernel over an explicit stack (a frame per position from the root:
its board, thresholds and children), an open-addressing table and a hash set of the
path's board hashes. All its state lives in arrays, so the kernel can stop and go on:
it returns to Python every ``CHECK_EVERY`` nodes (the clock, progress), and when the
table or the stack is full (Python doubles it).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ...go.reading import captures_any
from ...go.rules import BLACK, HASH, META, PASS, STRIDE, play
from .game import DEFENDER, KO_FREE, OPEN, Problem, child_keys, expand_ordered
from .pns import INF, leaf_numbers, pns_by_thresholds
from .table import CHECK_EVERY, FREE, OutOfBudget, Progress, Result, Search

#: Slack of the best child's proof threshold over the second best's number.
EPSILON = 0.25

#: What the kernel returns: the root is solved, ``CHECK_EVERY`` nodes passed, the node
#: budget is spent, the table is three quarters full, the stack is full; running on.
DONE, PAUSED, OUT, FULL, DEEP, RUNNING = range(6)

#: A table entry: the position's key, its proof and disproof numbers in proof ``proof``
#: (0: none), bounds on Black's value, whether the slot is used.
ENTRY = np.dtype([("key", np.int64), ("pn", np.int64), ("dn", np.int64), ("lo", np.int16),
                  ("hi", np.int16), ("proof", np.int16), ("used", np.int16)])

#: Frame fields: side to move, whether the move into it passed, key, proof and disproof
#: thresholds, path index of its position, shallowest path index a superko ban among its
#: moves hit, number of children (-1: not expanded yet), the move into it, and whether
#: its position adds to the path (not a pass's, nor a repetition by ``KO_FREE``'s side).
F_COLOR, F_PASSED, F_KEY, F_TPN, F_TDN, F_OWN, F_BAN, F_KIDS, F_MOVE, F_ON_PATH = range(10)
FRAME = 10
#: Child fields: move, key, board hash, proof and disproof numbers, superko dependency.
K_MOVE, K_KEY, K_HASH, K_PN, K_DN, K_DEP = range(6)
KID = 6
#: Control fields: depth, nodes so far, node budget, proof count, goal, value range, table
#: entries, path length, the root's answer (proved, move: -1 none), and whether new
#: children of a ``kill``/``live`` goal start from ``game.efforts_after`` rather than 1 and 1.
C_DEPTH, C_NODES, C_MAX, C_PROOF, C_GOAL, C_LO, C_HI, C_ENTRIES, C_PLEN, C_PROVED, C_MOVE, C_HINTS = range(12)
CONTROL = 12
NO_MOVE = -1

#: The superko dependency of a result that another path may change: stored at no depth.
ANYWHERE = -1

#: First sizes of the table (entries) and of the stack (frames); both double when full.
TABLE_SLOTS = 1 << 16
STACK_FRAMES = 128


class Stack(NamedTuple):
    """The kernel's stack, a frame per position from the root, and the path's hash set."""

    frames: np.ndarray  # (frames, FRAME): the F_ fields
    kids: np.ndarray  # (frames, points + 1, KID): each frame's children, the K_ fields
    boards: np.ndarray  # (frames, rows, points): each frame's board
    metas: np.ndarray  # (frames, META): each frame's meta row
    path: np.ndarray  # (slots, 2): the path's board hashes, [hash, path index] (-1: empty)


class ProblemArrays(NamedTuple):
    """What the kernel needs of a ``Problem``: the arrays ``expand_ordered`` and
    ``child_keys`` read."""

    region: np.ndarray
    goal: np.ndarray
    mark: np.ndarray
    knowledge: object  # the prior's KnowledgeArrays, or None
    cache: object  # its PatternCache, or None
    maps: np.ndarray


@njit(cache=True)
def _slot(table: np.ndarray, key: int) -> int:
    """The table slot of ``key``: where it is, or the empty slot where it goes."""
    mask = len(table) - 1
    i = key & mask
    while table[i].used and table[i].key != key:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _entry(table: np.ndarray, ctl: np.ndarray, key: int) -> int:
    """The slot of ``key``, made with the whole value range and no numbers if new."""
    i = _slot(table, key)
    e = table[i]
    if not e.used:
        e.key, e.used, e.lo, e.hi, e.proof = key, 1, ctl[C_LO], ctl[C_HI], 0
        ctl[C_ENTRIES] += 1
    return i


@njit(cache=True)
def _rehash(old: np.ndarray, new: np.ndarray) -> None:
    """Every entry of ``old`` into the empty, larger ``new``."""
    for i in range(len(old)):
        if old[i].used:
            new[_slot(new, old[i].key)] = old[i]


@njit(cache=True)
def _path_slot(path: np.ndarray, h: int) -> int:
    """The slot of board hash ``h`` in the path's hash set (``[hash, index]``, index -1:
    empty): where it is, or the empty slot where it goes. Entries leave in the reverse
    order they came, so emptying a slot never breaks another's probe sequence."""
    mask = len(path) - 1
    i = h & mask
    while path[i, 1] >= 0 and path[i, 0] != h:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _fill_path(path: np.ndarray, frames: np.ndarray, metas: np.ndarray, depth: int) -> None:
    """The path set of the stack's positions down to ``depth``: each position that adds
    to the path, at its path index, in the order they came."""
    path[:, 1] = -1
    for d in range(depth + 1):
        if frames[d, F_ON_PATH]:
            i = _path_slot(path, metas[d, HASH])
            path[i, 0], path[i, 1] = metas[d, HASH], frames[d, F_OWN]


@njit(cache=True)
def _visit(ctl: np.ndarray) -> int:
    """Count a node: OUT past the budget, PAUSED every ``CHECK_EVERY`` nodes, else RUNNING."""
    ctl[C_NODES] += 1
    if ctl[C_NODES] > ctl[C_MAX]:
        return OUT
    return PAUSED if ctl[C_NODES] % CHECK_EVERY == 0 else RUNNING


@njit(cache=True)
def _expand(stack: Stack, table: np.ndarray, ctl: np.ndarray, d: int, problem: ProblemArrays) -> None:
    """The children of frame ``d``'s position: moves that recreate a position of the path
    are dropped (the shallowest path index they hit is the frame's ban) unless the goal's
    ``KO_FREE`` side makes them, the others get proof and disproof numbers from their
    value, the table's bounds, or the numbers this proof left there (not a repetition:
    those are its ancestor's, which would grow with its own round the cycle)."""
    frames, kids, boards, metas, path = stack.frames, stack.kids, stack.boards, stack.metas, stack.path
    goal = problem.goal
    color = frames[d, F_COLOR]
    efforts = np.empty((boards.shape[2] + 1 if ctl[C_HINTS] else 0, 2), dtype=np.int64)
    moves, hashes, kos, values = expand_ordered(boards[d], metas[d], color, frames[d, F_PASSED] == 1,
                                                problem.region, goal, problem.mark, efforts, problem.knowledge,
                                                problem.cache)
    keys = child_keys(boards[d], metas[d], color, moves, hashes, kos, problem.maps)
    if not ctl[C_HINTS]:
        efforts = np.ones((len(moves), 2), dtype=np.int64)
    kill, live = efforts[:, 0], efforts[:, 1]
    prove, disprove = (live, kill) if goal[DEFENDER] == BLACK else (kill, live)
    k, ban = 0, FREE
    free = goal[KO_FREE] == color
    for i in range(len(moves)):
        mv, h = moves[i], hashes[i]
        repeat = False
        if mv != PASS:
            j = _path_slot(path, h)
            if path[j, 1] >= 0:
                if not free:
                    ban = min(ban, path[j, 1])
                    continue
                repeat = True
        key = keys[i]
        lo, hi, pn, dn = ctl[C_LO], ctl[C_HI], prove[i], disprove[i]
        if values[i] == OPEN:
            e = table[_slot(table, key)]
            if e.used:
                lo, hi = max(lo, e.lo), min(hi, e.hi)
                if e.proof == ctl[C_PROOF] and not repeat:
                    pn, dn = e.pn, e.dn
        spn, sdn = leaf_numbers(values[i], lo, hi, ctl[C_GOAL])
        if spn == 0 or sdn == 0:
            pn, dn = spn, sdn
        kid = kids[d, k]
        kid[K_MOVE], kid[K_KEY], kid[K_HASH], kid[K_PN], kid[K_DN] = mv, key, h, pn, dn
        kid[K_DEP] = ANYWHERE if _bound_side_wins(goal, boards[d], metas[d], color, mv, pn, dn) else FREE
        k += 1
    frames[d, F_KIDS], frames[d, F_BAN] = k, ban


@njit(cache=True)
def _bound_side_wins(goal: np.ndarray, b: np.ndarray, m: np.ndarray, color: int, move: int,
                     pn: int, dn: int) -> bool:
    """With a ``KO_FREE`` side, whether ``color``'s ``move`` captures and its child (``pn``,
    ``dn``) is a win of the other side, the one bound by superko. Another path may forbid a
    move of that win (it recreates a board of that path), and a line that comes back to a
    board of the path above mostly does so by a capture below: a win with a capture in it
    is stored nowhere above the capture (docs/solve.md, "Superko and graph-history
    interaction", says what this leaves out)."""
    free = goal[KO_FREE]
    if free == 0 or move == PASS or (dn != 0 if free == BLACK else pn != 0):
        return False
    return captures_any(b, m[STRIDE], color, move)


@njit(cache=True)
def _numbers(kids: np.ndarray, n: int, black: bool) -> tuple[int, int]:
    """Proof and disproof numbers of a node from its ``n`` children: the mover needs one
    child, the opponent all of them. A sum stops at INF - 1 while the mover has no winning
    child: INF is a solved node's, and an open node's numbers that reached it would meet
    the root's thresholds and end the search with no answer read as a loss."""
    first, second = (K_PN, K_DN) if black else (K_DN, K_PN)
    a, b = INF, 0
    for i in range(n):
        a = min(a, kids[i, first])
        b += kids[i, second]
    b = min(INF if a == 0 else INF - 1, b)
    return (a, b) if black else (b, a)


@njit(cache=True)
def _sort_kids(kids: np.ndarray, n: int, field: int) -> None:
    """Sort the children by ``field``, stably (ties keep their order)."""
    for i in range(1, n):
        j = i
        while j > 0 and kids[j - 1, field] > kids[j, field]:
            for f in range(KID):
                kids[j, f], kids[j - 1, f] = kids[j - 1, f], kids[j, f]
            j -= 1


@njit(cache=True)
def _finish(stack: Stack, table: np.ndarray, ctl: np.ndarray, d: int, pn: int, dn: int) -> tuple[int, int]:
    """Leave frame ``d`` with its numbers: a solved node's superko dependency and winning
    move (its bounds stored when no ban above it shaped them), an unsolved node's numbers
    kept for this proof."""
    frames, kids = stack.frames, stack.kids
    n = frames[d, F_KIDS]
    if pn != 0 and dn != 0:
        e = table[_entry(table, ctl, frames[d, F_KEY])]
        e.pn, e.dn, e.proof = pn, dn, ctl[C_PROOF]
        return FREE, NO_MOVE
    proved = pn == 0
    field = K_PN if proved else K_DN
    if proved == (frames[d, F_COLOR] == BLACK):  # one child settles it
        i = 0
        while kids[d, i, field] != 0:
            i += 1
        dep, move = kids[d, i, K_DEP], kids[d, i, K_MOVE]
    else:
        dep, move = frames[d, F_BAN], NO_MOVE
        for i in range(n):
            dep = min(dep, kids[d, i, K_DEP])
    if dep >= frames[d, F_OWN]:
        e = table[_entry(table, ctl, frames[d, F_KEY])]
        if proved:
            e.lo = max(e.lo, ctl[C_GOAL])
        else:
            e.hi = min(e.hi, ctl[C_GOAL] - 1)
    return dep, move


@njit(cache=True)
def _push(stack: Stack, ctl: np.ndarray, d: int) -> None:
    """Play frame ``d``'s first child into frame ``d + 1`` with its thresholds: the
    1 + epsilon trick for the mover's number, the room the siblings leave for the other."""
    frames, kids, boards, metas, path = stack.frames, stack.kids, stack.boards, stack.metas, stack.path
    black = frames[d, F_COLOR] == BLACK
    n = frames[d, F_KIDS]
    first, second = (K_PN, K_DN) if black else (K_DN, K_PN)
    t_first, t_second = (frames[d, F_TPN], frames[d, F_TDN]) if black else (frames[d, F_TDN], frames[d, F_TPN])
    rest = 0
    for i in range(n):
        rest += kids[d, i, second]
    a2 = kids[d, 1, first] if n > 1 else INF
    ta = min(t_first, a2 + 1 + int(a2 * EPSILON))
    tb = t_second - min(INF, rest) + kids[d, 0, second]
    move = kids[d, 0, K_MOVE]
    boards[d + 1] = boards[d]
    metas[d + 1] = metas[d]
    play(boards[d + 1], metas[d + 1], frames[d, F_COLOR], move)
    f = frames[d + 1]
    f[F_COLOR], f[F_PASSED], f[F_KEY] = 3 - frames[d, F_COLOR], 1 if move == PASS else 0, kids[d, 0, K_KEY]
    f[F_KIDS], f[F_MOVE] = -1, move
    f[F_TPN], f[F_TDN] = (ta, tb) if black else (tb, ta)
    i = _path_slot(path, kids[d, 0, K_HASH])
    f[F_ON_PATH] = move != PASS and path[i, 1] < 0
    if move == PASS:
        f[F_OWN] = frames[d, F_OWN]
    elif not f[F_ON_PATH]:  # the ko-free side's repetition: a ban from the cycle above is no ban below
        f[F_OWN] = ctl[C_PLEN]
    else:
        f[F_OWN] = ctl[C_PLEN]
        path[i, 0], path[i, 1] = kids[d, 0, K_HASH], ctl[C_PLEN]
        ctl[C_PLEN] += 1
    ctl[C_DEPTH] = d + 1


@njit(cache=True)
def _pop(stack: Stack, ctl: np.ndarray, d: int, pn: int, dn: int, dep: int, goal: np.ndarray) -> None:
    """Return from frame ``d`` to its parent, whose first child it was: the child's numbers
    and dependency go there, its position leaves the path."""
    frames, kids, metas, path = stack.frames, stack.kids, stack.metas, stack.path
    if frames[d, F_ON_PATH]:
        path[_path_slot(path, metas[d, HASH]), 1] = -1
        ctl[C_PLEN] -= 1
    if _bound_side_wins(goal, stack.boards[d - 1], metas[d - 1], 3 - frames[d, F_COLOR], frames[d, F_MOVE], pn, dn):
        dep = ANYWHERE
    kid = kids[d - 1, 0]
    kid[K_PN], kid[K_DN], kid[K_DEP] = pn, dn, dep
    ctl[C_DEPTH] = d - 1


@njit(cache=True)
def _run(stack: Stack, table: np.ndarray, ctl: np.ndarray, problem: ProblemArrays) -> int:
    """Search on from where the stack stands until the root is solved or Python is needed
    (the clock, the budget, a larger table or stack); the status."""
    frames, kids = stack.frames, stack.kids
    while True:
        d = ctl[C_DEPTH]
        if frames[d, F_KIDS] < 0:
            _expand(stack, table, ctl, d, problem)
        if 4 * ctl[C_ENTRIES] >= 3 * len(table):
            return FULL
        black = frames[d, F_COLOR] == BLACK
        pn, dn = _numbers(kids[d], frames[d, F_KIDS], black)
        if pn == 0 or dn == 0 or pn >= frames[d, F_TPN] or dn >= frames[d, F_TDN]:
            dep, move = _finish(stack, table, ctl, d, pn, dn)
            if d == 0:
                ctl[C_PROVED], ctl[C_MOVE] = 1 if pn == 0 else 0, move
                return DONE
            _pop(stack, ctl, d, pn, dn, dep, problem.goal)
            continue
        if d + 1 == len(frames):
            return DEEP
        _sort_kids(kids[d], frames[d, F_KIDS], K_PN if black else K_DN)
        _push(stack, ctl, d)
        status = _visit(ctl)
        if status != RUNNING:
            return status


class Dfpn:
    """The kernel's table and stack for one problem, kept from one proof to the next
    (the bounds in the table hold for every goal; the numbers are each proof's own)."""

    def __init__(self, problem: Problem, hints: bool = True) -> None:
        self.problem = problem
        b, m = problem.root.b, problem.root.m
        self.table = np.zeros(TABLE_SLOTS, dtype=ENTRY)
        self.ctl = np.zeros(CONTROL, dtype=np.int64)
        self.ctl[C_HINTS] = hints
        self.ctl[C_LO], self.ctl[C_HI] = problem.lo, problem.hi
        self.stack = self._stack(STACK_FRAMES, b, m)
        knowledge, cache = problem.ordering()
        self.kernel_problem = ProblemArrays(region=problem.region, goal=problem.goal, mark=problem.mark,
                                            knowledge=knowledge, cache=cache, maps=problem.maps)

    @staticmethod
    def _stack(frames: int, b: np.ndarray, m: np.ndarray) -> Stack:
        """An empty stack of ``frames`` frames for boards like ``b``, ``m``, and its path set."""
        points = b.shape[1]
        return Stack(frames=np.zeros((frames, FRAME), dtype=np.int64),
                     kids=np.zeros((frames, points + 1, KID), dtype=np.int64),
                     boards=np.zeros((frames, *b.shape), dtype=b.dtype),
                     metas=np.zeros((frames, META), dtype=m.dtype),
                     path=np.full((2 * _power_of_two(frames), 2), -1, dtype=np.int64))

    def _deeper(self) -> None:
        """Twice the stack, with the frames so far."""
        old = self.stack
        frames = len(old.frames)
        new = self._stack(2 * frames, self.problem.root.b, self.problem.root.m)
        for a, b in ((old.frames, new.frames), (old.kids, new.kids), (old.boards, new.boards), (old.metas, new.metas)):
            b[:frames] = a
        _fill_path(new.path, new.frames, new.metas, int(self.ctl[C_DEPTH]))
        self.stack = new

    def _larger(self) -> None:
        """Twice the table, with its entries."""
        new = np.zeros(2 * len(self.table), dtype=ENTRY)
        _rehash(self.table, new)
        self.table = new

    def solve(self, problem: Problem, max_nodes: int, seconds: float | None = None,
              progress: Progress | None = None) -> Result:
        """Black's value of ``problem`` (``dfpn``): this table's problem, or the same goal
        and region from another root (a move's child), whose search starts from the
        bounds the earlier searches left in the table."""
        if not self.serves(problem):
            raise ValueError("a df-pn table serves one goal and region")
        return pns_by_thresholds(problem, self.prove, max_nodes, seconds, progress)

    def serves(self, problem: Problem) -> bool:
        """Whether this table's bounds hold for ``problem``: the same goal and region."""
        return np.array_equal(problem.goal, self.problem.goal) and np.array_equal(problem.region, self.problem.region)

    def prove(self, search: Search, problem: Problem, goal: int) -> tuple[bool, int | None]:
        """Whether Black's value is at least ``goal``, and the root move that shows it."""
        ctl, root = self.ctl, problem.root
        ctl[C_PROOF] += 1
        ctl[C_GOAL], ctl[C_NODES], ctl[C_MAX], ctl[C_DEPTH], ctl[C_PLEN] = goal, search.nodes, search.max_nodes, 0, 1
        frames, boards, metas, path = self.stack.frames, self.stack.boards, self.stack.metas, self.stack.path
        boards[0], metas[0] = root.b, root.m
        frames[0] = 0
        frames[0, F_COLOR], frames[0, F_PASSED], frames[0, F_KEY] = root.color, root.passed, problem.canonical(root)[0]
        frames[0, F_TPN], frames[0, F_TDN], frames[0, F_KIDS], frames[0, F_MOVE] = INF, INF, -1, PASS
        frames[0, F_ON_PATH] = 1
        _fill_path(path, frames, metas, 0)
        status = _visit(ctl)
        while status != DONE:
            search.nodes = int(ctl[C_NODES])
            if status == OUT:
                raise OutOfBudget
            if status == PAUSED:
                search.check_clock()
            elif status == FULL:
                self._larger()
            elif status == DEEP:
                self._deeper()
            status = _run(self.stack, self.table, ctl, self.kernel_problem)
        search.nodes = int(ctl[C_NODES])
        return bool(ctl[C_PROVED]), None if ctl[C_MOVE] == NO_MOVE else int(ctl[C_MOVE])


def _power_of_two(n: int) -> int:
    """The smallest power of two not below ``n``."""
    return 1 << max(0, n - 1).bit_length()


def dfpn(problem: Problem, max_nodes: int = 1_000_000, seconds: float | None = None,
         progress: Progress | None = None, hints: bool = True) -> Result:
    """Black's value by df-pn: one proof for a goal, a binary search over thresholds for the score;
    ``hints``: new children of a ``kill``/``live`` goal start from the target's liberties and
    inner space (``game.efforts_after``)."""
    return Dfpn(problem, hints).solve(problem, max_nodes, seconds, progress)

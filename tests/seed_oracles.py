"""The seeds' formulas and algorithms in plain Python, written from the seeds' text alone
(``../shared/docs/design.md`` quotes them; issue 48 lists the lines), with a value worked by
hand for each (``HAND``). Nothing here is imported from shapemill and no constant is taken
from it: where a seed leaves a function open (Eq. 3's schedules, progressive widening's
K(n)), the oracle takes it as an argument and the test passes the engine's documented
choice as a number of its own.

Symbols (Algorithm 3 of MoGo 2008): p = Wins / Sims of the move, n = Sims of the move,
N = Sims of the node.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

# --- Algorithm 3's bandits; UCT as course 004 writes it -------------------------------------


def ucb1(p: float, n: float, parent: float) -> float:
    """UCB1: ``p + sqrt(2 log N / n)``."""
    return p + math.sqrt(2 * math.log(parent) / n)


def tuned_variance(p: float) -> float:
    """``V = max(0.001, p (1 - p))``."""
    return max(0.001, p * (1 - p))


def ucb_tuned1(p: float, n: float, parent: float) -> float:
    """UCB-Tuned.1: ``p + sqrt(V log N / n)``."""
    return p + math.sqrt(tuned_variance(p) * math.log(parent) / n)


def ucb_tuned2(p: float, n: float, parent: float) -> float:
    """UCB-Tuned.2: ``p + sqrt(V log N / n + log N / n)``."""
    return p + math.sqrt(tuned_variance(p) * math.log(parent) / n + math.log(parent) / n)


def uct(p: float, n: float, parent: float, k: float = 0.4) -> float:
    """Course 004's UCT: ``p + K sqrt(log N / n)``, K = 0.4."""
    return p + k * math.sqrt(math.log(parent) / n)


# --- MoGo 2008's Eq. 1 and Eq. 3 -------------------------------------------------------------


def eq1(p: float, p_amaf: float, alpha: float) -> float:
    """Eq. 1: ``alpha(d) p + (1 - alpha(d)) p_amaf``."""
    return alpha * p + (1 - alpha) * p_amaf


def eq1_alpha(sims: float, k: float) -> float:
    """An ``alpha(d)`` depending on ``Sims(s, d)`` alone, 0 with no simulation and going to 1:
    ``Sims / (Sims + K)`` (the seed leaves the function open; ``K`` the engine's)."""
    return sims / (sims + k)


def silver_schedule(n: float, an: float, four_b2: float) -> float:
    """Gelly & Silver 2007's minimum-error AMAF weight ``beta = an / (n + an + 4 b^2 n an)``
    (0 without AMAF simulations); ``1 - beta`` is then an ``alpha`` of Eq. 1 that reads the
    AMAF count too, so another formula than the seed's."""
    return an / (n + an + four_b2 * n * an) if an > 0 else 0.0


def eq3(p: float, p_amaf: float, h: float, prob: float, alpha: float, beta: float, gamma: float,
        delta: float) -> float:
    """Eq. 3: ``alpha p + beta p_amaf + gamma H + delta P(d, n)``."""
    return alpha * p + beta * p_amaf + gamma * h + delta * prob


def eq3_constraints_hold(weights: Callable[[float], tuple[float, float, float]], early: float = 1.0,
                         late: float = 1e7) -> bool:
    """Eq. 3's constraints on ``weights(n) = (alpha, beta, gamma)``: ``alpha + beta + gamma
    = 1`` at every n tried, ``gamma(0) = 1``, ``beta >> alpha`` (ten times, at least) for
    few simulations (``early``), ``alpha -> 1`` (within a hundredth at ``late``)."""
    for n in (0.0, early, 10.0, 100.0, 1000.0, late):
        if abs(sum(weights(n)) - 1) > 1e-12:
            return False
    a0, b0, g0 = weights(0.0)
    a1, b1, _ = weights(early)
    a_late, _, _ = weights(late)
    return abs(g0 - 1) < 1e-12 and b1 >= 10 * a1 and a_late > 0.99


# --- Progressive bias, progressive widening, PUCT -------------------------------------------


def progressive_bias(q: float, h: float, n: float, c: float = 1.0) -> float:
    """Chaslot et al. 2007: ``Q + c H / (1 + n)``."""
    return q + c * h / (1 + n)


def widened(priors: Sequence[float], k: int) -> list[int]:
    """Progressive widening: the moves searchable at a visit with ``K(n) = k``: the ``k``
    best by prior (indices, the first of equals first)."""
    order = sorted(range(len(priors)), key=lambda i: (-priors[i], i))
    return sorted(order[:k])


def puct_lecture(q: float, prob: float, n: float) -> float:
    """The AlphaGo lecture's PUCT: ``Q + P(s, a) / (1 + N(s, a))``."""
    return q + prob / (1 + n)


def puct_published(q: float, prob: float, n: float, parent: float, c: float) -> float:
    """The published PUCT: ``Q + c P(s, a) sqrt(N(s)) / (1 + N(s, a))``."""
    return q + c * prob * math.sqrt(parent) / (1 + n)


# --- MoGo's expert knowledge (section 4) and Figure 1's shapes ------------------------------

#: Section 4's virtual AMAF results: shape -> (visits, of them won).
MOGO_EXPERT = {
    "line3": (6.67, 6.67), "line1_alone": (6.67, 0.0), "peep_connect": (5.0, 5.0), "hane": (5.0, 5.0),
    "connect": (5.0, 5.0), "wall": (3.33, 3.33), "bad_kogeima": (2.5, 0.0), "empty_triangle": (5.0, 0.0),
}


def figure1_shapes(grid: Sequence[str], r: int, c: int, own: str = "X") -> set[str]:
    """Figure 1's shapes of the move ``own`` at the empty (r, c) of ``grid`` (rows of
    ``X``, ``O``, ``.``), as the caption conditions them (written for Black, ``own``)."""
    n = len(grid)
    opp = "O" if own == "X" else "X"

    def at(rr: int, cc: int) -> str:
        return grid[rr][cc] if 0 <= rr < n and 0 <= cc < n else "#"

    around = [at(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
    crowded = own in around
    shapes = set()
    line = min(r, c, n - 1 - r, n - 1 - c) + 1
    if line == 3:
        shapes.add("line3")
    if line == 1 and all(x in ".#" for x in around):  # the 5 points around the move empty
        shapes.add("line1_alone")
    for dr in (-1, 1):
        for dc in (-1, 1):
            if at(r + dr, c + dc) != own:
                continue
            between = [(r + dr, c), (r, c + dc)]
            if all(at(*q) != opp for q in between):
                shapes.add("kosumi")
            for white, other in (between, between[::-1]):
                wr, wc = white
                if at(wr, wc) == opp and at(*other) == "." and opp not in (
                        at(wr - 1, wc), at(wr + 1, wc), at(wr, wc - 1), at(wr, wc + 1)):
                    shapes.add("hane")  # the white stone has no friendly stone among its 4 neighbours
    for dr, dc in ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)):
        if at(r + dr, c + dc) != own:
            continue
        if abs(dc) == 2:
            between = [(r, c + dc // 2), (r + dr, c + dc // 2)]
        else:
            between = [(r + dr // 2, c), (r + dr // 2, c + dc)]
        if all(at(*q) != opp for q in between):
            shapes.add("kogeima")  # no white stone between the black stone and the cross
        if not crowded:
            shapes.add("bad_kogeima")  # no black stone around the cross
    for dr, dc in ((2, 0), (-2, 0), (0, 2), (0, -2)):
        if at(r + dr, c + dc) == own and at(r + dr // 2, c + dc // 2) == "." and not crowded:
            shapes.add("bad_tobi")  # no black stone among the 8 points around the cross
    return shapes


# --- Algorithm 5's playout order, fill-board -------------------------------------------------

ALGORITHM5 = ("save atari", "nakade", "fill-board", "patterns", "capture", "random")


def algorithm5_rule(candidates: dict[str, set]) -> str:
    """The rule whose candidates a playout move is drawn from: the first of Algorithm 5's
    order that yields any."""
    return next(rule for rule in ALGORITHM5 if candidates.get(rule))


def fill_board_points(grid: Sequence[str]) -> set[tuple[int, int]]:
    """Fill-board's candidates: the points whose 3x3 block is empty (all nine on the board)."""
    n = len(grid)
    return {(r, c) for r in range(1, n - 1) for c in range(1, n - 1)
            if all(grid[rr][cc] == "." for rr in range(r - 1, r + 2) for cc in range(c - 1, c + 2))}


# --- Playout Policy Adaptation (course 004) and adapt_simple ---------------------------------


def ppa_course(weights: dict, steps: Sequence[tuple[str, object, Sequence]], winner: str,
               alpha: float = 1.0, paper: bool = False) -> dict:
    """The course's ``adapt``: ``P2 = P``; for each step ``(player, move, legal moves of the
    position)`` of the playout in order, where the player is the winner: ``P2[m] += alpha``,
    ``z = sum exp(P2[m'])`` over the legal moves, ``P2[m'] -= alpha / z exp(P2[m'])``; P
    becomes P2. ``weights`` maps (player, move) -> P; returns the new map. With ``paper``,
    the paper's form: ``z`` and the subtracted ``exp`` from ``P``, before the update."""
    p2 = dict(weights)
    for player, move, legal in steps:
        if player != winner:
            continue
        p2[(player, move)] = p2.get((player, move), 0.0) + alpha
        policy = weights if paper else p2
        z = sum(math.exp(policy.get((player, x), 0.0)) for x in legal)
        for x in legal:
            p2[(player, x)] = p2.get((player, x), 0.0) - alpha / z * math.exp(policy.get((player, x), 0.0))
    return p2


def adapt_simple(weight: int) -> int:
    """The course's ``adapt_simple`` of a winner's move: +1 new (0), +2 under 10, +4 under 100,
    +1 beyond."""
    return weight + (1 if weight == 0 else 2 if weight < 10 else 4 if weight < 100 else 1)


# --- Nested Monte-Carlo Search (Cazenave 2009) -----------------------------------------------


def nmcs(moves: Callable, play: Callable, score: Callable, playout: Callable, state, level: int):
    """NMCS: at each step the argmax over all moves of the level below (a playout at level 1),
    the best sequence found so far memorised and followed; returns (score, moves played)."""
    best, best_seq, played = -math.inf, [], []
    while moves(state):
        for m in moves(state):
            after = play(state, m)
            s, seq = playout(after) if level == 1 else nmcs(moves, play, score, playout, after, level - 1)
            if s > best:
                best, best_seq = s, played + [m] + list(seq)
        m = best_seq[len(played)]
        state = play(state, m)
        played.append(m)
    return score(state), played


class ScriptedGame:
    """A single-agent game of three moves, each ``L`` or ``R``, whose level-0 playouts draw
    their moves from a script (the hand-worked NMCS example of ``HAND``)."""

    SCORES = {"LLL": 4, "LLR": 3, "LRL": 2, "LRR": 10, "RLL": 5}

    def __init__(self, script: str) -> None:
        self.script = list(script)

    def moves(self, state: str) -> list[str]:
        return ["L", "R"] if len(state) < 3 else []

    def play(self, state: str, move: str) -> str:
        return state + move

    def score(self, state: str) -> float:
        return self.SCORES.get(state, 0)

    def playout(self, state: str) -> tuple[float, list[str]]:
        seq = [self.script.pop(0) for _ in range(3 - len(state))]
        return self.score(state + "".join(seq)), seq


# --- Values worked by hand -------------------------------------------------------------------

#: Each formula at one point, worked by hand (the arithmetic in the comment).
HAND = {
    # p = 36/60 = 0.6, n = 60, N = 100: ln 100 = 4.605170; 2 * 4.605170 / 60 = 0.153506; sqrt 0.391798
    "ucb1": (ucb1(0.6, 60, 100), 0.991798),
    # V = 0.6 * 0.4 = 0.24; 0.24 * 4.605170 / 60 = 0.0184207; sqrt 0.135723
    "tuned1": (ucb_tuned1(0.6, 60, 100), 0.735723),
    # 0.0184207 + 4.605170 / 60 = 0.0951735; sqrt 0.308502
    "tuned2": (ucb_tuned2(0.6, 60, 100), 0.908502),
    # all 20 won: V = max(0.001, 0) = 0.001; 0.001 * 4.605170 / 20 = 0.000230; sqrt 0.015174
    "tuned-floor": (ucb_tuned1(1.0, 20, 100), 1.015174),
    # 0.4 * sqrt(4.605170 / 60) = 0.4 * 0.277043 = 0.110817
    "uct-k": (uct(0.6, 60, 100), 0.710817),
    # alpha = 60 / (60 + 100) = 0.375; 0.375 * 0.6 + 0.625 * 0.5 = 0.225 + 0.3125
    "eq1": (eq1(0.6, 0.5, eq1_alpha(60, 100)), 0.5375),
    # n = 60, an = 80, 4 b^2 = 1 / 100: 80 / (60 + 80 + 48) = 80 / 188 = 0.425532
    "silver": (silver_schedule(60, 80, 0.01), 0.425532),
    # alpha 0.2, beta 0.3, gamma 0.5, delta 0.1: 0.12 + 0.15 + 0.35 + 0.01 * ... P = 0.4: 0.04
    "eq3": (eq3(0.6, 0.5, 0.7, 0.4, 0.2, 0.3, 0.5, 0.1), 0.12 + 0.15 + 0.35 + 0.04),
    # H = 0.7, n = 60, c = 0.5: 0.5 * 0.7 / 61 = 0.005738
    "progressive-bias": (progressive_bias(0.6, 0.7, 60, 0.5), 0.605738),
    # priors 0.1 0.5 0.2 0.5 0.05, K = 3: the two 0.5s and the 0.2
    "progressive-widening": (widened([0.1, 0.5, 0.2, 0.5, 0.05], 3), [1, 2, 3]),
    # P = 0.3, n = 60: 0.3 / 61 = 0.004918
    "puct": (puct_lecture(0.6, 0.3, 60), 0.604918),
    # c = 1.5, N = 100: 1.5 * 0.3 * 10 / 61 = 0.073770
    "puct-c": (puct_published(0.6, 0.3, 60, 100, 1.5), 0.673770),
    # weights 0, ln 2, 0, alpha 0.5, the middle move won: P2 = 0, ln 2 + 0.5, 0; z = 1 + 2 e^0.5 + 1
    # = 5.297443; each less 0.5 / z exp(P2): 0.094385, 0.311230, 0.094385
    "ppa-course": (ppa_course({("b", 1): math.log(2)}, [("b", 1, (0, 1, 2))], "b", 0.5),
                   {("b", 0): -0.094385, ("b", 1): math.log(2) + 0.188770, ("b", 2): -0.094385}),
    # alpha 1: z = 2 + 2e = 7.436564; 1 / z = 0.134471; 2e / z = 0.731059
    "ppa-course-alpha1": (ppa_course({("b", 1): math.log(2)}, [("b", 1, (0, 1, 2))], "b", 1.0),
                          {("b", 0): -0.134471, ("b", 1): math.log(2) + 0.268941, ("b", 2): -0.134471}),
    # z from P before the update: 1 + 2 + 1 = 4; each less 0.5 / 4 exp(P): 0.125, 0.25, 0.125
    "ppa-paper": (ppa_course({("b", 1): math.log(2)}, [("b", 1, (0, 1, 2))], "b", 0.5, paper=True),
                  {("b", 0): -0.125, ("b", 1): math.log(2) + 0.25, ("b", 2): -0.125}),
    # 4x4: the points whose block lies on the board are (1, 1), (1, 2), (2, 1), (2, 2); a stone at
    # (1, 1) is in all four blocks: none. A stone at (0, 0) is in (1, 1)'s block only.
    "fill-board": ([fill_board_points(["....", ".X..", "....", "...."]),
                    fill_board_points(["X...", "....", "....", "...."])], [set(), {(1, 2), (2, 1), (2, 2)}]),
    "adapt-simple": ([adapt_simple(w) for w in (0, 1, 9, 10, 99, 100)], [1, 3, 11, 14, 103, 101]),
    # Step 1: L's playout draws RR (LRR 10), R's draws LL (RLL 5): best 10, sequence LRR, play L.
    # Step 2: LL's playout draws L (LLL 4: the step's argmax), LR's draws L (LRL 2); the memorised
    # sequence says R. Step 3: LRL 2, LRR 10 (not above 10): follow it, R. Score 10, LRR.
    "nmcs": (nmcs(*(lambda g: (g.moves, g.play, g.score, g.playout))(ScriptedGame("RRLLLL")), "", 1),
             (10, ["L", "R", "R"])),
    # X at (2, 2), O at (2, 3); Black at (3, 3): hane; at (1, 1): kosumi; at (3, 4): bad kogeima
    # (and kogeima? no: O at (2, 3) lies between)
    "figure1": ([figure1_shapes([".....", ".....", "..XO.", ".....", "....."], r, c) for r, c in
                 ((3, 3), (1, 1), (3, 4), (0, 0))],
                [{"hane"}, {"kosumi"}, {"bad_kogeima"}, {"line1_alone"}]),
}


def hand_agrees(name: str, tol: float = 5e-7) -> bool:
    """Whether the oracle's value of ``name`` equals the value worked by hand."""
    got, want = HAND[name]
    return _close(got, want, tol)


def _close(got, want, tol: float) -> bool:
    if isinstance(want, dict):
        return set(got) == set(want) and all(abs(got[k] - want[k]) <= tol for k in want)
    if isinstance(want, (list, tuple)):
        return len(got) == len(want) and all(_close(g, w, tol) for g, w in zip(got, want))
    if isinstance(want, (set, str)):
        return got == want
    return abs(got - want) <= tol

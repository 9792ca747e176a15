"""Every search setting, declared once: its name, default, values, meaning and the kernel
record field it feeds.

``SETTINGS`` is the one declaration. ``SearchConfig`` (the settings of one search) is built
from it, and so are the options of ``gtp`` and of the other commands that take search
settings (``cli.py``), the range checks of GTP and KataGo's config files, and the settings
table of docs/search.md (``settings_table``; a test compares them). A knob has one name
everywhere: the field, the option (``--`` and dashes) and the kernel record's field.

This module imports nothing of the engine's, so the command line reads it without loading
a kernel; the rooms of the search take their lists of choices from here.
"""

from __future__ import annotations

from dataclasses import field, make_dataclass
from typing import Any, NamedTuple

from ..limits import COUNT_MAX, KOMI_MAX, SECONDS_MAX, SEED_MAX, WEIGHT_MAX, WORKERS_MAX, out_of_range

#: Bandit formulas, by their value at ``Selection.bandit``: Algorithm 3 of MoGo 2008
#: (``ucb1``, ``tuned1``, ``tuned2``), Auer's UCB1-Tuned, UCB-V, none beside AMAF (Eq. 1),
#: and UCT as course 004 writes it (``p + K sqrt(log N / n)``, ``K = c_ucb``; 0.4 there).
BANDITS = ("ucb1", "tuned1", "tuned2", "auer-tuned", "ucb-v", "amaf", "uct")
#: What Algorithm 3's bandits read, by their value at ``Selection.bandit_stats``: ``own``, the
#: seed's ``Wins / Sims`` of the move; ``virtual``, the prior mode's value and virtual visits.
BANDIT_STATS = ("own", "virtual")
#: The AMAF weight's schedules, by their value at ``Selection.rave_schedule``: Gelly & Silver's,
#: and MoGo 2008's Eq. 1 with ``alpha(d)`` depending on ``Sims(s, d)`` alone.
RAVE_SCHEDULES = ("silver", "eq1")
#: Ways the offline knowledge enters the score, by their value at ``Selection.prior_mode``.
PRIOR_MODES = ("virtual-wins", "progressive-bias", "puct", "puct-c", "mogo")
#: Playout policies, by their value at ``SearchSettings.playout_policy``; ``mogo``: the seed's
#: order of MoGo's rules, ``mogo-local``: the engine's order before it (``playouts.mogo``);
#: ``nested1``, ``nested2``: nested playouts of level 1 and 2 over ``mogo`` (``playouts.nested``);
#: ``ppa``, ``ppa-simple``: course 004's PPA and ``adapt_simple`` (``playouts.ppa``); ``ppa-paper``:
#: the paper's PPA over the gammas (``playouts.gamma``).
POLICIES = ("random", "mogo", "gamma", "ppa", "mogo-local", "nested1", "nested2", "ppa-paper", "ppa-simple")
#: The knowledge sources of ``--expert``, by their index: ``mogo`` with Figure 1's shapes as its
#: caption conditions them, ``mogo-features`` with the miner's features for all eight.
EXPERTS = ("none", "mogo", "mogo-features")
#: Parallel searches (docs/search.md).
PARALLEL = ("root", "tree", "leaf")


class Setting(NamedTuple):
    """One knob of the search."""

    name: str  # SearchConfig's field; the option is ``--`` and the name with dashes
    default: Any
    help: str
    kind: type = float  # int, float, bool or str
    choices: tuple[str, ...] = ()  # a str setting's values
    low: float = 0.0  # a number's range, as the command line checks it
    high: float = WEIGHT_MAX
    low_open: bool = False  # ``low`` itself excluded
    off: str = ""  # a bool's negative option (``--no-rave``); none: a flag that turns it on
    feeds: str = ""  # the kernel record field it becomes (``Record.field``), or where else it acts
    option: bool = True  # on ``gtp``'s command line (the others are set by protocol commands or code)
    none: str = ""  # what None means, for a setting whose default is None

    @property
    def flag(self) -> str:
        """The option's spelling: ``--`` and the name with dashes."""
        return "--" + self.name.replace("_", "-")


SETTINGS: tuple[Setting, ...] = (
    Setting("playouts", 3000, "Playouts per move.", int, low=1, high=COUNT_MAX, feeds="Budget.playouts"),
    Setting("time_per_move", None, "Seconds per move (replaces --playouts as the limit).", float, high=SECONDS_MAX,
            low_open=True, feeds="Budget.seconds", none="playouts only"),
    Setting("prior_mode", "virtual-wins",
            "How the prior enters the score: virtual wins, + H/(n+1) (Chaslot), the AlphaGo lecture's PUCT "
            "P/(1+n), the published c P sqrt(N)/(1+n), or MoGo's Eq. 3 (docs/search.md).", str, PRIOR_MODES,
            feeds="Selection.prior_mode"),
    Setting("tree_priors", True,
            "The ratings table's priors at every node of the tree, or at the root only (faster).", bool,
            off="--root-priors", feeds="SearchSettings.tree_prior"),
    Setting("prior_visits", 2,
            "With --tree-priors: visits a node has when its moves get the table's priors (2: at once, when it is "
            "expanded; more is cheaper).", int, low=1, high=COUNT_MAX, feeds="SearchSettings.prior_visits"),
    Setting("prior_n", None,
            "With --prior-mode virtual-wins, progressive-bias or mogo: a move the table gives probability P starts "
            "with prior-n * sqrt(P) virtual wins (docs/search.md); more trusts the table longer against the "
            "playouts.", float, feeds="SearchSettings.prior_n",
            none="160 on 19x19, in proportion to the board's points (36 on 9x9)"),
    Setting("playout_policy", "mogo-local",
            "mogo: MoGo's rules in the seed's order; mogo-local: in the order that captures near the last moves; "
            "nested1, nested2: nested playouts of level 1, 2 over mogo (Cazenave 2016); gamma: moves drawn by "
            "their rated tactical gammas (about 30x slower); ppa: Playout Policy Adaptation as course 004 writes it "
            "(Cazenave 2015); ppa-simple: its adapt_simple; ppa-paper: gamma, its weights adapted by the paper's "
            "rule; random: uniform.", str,
            POLICIES, feeds="SearchSettings.playout_policy"),
    Setting("ppa_rate", None, "Learning rate alpha of the ppa policies.", float, feeds="PpaWeights (alpha)",
            none="1 for ppa and ppa-simple, the course's; 0.32 for ppa-paper"),
    Setting("expert", "none",
            "mogo: MoGo's expert knowledge, eight shapes as virtual AMAF results (Figure 1's as its caption "
            "conditions them) and a bonus near the last move by chain distance; mogo-features: the shapes as the "
            "miner's features (docs/search.md).", str, EXPERTS, feeds="Selection.expert, SearchSettings.expert"),
    Setting("rave", True, "RAVE / AMAF values in the tree.", bool, off="--no-rave", feeds="Selection.rave"),
    Setting("bandit", "amaf",
            "Exploration term: MoGo's UCB1, UCB-Tuned.1 or .2, Auer's UCB1-Tuned, UCB-V, none beside RAVE's "
            "AMAF values (MoGo's Eq. 1), or course 004's UCT p + K sqrt(log N / n), K = --c-ucb.", str, BANDITS,
            feeds="Selection.bandit"),
    Setting("c_ucb", 1.0, "Exploration constant of the bandits (1: Algorithm 3's formulas; uct: K).", float,
            feeds="Selection.c_ucb"),
    Setting("bandit_stats", "own",
            "What ucb1, tuned1, tuned2 and uct read: own, the move's own Wins / Sims (Algorithm 3 as written); "
            "virtual, the prior mode's value with its virtual visits counted.", str, BANDIT_STATS,
            feeds="Selection.bandit_stats"),
    Setting("rave_schedule", "silver",
            "The AMAF value's weight: Gelly & Silver's schedule, or MoGo 2008's Eq. 1 with alpha depending on the "
            "move's simulations alone, 1 - alpha = K / (K + n), K = --rave-equiv.", str, RAVE_SCHEDULES,
            feeds="Selection.rave_schedule"),
    Setting("c_pb", 1.0, "Weight of the progressive-bias / PUCT / Eq. 3 delta term.", float,
            feeds="Selection.c_pb"),
    Setting("fpu", 0.1,
            "First-play value: a new child's value is its parent's for the mover less this (progressive-bias, "
            "puct).", float, high=1.0, feeds="Selection.fpu"),
    Setting("rave_equiv", 3500.0,
            "Silver's equivalence parameter: the visits at which a move's own value and its AMAF value weigh the "
            "same (more trusts AMAF longer).", float, low_open=True, feeds="Selection.rave_equiv"),
    Setting("widen", 0.0, "Growth base of progressive widening; 0: off.", float, feeds="Selection.widen"),
    Setting("expand_at", 2, "Visits a leaf below the root has before its moves are added to the tree.", int,
            low=1, high=COUNT_MAX, feeds="SearchSettings.expand_at"),
    Setting("resign", 0.1, "Win rate below which the engine resigns.", float, high=1.0, feeds="choose_move",
            option=False),
    Setting("max_nodes", 4_000_000,
            "Nodes of the tree (19x19 at 10,000 playouts grows 1.3 M; untouched pages cost no memory).", int,
            low=1, high=COUNT_MAX, feeds="Tree", option=False),
    Setting("seed", 0, "Random seed: equal seeds, equal moves.", int, high=SEED_MAX, feeds="seed_rng"),
    Setting("komi", 7.5, "Komi (GTP's komi, an analysis query's, play's --komi).", float, low=-KOMI_MAX,
            high=KOMI_MAX, feeds="SearchSettings.komi", option=False),
    Setting("threads", 1, "Search threads.", int, low=1, high=WORKERS_MAX, feeds="Search (its lanes)"),
    Setting("parallel", "root",
            "root: one tree per thread, merged at the root; tree: one shared tree with virtual loss; leaf: one "
            "tree, --threads playouts at once from each leaf.", str, PARALLEL, feeds="SearchSettings.leaf"),
    Setting("virtual_loss", 1.0, "With --parallel tree: lost visits a thread puts on each node of its path.",
            float, feeds="SearchSettings.virtual_loss"),
    Setting("check_ladders", False,
            "Read the ladder of a string the chosen move extends from atari; if it dies anyway, play the most "
            "visited move that does not run a dead ladder.", bool, feeds="choose_move"),
    Setting("read_life", False,
            "Before each genmove, read the life and death of strings in small regions by df-pn; a move that kills "
            "or saves a string whose fate it decides starts with more of the root's prior.", bool,
            feeds="GtpEngine (solve/urgent.py)"),
)

BY_NAME = {s.name: s for s in SETTINGS}


def _annotation(s: Setting) -> str:
    return s.kind.__name__ + (" | None" if s.default is None else "")


SearchConfig = make_dataclass(
    "SearchConfig",
    [(s.name, _annotation(s), field(default=s.default)) for s in SETTINGS]
    + [("gammas", "np.ndarray | None", field(default=None))],
    namespace={"__doc__": "The settings of a search: one field a ``Setting`` of ``SETTINGS``, and ``gammas`` "
                          "(the gamma and ppa policies' table, ``playouts.gamma.playout_gammas``).",
               "__module__": __name__})


def check_value(s: Setting, value: Any) -> str | None:
    """Why ``value`` cannot be setting ``s``'s (one line), or None: the command line's checks,
    for the surfaces that read settings as text (GTP, KataGo config files)."""
    if value is None:
        return None if s.default is None else f"{s.name} needs a value"
    if s.kind is str:
        return None if value in s.choices else f"{s.name} must be one of {', '.join(s.choices)}, not {value!r}"
    if s.kind is bool:
        return None if isinstance(value, bool) else f"{s.name} must be true or false, not {value!r}"
    if not isinstance(value, (int, float)) or isinstance(value, bool) or (s.kind is int and not isinstance(value, int)):
        return f"{s.name} must be {'an integer' if s.kind is int else 'a number'}, not {value!r}"
    reason = out_of_range(value, s.low, s.high, s.low_open)
    return f"{s.name}: {reason}" if reason else None


def settings_table() -> str:
    """The settings as docs/search.md shows them: a Markdown table, one row a setting."""
    rows = ["| setting | option | default | values | feeds |", "|---|---|---|---|---|"]
    for s in SETTINGS:
        if s.kind is str:
            values = " ".join(s.choices)
        elif s.kind is bool:
            values = f"{s.flag} / {s.off}" if s.off else f"{s.flag} (a flag)"
        else:
            values = f"{s.low:g}{'<' if s.low_open else '<='}x<={s.high:g}"
        default = s.none if s.default is None else str(s.default).lower() if s.kind is bool else str(s.default)
        rows.append(f"| `{s.name}` | {s.flag if s.option else '(not an option)'} | {default} | {values} | "
                    f"{s.feeds} |")
    return "\n".join(rows)

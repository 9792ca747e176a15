"""Monte-Carlo tree search with RAVE and prior knowledge (MoGo 2008, Gelly & Silver 2007):
the public surface of the search, what the rest of the engine and its users import.

The search lives in rooms, read in this order, each needing only the ones before it
(Michi's header, Pachi's ``uct/``; ``tests/test_layers.py`` holds it): ``figure1`` (the
shapes of Figure 1's caption), ``expert`` (MoGo's expert knowledge), ``selection`` (node fields, the bandit and prior formulas), ``tree``
(the flat node arrays), ``tree_priors`` (what new children start with), ``walk`` (one
simulation: descend, expand, playout, back up, AMAF), ``search`` (``Search``: settings,
threads, budget), ``endgame`` (pass, resign, dead stones); this ``__init__`` is their
public surface. HACKING.md places the search in the whole house's reading order.
"""

from __future__ import annotations

from ..settings import POLICIES, SETTINGS, Setting
from .endgame import RESIGN, choose_move, dead_stones, score_without_dead
from .search import Budget, MoveInfo, Search, SearchConfig, SearchResult, warm_up
from .tree_priors import default_prior_n

__all__ = [
    "POLICIES",
    "RESIGN",
    "Budget",
    "MoveInfo",
    "Search",
    "SearchConfig",
    "SearchResult",
    "SETTINGS",
    "Setting",
    "choose_move",
    "dead_stones",
    "default_prior_n",
    "score_without_dead",
    "warm_up",
]

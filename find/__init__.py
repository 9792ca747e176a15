"""Pattern search over a game library (``shapemill find``): where a shape occurs,
what was played next, who won.

>>> from shapemill.find import find, index_table, query_from_sgf
>>> index, _ = index_table("games.parquet")
>>> result = find([index], query_from_sgf("corner.sgf"))
>>> result.hits.num_rows, result.n_games

Modules: ``query`` (a fragment and its images), ``fragment`` (queries from SGF and
pattern ids), ``index`` (the per-table index), ``kernels`` (numba), ``search``
(hits and their tables), ``report`` (outputs), ``find_command`` (the commands).
``docs/find.md`` says how it works.
"""

from .fragment import query_from_pattern, query_from_sgf
from .index import build_index, index_table, load_index, write_index
from .query import Query
from .search import Filters, FindResult, continuation_table, find, top_games

__all__ = ["Filters", "FindResult", "Query", "build_index", "continuation_table", "find", "index_table",
           "load_index", "query_from_pattern", "query_from_sgf", "top_games", "write_index"]

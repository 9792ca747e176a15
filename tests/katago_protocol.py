"""KataGo's two analysis protocols, parsed and checked as KataGo's documents state them.

Written from lightvector/KataGo ``docs/GTP_Extensions.md`` (``lz-analyze``,
``kata-analyze``, ``kata-get-rules``) and ``docs/Analysis_Engine.md`` (the JSON
analysis engine), not from shapemill's output: every check below cites what the
document says. A check that fails raises ``ProtocolError`` naming the field.

- ``parse_analyze_line(line, kind, size)``: one line of ``lz-analyze`` / ``kata-analyze``
  output (``info`` entries, ``ownership``, ``rootInfo``), checked.
- ``check_response(obj, query)``: one JSON line of the analysis engine, checked against
  the query it answers (error, warning, terminated, analysis and action forms).
"""

from __future__ import annotations

import json
import math

LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"

#: Keys of an ``info`` entry whose value is a list running to the next key (GTP_Extensions: pv,
#: pvVisits, pvEdgeVisits, movesOwnership, movesOwnershipStdev).
LIST_KEYS = {"pv", "pvVisits", "pvEdgeVisits", "movesOwnership", "movesOwnershipStdev"}
#: Words that start a new top-level item of an analysis line.
ITEM_WORDS = {"info", "ownership", "ownershipStdev", "rootInfo"}
#: ``info`` keys the document lists for kata-analyze (scoreSelfplay, utilityLcb, isSymmetryOf too).
KATA_INFO_KEYS = {"move", "visits", "winrate", "scoreMean", "scoreStdev", "scoreLead", "scoreSelfplay", "prior",
                  "utility", "lcb", "utilityLcb", "order", "pv", "pvVisits", "pvEdgeVisits", "isSymmetryOf",
                  "movesOwnership", "movesOwnershipStdev"}
#: What a GUI reads of every kata-analyze entry (the issue's list; scoreSelfplay and utilityLcb are optional).
KATA_REQUIRED = {"move", "visits", "winrate", "scoreMean", "scoreStdev", "scoreLead", "prior", "utility", "lcb",
                 "order", "pv"}
LZ_REQUIRED = {"move", "visits", "winrate", "prior", "lcb", "order", "pv"}

#: Analysis_Engine.md "Responses": the moveInfos fields of an analysis response.
MOVE_INFO_REQUIRED = {"move", "visits", "winrate", "scoreMean", "scoreStdev", "scoreLead", "prior", "utility", "lcb",
                      "utilityLcb", "order", "pv"}
#: rootInfo: "winrate, scoreLead, scoreSelfplay, utility, visits. And two fields: thisHash, symHash".
ROOT_INFO_REQUIRED = {"winrate", "scoreLead", "utility", "visits", "thisHash", "symHash"}
#: kata-get-rules' fields and their values (GTP_Extensions.md).
RULE_VALUES = {"ko": {"SIMPLE", "POSITIONAL", "SITUATIONAL"}, "scoring": {"AREA", "TERRITORY"},
               "tax": {"NONE", "SEKI", "ALL"}, "suicide": {True, False}, "hasButton": {True, False},
               "whiteHandicapBonus": {"0", "N-1", "N"}}
#: Slack on sums of floats printed with six decimals.
EPS = 1e-4


class ProtocolError(AssertionError):
    """An answer that breaks KataGo's documented protocol."""


def _fail(what: str) -> None:
    raise ProtocolError(what)


def vertex_ok(text: str, size: int) -> bool:
    """Whether ``text`` is a GTP vertex of a ``size`` board or ``pass`` (GTP 2 section 2.11)."""
    t = text.upper()
    if t == "PASS":
        return True
    return (len(t) >= 2 and t[0] in LETTERS[:size] and t[1:].isdigit() and 1 <= int(t[1:]) <= size)


def vertex_index(text: str, size: int) -> int:
    """The row-major index from the top-left (A19 on 19x19) that ownership and policy use."""
    t = text.upper()
    col, row = LETTERS.index(t[0]), int(t[1:])
    return (size - row) * size + col


def _number(text: str, key: str, integer: bool = False) -> float:
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        _fail(f"{key}: {text!r} is not {'an integer' if integer else 'a number'}")
    if not math.isfinite(value):
        _fail(f"{key}: {text!r} is not finite")
    return value


def _split_items(words: list[str]) -> list[tuple[str, list[str]]]:
    items: list[tuple[str, list[str]]] = []
    for word in words:
        if word in ITEM_WORDS:
            items.append((word, []))
        elif not items:
            _fail(f"the line starts with {word!r}, not info / ownership / rootInfo")
        else:
            items[-1][1].append(word)
    return items


def _info_fields(words: list[str]) -> dict:
    """An ``info`` entry's key-value pairs; list keys run to the next known key."""
    fields: dict = {}
    i = 0
    while i < len(words):
        key = words[i]
        if key in fields:
            _fail(f"info: {key} given twice")
        if key in LIST_KEYS:
            j = i + 1
            while j < len(words) and words[j] not in KATA_INFO_KEYS:
                j += 1
            fields[key] = words[i + 1:j]
            i = j
        else:
            if i + 1 >= len(words):
                _fail(f"info: {key} has no value")
            fields[key] = words[i + 1]
            i += 2
    return fields


def parse_analyze_line(line: str, kind: str, size: int, ownership: bool = False, pv_visits: bool = False,
                       root_info: bool = False, max_moves: int | None = None) -> dict:
    """One ``lz-analyze`` (``kind`` "lz") or ``kata-analyze`` ("kata") line: ``{"infos": [...],
    "ownership": [...] or None, "rootInfo": {...} or None}``, every value typed and checked."""
    items = _split_items(line.split())
    infos, own, root = [], None, None
    for word, rest in items:
        if word == "info":
            infos.append(_check_info(_info_fields(rest), kind, size, pv_visits))
        elif word == "ownership":
            if kind != "kata":
                _fail("ownership in lz-analyze output")
            # "BoardHeight*BoardWidth many consecutive floats in [-1,1]"
            own = [_number(x, "ownership") for x in rest]
            if len(own) != size * size:
                _fail(f"ownership has {len(own)} values, not {size * size}")
            if any(not -1 <= v <= 1 for v in own):
                _fail("ownership value outside [-1, 1]")
        elif word == "rootInfo":
            root = _root_info_fields(rest)
    # "order - KataGo's ranking of the move. 0 is the best, 1 is the next best, and so on."
    orders = [e["order"] for e in infos]
    if orders != list(range(len(orders))):
        _fail(f"orders {orders} are not 0, 1, 2, ... in the line's order")
    if max_moves is not None and len(infos) > max_moves:
        _fail(f"{len(infos)} moves with maxmoves {max_moves}")
    if len({e["move"] for e in infos}) != len(infos):
        _fail("a move appears twice")
    if ownership and own is None:
        _fail("ownership true but no ownership")
    if root_info and root is None:
        _fail("rootInfo true but no rootInfo")
    return {"infos": infos, "ownership": own, "rootInfo": root}


def _check_info(f: dict, kind: str, size: int, pv_visits: bool) -> dict:
    required = KATA_REQUIRED if kind == "kata" else LZ_REQUIRED
    missing = required - set(f)
    if missing:
        _fail(f"info lacks {sorted(missing)}")
    e = dict(f)
    if not vertex_ok(f["move"], size):
        _fail(f"move {f['move']!r} is not a vertex of a {size} board")
    e["visits"] = _number(f["visits"], "visits", integer=True)
    e["order"] = _number(f["order"], "order", integer=True)
    if e["visits"] < 0:
        _fail("negative visits")
    for v in f["pv"]:
        if not vertex_ok(v, size):
            _fail(f"pv vertex {v!r}")
    if kind == "lz":
        # "10000 times the winrate ... rounded to an integer in [0,10000]"; prior likewise; lcb may leave it
        for key in ("winrate", "prior", "lcb"):
            e[key] = _number(f[key], key, integer=True)
        for key in ("winrate", "prior"):
            if not 0 <= e[key] <= 10000:
                _fail(f"{key} {e[key]} outside [0, 10000]")
        return e
    for key in ("winrate", "scoreMean", "scoreStdev", "scoreLead", "prior", "utility", "lcb"):
        e[key] = _number(f[key], key)
    for key in ("scoreSelfplay", "utilityLcb"):
        if key in f:
            e[key] = _number(f[key], key)
    # "winrate - ... as a float in [0,1]"; "prior - ... as a float in [0,1]"
    for key in ("winrate", "prior"):
        if not 0 <= e[key] <= 1:
            _fail(f"{key} {e[key]} outside [0, 1]")
    if e["scoreStdev"] < 0:
        _fail("negative scoreStdev")
    # "scoreMean - Same as scoreLead"
    if abs(e["scoreMean"] - e["scoreLead"]) > EPS:
        _fail("scoreMean differs from scoreLead")
    if pv_visits or "pvVisits" in f:
        if "pvVisits" not in f:
            _fail("pvVisits true but no pvVisits")
        e["pvVisits"] = [_number(x, "pvVisits", integer=True) for x in f["pvVisits"]]
        _check_pv_visits(e["pv"], e["pvVisits"], e["visits"])
    return e


def _check_pv_visits(pv: list, visits_along: list, visits: int) -> None:
    """pvVisits: "the number of visits used to explore the position resulting from each move in pv"."""
    if len(visits_along) != len(pv):
        _fail(f"pvVisits has {len(visits_along)} values for a pv of {len(pv)}")
    if visits_along and visits_along[0] != visits:
        _fail("the first pvVisits is not the move's visits")
    if any(b > a for a, b in zip(visits_along, visits_along[1:])):
        _fail("pvVisits grow along the pv: a position is explored by no more than its parent's visits")


def _root_info_fields(words: list[str]) -> dict:
    if len(words) % 2:
        _fail("rootInfo has a key without a value")
    root = {}
    for key, value in zip(words[::2], words[1::2]):
        root[key] = value if key in ("thisHash", "symHash", "currentPlayer") else _number(value, key)
    for key in ("visits", "winrate"):
        if key not in root:
            _fail(f"rootInfo lacks {key}")
    if not 0 <= root["winrate"] <= 1:
        _fail("rootInfo winrate outside [0, 1]")
    return root


def check_rules(text: str) -> dict:
    """``kata-get-rules``' answer: a JSON dictionary of the documented fields and values."""
    rules = json.loads(text)
    if not isinstance(rules, dict):
        _fail("kata-get-rules is not a JSON dictionary")
    for key, values in RULE_VALUES.items():
        if key not in rules or rules[key] not in values:
            _fail(f"kata-get-rules: {key} is {rules.get(key)!r}")
    return rules


# --- the JSON analysis engine ---------------------------------------------------------


def parse_json_line(line: str) -> dict:
    """"Every query and every result should be a single line": one JSON object."""
    if "\n" in line.rstrip("\n"):
        _fail("a response spans lines")
    obj = json.loads(line)
    if not isinstance(obj, dict):
        _fail("a response is not a JSON object")
    return obj


def response_kind(obj: dict) -> str:
    """'error', 'warning', 'action', 'noResults' or 'analysis'."""
    if "error" in obj:
        return "error"
    if "warning" in obj:
        return "warning"
    if "action" in obj:
        return "action"
    if obj.get("noResults"):
        return "noResults"
    return "analysis"


def check_error(obj: dict, query_id: str | None = None, field: str | None = None) -> None:
    """The three documented forms: ``{"error"}``, ``{"error","field","id"}`` and
    ``{"warning","field","id"}``."""
    word = "error" if "error" in obj else "warning"
    if not isinstance(obj[word], str) or not obj[word]:
        _fail(f"{word} message is not a non-empty string")
    keys = set(obj)
    if word == "error" and keys not in ({"error"}, {"error", "field", "id"}):
        _fail(f"error with keys {sorted(keys)}")
    if word == "warning" and keys != {"warning", "field", "id"}:
        _fail(f"warning with keys {sorted(keys)}")
    if query_id is not None and obj.get("id") != query_id:
        _fail(f"{word} for id {obj.get('id')!r}, not {query_id!r}")
    if field is not None and obj.get("field") != field:
        _fail(f"{word} names field {obj.get('field')!r}, not {field!r}")


def check_action(obj: dict, query: dict) -> None:
    """Action queries: the response echoes the query; query_version adds version and git_hash."""
    for key, value in query.items():
        if obj.get(key) != value:
            _fail(f"the {query['action']} response does not echo {key}")
    extra = set(obj) - set(query)
    allowed = {"version", "git_hash"} if query["action"] == "query_version" else set()
    if extra != allowed:
        _fail(f"the {query['action']} response adds {sorted(extra)}")
    if allowed and not all(isinstance(obj[k], str) for k in allowed):
        _fail("version and git_hash are strings")


def check_analysis(obj: dict, query: dict, occupied: set[str] | None = None, black_perspective: bool = True,
                   to_move: str | None = None) -> None:
    """One analysis response to ``query``: its fields, types and ranges as Analysis_Engine.md
    lists them. ``occupied``: the vertices holding stones in the analysed position (their
    policy must be -1, "indicating illegal moves")."""
    x, y = query["boardXSize"], query["boardYSize"]
    if obj.get("id") != query["id"]:
        _fail(f"response id {obj.get('id')!r}")
    if not isinstance(obj.get("isDuringSearch"), bool):
        _fail("isDuringSearch is not a boolean")
    turns = query.get("analyzeTurns", [len(query["moves"])])
    if obj.get("turnNumber") not in turns:
        _fail(f"turnNumber {obj.get('turnNumber')!r} was not asked for")
    infos = obj.get("moveInfos")
    if not isinstance(infos, list):
        _fail("moveInfos is not a list")
    for i, info in enumerate(infos):
        missing = MOVE_INFO_REQUIRED - set(info)
        if missing:
            _fail(f"moveInfos[{i}] lacks {sorted(missing)}")
        if not isinstance(info["move"], str) or not vertex_ok(info["move"], x):
            _fail(f"moveInfos[{i}].move {info['move']!r}")
        if occupied and info["move"].upper() in occupied:
            _fail(f"moveInfos[{i}] is an occupied point")
        if not isinstance(info["visits"], int) or info["visits"] < 0:
            _fail(f"moveInfos[{i}].visits {info['visits']!r}")
        if not isinstance(info["order"], int):
            _fail(f"moveInfos[{i}].order is not an integer")
        for key in ("winrate", "scoreMean", "scoreStdev", "scoreLead", "prior", "utility", "lcb", "utilityLcb"):
            if not isinstance(info[key], (int, float)) or isinstance(info[key], bool) or not math.isfinite(info[key]):
                _fail(f"moveInfos[{i}].{key} is not a finite number")
        # "winrate - The winrate of the move, as a float in [0,1]"; "prior ... as a float in [0,1]"
        for key in ("winrate", "prior"):
            if not 0 <= info[key] <= 1:
                _fail(f"moveInfos[{i}].{key} {info[key]} outside [0, 1]")
        if info["scoreStdev"] < 0:
            _fail(f"moveInfos[{i}].scoreStdev negative")
        if abs(info["scoreMean"] - info["scoreLead"]) > EPS:
            _fail(f"moveInfos[{i}]: scoreMean is documented as the same as scoreLead")
        if not isinstance(info["pv"], list) or not all(isinstance(v, str) and vertex_ok(v, x) for v in info["pv"]):
            _fail(f"moveInfos[{i}].pv")
        if query.get("includePVVisits"):
            if "pvVisits" not in info:
                _fail(f"moveInfos[{i}] lacks pvVisits with includePVVisits")
            _check_pv_visits(info["pv"], info["pvVisits"], info["visits"])
    if [info["order"] for info in infos] != list(range(len(infos))):
        _fail("moveInfos are not listed by order 0, 1, 2, ...")
    if len({info["move"] for info in infos}) != len(infos):
        _fail("a move appears twice in moveInfos")
    root = obj.get("rootInfo")
    if not isinstance(root, dict) or ROOT_INFO_REQUIRED - set(root):
        _fail(f"rootInfo lacks {sorted(ROOT_INFO_REQUIRED - set(root or {}))}")
    if not 0 <= root["winrate"] <= 1 or not isinstance(root["visits"], int):
        _fail("rootInfo winrate or visits")
    if not isinstance(root["thisHash"], str) or not isinstance(root["symHash"], str):
        _fail("rootInfo hashes are strings")
    if not obj["isDuringSearch"] and infos and root["visits"] < sum(info["visits"] for info in infos):
        _fail("the root has fewer visits than its moves together")
    if "currentPlayer" in root and to_move is not None and root["currentPlayer"] != to_move:
        _fail(f"rootInfo.currentPlayer {root['currentPlayer']!r}, not {to_move!r}")
    if query.get("includeOwnership"):
        own = obj.get("ownership")
        # "a JSON array of length boardYSize * boardXSize with values from -1 to 1"
        if not isinstance(own, list) or len(own) != x * y:
            _fail(f"ownership of length {len(own) if isinstance(own, list) else own!r}, not {x * y}")
        if any(not isinstance(v, (int, float)) or not -1 <= v <= 1 for v in own):
            _fail("ownership value outside [-1, 1]")
    elif "ownership" in obj:
        _fail("ownership without includeOwnership")
    if query.get("includePolicy"):
        _check_policy(obj.get("policy"), x, y, occupied)
    elif "policy" in obj:
        _fail("policy without includePolicy")


def _check_policy(policy, x: int, y: int, occupied: set[str] | None) -> None:
    """"length boardYSize * boardXSize + 1 with positive values summing to 1 ... and -1
    indicating illegal moves ... The last value in the array is the policy value for passing"."""
    if not isinstance(policy, list) or len(policy) != x * y + 1:
        _fail(f"policy of length {len(policy) if isinstance(policy, list) else policy!r}, not {x * y + 1}")
    legal = [v for v in policy if v != -1]
    if any(not isinstance(v, (int, float)) or v < 0 for v in legal):
        _fail("policy value neither -1 nor a probability")
    if abs(sum(legal) - 1) > EPS:
        _fail(f"the policy's legal values sum to {sum(legal)}")
    if policy[-1] == -1:
        _fail("a pass is always legal: its policy is not -1")
    for v in occupied or ():
        if policy[vertex_index(v, x)] != -1:
            _fail(f"policy of the occupied point {v} is not -1")


def check_final_responses(objs: list[dict], query: dict) -> dict[int, dict]:
    """"Every position searched will ... always conclude with exactly one final response
    ... where this field [isDuringSearch] is false": the final response of each turn."""
    final: dict[int, dict] = {}
    for obj in objs:
        if obj.get("id") != query["id"] or response_kind(obj) not in ("analysis", "noResults"):
            continue
        if obj["isDuringSearch"]:
            if obj["turnNumber"] in final:
                _fail(f"a during-search report of turn {obj['turnNumber']} after its final response")
            continue
        if obj["turnNumber"] in final:
            _fail(f"two final responses for turn {obj['turnNumber']}")
        final[obj["turnNumber"]] = obj
    turns = query.get("analyzeTurns", [len(query["moves"])])
    if sorted(final) != sorted(turns):
        _fail(f"final responses for turns {sorted(final)}, asked {sorted(turns)}")
    return final

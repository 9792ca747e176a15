"""KataGo's conventions, shared by ``kata-analyze`` (``gtp``) and the JSON analysis engine.

Rules: KataGo names rule sets by shorthand strings or by a dictionary of six
fields (``ko``, ``scoring``, ``tax``, ``suicide``, ``hasButton``,
``whiteHandicapBonus``; lightvector/KataGo ``docs/GTP_Extensions.md``). shapemill
scores by area with positional superko and suicide illegal: the analysis engine
(``played_rules``) searches territory rules (Japanese, Korean) and stone scoring by area
with a warning that says so, and refuses button Go. Board arrays (ownership, policy) are in KataGo's order: row-major from the
top-left point (A19 on 19x19) to the bottom-right.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import ShapemillError
from ...go.board import Board
from .protocol import one_line

#: The most visits a turn or a move may be given: about ten minutes of search on 19x19 here.
MAX_VISITS = 1_000_000
#: The most search threads (or turns at once) a KataGo config or -override-config may ask for.
MAX_THREADS = 256
#: The fields of KataGo's rules, in the order of ``SHORTHAND``'s rows.
FIELD_ORDER = ("ko", "scoring", "tax", "suicide", "hasButton", "whiteHandicapBonus")
#: KataGo's shorthand rule names and what each stands for (GTP_Extensions.md, kata-set-rules).
SHORTHAND: dict[str, dict[str, Any]] = {name: dict(zip(FIELD_ORDER, row)) for name, row in {
    "tromp-taylor": ("POSITIONAL", "AREA", "NONE", True, False, "0"),
    "chinese": ("SIMPLE", "AREA", "NONE", False, False, "N"),
    "chinese-ogs": ("POSITIONAL", "AREA", "NONE", False, False, "N"),
    "chinese-kgs": ("POSITIONAL", "AREA", "NONE", False, False, "N"),
    "japanese": ("SIMPLE", "TERRITORY", "SEKI", False, False, "0"),
    "korean": ("SIMPLE", "TERRITORY", "SEKI", False, False, "0"),
    "stone-scoring": ("SIMPLE", "AREA", "ALL", False, False, "0"),
    "aga": ("SITUATIONAL", "AREA", "NONE", False, False, "N-1"),
    "bga": ("SITUATIONAL", "AREA", "NONE", False, False, "N-1"),
    "new-zealand": ("SITUATIONAL", "AREA", "NONE", True, False, "0"),
    "aga-button": ("SITUATIONAL", "AREA", "NONE", False, True, "N-1"),
}.items()}
#: kgsGtp's rule names (``kgs-rules``) as KataGo maps them: ``chinese`` is ``chinese-kgs``.
KGS_RULES = {"chinese": "chinese-kgs", "aga": "aga", "japanese": "japanese", "new_zealand": "new-zealand"}
#: The rules shapemill starts with: area scoring, positional superko, no suicide (docs/engine.md).
DEFAULT_RULES = "chinese-ogs"
RULE_FIELDS = {"ko": ("SIMPLE", "POSITIONAL", "SITUATIONAL"), "scoring": ("AREA", "TERRITORY"),
               "tax": ("NONE", "SEKI", "ALL"), "suicide": (True, False), "hasButton": (True, False),
               "whiteHandicapBonus": ("0", "N-1", "N")}


class RulesError(ValueError):
    """Rules shapemill cannot play (its message says why, on one line)."""


def parse_rules(value: Any) -> dict[str, Any]:
    """KataGo's rules (a shorthand name, a JSON dictionary or its text) as a dictionary of the
    six fields; ``RulesError`` for unknown ones and for any that do not score by area."""
    parsed = _rules_fields(value)
    if parsed["scoring"] != "AREA" or parsed["tax"] != "NONE" or parsed["hasButton"]:
        raise RulesError("shapemill scores by area only (Chinese, Tromp-Taylor, AGA, New Zealand): "
                         f"not scoring {parsed['scoring']}, tax {parsed['tax']}, button {parsed['hasButton']}")
    return parsed


def played_rules(value: Any) -> tuple[dict[str, Any], str | None]:
    """KataGo's rules as ``parse_rules`` reads them, territory scoring and a tax on eyes
    (Japanese, Korean, stone scoring) accepted: the position is searched and scored by
    area inside, which the second value says in KataGo's words for a warning (None
    for area rules). Button Go is still refused (``RulesError``)."""
    parsed = _rules_fields(value)
    if parsed["hasButton"]:
        raise RulesError("shapemill plays without a button: not button Go")
    return parsed, area_note(parsed)


def area_note(parsed_rules: dict[str, Any]) -> str | None:
    """What a warning says of rules that do not score by area (``played_rules``); None for area rules."""
    if parsed_rules["scoring"] == "AREA" and parsed_rules["tax"] == "NONE":
        return None
    return (f"rules with scoring {parsed_rules['scoring']} and tax {parsed_rules['tax']} are analysed by area "
            f"scoring (Chinese counting) by shapemill: scoreLead and final scores are area scores")


def _rules_fields(value: Any) -> dict[str, Any]:
    """The six fields of KataGo's rules given by name, JSON dictionary or its text."""
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            value = json.loads(value)
        except ValueError as e:
            raise RulesError(f"could not parse rules {value!r}: {e}") from None
    if isinstance(value, str):
        key = value.strip().lower().replace("_", "-")
        if key not in SHORTHAND:
            raise RulesError(f"unknown rules {value!r}")
        parsed = dict(SHORTHAND[key])
    elif isinstance(value, dict):
        parsed = dict(SHORTHAND[DEFAULT_RULES])
        for field, given in value.items():
            if field not in RULE_FIELDS:
                raise RulesError(f"unknown rules field {field!r}")
            if isinstance(given, str):
                given = given.upper() if field != "whiteHandicapBonus" else given
            if given not in RULE_FIELDS[field]:
                raise RulesError(f"rules field {field} cannot be {given!r}")
            parsed[field] = given
    else:
        raise RulesError(f"rules must be a string or a JSON object, not {type(value).__name__}")
    return parsed


def handicap_bonus(parsed_rules: dict[str, Any], board: Board) -> float:
    """White's compensation for handicap stones under these rules (``whiteHandicapBonus``):
    0, N-1 or N points, N the Black stones of a position White has none of (handicap)."""
    n = len(board.stones("b")) if not board.stones("w") else 0
    if n < 2:
        return 0.0
    return {"0": 0.0, "N-1": n - 1.0, "N": float(n)}[parsed_rules["whiteHandicapBonus"]]


def board_order(values: np.ndarray, size: int) -> np.ndarray:
    """Per-point values of the padded board (``rules`` layout, row 0 at the bottom) in
    KataGo's order: row-major from the top-left point to the bottom-right."""
    w = size + 2
    grid = values.reshape(w, w)[1:size + 1, 1:size + 1]
    return grid[::-1].reshape(-1)


def legal_policy(board: Board, color: str, strength: np.ndarray | None) -> list[float]:
    """KataGo's ``policy`` array: each point's probability of being ``color``'s move in
    KataGo's order, -1 where the move is illegal (superko included), and the pass last.
    ``strength``: the ratings table's move strengths (padded board); None, even over the
    legal moves. The table rates no pass, so the pass has probability 0."""
    w = board.size + 2
    legal = np.zeros(w * w, dtype=bool)
    for row in range(board.size):
        for col in range(board.size):
            legal[(row + 1) * w + col + 1] = board.illegal_reason(color, (row, col)) == ""
    weight = np.where(legal, strength if strength is not None else 1.0, 0.0)
    if weight.sum() <= 0:
        weight = legal.astype(float)
    total = weight.sum()
    probs = np.where(legal, weight / total if total > 0 else 0.0, -1.0)
    out = [float(v) for v in board_order(probs, board.size)]
    return out + [0.0 if total > 0 else 1.0]


def rules_text(parsed_rules: dict[str, Any]) -> str:
    """``kata-get-rules``' answer: the rules as one line of JSON."""
    return json.dumps(parsed_rules, separators=(",", ":"), sort_keys=True)


def komi_ok(komi: float) -> bool:
    """KataGo's komi: an integer or half-integer within [-150, 150] (Analysis_Engine.md)."""
    return -150 <= komi <= 150 and float(komi * 2).is_integer()


#: How KataGo's network files are named (``-model``): shapemill has no network and reads none.
NETWORK_SUFFIXES = (".bin.gz", ".txt.gz", ".bin", ".onnx")
#: The first bytes of every Parquet file (a shapemill table).
PARQUET_MAGIC = b"PAR1"


def katago_network(path: str) -> bool:
    """Whether ``-model path`` is a KataGo network (its name's ending, and not a Parquet
    file), which a tool that starts KataGo passes and shapemill ignores."""
    if not path.lower().endswith(NETWORK_SUFFIXES):
        return False
    try:
        with open(path, "rb") as f:
            return f.read(len(PARQUET_MAGIC)) != PARQUET_MAGIC
    except OSError:
        return True


def config_values(path: str) -> dict[str, str]:
    """The ``key = value`` lines of a KataGo config file (``#`` comments dropped)."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise ShapemillError(f"{path}: cannot read the config ({one_line(e)})") from None
    values = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if "=" in line:
            key, value = line.split("=", 1)
            values[key.strip()] = value.strip().strip('"')
    return values


def override_values(text: str) -> dict[str, str]:
    """KataGo's ``-override-config "key=value,key=value"`` as a dictionary."""
    values = {}
    for item in text.split(","):
        if not item.strip():
            continue
        if "=" not in item:
            raise ShapemillError(f"-override-config: {item.strip()!r} is not key=value")
        key, value = item.split("=", 1)
        values[key.strip()] = value.strip().strip('"')
    return values


def ignored_keys(values: dict[str, str], keys: dict[str, tuple]) -> list[str]:
    """A warning for each key of ``values`` shapemill does not read (KataGo's own)."""
    return [f"-override-config: {key} is KataGo's own, ignored by shapemill" for key in values if key not in keys]


def apply_config(values: dict[str, str], settings: Any, keys: dict[str, tuple], where: str, clamp: bool) -> Any:
    """``settings`` (a dataclass) with the ``keys`` of ``values``: each key names the field it
    sets and its range ``(field, low, high)``, or its choices ``(field, choices)``; a number out
    of range is clamped (``clamp``: a config file) or refused (``ShapemillError`` naming ``where``)."""
    changes: dict[str, Any] = {}
    for key, spec in keys.items():
        if key not in values:
            continue
        if len(spec) == 2:
            name, choices = spec
            chosen = values[key].upper()
            if chosen not in choices:
                raise ShapemillError(f"{where}: {key} must be {', '.join(choices)}, not {values[key]!r}")
            changes[name] = chosen
            continue
        name, low, high = spec
        try:
            number = int(values[key])
        except ValueError:
            raise ShapemillError(f"{where}: {key} must be an integer, not {values[key]!r}") from None
        if not low <= number <= high and not clamp:
            raise ShapemillError(f"{where}: {key} must be from {low} to {high}, not {number}")
        changes[name] = max(low, min(high, number))
    return replace(settings, **changes)

"""Text in real SGF archives: encodings, ranks, komi and results.

Decoding: an SGF file's ``CA`` names its charset, but archives lie (Fox writes
``CA[UTF-8]`` on files whose names are cut in the middle of a character, older
servers write GB2312, EUC-KR or Shift-JIS without any ``CA``). :func:`decode_values`
decodes the text values of one game together:

1. pure ASCII: nothing to decide;
2. the ``CA`` charset, when every value decodes cleanly (strictly) with it;
3. UTF-8, when every value decodes cleanly (a strong signal on its own);
4. UTF-8 whose values are only cut short (a multi-byte character truncated at the
   end of a value): the broken tail is dropped;
5. otherwise the candidates a Go archive uses (GB18030, CP949 = EUC-KR,
   CP932 = Shift-JIS, Big5, CP1252 = Latin-1) that decode strictly are scored by how
   plausible their characters are (half-width katakana, hanja inside a hangul
   name, rare hangul syllables are the tell-tale signs of a wrong guess), and
   charset-normalizer breaks ties.
"""

from __future__ import annotations

import codecs
import re
import unicodedata

__all__ = [
    "decode_values",
    "detect_encoding",
    "normalize_rank",
    "parse_komi",
    "winner_of",
]

#: Encodings tried when the declared one fails, in order of preference on ties.
CANDIDATES = ("gb18030", "cp949", "cp932", "big5", "cp1252")


def _codec_name(label: str) -> str | None:
    """Python codec name of an SGF ``CA`` label, or None when unknown."""
    label = label.strip().lower()
    if not label:
        return None
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    # Decode the common CJK labels with their supersets: files labelled with the
    # base charset routinely contain the vendor extensions.
    return {
        "gb2312": "gb18030",
        "gbk": "gb18030",
        "euc_kr": "cp949",
        "shift_jis": "cp932",
        "iso8859-1": "cp1252",
        "latin-1": "cp1252",
    }.get(name, name)


def _strict(raw: list[bytes], encoding: str) -> list[str] | None:
    try:
        return [v.decode(encoding) for v in raw]
    except (UnicodeDecodeError, LookupError):
        return None


def _utf8_truncated(raw: list[bytes]) -> list[str] | None:
    """Decode as UTF-8 when the only faults are characters cut at a value's end."""
    out = []
    cut = False
    for v in raw:
        try:
            out.append(v.decode("utf-8"))
        except UnicodeDecodeError as exc:
            if exc.reason != "unexpected end of data" or exc.start < len(v) - 3:
                return None
            try:
                out.append(v[: exc.start].decode("utf-8"))
            except UnicodeDecodeError:
                return None
            cut = True
    return out if cut else None


_COMMON_FINALS = frozenset((0, 1, 4, 8, 16, 17, 21))  # none, k, n, l, m, p, ng
_DOUBLE_INITIALS = frozenset((1, 4, 8, 10, 13))  # kk, tt, pp, ss, jj
_RARE_VOWELS = frozenset((3, 10, 15))  # yae, wae, we


def _hangul_common(c: str) -> bool:
    s = ord(c) - 0xAC00
    lead, vowel, tail = s // 588, (s % 588) // 28, s % 28
    if tail not in _COMMON_FINALS or vowel in _RARE_VOWELS:
        return False
    if lead in _DOUBLE_INITIALS and tail:
        return False
    return not (vowel == 19 and lead != 11)  # "ui" only as the syllable 의


def _plausibility(encoding: str, text: str) -> float:
    """Mean plausibility (0..1) of the non-ASCII characters of ``text`` as names."""
    has_hangul = any("\uac00" <= c <= "\ud7a3" for c in text)
    total = 0.0
    n = 0
    for c in text:
        o = ord(c)
        if o < 128:
            continue
        n += 1
        if 0xAC00 <= o <= 0xD7A3:
            total += (1.0 if _hangul_common(c) else 0.3) if encoding == "cp949" else 0.0
        elif 0x4E00 <= o <= 0x9FFF:
            if encoding == "cp949":
                total += 0.2 if has_hangul else 0.9
            elif encoding == "gb18030":
                try:
                    c.encode("gb2312")
                    total += 1.0
                except UnicodeEncodeError:
                    total += 0.6
            elif encoding == "big5":
                total += 0.8
            elif encoding == "cp932":
                total += 1.0
        elif 0x3040 <= o <= 0x30FF:
            total += 1.0 if encoding == "cp932" else 0.3
        elif 0xFF01 <= o <= 0xFF5E or 0x3000 <= o <= 0x303F:
            total += 0.8
        elif 0xC0 <= o <= 0xFF and o not in (0xD7, 0xF7):
            total += 1.0 if encoding == "cp1252" else 0.1
        elif unicodedata.category(c).startswith("L"):
            total += 0.2
        # anything else (symbols, box drawing, half-width kana, controls): 0
    return total / n if n else 1.0


def detect_encoding(raw: bytes) -> str:
    """Best-guess encoding of non-UTF-8 name bytes (see the module docstring, step 5)."""
    decodable: list[tuple[str, str]] = []
    for enc in CANDIDATES:
        try:
            decodable.append((enc, raw.decode(enc)))
        except UnicodeDecodeError:
            pass
    if not decodable:
        return "utf-8"
    scored = [(_plausibility(enc, text), enc) for enc, text in decodable]
    best = max(s for s, _ in scored)
    tied = [enc for s, enc in scored if s >= best - 1e-9]
    if len(tied) == 1:
        return tied[0]
    try:
        from charset_normalizer import from_bytes

        match = from_bytes(raw, cp_isolation=tied).best()
    except Exception:  # pragma: no cover - the detector is a tie-breaker only
        match = None
    if match is not None:
        name = _codec_name(match.encoding)
        if name in tied:
            return name
    return tied[0]


def _east_asian(c: str) -> bool:
    o = ord(c)
    return (0x4E00 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7A3 or 0x3040 <= o <= 0x30FF
            or 0x3000 <= o <= 0x303F or 0xFF01 <= o <= 0xFF5E)


def _fix_mojibake(s: str) -> str:
    """Undo UTF-8 that was read as GBK and saved again (``缁濊壓`` -> ``绝艺``)."""
    if s.isascii():
        return s
    try:
        t = s.encode("gbk").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return s
    if t != s and all(c.isascii() or _east_asian(c) for c in t):
        return t
    return s


def _plausible_utf8(values: list[str]) -> bool:
    """Undeclared UTF-8 is believed unless it is only two-byte characters of
    mixed scripts (``ʱԽ``: GB2312 bytes that happen to be valid UTF-8)."""
    scripts = set()
    for v in values:
        for c in v:
            o = ord(c)
            if o >= 0x800:
                return True
            if o >= 0x80:
                scripts.add(unicodedata.name(c, "?").split(" ")[0])
    return len(scripts) <= 1


def decode_values(raw: list[bytes], charset: bytes | None) -> tuple[list[str], str]:
    """Decode the text values of one game; returns the strings and the encoding used.

    UTF-8 text that is itself mojibake of UTF-8 read as GBK (seen in Fox files)
    is repaired.
    """
    if all(v.isascii() for v in raw):
        return [v.decode("ascii") for v in raw], "ascii"
    declared = _codec_name(charset.decode("ascii", "replace")) if charset else None
    if declared:
        out = _strict(raw, declared)
        if out is not None:
            if declared == "utf-8":
                out = [_fix_mojibake(s) for s in out]
            return out, declared
    if declared != "utf-8":
        out = _strict(raw, "utf-8")
        if out is not None and _plausible_utf8(out):
            return [_fix_mojibake(s) for s in out], "utf-8"
    out = _utf8_truncated(raw)
    if out is not None:
        return out, "utf-8"
    enc = detect_encoding(b"\n".join(v for v in raw if not v.isascii()))
    return [v.decode(enc, "replace") for v in raw], enc


# ---------------------------------------------------------------- ranks

_CJK_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九", start=0)}
_DAN = ("d", "dan", "段", "단")
_KYU = ("k", "kyu", "級", "级", "급")
_PRO_WORDS = ("pro", "professional", "职业", "職業", "프로")
_RANK_RE = re.compile(
    r"^(?P<pre>p|pro|职业|職業|프로|a|ama|业余|業餘|아마)?\s*"
    r"(?P<num>\d{1,2}|[一二三四五六七八九十])\s*"
    r"(?P<unit>dan|kyu|pro|[dkp]|段|級|级|단|급)?\s*(?P<post>pro|p)?$"
)


def normalize_rank(text: str) -> str:
    """Normalize a rank to ``'9d'``, ``'9p'``, ``'5k'``, ``'p'`` (pro, level unknown) or ``''``.

    Accepts ``9d`` ``9p`` ``5k`` (any case, with KGS's ``*`` / ``?``), ``9 dan``,
    ``P9段`` / ``P9`` (Fox: P = professional), ``9段``, ``1級`` / ``1级`` (kyu),
    Korean ``9단`` / ``1급`` / ``프로9단``, Chinese numerals ``九段`` and ``pro``.
    Anything else is unknown: ``''``.
    """
    t = text.strip().lower().rstrip("*?").strip()
    if not t:
        return ""
    if t in _PRO_WORDS:
        return "p"
    m = _RANK_RE.match(t)
    if not m:
        return ""
    num_s = m.group("num")
    if num_s == "十":
        num = 10
    elif num_s in _CJK_DIGITS:
        num = _CJK_DIGITS[num_s]
    else:
        num = int(num_s)
    pre, unit, post = m.group("pre") or "", m.group("unit") or "", m.group("post") or ""
    pro = pre in ("p", "pro", "职业", "職業", "프로") or unit in ("p", "pro") or bool(post)
    if pro:
        if unit in _KYU or not 1 <= num <= 9:
            return ""
        return f"{num}p"
    if unit in _KYU:
        return f"{num}k" if 1 <= num <= 30 else ""
    if unit in _DAN:
        return f"{num}d" if 1 <= num <= 9 else ""
    return ""


# ---------------------------------------------------------------- komi, result

#: A komi at or above this (in absolute value) is a Fox-style komi x 100.
KOMI_X100_THRESHOLD = 50.0


def parse_komi(text: str) -> float:
    """Komi from a ``KM`` value: ``6.5``, ``650`` (Fox, x100) -> 6.5; missing -> 0.0.

    No real komi reaches 50 points (even games use 0 to 8, handicap games with
    compensation rarely more than 20), while Fox's x100 values start at 50 for
    half a point; so ``abs(komi) >= 50`` is read as x100. Unparseable -> NaN.
    """
    t = text.strip().replace(",", ".")
    if not t:
        return 0.0
    try:
        k = float(t)
    except ValueError:
        return float("nan")
    if k != k or k in (float("inf"), float("-inf")):
        return float("nan")
    if abs(k) >= KOMI_X100_THRESHOLD:
        k /= 100.0
    return k


_WIN_RE = re.compile(r"^\s*([bw])\s*\+", re.IGNORECASE)


def winner_of(result: str) -> str:
    """``'b'``, ``'w'`` or ``''`` (draw, void, unknown) from an ``RE`` value."""
    m = _WIN_RE.match(result)
    if m:
        return m.group(1).lower()
    t = result.strip()
    if t.startswith(("黑胜", "黑勝", "흑")) and "패" not in t:
        return "b"
    if t.startswith(("白胜", "白勝", "백")) and "패" not in t:
        return "w"
    return ""

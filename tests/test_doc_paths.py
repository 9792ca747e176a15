"""Every file of ours that README, HACKING, bench/RESULTS.md and docs/*.md name exists.

A path is a word with a slash whose first part is one of the repository's top folders
(``engine/search/walk.py``, ``docs/search.md``, ``tests/test_mcts.py::test_x``), or a bare
``name.py`` / ``name.md``, which some file of that name must answer. Paths of other programs
(Pachi's ``uct/prior.c``), of the data (``2011-09/461929082.sgf``) and patterns with ``*``
are not ours and are passed over.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = ("README.md", "HACKING.md", "bench/RESULTS.md", *(f"docs/{p.name}" for p in sorted((ROOT / "docs").glob("*.md"))))
TOP = sorted(p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
WORD = re.compile(r"(?<![\w./-])([A-Za-z_][\w.-]*(?:/[\w.-]+)*/?)")
OURS = re.compile(r"[\w-]+\.(?:py|md)$")
#: Other projects' files that the documents cite by their own paths (KataGo's protocol documents).
FOREIGN = {"docs/GTP_Extensions.md", "docs/Analysis_Engine.md"}


def named_paths(text: str) -> set[str]:
    """The words of ``text`` that name a file or folder of the repository."""
    found = set()
    for match in WORD.finditer(text):
        word = match.group(1).split("::")[0].rstrip(".")
        around = text[max(match.start() - 1, 0): match.start()] + text[match.end(): match.end() + 1]
        if "*" in around or not word:
            continue
        if word in FOREIGN:
            continue
        if "/" in word and word.split("/")[0] in TOP:
            found.add(word)
        elif "/" not in word and OURS.fullmatch(word):
            found.add(word)
    return found


def without_old_paths(text: str) -> str:
    """``text`` less the first column of a table headed ``| old path | new path |`` (HACKING's
    table of moved files, whose old paths are gone on purpose)."""
    kept, in_table = [], False
    for line in text.splitlines():
        if line.startswith("| old path |"):
            in_table = True
        elif not line.startswith("|"):
            in_table = False
        kept.append("|" + line.split("|", 2)[2] if in_table and line.count("|") > 2 else line)
    return "\n".join(kept)


def missing_paths(name: str) -> list[str]:
    text = without_old_paths((ROOT / name).read_text(encoding="utf-8"))
    missing = []
    for word in sorted(named_paths(text)):
        if "/" in word:
            if not (ROOT / word.rstrip("/")).exists():
                missing.append(word)
        elif not any(ROOT.rglob(word)):
            missing.append(word)
    return missing


def test_named_paths_are_found_in_prose() -> None:
    text = ("see `engine/search/walk.py`, docs/search.md, tests/test_mcts.py::test_x and gtp.py; Pachi's uct/prior.c,"
            " `__pycache__/*.nbi`, `*_command.py`")
    assert named_paths(text) == {"engine/search/walk.py", "docs/search.md", "tests/test_mcts.py", "gtp.py"}


def test_the_old_paths_of_moved_files_are_passed_over() -> None:
    text = "| old path | new path |\n|---|---|\n| `miner/prior.py` | `patterns/prior.py` |\n\n`miner/prior.py`"
    assert named_paths(without_old_paths(text)) == {"patterns/prior.py", "miner/prior.py"}
    assert "| `miner/prior.py` |" not in without_old_paths(text)


def test_every_path_the_documents_name_exists() -> None:
    assert {name: missing_paths(name) for name in DOCUMENTS} == {name: [] for name in DOCUMENTS}

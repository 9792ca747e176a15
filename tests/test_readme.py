"""The README's example outputs are what their commands print.

Each example block is a ``$ command`` line followed by its output. The examples that need
nothing but the README itself and the bundled tables run here (``SELF_CONTAINED``); their
output must equal the README's, with the machine's seconds masked and ``...`` standing for
lines the README leaves out. A GTP example's commands, a terminal example's typed lines
(after ``your move> ``) and a ``< FILE`` redirect are its input; an analysis example's
responses may come in any order (KataGo's protocol), so they are compared sorted. The README
stays under 25,000 bytes.

The examples on the Tygem corpus (``CORPUS``: scan one month's archive, mine and rate 100
of its games, evaluate, vectors, show, find, export, info) run here in the README's order, each on
what the one before wrote, where ``../shared/data`` is beside the checkout; besides the
seconds, what depends on the machine (memory, free disk, speed) is masked, and `` ... ``
inside a line (or ending it) stands for any text.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SHAPEMILL = [sys.executable, "-m", "shapemill.cli"]
#: What the machine decides, as the README writes it (seconds, memory, free disk, speed):
#: masked on both sides.
MACHINE = re.compile(r"\d+(\.\d+)? s\b|[\d,]+ MB\b|[\d.]+ GB free|[\d,]+ positions/s")
#: The examples run here, by their command's first words.
SELF_CONTAINED = ("shapemill solve", "shapemill gtp", "shapemill analysis", "shapemill match", "shapemill play",
                  "shapemill demo")
#: What ``play`` prints before reading a line: the README shows the line typed after it.
PROMPT = "your move> "
#: The examples on the Tygem corpus, run in the README's order, each on the one before's outputs.
CORPUS = ("shapemill scan", "shapemill mine", "shapemill rate", "shapemill evaluate", "shapemill vectors", "shapemill show",
          "shapemill find", "shapemill export", "shapemill info")
#: The fragment of the find example: Black's 4-4 stone at Q4, White's 3-3 invasion at R3.
FRAGMENT = "(;GM[1]FF[4]SZ[19]AB[pp]AW[qq])"


def examples() -> list[tuple[str, str, list[str]]]:
    """(command, its stdin, its output lines) of each ``$ shapemill`` example, with the
    files its block writes with ``$ cat`` before it."""
    found = []
    for lines in _blocks(README.read_text(encoding="utf-8")):
        for i, line in enumerate(lines):
            if line.startswith("$ shapemill"):
                end = i
                while lines[end].endswith("\\"):  # a command continued on the next line
                    end += 1
                command = " ".join(part.rstrip("\\").strip() for part in lines[i:end + 1])
                found.append((command[2:].split("  #")[0].strip(), lines[end + 1:], lines[:i]))
    return found


def _blocks(text: str) -> list[list[str]]:
    """The lines of each fenced block of a Markdown text."""
    blocks, inside = [], None
    for line in text.splitlines():
        if line.startswith("```"):
            if inside is None:
                inside = []
            else:
                blocks.append(inside)
                inside = None
        elif inside is not None:
            inside.append(line)
    return blocks


def _files(before: list[str], folder: Path) -> None:
    """The ``$ cat NAME`` lines of a block and what follows them, written as files."""
    name, text = None, []
    for line in before + ["$"]:
        if line.startswith("$"):
            if name is not None:
                (folder / name).write_text("\n".join(text) + "\n", encoding="utf-8")
            name, text = (line.split()[2], []) if line.startswith("$ cat ") else (None, [])
        elif name is not None:
            text.append(line)


def _matches(expected: list[str], got: list[str]) -> bool:
    """Whether ``got`` is ``expected`` line by line, ``...`` there standing for any lines and
    `` ... `` inside a line for any text, what the machine decides masked."""
    def line_pattern(line: str) -> str:
        if line.strip() == "...":
            return ".*?"
        return "[^\n]*?".join(re.escape(MACHINE.sub("M", part)) for part in re.split(r" \.\.\.(?: |$)", line))

    pattern = "\n".join(line_pattern(line) for line in expected)
    return re.fullmatch(pattern, "\n".join(MACHINE.sub("M", line) for line in got), flags=re.S) is not None


def _gtp_session(rest: list[str]) -> tuple[str, list[str]]:
    """A GTP example's commands (stdin) and its answers (the lines after each command)."""
    commands, answers = [], []
    for line in rest:
        if line and not line.startswith(("=", "?")):
            commands.append(line)
        else:
            answers.append(line)
    return "\n".join(commands + ["quit"]) + "\n", answers


def _typed(rest: list[str]) -> list[str]:
    """A terminal example's typed lines: what follows each prompt."""
    return [line[len(PROMPT):] for line in rest if line.startswith(PROMPT)]


def _echoed(stdout: str, typed: list[str]) -> str:
    """What a terminal shows of a run that read ``typed``: each line typed after its prompt."""
    parts = stdout.split(PROMPT)
    return parts[0] + "".join(PROMPT + line + "\n" + part for line, part in zip(typed, parts[1:]))


@pytest.mark.parametrize("command, rest, before",
                         [e for e in examples() if e[0].startswith(SELF_CONTAINED)], ids=lambda v: str(v)[:40])
def test_a_self_contained_example_prints_what_the_readme_shows(tmp_path, command, rest, before):
    _files(before, tmp_path)
    command, _, source = command.partition(" < ")
    args = shlex.split(command)[1:]
    gtp, typed = args[0] == "gtp", _typed(rest)
    stdin, expected = _gtp_session(rest) if gtp else ("", rest)
    if source:
        stdin = (tmp_path / source).read_text(encoding="utf-8")
    elif typed:
        stdin = "\n".join(typed) + "\n"
    done = subprocess.run([*SHAPEMILL, *args], input=stdin, capture_output=True, text=True, cwd=tmp_path,
                          timeout=1800)
    assert done.returncode == 0, done.stderr
    got = [line.rstrip() for line in _echoed(done.stdout, typed).rstrip("\n").split("\n")]
    if gtp:  # the answers without GTP's blank lines, less the answer to the quit sent last
        expected = [line for line in expected if line]
        got = [line for line in got if line][:-1]
    if args[0] == "analysis":
        expected, got = sorted(expected), sorted(got)
    assert _matches(expected, got), (expected, got)


def test_every_example_is_checked_by_one_of_these_tests():
    assert [command for command, _, _ in examples() if not command.startswith(SELF_CONTAINED + CORPUS)] == []


def test_the_readme_is_under_25_kb():
    assert README.stat().st_size < 25_000


@pytest.mark.shared_data
def test_the_corpus_examples_print_what_the_readme_shows(tmp_path, shared_data):
    (tmp_path / "tygem9d").symlink_to(shared_data / "tygem9d")
    (tmp_path / "33-invasion.sgf").write_text(FRAGMENT + "\n", encoding="utf-8")
    ran = []
    for command, rest, _ in examples():
        if not command.startswith(CORPUS):
            continue
        # what a terminal shows: the summaries on stderr and the results on stdout, in order
        done = subprocess.run([*SHAPEMILL, *shlex.split(command)[1:]], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, cwd=tmp_path, timeout=1800,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"})
        got = [line.rstrip() for line in done.stdout.rstrip("\n").split("\n")]
        assert done.returncode == 0 and _matches(rest, got), (command, rest, got)
        ran.append(command.split()[1])
    assert ran == [c.split()[1] for c in CORPUS]

"""What the README and docs/ say about the commands and the profiles is what the code has.

Every ``--flag`` written after ``arena COMMAND`` (in a code span, a code
block or a block's continuation lines) is one that command's ``--help``
lists; the number of profiles the README counts is the number registered;
no profile the registry has is called "not built".
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from arena.commands import COMMANDS
from arena.engine import profile_names
from tests.cli import arena

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
CALL = re.compile(r"arena ((?:bench |site (?=frames))?[a-z][a-z-]*)([^`\n]*)")
NUMBERS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
    " seventeen eighteen nineteen twenty twenty-one twenty-two twenty-three twenty-four twenty-five".split())}


@cache
def flags_of(command: str) -> frozenset[str]:
    ran = arena(*command.split(), "--help")
    assert ran.code == 0, ran.err
    return frozenset(FLAG.findall(ran.out + ran.err))


def calls(text: str) -> list[tuple[str, list[str]]]:
    """(command, flags written after it) for every ``arena COMMAND ...`` in ``text``."""
    joined = re.sub(r"\n[ \t]{6,}(?=[\[-])", " ", text)  # a usage block's continuation lines
    out = []
    for m in CALL.finditer(joined):
        if m.group(1).split()[0] in COMMANDS:
            out.append((m.group(1), FLAG.findall(m.group(2).split(" -- ")[0])))  # after `--`: the bot's own
    return out


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_flag_the_docs_give_a_command_exists(doc: Path) -> None:
    unknown = [(cmd, f) for cmd, flags in calls(doc.read_text()) for f in flags if f not in flags_of(cmd)]
    assert not unknown, f"{doc.name} names options its commands do not have: {unknown}"


def test_the_flag_check_catches_an_option_that_does_not_exist() -> None:
    text = "    arena sprt --candidate DIR --baseline DIR\n               [--max-blocks 400] [--sigma-pg X]\n"
    assert [f for _, fl in calls(text) for f in fl if f not in flags_of("sprt")] == ["--sigma-pg"]


def test_the_readme_counts_the_registered_profiles() -> None:
    m = re.search(r"`pagat62` by\s+default and ([\w-]+) more", (ROOT / "README.md").read_text())
    assert m, "the README's opening says how many profiles there are"
    assert NUMBERS[m.group(1)] == len(profile_names()) - 1


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_nothing_registered_is_called_not_built(doc: Path) -> None:
    text = re.sub(r"\s+", " ", doc.read_text())
    said = [m.group(0) for m in re.finditer(r"Not built yet:[^.]*\.", text)]
    words = {"joker": "sixty-three-joker", "in the dark": "louisiana-dark", "widow": "monterey-widow"}
    for sentence in said:
        for word, profile in words.items():
            assert not (word in sentence and profile in profile_names()), f"{doc.name}: {sentence!r}"

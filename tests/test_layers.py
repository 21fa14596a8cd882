"""The house rule: each layer imports only the layers below it (no upward import, no cycle)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ARENA = Path(__file__).resolve().parents[1] / "arena"

#: Floors from the ground up. A package may import its own floor's package
#: and anything on a lower floor; packages on the same floor are independent.
FLOORS: list[set[str]] = [
    {"engine", "ratings", "sandbox", "results"},
    {"protocol"},
    {"players"},
    {"match"},
    {"schedule"},
    {"publish"},
    {"serve"},
    {"bench"},
    {"commands"},
]
RANK = {pkg: i for i, floor in enumerate(FLOORS) for pkg in floor}


def imported_packages(path: Path, rel: Path | None = None) -> set[str]:
    """arena sub-packages a module imports (module level and inside functions alike).

    ``rel`` is the module's place under arena/ (default: where ``path`` is).
    """
    rel = (rel or path.relative_to(ARENA)).with_suffix("")
    here = ["arena", *rel.parts[:-1]]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                target = [*base, *(node.module.split(".") if node.module else [])]
                names = [".".join(target)] if node.module else [".".join([*target, a.name]) for a in node.names]
            else:
                names = [node.module or ""]
        for n in names:
            parts = n.split(".")
            if len(parts) > 1 and parts[0] == "arena":
                found.add(parts[1])
    return found


def modules() -> list[Path]:
    return sorted(p for p in ARENA.rglob("*.py") if len(p.relative_to(ARENA).parts) > 1)


def test_every_package_has_a_floor() -> None:
    pkgs = {p.name for p in ARENA.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert pkgs == set(RANK), "add the new package to FLOORS (and the README's layer table)"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ARENA)))
def test_imports_only_go_down(path: Path) -> None:
    pkg = path.relative_to(ARENA).parts[0]
    upward = sorted(q for q in imported_packages(path) if q in RANK and q != pkg and RANK[q] >= RANK[pkg])
    assert not upward, f"{path.relative_to(ARENA.parent)} ({pkg}, floor {RANK[pkg]}) imports {upward}"


def test_the_checker_sees_an_upward_import(tmp_path: Path) -> None:
    """The rule is enforced by the test above only if this parser finds imports of every form."""
    fake = tmp_path / "probe.py"
    fake.write_text("from ..match import play_game\nimport arena.schedule.runner\nfrom . import base\n\n"
                    "def f():\n    from ..publish import rate\n")
    assert imported_packages(fake, Path("players/probe.py")) == {"match", "schedule", "publish", "players"}

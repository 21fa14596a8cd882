"""The ``arena`` command loads only what the command at hand needs (issue 44, start-up).

Each check runs a fresh interpreter and reads its ``sys.modules``: what a
command imported, not how long it took (the figure is ``arena bench
startup``'s, docs/benchmarks.md).
"""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bench.startup import HEAVY, parse_importtime

#: The server's stack and Ray: only `arena serve`, `arena submit` and Ray backends use them.
NOT_AT_START = ("ray", "fastapi", "uvicorn", "starlette", "sqlalchemy")

SHOW_MODULES = "import atexit, json, sys; atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr)); "


def loaded(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code`` (it may exit by SystemExit)."""
    ran = subprocess.run([sys.executable, "-c", SHOW_MODULES + code], capture_output=True, text=True, timeout=120)
    return set(json.loads(ran.stderr.strip().splitlines()[-1]))


def tops(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


EVERY_COMMAND = ("import importlib; from arena.commands import COMMANDS; "
                 "[importlib.import_module('arena.commands.' + m) for m, _ in COMMANDS.values()]")


@pytest.mark.parametrize("code", [
    "import arena.commands",
    "import runpy; sys.argv = ['arena', '--help']; runpy.run_module('arena', run_name='__main__')",
    EVERY_COMMAND,
], ids=["import arena.commands", "arena --help", "every command's module"])
def test_start_up_loads_neither_ray_nor_the_server(code: str) -> None:
    """Not even `arena serve`'s module: the server's stack loads when it serves, Ray when a run starts it."""
    modules = loaded(code)
    assert "arena.commands" in modules  # the code ran
    assert not tops(modules) & set(NOT_AT_START), sorted(tops(modules) & set(NOT_AT_START))
    if code != EVERY_COMMAND:
        assert "arena.serve" not in modules


def test_arena_help_loads_no_command() -> None:
    modules = loaded("import runpy; sys.argv = ['arena', '--help']; runpy.run_module('arena', run_name='__main__')")
    assert not {m for m in modules if m.startswith("arena.") and m.split(".")[1] not in ("commands",)}
    assert {m for m in modules if m.startswith("arena.commands.")} <= {"arena.commands.common"}


def test_arena_run_loads_publishing_and_the_sprt_where_it_uses_them() -> None:
    """A run without ``site`` never loads the site's code; the live table, the rating and the SPRT load when used."""
    modules = loaded("import arena.commands.run")
    for lazy in ("arena.publish", "arena.publish.site", "arena.ratings", "arena.schedule.stopping", "arena.protocol.messages",
                 "arena.sandbox.image"):
        assert lazy not in modules, lazy


def test_a_lazy_name_still_imports_and_an_unknown_one_fails() -> None:
    modules = loaded("from arena.schedule import SPRTStop; from arena.protocol import Decide; print(SPRTStop, Decide)")
    assert {"arena.schedule.stopping", "arena.protocol.messages"} <= modules
    ran = subprocess.run([sys.executable, "-c", "from arena.protocol import NoSuchName"], capture_output=True, text=True)
    assert ran.returncode == 1 and "cannot import name 'NoSuchName'" in ran.stderr


def test_the_bench_reads_importtime_output() -> None:
    text = "\n".join([
        "import time: self [us] | cumulative | imported package",
        "import time:       100 |        100 |   _io",
        "import time:       200 |       1300 | encodings",
        "import time:       400 |        400 |     ray._private",
        "import time:       500 |        900 |   ray",
        "import time:      1000 |       2000 | arena.commands",
        "some other line the command printed",
    ])
    got = parse_importtime(text)
    assert got.ms == 3.3  # top level only: 1300 + 2000 us, children counted once in their parents
    assert got.modules == 5 and got.arena_modules == 1
    assert got.heavy == ("ray",) and "ray" in HEAVY
    assert parse_importtime("").ms == 0.0
    # a run's start-up: the imports before the line it writes before its first game
    later = text.replace("import time:       400 |", "arena run: one-block: 1 blocks\nimport time:       400 |")
    start = parse_importtime(later, until="arena run: one-block:")
    assert start.ms == 1.3 and start.modules == 2 and start.heavy == ()
    assert parse_importtime(later).ms == 3.3


LAZY_PACKAGES = ("arena.match", "arena.players", "arena.protocol", "arena.results", "arena.sandbox", "arena.schedule")


def _lazy_table(init: Path) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """A package ``__init__``'s names imported under ``TYPE_CHECKING`` and those of its ``lazy_names`` table,
    each as (relative module, name)."""
    tree = ast.parse(init.read_text())
    typed = {("." * n.level + (n.module or ""), a.name) for node in tree.body if isinstance(node, ast.If)
             and ast.unparse(node.test) == "TYPE_CHECKING" for n in node.body if isinstance(n, ast.ImportFrom)
             for a in n.names}
    table = {(k.value, e.value) for node in ast.walk(tree) if isinstance(node, ast.Call)
             and ast.unparse(node.func) == "lazy_names" for d in node.args[1:] if isinstance(d, ast.Dict)
             for k, v in zip(d.keys, d.values) if isinstance(k, ast.Constant) and isinstance(v, ast.Tuple)
             for e in v.elts if isinstance(e, ast.Constant)}
    return typed, table


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_a_lazy_package_exports_what_the_type_checker_sees(package: str) -> None:
    """The type checker reads the ``TYPE_CHECKING`` imports, the program the ``lazy_names`` table: they agree."""
    typed, table = _lazy_table(Path(importlib.import_module(package).__file__ or ""))
    assert table and typed == table, (sorted(typed - table), sorted(table - typed))


def test_every_name_a_lazy_package_exports_resolves() -> None:
    """In a fresh interpreter (nothing loaded before), every name of each package's ``__all__`` imports."""
    code = ("import importlib; missing = [(p, n) for p in %r for n in importlib.import_module(p).__all__"
            " if not hasattr(importlib.import_module(p), n)]; print(missing)" % (LAZY_PACKAGES,))
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0 and ran.stdout.strip() == "[]", ran.stdout + ran.stderr


def test_the_table_reader_sees_a_name_missing_from_either_side(tmp_path: Path) -> None:
    init = tmp_path / "__init__.py"
    init.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import X, Y\n"
                    "__getattr__ = lazy_names(__name__, {'.a': ('X',), '.b': ('Z',)})\n")
    typed, table = _lazy_table(init)
    assert typed - table == {(".a", "Y")} and table - typed == {(".b", "Z")}


def test_a_lazy_name_its_module_shares_is_refused() -> None:
    """``standings`` of ``.standings`` would be shadowed by its module once anything imports it."""
    from arena._lazy import lazy_names

    with pytest.raises(ValueError, match="standings"):
        lazy_names("arena.results", {".standings": ("Standing", "standings")})
    assert lazy_names("arena.results", {".standings": ("Standing",)})("Standing").__name__ == "Standing"

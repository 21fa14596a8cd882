"""The ``arena`` command loads only what the command at hand needs (issue 44, start-up).

Each check runs a fresh interpreter and reads its ``sys.modules``: what a
command imported, not how long it took (the figure is ``arena bench
startup``'s, docs/benchmarks.md).
"""

from __future__ import annotations

import json
import subprocess
import sys

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

"""docs/architecture.md's path of a seed names what runs: every dotted name it writes is in the
code, and a real ``arena run`` calls every function of that path (and not ``play_block``,
which the doc says a tournament does not call)."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

from arena.commands import main

from ..schedule.conftest import write_config

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
ARENA = Path(importlib.import_module("arena").__file__ or "").parent

#: The functions a pairs tournament runs on the way, as (module under arena, function).
PATH = [("schedule/config", "load_config"), ("schedule/runner", "run_tournament"), ("schedule/runner", "admit"),
        ("schedule/runner", "plan"), ("schedule/runner", "plan_tasks"), ("match/keys", "block_key"),
        ("schedule/runner", "play"), ("schedule/scheduler", "run_tasks"), ("schedule/task", "run_block"),
        ("match/block", "play_blocks"), ("match/block", "_play_rounds"), ("match/keys", "bot_seed"),
        ("match/game", "play_game"), ("schedule/runner", "summarize"), ("publish/rate", "rate_results"),
        ("ratings/rate", "rate")]


def _section() -> str:
    text = DOC.read_text()
    return text.split("## One seed, down and back up")[1].split("\n## ")[0]


def _resolve(dotted: str) -> Any:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module("arena." + ".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise AssertionError(f"{dotted}: no such module under arena")


def test_every_dotted_name_of_the_path_is_in_the_code() -> None:
    names = set(re.findall(r"`([a-z_]+(?:\.[A-Za-z_]+)+)`", _section()))
    assert len(names) >= 15, names
    for dotted in sorted(names):
        assert _resolve(dotted) is not None, dotted


def test_every_function_of_the_path_runs_in_a_real_run(tmp_path: Path) -> None:
    section = _section()
    for _, fn in PATH:
        assert f"`{fn}`" in section or f".{fn}`" in section, f"the doc does not name {fn}"
    codes: set[CodeType] = set()

    def trace(frame: FrameType, event: str, arg: Any) -> None:
        # a global trace function sees each new frame once ("call") and traces nothing inside it:
        # far cheaper than a profile hook, which also sees every return and every call into C
        codes.add(frame.f_code)

    cfg = write_config(tmp_path, blocks=1)
    sys.settrace(trace)
    try:
        code = main(["run", str(cfg), "--skip-check"])
    finally:
        sys.settrace(None)
    assert code == 0
    called = {(str(Path(c.co_filename).relative_to(ARENA).with_suffix("")), c.co_name)
              for c in codes if Path(c.co_filename).is_relative_to(ARENA)}
    missing = [f"{m}.{fn}" for m, fn in PATH if (m, fn) not in called]
    assert not missing, missing
    assert ("match/block", "play_block") not in called

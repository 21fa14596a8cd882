"""docs/architecture.md's path of a seed names what runs: every dotted name it writes is in the
code, and a real ``arena run`` calls every function of that path (and not ``play_block``,
which the doc says a tournament does not call)."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from types import FrameType
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
    called: set[tuple[str, str]] = set()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            path = Path(frame.f_code.co_filename)
            if path.is_relative_to(ARENA):
                called.add((str(path.relative_to(ARENA).with_suffix("")), frame.f_code.co_name))

    cfg = write_config(tmp_path, blocks=1)
    sys.setprofile(profile)
    try:
        code = main(["run", str(cfg), "--skip-check"])
    finally:
        sys.setprofile(None)
    assert code == 0
    missing = [f"{m}.{fn}" for m, fn in PATH if (m, fn) not in called]
    assert not missing, missing
    assert ("match/block", "play_block") not in called

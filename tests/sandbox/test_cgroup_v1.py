"""The v1 freezer's switch held on: an empty group of the harness's own, frozen while it lives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.sandbox import cgroup as cg

ROOT = Path(__file__).resolve().parents[2]

KEEPER = r"""
import json, os, sys
from pathlib import Path
from arena.sandbox import Limits
from arena.sandbox import cgroup as cg
base = cg.parent_dirs()["freezer"]
stale = base / f"{cg.KEEPER_PREFIX}jdead00000000-{sys.argv[1]}"
stale.mkdir()
group = cg.create_cgroup(Limits())
again = cg.create_cgroup(Limits())
mine = [p for p in base.iterdir() if p.name.startswith(cg.KEEPER_PREFIX) and p.name.endswith(f"-{os.getpid()}")]
print(json.dumps({"stale_left": stale.exists(), "mine": [str(p) for p in mine],
                  "state": [(p / "freezer.state").read_text().strip() for p in mine],
                  "tasks": [(p / "cgroup.procs").read_text() for p in mine],
                  "seat": (group.paths["freezer"] / "freezer.state").read_text().strip()}), flush=True)
group.destroy()
again.destroy()
"""


def test_an_empty_group_is_held_frozen_while_the_process_lives_and_stale_ones_go() -> None:
    """With no group frozen on the host, the kernel switched its freezer checks off and on again at
    each thaw and freeze of a seat, patching code on every CPU (docs/sandbox.md): one empty group per
    harness process stays frozen instead. It holds no task, is made once, and goes with its process;
    one left by a process that died is removed by the next."""
    if "freezer" not in cg.parent_dirs():
        pytest.skip("no writable cgroup v1 freezer here")
    ran = subprocess.run([sys.executable, "-c", KEEPER, str(_dead_pid())],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert ran.returncode == 0, ran.stderr
    seen = json.loads(ran.stdout)
    assert not seen["stale_left"]
    assert len(seen["mine"]) == 1 and seen["state"] == ["FROZEN"] and seen["tasks"] == [""], seen
    assert seen["seat"] == "THAWED"  # the bots' own groups are not touched by it
    assert not Path(seen["mine"][0]).exists()  # removed as its process exited


def _dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_a_killed_judge_s_frozen_group_is_ended_by_the_sweep_of_its_name() -> None:
    """kill -9 leaves no atexit: the judge's watcher (or the next judge's sweep) ends its empty frozen group
    with its bots' groups, not only the next process that holds one."""
    from arena.sandbox import reaper

    if "freezer" not in cg.parent_dirs():
        pytest.skip("no writable cgroup v1 freezer here")
    base = cg.parent_dirs()["freezer"]
    name = f"jswept0000000-{_dead_pid()}"
    keeper, other = base / f"{cg.KEEPER_PREFIX}{name}", base / f"{cg.KEEPER_PREFIX}jother0000000-{_dead_pid()}"
    for g in (keeper, other):
        g.mkdir()
        (g / "freezer.state").write_text("FROZEN")
    try:
        assert reaper.sweep(f"{name}-", [base], None) == set()  # no bot group: none named
        assert not keeper.exists() and other.exists()  # only the swept judge's
    finally:
        for g in (keeper, other):
            if g.exists():
                (g / "freezer.state").write_text("THAWED")
                g.rmdir()

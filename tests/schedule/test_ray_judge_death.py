"""Slow: kill -9 of the Ray worker playing a block leaves nothing of its sandboxes, and the run loses nothing.

A Ray worker is a judge of its own (issue 40): it launches the seats of the
blocks it plays, and at `gvisor` (and with `time.pause_idle` at `bwrap`)
every seat not on move is frozen, so parent-death signals alone would leave
them. The worker is found by its seats' cgroups (`bot-JUDGE-PID-...`, PID the
launching process), never by a command line; what must not survive it is
every task of those groups, every process below it, the groups and its
launch areas. The run then retries the lost unit on another worker: every
block stored once, no bot blamed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.sandbox import proctree
from arena.sandbox.reaper import JUDGE_FILE

from ..sandbox.conftest import need_gvisor
from ..serve.test_judge_death import alive, areas_of, frozen_owners, groups_of, tasks
from .conftest import write_config

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.bwrap, pytest.mark.ray]
BLOCKS = 4
#: Time limits no load can reach (Ray's workers run at nice 15): a fault would be the harness blaming a bot.
UNHURRIED = {"startup_ms": 600000, "decision_ms": 600000, "bank_ms": 6000000, "tempo": "free"}  # fixed holds answers


@pytest.mark.parametrize("level", ["bwrap", "gvisor"])
def test_kill_9_of_the_ray_worker_playing_a_block_leaves_nothing_and_loses_no_result(tmp_path: Path,
                                                                                     level: str) -> None:
    if level == "gvisor":
        need_gvisor()
    config = write_config(tmp_path, seed="ray-judge", blocks=BLOCKS, backend="ray", workers=2,
                          match={"sandbox": level, "format": "deals", "deals": 40,
                                 "time": {"pause_idle": True, **UNHURRIED}})
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config)], cwd=ROOT, start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 300
        while not ((out / JUDGE_FILE).exists() and (out / JUDGE_FILE).read_text().strip()):
            assert p.poll() is None and time.monotonic() < end, "the run did not name its judge"
            time.sleep(0.05)
        judge = (out / JUDGE_FILE).read_text().split()[0]
        while not (workers := frozen_owners(judge) - {p.pid}):  # a worker's seats are up, one frozen
            assert p.poll() is None and time.monotonic() < end, "no block played on a Ray worker"
            time.sleep(0.05)
        worker = min(workers)
        seen = tasks(judge, worker, owner=worker)
        areas = areas_of(judge, worker)
        assert seen and len(groups_of(judge, worker)) >= 2
        assert (level == "gvisor") == bool(areas)  # the test can see what it looks for
        os.kill(worker, signal.SIGKILL)
        end = time.monotonic() + 60
        while left := ([f"pid {pid}" for pid, start in seen.items() if alive(pid, start)]
                       + list(groups_of(judge, worker)) + [str(a) for a in areas_of(judge, worker)]):
            assert time.monotonic() < end, f"the killed worker's sandboxes outlived it: {left}"
            time.sleep(0.1)
        assert p.wait(1800) == 0  # the run goes on and completes (a bound on a hang only)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] and summary["retries"] >= 1 and summary["harness_failures"] == []
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert sorted((ln["pairing"], ln["block"]) for ln in lines) == sorted({(ln["pairing"], ln["block"])
                                                                           for ln in lines})  # none twice
    assert sorted(ln["block"] for ln in lines) == list(range(BLOCKS))  # none lost
    assert all(ln["run"]["pid"] != worker for ln in lines)  # the lost unit was played again elsewhere
    games = [g for ln in lines for g in ln["games"]]
    assert games and all(g["faults"] == [] and g["forfeit_by"] is None for g in games)  # no bot blamed
    assert proctree._stat_fields(worker) is None or not alive(worker, seen[worker])

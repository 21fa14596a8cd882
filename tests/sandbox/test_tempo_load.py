"""tempo: fixed beside CPU hogs (issue 41): an honest bot is never faulted for the machine's load.

A bot that burns 80 ms of CPU on every decision (its limit 100 ms, its slot 150 ms) plays a real
round robin with three CPU hogs per core on the machine: its answers come late for want of a core,
and the judge must see that the wait was the machine's (its threads' wait for a core and the
game loop's own), not the bot's. Whatever load the machine already has only adds to the hogs'.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from . import collusion
from .conftest import HOSTILE


class Hogs:
    def __init__(self, n: int) -> None:
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]

    def close(self) -> None:
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()


@pytest.mark.slow
@pytest.mark.parametrize("level", ["bwrap", "gvisor"])
def test_an_honest_bot_is_not_faulted_beside_cpu_hogs(tmp_path: Path, level: str) -> None:
    collusion.need(level)
    from arena.commands import main

    bot = tmp_path / "burn"
    bot.mkdir()
    shutil.copy(HOSTILE / "burn.py", bot / "burn.py")
    (bot / "bot.yaml").write_text(yaml.safe_dump({"name": "burn", "version": "1", "command": ["{python}", "burn.py"],
                                                  "env": {"BURN_MS": "80"}}))
    out = tmp_path / "run"
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({
        "name": "tempo-load", "entries": [str(bot), str(collusion.BOTS / "random")],
        "schedule": {"kind": "round_robin"}, "blocks": 1, "seed": "tempo-load",
        "match": {"sandbox": level, "format": "deals", "deals": 2, "restart": "per-game",
                  "time": {"decision_ms": 100, "slot_ms": 150, "startup_ms": 60000, "bank_ms": 600000,
                           "tempo": "fixed"}},
        "backend": "serial", "workers": 1, "nice": None, "out": str(out)}))
    hogs = Hogs(3 * (os.cpu_count() or 1))
    try:
        code = main(["run", str(config), "--skip-check", "--no-rate", "--quiet"])
    finally:
        hogs.close()
    assert code == 0
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    faults = [f for line in lines for g in line["games"] for f in g["faults"]]
    assert not faults, faults[:1]
    late = [x for line in lines for g in line["run"]["games"] for p in g["players"] if p["bot"] == "burn"
            for x in p["latency_ms"] if x > 150]
    decisions = sum(len(p["latency_ms"]) for line in lines for g in line["run"]["games"] for p in g["players"]
                    if p["bot"] == "burn")
    print(f"{level}: {len(late)} of {decisions} of the burning bot's answers came after the slot, none faulted")

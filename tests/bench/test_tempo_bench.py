"""``arena bench tournament``'s tempo part alone (``--tempo-only``): a bot's faults are counted and
named beside the rates, and the measure goes on to the last block (issue 41: one honest bot's stall
used to end the whole measurement)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from ..cli import arena
from ..testbots import TESTBOT


@pytest.mark.slow
def test_the_tempo_part_alone_measures_past_a_faulting_bot_and_names_its_faults(tmp_path: Path) -> None:
    bot = tmp_path / "faulty"
    bot.mkdir()
    shutil.copy(TESTBOT / "bot.py", bot / "bot.py")
    manifest = {"name": "faulty", "version": "1", "command": ["{python}", "bot.py"], "env": {"MODE": "illegal", "AT": "12"}}
    (bot / "bot.yaml").write_text(yaml.safe_dump(manifest))
    ran = arena("bench", "tournament", "--tempo-only", "--tempo", f"{bot}:rlimit", "--tempo-blocks", "1")
    assert ran.code == 0, ran.err
    last = json.loads(ran.out.strip().splitlines()[-1])
    assert "configs" not in last  # the restart modes were not measured
    tp = last["tempo"]
    for mode in ("free", "fixed"):
        x = tp[mode]
        assert x["games"] == 24 and x["blocks_missing"] == 0, x  # six pairings, two blocks, two games a block
        assert 0 < x["faults"] <= x["games"] and x["games_per_s"] > 0, x
        assert x["fault_examples"] and all(e.startswith("faulty-") and ": illegal" in e for e in x["fault_examples"]), x
    assert last["tempo_faults_faulty_rlimit"] == tp["free"]["faults"] + tp["fixed"]["faults"]
    assert last["tempo_fixed_vs_free_faulty_rlimit"] == tp["fixed_vs_free"] > 0
    assert "tempo fixed faults:" in ran.out and "tempo free  faults:" in ran.out

"""Slow: the server's memory does not grow with the blocks the ladder has stored.

A server's RSS keeps the high-water mark of its Python heap, so both what a batch leaves behind and
what a batch holds at once count: the batches run in-process here (as ``arena serve`` runs them with one
worker) under tracemalloc, counting allocations and objects, never timing anything.
"""

from __future__ import annotations

import gc
import json
import shutil
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import arena.serve.ladder as ladder
from arena.results import ResultsScan, ResultsStore, standings
from arena.schedule import RunResult
from arena.serve import db
from arena.serve.serve import open_service
from arena.serve.service import STORE_INDEX

from .conftest import ROOT

pytestmark = pytest.mark.slow
BATCHES = 8  # of 4 blocks each: 32 stored blocks
CONFIG = """\
competition:
  name: memory
  check_games: 0
  seed: memory
  ladder_blocks: 4
  ladder_pairing_blocks: 1
  site_bootstrap: 0
match:
  sandbox: none
  format: deals
  deals: 1
"""


def test_a_batch_leaves_nothing_behind_and_holds_one_copy_of_the_store(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "competition.yaml").write_text(CONFIG)
    svc = open_service(tmp_path)
    for team, bot in (("red", "minimal"), ("blue", "random")):
        db.add_team(svc.engine, team)
        dest = tmp_path / "submissions" / team
        shutil.copytree(ROOT / "bots" / bot, dest)
        tid = 1 if team == "red" else 2
        db.add_submission(svc.engine, tid, str(dest), per_day=9)
        sub = db.claim_next(svc.engine)
        assert sub is not None
        db.finish(svc.engine, sub.id, True, "ok")
    alive_at_publish: list[int] = []
    real_publish = ladder.publish

    def publish(s: Any) -> None:  # while the site is built, no loaded store and no run's lines are alive
        gc.collect()
        alive_at_publish.append(sum(isinstance(o, (ResultsStore, RunResult)) for o in gc.get_objects()))
        real_publish(s)

    monkeypatch.setattr(ladder, "publish", publish)
    retained: list[int] = []
    blocks: list[int] = []
    tracemalloc.start()
    try:
        for _ in range(BATCHES):
            assert ladder.run_batch(svc) > 0
            gc.collect()
            retained.append(tracemalloc.get_traced_memory()[0])
            blocks.append(sum(1 for _ in ResultsScan(tmp_path / "results")))
    finally:
        tracemalloc.stop()
    assert alive_at_publish == [0] * BATCHES
    # each resume read only what the store gained: every line was appended by this server itself
    assert svc.ladder_store.parsed == 0 and len(svc.ladder_store.games) == blocks[-1]
    again = open_service(tmp_path)  # a restarted server reads the index its last batch wrote: no stored line
    assert ladder.run_batch(again) > 0 and ladder.run_batch(again) > 0
    assert again.ladder_store.parsed == 0
    (tmp_path / STORE_INDEX).unlink()  # without it (a server of the code before), the store once
    fresh, stored = open_service(tmp_path), sum(1 for _ in ResultsScan(tmp_path / "results"))
    assert ladder.run_batch(fresh) > 0 and fresh.ladder_store.parsed == stored
    blocks.append(sum(1 for _ in ResultsScan(tmp_path / "results")))
    # a stored line is kilobytes (these are small: one deal a game); what the server keeps per block is
    # under 1 KiB (today ~0.7 KiB of the interpreter's own caches), so no cache of the lines slips in
    grew, more = retained[-1] - retained[2], blocks[-1] - blocks[2]
    assert more >= 16 and grew < 1024 * more, (retained, blocks)
    # the standings after a batch read only the lines' seats, winners and faults: the same figures
    full = [line for line, _, _ in ResultsScan(tmp_path / "results")]
    doc = json.loads((tmp_path / "standings.json").read_text())
    assert [(s["bot"], s["games"], s["faults"]) for s in doc["standings"]] == \
        [(s.bot, s.games, s.faults) for s in standings(full)]
    assert doc["blocks_stored"] == len(full) == blocks[-1] == len(fresh.ladder_store.games)

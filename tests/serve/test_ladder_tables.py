"""The ladder at tables of n seats (five-hand): it plays, rates and publishes with five teams; with three it
plays nothing and says why, once in the log and on the front page (issue 39: an IndexError every minute)."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest

from arena.results import read_results
from arena.serve.app import Service
from arena.serve.ladder import run_batch
from arena.serve.serve import open_service

from .conftest import ROOT, start
from .test_ladder import TEAMS, accept

FIVE = ("competition:\n  seed: tables\n  ladder_blocks: 2\n  ladder_pairing_blocks: 1\n  site_bootstrap: 0\n"
        "match:\n  sandbox: none\n  format: deals\n  deals: 1\n  profile: five-hand\n")


def five_hand(path: Path, teams: int) -> Service:
    path.mkdir()
    (path / "competition.yaml").write_text(FIVE)
    svc = open_service(path)
    TEAMS[svc] = {}
    for i in range(teams):
        accept(svc, f"team{i}", ROOT / "bots" / "minimal")
    return svc


def test_three_teams_at_a_five_hand_table_play_nothing_and_the_front_page_says_why(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    svc = five_hand(tmp_path / "c", 3)
    with caplog.at_level(logging.INFO, logger="arena.serve.ladder"):
        assert run_batch(svc) == 0
        assert run_batch(svc) == 0
    said = [r.getMessage() for r in caplog.records]
    why = "the ladder waits: five-hand seats 5 players, and 3 teams have an accepted version"
    assert said == [why]  # one line, not one a minute; no traceback
    assert not any(r.exc_info for r in caplog.records)
    url, server = start(svc, worker=False)
    try:
        page = httpx.get(url + "/").text
    finally:
        server.should_exit = True  # type: ignore[attr-defined]
    assert f"<p id=ladder-status>{why}</p>" in page
    assert not (svc.folder / "results" / "results.jsonl").exists()


@pytest.mark.slow
def test_five_teams_at_a_five_hand_table_play_rate_and_publish(tmp_path: Path) -> None:
    svc = five_hand(tmp_path / "c", 5)
    assert run_batch(svc) == 1  # the one table's minimum (one block of five games by rotation)
    assert run_batch(svc) == 2  # and on: the table's next blocks
    got = [ln.to_dict() for ln in read_results(svc.folder / "results").lines]
    assert [ln["block"] for ln in got] == [0, 1, 2] and all(len(ln["games"]) == 5 for ln in got)
    assert svc.ladder_waiting is None
    index = (svc.folder / "public" / "index.html").read_text()
    assert all(f"team{i}" in index for i in range(5))
    assert "rating" in index.lower()

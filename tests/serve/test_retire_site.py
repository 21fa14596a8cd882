"""A version the host retires leaves the public site's ranking at once, not at the ladder's next batch."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arena.commands import main
from arena.serve.ladder import RATINGS, run_batch
from arena.serve.serve import open_service

from .conftest import ROOT
from .test_ladder import TEAMS, accept, library_comp


def rated_rows(folder: Path) -> list[tuple[str, int]]:
    rows = json.loads((folder / RATINGS).read_text())["rows"]
    return sorted((r["team"], r["version"]) for r in rows)


def test_a_retired_latest_version_leaves_the_site_ranking_at_once(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    minimal = ROOT / "bots" / "minimal"
    svc = library_comp(tmp_path / "c")
    accept(svc, "red", minimal)
    accept(svc, "blue", minimal)
    assert run_batch(svc) == 2
    v2 = tmp_path / "v2"
    shutil.copytree(minimal, v2)
    (v2 / "bot.py").write_text((v2 / "bot.py").read_text() + "\n# version 2\n")
    accept(svc, "red", v2)
    assert run_batch(svc) == 2  # red v2 plays blue
    assert rated_rows(svc.folder) == [("blue", 1), ("red", 1), ("red", 2)]  # v1 as history
    index = svc.folder / "public" / "index.html"
    assert "Retired by the host" not in index.read_text()
    stored = (svc.folder / "results" / "results.jsonl").read_bytes()

    assert main(["serve", str(svc.folder), "--retire", "red:2"]) == 0
    assert "red v2 retired: it leaves the ranking now" in capsys.readouterr().out
    # no batch played: the store is as it was, and the site already ranks red v1 again, v2 retired
    assert (svc.folder / "results" / "results.jsonl").read_bytes() == stored
    page = index.read_text()
    assert "Retired by the host" in page and rated_rows(svc.folder) == [("blue", 1), ("red", 1)]
    again = open_service(svc.folder)  # the server's next batch keeps it out (the same build, nothing new)
    TEAMS[again] = TEAMS[svc]
    run_batch(again)
    assert "Retired by the host" in index.read_text()


def test_retiring_before_any_site_says_when_it_leaves(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svc = library_comp(tmp_path / "c")
    accept(svc, "red", ROOT / "bots" / "minimal")
    assert main(["serve", str(svc.folder), "--retire", "red:1"]) == 0
    assert "when the ladder next rebuilds the site" in capsys.readouterr().out
    assert not (svc.folder / "public").exists()


def test_retiring_one_of_two_teams_leaves_nothing_to_rate_and_still_succeeds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    """Every stored block has the retired version in it: the rebuild has nothing to rate. The retire (already
    recorded) is said, not failed (the hosting walk-through met this); the ranking empties at once (the front
    page and the API rank no one), and the ladder's later batches do not fail on it every minute."""
    svc = library_comp(tmp_path / "c")
    accept(svc, "red", ROOT / "bots" / "minimal")
    accept(svc, "blue", ROOT / "bots" / "minimal")
    assert run_batch(svc) == 2
    assert rated_rows(svc.folder) == [("blue", 1), ("red", 1)]
    assert main(["serve", str(svc.folder), "--retire", "red:1"]) == 0
    assert "red v1 retired: it leaves the ranking now (nothing is left to rate" in capsys.readouterr().out
    assert rated_rows(svc.folder) == []
    caplog.set_level("INFO", logger="arena")
    again = open_service(svc.folder)
    TEAMS[again] = TEAMS[svc]
    assert run_batch(again) == 0  # one team left: nothing to play, and no error either
    assert rated_rows(svc.folder) == []
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "WARNING")], caplog.text
    assert main(["serve", str(svc.folder), "--remove-team", "blue"]) == 0

"""``arena run`` with ``site:``: provisional leaderboard pages while blocks finish, the whole site at the end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

import arena.publish.site as site_pkg  # arena run imports it where it writes the site
from tests.cli import arena

from .conftest import bot_folder, play


def test_run_keeps_a_provisional_page_then_writes_the_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, int, bool]] = []
    real = site_pkg.write_provisional

    def spy(results: Any, out: Any, *, done: int, total: int) -> Any:
        m = real(results, out, done=done, total=total)
        page = (Path(out) / "index.html").read_text()
        calls.append((done, total, "Provisional" in page and f"{done} of {total} blocks" in page))
        return m

    monkeypatch.setattr(site_pkg, "write_provisional", spy)
    a = bot_folder(tmp_path, "alpha", {"PICK": "first"})
    b = bot_folder(tmp_path, "bravo", {"PICK": "last"})
    site = tmp_path / "site"
    play(tmp_path, [a, b], out=tmp_path / "out", blocks=3, site=str(site),
         match={"sandbox": "none", "format": "deals", "deals": 1})
    assert calls[-1] == (3, 3, True)  # the last block always refreshes the page
    assert [c[0] for c in calls] == sorted(c[0] for c in calls) and all(c[2] for c in calls)
    final = (site / "index.html").read_text()
    assert "Provisional" not in final and 'href="bots/alpha.html"' in final
    assert len(list((site / "games").iterdir())) == 6


def test_a_site_folder_that_is_not_a_site_is_reported_and_the_games_are_kept(tmp_path: Path) -> None:
    a = bot_folder(tmp_path, "alpha", {"PICK": "first"})
    b = bot_folder(tmp_path, "bravo", {"PICK": "last"})
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("not a site")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump({"name": "t", "entries": [str(a), str(b)], "seed": "s", "blocks": 1,
                                   "match": {"sandbox": "none", "format": "deals", "deals": 1},
                                   "out": str(tmp_path / "out"), "site": str(taken), "backend": "serial",
                                   "workers": 1}))
    ran = arena("run", cfg, "--skip-check", "--no-rate")
    assert ran.code == 1
    assert "provisional site not written (the games go on)" in ran.err
    assert "the games are done but the site failed" in ran.err and f"arena site {tmp_path / 'out'}" in ran.err
    assert (tmp_path / "out" / "results.jsonl").read_text().count("\n") == 1
    assert (taken / "notes.txt").read_text() == "not a site" and len(list(taken.iterdir())) == 1

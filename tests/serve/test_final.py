"""The freeze and the final evaluation: uploads stop, the final versions play ``final_blocks`` of every pairing
with a seed derived from the ladder's, and the final standings and seeds are published, every page saying so
(a quick test in the library, an end-to-end one with `arena serve --freeze`, and the final page in Chromium)."""

from __future__ import annotations

import json
import os
import signal
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx
import pytest

from arena.results import read_results
from arena.serve import db
from arena.serve.final import final_seed, freeze, frozen, result, run_final
from arena.serve.serve import loop
from arena.serve.serve import open_service

from .conftest import ROOT, bot_archive, start
from .test_browser import ARTIFACTS, browser, goto  # noqa: F401 - the fixture
from .test_ladder_backends import accepted, lines, serve, stop, wait_past_minimum


def test_a_competition_frozen_with_one_team_refuses_uploads_and_says_no_final_could_play(tmp_path: Path) -> None:
    folder = accepted(tmp_path / "c", teams=1)
    svc = open_service(folder)
    token = db.add_team(svc.engine, "late")
    assert frozen(svc) is None
    doc = freeze(svc)
    assert [v.name for v in doc.versions] == ["team00"] and freeze(svc) == doc  # once
    assert run_final(svc)
    done = result(svc)
    assert done is not None and done.standings == [] and (done.note or "").startswith("no final evaluation:")
    assert done.seeds.model_dump() == {"ladder": "backends", "final": final_seed("backends")} != {
        "ladder": "backends", "final": "backends"}
    url, server = start(svc, worker=False)
    try:
        r = httpx.post(f"{url}/api/submissions", headers={"Authorization": f"Bearer {token}"},
                       files={"archive": ("b.tar.gz", bot_archive())})
        assert r.status_code == 403 and r.json()["detail"].startswith("the competition is closed (frozen at ")
        assert "id=final-banner" in httpx.get(f"{url}/").text
        page = httpx.post(f"{url}/login", data={"token": "x", "login": "y"}, headers={"Accept": "text/html"})
        assert page.status_code == 403 and "id=refusal" in page.text and "id=final-banner" in page.text
        page = httpx.get(f"{url}/final/").text
        assert "id=final-banner" in page and "no final evaluation" in page and final_seed("backends") in page
    finally:
        server.should_exit = True  # type: ignore[attr-defined]


def test_freeze_on_a_served_folder_freezes_it_and_a_running_idle_ladder_plays_the_final(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's --freeze while a server holds the folder: the command freezes and exits (no restart), and the
    server's ladder, idle with too few teams, notices the file another process wrote and plays the final."""
    import threading

    from arena.commands import main
    from arena.schedule.lock import FolderLock
    from arena.serve import serve as serve_module
    from arena.serve.serve import SERVE_LOCK

    folder = accepted(tmp_path / "c", teams=1)
    svc = open_service(folder)
    monkeypatch.setattr(serve_module, "IDLE_S", 3600.0)  # only the freeze can end this wait
    t = threading.Thread(target=loop, args=(svc,), daemon=True)
    t.start()
    try:
        with FolderLock(folder, SERVE_LOCK):  # as the running server holds it
            assert main(["serve", str(folder), "--freeze"]) == 0
            out = capsys.readouterr().out
            assert "frozen at" in out and "1 final versions" in out and "the running server" in out
            assert main(["serve", str(folder), "--freeze"]) == 0  # once: the same freeze again
            assert capsys.readouterr().out == out
        end = time.monotonic() + 300
        while result(svc) is None:  # the loop's own Service was never told: it read the file
            assert t.is_alive() and time.monotonic() < end
            time.sleep(0.2)
    finally:
        svc.stop.set()
        svc.ladder_wake.set()
        t.join(60)
    done = result(svc)
    assert done is not None and (done.note or "").startswith("no final evaluation:")
    assert not t.is_alive()


def test_closes_at_freezes_the_competition_by_itself(tmp_path: Path) -> None:
    past = (datetime.now(timezone.utc) - timedelta(minutes=1)).isoformat()
    folder = accepted(tmp_path / "c", teams=2, extra=f"  closes_at: '{past}'\n")
    svc = open_service(folder)
    doc = frozen(svc)
    assert doc is not None and doc.why.startswith("closes_at ") and len(doc.versions) == 2
    future = (datetime.now(timezone.utc) + timedelta(days=1)).isoformat()
    open_folder = accepted(tmp_path / "d", teams=2, extra=f"  closes_at: '{future}'\n")
    assert frozen(open_service(open_folder)) is None


@pytest.mark.slow
def test_the_final_evaluation_plays_in_the_library_and_the_ladder_stops(tmp_path: Path) -> None:
    folder = accepted(tmp_path / "c", teams=3, extra="  final_blocks: 2\n")
    svc = open_service(folder)
    from arena.serve.ladder import run_batch

    assert run_batch(svc) > 0
    ladder_lines = len(lines(folder))
    freeze(svc)
    t = __import__("threading").Thread(target=loop, args=(svc,), daemon=True)
    t.start()
    end = time.monotonic() + 600
    while result(svc) is None:
        assert time.monotonic() < end
        time.sleep(0.2)
    svc.stop.set()
    svc.ladder_wake.set()
    t.join(60)
    assert len(lines(folder)) == ladder_lines  # the ladder played no more after the freeze
    final = [ln.to_dict() for ln in read_results(folder / "final" / "results").lines]
    assert sorted((ln["pairing"], ln["block"]) for ln in final) == sorted(
        (p, b) for p in {ln["pairing"] for ln in final} for b in range(2)) and len(final) == 3 * 2
    meta = json.loads((folder / "final" / "results" / "tournament.json").read_text())
    assert meta["complete"] and meta["seed"] == final_seed("backends")
    done = result(svc)
    assert done is not None and sorted(s.bot for s in done.standings) == ["team00", "team01", "team02"]
    assert [s.rank for s in done.standings] == [1, 2, 3]


@pytest.mark.slow
def test_arena_serve_freeze_runs_the_final_evaluation_end_to_end_and_every_page_says_so(
        tmp_path: Path, browser) -> None:  # noqa: F811 - the fixture
    folder = accepted(tmp_path / "c", teams=3, extra="  final_blocks: 1\n")
    p = serve(folder)
    wait_past_minimum(p, folder, 4)  # the ladder played its minimum (3) and on
    stop(p, signal.SIGINT)
    p = serve(folder, "--freeze")
    try:
        end = time.monotonic() + 600
        while not (folder / "final" / "done.json").exists():
            assert p.poll() is None and time.monotonic() < end
            time.sleep(0.5)
        port = next(a for a in p.args[p.args.index("--port") + 1:] if a.isdigit())  # type: ignore[union-attr]
        url = f"http://127.0.0.1:{port}"
        end = time.monotonic() + 60
        while True:
            try:
                page = httpx.get(f"{url}/final/").text
                break
            except httpx.TransportError:
                assert time.monotonic() < end
                time.sleep(0.2)
        assert "Final standings, published" in page and final_seed("backends") in page and "backends" in page
        for team in ("team00", "team01", "team02"):
            assert team in page
        for path in ("/", "/site/", "/final/site/"):
            got = httpx.get(url + path)
            assert got.status_code == 200 and "id=final-banner" in got.text, path
        token = db.add_team(open_service(folder).engine, "late")
        refused = httpx.post(f"{url}/api/submissions", headers={"Authorization": f"Bearer {token}"},
                             files={"archive": ("b.tar.gz", bot_archive())})
        assert refused.status_code == 403
        # the final page in a browser: the banner, the standings and the seeds, no console problem
        goto(browser, f"{url}/final/")
        assert "the final standings and the seeds are published" in browser.js(
            "document.querySelector('#final-banner').textContent")
        table = browser.js("document.querySelector('#final-standings').textContent")
        assert all(t in table for t in ("team00", "team01", "team02"))
        assert final_seed("backends") in browser.js("document.querySelector('#seeds').textContent")
        browser.screenshot(ARTIFACTS / "final.png")
        goto(browser, f"{url}/final/site/")
        assert browser.js("document.querySelector('#final-banner') !== null")
        assert browser.problems() == []
    finally:
        code, err = stop(p, signal.SIGTERM)
    assert code == 130, err
    final = [ln.to_dict() for ln in read_results(folder / "final" / "results").lines]
    assert len(final) == 3 and {ln["block"] for ln in final} == {0}


def test_closes_at_without_a_time_zone_is_refused_naming_the_field(tmp_path: Path) -> None:
    from arena.serve.config import CompetitionConfigError

    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "competition.yaml").write_text("competition:\n  closes_at: '2027-03-01T18:00:00'\n")
    with pytest.raises(CompetitionConfigError) as e:
        open_service(folder)
    assert "competition.closes_at" in str(e.value) and "timezone" in str(e.value)

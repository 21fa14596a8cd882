"""Slow: a team in headless Chromium logs in through the form, uploads its bot through the form, watches it
validate, and finds itself on the public leaderboard and the ladder's site after the ladder's batch.

Driven by the site tests' Chromium helper (tests/publish/site/browser.py).
Screenshots go to test-artifacts/serve/ (ignored by git).
"""

from __future__ import annotations

import os
import signal
import struct
import time
from pathlib import Path

import pytest

from arena.serve.archive import pack

from tests.publish.site.browser import Browser, find_browser

from .conftest import ROOT, free_port
from .test_ladder import add_team
from .test_lifecycle import serve

pytestmark = pytest.mark.slow
ARTIFACTS = ROOT / "test-artifacts" / "serve"
WAIT = 300.0  # seconds: only a server or browser that stopped answering takes this long


def goto(browser: Browser, url: str) -> None:
    browser.events = [ev for ev in browser.events if ev["method"] != "Page.loadEventFired"]
    browser.call("Page.navigate", url=url)
    browser.wait_event("Page.loadEventFired")


def submit(browser: Browser, form: str) -> None:
    """Submit a form of the page (as its button would) and wait for the page it leads to."""
    browser.events = [ev for ev in browser.events if ev["method"] != "Page.loadEventFired"]
    browser.js(f"document.querySelector({form!r}).querySelector('button').click()")
    browser.wait_event("Page.loadEventFired")


def until(browser: Browser, url: str, expression: str) -> None:
    """Load ``url`` again until ``expression`` is true on it (as a person pressing reload would)."""
    end = time.monotonic() + WAIT
    while not browser.js(expression):
        assert time.monotonic() < end, f"{url}: never true: {expression}"
        time.sleep(0.5)
        goto(browser, url)


@pytest.fixture
def browser() -> Browser:
    exe = find_browser()
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("no Chromium: CI must run the browser tests (.ci/run installs chromium)")
        pytest.skip("no Chromium: install it with `apt-get install chromium` (.ci/run does)")
    b = Browser(exe)
    yield b  # type: ignore[misc]
    b.close()


def test_a_team_uploads_through_the_form_and_appears_on_the_leaderboard(comp: Path, tmp_path: Path,
                                                                         browser: Browser) -> None:
    text = (comp / "competition.yaml").read_text()
    text = text.replace("competition:\n", "competition:\n  seed: browser\n  ladder_pairing_blocks: 1\n"
                                          "  site_bootstrap: 0\n").replace("sandbox: none", "sandbox: none\n"
                                                                           "  format: deals\n  deals: 1")
    (comp / "competition.yaml").write_text(text)
    red, blue = add_team(comp, "red"), add_team(comp, "blue")
    archive = tmp_path / "bot.tar.gz"
    archive.write_bytes(pack(ROOT / "bots" / "minimal"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    p = serve(comp, port)
    try:
        import httpx

        first = httpx.post(f"{url}/api/submissions", headers={"Authorization": f"Bearer {blue}"},
                           files={"archive": ("b.tar.gz", archive.read_bytes())}).json()["id"]
        # red, as a person: the login form, then the upload form of its team page
        goto(browser, f"{url}/")
        browser.js(f"document.querySelector('input[name=token]').value = {red!r}")
        submit(browser, "form[action='/login']")
        assert browser.js("location.pathname") == "/team"
        assert browser.js("document.querySelectorAll('#submissions li').length") == 0
        root = browser.call("DOM.getDocument")["root"]["nodeId"]
        node = browser.call("DOM.querySelector", nodeId=root, selector="input[type=file]")["nodeId"]
        browser.call("DOM.setFileInputFiles", nodeId=node, files=[str(archive)])
        submit(browser, "form[action='/team/upload']")
        assert browser.js("location.pathname") == "/team"
        mine = "document.querySelector('#submissions li')"
        assert browser.js(f"{mine}.id") != f"sub-{first}"  # red's page shows red's submission, not blue's
        until(browser, f"{url}/team", f"{mine}.querySelector('.status').textContent === 'accepted'")
        assert "as version 1" in browser.js(f"{mine}.textContent")
        browser.screenshot(ARTIFACTS / "team.png")
        # the public leaderboard, then the ladder's site once its batch has played red against blue
        goto(browser, f"{url}/")
        until(browser, f"{url}/", "[...document.querySelectorAll('#leaderboard td')].some(td => td.textContent"
                                  " === 'red')")
        end = time.monotonic() + WAIT  # the site is a 404 until the ladder's first build: the browser would log it
        while httpx.get(f"{url}/site/").status_code != 200:
            assert time.monotonic() < end, "the ladder's site was never built"
            time.sleep(0.5)
        until(browser, f"{url}/site/", "[...document.querySelectorAll('#ratings tbody tr')].map(r => r.textContent)"
                                       ".join(' ').includes('red')")
        assert "blue" in browser.js("document.querySelector('#ratings').textContent")
        browser.screenshot(ARTIFACTS / "site.png")
        assert browser.problems() == []
        # a game's page: its replay is made when the viewer first asks for it (the build left it to the server)
        gid = next(iter(sorted((comp / "public" / "games").glob("*.html")))).stem
        assert not (comp / "public" / "replays" / f"{gid}.js").exists()
        goto(browser, f"{url}/site/games/{gid}.html")
        browser.wait_for("window.cinchViewer && window.cinchViewer.ready && cinchViewer.viewers.length > 0"
                         " && cinchViewer.viewers[0].frames.length > 1")
        assert (comp / "public" / "replays" / f"{gid}.js").exists()
        assert browser.problems() == []
        # a file that is no archive, through the same form: the refusal's sentence on a page, and a way back
        junk = tmp_path / "notes.tar.gz"
        junk.write_bytes(b"not an archive")
        goto(browser, f"{url}/team")
        root = browser.call("DOM.getDocument")["root"]["nodeId"]
        node = browser.call("DOM.querySelector", nodeId=root, selector="input[type=file]")["nodeId"]
        browser.call("DOM.setFileInputFiles", nodeId=node, files=[str(junk)])
        submit(browser, "form[action='/team/upload']")
        assert browser.js("document.querySelector('#refusal').textContent").strip()
        assert browser.js("document.querySelector('a[href=\"/team\"]') !== null")
        browser.screenshot(ARTIFACTS / "refused.png")
    finally:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def test_a_verdict_appears_on_the_team_page_without_a_reload(comp: Path, tmp_path: Path, browser: Browser) -> None:
    """The upload stays queued (no validation worker) until the test validates it; the page the form led to
    shows the verdict and the uploads left without being loaded again."""
    from arena.serve import db
    from arena.serve.serve import open_service

    from .conftest import start

    svc = open_service(comp)
    token = db.add_team(svc.engine, "red")
    url, server = start(svc, worker=False)
    archive = tmp_path / "bot.tar.gz"
    archive.write_bytes(pack(ROOT / "bots" / "minimal"))
    try:
        goto(browser, f"{url}/")
        browser.js(f"document.querySelector('input[name=token]').value = {token!r}")
        submit(browser, "form[action='/login']")
        root = browser.call("DOM.getDocument")["root"]["nodeId"]
        node = browser.call("DOM.querySelector", nodeId=root, selector="input[type=file]")["nodeId"]
        browser.call("DOM.setFileInputFiles", nodeId=node, files=[str(archive)])
        submit(browser, "form[action='/team/upload']")
        mine = "document.querySelector('#submissions li')"
        assert browser.js(f"{mine}.querySelector('.status').textContent") == "queued"
        assert browser.js("document.querySelector('#quota-left').textContent") == "2"
        browser.js("window.notReloaded = true")
        assert svc.work_once()  # the validation, as the worker runs it
        browser.wait_for(f"window.notReloaded && {mine}.querySelector('.status').textContent === 'accepted'")
        assert "as version 1 (red v1)" in browser.js(f"{mine}.textContent")
        assert "CONFORMS" in browser.js(f"{mine}.querySelector('pre').textContent")
        # at 20 versions, one with a report of long unbroken lines, and 20 teams: still within a 1280 px window
        team_id = db.team_for_token(svc.engine, token).id  # type: ignore[union-attr]
        for i in range(19):
            sid = db.add_submission(svc.engine, team_id, str(tmp_path / f"v{i}"), per_day=100)
            assert db.claim_next(svc.engine) is not None
            db.finish(svc.engine, sid, True, "x" * 400 + " " + "latency ms: n 8, p50 2.65 " * 20)
        for i in range(19):
            other = db.team_for_token(svc.engine, db.add_team(svc.engine, f"team-with-a-long-name-{i:02d}"))
            sid = db.add_submission(svc.engine, other.id, str(tmp_path / f"t{i}"), per_day=100)  # type: ignore[union-attr]
            assert db.claim_next(svc.engine) is not None
            db.finish(svc.engine, sid, True, "ok")
        browser.call("Emulation.setDeviceMetricsOverride", width=1280, height=900, deviceScaleFactor=1, mobile=False)
        for page in ("team", ""):
            goto(browser, f"{url}/{page}")
            assert browser.js("document.querySelectorAll('#submissions li, #leaderboard td').length") >= 20
            assert browser.js("document.documentElement.scrollWidth") <= 1280, page
            shot = ARTIFACTS / f"at-20-versions-{page or 'front'}.png"
            browser.screenshot(shot)
            assert struct.unpack(">I", shot.read_bytes()[16:20])[0] <= 1280, page
        assert browser.problems() == []
    finally:
        server.should_exit = True  # type: ignore[attr-defined]
        svc.engine.dispose()

"""Slow: docs/server.md's "Hosting a competition" walk-through, run line by line in a fresh folder against a
real server, checking what its comments say; its ``#`` lines are done in headless Chromium (a team uploads by
the form and watches the verdict come, reads the ranked front page and its team page, then the final page),
each page checked to fit a 1280 px window. Screenshots go to test-artifacts/serve/ (ignored by git)."""

from __future__ import annotations

import json
import os
import signal
import struct
import subprocess
import time
from pathlib import Path
from typing import Any, Callable

import httpx
import pytest

from tests.docs.test_doc_blocks import arena_env, block
from tests.publish.site.browser import Browser, find_browser

from .conftest import ROOT, free_port
from .test_browser import goto, submit

pytestmark = pytest.mark.slow
FIRST = ("mkdir -p winter && printf 'competition:\\n  name: winter cup\\n  check_games: 0\\nmatch:\\n  sandbox: none\\n"
         "  format: deals\\n  deals: 1\\n' > winter/competition.yaml")
ARTIFACTS = ROOT / "test-artifacts" / "serve"
WAIT = 300.0  # seconds: only a server that stopped answering (or a ladder that stopped playing) takes this long
WIDTH = 1280


def run(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(line, shell=True, cwd=cwd, env=arena_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (line, done.stdout, done.stderr)
    return done


def until(what: str, check: Callable[[], Any]) -> Any:
    end = time.monotonic() + WAIT
    while not (got := check()):
        assert time.monotonic() < end, f"never: {what}"
        time.sleep(0.3)
    return got


def fits(b: Browser, name: str) -> None:
    """The page fits a 1280 px window: nothing wider in the browser, and its full-page screenshot as wide."""
    assert b.js("document.documentElement.scrollWidth") <= WIDTH, name
    b.screenshot(ARTIFACTS / f"walkthrough-{name}.png")
    width = struct.unpack(">I", (ARTIFACTS / f"walkthrough-{name}.png").read_bytes()[16:20])[0]
    assert width <= WIDTH, (name, width)


def login(b: Browser, url: str, token: str) -> None:
    goto(b, f"{url}/")
    b.js(f"document.querySelector('input[name=token]').value = {token!r}")
    submit(b, "form[action='/login']")
    assert b.js("location.pathname") == "/team"


def upload_by_the_form(b: Browser, url: str, folder: Path) -> None:
    """blue logs in and uploads random.tar.gz by the form; the verdict appears on the page it lands on,
    which is never loaded again (a mark set on it stays)."""
    login(b, url, (folder / "blue.token").read_text().strip())
    assert "winter cup" in b.js("document.querySelector('#competition').textContent")
    root = b.call("DOM.getDocument")["root"]["nodeId"]
    node = b.call("DOM.querySelector", nodeId=root, selector="input[type=file]")["nodeId"]
    b.call("DOM.setFileInputFiles", nodeId=node, files=[str(folder / "random.tar.gz")])
    submit(b, "form[action='/team/upload']")
    b.js("window.notReloaded = true")
    mine = "document.querySelector('#submissions li')"
    until("blue's verdict on its page", lambda: b.js(f"window.notReloaded && {mine}.querySelector('.status')"
                                                     ".textContent === 'accepted'"))
    assert "accepted as version 1 (blue v1)" in b.js(f"{mine}.textContent")
    assert b.problems() == []


def read_the_rankings(b: Browser, url: str) -> None:
    """Once the ladder has played enough for an interval and the site is built: the front page ranks both,
    blue's page shows its standing and history, and its bot page opens."""
    until("a rated leaderboard with intervals (the first batches withhold them)",
          lambda: all(r["rank"] and r["ci_low"] is not None for r in httpx.get(f"{url}/api/leaderboard").json()))
    goto(b, f"{url}/")
    assert b.js("[...document.querySelectorAll('#leaderboard td')].map(t => t.textContent).join(' ')").count(" v1") == 2
    fits(b, "front")
    goto(b, f"{url}/team")
    standing = b.js("document.querySelector('#standing').textContent")
    assert "blue v1:" in standing and "of 2, rating" in standing and "95% interval" in standing, standing
    assert int(b.js("document.querySelector('#games').textContent")) > 0
    assert b.js("document.querySelectorAll('#rating-history tr').length") >= 2  # its heading and a batch
    fits(b, "team")
    b.events = [ev for ev in b.events if ev["method"] != "Page.loadEventFired"]
    b.js("document.querySelector('#bot-page').click()")
    b.wait_event("Page.loadEventFired")
    assert b.js("location.pathname").startswith("/site/bots/") and "blue" in b.js("document.title")
    assert b.problems() == []


def read_the_final_page(b: Browser, url: str) -> None:
    until("the final page published", lambda: "Final standings, published" in httpx.get(f"{url}/final/").text)
    goto(b, f"{url}/")
    assert "The competition is closed" in b.js("document.querySelector('#final-banner').textContent")
    goto(b, f"{url}/final/")
    assert "a game needs two teams" in b.js("document.querySelector('#final-standings').textContent")
    assert b.js("document.querySelector('#seeds').textContent").startswith("ladder: ")
    assert "blue v1" in b.js("document.body.textContent")
    fits(b, "final")
    assert b.problems() == []


def test_the_hosting_walk_through_runs_as_written(tmp_path: Path) -> None:
    exe = find_browser()
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("no Chromium: CI must run the browser tests (.ci/run installs chromium)")
        pytest.skip("no Chromium: install it with `apt-get install chromium` (.ci/run does)")
    _, body = block("server.md", FIRST)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    lines = [x.split("  #")[0].strip().replace("8000", str(port)) for x in body.strip().splitlines()]
    steps = iter([upload_by_the_form, read_the_rankings, read_the_final_page])
    (tmp_path / "bots").symlink_to(ROOT / "bots")
    server: subprocess.Popen[str] | None = None
    said: dict[str, str] = {}  # each command line (to its first '#') -> its stdout
    b = Browser(exe)
    try:
        b.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=900, deviceScaleFactor=1, mobile=False)
        for line in lines:
            if line.startswith("#"):
                next(steps)(b, url, *([tmp_path] if "upload" in line else []))
            elif line.endswith("&"):
                server = subprocess.Popen(line.rstrip("&").strip(), shell=True, cwd=tmp_path, env=arena_env(),
                                          text=True, start_new_session=True)
                until("the server answers", lambda: _answers(url, server, tmp_path / "server.log"))
            else:
                said[line] = run(line, tmp_path).stdout
        assert next(steps, None) is None  # every browser step was in the walk-through
        out = list(said.values())
        assert len((tmp_path / "red.token").read_text().strip()) > 30
        assert "accepted as red v1" in out[3] and "same as version 1 (red v1)" in out[4]
        mine = json.loads(out[6])
        assert mine["team"] == "red" and mine["quota"]["remaining"] == 4
        assert {r["name"] for r in json.loads(out[7])} == {"red v1", "blue v1"}
        assert "red " in out[8] and "accepted as v1" in out[8]
        assert "red v1 retired" in out[9] and "blue removed" in out[12]
        assert "with 1 final versions" in out[11] and "the running server" in out[11]  # no restart
        log = (tmp_path / "server.log").read_text()
        assert f"at http://127.0.0.1:{port}/" in log and "upload: team red, submission #1 queued" in log
        assert "verdict: submission #1 of team red accepted as red v1" in log
        assert "verdict: submission #2 of team blue accepted as blue v1" in log  # the form's upload
        assert httpx.get(f"{url}/api/submissions",
                         headers={"Authorization": f"Bearer {(tmp_path / 'blue.token').read_text().strip()}"}
                         ).status_code == 401  # removed
    finally:
        b.close()
        if server is not None and _alive(server.pid):  # the shell may be gone and the server still there
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(60)
            until("the server's end", lambda: not _alive(server.pid))


def _alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
        return True
    except ProcessLookupError:
        return False


def _answers(url: str, server: subprocess.Popen[str], log: Path) -> bool:
    try:
        httpx.get(f"{url}/api/leaderboard")
        return True
    except httpx.TransportError:
        said = log.read_text()[-2000:] if log.exists() else ""
        assert server.poll() is None, f"the server exited ({server.returncode}): {said}"
        return False

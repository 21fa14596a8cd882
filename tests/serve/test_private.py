"""Slow: a ladder whose red bot crashes in every game; its faults reach red and nobody else; live standings.

Each cross-team path is tried: the API (/api/faults, the block's line), the
team page and its file, without a token and with the other team's; then
every public response and every public file is scanned for the stderr and
for host paths.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

import arena.serve.ladder as ladder
from arena.serve.app import Service

from .conftest import ROOT, Live, start
from .test_ladder import TOKENS, accept, batches, library_comp, lines

pytestmark = pytest.mark.slow

STDERR = "fatal: giving up"  # what the crashing bot writes to stderr before it exits
TESTBOT = ROOT / "tests" / "fixtures" / "testbot"


def crashing_bot(root: Path) -> Path:
    d = root / "crashy"
    d.mkdir()
    shutil.copy(TESTBOT / "bot.py", d / "bot.py")
    (d / "bot.yaml").write_text(yaml.safe_dump({"name": "crashy", "command": ["{python}", "bot.py"],
                                                "env": {"MODE": "crash", "AT": "2"}}))
    return d


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Service, Path, list[tuple[int, int, dict[str, Any]]]]:
    """red (crashes at its second decision) and blue (bots/minimal), every ladder block played; and what
    FOLDER/standings.json said each time the live page was written (after each stored block)."""
    root = tmp_path_factory.mktemp("private")
    svc = library_comp(root / "comp")
    crashy = crashing_bot(root)
    accept(svc, "red", crashy)
    accept(svc, "blue", ROOT / "bots" / "minimal")
    seen: list[tuple[int, int, dict[str, Any]]] = []
    real = ladder.write_provisional

    def spy(results: Any, out: Any, *, done: int, total: int, **more: Any) -> Any:
        seen.append((done, total, json.loads((svc.folder / "standings.json").read_text())))
        return real(results, out, done=done, total=total, **more)

    mp = pytest.MonkeyPatch()
    mp.setattr(ladder, "write_provisional", spy)
    try:
        assert batches(svc, 2) == [2, 1]
    finally:
        mp.undo()
    return svc, crashy, seen


def test_live_standings_are_rewritten_after_each_stored_block(played: Any) -> None:
    svc, _, seen = played
    # two batches (2 blocks, then 1) of the ladder's minimum of 3: each stored block rewrote the standings, then
    # the page, whose "of" is what is stored and the batch playing (a ladder open for play has no end)
    assert [(d, n, s["blocks_stored"], s["batch"]) for d, n, s in seen] == [
        (1, 2, 1, {"played": 1, "of": 2}), (2, 2, 2, {"played": 2, "of": 2}), (3, 3, 3, {"played": 1, "of": 1})]
    after_first = {r["bot"]: r for r in seen[0][2]["standings"]}
    assert after_first["blue"]["games"] == 2 and after_first["red"]["faults"] >= 2  # red crashes in both games
    url, server = start(svc, worker=False)
    try:
        final = httpx.get(f"{url}/api/standings").json()
        assert final["batch"] is None and final["blocks_stored"] == len(lines(svc.folder)) == 3
        assert [r["bot"] for r in final["standings"]] == ["blue", "red"]  # red forfeits every game it crashes in
        live = httpx.get(f"{url}/live/")
        assert live.status_code == 200 and "3 of 3 blocks" in live.text and "blue" in live.text
    finally:
        server.should_exit = True  # type: ignore[attr-defined]


def login(url: str, team: str) -> httpx.Client:
    """As a browser logs in: the front page's form with its hidden login token (test_api.login)."""
    from .test_api import login as form_login

    return form_login(Live(None, url, TOKENS), team)  # type: ignore[arg-type]


def test_faults_reach_their_team_only_and_no_public_page(played: Any, tmp_path: Path) -> None:
    svc, crashy, _ = played
    url, server = start(svc, worker=False)
    bearer = {t: {"Authorization": f"Bearer {TOKENS[t]}"} for t in ("red", "blue")}
    host_paths = [str(svc.folder), str(ROOT), str(crashy)]
    try:
        mine = httpx.get(f"{url}/api/faults", headers=bearer["red"]).json()
        assert len(mine) >= 6 and {f["team"] for f in mine} == {"red"}  # a crash in each of the 6 games
        assert all(STDERR in f["stderr"] for f in mine)
        assert all(re.match(r"arena (reproduce results\.jsonl|check-bot BOT_FOLDER) ", f["command"]) for f in mine)
        assert not any(p in json.dumps(mine) for p in host_paths)  # the team sees placeholders, not the host's paths
        # the other team, no token, a wrong token: nothing of red's
        assert httpx.get(f"{url}/api/faults", headers=bearer["blue"]).json() == []
        assert httpx.get(f"{url}/api/faults").status_code == 401
        assert httpx.get(f"{url}/api/faults", headers={"Authorization": "Bearer nope"}).status_code == 401
        f = mine[0]
        where = {"pairing": f["pairing"], "block": f["block"]}
        got = httpx.get(f"{url}/api/faults/block.jsonl", params=where, headers=bearer["red"])
        assert got.status_code == 200 and json.loads(got.text)["run"] == {}  # an empty run part: nobody's stderr
        assert STDERR not in got.text
        assert httpx.get(f"{url}/api/faults/block.jsonl", params=where, headers=bearer["blue"]).status_code == 404
        assert httpx.get(f"{url}/api/faults/block.jsonl", params=where).status_code == 401
        # the page and its file, by session
        red, blue = login(url, "red"), login(url, "blue")
        page = red.get("/team").text
        assert STDERR in page and "arena reproduce results.jsonl" in page
        other = blue.get("/team").text
        assert STDERR not in other and "id=no-faults" in other
        assert red.get("/team/block.jsonl", params=where).text == got.text
        assert blue.get("/team/block.jsonl", params=where).status_code == 404
        assert httpx.get(f"{url}/team/block.jsonl", params=where).status_code == 401
        # the command works: the block's line as results.jsonl, the team's own folder as BOT_FOLDER
        (tmp_path / "results.jsonl").write_text(got.text)
        words = [str(crashy) if w == "BOT_FOLDER" else w for w in shlex.split(f["command"])]
        ran = subprocess.run([sys.executable, "-m", *words], cwd=tmp_path, capture_output=True, text=True,
                             timeout=120)
        assert ran.returncode == 1 and "reproduced: crash" in ran.stdout, ran.stdout + ran.stderr
        # every public answer and file: no stderr, no host path
        public = [httpx.get(f"{url}{p}").text for p in ("/", "/api/leaderboard", "/api/standings", "/openapi.json")]
        for mount, folder in (("site", svc.folder / "public"), ("live", svc.folder / "live")):
            files = [x for x in folder.rglob("*") if x.is_file()]
            assert files
            for x in files:
                r = httpx.get(f"{url}/{mount}/{x.relative_to(folder).as_posix()}")
                assert r.status_code == 200
                public += [r.text, x.read_text(errors="replace")]
        text = "\n".join(public)
        assert "red" in text and "blue" in text  # the scan reads real pages
        assert STDERR not in text and not any(p in text for p in host_paths)
    finally:
        server.should_exit = True  # type: ignore[attr-defined]


def test_the_tempo_audit_reaches_each_team_for_its_own_bots_only(played: Any) -> None:
    svc, _, _ = played
    bearer = {t: {"Authorization": f"Bearer {TOKENS[t]}"} for t in ("red", "blue")}
    url, server = start(svc, worker=False)
    try:
        for team in ("red", "blue"):
            mine = httpx.get(f"{url}/api/tempo", headers=bearer[team]).json()
            assert {f["bot"] for f in mine} == {team}, mine  # a row per seat its bot sat at, no other team's
            assert sorted(f["seat"] for f in mine) == [0, 1, 2, 3], mine  # pairs: both copies, both games
            assert all(f["games"] >= 1 and f["flagged"] is False for f in mine)
            page = login(url, team).get("/team").text  # the team page: the same rows, a seat column
            table = page[page.index("<table id=tempo-audit>"):]
            table = table[:table.index("</table>")]
            assert "<th>seat</th>" in table and table.count("<tr><td>") == 4
            assert [int(x) for x in re.findall(rf"<tr><td>{team}</td><td>(\d)</td>", table)] == [0, 1, 2, 3]
        assert httpx.get(f"{url}/api/tempo").status_code == 401
    finally:
        server.should_exit = True  # type: ignore[attr-defined]


def test_the_team_pages_fault_link_opens_its_results_line_in_a_browser(played: Any) -> None:
    """The link is followed as a browser resolves it: a pairing key holds '+', which a query string reads as
    a space unless the link encodes it (the team page once escaped it for HTML only, and the link was a 404)."""
    from tests.publish.site.browser import Browser, find_browser

    from .test_browser import goto, submit

    exe = find_browser()
    if exe is None:
        pytest.skip("no Chromium: install it with `apt-get install chromium` (.ci/run does)")
    svc, _, _ = played
    url, server = start(svc, worker=False)
    b = Browser(exe)
    try:
        goto(b, f"{url}/")
        b.js(f"document.querySelector('input[name=token]').value = {TOKENS['red']!r}")
        submit(b, "form[action='/login']")
        link = b.js("document.querySelector('#faults a').href")
        assert b.js(f"fetch({link!r}).then(r => r.status)") == 200, link
        line = json.loads(b.js(f"fetch({link!r}).then(r => r.text())"))
        assert "+" in line["pairing"]  # what the link must carry through the query string
        want = httpx.get(f"{url}/api/faults", headers={"Authorization": f"Bearer {TOKENS['red']}"}).json()[0]
        assert (line["pairing"], line["block"]) == (want["pairing"], want["block"]) and line["run"] == {}
        assert b.problems() == []
    finally:
        b.close()
        server.should_exit = True  # type: ignore[attr-defined]

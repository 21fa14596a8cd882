"""Slow: the continuous ladder plays the ranked versions, publishes the site, and resumes after kill -9."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from arena.results import ResultLine, comparable, read_results
from arena.serve import db
from arena.serve.app import Service
from arena.serve.ladder import ranked, run_batch
from arena.serve.serve import open_service

from arena.sandbox.files import remove_tree

from . import hostile
from .conftest import ROOT, Live, bot_archive, free_port, start
from .test_lifecycle import serve, wait_verdict

pytestmark = pytest.mark.slow

LADDER = "  seed: ladder-test\n  ladder_blocks: 2\n  ladder_pairing_blocks: 3\n  site_bootstrap: 0\n"


def add_team(comp: Path, name: str) -> str:
    return subprocess.run([sys.executable, "-m", "arena", "serve", str(comp), "--add-team", name], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout.strip()


def setup(comp: Path, pairing_blocks: int = 3) -> tuple[dict[str, str], int]:
    ladder = LADDER.replace("ladder_pairing_blocks: 3", f"ladder_pairing_blocks: {pairing_blocks}")
    text = (comp / "competition.yaml").read_text().replace("competition:\n", "competition:\n" + ladder)
    (comp / "competition.yaml").write_text(text)
    return {n: add_team(comp, n) for n in ("red", "blue")}, free_port()


def submit_both(url: str, tokens: dict[str, str]) -> None:
    for token in tokens.values():
        sid = httpx.post(f"{url}/api/submissions", headers={"Authorization": f"Bearer {token}"},
                         files={"archive": ("b.tar.gz", bot_archive())}).json()["id"]
        assert wait_verdict(url, token, sid)["status"] == "accepted"


def lines(comp: Path) -> list[ResultLine]:
    if not (comp / "results" / "results.jsonl").exists():
        return []
    return read_results(comp / "results").lines


def wait_lines(comp: Path, n: int, timeout: float = 300) -> None:
    end = time.monotonic() + timeout
    while len(lines(comp)) < n:
        assert time.monotonic() < end, f"the ladder stored {len(lines(comp))} of {n} blocks"
        time.sleep(0.05)


def test_two_teams_submit_the_ladder_plays_and_the_public_site_lists_both(comp: Path) -> None:
    tokens, port = setup(comp)
    url = f"http://127.0.0.1:{port}"
    p = serve(comp, port)
    try:
        submit_both(url, tokens)
        wait_lines(comp, 5)  # one pairing x 3 blocks, in batches of 2, and on past the minimum
        end = time.monotonic() + 120
        while True:  # the site is rebuilt after the batch that stored the last block
            page = httpx.get(f"{url}/site/")
            if page.status_code == 200 and "red" in page.text and "blue" in page.text:
                break
            assert time.monotonic() < end, page.status_code
            time.sleep(0.2)
        assert (comp / "public" / "index.html").exists()
        public = "".join(x.read_text(errors="replace") for x in (comp / "public").rglob("*.html"))
        assert str(comp) not in public and str(ROOT) not in public  # no host path on a public page
    finally:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    keys = [(ln.pairing, ln.block) for ln in lines(comp)]
    assert len(keys) >= 5 and sorted(k[1] for k in keys) == list(range(len(keys)))  # each block once, none skipped


def test_kill_9_mid_ladder_then_restart_ends_with_every_block_once(comp: Path) -> None:
    tokens, port = setup(comp, pairing_blocks=6)  # 6 blocks in batches of 2: the kill lands mid-ladder
    url = f"http://127.0.0.1:{port}"
    p = serve(comp, port)
    try:
        submit_both(url, tokens)
        wait_lines(comp, 1)
    finally:
        os.killpg(p.pid, signal.SIGKILL)  # the server, its ladder and the game it is playing
        p.wait()
    at_kill = len(lines(comp))
    p = serve(comp, port)
    try:
        wait_lines(comp, 8)  # the minimum (6) and on
    finally:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    got = lines(comp)
    keys = [(ln.pairing, ln.block) for ln in got]
    assert at_kill < 6  # the restarted server played the rest
    assert len(keys) >= 8 and sorted(k[1] for k in keys) == list(range(len(keys)))  # each block once
    assert all(comparable(x) for x in got)

def accept(svc: Service, team: str, folder: Path) -> None:
    """A submission accepted without its validation (the ladder only reads accepted ones)."""
    if team not in TEAMS[svc]:
        TOKENS[team] = db.add_team(svc.engine, team)
        TEAMS[svc][team] = db.team_for_token(svc.engine, TOKENS[team]).id  # type: ignore[union-attr]
    team_id = TEAMS[svc][team]
    db.add_submission(svc.engine, team_id, str(folder), per_day=10)
    sub = db.claim_next(svc.engine)
    assert sub is not None
    db.finish(svc.engine, sub.id, True, "ok")


TEAMS: dict[Service, dict[str, int]] = {}
TOKENS: dict[str, str] = {}  # the last token made for each team name


def library_comp(path: Path) -> Service:
    path.mkdir()
    (path / "competition.yaml").write_text("competition:\n" + LADDER + "match:\n  sandbox: none\n  format: deals\n"
                                           "  deals: 1\n")
    svc = open_service(path)
    TEAMS[svc] = {}
    return svc


def batches(svc: Service, n: int) -> list[int]:
    """The blocks each of the next ``n`` batches played (the ladder never runs dry: it plays while open)."""
    return [run_batch(svc) for _ in range(n)]


def test_the_ladder_is_deterministic_resumes_and_keeps_a_retired_version(tmp_path: Path) -> None:
    minimal = ROOT / "bots" / "minimal"
    stored = []
    for name in ("one", "two"):
        svc = library_comp(tmp_path / name)
        accept(svc, "red", minimal)
        accept(svc, "blue", minimal)
        assert run_batch(svc) == 2  # a batch of ladder_blocks, the site rebuilt after it
        assert (svc.folder / "public" / "index.html").exists()
        svc = open_service(svc.folder)  # a restart: the next batch plays only what the store lacks
        TEAMS[svc] = {"red": 1, "blue": 2}
        assert batches(svc, 1) == [1]  # the minimum's last block
        stored.append(sorted(json.dumps(comparable(x), sort_keys=True) for x in lines(svc.folder)))
    assert stored[0] == stored[1] and len(stored[0]) == 3  # same seed, same order of acceptance: same games
    # red's second version (another file) plays its share; the first stays in the store and on the site
    v2 = tmp_path / "v2"
    shutil.copytree(minimal, v2)
    (v2 / "bot.py").write_text((v2 / "bot.py").read_text() + "\n# version 2\n")
    accept(svc, "red", v2)
    assert batches(svc, 2) == [2, 1]
    assert len(lines(svc.folder)) == 6
    index = (svc.folder / "public" / "index.html").read_text()
    assert "red" in index and "blue" in index
    # as the server names them (issue 43): the competition, each version, the ladder's batches
    assert "<title>competition</title>" in index and "red v2</a>" in index and "red v1</a>" in index
    assert "@" not in index.split('id="ratings"')[1].split("</table>")[0] and "Batches covered" in index
    pages = sorted(x.name for x in (svc.folder / "public" / "bots").iterdir())
    assert pages[0] == "blue.html" and len(pages) == 3 and all(x.startswith("red_") for x in pages[1:])  # both reds
    public = "".join(x.read_text(errors="replace") for x in (svc.folder / "public").rglob("*") if x.is_file())
    # no host path and not the ladder's seed (secret while it runs) on any public file
    assert str(tmp_path) not in public and str(ROOT) not in public and "ladder-test" not in public


def test_a_ladder_played_per_game_goes_on_per_game(tmp_path: Path) -> None:
    """Per-lineage is the default; a ladder whose store was played per-game (before that) goes on per-game
    when competition.yaml does not name match.restart: one config hash over the store, none refused."""
    minimal = ROOT / "bots" / "minimal"
    svc = library_comp(tmp_path / "c")
    yaml_path = svc.folder / "competition.yaml"
    yaml_path.write_text(yaml_path.read_text() + "  restart: per-game\n")
    svc = open_service(svc.folder)
    TEAMS[svc] = {}
    accept(svc, "red", minimal)
    accept(svc, "blue", minimal)
    assert run_batch(svc) == 2
    yaml_path.write_text(yaml_path.read_text().replace("  restart: per-game\n", ""))
    again = open_service(svc.folder)
    assert again.config.match.restart == "per-lineage"
    TEAMS[again] = TEAMS[svc]
    assert batches(again, 1) == [1]
    assert len(lines(again.folder)) == 3 and len({x.config_hash for x in lines(again.folder)}) == 1
    assert json.loads((again.folder / "results" / "tournament.json").read_text())["match"]["restart"] == "per-game"


def test_a_version_the_ladder_cannot_prepare_is_retired_and_the_others_play_on(tmp_path: Path) -> None:
    """An accepted folder 600 folders deep (accepted before the depth limit, or by an older server) made every
    batch fail in the ladder's copytree: no block stored for anyone, a TEAM-vN.tmp left behind."""
    from .test_hostile import nest

    minimal = ROOT / "bots" / "minimal"
    svc = library_comp(tmp_path / "comp")
    accept(svc, "red", minimal)
    accept(svc, "blue", minimal)
    deep = tmp_path / "deep"
    shutil.copytree(minimal, deep)
    nest(deep / "n", 600)
    broken = tmp_path / "broken"
    shutil.copytree(minimal, broken)
    (broken / "bot.yaml").write_text("name: x\ncommand: [x]\nx: &a [1]\ny: *a\n")  # an alias: now refused
    other = tmp_path / "other"
    shutil.copytree(minimal, other)
    (other / "bot.yaml").write_text((minimal / "bot.yaml").read_text() + "profiles: [sixty-three-joker]\n")
    accept(svc, "red", deep)  # red's second version: broken after its validation
    accept(svc, "green", broken)
    accept(svc, "violet", other)  # plays only a profile the competition no longer plays
    try:
        assert run_batch(svc) == 2  # red's first version and blue play
        subs = {s.id: s for t in (1, 2, 3) for s in db.team_submissions(svc.engine, t)}
        assert subs[3].retired.startswith("its folder could not be prepared for the ladder: bot folder refused:")
        assert "names deep" in subs[3].retired and str(tmp_path) not in subs[3].retired
        assert "aliases" in subs[4].retired and str(tmp_path) not in subs[4].retired
        subs.update({s.id: s for s in db.team_submissions(svc.engine, 4)})
        assert subs[5].retired.startswith("the ladder refused it: bot 'violet' (bot.yaml) plays only the rule profiles")
        assert subs[1].retired is None and subs[2].retired is None
        assert sorted(p.name for p in (svc.folder / "ladder").iterdir()) == ["blue-v1", "red-v1", "violet-v1"]
        assert {x.pairing.split("~")[0].split("@")[0] for x in lines(svc.folder)} <= {"blue", "red"}
        # the team page says why; the public leaderboard ranks red's first version again
        from .test_api import login

        url, server = start(svc, worker=False)
        page = login(Live(svc, url, {"red": TOKENS["red"]}), "red").get("/team").text
        server.should_exit = True  # type: ignore[attr-defined]
        assert "retired from the ladder: its folder could not be prepared" in page and str(tmp_path) not in page
        assert [r.version for r in ranked(svc.engine)] == [1, 1]  # blue v1, red v1 again
    finally:
        remove_tree(deep)


def test_a_compiled_bot_uploaded_as_an_archive_is_accepted_and_plays_in_the_ladder(comp: Path, tmp_path: Path) -> None:
    """Every unpacked file was written 0644: `command: ["./bot"]` could not run. Built here with cc."""
    from arena.results import standings

    bot = hostile.compiled_c_bot(tmp_path)
    tokens, port = setup(comp, pairing_blocks=1)
    url = f"http://127.0.0.1:{port}"
    p = serve(comp, port)
    try:
        for team, folder in (("red", bot), ("blue", ROOT / "bots" / "minimal")):
            sid = httpx.post(f"{url}/api/submissions", headers={"Authorization": f"Bearer {tokens[team]}"},
                             files={"archive": ("b.tar.gz", bot_archive(folder))}).json()["id"]
            got = wait_verdict(url, tokens[team], sid)
            assert got["status"] == "accepted", got["report"]
        wait_lines(comp, 1)
    finally:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    by_bot = {s.bot: s for s in standings(lines(comp))}
    assert by_bot["red"].games > 0 and by_bot["red"].faults == 0, by_bot

"""Slow: the continuous ladder plays the ranked versions, publishes the site, and resumes after kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from arena.results import comparable, read_results

from .conftest import ROOT, bot_archive, free_port
from .test_lifecycle import serve, wait_verdict

pytestmark = pytest.mark.slow

LADDER = "  seed: ladder-test\n  ladder_blocks: 2\n  ladder_pairing_blocks: 3\n  site_bootstrap: 0\n"


def add_team(comp: Path, name: str) -> str:
    return subprocess.run([sys.executable, "-m", "arena", "serve", str(comp), "--add-team", name], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout.strip()


def setup(comp: Path) -> tuple[dict[str, str], int]:
    text = (comp / "competition.yaml").read_text().replace("competition:\n", "competition:\n" + LADDER)
    (comp / "competition.yaml").write_text(text)
    return {n: add_team(comp, n) for n in ("red", "blue")}, free_port()


def submit_both(url: str, tokens: dict[str, str]) -> None:
    for token in tokens.values():
        sid = httpx.post(f"{url}/api/submissions", headers={"Authorization": f"Bearer {token}"},
                         files={"archive": ("b.tar.gz", bot_archive())}).json()["id"]
        assert wait_verdict(url, token, sid)["status"] == "accepted"


def lines(comp: Path) -> list[dict]:  # type: ignore[type-arg]
    if not (comp / "results").exists():
        return []
    return read_results(comp / "results").lines


def wait_lines(comp: Path, n: int, timeout: float = 300) -> None:
    end = time.monotonic() + timeout
    while len(lines(comp)) < n:
        assert time.monotonic() < end, f"the ladder stored {len(lines(comp))} of {n} blocks"
        time.sleep(0.2)


def test_two_teams_submit_the_ladder_plays_and_the_public_site_lists_both(comp: Path) -> None:
    tokens, port = setup(comp)
    url = f"http://127.0.0.1:{port}"
    p = serve(comp, port)
    try:
        submit_both(url, tokens)
        wait_lines(comp, 3)  # one pairing x 3 blocks, in batches of 2
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
    assert len(lines(comp)) == 3


def test_kill_9_mid_ladder_then_restart_ends_with_every_block_once(comp: Path) -> None:
    tokens, port = setup(comp)
    url = f"http://127.0.0.1:{port}"
    p = serve(comp, port)
    try:
        submit_both(url, tokens)
        wait_lines(comp, 1)
    finally:
        os.killpg(p.pid, signal.SIGKILL)  # mid-ladder: fewer than the 3 blocks stored
        p.wait()
    p = serve(comp, port)
    try:
        wait_lines(comp, 3)
        time.sleep(1.0)  # nothing more comes
    finally:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    got = lines(comp)
    keys = [(ln["pairing"], ln["block"]) for ln in got]
    assert len(keys) == 3 and len(set(keys)) == 3 and sorted(k[1] for k in keys) == [0, 1, 2]
    assert all(comparable(x) for x in got)

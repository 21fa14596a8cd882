"""Slow: docs/server.md's "Hosting a competition" walk-through, run line by line in a fresh folder against a
real server, checking what its comments say."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.docs.test_doc_blocks import arena_env, block

from .conftest import ROOT, free_port

pytestmark = pytest.mark.slow
FIRST = "mkdir -p winter && printf 'competition:\\n  name: winter cup\\n  check_games: 0\\nmatch:\\n  sandbox: none\\n' > winter/competition.yaml"


def run(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(line, shell=True, cwd=cwd, env=arena_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (line, done.stdout, done.stderr)
    return done


def test_the_hosting_walk_through_runs_as_written(tmp_path: Path) -> None:
    _, body = block("server.md", FIRST)
    port = free_port()
    lines = [x.split("  #")[0].strip().replace("8000", str(port)) for x in body.strip().splitlines()]
    (tmp_path / "bots").symlink_to(ROOT / "bots")
    server: subprocess.Popen[str] | None = None
    out: dict[int, subprocess.CompletedProcess[str]] = {}
    try:
        for i, line in enumerate(lines):
            if line.endswith("&"):
                server = subprocess.Popen(line.rstrip("&").strip(), shell=True, cwd=tmp_path, env=arena_env(),
                                          text=True, start_new_session=True)
                end = time.monotonic() + 120
                while True:
                    try:
                        httpx.get(f"http://127.0.0.1:{port}/api/leaderboard")
                        break
                    except httpx.TransportError:
                        assert time.monotonic() < end, "the server did not start"
                        time.sleep(0.2)
            else:
                out[i] = run(line, tmp_path)
        said = [o.stdout for _, o in sorted(out.items())]
        assert len((tmp_path / "red.token").read_text().strip()) > 30
        assert "accepted as red v1" in said[3] and "accepted as blue v1" in said[4]
        assert "same as version 1 (red v1)" in said[5]
        mine = json.loads(said[6])
        assert mine["team"] == "red" and mine["quota"]["remaining"] == 4
        assert {r["name"] for r in json.loads(said[7])} == {"red v1", "blue v1"}
        assert "red " in said[8] and "accepted as v1" in said[8]
        assert "red v1 retired" in said[9] and "blue removed" in said[11]
        log = (tmp_path / "server.log").read_text()
        assert f"at http://127.0.0.1:{port}/" in log and "upload: team red, submission #1 queued" in log
        assert "verdict: submission #1 of team red accepted as red v1" in log
        assert httpx.get(f"http://127.0.0.1:{port}/api/submissions",
                         headers={"Authorization": f"Bearer {(tmp_path / 'blue.token').read_text().strip()}"}
                         ).status_code == 401  # removed
    finally:
        if server is not None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(60)

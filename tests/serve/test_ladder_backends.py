"""The ladder on the tournament's backends: 10 teams keep playing past the minimum on 2 workers and on a
two-node loopback Ray cluster; Ctrl-C and SIGTERM stop a Ray-backed ladder (also beside CPU hogs) with every
stored block kept; validations run in parallel, one per team at a time; one server per folder."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from arena.bench.raycluster import LoopbackCluster, session_pids
from arena.commands import main
from arena.schedule.lock import FolderLock
from arena.serve import service as service_module
from arena.serve import db
from arena.serve.serve import SERVE_LOCK, open_service
from arena.serve.validate import Verdict

from ..commands.test_interrupt import TRACES, _Hogs
from .conftest import ROOT, free_port

LADDER = ("competition:\n  seed: backends\n  ladder_blocks: 8\n  ladder_pairing_blocks: 1\n  site_bootstrap: 0\n"
          "  check_games: 0\nmatch:\n  sandbox: none\n  format: deals\n  deals: 1\n")
TEAMS = 10
MINIMUM = TEAMS * (TEAMS - 1) // 2  # every pairing's one block
WAIT_S = 900  # a bound on a hung run only, never a measure of speed


def accepted(folder: Path, teams: int = TEAMS, extra: str = "") -> Path:
    """A competition folder with ``teams`` accepted versions of the minimal bot (no validation needed)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "competition.yaml").write_text(LADDER.replace("competition:\n", "competition:\n" + extra))
    svc = open_service(folder)
    for i in range(teams):
        token = db.add_team(svc.engine, f"team{i:02d}")
        team = db.team_for_token(svc.engine, token)
        assert team is not None
        db.add_submission(svc.engine, team.id, str(ROOT / "bots" / "minimal"), per_day=10)
        sub = db.claim_next(svc.engine)
        assert sub is not None
        db.finish(svc.engine, sub.id, True, "ok")
    svc.engine.dispose()
    return folder


def lines(folder: Path) -> list[dict[str, Any]]:
    path = folder / "results" / "results.jsonl"
    if not path.exists():
        return []
    text = path.read_text()
    return [json.loads(x) for x in text[:text.rfind("\n") + 1].splitlines()]  # whole lines only (a torn tail waits)


def serve(folder: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "arena", "serve", str(folder), "--port", str(free_port()), *extra],
                            cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def wait_past_minimum(p: subprocess.Popen[str], folder: Path, n: int) -> list[dict[str, Any]]:
    """Until the store holds ``n`` blocks (past the minimum); the server must still be running."""
    end = time.monotonic() + WAIT_S
    while len(got := lines(folder)) < n:
        assert p.poll() is None, p.communicate()[1]
        assert time.monotonic() < end, f"{len(got)} of {n} blocks stored"
        time.sleep(0.5)
    return got


def stop(p: subprocess.Popen[str], sig: int) -> tuple[int, str]:
    """Send ``sig``; the exit code and stderr. The server's whole session is gone afterwards (Ray's too)."""
    os.kill(p.pid, sig)
    try:
        _, err = p.communicate(timeout=WAIT_S)
        end = time.monotonic() + 60
        while session_pids(p.pid) and time.monotonic() < end:  # Ray's processes end after the driver
            time.sleep(0.5)
        left = session_pids(p.pid)
        assert not left, f"processes left in the server's session: {left}; exit {p.returncode}: {err}"
        return p.returncode, err
    finally:
        for pid in session_pids(p.pid):
            os.kill(pid, signal.SIGKILL)
        if p.poll() is None:
            p.kill()
            p.wait()


def kept_whole(folder: Path, before: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every block stored before the signal is still there, each block once, the store whole."""
    after = lines(folder)
    keys = [(ln["pairing"], ln["block"]) for ln in after]
    assert len(keys) == len(set(keys))
    assert {(ln["pairing"], ln["block"]) for ln in before} <= set(keys)
    raw = (folder / "results" / "results.jsonl").read_text()
    assert raw.endswith("\n")
    return after


def past_minimum(got: list[dict[str, Any]]) -> None:
    """Every pairing has its block, and play went on beyond it (some pairing has a second)."""
    per: dict[str, set[int]] = {}
    for ln in got:
        per.setdefault(ln["pairing"], set()).add(ln["block"])
    assert len(per) == MINIMUM and any(len(b) > 1 for b in per.values())


@pytest.mark.slow
@pytest.mark.ray
def test_ten_teams_keep_playing_past_the_minimum_on_two_workers(tmp_path: Path) -> None:
    folder = accepted(tmp_path / "c")
    p = serve(folder, "--workers", "2")
    got = wait_past_minimum(p, folder, MINIMUM + 9)
    code, err = stop(p, signal.SIGTERM)
    assert code == 130 and not any(t in err for t in TRACES), err
    past_minimum(got)
    assert {ln["run"]["backend"] for ln in got} == {"ray"}
    kept_whole(folder, got)
    assert (folder / "public" / "index.html").exists()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[LoopbackCluster]:
    c = LoopbackCluster(tmp_path / "ray")
    try:
        c.start_head(cpus=1)
        c.add_node(cpus=1)
        yield c
    finally:
        c.stop()


@pytest.mark.slow
@pytest.mark.ray
def test_ten_teams_keep_playing_on_a_two_node_loopback_cluster(cluster: LoopbackCluster, tmp_path: Path) -> None:
    folder = accepted(tmp_path / "c")
    p = serve(folder, "--ray-address", cluster.address, env=cluster.env())
    got = wait_past_minimum(p, folder, MINIMUM + 9)
    code, err = stop(p, signal.SIGINT)
    assert code == 130 and not any(t in err for t in TRACES), err
    past_minimum(got)
    assert len({ln["run"]["node"] for ln in got}) == 2, "both nodes should have played blocks"
    kept_whole(folder, got)


@pytest.mark.slow
@pytest.mark.ray
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_ray_backed_ladder_stops_on_a_signal_beside_cpu_hogs(tmp_path: Path, sig: int) -> None:
    folder = accepted(tmp_path / "c", teams=4)
    with _Hogs():
        p = serve(folder, "--workers", "2")
        got = wait_past_minimum(p, folder, 2)
        code, err = stop(p, sig)
    assert code == 130, err
    assert not any(t in err for t in TRACES), err
    # the command says it once (the ladder's own log line of the stopped batch may stand before it)
    assert [ln for ln in err.splitlines() if ln.startswith("arena serve:") and "interrupted" in ln] == \
        ["arena serve: interrupted"], err
    kept_whole(folder, got)


def test_validations_run_in_parallel_one_per_team_in_upload_order(tmp_path: Path, monkeypatch: Any) -> None:
    """Two workers: red's and blue's first uploads are validated at once (a barrier both must reach); red's
    second waits for its first, so red's versions are numbered in the order it uploaded them."""
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "competition.yaml").write_text(LADDER.replace("competition:\n", "competition:\n  workers: 2\n"))
    svc = open_service(folder)
    ids = {}
    for name in ("red", "blue"):
        team = db.team_for_token(svc.engine, db.add_team(svc.engine, name))
        assert team is not None
        ids[name] = team.id
    subs = [db.add_submission(svc.engine, ids[t], str(tmp_path / f"{t}{i}"), per_day=10)
            for t, i in (("red", 1), ("red", 2), ("blue", 1))]
    together = threading.Barrier(2, timeout=120)  # broken (the test fails) unless two validations overlap
    seen: list[str] = []

    def fake(folder: str, *args: Any) -> Verdict:
        seen.append(Path(folder).name)
        if len(seen) <= 2:
            together.wait()
        return Verdict(True, "ok")

    monkeypatch.setattr(service_module, "validate", fake)
    threads = svc.start_workers()
    try:
        end = time.monotonic() + 120
        while not all(db.get_submission(svc.engine, s).status == "accepted" for s in subs):  # type: ignore[union-attr]
            assert time.monotonic() < end and not together.broken
            time.sleep(0.05)
    finally:
        svc.stop.set()
        svc.wake.set()
        for t in threads:
            t.join(10)
    assert sorted(seen[:2]) == ["blue1", "red1"] and seen[2] == "red2"
    versions = {db.get_submission(svc.engine, s).folder: db.get_submission(svc.engine, s).version  # type: ignore[union-attr]
                for s in subs}
    assert versions[str(tmp_path / "red1")] == 1 and versions[str(tmp_path / "red2")] == 2


def test_a_second_server_on_the_same_folder_is_refused_in_one_sentence(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "competition.yaml").write_text(LADDER)
    with FolderLock(folder, SERVE_LOCK):  # as a running server holds it
        code = main(["serve", str(folder), "--port", str(free_port())])
    err = capsys.readouterr().err.strip()
    assert code != 0 and len(err.splitlines()) == 1
    assert err.startswith(f"arena serve: {folder} is already served by another arena serve (pid {os.getpid()}")
    assert err.endswith("stop it first or serve another folder")


def test_workers_and_ray_address_are_competition_keys_the_command_line_overrides(tmp_path: Path) -> None:
    from arena.serve.ladder import backend_fields

    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "competition.yaml").write_text(LADDER)
    one = open_service(folder).config.competition
    assert backend_fields(one) == {"backend": "serial", "workers": 1}
    two = open_service(folder, competition={"workers": 2}).config.competition
    assert backend_fields(two) == {"backend": "ray", "workers": 2}
    far = open_service(folder, competition={"ray_address": "127.0.0.1:6379"}).config.competition
    assert backend_fields(far) == {"backend": "ray", "ray_address": "127.0.0.1:6379"}  # every CPU of the cluster
    assert main(["serve", str(folder), "--workers", "0"]) != 0


def test_an_embedded_instance_that_does_not_start_is_one_sentence_not_a_traceback(tmp_path: Path,
                                                                                  monkeypatch: Any) -> None:
    """On a loaded machine Ray's node start timed out (a plain ``Exception`` after 30 s): the server says so in one
    line (``ClusterUnavailable``, which ``arena serve`` prints) instead of ending with an internal error."""
    import ray

    from arena.schedule.backends import ClusterUnavailable
    from arena.serve.ladder import start_backend

    def slow_start(**kwargs: Any) -> None:
        raise Exception("The current node timed out during startup. This could happen because some of the raylet"
                        " failed to startup or the GCS has become overloaded.")

    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "competition.yaml").write_text(LADDER)
    monkeypatch.setattr(ray, "init", slow_start)
    with pytest.raises(ClusterUnavailable, match=r"^cannot connect to the embedded Ray instance: Exception: The"
                                                 r" current node timed out during startup"):
        start_backend(open_service(folder, competition={"workers": 2}))


@pytest.mark.slow
@pytest.mark.ray
def test_on_a_cluster_uploads_are_validated_on_its_nodes(tmp_path: Path) -> None:
    """The head has no CPU and the one worker node runs a Python without cinch-arena: a verdict can only come
    from the job's shipped harness on that node. A good bot is accepted, a crashing one rejected with its
    report (no path of the node's folder), both while the ladder plays there."""
    import httpx

    from ..schedule.test_cluster import bare_dir, fresh_python
    from .conftest import bot_archive
    from .test_ladder import add_team
    from .test_lifecycle import wait_verdict

    c = LoopbackCluster(tmp_path / "ray")
    try:
        c.start_head(cpus=0)
        c.add_node(cpus=2, python=fresh_python(tmp_path), cwd=str(bare_dir(tmp_path)))
        folder = accepted(tmp_path / "c", teams=2)
        tokens = {n: add_team(folder, n) for n in ("good", "crashy")}
        crashy = tmp_path / "crashy"
        crashy.mkdir()
        (crashy / "bot.yaml").write_text('name: crashy\ncommand: ["{python}", "bot.py"]\n')
        (crashy / "bot.py").write_text("raise SystemExit(3)\n")
        port = free_port()
        p = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(folder), "--port", str(port),
                              "--ray-address", c.address, "--workers", "2"], cwd=ROOT, env=c.env(),
                             start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        url = f"http://127.0.0.1:{port}"
        end = time.monotonic() + WAIT_S
        while True:
            try:
                httpx.get(f"{url}/api/leaderboard")
                break
            except httpx.TransportError:
                assert p.poll() is None and time.monotonic() < end, p.communicate()[1]
                time.sleep(0.5)
        sent = {}
        for team, bot in (("good", ROOT / "bots" / "minimal"), ("crashy", crashy)):
            sent[team] = httpx.post(f"{url}/api/submissions", headers={"Authorization": f"Bearer {tokens[team]}"},
                                    files={"archive": ("b.tar.gz", bot_archive(bot))}).json()["id"]
        good = wait_verdict(url, tokens["good"], sent["good"], timeout=WAIT_S)
        bad = wait_verdict(url, tokens["crashy"], sent["crashy"], timeout=WAIT_S)
        code, err = stop(p, signal.SIGTERM)
    finally:
        c.stop()
    assert good["status"] == "accepted", good["report"]
    assert bad["status"] == "rejected" and "cinch-validate-" not in bad["report"] and bad["report"].strip()
    assert err.count("validated on the Ray cluster") == 2, err
    assert code == 130 and not any(t in err for t in TRACES), err
    assert {ln["run"]["backend"] for ln in lines(folder)} <= {"ray"}

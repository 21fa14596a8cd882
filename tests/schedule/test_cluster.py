"""A real two-node Ray cluster on loopback, the worker node run from a folder with no
checkout and a Python with no cinch-arena installed: only the dependencies.

`arena run --ray-address` must play there what it plays embedded (scored results
equal byte for byte), ship the harness and the SDK with the job, survive the
worker node's raylet being killed mid-run (every block recorded exactly once),
and stop sending work to a node that cannot hold the sandbox, saying so.
Every cluster is stopped by the pids of the sessions we started, even on failure.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from arena.bench.raycluster import LoopbackCluster, session_pids
from arena.results import ResultsStore, comparable
from arena.schedule import load_config, plan_tasks, run_tasks
from arena.schedule.backends import SerialBackend

REPO = Path(__file__).resolve().parents[2]
BOTS = [str(REPO / "bots" / "random"), str(REPO / "bots" / "minimal")]  # random asks for the SDK library
RUN_WAIT_S = 600  # a floor for a loaded machine, never a measure of speed

pytestmark = [pytest.mark.slow, pytest.mark.ray]


def fresh_python(folder: Path) -> str:
    """A venv with the dependencies but not cinch-arena: a path line to this venv's
    site-packages (whose own .pth files, the editable install among them, are not run)."""
    venv = folder / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = str(venv / "bin" / "python")
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return py


def bare_dir(folder: Path) -> Path:
    d = folder / "bare"
    d.mkdir()
    return d


def config(folder: Path, **fields: Any) -> Path:
    data: dict[str, Any] = {"name": "cluster", "entries": BOTS, "seed": "cluster-seed", "blocks": 4,
                            "match": {"sandbox": "bwrap", "format": "deals", "deals": 2}, "out": str(folder / "out")}
    data.update(fields)
    # One block per batch (the default restart, per-lineage, batches 8 blocks of a pairing): with one
    # pairing there is then a unit for every block, and work for both nodes.
    data["match"].setdefault("lineage_blocks", 1)
    p = folder / "t.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


def arena_run(cluster: LoopbackCluster, cfg: Path, out: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena", "run", str(cfg), "--ray-address", cluster.address, "--out", str(out),
         "--skip-check", "--no-rate", *extra],
        env=cluster.env(), cwd=str(cfg.parent), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def scored(out: Path) -> str:
    """The results with everything run-dependent dropped, in key order: what must match byte for byte."""
    store = ResultsStore(out)
    store.load()
    return "\n".join(json.dumps(comparable(store.lines[k]), sort_keys=True) for k in sorted(store.lines))


def embedded(cfg: Path, out: Path) -> str:
    t = load_config(cfg, {"out": str(out), "backend": "serial"})
    store = ResultsStore(t.out)
    store.load()
    outcome = run_tasks(plan_tasks(t), SerialBackend({e.ident: e for e in t.entries}), store)
    assert not outcome.failures
    return scored(out)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[LoopbackCluster, str, Path]]:
    py = fresh_python(tmp_path)
    bare = bare_dir(tmp_path)
    assert subprocess.run([py, "-c", "import arena"], cwd=bare, capture_output=True).returncode != 0
    assert subprocess.run([py, "-c", "import cinch_bot"], cwd=bare, capture_output=True).returncode != 0
    c = LoopbackCluster(tmp_path / "ray", extra_env={"RAY_health_check_period_ms": "1000",
                                                     "RAY_health_check_failure_threshold": "3"})
    try:
        c.start_head(cpus=1)
        yield c, py, bare
    finally:
        c.stop()


def lines_of(out: Path) -> list[dict[str, Any]]:
    path = out / "results.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def test_two_node_loopback_cluster_plays_what_the_embedded_run_plays(cluster, tmp_path: Path) -> None:
    c, py, bare = cluster
    worker = c.add_node(cpus=1, python=py, cwd=str(bare), env={"ARENA_BOT_CACHE": str(tmp_path / "cache1")})
    cfg = config(tmp_path)
    run = arena_run(c, cfg, tmp_path / "ray-out")
    stdout, stderr = run.communicate(timeout=RUN_WAIT_S)
    assert run.returncode == 0, stderr
    assert scored(tmp_path / "ray-out") == embedded(cfg, tmp_path / "embedded-out")
    lines = lines_of(tmp_path / "ray-out")
    assert len(lines) == 4 and {ln["run"]["backend"] for ln in lines} == {"ray"}
    nodes = {ln["run"]["node"] for ln in lines}
    assert len(nodes) == 2, "both nodes should have played blocks"
    # The worker node unpacked the bots and ran them with the SDK shipped with the job.
    assert (tmp_path / "cache1").is_dir() and any((tmp_path / "cache1").iterdir())
    assert "Token authentication" not in stderr and "file package" not in stderr, stderr
    assert worker.proc.poll() is None


def test_worker_node_killed_mid_run_every_block_recorded_once(cluster, tmp_path: Path) -> None:
    c, py, bare = cluster
    worker = c.add_node(cpus=1, python=py, cwd=str(bare))
    cfg = config(tmp_path, blocks=10, match={"sandbox": "bwrap", "format": "deals", "deals": 6})
    out = tmp_path / "out"
    run = arena_run(c, cfg, out)
    try:
        raylet = worker.pid_of("raylet")
        deadline = time.monotonic() + RUN_WAIT_S
        # Kill once the worker node has finished a block (its Ray workers are in the node's session),
        # so it is surely playing its next one.
        while not any(ln["run"]["pid"] in session_pids(worker.sid) for ln in lines_of(out)):
            assert run.poll() is None and time.monotonic() < deadline, run.stderr.read() if run.stderr else ""
            time.sleep(0.1)
        os.kill(raylet, signal.SIGKILL)
        stdout, stderr = run.communicate(timeout=RUN_WAIT_S)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, stderr
    lines = lines_of(out)
    keys = [(ln["pairing"], ln["block"]) for ln in lines]
    assert len(keys) == len(set(keys)) == 10, keys  # nothing lost, nothing written twice
    assert "was lost; its blocks are played again elsewhere" in stderr, stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["retries"] >= 1 and not summary["harness_failures"]  # the block it was playing came back
    assert scored(out) == embedded(cfg, tmp_path / "embedded-out")



@pytest.mark.skipif(os.geteuid() != 0, reason="the uid-lease folder is the root harness's")
def test_node_that_cannot_hold_the_sandbox_refuses_and_gets_no_more_work(cluster, tmp_path: Path) -> None:
    c, py, bare = cluster
    # This node cannot lease bot uids (its lease folder cannot be made): bwrap bots cannot run there.
    bad = c.add_node(cpus=1, python=py, cwd=str(bare), env={"CINCH_ARENA_UID_LEASES": "/proc/no-such-folder"})
    cfg = config(tmp_path)
    run = arena_run(c, cfg, tmp_path / "out")
    stdout, stderr = run.communicate(timeout=RUN_WAIT_S)
    assert run.returncode == 0, stderr
    (said,) = [x for x in stderr.splitlines() if "refused" in x]
    assert "cannot run bots at sandbox level bwrap" in said and "/proc/no-such-folder" in said
    assert "no more blocks go there (1 usable node left)" in said
    lines = lines_of(tmp_path / "out")
    assert len(lines) == 4 and all(ln["run"]["attempt"] == 1 for ln in lines)  # a refusal spends no attempt
    assert not any(ln["run"]["pid"] in session_pids(bad.sid) for ln in lines)
    assert scored(tmp_path / "out") == embedded(cfg, tmp_path / "embedded-out")


def _wait_lines(run: subprocess.Popen[str], out: Path, n: int) -> None:
    deadline = time.monotonic() + RUN_WAIT_S
    while len(lines_of(out)) < n:
        assert run.poll() is None and time.monotonic() < deadline, run.stderr.read() if run.stderr else ""
        time.sleep(0.1)


def test_head_restarted_while_the_run_waits_reconnects_and_finishes(cluster, tmp_path: Path) -> None:
    c, py, bare = cluster
    cfg = config(tmp_path, blocks=12, match={"sandbox": "bwrap", "format": "deals", "deals": 6})
    out = tmp_path / "out"
    run = arena_run(c, cfg, out)
    try:
        _wait_lines(run, out, 2)
        head = c.nodes[0]
        c.kill_node(head)  # the whole head machine goes down...
        c.nodes.remove(head)
        c.start_head(cpus=1)  # ...and comes back at once on the same address: a new cluster there
        stdout, stderr = run.communicate(timeout=RUN_WAIT_S)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, stderr
    assert "is unreachable" in stderr and "reconnected to the Ray cluster" in stderr, stderr
    keys = [(ln["pairing"], ln["block"]) for ln in lines_of(out)]
    assert len(keys) == len(set(keys)) == 12
    assert scored(out) == embedded(cfg, tmp_path / "embedded-out")


def test_head_gone_for_good_stops_the_run_with_the_resume_command(cluster, tmp_path: Path) -> None:
    c, py, bare = cluster
    cfg = config(tmp_path, blocks=12, match={"sandbox": "bwrap", "format": "deals", "deals": 6})
    out = tmp_path / "out"
    run = subprocess.Popen(
        [sys.executable, "-m", "arena", "run", str(cfg), "--ray-address", c.address, "--skip-check", "--no-rate"],
        env={**c.env(), "ARENA_RAY_RECONNECT_S": "5"}, cwd=str(tmp_path), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        _wait_lines(run, out, 1)
        c.kill_node(c.nodes[0])
        stdout, stderr = run.communicate(timeout=RUN_WAIT_S)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 3, stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith(f"arena run: the Ray cluster at {c.address} went away") and \
        "run the same command again to resume" in last, stderr
    done = lines_of(out)
    assert 1 <= len(done) < 12 and len({(ln["pairing"], ln["block"]) for ln in done}) == len(done)


def test_a_cluster_without_token_authentication_is_named_as_such(tmp_path: Path) -> None:
    c = LoopbackCluster(tmp_path / "ray", extra_env={"RAY_AUTH_MODE": "disabled"})
    try:
        c.start_head(cpus=1)
        cfg = config(tmp_path, blocks=1)
        run = subprocess.run(
            [sys.executable, "-m", "arena", "run", str(cfg), "--ray-address", c.address, "--skip-check", "--no-rate"],
            env={k: v for k, v in c.env().items() if k not in ("RAY_AUTH_TOKEN_PATH",)}, cwd=str(tmp_path),
            capture_output=True, text=True, timeout=RUN_WAIT_S)
    finally:
        c.stop()
    assert run.returncode == 0, run.stderr
    assert f"the Ray cluster at {c.address} accepts callers without a token" in run.stderr, run.stderr


def test_a_ray_client_address_plays_the_same_results(tmp_path: Path) -> None:
    pytest.importorskip("grpc", reason="Ray Client needs ray[client] (grpcio)")
    from arena.bench.raycluster import free_port

    c = LoopbackCluster(tmp_path / "ray")
    port = free_port()
    try:
        c.start_head(cpus=2, client_port=port)
        cfg = config(tmp_path, blocks=2)
        run = subprocess.run(
            [sys.executable, "-m", "arena", "run", str(cfg), "--ray-address", f"ray://127.0.0.1:{port}",
             "--out", str(tmp_path / "out"), "--skip-check", "--no-rate"],
            env=c.env(), cwd=str(tmp_path), capture_output=True, text=True, timeout=RUN_WAIT_S)
    finally:
        c.stop()
    assert run.returncode == 0, run.stderr
    assert scored(tmp_path / "out") == embedded(cfg, tmp_path / "embedded-out")

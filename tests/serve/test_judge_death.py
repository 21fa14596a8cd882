"""Slow: kill -9 of `arena serve` at gvisor while a batch plays and a validation runs leaves nothing.

Seats not on move are frozen at gvisor, and a frozen process acts on SIGKILL only
once thawed: before issue 40, runsc sandboxes of the killed server lived on,
adopted by init. Leftovers are found by what the level runs (issue 40): the
first server's judge name (FOLDER/.judges) names its cgroups and launch areas
(runsc's state), and the processes are every task in those groups and every
process below the server by parent links, never a command line.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from arena.sandbox import proctree
from arena.sandbox.cgroup import group_dirs
from arena.sandbox.image import home_root
from arena.sandbox.reaper import JUDGE_FILE

from ..sandbox.conftest import need_gvisor
from .conftest import bot_archive
from .test_ladder import add_team, lines, wait_lines
from .test_lifecycle import serve, wait_verdict

pytestmark = [pytest.mark.slow, pytest.mark.bwrap]

#: Time limits no load can reach (Ray's workers run at nice 15): a fault would be the harness blaming a bot.
UNHURRIED = "startup_ms: 600000, decision_ms: 600000, bank_ms: 6000000, tempo: free"  # fixed holds each answer
LADDER = "  seed: judge-death\n  ladder_blocks: 3\n  ladder_pairing_blocks: 1\n  site_bootstrap: 0\n"
TEAMS = ("red", "blue", "green", "gold")


def groups_of(judge: str, owner: int | None = None) -> dict[str, list[Path]]:
    """The judge's bot groups by name (v1: one folder per controller); only those `owner` launched if given."""
    prefix = f"bot-{judge}-" + (f"{owner}-" if owner is not None else "")
    found: dict[str, list[Path]] = {}
    for base in group_dirs():
        for entry in base.iterdir():
            if entry.name.startswith(prefix):
                found.setdefault(entry.name, []).append(entry)
    return found


def areas_of(judge: str, owner: int | None = None) -> list[Path]:
    prefix = f"{judge}-" + (f"{owner}-" if owner is not None else "")
    base = home_root() / "gvisor"
    return [p for p in base.iterdir() if p.name.startswith(prefix)] if base.exists() else []


def frozen_owners(judge: str) -> set[int]:
    """The processes (by the groups' names) that have launched two seats or more, one of them frozen now."""
    owners: dict[int, list[list[Path]]] = {}
    for name, folders in groups_of(judge).items():
        owners.setdefault(int(name.split("-")[2]), []).append(folders)
    return {o for o, seats in owners.items() if len(seats) >= 2 and any(frozen(f) for folders in seats for f in folders)}


def frozen(folder: Path) -> bool:
    for name, word in (("freezer.state", "FROZEN"), ("cgroup.freeze", "1")):
        try:
            if (folder / name).read_text().strip() == word:
                return True
        except OSError:
            pass
    return False


def tasks(judge: str, server: int, owner: int | None = None) -> dict[int, str]:
    """pid -> start time of every task in the judge's groups (those `owner` launched, if given) and every
    process below the server."""
    pids = set(proctree.descendants(server))
    for folders in groups_of(judge, owner).values():
        for f in folders:
            try:
                pids |= {int(x) for x in (f / "cgroup.procs").read_text().split()}
            except OSError:
                pass  # a seat that closed meanwhile
    out = {}
    for pid in pids:
        fields = proctree._stat_fields(pid)
        if fields is not None:
            out[pid] = fields[19]
    return out


def comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def alive(pid: int, start: str) -> bool:
    fields = proctree._stat_fields(pid)
    return fields is not None and fields[19] == start and fields[0] != "Z"


def test_kill_9_of_a_gvisor_server_mid_batch_and_mid_validation_leaves_nothing(comp: Path, tmp_path: Path) -> None:
    need_gvisor()
    text = (comp / "competition.yaml").read_text().replace("competition:\n", "competition:\n" + LADDER)
    text = text.replace("sandbox: none", "sandbox: gvisor\n  time: {startup_ms: 120000, tempo: free}")  # fixed: 3 s a decision
    (comp / "competition.yaml").write_text(text)
    tokens = {n: add_team(comp, n) for n in TEAMS}
    hang = tmp_path / "hang"
    hang.mkdir()
    (hang / "bot.yaml").write_text('name: hang\ncommand: ["{python}", "bot.py"]\n')
    (hang / "bot.py").write_text("import time\ntime.sleep(600)\n")  # never says hello: a long validation
    from .conftest import free_port

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    p = serve(comp, port)
    try:
        judge = (comp / JUDGE_FILE).read_text().split()[0]
        for name, token in tokens.items():
            sid = httpx.post(f"{url}/api/submissions", headers={"Authorization": f"Bearer {token}"},
                             files={"archive": ("b.tar.gz", bot_archive())}, timeout=60).json()["id"]
            assert wait_verdict(url, token, sid, timeout=300)["status"] == "accepted"
        wait_lines(comp, 1, timeout=600)  # the ladder plays
        httpx.post(f"{url}/api/submissions", headers={"Authorization": f"Bearer {tokens['red']}"},
                   files={"archive": ("b.tar.gz", bot_archive(hang))}, timeout=60)
        # kill once the server has sandboxes of its own (a game) and so has a validation child
        end = time.monotonic() + 300
        while True:
            owners = {name.split("-")[2] for name in groups_of(judge)}
            if str(p.pid) in owners and len(owners) >= 2:
                break
            assert time.monotonic() < end, f"no game and validation at once: {owners}"
            time.sleep(0.05)
        seen = tasks(judge, p.pid)
        assert seen and areas_of(judge)
    finally:
        os.killpg(p.pid, signal.SIGKILL)  # the server and its ladder's game; the validation child has its own session
        p.wait()
    at_kill = len(lines(comp))
    p = serve(comp, port)
    try:
        end = time.monotonic() + 60
        while True:
            left = ([f"pid {pid}" for pid, start in seen.items() if alive(pid, start)]
                    + list(groups_of(judge)) + [str(a) for a in areas_of(judge)])
            if not left:
                break
            assert time.monotonic() < end, f"the first server's sandboxes outlived it: {left}"
            time.sleep(0.2)
        wait_lines(comp, at_kill + 1, timeout=600)  # the ladder goes on
    finally:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


@pytest.mark.ray
@pytest.mark.parametrize("level,sig", [("bwrap", signal.SIGKILL), ("gvisor", signal.SIGKILL), ("bwrap", signal.SIGTERM)],
                         ids=["bwrap-kill-9", "gvisor-kill-9", "bwrap-sigterm"])
def test_a_server_playing_on_ray_killed_leaves_nothing_of_it(tmp_path: Path, level: str, sig: int) -> None:
    """`arena serve --workers 2` plays the ladder on its own Ray instance: killed with kill -9 (the server's
    process only), nothing of it outlives it: Ray's processes (some retitle themselves over their
    environment, and a dying Ray node orphans its agents), its workers and their frozen sandboxes. Stopped
    with SIGTERM, the same (Ray killed its workers' watchers as it shut down: their frozen seats stayed)."""
    if level == "gvisor":
        need_gvisor()
    from .conftest import free_port
    from .test_ladder_backends import accepted

    comp = accepted(tmp_path / "comp", teams=4)
    text = (comp / "competition.yaml").read_text().replace("deals: 1", "deals: 4")
    (comp / "competition.yaml").write_text(text.replace(
        "sandbox: none", f"sandbox: {level}\n  time: {{pause_idle: true, {UNHURRIED}}}"))
    port = free_port()
    p = serve(comp, port, workers=2)
    try:
        judge = (comp / JUDGE_FILE).read_text().split()[0]
        end = time.monotonic() + 600
        while not (workers := frozen_owners(judge) - {p.pid}):  # a Ray worker's seats are up, one frozen
            assert p.poll() is None and time.monotonic() < end, "no block played on a Ray worker"
            time.sleep(0.05)
        seen = tasks(judge, p.pid)
        kinds = {comm(pid) for pid in seen}
        assert {"raylet", "gcs_server", "ray::DashboardA"} <= kinds, kinds  # the test sees Ray's processes
        assert set(workers) <= set(seen) and (level == "gvisor") == bool(areas_of(judge))
    finally:
        os.kill(p.pid, sig)  # the server alone: Ray's processes share its session, not its fate
        p.wait()
    at_kill = len(lines(comp))

    def left() -> list[str]:
        return ([f"pid {pid}" for pid, start in seen.items() if alive(pid, start)]
                + list(groups_of(judge)) + [str(a) for a in areas_of(judge)])

    end = time.monotonic() + 60
    while left():  # its watcher ends it all, restart or not
        assert time.monotonic() < end, f"the first server's Ray and sandboxes outlived it: {left()}"
        time.sleep(0.2)
    p = serve(comp, port, workers=2)
    try:
        assert left() == []
        wait_lines(comp, at_kill + 1, timeout=1800)  # the ladder goes on (a bound on a hang only)
        stored = lines(comp)
        assert len({(ln.pairing, ln.block) for ln in stored}) == len(stored)  # no block twice
        assert all(g.faults == [] and g.forfeit_by is None for ln in stored for g in ln.games)  # none blamed
    finally:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()

"""Nothing outlives its judge: kill -9 of the harness process while its seats are frozen.

A frozen process (cgroup v1 freezer) does not act on SIGKILL until thawed, so
parent-death signals alone left frozen sandboxes alive after their judge died
(issue 40). Leftovers are found by what the level runs: the bots' cgroups and
every task in them, the processes below the sandbox found by parent links, and
gvisor's launch areas (runsc's state), never by a command line.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox import proctree
from arena.sandbox.reaper import JUDGE_FILE

from .conftest import need_gvisor

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.bwrap

ECHO = "import sys\nfor line in sys.stdin:\n    print(line.strip(), flush=True)\n"

JUDGE = r"""
import json, os, sys, time, warnings
warnings.simplefilter("ignore")
from pathlib import Path
from typing import Any
from arena.sandbox import judge, launch, Limits, proctree, reaper

level, folder, bots, claim = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "claim"
if claim:
    judge.claim(folder)
seen = []
procs = []
for i in range(bots):
    b = launch([sys.executable, "bot.py"], bot_dir=str(folder / "bot"), level=level,
               limits=Limits(memory_bytes=256 << 20, max_processes=32))
    b.write_line("hello")
    assert b.read_line(60) == b"hello"
    b.pause(wait=True)  # frozen, as every seat not on move is at gvisor
    procs.append(b)
for b in procs:
    pids = sorted({*b.cgroup.pids(), *proctree.descendants(b.pid)})
    seen.append({"groups": [str(p) for p in b.cgroup.paths.values()], "area": str(b.area.path) if b.area else None,
                 "pids": {p: proctree._stat_fields(p)[19] for p in pids}})
print(json.dumps({"bots": seen, "watcher": reaper.watcher_pid()}), flush=True)
time.sleep(600)
"""


def start_judge(tmp_path: Path, level: str, bots: int = 2, claim: bool = False) -> tuple[subprocess.Popen[str], dict]:  # type: ignore[type-arg]
    (tmp_path / "bot").mkdir(exist_ok=True)
    (tmp_path / "bot" / "bot.py").write_text(ECHO)
    p = subprocess.Popen([sys.executable, "-c", JUDGE, level, str(tmp_path), str(bots), "claim" if claim else "-"],
                         cwd=ROOT, stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert p.stdout is not None
    line = p.stdout.readline()
    assert line, "the judge did not start its bots"
    return p, json.loads(line)


def alive(pid: int, start: str) -> bool:
    """The same process (pid and start time) is still there and not a zombie."""
    fields = proctree._stat_fields(pid)
    return fields is not None and fields[19] == start and fields[0] != "Z"


def leftovers(report: dict) -> list[str]:  # type: ignore[type-arg]
    """What of the judge's sandboxes is still there: live tasks (same pid, same start time), cgroup
    folders and launch areas."""
    left = []
    for bot in report["bots"]:
        left += [f"pid {pid}" for pid, start in bot["pids"].items() if alive(int(pid), start)]
        left += [g for g in bot["groups"] if os.path.exists(g)]
        if bot["area"] and (os.path.exists(bot["area"]) or os.path.exists(bot["area"] + ".lock")):
            left.append(bot["area"])
    return left


def wait_clean(report: dict, timeout: float = 30.0) -> list[str]:  # type: ignore[type-arg]
    end = time.monotonic() + timeout
    while (left := leftovers(report)) and time.monotonic() < end:
        time.sleep(0.1)
    return left


def kill(p: "subprocess.Popen[Any]") -> None:
    if p.poll() is None:
        os.kill(p.pid, signal.SIGKILL)
    p.wait()


@pytest.mark.parametrize("level", [pytest.param("gvisor", marks=pytest.mark.slow), "bwrap", "rlimit"])
def test_frozen_seats_die_with_a_judge_killed_by_sigkill(tmp_path: Path, level: str) -> None:
    if level == "gvisor":
        need_gvisor()
    p, report = start_judge(tmp_path, level)
    try:
        assert all(b["pids"] and b["groups"] for b in report["bots"])
        assert leftovers(report)  # the test can see them
    finally:
        kill(p)
    assert wait_clean(report) == []


@pytest.mark.slow
def test_a_judge_of_a_folder_sweeps_what_a_killed_judge_and_watcher_left(tmp_path: Path) -> None:
    """With its watcher killed too, a dead judge's frozen sandboxes stay; the next judge of the same
    state folder ends them at its start, and leaves another judge's sandboxes alone."""
    need_gvisor()
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    other, other_report = start_judge(other_dir, "gvisor", bots=1, claim=True)
    try:
        p, report = start_judge(tmp_path, "gvisor", claim=True)
        os.kill(report["watcher"], signal.SIGKILL)
        kill(p)
        time.sleep(2.0)
        assert leftovers(report)  # frozen: the kill did not land
        out = subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; from arena.sandbox import "
                              "judge; print(judge.claim(Path(sys.argv[1]))[1])", str(tmp_path)],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout
        assert int(out) == 2  # both groups of the dead judge
        assert wait_clean(report) == []
        assert any(x.startswith("pid") for x in leftovers(other_report))  # the other judge's seats live on
    finally:
        kill(other)
    assert wait_clean(other_report) == []


@pytest.mark.slow
def test_kill_9_of_arena_run_at_gvisor_mid_game_leaves_nothing(tmp_path: Path) -> None:
    """`arena run` is a judge too: killed mid-game, its frozen gvisor seats, their groups and areas go."""
    need_gvisor()
    import yaml

    from arena.sandbox.cgroup import group_dirs
    from arena.sandbox.image import home_root

    testbot = ROOT / "tests" / "fixtures" / "testbot"
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({
        "name": "t", "entries": [str(testbot / "first.yaml"), str(testbot / "last.yaml")], "seed": "judge",
        "blocks": 4, "match": {"sandbox": "gvisor", "format": "deals", "deals": 4}, "out": str(tmp_path / "out"),
        "backend": "serial", "workers": 1}))
    p = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config)], cwd=ROOT, start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    judges = tmp_path / "out" / JUDGE_FILE  # the run names itself there: its groups and areas carry the name
    end = time.monotonic() + 120
    while not (judges.exists() and judges.read_text().strip()):
        assert p.poll() is None and time.monotonic() < end, "the run did not name its judge"
        time.sleep(0.05)
    judge = judges.read_text().split()[0]

    def groups() -> list[Path]:
        return [g for base in group_dirs() for g in base.iterdir() if g.name.startswith(f"bot-{judge}-")]

    def areas() -> list[str]:
        base = home_root() / "gvisor"
        return [str(a) for a in base.iterdir() if a.name.startswith(f"{judge}-")] if base.exists() else []

    try:
        end = time.monotonic() + 300
        while len({g.name for g in groups()}) < 2:  # a game's seats are up
            assert p.poll() is None and time.monotonic() < end, "no game started"
            time.sleep(0.05)
        pids = {int(x) for g in groups() for x in (g / "cgroup.procs").read_text().split()}
        pids |= set(proctree.descendants(p.pid))
        seen = {pid: f[19] for pid in pids if (f := proctree._stat_fields(pid)) is not None}
        assert seen and areas()
    finally:
        kill(p)
    end = time.monotonic() + 30
    while (left := [f"pid {pid}" for pid, start in seen.items() if alive(pid, start)]
           + [str(g) for g in groups()] + areas()):
        assert time.monotonic() < end, f"arena run's sandboxes outlived it: {left}"
        time.sleep(0.1)


ADOPTER = r"""
import json, os, subprocess, sys, time
from pathlib import Path
from arena.sandbox import judge, reaper

folder = Path(sys.argv[1])
judge.claim(folder)
# a child that does not carry the judge's name (as Ray's agents, retitled over their environment) ...
quiet = subprocess.Popen(["sleep", "600"], env={}, start_new_session=True)
reaper.adopt()
# ... and one orphaned at once (as a dying Ray node leaves its workers) that carries it
orphan = int(subprocess.run(["sh", "-c", "sleep 600 >/dev/null 2>&1 & echo $!"], capture_output=True, text=True,
                            check=True).stdout)
pids = {p: proctree._stat_fields(p)[19] for p in (quiet.pid, orphan)}
print(json.dumps({"pids": pids, "watcher": reaper.watcher_pid()}), flush=True)
time.sleep(600)
""".replace("from arena.sandbox import judge, reaper", "from arena.sandbox import judge, proctree, reaper")


def start_adopter(folder: Path) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    folder.mkdir(exist_ok=True)
    p = subprocess.Popen([sys.executable, "-c", ADOPTER, str(folder)], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                         start_new_session=True)
    assert p.stdout is not None
    line = p.stdout.readline()
    assert line, "the judge did not start"
    return p, json.loads(line)


def living(report: dict[str, Any]) -> list[int]:
    return [int(pid) for pid, start in report["pids"].items() if alive(int(pid), start)]


@pytest.mark.slow  # four interpreters importing the harness: seconds of CPU
def test_what_a_judge_of_a_folder_started_ends_with_it_by_its_watcher_or_the_next_judge(tmp_path: Path) -> None:
    """A folder's judge (a server, a run) ends with it everything that carries its name and everything it
    adopted (an embedded Ray instance's processes): by its watcher; with the watcher killed too, by the
    next judge of the folder, which leaves a live judge's processes alone."""
    p, report = start_adopter(tmp_path / "a")
    kill(p)
    end = time.monotonic() + 30
    while living(report):
        assert time.monotonic() < end, f"outlived their judge: {living(report)}"
        time.sleep(0.05)

    other, other_report = start_adopter(tmp_path / "other")
    p, report = start_adopter(tmp_path / "b")
    try:
        os.kill(report["watcher"], signal.SIGKILL)
        kill(p)
        time.sleep(1.0)
        assert sorted(living(report)) == sorted(map(int, report["pids"]))  # nothing else ends them
        subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; from arena.sandbox import judge; "
                        "judge.claim(Path(sys.argv[1]))", str(tmp_path / "b")], cwd=ROOT, check=True)
        assert living(report) == []
        assert len(living(other_report)) == 2  # another folder's live judge keeps its own
    finally:
        for pid in living(report):
            os.kill(pid, signal.SIGKILL)
        kill(other)
    end = time.monotonic() + 30
    while living(other_report):
        assert time.monotonic() < end
        time.sleep(0.05)

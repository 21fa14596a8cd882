"""One bot alone reading what the host does (issue 31): free blocks of `statfs("/usr")`, the ids
/proc/self/fdinfo shows for eventfds, and whether a path of a private host folder exists.

Each test moves the host side itself (writes a file, holds eventfds, names a path that is there
or not) and asks a bot (hostile/probe.py) what it saw. At bwrap the first two still follow the
host (one kernel: a seccomp rule cannot make statfs lie); at level gvisor nothing may move. A
control at level none shows each reading is real.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from pathlib import Path

import pytest

from tests.cli import arena

from .collusion import need

LEVELS = ["none", "bwrap", "gvisor"]
MiB = 1024 * 1024


def probe_at(probe, level: str):  # type: ignore[no-untyped-def]
    need(level)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return probe(level=level)


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
def test_statfs_of_usr_follows_host_writes(probe, tmp_path: Path, level: str) -> None:
    """The host writes and deletes 128 MiB on the filesystem of /usr three times; the bot reads
    /usr's free blocks before and after each write. Other writers on the host move them too, so
    two of three writes must show within half to twice their size where the host shows through;
    at gvisor no write may move them by an eighth."""
    if os.stat(tmp_path).st_dev != os.stat("/usr").st_dev:
        pytest.skip("the test's folder is not on the filesystem of /usr")
    p = probe_at(probe, level)
    size = 128 * MiB
    moved = []
    for trial in range(3):
        before = p("statfs", path="/usr")
        assert before["ok"], before
        big = tmp_path / f"big-{trial}"
        with open(big, "wb") as fh:
            for _ in range(size // MiB):
                fh.write(b"\x5a" * MiB)
            fh.flush()
            os.fsync(fh.fileno())
        after = p("statfs", path="/usr")["value"]
        big.unlink()
        os.sync()
        moved.append((before["value"]["bfree"] - after["bfree"]) * after["frsize"] / size)
    print(f"statfs at {level}: free blocks moved by {[round(m, 2) for m in moved]} of each write")
    if level == "gvisor":
        assert all(abs(m) < 0.125 for m in moved), moved
    else:
        assert sum(0.5 <= m <= 2 for m in moved) >= 2, moved


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
def test_eventfd_ids_follow_the_host(probe, level: str) -> None:
    """eventfd ids come from one host-wide pool, lowest free first: while the host holds 256
    eventfds, the bot's next id is at least 256 above its last (ids freed elsewhere meanwhile can
    lower it: two of three tries must show 200). At gvisor the pool is the sandbox's own."""
    p = probe_at(probe, level)
    jumps = []
    for _ in range(3):
        first = p("eventfd_id")
        assert first["ok"], first
        held = [os.eventfd(0) for _ in range(256)]
        try:
            second = p("eventfd_id")["value"]
        finally:
            for fd in held:
                os.close(fd)
        jumps.append(None if first["value"] is None or second is None else second - first["value"])
    print(f"eventfd ids at {level}: jumps {jumps}")
    if level == "gvisor":
        assert all(j is None or j < 200 for j in jumps), jumps
    else:
        assert sum(j is not None and j >= 200 for j in jumps) >= 2, jumps


def _verdict(bot: Path, level: str) -> list[tuple[str, str, str]]:
    """What `arena check-bot --json` records of each fault: where, kind and message. (Not the
    stderr it quotes: at gvisor that is at times a line of the harness's own unshare, whichever
    the path.)"""
    ran = arena("check-bot", str(bot), "--sandbox", level, "--json")
    report = json.loads(ran.out)
    assert report["ok"] is False, report
    return [(v["where"], v["kind"], v["message"]) for v in report["violations"]]


@pytest.mark.parametrize("level", ["bwrap", "gvisor"])
def test_a_command_in_a_private_folder_tells_nothing_of_it(tmp_path: Path, level: str) -> None:
    """A manifest names a program in a 0700 folder of the host (root's, the bot's uid cannot enter
    it): one that exists and one that does not. The recorded verdicts must be the same, else the
    harness looked the path up on the bot's behalf and told it what is there."""
    need(level)
    if os.geteuid() != 0:
        pytest.skip("a private host folder the bot cannot enter needs a root harness")
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "prog").write_text("#!/bin/sh\nexit 0\n")
    (private / "prog").chmod(0o755)
    verdicts = []
    for name in ("prog", "nothing"):
        bot = tmp_path / f"bot-{name}"
        bot.mkdir()
        (bot / "bot.yaml").write_text(f'name: probe\nversion: "1"\ncommand: ["{private / name}"]\n')
        text = json.dumps(_verdict(bot, level), sort_keys=True)
        # the path the manifest names is the bot's own text: the verdicts may quote it
        verdicts.append(re.sub(r"\b(prog|nothing)\b", "PROGRAM", text.replace(str(tmp_path / f"bot-{name}"), "BOT")))
    assert verdicts[0] == verdicts[1], verdicts

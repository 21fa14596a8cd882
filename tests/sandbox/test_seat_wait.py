"""A seat's wait for a core as the judge reads it (docs/sandbox.md, "What a decision's time is"):
every thread its cgroup has had, and a thread that ended keeps its wait in the sum."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from arena.players.transport import ProcessTransport
from arena.sandbox import launch

from .conftest import SMALL

#: On "go N" it forks N processes that spin (one more than the cores: some always wait for one;
#: processes, not threads: Python's threads would take turns on its lock, asleep, not waiting for a
#: core), lets them compete for 200 ms and says so; on "join" it kills them, reaps them and says so.
THREADS = """
import os, signal, sys, time
kids = []
for line in sys.stdin:
    if line.startswith("go"):
        for _ in range(int(line.split()[1])):
            pid = os.fork()
            if pid == 0:
                while True:
                    pass
            kids.append(pid)
        time.sleep(0.2)
    else:
        for pid in kids:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    print(line.strip(), flush=True)
"""


@pytest.mark.bwrap
def test_the_trees_wait_counts_every_thread_and_keeps_those_that_ended(tmp_path: Path) -> None:
    (tmp_path / "threads.py").write_text(THREADS)
    proc = launch([sys.executable, "threads.py"], bot_dir=tmp_path, level="bwrap", limits=SMALL)
    t = ProcessTransport(proc)
    try:
        before = t.tree_run_delay()
        go = f"go {(os.cpu_count() or 1) + 1}"
        t.write_line(go.encode() + b"\n")
        assert t.read_line(30) == go.encode()
        live = t.tree_run_delay()
        t.write_line(b"join\n")
        assert t.read_line(30) == b"join"
        after = t.tree_run_delay()
    finally:
        t.close()
    # cores + 1 spinners for 200 ms: together they wait about 200 ms for a core (more on a busy machine);
    # a reading that missed tasks started after the first one would show about nothing
    assert live - before >= 0.04, (before, live, after)
    assert after >= live  # they ended: their waits stay in the sum

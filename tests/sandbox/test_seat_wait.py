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

#: On "go N" it starts N threads that spin 60 ms of CPU each (one more than the cores: some wait for
#: one), says so, and on "join" waits for them to end and says so.
THREADS = """
import sys, threading, time
def spin():
    t = time.thread_time()
    while time.thread_time() - t < 0.06:
        pass
ts = []
for line in sys.stdin:
    if line.startswith("go"):
        ts = [threading.Thread(target=spin) for _ in range(int(line.split()[1]))]
        for t in ts:
            t.start()
    else:
        for t in ts:
            t.join()
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
    assert after >= live  # the threads ended: their waits stay in the sum
    # cores + 1 threads of 60 ms of CPU each: however they are scheduled, together they wait at
    # least 60 ms for a core (cores of them finish first, the last waits for one), less the few ms
    # between their starts; more on a busy machine. A reading that missed threads started after the
    # first one would show about nothing.
    assert after - before >= 0.04, (before, live, after)

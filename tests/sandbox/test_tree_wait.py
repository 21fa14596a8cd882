"""A seat's whole tree's wait for a core (``ProcessTransport.tree_run_delay``): every thread of every
process of the sandbox counted, read from the cgroup's list of threads in one read."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from arena.players.transport import ProcessTransport

#: Three threads hashing (the hash lets go of the interpreter lock: they run side by side, more of
#: them than this machine has cores, so each waits for a core), one resting, one child process.
BUSY = """
import hashlib, subprocess, sys, threading
data = b"x" * 4_000_000
def spin():
    while True:
        hashlib.sha256(data).digest()
for _ in range(3):
    threading.Thread(target=spin, daemon=True).start()
idle = threading.Event()
resting = threading.Thread(target=idle.wait)
resting.start()
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
print("up", flush=True)
for line in sys.stdin:
    if line == "swap\\n":  # one thread ends, another begins: as many threads as before
        idle.set()
        resting.join()
        threading.Thread(target=spin, daemon=True).start()
        print("swapped", flush=True)
    else:
        break
child.kill()
"""


def _waits(pids: list[int]) -> tuple[int, int]:
    """(threads, their waits summed in ns) of these processes, listed by /proc, not by the cgroup."""
    threads = total = 0
    for pid in pids:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as fh:
                total += int(fh.read().split()[1])
            threads += 1
    return threads, total


@pytest.mark.bwrap
def test_the_tree_s_wait_is_every_thread_s_of_every_process(tmp_path: Path, start: Callable[..., Any]) -> None:
    bot = start([sys.executable, "-c", BUSY], tmp_path)
    assert bot.read_line(10) == b"up"
    assert bot.cgroup is not None
    time.sleep(0.3)
    seat = ProcessTransport(bot)
    pids = bot.cgroup.pids()
    threads, before = _waits(pids)
    got = seat.tree_run_delay()
    _, after = _waits(pids)
    assert threads >= 6  # bwrap, the bot's five threads, its child
    assert before / 1e9 - 1e-9 <= got <= after / 1e9 + 1e-9  # none left out, nothing counted twice
    assert got > seat.run_delay()  # more than the main thread's
    # A resting thread ends and a busy one begins: the same count of threads, not the same threads.
    bot.write_line(b"swap")
    assert bot.read_line(10) == b"swapped"
    time.sleep(0.3)
    pids = bot.cgroup.pids()
    again, before = _waits(pids)
    assert again == threads
    assert seat.tree_run_delay() >= before / 1e9 - 1e-9  # the new thread's wait is in (the ended one kept its)
    bot.write_line(b"bye")

"""proctree.tree_cpu_seconds: the root's reaped children always count, a live child's reaped ones on request."""

from __future__ import annotations

import subprocess
import sys

from arena.sandbox.proctree import tree_cpu_seconds

BURN = "import time\nx = 0\nwhile time.process_time() < 0.4: x += 1\nprint(time.process_time())"
# the root's live child runs the burner (reaping it), says the burner's CPU, then waits for its stdin to close
MIDDLE = ("import subprocess, sys\n"
          f"r = subprocess.run([sys.executable, '-c', {BURN!r}], capture_output=True, text=True, check=True)\n"
          "print(r.stdout.strip(), flush=True)\nsys.stdin.read()")
ROOT = f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', {MIDDLE!r}])"


def test_what_a_live_child_reaped_counts_only_when_asked() -> None:
    root = subprocess.Popen([sys.executable, "-c", ROOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert root.stdout is not None
        burned = float(root.stdout.readline())  # the grandchild is reaped by the (live) child now
        own = tree_cpu_seconds(root.pid)
        every = tree_cpu_seconds(root.pid, every_reaped=True)
        assert every - own >= burned - 0.05  # the grandchild's CPU, sitting in the live child's cutime
        assert own < every
    finally:
        root.communicate("")
    assert root.returncode == 0


def test_the_roots_reaped_children_count_either_way() -> None:
    code = (f"import subprocess, sys\nr = subprocess.run([sys.executable, '-c', {BURN!r}], capture_output=True,"
            " text=True, check=True)\nprint(r.stdout.strip(), flush=True)\nsys.stdin.read()")
    root = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert root.stdout is not None
        burned = float(root.stdout.readline())
        assert tree_cpu_seconds(root.pid) >= burned - 0.05
        assert tree_cpu_seconds(root.pid, every_reaped=True) >= burned - 0.05
    finally:
        root.communicate("")

"""The ladder bench's CPU figure counts the server's descendants (bots, a Ray instance), not only itself."""

from __future__ import annotations

import subprocess
import sys

from arena.bench.serve_ladder import tree_cpu


def test_a_reaped_childs_cpu_is_counted_and_a_stranger_is_not() -> None:
    burn = "import time\nx = 0\nwhile time.process_time() < 0.4: x += 1\nprint(time.process_time())"
    stranger = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE,
                                start_new_session=True)
    try:
        before = tree_cpu()
        child = subprocess.run([sys.executable, "-c", burn], capture_output=True, text=True, check=True)
        grew = tree_cpu() - before
        assert grew >= float(child.stdout) - 0.05  # its CPU, whatever the machine gave it meanwhile
        assert tree_cpu(stranger.pid) < 1.0  # an idle process and its tree: about nothing
    finally:
        stranger.communicate(b"")

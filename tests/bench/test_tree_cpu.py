"""The ladder bench's CPU figure counts the server's descendants (bots, a Ray instance), not only itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from arena.bench.serve_ladder import busy_share, cpu_split, kind_of, tree_cpu


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


def test_the_split_gives_each_live_process_its_growth_and_the_rest_to_the_bots() -> None:
    """The server and Ray's processes alive through the batches keep their own growth; what ended meanwhile
    (reaped into the total) and the bots are the rest; a process new at the end counts whole."""
    before = {1: ("server", 1.0), 2: ("ray", 0.5), 3: ("ray_workers", 2.0), 4: ("bots", 0.3)}
    after = {1: ("server", 1.5), 2: ("ray", 0.6), 3: ("ray_workers", 2.9), 5: ("ray_workers", 0.2)}
    split = cpu_split(before, after, 4.0)  # type: ignore[arg-type]
    assert split == {"server": 0.5, "ray": 0.1, "ray_workers": 1.1, "bots": 2.3}
    assert round(sum(split.values()), 2) == 4.0


def test_the_busy_share_counts_units_in_flight_up_to_the_workers_and_the_gaps_between() -> None:
    # 0-1 s: nothing in flight (a gap), 1-3 s: two units, 3-4 s: one (the batch's tail), 4-5 s: three (two count)
    log = [(1.0, 1), (1.0, 1), (3.0, -1), (4.0, 1), (4.0, 1), (5.0, -1)]
    busy, idle = busy_share(log, 0.0, 5.0, 2)
    assert busy == round((0 + 2 * 2 + 1 + 2) / 10, 3) and idle == 1.0
    assert busy_share([], 0.0, 2.0, 2) == (0.0, 2.0)
    assert busy_share(log, 3.0, 3.0, 2) == (None, 0.0)  # no span: no share


def test_a_ray_process_is_told_from_a_bot_by_its_command_line() -> None:
    me = os.getpid()
    assert kind_of(me, me) == "server"
    bot = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        assert kind_of(bot.pid, me) == "bots"
    finally:
        bot.communicate(b"")
    assert kind_of(bot.pid, me) == "bots"  # gone: whatever it was, it is counted with the rest


def test_a_backend_that_fails_is_said_and_the_others_figures_stay(tmp_path: Path, monkeypatch: Any) -> None:
    """On a loaded machine Ray's start can time out: the 1-worker figures (and the ceiling, which needs both)
    must not be lost with it."""
    from arena.bench import serve_ladder

    def one(root: Path, name: str, *args: Any) -> dict[str, Any]:
        if name == "2":
            raise RuntimeError("the ladder's batches failed: Traceback\n  ...\nException: The current node timed out"
                               " during startup.\n (run with --debug for the traceback)")
        return {"games": 8, "games_per_s": 1.0, "games_per_cpu_s": 2.0, "cpu_per_game_s": 0.5}

    monkeypatch.setattr(serve_ladder, "_backend", one)
    out = serve_ladder.run_ladder(tmp_path, teams=3, batches=1, sandbox="none", cluster=False)
    assert out["1"] is not None and out["2"] is None and out["cluster"] is None
    assert out["errors"] == {"2": "the ladder's batches failed: Traceback\n  ...\nException: The current node timed out"
                                  " during startup."}  # its last lines, Ray's hint left out
    assert out["speedup_2"] is None and out["ceiling_2"] is None

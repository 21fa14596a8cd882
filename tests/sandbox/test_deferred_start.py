"""Setting sandboxes up side by side (``wait_ready=False``) and killing several
before reaping any (``kill_soon``): the same verdicts and the same cleanup."""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

import pytest

from arena.sandbox import BotExited, HarnessError, launch

from .conftest import SMALL, failing_bwrap, pid_alive

HELLO = [sys.executable, "-c", "import sys; print('{\"hi\": 1}', flush=True); sys.stdin.readline()"]
LEVELS = ["rlimit", pytest.param("bwrap", marks=pytest.mark.bwrap)]


def _public_dir(request: pytest.FixtureRequest) -> Path:
    d = Path(tempfile.mkdtemp())
    d.chmod(0o755)  # readable by the bot's own uid, as bot folders are
    request.addfinalizer(lambda: shutil.rmtree(d))
    return d


@pytest.mark.parametrize("level", LEVELS)
def test_four_launched_without_waiting_each_read_their_bot_s_first_line(level: str, scratch_root: Path,
                                                                        request: pytest.FixtureRequest) -> None:
    bot_dir = _public_dir(request)
    bots = [launch(HELLO, bot_dir=bot_dir, level=level, limits=SMALL, scratch_root=scratch_root, wait_ready=False)
            for _ in range(4)]
    try:
        # the readiness byte is the sandbox's, never part of the bot's line
        assert [b.read_line(10.0) for b in bots] == [b'{"hi": 1}'] * 4
        assert all(b.ready_at is not None for b in bots)
        if level == "bwrap":
            assert all(b.sandbox_pid is not None for b in bots)
    finally:
        for b in bots:
            b.close()
    assert all(not b.trouble for b in bots)


def test_a_sandbox_failing_before_the_bot_runs_is_the_harness_s_when_readiness_is_awaited(
        tmp_path: Path, scratch_root: Path, request: pytest.FixtureRequest) -> None:
    public = _public_dir(request)
    fake = failing_bwrap(public)
    bot = launch(HELLO, bot_dir=public, bwrap_path=fake, scratch_root=scratch_root, wait_ready=False)
    with pytest.raises(HarnessError, match="Can not mount tmpfs") as info:
        bot.read_line(5.0)
    assert not isinstance(info.value, BotExited)
    assert bot.exit_status is not None and not pid_alive(bot.pid)  # closed on the way out
    assert list(scratch_root.iterdir()) == []


@pytest.mark.parametrize("level", ["none", *LEVELS])
def test_killed_soon_then_closed_leaves_nothing(level: str, scratch_root: Path, request: pytest.FixtureRequest) -> None:
    bot_dir = _public_dir(request)
    bots = [launch(HELLO, bot_dir=bot_dir, level=level, limits=SMALL, scratch_root=scratch_root) for _ in range(3)]
    for b in bots:
        assert b.read_line(10.0) == b'{"hi": 1}'
    for b in bots:
        b.kill_soon()
    for b in bots:  # killed without anyone waiting: each ends by itself
        deadline = time.monotonic() + 30
        while b._popen.poll() is None and time.monotonic() < deadline:  # noqa: SLF001
            time.sleep(0.01)
        assert b.exit_status is not None
    for b in bots:
        b.close()
        assert not b.trouble and not pid_alive(b.pid)
    assert list(scratch_root.iterdir()) == []

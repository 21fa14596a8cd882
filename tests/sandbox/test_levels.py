"""Level selection, the rlimit and none levels, and telling harness failures from bot faults."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from arena.sandbox import BotExited, BotFault, CommandNotFound, HarnessError, Level, SandboxUnavailable, launch

from .conftest import SMALL, failing_bwrap, pid_alive


def test_bogus_bwrap_path_is_sandbox_unavailable(tmp_path) -> None:
    bogus = tmp_path / "no-such-bwrap"
    with pytest.raises(SandboxUnavailable) as info:
        launch([sys.executable, "-c", "pass"], bot_dir=tmp_path, level="bwrap", bwrap_path=bogus)
    assert str(bogus) in str(info.value)
    assert not list((tmp_path).glob("scratch-*"))


def test_bwrap_that_cannot_sandbox_is_sandbox_unavailable(tmp_path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\n"
                    "[ \"$1\" = --version ] && { echo 'bubblewrap 0.11.0'; exit 0; }\n"
                    "echo 'bwrap: No permissions to create new namespace' >&2; exit 1\n")
    fake.chmod(0o755)
    with pytest.raises(SandboxUnavailable, match="No permissions to create new namespace"):
        launch([sys.executable, "-c", "pass"], bot_dir=tmp_path, bwrap_path=fake)


def test_setup_failure_after_probe_is_a_harness_error(tmp_path, scratch_root, request) -> None:
    # Passes the probe (which runs /bin/true) but fails like a broken mount for real launches.
    # (In a world-readable folder: a root harness runs bwrap as the bot's own uid.)
    public = Path(tempfile.mkdtemp())
    public.chmod(0o755)
    request.addfinalizer(lambda: shutil.rmtree(public))
    fake = failing_bwrap(public)
    bot_dir = tmp_path / "bot"
    bot_dir.mkdir()
    with pytest.raises(HarnessError, match="Can not mount tmpfs") as info:
        launch([sys.executable, "-c", "pass"], bot_dir=bot_dir, bwrap_path=fake,
               scratch_root=scratch_root)
    assert not isinstance(info.value, BotExited)
    assert list(scratch_root.iterdir()) == []  # scratch cleaned up


@pytest.mark.bwrap
def test_bot_faking_a_bwrap_error_is_still_a_bot_fault(tmp_path, start) -> None:
    bot_dir = tmp_path / "bot"
    bot_dir.mkdir()
    bot = start([sys.executable, "-c",
                 "import sys; sys.stderr.write('bwrap: Can not mount tmpfs\\n'); sys.exit(1)"], bot_dir)
    with pytest.raises(BotExited):
        bot.read_line(5)
    assert bot.wait(5) == 1


def test_missing_command_is_the_bots_fault_not_the_harness(tmp_path) -> None:
    """A command that names no program is the manifest's mistake: a BotFault the player turns into
    a verdict against the bot (a harness error would stop the run and blame nobody)."""
    with pytest.raises(CommandNotFound, match="not found on PATH") as e:
        launch(["no-such-bot-binary-xyz"], bot_dir=tmp_path, level="none")
    assert isinstance(e.value, BotFault) and not isinstance(e.value, HarnessError)
    with pytest.raises(CommandNotFound, match="not found in"):
        launch(["./missing.py"], bot_dir=tmp_path, level="none")


def _script(tmp_path: Path, code: str) -> tuple[list[str], Path]:
    bot_dir = tmp_path / "bot"
    bot_dir.mkdir(exist_ok=True)
    (bot_dir / "bot.py").write_text(code)
    return [sys.executable, str(bot_dir / "bot.py")], bot_dir


def test_rlimit_level_applies_file_size_and_process_limits(tmp_path, start) -> None:
    argv, bot_dir = _script(tmp_path, (
        "import json, os, resource, time\n"
        "out = {}\n"
        "try:\n"
        "    with open(os.path.join(os.environ['HOME'], 'big'), 'wb') as f:\n"
        "        f.write(b'x' * (2 * 1024 * 1024))\n"
        "    out['big'] = 'written'\n"
        "except OSError as e:\n"
        "    out['big'] = e.errno\n"
        "n = 0\n"
        "while n < 500:\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "    except OSError:\n"
        "        break\n"
        "    if pid == 0:\n"
        "        time.sleep(3600)\n"
        "    n += 1\n"
        "out['forks'] = n\n"
        "out['fsize'] = resource.getrlimit(resource.RLIMIT_FSIZE)[0]\n"
        "print(json.dumps(out), flush=True)\n"
        "time.sleep(3600)\n"))
    bot = start(argv, bot_dir, level=Level.RLIMIT)
    out = json.loads(bot.read_line(20))
    assert out["fsize"] == SMALL.file_size_bytes
    assert out["big"] == 27  # EFBIG
    if bot.cgroup and bot.cgroup.has("pids"):
        assert out["forks"] < SMALL.max_processes
    pids = bot.cgroup.pids() if bot.cgroup and bot.cgroup.paths else []
    bot.close()
    # Nothing of the tree keeps running (orphans may linger as zombies of
    # the host init at this level if that init does not reap: see docs).
    for pid in pids:
        if pid_alive(pid):
            with open(f"/proc/{pid}/stat") as fh:
                assert fh.read().rsplit(")", 1)[1].split()[0] == "Z"


def test_rlimit_level_memory_limit(tmp_path, start, hostile) -> None:
    argv, bot_dir = hostile("memory_hog", "512")
    bot = start(argv, bot_dir, level=Level.RLIMIT)
    last = b""
    try:
        while last not in (b"memoryerror", b"allocated-all"):
            last = bot.read_line(20)
    except BotExited:
        last = b"killed"
    assert last in (b"memoryerror", b"killed")


def test_none_level_runs_the_command_plainly(tmp_path, start) -> None:
    argv, bot_dir = _script(tmp_path, (
        "import json, os, resource\n"
        "print(json.dumps({'ppid': os.getppid(), 'uid': os.getuid(), 'cwd': os.getcwd(),\n"
        "  'home': os.environ['HOME'],\n"
        "  'fsize': resource.getrlimit(resource.RLIMIT_FSIZE)[0]}), flush=True)\n"))
    bot = start(argv, bot_dir, level=Level.NONE)
    out = json.loads(bot.read_line(10))
    assert out["ppid"] == os.getpid()  # our direct child: no wrapper in between
    assert out["uid"] == os.getuid()
    assert out["cwd"] == str(bot_dir)
    assert out["home"] == str(bot.scratch_dir)
    assert out["fsize"] == -1  # no limits applied
    assert bot.cgroup is None


def test_close_is_idempotent_and_context_manager_cleans_up(tmp_path, scratch_root) -> None:
    argv, bot_dir = _script(tmp_path, "import time; print('hi', flush=True); time.sleep(60)\n")
    with launch(argv, bot_dir=bot_dir, level="rlimit", limits=SMALL, scratch_root=scratch_root) as bot:
        assert bot.read_line(10) == b"hi"
        pid = bot.pid
    assert bot.exit_status is not None
    assert not pid_alive(pid)
    assert list(scratch_root.iterdir()) == []
    bot.close()
    if bot.cgroup is not None:
        assert bot.cgroup.paths == {}


def test_spec_carries_level_limits_and_env(tmp_path, scratch_root) -> None:
    from arena.sandbox import Limits, SandboxSpec

    spec = SandboxSpec(level="none", limits=Limits(stderr_bytes=10), env={"BOT_X": "1"},
                       scratch_root=str(scratch_root)).with_limits({"stderr_bytes": 3})
    assert spec.limits.stderr_bytes == 3 and spec.limits.memory_bytes == Limits().memory_bytes
    argv, bot_dir = _script(tmp_path, "import os, sys; sys.stderr.write('abcdef'); print(os.environ['BOT_X'])\n")
    with spec.launch(argv, bot_dir) as bot:
        assert bot.read_line(10) == b"1"
        bot.wait(5)
    assert bot.stderr_bytes() == b"abc" and bot.stderr_dropped == 3


@pytest.mark.bwrap
@pytest.mark.parametrize("cmd", [["python3", "-c", "print('ok')"], ["node", "-e", "console.log('ok')"]])
def test_bare_interpreter_names_work_inside_bwrap(tmp_path, start, cmd) -> None:
    import shutil

    if shutil.which(cmd[0]) is None:
        pytest.skip(f"{cmd[0]} not installed")
    bot_dir = tmp_path / "bot"
    bot_dir.mkdir()
    bot = start(cmd, bot_dir)
    assert bot.read_line(20) == b"ok", bot.stderr_text()

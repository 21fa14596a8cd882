"""Hostile bots at level bwrap: each is contained and leaves nothing behind."""

from __future__ import annotations

import time

import pytest

from arena.sandbox import BotExited, LineTooLong, ReadTimeout

from .conftest import SMALL, pid_alive

pytestmark = [pytest.mark.bwrap, pytest.mark.contained]


def tree_pids(bot) -> list[int]:
    """Host pids of every process of the bot (cgroup view, falling back to /proc)."""
    from arena.sandbox import proctree

    if bot.cgroup and bot.cgroup.paths:
        return bot.cgroup.pids()
    return proctree.descendants(bot.pid)


def assert_all_gone(pids: list[int]) -> None:
    assert pids, "test bug: no pids collected"
    left = [p for p in pids if pid_alive(p)]
    assert not left, f"leftover processes (zombies count): {left}"


def test_crash_is_bot_exited_with_its_code(hostile, start) -> None:
    bot = start(*hostile("crash"))
    assert bot.read_line(5) == b"hello"
    with pytest.raises(BotExited) as info:
        bot.read_line(5)
    assert bot.wait(5) == 3
    assert info.value.exit_status in (3, None)


def test_hang_times_out_and_kill_leaves_nothing(hostile, start) -> None:
    bot = start(*hostile("hang"))
    t0 = time.monotonic()
    with pytest.raises(ReadTimeout):
        bot.read_line(0.3)
    assert time.monotonic() - t0 >= 0.3
    pids = tree_pids(bot)
    assert len(pids) >= 2  # bwrap and the bot (plus its child once forked)
    bot.close()
    assert_all_gone(pids + [bot.sandbox_pid, bot.pid])
    bot.close()  # idempotent


def test_stdout_flood_is_an_oversize_line(hostile, start) -> None:
    bot = start(*hostile("stdout_flood"))
    with pytest.raises(LineTooLong) as info:
        bot.read_line(5)
    assert info.value.limit == SMALL.max_line_bytes
    pids = tree_pids(bot)
    bot.close()
    assert_all_gone(pids)


def test_stderr_flood_is_capped_and_counted(hostile, start) -> None:
    total = 3 * 1024 * 1024
    bot = start(*hostile("stderr_flood", str(total)))
    assert bot.read_line(10) == b"done"
    bot.wait(5)
    bot.close()
    assert len(bot.stderr_bytes()) == SMALL.stderr_bytes
    assert bot.stderr_dropped == total - SMALL.stderr_bytes
    assert set(bot.stderr_text()) == {"e"}


def test_fork_bomb_is_capped_and_fully_reaped(hostile, start, contained_level) -> None:
    # memory enough for the process cap to bind first (at gvisor its kernel's pages count too)
    bot = start(*hostile("fork_bomb"), limits=SMALL.model_copy(update={"memory_bytes": 512 * 1024 * 1024}))
    count = int(bot.read_line(20))
    assert 0 < count < SMALL.max_processes
    pids = tree_pids(bot)
    # at bwrap each child is a host process; at gvisor they are its kernel's, served by a pool of host
    # stub processes of the Sentry's choosing (20 for 31 children seen), so only the tree's end is checked
    assert len(pids) >= (count if contained_level == "bwrap" else 2)
    bot.close()
    assert_all_gone(pids)
    # The harness is unaffected: a new bot starts and answers.
    again = start(*hostile("crash"))
    assert again.read_line(5) == b"hello"


def test_memory_hog_is_stopped_at_the_limit(hostile, start) -> None:
    bot = start(*hostile("memory_hog", "512"))  # limit is 128 MiB
    reached = 0
    outcome = None
    while True:
        try:
            line = bot.read_line(20)
        except BotExited:
            outcome = "killed"
            break
        if line in (b"memoryerror", b"allocated-all"):
            outcome = line.decode()
            break
        reached = int(line)
    assert outcome in ("killed", "memoryerror")
    assert reached <= 128
    if bot.cgroup and bot.cgroup.has("memory"):
        assert bot.memory_limit_hit()


def test_daemonized_children_die_with_the_bot(hostile, start) -> None:
    bot = start(*hostile("daemonize"))
    assert bot.read_line(10) == b"ready"
    pids = tree_pids(bot)
    assert len(pids) >= 4  # bwrap, the bot (its pid-1), its child, the daemon
    bot.close()
    assert_all_gone(pids)


def test_tree_is_gone_when_the_bot_exits_by_itself(tmp_path, start) -> None:
    import sys

    bot_dir = tmp_path / "bot"
    bot_dir.mkdir()
    (bot_dir / "b.py").write_text(
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid(); time.sleep(3600)\n"
        "print('forked', flush=True); sys.stdin.readline()\n")
    bot = start([sys.executable, str(bot_dir / "b.py")], bot_dir)
    assert bot.read_line(10) == b"forked"
    pids = tree_pids(bot)
    bot.write_line("exit")
    assert bot.wait(5) == 0  # the sandbox ends with its main process...
    deadline = time.monotonic() + 10
    while any(pid_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.01)  # the kernel reaps the namespace asynchronously: wait for it, not for a window
    assert_all_gone(pids)  # ...and takes the orphaned child with it

"""Line I/O semantics, CPU accounting and pause/resume (fast paths, all levels)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from arena.sandbox import BotExited, Level, LineTooLong, ReadTimeout, WriteTimeout

from .conftest import SMALL


def script_bot(tmp_path: Path, code: str) -> tuple[list[str], Path]:
    bot_dir = tmp_path / "bot"
    bot_dir.mkdir(exist_ok=True)
    (bot_dir / "bot.py").write_text(code)
    return [sys.executable, str(bot_dir / "bot.py")], bot_dir


LEVELS = [pytest.param(Level.BWRAP, marks=pytest.mark.bwrap), Level.RLIMIT, Level.NONE]


@pytest.mark.parametrize("level", LEVELS)
def test_lines_split_and_join_across_writes(tmp_path, start, level) -> None:
    argv, bot_dir = script_bot(tmp_path, (
        "import sys, time\n"
        "o = sys.stdout\n"
        "o.write('one\\ntw'); o.flush(); time.sleep(0.05)\n"
        "o.write('o\\nthree\\n'); o.flush()\n"
        "sys.stdin.readline()\n"))
    bot = start(argv, bot_dir, level=level)
    assert bot.read_line(5) == b"one"
    assert bot.read_line(5) == b"two"
    assert bot.read_line(5) == b"three"
    with pytest.raises(ReadTimeout):
        bot.read_line(0.05)


@pytest.mark.parametrize("level", LEVELS)
def test_partial_line_times_out_then_completes(tmp_path, start, level) -> None:
    argv, bot_dir = script_bot(tmp_path, (
        "import sys\n"
        "sys.stdout.write('par'); sys.stdout.flush()\n"
        "sys.stdin.readline()\n"
        "sys.stdout.write('tial\\n'); sys.stdout.flush()\n"
        "sys.stdin.readline()\n"))
    bot = start(argv, bot_dir, level=level)
    t0 = time.monotonic()
    with pytest.raises(ReadTimeout):
        bot.read_line(0.2)
    assert time.monotonic() - t0 >= 0.2  # the timeout is honoured (no upper bound: a loaded machine may be slow)
    bot.write_line("go")
    assert bot.read_line(5) == b"partial"


@pytest.mark.parametrize("level", LEVELS)
def test_exit_is_reported_with_status(tmp_path, start, level) -> None:
    argv, bot_dir = script_bot(tmp_path, "import sys; print('bye', flush=True); sys.exit(7)\n")
    bot = start(argv, bot_dir, level=level)
    assert bot.read_line(5) == b"bye"
    with pytest.raises(BotExited):
        bot.read_line(5)
    bot.wait(5)
    assert bot.exit_status == 7


def test_line_exactly_at_limit_passes_and_one_over_fails(tmp_path, start) -> None:
    limit = SMALL.max_line_bytes
    argv, bot_dir = script_bot(tmp_path, (
        f"import sys\nsys.stdout.write('a' * {limit} + '\\n' + 'b' * {limit + 1} + '\\n')\n"
        "sys.stdout.flush(); sys.stdin.readline()\n"))
    bot = start(argv, bot_dir, level=Level.NONE)
    assert len(bot.read_line(5)) == limit
    with pytest.raises(LineTooLong):
        bot.read_line(5)
    with pytest.raises(LineTooLong):  # stream stays poisoned
        bot.read_line(5)


def test_write_to_bot_that_never_reads_times_out(tmp_path, start) -> None:
    argv, bot_dir = script_bot(tmp_path, "import time; time.sleep(60)\n")
    bot = start(argv, bot_dir, level=Level.NONE)
    with pytest.raises(WriteTimeout):
        for _ in range(100):
            bot.write_line(b"x" * 65536, timeout=0.1)


def test_write_after_exit_is_bot_exited(tmp_path, start) -> None:
    argv, bot_dir = script_bot(tmp_path, "pass\n")
    bot = start(argv, bot_dir, level=Level.NONE)
    bot.wait(5)
    with pytest.raises(BotExited):
        for _ in range(10):
            bot.write_line(b"x" * 65536)


@pytest.mark.parametrize("level", LEVELS)
def test_cpu_time_counts_children_and_pause_stops_it(tmp_path, start, level) -> None:
    argv, bot_dir = script_bot(tmp_path, (
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    while True: pass\n"
        "print('spinning', flush=True)\n"
        "time.sleep(3600)\n"))
    bot = start(argv, bot_dir, level=level)
    assert bot.read_line(5) == b"spinning"
    # Only the child spins: its CPU is counted. Wait for CPU to accrue rather
    # than for a wall-clock window, so a fully loaded machine cannot fail this.
    assert wait_for(lambda: bot.cpu_time() > 0.15), bot.cpu_time()
    bot.pause(wait=True)
    assert bot.paused
    frozen = bot.cpu_time()
    time.sleep(0.3)  # a frozen tree gets no CPU however long this takes
    assert bot.cpu_time() - frozen < 0.05
    bot.resume()
    assert wait_for(lambda: bot.cpu_time() - frozen > 0.05)


def wait_for(condition, timeout: float = 30.0) -> bool:
    """Poll `condition` until it holds (True) or `timeout` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True

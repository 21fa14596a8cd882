"""Start-up and round-trip measurements the benchmark command can call."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

from .limits import Level, Limits
from .process import launch

_ECHO_BOT = (
    "import sys\n"
    "w = sys.stdout.write; f = sys.stdout.flush\n"
    "w('{\"hello\": 1}\\n'); f()\n"
    "for line in sys.stdin:\n"
    "    w(line); f()\n"
)
#: Smallest possible bot: the shell prints its handshake and waits.
SHELL_BOT: tuple[str, ...] = ("/bin/sh", "-c", "echo '{\"hello\": 1}'; read x")


def _summary(samples: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples)
    return {"median_ms": statistics.median(ms), "min_ms": ms[0],
            "p90_ms": ms[int(0.9 * (len(ms) - 1))], "n": float(len(ms))}


def measure_start(level: Level | str = Level.BWRAP, argv: Sequence[str] | None = None,
                  repeats: int = 20, limits: Limits | None = None) -> dict[str, float]:
    """Time from launch() to the bot's first line, `repeats` times (ms statistics).

    Default bot is `SHELL_BOT`; pass e.g. `[sys.executable, "-c", ...]` to
    include an interpreter's own start-up.
    """
    argv = list(argv or SHELL_BOT)
    samples: list[float] = []
    with tempfile.TemporaryDirectory() as bot_dir:
        os.chmod(bot_dir, 0o755)  # as a bot folder is: readable by the bot's uid, no private copy
        for _ in range(repeats):
            t0 = time.perf_counter()
            with launch(argv, bot_dir=bot_dir, level=level, limits=limits) as bot:
                bot.read_line(10.0)
                samples.append(time.perf_counter() - t0)
    return _summary(samples)


def measure_round_trip(level: Level | str = Level.BWRAP, messages: int = 2000,
                       batches: int = 10) -> dict[str, float]:
    """Per-message echo round trip through a BotProcess vs raw Popen pipes (µs).

    Both clients talk to their own echo bot at the same time, in alternating
    batches, and the medians of the batch means are compared, so machine
    load hits both sides alike.
    """
    payload = b'{"type": "play", "hand": ["AS", "KD", "2C", "TH", "9S", "5D"], "seq": 12345}'
    line = payload + b"\n"
    per_batch = max(1, messages // batches)
    with tempfile.TemporaryDirectory() as bot_dir:
        script = Path(bot_dir) / "echo.py"
        script.write_text(_ECHO_BOT)
        argv = [sys.executable, str(script)]
        # Baseline: the plainest buffered JSON-lines client over pipes.
        raw = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert raw.stdin and raw.stdout
        try:
            raw.stdout.readline()
            with launch(argv, bot_dir=bot_dir, level=level) as bot:
                bot.read_line(10.0)
                raw_t: list[float] = []
                ours_t: list[float] = []
                for _ in range(batches):
                    t0 = time.perf_counter()
                    for _ in range(per_batch):
                        raw.stdin.write(line)
                        raw.stdin.flush()
                        if raw.stdout.readline() != line:
                            raise AssertionError("echo mismatch (raw)")
                    raw_t.append((time.perf_counter() - t0) / per_batch)
                    t0 = time.perf_counter()
                    for _ in range(per_batch):
                        bot.write_line(payload)
                        if bot.read_line(5.0) != payload:
                            raise AssertionError("echo mismatch (sandbox)")
                    ours_t.append((time.perf_counter() - t0) / per_batch)
                t0 = time.perf_counter()
                for _ in range(200):
                    bot.pause()
                    bot.resume()
                pause_resume_s = (time.perf_counter() - t0) / 200
        finally:
            raw.kill()
            raw.wait()
    raw_s, ours_s = statistics.median(raw_t), statistics.median(ours_t)
    return {"raw_us": raw_s * 1e6, "sandbox_us": ours_s * 1e6, "ratio": ours_s / raw_s,
            "pause_resume_pair_us": pause_resume_s * 1e6}


if __name__ == "__main__":  # pragma: no cover - manual benchmark
    for lvl in Level:
        print(lvl.value, "start", measure_start(lvl))
        print(lvl.value, "round trip", measure_round_trip(lvl))

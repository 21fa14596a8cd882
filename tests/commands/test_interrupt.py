"""Ctrl-C ends a run with one line ("interrupted; run the same command again"), on either backend:
no stack trace, nothing blamed on a bot, and the blocks done so far are kept."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from arena.schedule.backends import RayBackend

from ..schedule.conftest import write_config

TRACES = ("Traceback", "StackTrace", "bug in Ray", "Check failed")


def _interrupt_after_progress(cmd: list[str]) -> tuple[int, str]:
    """Start ``cmd``, send SIGINT once it reported a finished block, and return its exit code and stderr."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    seen: list[str] = []
    try:
        while True:
            line = lines.get(timeout=300)  # only a bound on a hung run: the signal waits on output
            if line is None:
                raise AssertionError("the run ended before it reported progress:\n" + "".join(seen))
            seen.append(line)
            if " blocks | " in line and not line.startswith("0/"):
                break
        os.kill(proc.pid, signal.SIGINT)
        while (line := lines.get(timeout=300)) is not None:
            seen.append(line)
        return proc.wait(timeout=300), "".join(seen)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("backend", ["serial", pytest.param("ray", marks=[pytest.mark.ray, pytest.mark.slow])])
def test_ctrl_c_prints_one_line_and_no_stack_trace(tmp_path: Path, backend: str) -> None:
    from ..schedule.conftest import FIRST, LAST

    cfg = write_config(tmp_path, blocks=200, backend=backend, workers=4 if backend == "ray" else 1,
                       entries=[str(FIRST), str(LAST)], match={"sandbox": "none", "format": "deals", "deals": 1})
    code, err = _interrupt_after_progress([sys.executable, "-m", "arena", "run", str(cfg), "--skip-check", "--no-rate"])
    assert code == 130, err
    assert not any(t in err for t in TRACES), err
    said = [ln for ln in err.splitlines() if "interrupted" in ln]
    assert said == ["arena run: interrupted; run the same command again to resume"], err
    assert "fault:" not in err  # nobody's bot is blamed for the user's Ctrl-C
    assert (tmp_path / "out" / "results.jsonl").read_text().count("\n") >= 1


class _FakeRay:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def cancel(self, ref: Any, force: bool = False) -> None:
        self.calls.append("cancel")

    def shutdown(self) -> None:
        self.calls.append("shutdown")


@pytest.mark.parametrize("owns,calls", [(True, ["shutdown"]), (False, ["cancel", "cancel"])])
def test_closing_our_own_ray_instance_does_not_cancel_task_by_task(owns: bool, calls: list[str]) -> None:
    """Cancelling in-flight tasks races their replies: Ray then aborts the driver with a C++ stack
    trace. Shutting down the instance we started ends its tasks without that race."""
    backend = RayBackend.__new__(RayBackend)
    backend.ray, backend._owns = _FakeRay(), owns
    backend._pending = {"ref1": None, "ref2": None}
    backend.close()
    assert backend.ray.calls == calls and backend._pending == {}

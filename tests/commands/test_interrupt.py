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

from arena.schedule.backends import RayBackend, StopSignals

from ..schedule.conftest import write_config

TRACES = ("Traceback", "StackTrace", "bug in Ray", "Check failed")


def _interrupt_after_progress(cmd: list[str], sig: int = signal.SIGINT) -> tuple[int, str]:
    """Start ``cmd``, send ``sig`` once it reported a finished block, and return its exit code and stderr."""
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
        os.kill(proc.pid, sig)
        while (line := lines.get(timeout=300)) is not None:
            seen.append(line)
        return proc.wait(timeout=300), "".join(seen)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class _Hogs:
    """Busy-loop processes, two per core, started and stopped by the test (a loaded machine)."""

    def __enter__(self) -> "_Hogs":
        n = 2 * (os.cpu_count() or 1)
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
        return self

    def __exit__(self, *exc: object) -> None:
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()


def _interrupted_run(tmp_path: Path, backend: str, sig: int = signal.SIGINT) -> None:
    from ..schedule.conftest import FIRST, LAST

    cfg = write_config(tmp_path, blocks=200, backend=backend, workers=4 if backend == "ray" else 1,
                       entries=[str(FIRST), str(LAST)], match={"sandbox": "none", "format": "deals", "deals": 1})
    code, err = _interrupt_after_progress([sys.executable, "-m", "arena", "run", str(cfg), "--skip-check", "--no-rate"],
                                          sig)
    assert code == 130, err
    assert not any(t in err for t in TRACES), err
    said = [ln for ln in err.splitlines() if "interrupted" in ln]
    assert said == ["arena run: interrupted; run the same command again to resume"], err
    assert "fault:" not in err  # nobody's bot is blamed for the user's Ctrl-C
    assert (tmp_path / "out" / "results.jsonl").read_text().count("\n") >= 1
    assert (tmp_path / "out" / "results.jsonl").read_text().count("\n") < 200  # it stopped, not finished


@pytest.mark.parametrize("backend", ["serial", pytest.param("ray", marks=[pytest.mark.ray, pytest.mark.slow])])
def test_ctrl_c_prints_one_line_and_no_stack_trace(tmp_path: Path, backend: str) -> None:
    _interrupted_run(tmp_path, backend)


@pytest.mark.ray
@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_ray_run_stops_on_a_signal_beside_cpu_hogs(tmp_path: Path, sig: int) -> None:
    """Issue 33: at load ~10 the Ray case finished its 200 blocks instead of stopping (exit 0)."""
    with _Hogs():
        _interrupted_run(tmp_path, "ray", sig)


class _SwallowingRay:
    """A Ray whose ``wait`` runs the signal's handler inside its own code and swallows what it raises, as a
    callback from Ray's core or a finaliser does: where a default-handler ``KeyboardInterrupt`` was lost."""

    class exceptions:
        RayTaskError = RuntimeError
        RayError = RuntimeError

    def __init__(self) -> None:
        self.waits = 0

    def wait(self, refs: list[Any], num_returns: int, timeout: float) -> tuple[list[Any], list[Any]]:
        self.waits += 1
        if self.waits == 1:
            try:
                signal.raise_signal(signal.SIGINT)  # the handler runs here, in the middle of "Ray"
            except BaseException:  # noqa: BLE001 - what Ray's callback wrappers do
                pass
        return refs[:1], refs[1:]

    def get(self, ref: Any) -> Any:
        raise AssertionError("a result was taken after the interrupt")


class _Pool:
    def give_back(self, node: str) -> None:
        pass


def test_a_signal_that_lands_inside_ray_still_stops_the_loop() -> None:
    backend = RayBackend.__new__(RayBackend)
    backend.ray = _SwallowingRay()
    backend.signals = StopSignals()
    backend.signals.install()
    backend._lost, backend._pending = __import__("collections").deque(), {"ref1": ("task", 0, "node", 0.0)}
    backend.pool = _Pool()
    backend.poll_s, backend._refreshed = 3600.0, __import__("time").monotonic()  # no node refresh in between
    try:
        with pytest.raises(KeyboardInterrupt):
            backend.wait()
    finally:
        backend.signals.restore()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


class _FakeRay:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def cancel(self, ref: Any, force: bool = False) -> None:
        self.calls.append("cancel")

    def shutdown(self) -> None:
        self.calls.append("shutdown")

    def kill(self, handle: Any) -> None:
        self.calls.append(f"kill {handle}")


@pytest.mark.parametrize("owns,calls", [(True, ["shutdown"]), (False, ["cancel", "cancel"])])
def test_closing_our_own_ray_instance_does_not_cancel_task_by_task(owns: bool, calls: list[str]) -> None:
    """Cancelling in-flight tasks races their replies: Ray then aborts the driver with a C++ stack
    trace. Shutting down the instance we started ends its tasks without that race."""
    backend = RayBackend.__new__(RayBackend)
    backend.ray, backend._owns, backend.signals = _FakeRay(), owns, StopSignals()
    backend._pending = {"ref1": None, "ref2": None}
    backend._crews, backend._crewman = {}, {}  # no threaded worker made (the default tempo plays a block a task)
    backend.close()
    assert backend.ray.calls == calls and backend._pending == {}


def test_closing_a_shared_instance_kills_the_threaded_workers_it_made() -> None:
    """A forced cancel cannot reach a threaded worker's call: on a cluster we do not own, closing kills
    each worker we made instead, so no block outlives the run."""
    from arena.schedule.backends import _Crewman
    backend = RayBackend.__new__(RayBackend)
    backend.ray, backend._owns, backend.signals = _FakeRay(), False, StopSignals()
    men = [_Crewman(handle="w1"), _Crewman(handle="w2")]
    backend._pending = {"ref1": None}
    backend._crews, backend._crewman = {"node": men}, {"ref1": men[0]}
    backend.close()
    assert backend.ray.calls == ["cancel", "kill w1", "kill w2"]
    assert backend._pending == {} and backend._crews == {} and backend._crewman == {}

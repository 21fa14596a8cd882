"""The line transport a bot player talks through, and its real implementation.

``ProcessPlayer`` needs only these few calls, so protocol, time control and
fault verdicts can be tested against a scripted ``MockTransport``
(``arena.players.mock``) without starting a process, and the real
``ProcessTransport`` is a thin view of a sandboxed ``BotProcess``.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass, field
from typing import Protocol

from ..sandbox import BotProcess, Level, proctree


@dataclass
class TransportReport:
    """What is left to say about a transport once it is closed."""

    stderr: str = ""
    stderr_dropped: int = 0
    trouble: list[str] = field(default_factory=list)  # what the bot left that resisted cleanup: evidence against it


class Transport(Protocol):
    """One bot's line channel plus the clocks its time is judged on."""

    def wait_ready(self) -> None:
        """Wait until the process is set up (``HarnessError`` if the sandbox failed before the bot ran)."""

    def write_line(self, data: bytes, timeout: float = 5.0) -> None:
        """Send one line; ``BotExited`` or ``WriteTimeout`` on failure."""

    def read_line(self, timeout: float) -> bytes:
        """One line without its newline; ``ReadTimeout``, ``BotExited`` or ``LineTooLong``."""
        ...

    def cpu_time(self) -> float:
        """Seconds of the bot's CPU (its whole tree), or wall time where not measured."""
        ...

    @property
    def measures_cpu(self) -> bool:
        """True when ``cpu_time`` is the bot's own CPU: then what it burns off-move is its own too."""
        ...

    def run_delay(self) -> float:
        """Seconds the bot has waited, runnable, for a core (not its fault)."""
        ...

    def tree_run_delay(self) -> float:
        """``run_delay`` summed over every thread the bot's tree has had (dearer: once a decision); never
        goes back (a thread that ended keeps the wait it had)."""
        ...

    def runnable(self) -> bool:
        """True if a thread of the bot's tree is running or waiting for a core now (its wait so far is
        not yet in ``run_delay``: the kernel adds it when the thread gets a core)."""
        ...

    def lowered(self) -> bool:
        """True if the bot has lowered its own scheduling weight (a thread's nice or policy, its
        session's autogroup): its threads then wait for a core by its own doing, and that wait is
        no excuse for lateness (read only when a late verdict is near)."""
        ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...

    @property
    def paused(self) -> bool: ...

    def memory_limit_hit(self) -> bool: ...

    def exit_status(self) -> int | None: ...

    def stderr_tail(self, limit: int = 2000) -> str:
        """The last ``limit`` characters of what the bot wrote on stderr so far."""
        ...

    def wait_exit(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s (none if not positive) for the bot to exit by itself; True if it did."""
        ...

    def halt(self) -> None:
        """Kill the bot without waiting for it (``close`` reaps); idempotent."""

    def close(self) -> TransportReport:
        """Kill and reap the bot; idempotent."""
        ...


def _autogroup_nice(pid: str) -> int | None:
    """The nice of the autogroup (the session's scheduling group) of process ``pid``, or None."""
    try:
        with open(f"/proc/{pid}/autogroup", "rb") as fh:
            return int(fh.read().rsplit(b"nice", 1)[1])
    except (OSError, IndexError, ValueError):
        return None


class ProcessTransport:
    """A sandboxed ``BotProcess`` as a ``Transport``.

    The line calls are the process's own bound methods (no wrapper on the hot
    path). At level ``none`` there is no cheap tree accounting: the clock is
    wall time, which is what trusted bots are judged on there.
    """

    def __init__(self, proc: BotProcess) -> None:
        self.proc = proc
        self.write_line = proc.write_line  # type: ignore[method-assign]
        self.read_line = proc.read_line  # type: ignore[method-assign]
        self.wait_ready = proc.wait_ready  # type: ignore[method-assign]
        self.measures_cpu = proc.level is not Level.NONE
        if self.measures_cpu:
            self.cpu_time = proc.cpu_time  # type: ignore[method-assign]
        else:
            self.cpu_time = time.monotonic  # type: ignore[method-assign]
        self._sched_fd: int | None = None
        self._task_fds: dict[str, int] = {}  # thread id -> its schedstat, open
        self._task_last: dict[str, int] = {}  # thread id -> its wait for a core in ns, as last read
        self._task_gone = 0  # ns of wait of the threads that ended
        self._report: TransportReport | None = None
        # The judge's own weight, which its bots inherit: what "lowered" is measured against.
        self._nice0 = os.getpriority(os.PRIO_PROCESS, 0)
        self._policy0 = os.sched_getscheduler(0) if hasattr(os, "sched_getscheduler") else 0
        self._autogroup0 = max(0, _autogroup_nice("self") or 0)  # a sandbox process left in the judge's session shares it

    def wait_ready(self) -> None:  # replaced per instance
        self.proc.wait_ready()

    def write_line(self, data: bytes, timeout: float = 5.0) -> None:  # replaced per instance
        self.proc.write_line(data, timeout)

    def read_line(self, timeout: float) -> bytes:  # replaced per instance
        return self.proc.read_line(timeout)

    def cpu_time(self) -> float:  # replaced per instance
        return self.proc.cpu_time()

    def run_delay(self) -> float:
        """The bot's main thread's wait for a CPU, from /proc/PID/schedstat (kept open)."""
        fd = self._sched_fd
        if fd is None:
            try:
                fd = self._sched_fd = os.open(f"/proc/{self.proc.sandbox_pid or self.proc.pid}/schedstat", os.O_RDONLY)
            except OSError:
                return 0.0
        try:
            return int(os.pread(fd, 128, 0).split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return 0.0

    def _tree_threads(self) -> list[tuple[str, str]]:
        """(process id, thread id) of every live thread of the bot's tree: its cgroup's threads (one
        read) where it has one, else the threads of the sandbox's process tree."""
        proc = self.proc
        if proc.cgroup is not None:
            return [(t, t) for t in map(bytes.decode, proc.cgroup.threads())]
        out: list[tuple[str, str]] = []
        for pid in map(str, proctree.descendants(proc.sandbox_pid or proc.pid)):
            try:
                out.extend((pid, tid) for tid in os.listdir(f"/proc/{pid}/task"))
            except OSError:
                continue
        return out

    def tree_run_delay(self) -> float:
        """Every thread's wait for a CPU (/proc/PID/task/TID/schedstat) over the bot's tree: its
        cgroup's threads where it has one, else the sandbox's process tree. Each thread's file is kept
        open (a sandbox's threads change little from one decision to the next), and a thread that
        ended keeps the wait last read from it: the sum never goes back, so a thread ending during a
        decision cannot take its wait out of the machine's time."""
        fds, last = self._task_fds, self._task_last
        cgroup = self.proc.cgroup
        if fds and cgroup is not None and cgroup.thread_count() == len(fds):
            # As many threads as the files kept, each still readable: the same threads (a thread that
            # ended and one that began would show in a file that no longer reads), no listing.
            try:
                for tid, kept in fds.items():
                    last[tid] = int(os.pread(kept, 128, 0).split()[1])
                return (self._task_gone + sum(last.values())) / 1e9
            except (OSError, IndexError, ValueError):
                pass  # one ended: listed again below
        live: set[str] = set()
        for pid, tid in self._tree_threads():
            fd = fds.get(tid)
            if fd is None:
                try:
                    fd = fds[tid] = os.open(f"/proc/{pid}/task/{tid}/schedstat", os.O_RDONLY)
                except OSError:
                    continue
            try:
                last[tid] = int(os.pread(fd, 128, 0).split()[1])
            except (OSError, IndexError, ValueError):
                continue  # ended since listed: its last reading stands
            live.add(tid)
        for tid in [t for t in fds if t not in live]:  # ended: its file closed, its wait kept
            os.close(fds.pop(tid))
            self._task_gone += last.pop(tid, 0)
        return (self._task_gone + sum(last.values())) / 1e9

    def runnable(self) -> bool:
        """Any thread of the tree in state R (/proc/PID/task/TID/stat): read only when a late
        verdict is near, not on every decision."""
        for pid, tid in self._tree_threads():
            try:
                with open(f"/proc/{pid}/task/{tid}/stat", "rb") as fh:
                    stat = fh.read()
            except OSError:
                continue
            if stat[stat.rfind(b")") + 2:][:1] == b"R":
                return True
        return False

    def lowered(self) -> bool:
        """Any thread of the tree at a higher nice or another scheduling policy than the judge's own
        (stat fields 19 and 41), or any process's autogroup niced (/proc/PID/autogroup: a file the bot
        may write at bwrap, which no syscall rule can refuse; its session's group weight then falls,
        and a spinning thread in it waits for a core at little CPU). At bwrap the filter refuses
        setpriority and the sched_set* calls, so the autogroup is the door left; at rlimit every door is."""
        proc = self.proc
        pids = proc.cgroup.pids() if proc.cgroup is not None else proctree.descendants(proc.sandbox_pid or proc.pid)
        for process in pids:
            nice = _autogroup_nice(str(process))
            if nice is not None and nice > self._autogroup0:
                return True
        for pid, tid in self._tree_threads():
            try:
                with open(f"/proc/{pid}/task/{tid}/stat", "rb") as fh:
                    stat = fh.read()
                fields = stat[stat.rfind(b")") + 2:].split()
                if int(fields[16]) > self._nice0 or int(fields[38]) != self._policy0:
                    return True
            except (OSError, IndexError, ValueError):
                continue
        return False

    def pause(self) -> None:
        self.proc.pause()

    def resume(self) -> None:
        self.proc.resume()

    @property
    def paused(self) -> bool:
        return self.proc.paused

    def memory_limit_hit(self) -> bool:
        return self.proc.memory_limit_hit()

    def exit_status(self) -> int | None:
        return self.proc.exit_status

    def stderr_tail(self, limit: int = 2000) -> str:
        return self.proc.stderr_text()[-limit:]

    def wait_exit(self, timeout: float) -> bool:
        if self.proc.exit_status is not None:
            return True
        if timeout <= 0:
            return False
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True

    def halt(self) -> None:
        self.proc.kill_soon()

    def close(self) -> TransportReport:
        if self._report is not None:
            return self._report
        if self._sched_fd is not None:
            os.close(self._sched_fd)
            self._sched_fd = None
        for fd in self._task_fds.values():
            os.close(fd)
        self._task_fds.clear()
        try:
            self.proc.close()
        finally:
            self._report = TransportReport(self.proc.stderr_text(), self.proc.stderr_dropped, list(self.proc.trouble))
        return self._report

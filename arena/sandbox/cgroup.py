"""Per-bot cgroups (v1): the only tree-wide memory cap, process cap, CPU
meter, freezer and kill-all we get when the bot maps to uid 0 outside.

Each controller's group is made *below the harness's own group* in that
hierarchy (e.g. memory:/process_api/<id>/cinch-arena/<bot>), so any limit the
harness itself is under still applies to its bots.
"""

from __future__ import annotations

import errno
import itertools
import os
import signal
import time
import uuid
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .errors import HarnessError
from .limits import Limits

#: Controllers we use; each is optional, the caller falls back without it.
CONTROLLERS: tuple[str, ...] = ("pids", "memory", "cpuacct", "freezer")
GROUP_DIR = "cinch-arena"
_counter = itertools.count()


def _v1_mounts() -> dict[str, Path]:
    """Map controller name -> mount point of its cgroup v1 hierarchy."""
    mounts: dict[str, Path] = {}
    try:
        text = Path("/proc/self/mountinfo").read_text()
    except OSError:
        return mounts
    for line in text.splitlines():
        left, _, right = line.partition(" - ")
        fields = right.split()
        if len(fields) < 3 or fields[0] != "cgroup":
            continue
        mount_point = Path(left.split()[4])
        for opt in fields[2].split(","):
            if opt in CONTROLLERS:
                mounts.setdefault(opt, mount_point)
    return mounts


def _own_groups() -> dict[str, str]:
    """Map controller name -> this process's group path in that hierarchy."""
    groups: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for name in parts[1].split(","):
            groups[name] = parts[2]
    return groups


@lru_cache(maxsize=1)
def parent_dirs() -> dict[str, Path]:
    """Controller -> directory under which we may create bot groups.

    Probed once per process: a controller is usable only if we can create
    (and remove) a child group below our own group.
    """
    usable: dict[str, Path] = {}
    mounts = _v1_mounts()
    try:
        own = _own_groups()
    except OSError:
        return usable
    for name in CONTROLLERS:
        if name not in mounts or name not in own:
            continue
        base = mounts[name] / own[name].lstrip("/") / GROUP_DIR
        try:
            base.mkdir(exist_ok=True)
            probe = base / f"probe-{os.getpid()}-{uuid.uuid4().hex[:8]}"
            probe.mkdir()
            probe.rmdir()
        except OSError:
            continue
        usable[name] = base
    return usable


def _write(path: Path, value: str) -> None:
    with open(path, "w") as fh:
        fh.write(value)


@dataclass
class BotCgroup:
    """The groups of one bot launch, one directory per usable controller."""

    paths: dict[str, Path] = field(default_factory=dict)
    _cpu_fd: int | None = field(default=None, repr=False)

    @classmethod
    def create(cls, limits: Limits) -> "BotCgroup":
        """Make the groups and apply the limits; HarnessError if that fails."""
        name = f"bot-{os.getpid()}-{next(_counter)}-{uuid.uuid4().hex[:8]}"
        group = cls()
        try:
            for ctrl, base in parent_dirs().items():
                path = base / name
                path.mkdir()
                group.paths[ctrl] = path
            if "memory" in group.paths and limits.memory_bytes is not None:
                mem = group.paths["memory"]
                _write(mem / "memory.limit_in_bytes", str(limits.memory_bytes))
                memsw = mem / "memory.memsw.limit_in_bytes"
                if memsw.exists():
                    _write(memsw, str(limits.memory_bytes))
            if "pids" in group.paths and limits.max_processes is not None:
                _write(group.paths["pids"] / "pids.max", str(limits.max_processes))
        except OSError as exc:
            group.destroy()
            raise HarnessError(f"cannot create bot cgroup: {exc}") from exc
        return group

    def has(self, ctrl: str) -> bool:
        return ctrl in self.paths

    def join_script(self) -> str:
        """Shell commands that move the running shell ($$) into every group."""
        return " && ".join(f"echo $$ > '{p}/cgroup.procs'" for p in self.paths.values())

    def cpu_time(self) -> float:
        """CPU seconds used by every task that ever ran in the group.

        Read through a descriptor kept open: this sits on the per-decision
        hot path, and pread is several times cheaper than open/read/close.
        """
        fd = self._cpu_fd
        if fd is None:
            fd = self._cpu_fd = os.open(self.paths["cpuacct"] / "cpuacct.usage", os.O_RDONLY)
        return int(os.pread(fd, 64, 0)) / 1e9

    def memory_peak(self) -> int | None:
        if "memory" not in self.paths:
            return None
        return int((self.paths["memory"] / "memory.max_usage_in_bytes").read_text())

    def oom_killed(self) -> bool:
        """True if the memory limit was hit: a charge failed or the OOM killer ran."""
        if "memory" not in self.paths:
            return False
        mem = self.paths["memory"]
        if int((mem / "memory.failcnt").read_text()) > 0:
            return True
        for line in (mem / "memory.oom_control").read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and int(value) > 0:
                return True
        return False

    def freeze(self, wait: bool = False, timeout: float = 1.0) -> None:
        state = self.paths["freezer"] / "freezer.state"
        _write(state, "FROZEN")
        if wait:
            deadline = time.monotonic() + timeout
            while state.read_text().strip() != "FROZEN" and time.monotonic() < deadline:
                time.sleep(0.0005)

    def thaw(self) -> None:
        _write(self.paths["freezer"] / "freezer.state", "THAWED")

    def pids(self) -> list[int]:
        """Live tasks' pids in the group (any controller lists them all)."""
        for path in self.paths.values():
            try:
                return [int(x) for x in (path / "cgroup.procs").read_text().split()]
            except OSError:
                continue
        return []

    def kill_all(self, timeout: float = 2.0) -> None:
        """SIGKILL every process in the group, freezing first so none can fork away."""
        if not self.paths:
            return
        frozen = "freezer" in self.paths
        if frozen:
            self.freeze(wait=True)
        try:
            deadline = time.monotonic() + timeout
            while True:
                pids = self.pids()
                if not pids:
                    break
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                if frozen:
                    self.thaw()  # v1: frozen tasks only die once thawed
                if time.monotonic() > deadline:
                    break
                time.sleep(0.001)
        finally:
            if frozen:
                self.thaw()

    def destroy(self, timeout: float = 2.0) -> None:
        """Remove the groups (retrying while the last tasks finish exiting)."""
        if self._cpu_fd is not None:
            os.close(self._cpu_fd)
            self._cpu_fd = None
        deadline = time.monotonic() + timeout
        for ctrl, path in list(self.paths.items()):
            while True:
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as exc:
                    if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                        raise HarnessError(f"cannot remove cgroup {path}: {exc}") from exc
                    time.sleep(0.002)
            del self.paths[ctrl]

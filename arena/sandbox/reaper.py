"""Nothing a judge starts outlives it: a watcher that ends a dead judge's sandboxes, and a sweep.

A bot's processes die with the harness process that launched them (the
*judge*) by parent-death signals. That is not enough: a process in a frozen
cgroup (v1 freezer) does not act on SIGKILL until it is thawed, and at level
gvisor every seat not on move is frozen, so after a kill -9 of the judge its
runsc sandboxes would sit frozen forever, adopted by the host's init.

- **The watcher** (`watch`, called before a bot's cgroup is made): once per
  judge process a small process of its own session that holds the read end
  of a pipe whose write end only the judge holds. When the judge ends,
  however it ends, the pipe reads EOF, and the watcher kills and thaws
  every task of the judge's groups (found by the groups' names, never by a
  command line), removes the groups and the judge's launch areas (runsc's
  state included), then exits.
- **The sweep** (`claim`): a long-lived judge of a state folder (`arena
  serve`) names itself there; at start it sweeps what the judges recorded
  there before it left (should their watcher have been killed too), and
  only those: other judges' sandboxes on the same host are never touched.

Group and area names carry the judge's name and pid (`names()`), so the
watcher and the sweep find exactly their own. This module imports only the
standard library: the watcher runs it as a script (`python -I -S`).
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import errno
import fcntl
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Iterable, Sequence

#: The judge's name, inherited by the processes it starts (a server's validation children).
JUDGE_ENV = "CINCH_ARENA_JUDGE"
#: File of a state folder naming the judges that played from it.
JUDGE_FILE = ".judges"
_NAME = re.compile(r"^[a-z0-9]{4,32}$")
MNT_DETACH = 2

_lock = threading.Lock()
_watcher: dict[str, object] = {}  # pid, write fd and Popen of this process's watcher
_claimed: list[int] = []  # descriptors of the judge files this process holds (kept open for its life)
_named: list[str] = []  # the name this process took as a judge of a folder (its later claims keep it)


def judge() -> str:
    """This process's judge name: $CINCH_ARENA_JUDGE when valid, else one made (and exported) now."""
    name = os.environ.get(JUDGE_ENV, "")
    if not _NAME.match(name):
        name = "j" + uuid.uuid4().hex[:12]
        os.environ[JUDGE_ENV] = name
    return name


def names() -> str:
    """The prefix of every group and launch area this process makes: `<judge>-<pid>`."""
    return f"{judge()}-{os.getpid()}"


# ------------------------------------------------------------------ ending
def _procs(folder: Path) -> list[int]:
    try:
        return [int(x) for x in (folder / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _write(path: Path, text: str) -> None:
    try:
        with open(path, "w") as fh:
            fh.write(text)
    except OSError:
        pass


def end_groups(folders: Sequence[Path], timeout: float = 10.0) -> None:
    """Kill every task of one bot's groups (one folder per v1 controller, or one v2 folder), thawing
    them so the kill lands, and remove the folders."""
    deadline = time.monotonic() + timeout
    while True:
        pids = {pid for f in folders for pid in _procs(f)}
        for f in folders:
            if (f / "cgroup.kill").exists():
                _write(f / "cgroup.kill", "1")
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for f in folders:  # frozen tasks act on the kill only once thawed
            if (f / "freezer.state").exists():
                _write(f / "freezer.state", "THAWED")
            if (f / "cgroup.freeze").exists():
                _write(f / "cgroup.freeze", "0")
        if not pids or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    for f in folders:
        while True:
            try:
                f.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError as exc:
                if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                    break
                time.sleep(0.01)


def _unmount(target: Path) -> None:
    libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    libc.umount2(str(target).encode(), MNT_DETACH)


def end_areas(base: Path, prefix: str) -> None:
    """Remove the launch areas (private copies, bundle, runsc's state) named `prefix`*, each once its
    lock is free (its judge is gone)."""
    try:
        entries = [e.name for e in os.scandir(base) if e.name.startswith(prefix) and e.name.endswith(".lock")]
    except OSError:
        return
    for lock_name in entries:
        try:
            fd = os.open(base / lock_name, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # still held: its judge lives
        try:
            folder = base / lock_name[:-5]
            if os.geteuid() == 0:
                _unmount(folder)
            shutil.rmtree(folder, ignore_errors=True)
            os.unlink(base / lock_name)
        except OSError:
            pass
        finally:
            os.close(fd)


def sweep(prefix: str, group_dirs: Iterable[Path], area_base: Path | None) -> int:
    """End every group named `bot-<prefix>`* under `group_dirs` and every launch area named `prefix`*;
    the number of bot groups ended."""
    groups: dict[str, list[Path]] = {}
    for base in group_dirs:
        try:
            for entry in os.scandir(base):
                if entry.name.startswith(f"bot-{prefix}") and entry.is_dir(follow_symlinks=False):
                    groups.setdefault(entry.name, []).append(Path(entry.path))
        except OSError:
            continue
    for folders in groups.values():
        end_groups(folders)
    if area_base is not None:
        end_areas(area_base, prefix)
    return len(groups)


# ----------------------------------------------------------------- watcher
def _places() -> tuple[list[Path], Path]:
    """Where this host's bot groups and launch areas are (imported late: the watcher runs this
    module as a script, with the standard library only)."""
    from .cgroup import group_dirs
    from .image import home_root

    return group_dirs(), home_root() / "gvisor"


def watch() -> None:
    """Start this process's watcher if it has none: called before a bot's cgroup is made (idempotent;
    a dictionary lookup after the first call)."""
    if _watcher.get("pid") == os.getpid():
        return
    watch_in(*_places())


def watch_in(group_dirs: Sequence[Path], area_base: Path | None) -> None:
    """`watch` for the given places."""
    pid = os.getpid()
    if _watcher.get("pid") == pid:
        return
    with _lock:
        if _watcher.get("pid") == pid:
            return
        read_fd, write_fd = os.pipe()  # not inherited by anything this process execs
        argv = [sys.executable, "-I", "-S", os.path.abspath(__file__), names(),
                str(area_base) if area_base is not None else "-", *map(str, group_dirs)]
        try:
            popen = subprocess.Popen(argv, stdin=read_fd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     close_fds=True, start_new_session=True, cwd="/")
        finally:
            os.close(read_fd)
        _watcher.update(pid=pid, fd=write_fd, popen=popen)


def _forget_in_child() -> None:
    """A forked child neither holds its parent's pipe (the parent's watcher must see the parent end)
    nor owns its watcher: it starts one of its own if it launches bots."""
    fd = _watcher.get("fd")
    if isinstance(fd, int):
        try:
            os.close(fd)
        except OSError:
            pass
    _watcher.clear()
    _named.clear()


def stop_watching() -> None:
    """End this process's watcher now (its bots are all closed): it sweeps what is left and exits."""
    if _watcher.get("pid") != os.getpid():
        return
    fd, popen = _watcher.get("fd"), _watcher.get("popen")
    _watcher.clear()
    if isinstance(fd, int):
        os.close(fd)
    if isinstance(popen, subprocess.Popen):
        try:
            popen.wait(10)
        except subprocess.TimeoutExpired:
            pass


os.register_at_fork(after_in_child=_forget_in_child)
atexit.register(stop_watching)


# ------------------------------------------------------------------- claim
def claim(folder: Path, *, hold: bool = True) -> tuple[str, int]:
    """Make this process the judge of the state folder `folder`: end what the judges recorded there
    left behind, then record this one (its name is exported to the processes it starts).
    Returns (this judge's name, groups swept). A folder whose lock another live judge holds is not
    swept. `hold`: keep the lock for the process's life (a server); else release it once recorded
    (a caller that already holds the folder, as a tournament run does)."""
    group_dirs, area_base = _places()
    path = folder / JUDGE_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return judge(), 0
    try:
        if not _named and _watcher.get("pid") != os.getpid():
            os.environ.pop(JUDGE_ENV, None)  # a fresh name: never one a dead judge (or our parent) used
        me = judge()
        _named.append(me)
        with open(fd, "r+", closefd=False) as fh:
            earlier = [n for n in fh.read().split() if _NAME.match(n) and n != me]
        swept = sum(sweep(f"{name}-", group_dirs, area_base) for name in earlier)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{me}\n".encode(), 0)
    except BaseException:
        os.close(fd)
        raise
    if hold:
        _claimed.append(fd)
    else:
        os.close(fd)
    return me, swept


def main(argv: list[str]) -> None:
    """The watcher: wait for EOF on stdin (the judge ended), then sweep its groups and areas."""
    prefix, areas, *dirs = argv
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    while True:
        try:
            if not os.read(0, 4096):
                break
        except InterruptedError:
            continue
        except OSError:
            break
    sweep(f"{prefix}-", [Path(d) for d in dirs], None if areas == "-" else Path(areas))


if __name__ == "__main__":
    main(sys.argv[1:])

"""Nothing a judge starts outlives it: a watcher that ends a dead judge's sandboxes, and a sweep.

A bot's processes die with the harness process that launched them (the
*judge*) by parent-death signals. That is not enough: a process in a frozen
cgroup (v1 freezer) does not act on SIGKILL until it is thawed, and at level
gvisor every seat not on move is frozen, so after a kill -9 of the judge its
runsc sandboxes would sit frozen forever, adopted by the host's init.

- **The watcher** (`watch_in`, called before a bot's cgroup is made): once per
  judge process a small process of its own session, detached from the
  judge (not its child: Ray kills a worker's children as the worker exits),
  that holds the read end of a pipe whose write end only the judge holds.
  When the judge ends, however it ends, the pipe reads EOF, and the watcher
  kills and thaws every task of the judge's groups (found by the groups'
  names, never by a command line), removes the groups and the judge's
  launch areas (runsc's state included), then exits.
- **The judge of a folder** (`claim_in`: `arena serve`, `arena run`) names
  itself there and tells its watcher so: when it ends, everything that
  carries its name in its environment (what it started, Ray's processes
  and workers included) is killed, then every group and area of that name
  (its Ray workers' too) is ended. At start it does the same for the judges
  recorded there before it (should their watcher have been killed too),
  and only those: other judges' sandboxes on the same host are never touched.

Group and area names carry the judge's name and pid (`names()`), so the
watcher and the sweep find exactly their own. This module imports only the
standard library: the watcher runs it as a script (`python -I -S`); where
this host's groups and areas are is said by `judge.py`, which calls it.
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
_watcher: dict[str, object] = {}  # pid, write fd, done fd, Popen (of the launcher) and the watcher's pid
_claimed: list[int] = []  # descriptors of the judge files this process holds (kept open for its life)
_named: list[str] = []  # the name this process took as a judge of a folder (its later claims keep it)
_records: list[Path] = []  # the judge files naming this process
_told: set[str] = set()  # `pid:start` of the processes adopted (told to the watcher and recorded)


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


def carriers(name: str) -> list[int]:
    """Live processes (other than this one) whose environment names the judge `name`: what it started and
    what those started, Ray's processes included, found by the name they inherited, never by a command
    line. A process's own later changes to its environment do not show here, so a judge is not its own
    carrier unless it inherited the name."""
    needle = f"\0{JUDGE_ENV}={name}\0".encode()
    me, found = os.getpid(), []
    try:
        entries = [e.name for e in os.scandir("/proc") if e.name.isdigit()]
    except OSError:
        return []
    for pid in entries:
        if int(pid) == me:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        if needle in b"\0" + data + b"\0":
            found.append(int(pid))
    return found


def _tree(roots: Iterable[int]) -> list[int]:
    """`roots` and every live process below them (one /proc scan)."""
    children: dict[int, list[int]] = {}
    try:
        entries = [e.name for e in os.scandir("/proc") if e.name.isdigit()]
    except OSError:
        entries = []
    for entry in entries:
        try:
            with open(f"/proc/{entry}/stat") as fh:
                state, ppid = fh.read().rsplit(")", 1)[1].split()[:2]
        except (OSError, ValueError):
            continue
        if state != "Z":
            children.setdefault(int(ppid), []).append(int(entry))
    found: list[int] = []
    todo = list(roots)
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def end_judged(names: Iterable[str], adopted: Iterable[str], group_dirs: Iterable[Path], area_base: Path | None,
               timeout: float = 10.0) -> set[str]:
    """Kill every carrier of the (dead) judges `names`, every `adopted` process (`pid:start`) still the
    same, and everything below them, until none is left (a dying Ray node may start one more), each
    round ending the judges' groups too (a frozen task acts on the kill once thawed), then their
    areas; the names of the groups ended."""
    deadline = time.monotonic() + timeout
    group_dirs = list(group_dirs)
    names, adopted = list(names), list(adopted)
    groups: set[str] = set()
    while time.monotonic() < deadline:
        roots = [int(a.partition(":")[0]) for a in adopted if _alive(a)]
        pids = [p for p in _tree(roots + [c for name in names for c in carriers(name)]) if p != os.getpid()]
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for name in names:
            groups |= sweep(f"{name}-", group_dirs, None)
        time.sleep(0.01)
    for name in names:
        groups |= sweep(f"{name}-", group_dirs, area_base)
    return groups


#: The name's start of the empty frozen group a judge holds (`cgroup.keep_freezer_on`): `keep-<judge>-<pid>`.
KEEPER_PREFIX = "keep-"


def sweep(prefix: str, group_dirs: Iterable[Path], area_base: Path | None) -> set[str]:
    """End every group named `bot-<prefix>`* under `group_dirs` (and the judge's own empty frozen group,
    `keep-<prefix>`*) and every launch area named `prefix`*; the names of the bot groups ended."""
    groups: dict[str, list[Path]] = {}
    keepers: list[Path] = []
    for base in group_dirs:
        try:
            for entry in os.scandir(base):
                if not entry.is_dir(follow_symlinks=False):
                    continue
                if entry.name.startswith(f"bot-{prefix}"):
                    groups.setdefault(entry.name, []).append(Path(entry.path))
                elif f"{entry.name}-".startswith(f"{KEEPER_PREFIX}{prefix}"):  # `keep-<judge>-<pid>`: no tail
                    keepers.append(Path(entry.path))
        except OSError:
            continue
    for folders in [*groups.values(), *([k] for k in keepers)]:
        end_groups(folders)
    if area_base is not None:
        end_areas(area_base, prefix)
    return set(groups)


# ----------------------------------------------------------------- watcher
def watch_in(group_dirs: Sequence[Path], area_base: Path | None) -> None:
    """Start this process's watcher over these places if it has none (idempotent: a dictionary lookup
    after the first call). `judge.watch()` says where this host's places are."""
    pid = os.getpid()
    if _watcher.get("pid") == pid:
        return
    with _lock:
        if _watcher.get("pid") == pid:
            return
        read_fd, write_fd = os.pipe()  # not inherited by anything this process execs
        done_r, done_w = os.pipe()  # the watcher says its pid on it, and holds it open until it has swept
        argv = [sys.executable, "-I", "-S", os.path.abspath(__file__), names(), str(done_w),
                str(area_base) if area_base is not None else "-", *map(str, group_dirs)]
        env = {k: v for k, v in os.environ.items() if k != JUDGE_ENV}  # the watcher is no carrier of the name
        try:
            popen = subprocess.Popen(argv, stdin=read_fd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     close_fds=True, pass_fds=(done_w,), start_new_session=True, cwd="/", env=env)
        finally:
            os.close(read_fd)
            os.close(done_w)
        _watcher.update(pid=pid, fd=write_fd, done=done_r, popen=popen, watcher=_read_pid(done_r))
        popen.wait()  # the launcher exits at once, leaving the watcher detached
        for name in _named:
            _tell(f"judge {name}")


def _read_pid(fd: int, timeout: float = 30.0) -> int | None:
    """The detached watcher's pid, as it writes it once it is reading its pipe."""
    import select

    got = b""
    deadline = time.monotonic() + timeout
    while not got.endswith(b"\n") and (left := deadline - time.monotonic()) > 0:
        if not select.select([fd], [], [], left)[0]:
            break
        part = os.read(fd, 64)
        if not part:
            break
        got += part
    return int(got) if got.strip().isdigit() else None


def _tell(line: str) -> None:
    """One line to the watcher (read once the judge has ended); a watcher someone killed hears nothing,
    and the next judge's sweep reads the folder's record instead."""
    fd = _watcher.get("fd")
    if isinstance(fd, int):
        try:
            os.write(fd, f"{line}\n".encode())
        except OSError:
            pass


def watcher_pid() -> int | None:
    """This process's watcher (None before its first bot or claim)."""
    pid = _watcher.get("watcher") if _watcher.get("pid") == os.getpid() else None
    return pid if isinstance(pid, int) else None


def _forget_in_child() -> None:
    """A forked child neither holds its parent's pipe (the parent's watcher must see the parent end)
    nor owns its watcher: it starts one of its own if it launches bots."""
    for key in ("fd", "done"):
        fd = _watcher.get(key)
        if isinstance(fd, int):
            try:
                os.close(fd)
            except OSError:
                pass
    _watcher.clear()
    _named.clear()
    _records.clear()
    _told.clear()


def stop_watching() -> None:
    """End this process's watcher now (its bots are all closed): it sweeps what is left and exits."""
    if _watcher.get("pid") != os.getpid():
        return
    fd, done = _watcher.get("fd"), _watcher.get("done")
    _watcher.clear()
    if isinstance(fd, int):
        os.close(fd)
    if isinstance(done, int):  # EOF once the watcher has swept and exited
        _read_pid(done, 10.0)
        os.close(done)


os.register_at_fork(after_in_child=_forget_in_child)
atexit.register(stop_watching)


def adopt() -> int:
    """A judge of a folder takes every process now below it as its own (Ray's node processes, just after
    `ray.init`): they end with it. Ray retitles some of them over their environment, which then no
    longer shows the judge's name, and a dying Ray node orphans them before the watcher can follow
    parent links. Tells the watcher and appends them to the folder's record (for the next judge's sweep
    should the watcher be killed too); how many were new."""
    if not _named or _watcher.get("pid") != os.getpid():
        return 0
    new = [rec for pid in _tree([os.getpid()])[1:] if (rec := f"{pid}:{_start_time(pid)}") not in _told]
    for rec in new:
        _told.add(rec)
        _tell(f"pid {rec}")
    for path in _records:
        try:
            with open(path, "a") as fh:
                fh.write("".join(f"{_named[0]} {rec}\n" for rec in new))
        except OSError:
            pass
    return len(new)


# ------------------------------------------------------------------- claim
def claim_in(folder: Path, group_dirs: Sequence[Path], area_base: Path | None, *,
             hold: bool = True) -> tuple[str, int]:
    """Make this process the judge of the state folder `folder`: end what the judges recorded there
    left behind, then record this one (its name is exported to the processes it starts).
    Returns (this judge's name, groups swept). A folder whose lock another live judge holds is not
    swept. `hold`: keep the lock for the process's life (a server); else release it once recorded
    (a caller that already holds the folder, as a tournament run does). `judge.claim` gives the places."""
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
            records = [line.split() for line in fh.read().splitlines()]
        judges: dict[str, list[str]] = {}  # a judge's first line names it (`NAME PID:START`), later ones what it adopted
        adopted: dict[str, list[str]] = {}
        for words in records:
            if words and _NAME.match(words[0]):
                (adopted if words[0] in judges else judges).setdefault(words[0], []).extend(words[1:2])
        ended: set[str] = set()
        for name, at in judges.items():
            if name == me:
                continue
            if not (at and _alive(at[0])):  # a judge that is gone: what carries its name goes too
                ended |= end_judged([name], adopted.get(name, ()), group_dirs, area_base)
            ended |= sweep(f"{name}-", group_dirs, area_base)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{me} {os.getpid()}:{_start_time(os.getpid())}\n".encode(), 0)
        watch_in(group_dirs, area_base)  # when this judge ends, its watcher ends everything of its name
        _tell(f"judge {me}")
        _records.append(path)
    except BaseException:
        os.close(fd)
        raise
    if hold:
        _claimed.append(fd)
    else:
        os.close(fd)
    return me, len(ended)


def _start_time(pid: int) -> str:
    """A process's start time (clock ticks since boot): with its pid, names it across pid reuse."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def _alive(record: str) -> bool:
    """`pid:start` is a live process (the same one, not a zombie)."""
    pid, _, start = record.partition(":")
    if not (pid.isdigit() and start):
        return False
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return False
    return len(fields) > 19 and fields[19] == start and fields[0] != "Z"


def main(argv: list[str]) -> None:
    """The watcher: detach from the judge, say its pid, wait for EOF on stdin (the judge ended), then end
    the judge's groups and areas, and for each folder judge it was told of (`judge NAME` lines) every
    carrier of the name first, then all its groups and areas."""
    prefix, done, areas, *dirs = argv
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    if os.fork():  # the launcher, the judge's child, exits; the watcher is nobody's child to kill on exit
        os._exit(0)
    os.write(int(done), f"{os.getpid()}\n".encode())
    told = b""
    while True:
        try:
            part = os.read(0, 4096)
        except InterruptedError:
            continue
        except OSError:
            break
        if not part:
            break
        told += part
    judges = {w[1] for w in (line.split() for line in told.decode(errors="replace").splitlines())
              if len(w) == 2 and w[0] == "judge" and _NAME.match(w[1])}
    places = [Path(d) for d in dirs], None if areas == "-" else Path(areas)
    adopted = [w[1] for w in (line.split() for line in told.decode(errors="replace").splitlines())
               if len(w) == 2 and w[0] == "pid"]
    if judges:
        end_judged(judges, adopted, *places)
    sweep(f"{prefix}-", *places)


if __name__ == "__main__":
    main(sys.argv[1:])

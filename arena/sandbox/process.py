"""Launching a bot command as a contained process and talking to it in lines.

The hot path (write_line / read_line) is a couple of syscalls on raw pipe
fds with our own line buffer: no threads, no cgroup writes per message.
Stderr is drained by one small thread per bot so a chatty bot can never
block on a full stderr pipe while we wait on its stdout.
"""

from __future__ import annotations

import dataclasses
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import sys
import _thread
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

from . import bwrap as bw
from . import gvisor as gv
from . import proctree
from . import runtime as rt
from .plan import NOT_FOUND_MARKER, READY_MARKER, inside_argv
from . import judge
from .cgroup import BotCgroup, BotCgroupV2, create_cgroup
from .files import FolderListing, FolderRefused, default_scratch_root, readable_copy, remove_tree, walk_folder, world_reachable  # noqa: F401 - importable here
from .errors import BotExited, CommandNotFound, HarnessError, LineTooLong, ReadTimeout, SandboxUnavailable, WriteTimeout
from .limits import Level, Limits
from .plan import PlanInputs, ScratchMount, StageBind, host_env, plan_launch, run_plan
from .seccomp import filter_bytes
from .uids import UidLease, UidRange, lease_uid

if TYPE_CHECKING:  # level gvisor's images and launch areas (ctypes, mounts) load with its first launch
    from .image import LaunchArea

#: Root-made binds of folders a bot's uid cannot reach by path (a checkout
#: under a 0700 home) are staged here, inside a private mount namespace.
STAGE_DIR = Path("/run/cinch-arena/stage")
#: Environment of the harness-side helpers (prlimit, sh, setpriv, bwrap):
#: fixed, so nothing a bot's manifest sets ever reaches a host-side program.
_HOST_ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}


class UncontainedWarning(UserWarning):
    """A bot was started at level rlimit or none: no containment against hostile code."""

_READ_CHUNK = 65536
_POLLIN = select.POLLIN | select.POLLHUP | select.POLLERR
_DEFAULT_LANG = "C.UTF-8"


def _resolve_command(argv: Sequence[str], bot_dir: str, level: Level) -> list[str]:
    """The command as it will run. At rlimit and none argv[0] is resolved on the harness's PATH
    (the bot sees the host as the harness does). At bwrap and gvisor it is resolved only inside
    the bot's own view, by the sandbox's ready step: the host never looks up a path a manifest
    names, so a bot cannot learn what the host holds from how its start fails."""
    if not argv:
        raise ValueError("empty bot command")
    argv = [str(a) for a in argv]
    if level in (Level.BWRAP, Level.GVISOR):
        return argv
    exe = argv[0]
    if "/" not in exe:
        # Version-manager shims (pyenv, rbenv, asdf) are scripts that need the
        # manager's whole home; skip them and take the next real program.
        path = os.pathsep.join(d for d in os.environ.get("PATH", os.defpath).split(os.pathsep)
                               if os.path.basename(d.rstrip("/")) != "shims")
        found = shutil.which(exe, path=path)
        if found is None:
            raise CommandNotFound(f"bot command {exe!r} not found on PATH")
        argv[0] = os.path.abspath(found)
    elif not os.path.isabs(exe):
        if not os.path.exists(os.path.join(bot_dir, exe)):
            raise CommandNotFound(f"bot command {exe!r} not found in {bot_dir}")
    elif not os.path.exists(exe):
        raise CommandNotFound(f"bot command {exe!r} does not exist")
    return argv


def not_found_message(exe: str) -> str:
    """The one message for a command that names no program in the bot's view, wherever it points."""
    where = "its bot folder" if "/" in exe and not exe.startswith("/") else (
        "the sandbox's folders" if exe.startswith("/") else f"the sandbox's PATH ({bw.SANDBOX_PATH})")
    return f"bot command {exe!r} names no program in {where} (missing, or not executable)"


class _StderrSink:
    """Keeps the first `keep` bytes of a stream, counts and discards the rest.

    Runs on a bare thread (``_thread``): ``threading.Thread.start`` waits
    until the new thread has run, which on busy cores costs the launching
    harness about a millisecond per bot, four times per game.
    """

    def __init__(self, fd: int, keep: int) -> None:
        self._fd = fd
        self._keep = keep
        self.data = bytearray()
        self.dropped = 0
        self._done = threading.Event()

    def start(self) -> None:
        _thread.start_new_thread(self._run, ())

    def _run(self) -> None:
        try:
            self.run()
        finally:
            self._done.set()

    def join(self, timeout: float | None = None) -> None:
        self._done.wait(timeout)

    def is_alive(self) -> bool:
        return not self._done.is_set()

    def run(self) -> None:
        while True:
            try:
                chunk = os.read(self._fd, _READ_CHUNK)
            except OSError:
                return
            if not chunk:
                return
            room = self._keep - len(self.data)
            if room > 0:
                self.data += chunk[:room]
            self.dropped += max(0, len(chunk) - max(room, 0))


class BotProcess:
    """One running bot. Create with `launch()`; always `close()` it (or use `with`)."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        *,
        level: Level,
        limits: Limits,
        scratch_dir: Path | None,
        cgroup: BotCgroup | BotCgroupV2 | None,
        status_fd: int | None,
        started_at: float,
    ) -> None:
        self._popen = popen
        self.level = level
        self.limits = limits
        self.scratch_dir = scratch_dir
        self.cgroup = cgroup
        self.uid_lease: UidLease | None = None
        self._copies: list[Path] = []
        #: What went wrong while closing, caused by what the bot left behind
        #: (processes that would not die, a cgroup that would not go, a
        #: scratch dir that would not be removed): evidence against the bot.
        self.trouble: list[str] = []
        self.started_at = started_at
        self.ready_at: float | None = None
        self.sandbox_pid: int | None = None
        self._pidfd: int | None = None
        self._status_fd = status_fd
        self._status_buf = b""
        assert popen.stdin and popen.stdout and popen.stderr
        self._in_fd = popen.stdin.fileno()
        self._out_fd = popen.stdout.fileno()
        os.set_blocking(self._in_fd, False)
        self._buf = bytearray()
        self._scan_from = 0
        self._poison: str | None = None
        self._in_poll = select.poll()
        self._in_poll.register(self._out_fd, _POLLIN)
        self._out_poll = select.poll()
        self._out_poll.register(self._in_fd, select.POLLOUT | select.POLLERR)
        self._stderr = _StderrSink(popen.stderr.fileno(), limits.stderr_bytes)
        self._stderr.start()
        self._paused = False
        self._closed = False
        self._ready_timeout = 10.0
        self._killed = False
        #: Level gvisor: the launch's own folder (private copies, scratch, bundle), removed on close.
        self.area: LaunchArea | None = None
        #: The command as the manifest named it, for the not-found message.
        self.command = ""
        self._ready_error: BaseException | None = None

    # ----------------------------------------------------------------- info
    @property
    def pid(self) -> int:
        """Host pid of the process we spawned (bwrap at level bwrap, else the bot)."""
        return self._popen.pid

    @property
    def host_uid(self) -> int | None:
        """Host uid the bot runs as at level bwrap (never 0 when the harness is root)."""
        return self.uid_lease.uid if self.uid_lease else None

    @property
    def exit_status(self) -> int | None:
        """Exit code once the process ended (negative: killed by that signal), else None."""
        return self._popen.poll()

    @property
    def stderr_dropped(self) -> int:
        """Stderr bytes discarded beyond `limits.stderr_bytes`."""
        return self._stderr.dropped

    def stderr_bytes(self) -> bytes:
        return bytes(self._stderr.data)

    def stderr_text(self) -> str:
        """Kept stderr, decoded leniently (bots may write anything)."""
        return self._stderr.data.decode("utf-8", "replace")

    def memory_limit_hit(self) -> bool:
        """True if the cgroup memory limit was reached at least once."""
        return bool(self.cgroup and self.cgroup.oom_killed())

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the process to end on its own; subprocess.TimeoutExpired if it doesn't."""
        return self._popen.wait(timeout)

    # ------------------------------------------------------------------ I/O
    def write_line(self, data: bytes | str, timeout: float = 5.0) -> None:
        """Send one line (a newline is appended if missing).

        Raises BotExited if the bot closed stdin, WriteTimeout if it does not
        drain its pipe in time.
        """
        if isinstance(data, str):
            data = data.encode()
        if data[-1:] != b"\n":
            data += b"\n"
        try:
            n = os.write(self._in_fd, data)  # fast path: the whole line fits the pipe
        except BlockingIOError:
            n = 0
        except OSError as exc:
            raise BotExited(f"bot closed its stdin: {exc}", self._status_soon()) from exc
        if n != len(data):
            self._write_slow(memoryview(data)[n:], timeout)

    def _write_slow(self, view: memoryview, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while view:
            try:
                view = view[os.write(self._in_fd, view):]
                continue
            except BlockingIOError:
                pass
            except OSError as exc:
                raise BotExited(f"bot closed its stdin: {exc}", self._status_soon()) from exc
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._out_poll.poll(remaining * 1000):
                raise WriteTimeout(f"bot did not read its input within {timeout:.3f}s")

    def read_line(self, timeout: float) -> bytes:
        """Next line from the bot's stdout, without its newline.

        Raises ReadTimeout (nothing complete within `timeout` seconds),
        BotExited (stdout closed) or LineTooLong (over `limits.max_line_bytes`;
        the stream is then unusable and further reads raise it again).
        """
        if self.ready_at is None:
            self.wait_ready()  # the sandbox's readiness marker is not the bot's output
        deadline = time.monotonic() + timeout
        if not self._buf and self._poison is None:
            # Fast path: one poll + one read that brings exactly one line.
            if timeout <= 0 or not self._in_poll.poll(timeout * 1000):
                raise ReadTimeout(f"no line from bot within {timeout:.3f}s")
            chunk = os.read(self._out_fd, _READ_CHUNK)
            if not chunk:
                raise BotExited("bot closed its stdout", self._status_soon())
            end = chunk.find(b"\n")
            if end == len(chunk) - 1 and end <= self.limits.max_line_bytes:
                return chunk[:-1]
            self._buf += chunk
        return self._read_slow(timeout, deadline)

    def _read_slow(self, timeout: float, deadline: float) -> bytes:
        if self._poison is not None:
            raise LineTooLong(self._poison, self.limits.max_line_bytes)
        limit = self.limits.max_line_bytes
        buf = self._buf
        while True:
            i = buf.find(b"\n", self._scan_from)
            if i >= 0:
                if i > limit:
                    return self._oversize(i)
                line = bytes(buf[:i])
                del buf[: i + 1]
                self._scan_from = 0
                return line
            if len(buf) > limit:
                return self._oversize(len(buf))
            self._scan_from = len(buf)
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._in_poll.poll(remaining * 1000):
                raise ReadTimeout(f"no line from bot within {timeout:.3f}s")
            chunk = os.read(self._out_fd, _READ_CHUNK)
            if not chunk:
                raise BotExited("bot closed its stdout", self._status_soon())
            buf += chunk

    def _oversize(self, size: int) -> bytes:
        self._poison = f"bot line of at least {size} bytes exceeds limit {self.limits.max_line_bytes}"
        self._buf.clear()
        raise LineTooLong(self._poison, self.limits.max_line_bytes)

    def _status_soon(self, grace: float = 0.05) -> int | None:
        """Exit status if the process ends within `grace` seconds (EOF usually precedes exit)."""
        try:
            return self._popen.wait(grace)
        except subprocess.TimeoutExpired:
            return None

    # ------------------------------------------------------------ CPU, pause
    def cpu_time(self) -> float:
        """CPU seconds used so far by the bot's whole process tree.

        From cgroup cpuacct when available (includes the few ms bwrap itself
        spends starting), else a /proc scan of the live tree.
        """
        if self.cgroup and self.cgroup.has("cpu"):
            return self.cgroup.cpu_time()
        root = self.sandbox_pid or self.pid
        return proctree.tree_cpu_seconds(root)

    @property
    def paused(self) -> bool:
        return self._paused

    def pause(self, wait: bool = False) -> None:
        """Stop the whole tree from running (cgroup freezer, else SIGSTOP of the tree)."""
        if self._paused or self._closed:
            return
        if self.cgroup and self.cgroup.has("freeze"):
            self.cgroup.freeze(wait=wait)
        else:
            self._signal_tree(signal.SIGSTOP)
        self._paused = True

    def resume(self) -> None:
        """Undo `pause()`."""
        if not self._paused or self._closed:
            return
        if self.cgroup and self.cgroup.has("freeze"):
            self.cgroup.thaw()
        else:
            self._signal_tree(signal.SIGCONT)
        self._paused = False

    def _signal_tree(self, sig: signal.Signals) -> None:
        if self.level is Level.GVISOR:
            proctree.signal_tree(self.pid, sig)  # runsc, its file server, the Sentry and its stubs
        elif self.level is Level.BWRAP and self.sandbox_pid:
            proctree.signal_tree(self.sandbox_pid, sig)
        else:
            try:
                os.killpg(self.pid, sig)
            except ProcessLookupError:
                pass
            if self.level is not Level.NONE:
                proctree.signal_tree(self.pid, sig)

    # ------------------------------------------------------------ ending
    def kill(self) -> None:
        """Kill the whole tree and reap it. Idempotent; same as close()."""
        self.close()

    def close(self) -> None:
        """Kill and reap every process of the bot, remove its cgroups and scratch. Idempotent.

        Never raises: whatever a bot left behind that resists cleanup is
        recorded in `trouble` (evidence against that bot) and cleanup goes on.
        """
        if self._closed:
            return
        self._closed = True
        try:
            self._kill_tree()
        except Exception as exc:  # noqa: BLE001 - keep cleaning up
            self.trouble.append(f"kill: {exc}")
        for f in (self._popen.stdin, self._popen.stdout):
            try:
                if f:
                    f.close()
            except OSError:
                pass
        self._stderr.join(timeout=1.0)
        if not self._stderr.is_alive() and self._popen.stderr:
            self._popen.stderr.close()
        for fd in (self._status_fd, self._pidfd):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        if self.cgroup:
            try:
                self.cgroup.destroy()
            except Exception as exc:  # noqa: BLE001 - a group that will not go is what the bot left
                self.trouble.append(str(exc))
        if self.scratch_dir is not None:
            problem = remove_tree(self.scratch_dir)
            if problem:
                self.trouble.append(problem)
        for copy in self._copies:
            remove_tree(copy)  # our own copy of the bot folder: read-only to the bot
        if self.area is not None:
            problem = self.area.close()  # the scratch the bot wrote in is inside it
            if problem:
                self.trouble.append(problem)
        if self.uid_lease is not None and not self.trouble:
            self.uid_lease.release()  # with trouble the uid may still be in use: keep it leased

    def kill_soon(self) -> None:
        """Send the bot's tree SIGKILL without waiting; ``close()`` then reaps it.

        Lets a caller with several bots signal them all before reaping any,
        so their teardowns (a pid namespace each at level bwrap) overlap.
        """
        if self._closed or self._killed:
            return
        self._killed = True
        try:
            if self._pidfd is not None:
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            elif self._popen.poll() is None:
                os.killpg(self._popen.pid, signal.SIGKILL)  # a bot that left its group is found by close()
        except (ProcessLookupError, PermissionError):
            pass  # already gone; close() makes sure of the rest

    def _reap(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for our child to exit and reap it (a pidfd: no sleep-polling)."""
        popen = self._popen
        if popen.poll() is not None:
            return True
        try:
            fd = os.pidfd_open(popen.pid)
        except OSError:
            try:
                popen.wait(timeout)
            except subprocess.TimeoutExpired:
                return False
            return True
        try:
            waiter = select.poll()
            waiter.register(fd, select.POLLIN)
            waiter.poll(timeout * 1000)
        finally:
            os.close(fd)
        return popen.poll() is not None

    def _kill_tree(self) -> None:
        popen = self._popen
        if self._pidfd is not None:
            # Killing the sandbox's init makes the kernel kill its whole pid
            # namespace; bwrap then reaps it and exits by itself.
            try:
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._reap(2.0)
        if self.cgroup and self.cgroup.paths:
            self.cgroup.kill_all()
        elif popen.poll() is None or self.level is not Level.BWRAP:
            try:
                os.killpg(popen.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if popen.poll() is None:
            try:
                popen.kill()
            except ProcessLookupError:
                pass
        if not self._reap(5.0):
            raise HarnessError(f"bot process {popen.pid} survived SIGKILL")
        self._paused = False

    def __enter__(self) -> "BotProcess":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<BotProcess pid={self.pid} level={self.level.value} status={self.exit_status}>"

    # -------------------------------------------------------- start-up sync
    def wait_ready(self) -> None:
        """Wait until the sandbox is set up and the bot's exec is under way. Idempotent.

        Raises HarnessError (after closing the process) if the sandbox failed
        before the bot started: that is never the bot's fault.
        """
        if self._ready_error is not None:
            raise self._ready_error
        if self.ready_at is not None:
            return
        try:
            self._await_ready(self._ready_timeout)
            if self.level is Level.BWRAP:
                self._read_sandbox_pid()
            elif self.level is Level.GVISOR:
                self._track_namespace_init()
                self._unfreeze_runsc_helpers()
        except BaseException as exc:
            self._ready_error = exc
            self.close()
            raise

    def _await_ready(self, timeout: float) -> None:
        """Consume the readiness marker; HarnessError if the sandbox died first."""
        deadline = time.monotonic() + timeout
        while not self._buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._in_poll.poll(remaining * 1000):
                raise HarnessError(f"sandbox did not become ready within {timeout}s")
            chunk = os.read(self._out_fd, _READ_CHUNK)
            if not chunk:
                status = self._status_soon(2.0)
                self._stderr.join(timeout=1.0)
                raise HarnessError(
                    f"sandbox failed before starting the bot (exit {status}): "
                    f"{self.stderr_text().strip() or 'no message'}")
            self._buf += chunk
        self.ready_at = time.monotonic()
        if self._buf[:1] == NOT_FOUND_MARKER:
            raise CommandNotFound(not_found_message(self.command))
        if self._buf[:1] != READY_MARKER:
            raise HarnessError(f"unexpected first byte from sandbox: {bytes(self._buf[:1])!r}")
        del self._buf[:1]

    def _track_namespace_init(self) -> None:
        """Level gvisor: hold a pidfd on the init of the pid namespace our `unshare` made (runsc).
        Killing it kills everything of the sandbox (the Sentry, its file server, their stubs), which
        it reaps; `unshare` then reaps it and exits: nothing is left as a zombie of the host's init."""
        try:
            with open(f"/proc/{self.pid}/task/{self.pid}/children") as fh:
                kids = [int(k) for k in fh.read().split()]
        except OSError:
            return  # unshare already ended: the bot is gone, seen as BotExited
        if not kids:
            return
        try:
            pidfd = os.pidfd_open(kids[0])
        except ProcessLookupError:
            return
        fields = proctree._stat_fields(kids[0])
        if fields is None or int(fields[1]) != self.pid:
            os.close(pidfd)
            return
        self.sandbox_pid = kids[0]
        self._pidfd = pidfd

    def _unfreeze_runsc_helpers(self) -> None:
        """Level gvisor, v1 freezer: leave only the Sentry and its stubs in the freezer group.

        The bot's code runs only in the stubs the Sentry (``runsc-sandbox``) forks, and the Sentry
        is the only one to drive them; runsc's other processes (the namespace's init, what it
        re-executed, the file server) serve the Sentry alone and sit idle while it is frozen. Each
        freeze and thaw walks every thread of the group, so leaving their ~30 threads out nearly
        halves its cost (docs/sandbox.md). They stay in the memory, pids and CPU groups, and die
        with the namespace. Found from the init down, never by a stub's command line (a bot could
        write its stub's); if the Sentry is not found exactly once, everything stays frozen.
        """
        if self.sandbox_pid is None or self.cgroup is None or not self.cgroup.has("freeze"):
            return
        helpers: list[int] = []
        sentries: list[int] = []
        todo = [self.sandbox_pid]
        while todo:
            pid = todo.pop()
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    argv0 = fh.read().split(b"\0", 1)[0]
            except OSError:
                continue
            if argv0 == b"runsc-sandbox":
                sentries.append(pid)
                continue  # the Sentry and everything below it (the stubs) stay frozen
            helpers.append(pid)
            todo.extend(proctree.children(pid))
        if len(sentries) == 1:
            self.cgroup.unfreezable(helpers)

    def _read_sandbox_pid(self, timeout: float = 2.0) -> None:
        """Take the sandbox init's pid from bwrap's --json-status-fd and hold a pidfd on it."""
        assert self._status_fd is not None
        deadline = time.monotonic() + timeout
        decoder = json.JSONDecoder()
        poller = select.poll()
        poller.register(self._status_fd, _POLLIN)
        while True:
            text = self._status_buf.decode("utf-8", "replace").lstrip()
            try:
                doc, _ = decoder.raw_decode(text)
            except ValueError:
                doc = None
            if isinstance(doc, dict) and "child-pid" in doc:
                pid = int(doc["child-pid"])
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not poller.poll(remaining * 1000):
                raise HarnessError("bwrap did not report its child pid")
            chunk = os.read(self._status_fd, 4096)
            if not chunk:
                raise HarnessError("bwrap closed its status pipe without a child pid")
            self._status_buf += chunk
        try:
            pidfd = os.pidfd_open(pid)
        except ProcessLookupError:
            return  # the bot already ended (after the ready byte): its own doing, seen as BotExited
        # Guard against pid reuse: the pid must still be a child of our bwrap.
        fields = proctree._stat_fields(pid)
        if fields is None or int(fields[1]) != self.pid:
            os.close(pidfd)
            if fields is None or self._popen.poll() is not None:
                return  # ended meanwhile, as above
            raise HarnessError(f"sandbox init {pid} vanished before it could be tracked")
        self.sandbox_pid = pid
        self._pidfd = pidfd


def _check_limits(level: Level, limits: Limits, cgroup: BotCgroup | BotCgroupV2 | None, allow_unlimited: bool) -> None:
    """Refuse untrusted bots without a tree-wide memory cap and a process cap (unless allowed)."""
    if allow_unlimited or level not in (Level.BWRAP, Level.GVISOR):
        return
    missing = []
    if limits.memory_bytes is None:
        missing.append("memory_bytes is null")
    elif not (cgroup and cgroup.has("memory")):
        missing.append("no writable memory cgroup to cap the bot's whole process tree")
    if limits.max_processes is None:
        missing.append("max_processes is null")
    if missing:
        raise SandboxUnavailable(
            "refusing to start an untrusted bot without memory and process limits ("
            + "; ".join(missing) + "); pass allow_unlimited=True to run anyway")


def _base_env(level: Level, scratch: Path | None, extra: Mapping[str, str] | None) -> dict[str, str]:
    """A cleared environment: PATH, LANG, HOME, TMPDIR, plus the caller's explicit extras."""
    inside = level in (Level.BWRAP, Level.GVISOR)
    env = {
        "PATH": bw.SANDBOX_PATH if inside else os.environ.get("PATH", bw.SANDBOX_PATH),
        "LANG": os.environ.get("LANG", _DEFAULT_LANG),
        "HOME": bw.SCRATCH_MOUNT if inside else str(scratch),
        "TMPDIR": "/tmp" if inside else str(scratch),
    }
    if extra:
        env.update({str(k): str(v) for k, v in extra.items()})
    return env


def _pipe_with(data: bytes) -> int:
    """Read end of a pipe already holding `data` (small: fits the pipe buffer)."""
    r, w = os.pipe()
    try:
        os.write(w, data)
    finally:
        os.close(w)
    return r


def _bot_view(listing: FolderListing, root_host: bool) -> tuple[str | None, list[tuple[str, bool]]]:
    """The readable copy to bind instead of the walked bot folder (a root
    harness, a folder with private modes), and the caches to hide from the bot."""
    if root_host and not listing.world_readable:
        return readable_copy(listing), []  # the copy holds no caches
    return None, [(p, os.path.isdir(p)) for p in listing.caches]


def _stage_binds(paths: list[str], first: int = 0) -> list[StageBind]:
    return [StageBind(p, str(STAGE_DIR / str(i)), os.path.isdir(p)) for i, p in enumerate(paths, first)]


@dataclass
class _Held:
    """What a launch holds before its bot runs; `release` gives it all back if the launch fails."""

    cgroup: BotCgroup | BotCgroupV2 | None = None
    lease: UidLease | None = None
    scratch: Path | None = None
    copies: list[str] = field(default_factory=list)
    status_r: int | None = None
    fds: list[int] = field(default_factory=list)  # the child's ends: closed once it is spawned
    area: LaunchArea | None = None

    def close_child_fds(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds = []

    def release(self) -> None:
        self.close_child_fds()
        if self.status_r is not None:
            os.close(self.status_r)
        if self.cgroup:
            try:
                self.cgroup.destroy()
            except HarnessError:
                pass
        if self.lease:
            self.lease.release()
        if self.scratch:
            remove_tree(self.scratch)
        for copy in self.copies:
            remove_tree(Path(copy).parent)
        if self.area:
            self.area.close()


def _gvisor_view(cmd: list[str], bot_dir: str, listing: FolderListing, extra_ro_paths: Sequence[str],
                 programs: Sequence[str]) -> tuple[rt.Runtime, tuple[str, ...], list[str]]:
    """What a bot at gvisor sees: the runtime to image (shared, resident), the folders the
    caller vouches for, and the folders to copy privately (its libraries). Only system folders
    and the folders the caller names are looked at on the host."""
    interp_roots = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))}
    host_listed = [os.path.realpath(p) for p in bw.host_ro_paths()]
    extra = [os.path.abspath(p) for p in extra_ro_paths]
    allowed = tuple(dict.fromkeys([bot_dir, *interp_roots, *host_listed, *extra]))
    runtime = rt.Runtime(trees=set(host_listed))
    rt.program_runtime("/bin/sh", runtime)  # the ready step
    if cmd[0] == sys.executable:
        cmd[0] = os.path.realpath(cmd[0])  # the harness's interpreter runs as its base, as at bwrap
    exe = cmd[0]
    program: str | None
    if "/" not in exe:
        program = rt.find_in_view(exe, [*host_listed, *extra])
        if program and not rt.under(program, rt.VIEW_PATH):
            cmd[0] = program  # found in a folder the host lists: not on the sandbox's own PATH
    elif not exe.startswith("/"):
        program = os.path.join(bot_dir, exe)
    else:
        program = exe if rt.system_path(exe) or rt.under(exe, allowed) else None
    real = rt.program_runtime(program, runtime, allowed) if program else None
    if program and rt.is_python(program):
        cfg = os.path.join(os.path.dirname(os.path.dirname(program)), "pyvenv.cfg")
        if rt.under(cfg, allowed) and os.path.isfile(cfg):
            runtime.files.add(cfg)  # a venv's interpreter: the venv's marker, not its packages
    for name in programs:  # programs the bot runs besides its command (a launcher script's java)
        found = rt.find_in_view(name) if "/" not in name else name if rt.system_path(name) else None
        if found:
            rt.program_runtime(found, runtime, allowed)
    bot_elves = []
    for rel, path, _size in listing.files:
        if os.path.basename(rel) == "pyvenv.cfg":
            rt.venv_base(path, runtime, allowed)
        elif rt.elf_info(path) is not None:
            bot_elves.append(path)
    rt.elf_closure(bot_elves, runtime, allowed)
    copies: list[str] = []
    for path in extra:
        if rt.system_path(path) or path in host_listed:
            continue  # the system view is the runtime's closure; host-listed folders are imaged
        if path in interp_roots or rt.under(exe, [path]) or (real and rt.under(real, [path])):
            continue  # the interpreter's own prefix: its runtime brings what it needs
        if os.path.exists(path):
            copies.append(path)
    private = [bot_dir, *copies]
    runtime.files = {f for f in runtime.files if not rt.under(f, private)}
    runtime.trees = {t for t in runtime.trees if not rt.under(t, private)}
    runtime.links = {k: v for k, v in runtime.links.items() if not rt.under(k, private)}
    return runtime, allowed, copies


#: Folders of a runtime image copied into each launch's root rather than bound, when at most
#: `ROOT_COPY_BYTES`: /etc is the loader cache, passwd, the time zone, alternatives and CA
#: certificates (70-700 KiB measured), a few ms to copy against a bind's cost at every decision.
ROOT_COPIED = ("/etc",)
ROOT_COPY_BYTES = 8 << 20


def _gvisor_inputs(facts: PlanInputs, held: _Held, *, listing: FolderListing, runsc: str,
                   extra_ro_paths: Sequence[str | os.PathLike[str]], programs: Sequence[str],
                   env: Mapping[str, str] | None, uid_range: UidRange | None) -> PlanInputs:
    """The facts of a gvisor launch: the runtime image, the launch area with its private copies
    and scratch, the OCI bundle, the uid, runsc's command line."""
    cmd = list(facts.cmd)
    bot_dir = facts.bot_dir
    limits = facts.limits
    from . import bytecode as bc
    from .image import LaunchArea, runtime_image

    runtime, allowed, libraries = _gvisor_view(cmd, bot_dir, listing, [str(p) for p in extra_ro_paths], programs)  # may rewrite cmd[0]
    image = runtime_image(runtime, allowed)
    lib_listings = []
    for path in libraries:
        try:
            lib_listings.append((path, walk_folder(path) if os.path.isdir(path) else None))
        except FolderRefused as exc:
            raise HarnessError(f"a library folder of the harness cannot be copied for the bot: {exc}") from exc
    # The image's small folders (its /etc) and the private copies go into the launch's own root,
    # not bound: each bind is a connection to runsc's file server on which the Sentry keeps a
    # thread waiting, and every freeze and thaw of the seat wakes each such thread (10-20 us a
    # decision each, docs/sandbox.md). A copy a mount would hide there (under /tmp, say) is bound.
    in_root = {m: image.size(m) for m in image.mounts if m in ROOT_COPIED}
    in_root = {m: size for m, size in in_root.items() if size[0] <= ROOT_COPY_BYTES}
    privates = [*libraries, bot_dir]
    hidden = [*gv.KERNEL_MOUNTS, *image.mounts, *(link for link, _ in image.top_links)]

    def rooted(path: str) -> bool:
        return not rt.under(path, hidden) and not any(
            other != path and (rt.under(other, [path]) or rt.under(path, [other])) for other in privates)

    # each copied library's modules compiled by the harness (checked-hash pycs, arena.sandbox.bytecode):
    # the seat's interpreter no longer compiles them inside gVisor at every start. Not the bot's own
    # folder: the bot sees exactly its files there
    pycs = {path: bc.folder_pycs(lst, path) for path, lst in lib_listings if lst is not None}
    pyc_bytes = sum(bc.pycs_size(p)[0] for p in pycs.values())
    pyc_entries = sum(bc.pycs_size(p)[1] for p in pycs.values())
    copy_bytes = pyc_bytes + sum(size for _, _, size in listing.files) + sum(
        (sum(s for _, _, s in lst.files) if lst else os.path.getsize(p)) for p, lst in lib_listings) + sum(
        b for b, _ in in_root.values())
    copy_entries = pyc_entries + len(listing.files) + len(listing.empty_dirs) + sum(
        (len(lst.files) + len(lst.empty_dirs)) if lst else 1 for _, lst in lib_listings) + sum(
        n for _, n in in_root.values()) + sum(p.count("/") for p in privates) + 64
    if facts.root:
        held.lease = lease_uid(uid_range)
    uid = held.lease.uid if held.lease else None
    held.area = area = LaunchArea.create(copy_bytes=copy_bytes, copy_entries=copy_entries, uid=uid)
    binds: list[tuple[str, str]] = []
    for m in image.mounts:
        if m in in_root:
            area.copy_image_folder(image, m)
        else:
            binds.append((image.source(m), m))
    for path, lst in [*lib_listings, (bot_dir, listing)]:
        if lst is None:
            dest = area.in_root(path) if rooted(path) else area.path / "copies" / f"file-{len(binds)}"
            shutil.copyfile(path, dest)
            os.chmod(dest, 0o644)
            if not rooted(path):
                binds.append((str(dest), path))
        elif rooted(path):
            area.copy_into_root(path, lst, pycs.get(path, {}))
        else:
            binds.append((area.copy_folder(path, lst, pycs.get(path, {})), path))
    for link, target in image.top_links:
        os.symlink(target, area.path / "rootfs" / link.lstrip("/"))
    config = gv.bundle_config(args=inside_argv(tuple(cmd)), env=_base_env(Level.GVISOR, None, env), cwd=bot_dir,
                              limits=limits, ro_binds=sorted(binds, key=lambda b: b[1].count("/")))
    (area.path / "config.json").write_text(json.dumps(config, indent=1))
    # the container's name must be unique on the host: runsc names its control socket after it
    argv = gv.runsc_argv(runsc, state=str(area.path / "state"), bundle=str(area.path),
                         container=f"cinch-{area.path.name[-16:]}")
    return dataclasses.replace(facts, uid=uid, runsc=tuple(argv), env=host_env(_HOST_ENV))


def _bwrap_inputs(facts: PlanInputs, held: _Held, *, bare: bool, listing: FolderListing, bwrap_bin: str,
                  extra_ro_paths: Sequence[str | os.PathLike[str]], env: Mapping[str, str] | None,
                  uid_range: UidRange | None) -> PlanInputs:
    """The facts of a bwrap launch: what is bound, what root stages, the uid, the descriptors."""
    cmd = list(facts.cmd)
    bot_dir = facts.bot_dir
    limits = facts.limits
    extra = [os.path.realpath(p) for p in [*extra_ro_paths, *bw.host_ro_paths()]]
    # Only the harness's own interpreter, or a bare name found on the sandbox's own PATH, is
    # looked at on the host (for the install folder it needs); any other path a manifest names
    # is left to the sandbox's ready step, which looks it up in the bot's view only.
    program = cmd[0] if cmd[0] == sys.executable else rt.find_in_view(cmd[0], extra) if bare else None
    if program is not None:
        dir_ = bw.command_dir(os.path.realpath(program), bare=bare)
        if dir_:
            extra.insert(0, dir_)
        if program == sys.executable:
            cmd[0] = os.path.realpath(program)
        elif not rt.under(program, rt.VIEW_PATH):
            cmd[0] = program  # found in a folder the host lists: not on the sandbox's own PATH
    copy, hide = _bot_view(listing, facts.root)
    if copy is not None:
        held.copies.append(copy)
    staged: dict[str, str] = {bot_dir: copy} if copy is not None else {}
    binds: list[StageBind] = []
    exec_path = None
    scratch: ScratchMount | None = None
    if facts.root:
        held.lease = lease_uid(uid_range)
        hidden = [p for p in dict.fromkeys([*extra, bot_dir]) if not world_reachable(staged.get(p, p))]
        binds = _stage_binds([staged.get(p, p) for p in hidden])
        staged.update({p: b.dst for p, b in zip(hidden, binds)})
        home = bw.exec_root(bwrap_bin)
        if not world_reachable(home):  # the bot's uid execs bwrap: it must read it and its libraries
            binds += _stage_binds([home], len(binds))
            exec_path = binds[-1].dst + bwrap_bin[len(home):]
        scratch = ScratchMount(limits.scratch_bytes, limits.scratch_inodes, held.lease.uid)
        STAGE_DIR.mkdir(mode=0o755, parents=True, exist_ok=True)
    held.status_r, status_w = os.pipe()
    held.fds.append(status_w)
    seccomp_fd = _pipe_with(filter_bytes())
    held.fds.append(seccomp_fd)
    data_fds = {name: _pipe_with(data) for name, data in bw.proc_fakes(limits.memory_bytes).items()}
    held.fds += data_fds.values()
    bwrap_argv = bw.build_argv(bwrap_bin, bot_dir=bot_dir, extra_ro=extra, status_fd=status_w,
                               seccomp_fd=seccomp_fd, data_fds=data_fds, scratch_bytes=limits.scratch_bytes,
                               env=_base_env(Level.BWRAP, None, env), staged=staged, hide=hide,
                               exec_path=exec_path, scratch_src=str(STAGE_DIR) if scratch else None)
    return dataclasses.replace(facts, cmd=tuple(cmd), uid=held.lease.uid if held.lease else None,
                               stage=tuple(binds), scratch=scratch, bwrap=tuple(bwrap_argv),
                               env=host_env(_HOST_ENV), pass_fds=tuple(held.fds))


def launch(
    argv: Sequence[str],
    *,
    bot_dir: str | os.PathLike[str],
    level: Level | str = Level.BWRAP,
    limits: Limits | None = None,
    env: Mapping[str, str] | None = None,
    scratch_root: str | os.PathLike[str] | None = None,
    bwrap_path: str | os.PathLike[str] | None = None,
    extra_ro_paths: Sequence[str | os.PathLike[str]] = (),
    ready_timeout: float = 10.0,
    uid_range: UidRange | None = None,
    allow_unlimited: bool = False,
    wait_ready: bool = True,
    programs: Sequence[str] = (),
    runsc_path: str | None = None,
) -> BotProcess:
    """Start `argv` in `bot_dir` at the given isolation level.

    Gathers the facts (resolved command, cgroup, leased uid, staging,
    descriptors), makes the plan (`plan.plan_launch`, pure) and runs it
    (`plan.run_plan`). Returns once the sandbox is set up and the bot's
    exec is under way; with `wait_ready=False` it returns as soon as the
    process is spawned and `BotProcess.wait_ready()` finishes the job (so
    several sandboxes can be set up side by side; its first read waits for
    it anyway). Raises SandboxUnavailable if `level` cannot run here (or
    would run an untrusted bot without memory and process limits and
    `allow_unlimited` is not set), FolderRefused (a BotFault) for a bot
    folder the harness will not read, CommandNotFound (a bot fault: its
    manifest's mistake) if the command names no program, HarnessError for any other failure
    before the bot starts. Levels rlimit and none warn (UncontainedWarning).
    """
    level = Level(level)
    limits = limits or Limits()
    bot_dir_s = os.path.realpath(bot_dir)
    if not os.path.isdir(bot_dir_s):
        raise HarnessError(f"bot folder {bot_dir_s!r} does not exist")
    bare = bool(argv) and "/" not in str(argv[0])
    cmd = _resolve_command(argv, bot_dir_s, level)
    listing = walk_folder(bot_dir_s)  # FolderRefused at every level: the same folder is refused everywhere
    bwrap_bin = bw.check_bwrap(bw.find_bwrap(bwrap_path)) if level is Level.BWRAP else None
    runsc_bin = gv.find_runsc(runsc_path) if level is Level.GVISOR else None
    if runsc_bin is not None:
        gv.runsc_version(runsc_bin)
    if level not in (Level.BWRAP, Level.GVISOR):
        warnings.warn(UncontainedWarning(
            f"level {level.value}: the bot runs without namespaces, syscall filter or its own uid; "
            "use it only for trusted bots"), stacklevel=2)
    held = _Held()
    try:
        if level in (Level.RLIMIT, Level.NONE):  # contained levels keep their scratch inside
            root = Path(scratch_root) if scratch_root is not None else default_scratch_root()
            root.mkdir(mode=0o700, parents=True, exist_ok=True)
            held.scratch = Path(tempfile.mkdtemp(prefix="scratch-", dir=root))
        if level is not Level.NONE:
            judge.watch()  # before the group exists: no group of ours outlives this process
        if level is Level.GVISOR:  # the cgroup holds the bot's kernel too
            held.cgroup = create_cgroup(gv.host_limits(limits))
        elif level is not Level.NONE:
            held.cgroup = create_cgroup(limits)
        cgroup = held.cgroup
        _check_limits(level, limits, cgroup, allow_unlimited)
        prlimit = shutil.which("prlimit") if level is not Level.NONE else "prlimit"
        if prlimit is None:
            raise HarnessError("prlimit (util-linux) is needed to apply limits but was not found")
        facts = PlanInputs(level=level, cmd=tuple(cmd), bot_dir=bot_dir_s, limits=limits, prlimit=prlimit,
                           memory_cgroup=bool(cgroup and cgroup.has("memory")),
                           pids_cgroup=bool(cgroup and cgroup.has("pids")),
                           cgroup_join=cgroup.join_script() if cgroup and cgroup.paths else "",
                           root=os.geteuid() == 0, stage_dir=str(STAGE_DIR),
                           env=host_env(_base_env(level, held.scratch, env)))
        if bwrap_bin is not None:
            facts = _bwrap_inputs(facts, held, bare=bare, listing=listing, bwrap_bin=bwrap_bin,
                                  extra_ro_paths=extra_ro_paths, env=env, uid_range=uid_range)
        if runsc_bin is not None:
            facts = _gvisor_inputs(facts, held, listing=listing, runsc=runsc_bin, extra_ro_paths=extra_ro_paths,
                                   programs=programs, env=env, uid_range=uid_range)
        started = time.monotonic()
        try:
            popen = run_plan(plan_launch(facts))
        finally:
            held.close_child_fds()
    except BaseException:
        held.release()
        raise
    bot = BotProcess(popen, level=level, limits=limits, scratch_dir=held.scratch, cgroup=held.cgroup,
                     status_fd=held.status_r, started_at=started)
    bot.uid_lease = held.lease
    bot.area = held.area
    bot.command = str(argv[0])
    bot._copies = [Path(c).parent for c in held.copies]
    bot._ready_timeout = ready_timeout
    if level is Level.NONE:
        bot.ready_at = started
    elif wait_ready:
        bot.wait_ready()
    return bot

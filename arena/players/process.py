"""A bot process as a seat's player: protocol, time control and fault verdicts.

Time is judged on the bot's own CPU time (its whole process tree) with a
wall-clock ceiling, and the bot is frozen while not on move, so running as
many matches as cores does not make a well-behaved bot lose on time.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from ..engine import action_from_dict
from ..protocol import PROTOCOL_VERSIONS, ActionReply, HelloReply, MalformedMessage, decode_from_bot
from ..sandbox import BotExited, BotProcess, Level, LimitsError, LineTooLong, ReadTimeout, WriteTimeout, launch
from ..match.settings import MatchSettings
from .base import Decision, Fault, Player, PlayerReport
from .manifest import LIBRARY_PATHS, BotEntry

HARNESS_NAME = "cinch-arena"
_POLL_S = 0.05
_HARD_WALL_FACTOR = 10  # even a starved machine cannot hold a decision longer than this
_REPLY_KEEP = 2000


def _text(line: bytes) -> str:
    return line[:_REPLY_KEEP].decode(errors="replace")


def _harness_version() -> str:
    from .. import __version__

    return f"{HARNESS_NAME} {__version__}"


def bot_launch_args(entry: BotEntry) -> tuple[list[str], dict[str, str], list[str]]:
    """argv, environment and extra read-only paths for one bot.

    ``{python}`` is the harness's own interpreter; the libraries a manifest
    asks for are mounted read-only and put on PYTHONPATH.
    """
    m = entry.manifest
    uses_python = any("{python}" in a for a in m.command)
    argv = [a.replace("{python}", sys.executable) for a in m.command]
    ro: list[str] = []
    pypath: list[str] = []
    if uses_python:
        ro += sorted({sys.prefix, sys.base_prefix, os.path.realpath(sys.executable).rsplit("/bin/", 1)[0]})
    for lib in m.libraries:
        path = LIBRARY_PATHS[lib]
        ro.append(str(path))
        pypath.append(str(path) if lib == "sdk" else str(path.parents[1]))
        if lib == "engine":  # the engine needs pydantic, from the harness's own environment
            import pydantic

            site = str(Path(pydantic.__file__).resolve().parents[1])
            ro.append(site)
            pypath.append(site)
    env = dict(m.env)
    if pypath:
        env["PYTHONPATH"] = os.pathsep.join(pypath)
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    return argv, env, ro


class ProcessPlayer(Player):
    """One bot process for one game. ``start()`` launches it and shakes hands.

    A failure to launch (the sandbox could not start) raises ``HarnessError``
    from ``start``: that is the harness's failure, never the bot's.
    """

    def __init__(
        self,
        entry: BotEntry,
        seed: int,
        settings: MatchSettings,
        *,
        scratch_root: str | None = None,
        bwrap_path: str | None = None,
    ) -> None:
        self.entry = entry
        self.name = entry.manifest.name
        self.version = entry.manifest.version
        self.seed = seed
        self.settings = settings
        self.t = settings.time
        self.bank_s = self.t.bank_ms / 1000
        self._scratch_root = scratch_root
        self._bwrap_path = bwrap_path
        self.proc: BotProcess | None = None
        self._dead: Fault | None = None
        self._cpu_mark = 0.0
        self._write_timeout = max(self.t.decision_ms / 1000, 1.0)
        self._sched_fd: int | None = None
        self._report = PlayerReport(self.name, self.version)
        #: What the bot left that resisted cleanup (BotProcess.trouble): evidence against it.
        self.cleanup_trouble: list[str] = []

    @property
    def alive(self) -> bool:
        return self._dead is None

    def start(self) -> Fault | None:
        argv, env, ro = bot_launch_args(self.entry)
        try:
            limits = self.settings.limits_for(self.entry.manifest.limits)
        except LimitsError as e:  # the bot's own manifest asks for more than the competition allows
            return self._die(Fault("protocol", f"bot.yaml {e}"))
        t0 = time.monotonic()
        self.proc = launch(
            argv,
            bot_dir=self.entry.dir,
            level=self.settings.sandbox,
            limits=limits,
            env=env,
            scratch_root=self._scratch_root,
            bwrap_path=self._bwrap_path,
            extra_ro_paths=ro,
        )
        hello = {"type": "hello", "protocol": list(PROTOCOL_VERSIONS), "seed": self.seed, "harness": _harness_version()}
        fault = self._send(hello)
        if fault:
            return self._die(fault)
        budget = self.t.startup_ms / 1000 - (time.monotonic() - t0)
        try:
            line = self.proc.read_line(max(budget, 0.001))
        except ReadTimeout:
            return self._die(Fault("timeout", f"no handshake within the start-up allowance of {self.t.startup_ms} ms", hello))
        except (BotExited, LineTooLong) as e:
            return self._die(self._io_fault(e, hello))
        self._report.startup_ms = (time.monotonic() - t0) * 1000
        try:
            reply = decode_from_bot(line)
        except MalformedMessage as e:
            return self._die(Fault("malformed", f"handshake: {e}", hello, _text(line)))
        if not isinstance(reply, HelloReply):
            return self._die(Fault("protocol", f"expected a hello reply, got {reply.type!r}", hello, _text(line)))
        if reply.protocol not in PROTOCOL_VERSIONS:
            reason = (
                f"protocol version {reply.protocol} is not supported: this harness speaks versions"
                f" {list(PROTOCOL_VERSIONS)}"
            )
            self._send({"type": "bye", "reason": reason})
            return self._die(Fault("protocol", reason, hello, _text(line)))
        self._report.version = reply.version
        self._cpu_mark = self._cpu()
        self._pause()
        return None

    def notify(self, msg: dict[str, Any]) -> Fault | None:
        if self._dead or self.proc is None:
            return None
        return self._send(msg)

    def decide(self, request: dict[str, Any]) -> Decision:
        if self._dead or self.proc is None:
            return Decision(None, Fault("crash", "the bot is no longer running", request))
        proc = self.proc
        limit = min(self.t.decision_ms / 1000, self.bank_s)
        ceiling = limit * self.t.wall_factor + 0.05
        request = {**request, "time_left_ms": int(self.bank_s * 1000), "decision_ms": self.t.decision_ms}
        cpu0 = self._cpu_mark  # CPU used since the last reply (pondering) is charged here
        t0 = time.monotonic()
        fault = self._send(request)
        if fault:
            return Decision(None, self._die(fault))
        delay0 = self._run_delay()
        line: bytes | None = None
        while line is None:
            try:
                line = proc.read_line(_POLL_S)
            except ReadTimeout:
                used = self._cpu() - cpu0
                wall = time.monotonic() - t0
                # Time the bot spent runnable but waiting for a core is the
                # machine's doing, not the bot's: it does not count against it.
                waited = wall - (self._run_delay() - delay0)
                if used > limit or waited >= ceiling or wall >= ceiling * _HARD_WALL_FACTOR:
                    return Decision(None, self._die(self._timeout(request, used, wall, limit)))
            except (BotExited, LineTooLong) as e:
                return Decision(None, self._die(self._io_fault(e, request)))
        wall = time.monotonic() - t0
        now = self._cpu()
        used = now - cpu0
        self._cpu_mark = now
        self._pause()
        self.bank_s -= used
        self._report.latencies_ms.append(wall * 1000)
        self._report.cpu_ms.append(used * 1000)
        if used > limit:
            return Decision(None, self._die(self._timeout(request, used, wall, limit)), wall, used, line)
        try:
            reply = decode_from_bot(line)
        except MalformedMessage as e:
            return self._reject(Fault("malformed", str(e), request, _text(line)), wall, used, line)
        if not isinstance(reply, ActionReply):
            fault = Fault("protocol", f"expected an action reply, got {reply.type!r}", request, _text(line))
            return self._reject(fault, wall, used, line)
        if reply.id != request["id"]:
            fault = Fault("protocol", f"reply id {reply.id} does not answer request {request['id']}", request, _text(line))
            return self._reject(fault, wall, used, line)
        try:
            action = action_from_dict(vars(reply.action))  # unset fields are None, which it ignores
        except ValueError as e:
            return Decision(None, Fault("illegal", f"unreadable action: {e}", request, _text(line)), wall, used, line)
        return Decision(action, None, wall, used, line)

    def _reject(self, fault: Fault, wall: float, used: float, line: bytes) -> Decision:
        """A reply that breaks the protocol: the stream cannot be trusted any more."""
        return Decision(None, self._die(fault), wall, used, line)

    def close(self) -> PlayerReport:
        if self._sched_fd is not None:
            os.close(self._sched_fd)
            self._sched_fd = None
        if self.proc is not None:
            if self._dead is None:
                self._send({"type": "bye", "reason": None})
            self.proc.close()
            self.cleanup_trouble = list(self.proc.trouble)
            self._report.stderr = self.proc.stderr_text()
            self._report.stderr_dropped = self.proc.stderr_dropped
            self.proc = None
        return self._report

    # -- helpers -------------------------------------------------------------
    def _run_delay(self) -> float:
        """Seconds the bot's main thread has spent waiting for a CPU (schedstat)."""
        fd = self._sched_fd
        if fd is None:
            if self.proc is None:
                return 0.0
            try:
                fd = self._sched_fd = os.open(f"/proc/{self.proc.sandbox_pid or self.proc.pid}/schedstat", os.O_RDONLY)
            except OSError:
                return 0.0
        try:
            return int(os.pread(fd, 128, 0).split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return 0.0

    def _cpu(self) -> float:
        """The clock time limits are judged on: the bot tree's CPU time, or
        wall time at level ``none`` (trusted bots; no cheap tree accounting)."""
        if self.settings.sandbox is Level.NONE:
            return time.monotonic()
        assert self.proc is not None
        return self.proc.cpu_time()

    def _send(self, msg: dict[str, Any]) -> Fault | None:
        assert self.proc is not None
        self._resume()
        try:
            data = (json.dumps(msg, separators=(",", ":")) + "\n").encode()
            self.proc.write_line(data, timeout=self._write_timeout)
        except (BotExited, WriteTimeout) as e:
            return self._io_fault(e, msg)
        return None

    def _pause(self) -> None:
        if self.t.pause_idle and self.proc is not None and self.settings.sandbox is not Level.NONE:
            self.proc.pause()

    def _resume(self) -> None:
        if self.proc is not None and self.proc.paused:
            self.proc.resume()

    def _die(self, fault: Fault) -> Fault:
        """After a timeout, crash or garbled stream the bot cannot be trusted to go on."""
        self._dead = fault
        if self.proc is not None:
            self.proc.kill()
        return fault

    def _timeout(self, request: dict[str, Any], cpu: float, wall: float, limit: float) -> Fault:
        what = "the game's time bank" if limit < self.t.decision_ms / 1000 else f"the {self.t.decision_ms} ms decision limit"
        return Fault("timeout", f"exceeded {what}: {cpu * 1000:.0f} ms CPU, {wall * 1000:.0f} ms wall", request)

    def _io_fault(self, e: Exception, msg: dict[str, Any]) -> Fault:
        if isinstance(e, LineTooLong):
            return Fault("protocol", str(e), msg)
        if isinstance(e, WriteTimeout):
            return Fault("timeout", f"the bot stopped reading its input: {e}", msg)
        proc = self.proc
        status = getattr(e, "exit_status", None)
        detail = f"exit status {status}" if status is not None else "no exit status yet"
        if proc is not None and proc.memory_limit_hit():
            detail += ", killed at its memory limit"
        return Fault("crash", f"the bot exited ({detail})", msg)

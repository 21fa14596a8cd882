"""A scripted bot for protocol tests: no process, no sandbox, no timing luck.

Like python-chess's mock transport, the test states what the harness must
send, in order, and what the bot answers to each message::

    bot = MockTransport()
    bot.expect("hello", {"type": "hello", "protocol": 1, "name": "m"})
    bot.expect("game").expect("deal")
    bot.expect("decide", lambda req: {"type": "action", "id": req["id"], "action": {...}}, cpu_ms=3)
    player = ProcessPlayer(entry, 1, time, spec, launcher=bot.launcher)

A message the script does not expect raises ``AssertionError`` at once. A
step may instead make the bot hang (``hang=True``: it burns CPU while it is
waited for), exit (``exit_status=...``) or send raw bytes (``raw=b"..."``).
"""

from __future__ import annotations

import json
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Union

from .._json import JsonObject
from ..sandbox import BotExited, Limits, LineTooLong, ReadTimeout
from .transport import Transport, TransportReport

#: What the scripted bot answers: a message, or one made from the message it got (JSON objects).
Reply = Union[JsonObject, Callable[[JsonObject], JsonObject], None]


@dataclass
class _Step:
    kind: str
    reply: Reply
    raw: bytes | None
    cpu_ms: float
    hang: bool
    spin: bool
    exit_status: int | None
    stderr: str
    delay_ms: float = 0.0
    waited_ms: float = 0.0
    waited_at_end: bool = False


class MockTransport:
    """A ``Transport`` that follows a script; ``sent`` keeps every message received."""

    def __init__(self, max_line_bytes: int = 1 << 20) -> None:
        self._script: deque[_Step] = deque()
        self._out: deque[bytes] = deque()
        self.sent: list[JsonObject] = []
        #: For each message of ``sent``: was the bot running (not paused) when it arrived.
        self.running: list[bool] = []
        self._cpu = 0.0
        self._exited: int | None = None
        self._hang: _Step | None = None
        self._stderr = ""
        self._paused = False
        self._closed = False
        self._ready_at = 0.0  # when the pending reply of a delayed step becomes readable
        self._delayed: _Step | None = None
        self._delay_from = 0.0
        self._waited = 0.0  # run_delay of the finished delays
        self.max_line_bytes = max_line_bytes
        self.launched: tuple[list[str], dict[str, str], list[str], str] | None = None
        self.halted = False
        #: The bot has lowered its own priority (a thread's nice, its autogroup): see ``lowered``.
        self.lowered_priority = False

    # -- the script ----------------------------------------------------------
    def expect(self, kind: str, reply: Reply = None, *, raw: bytes | None = None, cpu_ms: float = 0.0,
               hang: bool = False, spin: bool = True, exit_status: int | None = None,
               stderr: str = "", delay_ms: float = 0.0, waited_ms: float = 0.0,
               waited_at_end: bool = False) -> "MockTransport":
        """The harness must next send a message of type ``kind``; then the bot does what the step says.

        ``delay_ms``: the reply comes that long after the message (wall clock; with ``spin`` the bot
        burns CPU meanwhile, else it sleeps); ``waited_ms`` of that delay it spent waiting for a core
        (a busy machine: its ``run_delay`` grows in step with the delay, or with ``waited_at_end`` all
        at once when the reply comes, as the kernel counts it: when the thread gets a core)."""
        self._script.append(_Step(kind, reply, raw, cpu_ms, hang, spin, exit_status, stderr, delay_ms, waited_ms,
                                  waited_at_end))
        return self

    def assert_done(self) -> None:
        if self._script:
            raise AssertionError(f"the harness never sent: {[s.kind for s in self._script]}")

    def launcher(self, argv: list[str], env: dict[str, str], ro: list[str], bot_dir: str, limits: Limits) -> Transport:
        """Use as ``ProcessPlayer(..., launcher=mock.launcher)``."""
        self.launched = (argv, env, ro, bot_dir)
        return self

    # -- the transport -------------------------------------------------------
    def wait_ready(self) -> None:
        pass

    def write_line(self, data: bytes, timeout: float = 5.0) -> None:
        """One line, or several written at once (each is a step of the script)."""
        lines = data.splitlines()
        if len(lines) > 1:
            for line in lines:
                self.write_line(line, timeout)
            return
        if self._exited is not None or self._closed:
            raise BotExited("bot closed its stdin", self._exited)
        msg = json.loads(data)
        self.sent.append(msg)
        self.running.append(not self._paused)
        if not self._script:
            raise AssertionError(f"the harness sent an unexpected {msg.get('type')!r} message: {msg}")
        step = self._script.popleft()
        if step.kind != msg.get("type"):
            raise AssertionError(f"expected a {step.kind!r} message, the harness sent {msg.get('type')!r}: {msg}")
        self._cpu += step.cpu_ms / 1000
        self._stderr += step.stderr
        if step.exit_status is not None:
            self._exited = step.exit_status
        elif step.hang:
            self._hang = step
        elif step.raw is not None:
            self._out.append(step.raw)
        elif step.reply is not None:
            reply = step.reply(msg) if callable(step.reply) else step.reply
            self._out.append(json.dumps(reply).encode())
        if step.delay_ms and self._out:
            self._delay_from = time.monotonic()
            self._ready_at = self._delay_from + step.delay_ms / 1000
            self._delayed = step

    def read_line(self, timeout: float) -> bytes:
        step = self._delayed
        if step is not None:
            now = time.monotonic()
            if now < self._ready_at:
                time.sleep(min(timeout, self._ready_at - now))
                if step.spin:
                    self._cpu += min(timeout, self._ready_at - now)
                if time.monotonic() < self._ready_at:
                    raise ReadTimeout(f"no line within {timeout}s")
            self._waited += step.waited_ms / 1000
            self._delayed = None
        if self._out:
            line = self._out.popleft()
            if len(line) > self.max_line_bytes:
                raise LineTooLong(f"line exceeds limit of {self.max_line_bytes} bytes", self.max_line_bytes)
            return line
        if self._exited is not None:
            raise BotExited("bot exited", self._exited)
        if self._hang is not None and self._hang.spin:
            self._cpu += timeout  # a spinning bot uses all the CPU it waits for
        else:
            time.sleep(timeout)
        raise ReadTimeout(f"no line within {timeout}s")

    def cpu_time(self) -> float:
        return self._cpu

    measures_cpu = True

    def run_delay(self) -> float:
        step = self._delayed
        if step is None or not step.delay_ms or step.waited_at_end:
            return self._waited
        part = min(1.0, (time.monotonic() - self._delay_from) / (step.delay_ms / 1000))
        return self._waited + step.waited_ms / 1000 * part

    def tree_run_delay(self) -> float:
        return self.run_delay()

    def runnable(self) -> bool:
        """Running or waiting for a core: a delayed reply that spins or waits for one, a spinning hang."""
        step = self._delayed
        if step is not None and (step.spin or step.waited_ms):
            return True
        return self._hang is not None and self._hang.spin

    def lowered(self) -> bool:
        return self.lowered_priority

    def pause(self) -> None:
        self._paused = True

    def resume(self) -> None:
        self._paused = False

    @property
    def paused(self) -> bool:
        return self._paused

    def memory_limit_hit(self) -> bool:
        return False

    def exit_status(self) -> int | None:
        return self._exited

    def stderr_tail(self, limit: int = 2000) -> str:
        return self._stderr[-limit:]

    def wait_exit(self, timeout: float) -> bool:
        return True  # a script has nothing left to read: it ends at ``bye``

    def halt(self) -> None:
        self.halted = True

    def close(self) -> TransportReport:
        self._closed = True
        return TransportReport(self._stderr, 0)

"""Progress on stderr: blocks done, ETA, games/s, faults and live standings.

On a terminal one line is redrawn in place; otherwise (logs, CI) a line is
printed every ``period`` seconds and once at the end. The tournament seed is
never shown here.

The ETA is honest: the rate is measured from the first block that finished
in this run (start-up, Ray and the first games' warm-up are not a rate), and
until enough blocks have finished after it the ETA says "estimating".
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable, TextIO

from ..results import standings
from .scheduler import LoopEvents
from .task import BlockTask


TTY_PERIOD_S = 0.2


def clock(seconds: float) -> str:
    s = int(max(seconds, 0))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Progress(LoopEvents):
    def __init__(self, total: int, already: list[dict[str, Any]], stream: TextIO | None = None,
                 period: float = 5.0, *, parallel: int = 1, now: Callable[[], float] = time.monotonic,
                 listener: Callable[[int, int], None] | None = None) -> None:
        self.total = total
        self.lines = list(already)
        self.start_done = len(already)
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.period = period
        self.parallel = max(1, parallel)
        self.now = now
        self.t0 = now()
        self.first_at: float | None = None  # when the first block of this run finished
        self.last = -1e9
        self.printed = ""
        self.printed_text = ""
        self.failed = 0
        self.retried = 0
        self.extra: str = ""  # e.g. the SPRT's running LLR
        self.listener = listener  # told (done, total) after each stored block: the live site

    @property
    def done(self) -> int:
        return len(self.lines)

    def line(self, line: dict[str, Any]) -> None:
        self.lines.append(line)
        if self.first_at is None:
            self.first_at = self.now()
        self.show()
        if self.listener is not None:
            self.listener(self.done, self.total)

    def failure(self, task: BlockTask, error: str) -> None:
        self.failed += 1
        self.show()

    def retry(self, task: BlockTask, error: str) -> None:
        self.retried += 1

    def notice(self, text: str) -> None:
        """A line of its own (a cluster node refused, lost or joined), then the progress line again."""
        if self.tty:
            self.stream.write("\r\x1b[2K")
        print(f"cluster: {text}", file=self.stream, flush=True)
        if self.tty:
            self.show(force=True)

    def eta(self) -> str:
        """Time left, from the rate since the first finished block; "estimating" until it can say."""
        new = self.done - self.start_done
        left = self.total - self.done - self.failed
        if left <= 0:
            return "0:00"
        since = new - 1  # blocks finished after the first one
        if self.first_at is None or since < max(2, self.parallel):
            return "estimating"
        elapsed = self.now() - self.first_at
        return clock(left * elapsed / since) if elapsed > 0 else "estimating"

    def text(self) -> str:
        elapsed = self.now() - self.t0
        new = self.done - self.start_done
        rate = new / elapsed if elapsed > 0 else 0.0
        faults = sum(len(g["faults"]) for ln in self.lines for g in ln["games"])
        table = " ".join(f"{s.bot} {s.rate:.3f}" for s in standings(self.lines)[:8])
        parts = [
            f"{self.done}/{self.total} blocks",
            f"ETA {self.eta()}",
            f"{2 * rate:.2f} games/s",
            f"faults {faults}",
        ]
        if self.failed or self.retried:
            parts.append(f"harness failures {self.failed} (retries {self.retried})")
        if self.extra:
            parts.append(self.extra)
        return " | ".join(parts) + (f" | provisional: {table}" if table else "")

    def show(self, force: bool = False) -> None:
        now = self.now()
        if self.tty:
            # At most a few redraws a second: the line's standings read every stored block, and a
            # tournament of thousands of blocks on a cluster finishes many per second.
            if force or now - self.last >= TTY_PERIOD_S:
                self.last = now
                self.stream.write("\r\x1b[2K" + self.text()[:200])
                self.stream.flush()
        elif force or now - self.last >= self.period:
            text = self.text()
            head = text.split(" | ")[0]
            if head != self.printed or (force and text != self.printed_text):  # never the same line twice
                self.last, self.printed, self.printed_text = now, head, text
                print(text, file=self.stream, flush=True)

    def finish(self) -> None:
        if self.tty:
            self.show(force=True)
            self.stream.write("\n")
            self.stream.flush()
        else:
            self.show(force=True)

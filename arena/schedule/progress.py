"""Progress on stderr: blocks done, ETA, games/s, faults and live standings.

On a terminal one line is redrawn in place; otherwise (logs, CI) a line is
printed every ``period`` seconds and once at the end. The tournament seed is
never shown here.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from ..results import standings


def _clock(seconds: float) -> str:
    s = int(max(seconds, 0))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Progress:
    def __init__(self, total: int, already: list[dict[str, Any]], stream: TextIO | None = None, period: float = 5.0) -> None:
        self.total = total
        self.lines = list(already)
        self.start_done = len(already)
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.period = period
        self.t0 = time.monotonic()
        self.last = 0.0
        self.printed = ""
        self.failed = 0
        self.retried = 0

    @property
    def done(self) -> int:
        return len(self.lines)

    def add(self, line: dict[str, Any]) -> None:
        self.lines.append(line)
        self.show()

    def fail(self) -> None:
        self.failed += 1
        self.show()

    def retry(self) -> None:
        self.retried += 1

    def text(self) -> str:
        elapsed = time.monotonic() - self.t0
        new = self.done - self.start_done
        rate = new / elapsed if elapsed > 0 else 0.0
        left = self.total - self.done - self.failed
        eta = _clock(left / rate) if rate > 0 else "?"
        faults = sum(len(g["faults"]) for ln in self.lines for g in ln["games"])
        table = " ".join(f"{s.bot} {s.rate:.3f}" for s in standings(self.lines)[:8])
        parts = [
            f"{self.done}/{self.total} blocks",
            f"ETA {eta}",
            f"{2 * rate:.2f} games/s",
            f"faults {faults}",
        ]
        if self.failed or self.retried:
            parts.append(f"harness failures {self.failed} (retries {self.retried})")
        return " | ".join(parts) + (f" | {table}" if table else "")

    def show(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.tty:
            self.stream.write("\r\x1b[2K" + self.text()[:200])
            self.stream.flush()
        elif force or now - self.last >= self.period:
            text = self.text()
            if text.split(" | ")[0] != self.printed:  # do not repeat an unchanged count
                self.last, self.printed = now, text.split(" | ")[0]
                print(text, file=self.stream, flush=True)

    def finish(self) -> None:
        if self.tty:
            self.show()
            self.stream.write("\n")
            self.stream.flush()
        else:
            self.show(force=True)

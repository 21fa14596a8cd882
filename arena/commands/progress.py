"""Progress on stderr: blocks done, ETA, games/s, faults and live standings.

On a terminal one line is redrawn in place, with the live standings table
(when the caller gives a ``table`` renderer) redrawn below it; otherwise
(logs, CI) a line is printed every ``period`` seconds and once at the end,
and the table with it when it changed. The table is rendered at most every
``table_period`` seconds and never more often than keeps its own cost under
``TABLE_SHARE`` of the time (a rating fit over every stored block gets slow
on a long run). The tournament seed is never shown here.

The ETA is honest: the rate is measured from the first block that finished
in this run (start-up, Ray and the first games' warm-up are not a rate), and
until enough blocks have finished after it the ETA says "estimating".
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable, TextIO

from ..results import ResultLine, standings
from ..schedule.scheduler import LoopEvents
from ..schedule.unit import Unit


TTY_PERIOD_S = 0.2
TABLE_PERIOD_S = 3.0  # the live table at most this often on a terminal
TABLE_SHARE = 0.1  # at most this share of the time goes to rendering the live table


def clock(seconds: float) -> str:
    s = int(max(seconds, 0))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Progress(LoopEvents):
    def __init__(self, total: int, already: list[ResultLine], stream: TextIO | None = None,
                 period: float = 5.0, *, parallel: int = 1, now: Callable[[], float] = time.monotonic,
                 listener: Callable[[int, int], None] | None = None,
                 table: Callable[[list[ResultLine]], str] | None = None,
                 table_period: float = TABLE_PERIOD_S,
                 size: Callable[[], tuple[int, int]] | None = None) -> None:
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
        self.table = table  # stored lines -> the provisional standings table (the command wires it)
        self.table_period = table_period if self.tty else max(table_period, period)
        self.size = size or self._terminal_size
        self.table_text = ""  # the last rendered table, with its heading
        self.table_done = -1  # blocks it was rendered from
        self.table_at = -1e9  # when that render started
        self.table_cost = 0.0  # what it took
        self.table_printed = ""  # off a terminal: the last table printed
        self.drawn = 0  # on a terminal: lines of the block drawn last (status line + table)
        self.drawn_table = ""

    @property
    def done(self) -> int:
        return len(self.lines)

    def line(self, line: ResultLine) -> None:
        self.lines.append(line)
        if self.first_at is None:
            self.first_at = self.now()
        self.show()
        if self.listener is not None:
            self.listener(self.done, self.total)

    def failure(self, task: Unit, error: str) -> None:
        self.failed += 1
        self.show()

    def retry(self, task: Unit, error: str) -> None:
        self.retried += 1

    def notice(self, text: str) -> None:
        """A line of its own (a cluster node refused, lost or joined), then the progress display again."""
        if self.tty:
            self._erase()
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
        faults = sum(len(g.faults) for ln in self.lines for g in ln.games)
        per_block = sum(len(ln.games) for ln in self.lines) / len(self.lines) if self.lines else 2  # n at a table
        parts = [
            f"{self.done}/{self.total} blocks",
            f"ETA {self.eta()}",
            f"{per_block * rate:.2f} games/s",
            f"faults {faults}",
        ]
        if self.failed or self.retried:
            parts.append(f"harness failures {self.failed} (retries {self.retried})")
        if self.extra:
            parts.append(self.extra)
        if self.table is not None:  # the standings are the table below
            return " | ".join(parts)
        table = " ".join(f"{s.bot} {s.rate:.3f}" for s in standings(self.lines)[:8])
        return " | ".join(parts) + (f" | provisional: {table}" if table else "")

    def refresh_table(self, force: bool = False) -> bool:
        """Render the table again if blocks came in and its period and cost allow; True if it changed.

        ``force`` (the end of the run) skips the throttle, not the check for
        new blocks. A renderer that raises is reported in the table's place
        and not called again: the display never stops the games.
        """
        if self.table is None or self.done == self.table_done or not self.lines:
            return False
        start = self.now()
        wait = max(self.table_period, self.table_cost / TABLE_SHARE)
        if not force and start - self.table_at < wait:
            return False
        try:
            body = self.table(self.lines)
        except Exception as e:  # noqa: BLE001 - a display bug must not cost a result
            body = f"(live standings failed and are off for this run: {type(e).__name__}: {e})"
            self.table = None
        self.table_at, self.table_cost = start, max(self.now() - start, 0.0)
        self.table_done = self.done
        old = self.table_text
        self.table_text = (f"provisional standings after {self.done}/{self.total} blocks"
                           " (intervals at the end):\n" + body)
        return self.table_text != old

    def _terminal_size(self) -> tuple[int, int]:
        """(columns, lines) of the stream's terminal; a terminal that does not say counts as 120 x 40."""
        try:
            sz = os.get_terminal_size(self.stream.fileno())
        except (OSError, ValueError, AttributeError):
            return 120, 40
        return (sz.columns if sz.columns > 0 else 120), (sz.lines if sz.lines > 0 else 40)

    def _erase(self) -> None:
        """Terminal: back to the first drawn line and clear to the end of the screen."""
        if self.drawn:
            self.stream.write("\r" + (f"\x1b[{self.drawn - 1}A" if self.drawn > 1 else "") + "\x1b[J")
        self.drawn = 0

    def _draw(self, last: bool = False) -> None:
        """Terminal: the status line, and the table below it when it changed since the last draw.

        Lines are cut to the terminal's width and the block to its height, so
        the cursor movement always lands on the first line (nothing scrolls);
        the ``last`` draw stays on the screen, so it shows every row.
        """
        cols, rows = self.size()
        width = max(cols - 1, 20)
        status = self.text()[:width]
        if self.drawn and self.table_text == self.drawn_table and not last:
            up = self.drawn - 1
            self.stream.write("\r" + (f"\x1b[{up}A" if up else "") + "\x1b[2K" + status
                              + (f"\x1b[{up}B\r" if up else ""))
            self.stream.flush()
            return
        block = [status]
        if self.table_text:
            block += [""] + [ln[:width] for ln in self.table_text.split("\n")]
        room = max(rows - 1, 2)
        if len(block) > room and not last:
            cut = len(block) - (room - 1)
            block = block[:room - 1] + [f"... {cut} more lines (the leaderboard at the end has every bot)"[:width]]
        self._erase()
        self.stream.write("\n".join(block))
        self.stream.flush()
        self.drawn, self.drawn_table = len(block), self.table_text

    def show(self, force: bool = False) -> None:
        now = self.now()
        if self.tty:
            # At most a few redraws a second: the line's standings read every stored block, and a
            # tournament of thousands of blocks on a cluster finishes many per second.
            if force or now - self.last >= TTY_PERIOD_S:
                self.last = now
                self.refresh_table(force)
                self._draw()
        elif force or now - self.last >= self.period:
            text = self.text()
            head = text.split(" | ")[0]
            if head != self.printed or (force and text != self.printed_text):  # never the same line twice
                self.last, self.printed, self.printed_text = now, head, text
                print(text, file=self.stream, flush=True)
            self.refresh_table(force)
            if self.table_text and self.table_text != self.table_printed:
                self.table_printed = self.table_text
                print(self.table_text, file=self.stream, flush=True)

    def finish(self) -> None:
        """The final status line and table (every row), left on the screen or in the log."""
        if self.tty:
            self.refresh_table(force=True)
            self._draw(last=True)
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = 0
        else:
            self.show(force=True)

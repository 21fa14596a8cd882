"""The progress display with a live standings table: fake clock, StringIO streams (terminal and log)."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest

from arena.commands.progress import TABLE_SHARE, Progress
from arena.results import BotRef, Fault, GameLine, PairsLine


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


class Table:
    """A renderer that records when it was called and can take (fake) time."""

    def __init__(self, clock: Clock, cost: float = 0.0, rows: int = 3) -> None:
        self.clock, self.cost, self.rows = clock, cost, rows
        self.calls: list[tuple[float, int]] = []

    def __call__(self, lines: list[dict[str, Any]]) -> str:
        self.calls.append((self.clock.t, len(lines)))
        self.clock.t += self.cost
        return "\n".join([f"TABLE of {len(lines)} blocks"] + [f"row {i}" for i in range(self.rows)])


def block(faults: int = 0) -> PairsLine:
    """The fields of a results line the progress line reads (built without the schema's checks)."""
    seats = [BotRef(bot=n, digest="") for n in ("a", "b", "a", "b")]
    return PairsLine.model_construct(games=[
        GameLine.model_construct(seats=seats, winner=0, faults=[Fault.model_construct(bot="a")] * faults),
        GameLine.model_construct(seats=seats, winner=None, faults=[])])


def screen(raw: str) -> list[str]:
    """What a terminal shows after ``raw``: a small emulator of the sequences Progress writes."""
    rows: list[str] = [""]
    r = c = 0
    for tok in re.findall(r"\x1b\[(\d*)([ABJK])|(\r)|(\n)|([^\x1b\r\n]+)", raw):
        n, code, cr, nl, text = tok
        if cr:
            c = 0
        elif nl:
            r, c = r + 1, 0
        elif text:
            while len(rows) <= r:
                rows.append("")
            line = rows[r].ljust(c)
            rows[r] = line[:c] + text + line[c + len(text):]
            c += len(text)
        elif code == "A":
            r = max(0, r - int(n or 1))
        elif code == "B":
            r += int(n or 1)
        elif code == "J":
            rows[r] = rows[r][:c] if r < len(rows) else ""
            del rows[r + 1:]
        elif code == "K":
            if r < len(rows):
                rows[r] = ""
        while len(rows) <= r:
            rows.append("")
    return rows


def test_terminal_redraws_the_table_in_place_at_its_period() -> None:
    clock, out = Clock(), Tty()
    table = Table(clock)
    p = Progress(30, [], out, now=clock, table=table, table_period=3.0, size=lambda: (100, 40))
    for _ in range(30):
        clock.t += 0.5
        p.line(block())
        shown = screen(out.getvalue())
        assert sum("TABLE of" in x for x in shown) == 1  # never a second copy on the screen
        assert sum("blocks | ETA" in x for x in shown) == 1
    p.finish()
    starts = [t for t, _ in table.calls[:-1]]  # the last one is the end's, which always comes
    assert len(starts) >= 3 and all(b - a >= 3.0 for a, b in zip(starts, starts[1:]))  # at most every period
    assert table.calls[-1][1] == 30  # the end always shows every block
    shown = screen(out.getvalue())
    assert shown[0].startswith("30/30 blocks") and "provisional standings after 30/30 blocks" in shown[2]
    assert shown[3] == "TABLE of 30 blocks" and "provisional:" not in shown[0]  # the table replaces the fragment


def test_rendering_costs_at_most_its_share_of_the_time() -> None:
    clock, out = Clock(), Tty()
    table = Table(clock, cost=2.0)  # a slow fit: 2 s a render
    p = Progress(100, [], out, now=clock, table=table, table_period=3.0)
    for _ in range(100):
        clock.t += 1.0
        p.line(block())
    spent = 2.0 * len(table.calls)
    assert len(table.calls) >= 2 and spent <= TABLE_SHARE * clock.t + 2.0  # one render may be running at the end
    starts = [t for t, _ in table.calls]
    assert all(b - a >= 2.0 / TABLE_SHARE for a, b in zip(starts, starts[1:]))


def test_a_short_terminal_gets_the_top_of_the_table_and_the_end_shows_it_all() -> None:
    clock, out = Clock(), Tty()
    p = Progress(5, [], out, now=clock, table=Table(clock, rows=20), size=lambda: (40, 8))
    for _ in range(5):
        clock.t += 5.0
        p.line(block())
        shown = [x for x in screen(out.getvalue()) if x]
        assert len(shown) <= 7 and "more lines" in shown[-1] and all(len(x) <= 39 for x in shown)
    p.finish()
    shown = screen(out.getvalue())
    assert "row 19" in shown and sum("TABLE of 5" in x for x in shown) == 1


def test_a_notice_keeps_one_copy_of_the_display_below_it() -> None:
    clock, out = Clock(), Tty()
    p = Progress(4, [], out, now=clock, table=Table(clock))
    clock.t += 5.0
    p.line(block())
    p.notice("node lost")
    shown = screen(out.getvalue())
    assert shown[0] == "cluster: node lost" and shown[1].startswith("1/4 blocks")
    assert sum("TABLE of 1" in x for x in shown) == 1


def test_log_gets_the_table_at_the_period_and_once_at_the_end() -> None:
    clock, out = Clock(), io.StringIO()
    table = Table(clock)
    p = Progress(40, [], out, period=5.0, now=clock, table=table)
    for i in range(40):
        clock.t += 1.0
        p.line(block(faults=1 if i == 3 else 0))
    p.finish()
    p.finish()  # a second end prints nothing new
    text = out.getvalue()
    assert "\x1b" not in text and "\r" not in text
    heads = re.findall(r"provisional standings after (\d+)/40 blocks", text)
    assert 2 <= len(heads) <= 40 / 5 + 1 and heads[-1] == "40"  # at the period, not per block
    assert len(heads) == len(set(heads)) and text.count("TABLE of 40 blocks") == 1
    assert "faults 1" in text


def test_a_renderer_that_raises_is_reported_once_and_the_run_goes_on() -> None:
    clock, out = Clock(), io.StringIO()

    def broken(lines: list[dict[str, Any]]) -> str:
        raise KeyError("oops")

    p = Progress(20, [], out, period=1.0, now=clock, table=broken)
    for _ in range(20):
        clock.t += 2.0
        p.line(block())
    p.finish()
    text = out.getvalue()
    assert text.count("live standings failed and are off for this run: KeyError") == 1
    assert p.done == 20 and "20/20 blocks" in text and "provisional: a 0.750 b 0.250" in text  # the fragment again


@pytest.mark.parametrize("tty", [False, True])
def test_without_a_renderer_the_line_keeps_its_standings_fragment(tty: bool) -> None:
    clock = Clock()
    out = Tty() if tty else io.StringIO()
    p = Progress(1, [], out, now=clock)
    clock.t += 1.0
    p.line(block())
    p.finish()
    assert "provisional:" in out.getvalue() and "provisional standings" not in out.getvalue()

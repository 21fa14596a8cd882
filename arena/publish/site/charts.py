"""Inline SVG charts, each with a text alternative (the pages also carry the numbers as tables).

Pure functions of numbers to geometry: each returns a small object of positions (already formatted, so the
same numbers always give the same bytes) that a macro of ``templates/site/charts.html`` draws. No scripts,
no external files.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

PALETTE = ("#1a4f80", "#c0392b", "#27ae60", "#8e44ad", "#d35400", "#16a085", "#7f8c8d", "#2c3e50")


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values covering [lo, hi] (steps of 1, 2 or 5 times a power of ten)."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo]
    raw = (hi - lo) / max(count, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    out = []
    x = first
    while x <= hi + 1e-9 * step:
        out.append(round(x, 9))
        x += step
    return out


def scale_for(values: Sequence[float | None]) -> tuple[float, float]:
    """A shared scale that always shows zero (the anchor line), padded a little."""
    vals = [v for v in values if v is not None and math.isfinite(v)] + [0.0]
    lo, hi = min(vals), max(vals)
    if hi - lo < 1:
        lo, hi = lo - 50, hi + 50
    pad = (hi - lo) * 0.04
    return lo - pad, hi + pad


def _f(v: float) -> str:
    return f"{v:.1f}"


class Axis:
    def __init__(self, lo: float, hi: float, width: int, margin: int = 6) -> None:
        self.lo, self.hi, self.width, self.margin = lo, hi, width, margin

    def x(self, v: float) -> float:
        return self.margin + (v - self.lo) / (self.hi - self.lo) * (self.width - 2 * self.margin)


@dataclass(frozen=True)
class Bar:
    """One interval bar: its rating as a tick, its interval (if any) as a band, the zero line dashed."""

    width: int
    margin: int
    label: str
    zero: str
    tick: str
    lo: str | None = None
    span: str | None = None


def interval_bar(rating: float, lo: float | None, hi: float | None, axis: Axis, label: str) -> Bar:
    """One bot's interval as a bar on ``axis`` (``charts.html``: ``bar``)."""
    band = (_f(axis.x(lo)), _f(max(axis.x(hi) - axis.x(lo), 1))) if lo is not None and hi is not None else (None, None)
    return Bar(axis.width, axis.margin, label, _f(axis.x(0)), _f(axis.x(rating) - 1), *band)


@dataclass(frozen=True)
class Ticks:
    """The scale under the bars: its ticks (x, value) and what it measures (``charts.html``: ``axis``)."""

    width: int
    margin: int
    label: str
    ticks: list[tuple[str, str]]


def axis_svg(axis: Axis, label: str = "Elo", quantity: str = "rating") -> Ticks:
    unit = f" {label}" if label else ""
    return Ticks(axis.width, axis.margin, f"{quantity} axis from {axis.lo:.0f} to {axis.hi:.0f}{unit}, dashed line at 0",
                 [(_f(axis.x(t)), f"{t:g}") for t in nice_ticks(axis.lo, axis.hi)])


LABEL_GAP = 12  # px between two series' names at the chart's right edge (the font is 10 px)
CHAR_W = 7  # px a character of a series' name may take at 10 px (wider than most: room to spare)
NAME_MAX = 32  # a series' name longer than this is cut, with an ellipsis


def _short(name: str) -> str:
    return name if len(name) <= NAME_MAX else name[:NAME_MAX - 1] + "\u2026"


def spread(ys: Sequence[float], lo: float, hi: float, gap: float = LABEL_GAP) -> list[float]:
    """Positions for labels wanted at ``ys`` (in any order), each at least ``gap`` from the next, inside
    [lo, hi] where they fit: pushed down past the one above, then back up from the bottom edge."""
    order = sorted(range(len(ys)), key=lambda i: (ys[i], i))
    pos = [0.0] * len(ys)
    last = -math.inf
    for i in order:
        pos[i] = max(ys[i], last + gap, lo)
        last = pos[i]
    over = last - hi
    if over > 0:  # the lowest went past the bottom: shift the packed run back up, never above ``lo``
        limit = hi
        for i in reversed(order):
            pos[i] = max(min(pos[i], limit), lo)
            limit = pos[i] - gap
    return pos


@dataclass(frozen=True)
class Series:
    """One bot's line: its colour, its points, and where its name stands at the right (with a leader line)."""

    name: str
    colour: str
    points: list[tuple[str, str]]
    end: tuple[str, str] | None = None
    at: tuple[str, str, str, str] | None = None  # the leader line's end (x, y), the name's (x, y)


@dataclass
class History:
    """The rating-history chart (``charts.html``: ``history``)."""

    width: int
    height: int
    caption: str
    box: tuple[int, int, int, int]  # left, top, right end, bottom of the plot area
    zero: str
    yticks: list[tuple[str, str, str]]  # y of the tick, y of its text, its value
    xticks: list[tuple[str, str]]
    x_title: tuple[str, str, str]  # x, y, text
    y_title: tuple[str, str]  # y of its centre, text
    series: list[Series] = field(default_factory=list)


def history_svg(series: dict[str, list[float | None]], runs: Sequence[int], *, width: int = 600,
                caption: str = "rating history", x_title: str = "run",
                names: dict[str, str] | None = None) -> History | None:
    """Ratings after each run shown (``runs``: their numbers, on a linear axis), one line per bot; gaps
    where a bot had not entered yet. Both axes are titled, the run axis carries as many tick labels as fit
    without touching, and the series' names at the right are spread so that none overlaps another; the
    chart is as wide as its longest name needs (up to ``NAME_MAX`` characters, whole).
    ``names``: what to call each series (default its key)."""
    vals = [v for s in series.values() for v in s if v is not None]
    if not vals or not runs:
        return None
    lo, hi = scale_for(vals)
    named = [k for k, s in series.items() if any(v is not None for v in s)]
    shown = {k: _short((names or {}).get(k, k)) for k in series}
    left, top, bottom = 58, 10, 40
    right = max(116, 16 + CHAR_W * max((len(shown[k]) for k in named), default=0))  # room for the longest name
    height = max(220, top + bottom + LABEL_GAP * (len(named) + 1))
    xw = width - 58 - 116  # the plot keeps its size; a long name widens the chart
    width = left + xw + right
    yh = height - top - bottom
    first, last = runs[0], runs[-1]

    def x(run: float) -> float:
        return left + (xw / 2 if last == first else (run - first) * xw / (last - first))

    def y(v: float) -> float:
        return top + (hi - v) / (hi - lo) * yh

    yticks = [(_f(y(t)), _f(y(t) + 3), f"{t:g}") for t in nice_ticks(lo, hi, max(2, min(6, yh // 30)))]
    label_w = 7 * len(str(last)) + 8  # a run number's width in px at 10 px, with room around it
    if last == first:
        xt: list[float] = [float(first)]
    else:
        xt = [t for t in nice_ticks(first, last, max(1, min(len(runs) - 1, int(xw // label_w))))
              if t == int(t) and first <= t <= last]
        if not xt:
            xt = [float(first), float(last)]
    chart = History(width, height, caption, (left, top, left + xw, top + yh), _f(y(0)), yticks,
                    [(_f(x(t)), str(int(t))) for t in xt], (_f(left + xw / 2), str(height - 6), x_title),
                    (_f(top + yh / 2), "rating (Elo)"))
    drawn: list[tuple[str, str, list[tuple[float, float]]]] = []
    for k, (name, s) in enumerate(series.items()):
        pts = [(x(runs[i]), y(v)) for i, v in enumerate(s) if v is not None]
        drawn.append((shown[name], PALETTE[k % len(PALETTE)], pts))
    ends = [pts[-1][1] for _, _, pts in drawn if pts]
    at = iter(spread(ends, top + 4, top + yh))
    lx = left + xw + 8
    for name, colour, pts in drawn:
        end = (pts[-1] if pts else None)
        ly = next(at) if end else 0.0
        chart.series.append(Series(name, colour, [(_f(a), _f(b)) for a, b in pts],
                                   (_f(end[0]), _f(end[1])) if end else None, (str(lx - 2), _f(ly), str(lx), _f(ly + 3)) if end else None))
    return chart


@dataclass(frozen=True)
class Histogram:
    """Horizontal bars of labelled counts (``charts.html``: ``histogram``)."""

    width: int
    height: int
    caption: str
    rows: list[tuple[int, str, str, str, int]]  # y, label, bar width, x of the count, count


def histogram_svg(counts: Sequence[tuple[str, int]], *, width: int = 420, caption: str = "distribution") -> Histogram | None:
    """Horizontal bars of labelled counts (e.g. contracts by bid level)."""
    if not counts:
        return None
    top = max(c for _, c in counts) or 1
    row = 16
    rows = []
    for i, (label, c) in enumerate(counts):
        bw = (width - 90) * c / top
        rows.append((2 + i * row, label, _f(bw), _f(50 + bw), c))
    return Histogram(width, row * len(counts) + 4, caption, rows)

"""Inline SVG charts, each with a text alternative (the pages also carry the numbers as tables).

Pure functions of numbers to markup: no scripts, no external files, and
fixed formatting, so the same numbers always give the same bytes.
"""

from __future__ import annotations

import html
import math
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


def scale_for(values: Sequence[float]) -> tuple[float, float]:
    """A shared scale that always shows zero (the anchor line), padded a little."""
    vals = [v for v in values if v is not None and math.isfinite(v)] + [0.0]
    lo, hi = min(vals), max(vals)
    if hi - lo < 1:
        lo, hi = lo - 50, hi + 50
    pad = (hi - lo) * 0.04
    return lo - pad, hi + pad


class Axis:
    def __init__(self, lo: float, hi: float, width: int, margin: int = 6) -> None:
        self.lo, self.hi, self.width, self.margin = lo, hi, width, margin

    def x(self, v: float) -> float:
        return self.margin + (v - self.lo) / (self.hi - self.lo) * (self.width - 2 * self.margin)


def interval_bar(rating: float, lo: float | None, hi: float | None, axis: Axis, label: str) -> str:
    """One bot's interval as a bar, its rating as a tick, the zero line dashed."""
    w = axis.width
    e = html.escape(label)
    parts = [f'<svg class="bar" width="{w}" height="16" role="img" aria-label="{e}"><title>{e}</title>',
             f'<line x1="{axis.margin}" y1="8" x2="{w - axis.margin}" y2="8" stroke="#e4e4e4"/>',
             f'<line x1="{axis.x(0):.1f}" y1="0" x2="{axis.x(0):.1f}" y2="16" stroke="#888" stroke-dasharray="2,2"/>']
    if lo is not None and hi is not None:
        parts.append(f'<rect x="{axis.x(lo):.1f}" y="4" width="{max(axis.x(hi) - axis.x(lo), 1):.1f}" height="8" '
                     'fill="#9cc3e6"/>')
    parts.append(f'<rect x="{axis.x(rating) - 1:.1f}" y="1" width="2" height="14" fill="#1a4f80"/></svg>')
    return "".join(parts)


def axis_svg(axis: Axis, label: str = "Elo", quantity: str = "rating") -> str:
    """The scale under the bars: ticks, their values and the zero line."""
    w = axis.width
    unit = f" {label}" if label else ""
    parts = [f'<svg class="axis" width="{w}" height="24" role="img" aria-label="{quantity} axis from {axis.lo:.0f} '
             f'to {axis.hi:.0f}{unit}, dashed line at 0">',
             f'<line x1="{axis.margin}" y1="2" x2="{w - axis.margin}" y2="2" stroke="#333"/>']
    for t in nice_ticks(axis.lo, axis.hi):
        x = axis.x(t)
        parts.append(f'<line x1="{x:.1f}" y1="2" x2="{x:.1f}" y2="7" stroke="#333"/>'
                     f'<text x="{x:.1f}" y="18" text-anchor="middle">{t:g}</text>')
    parts.append("</svg>")
    return "".join(parts)


LABEL_GAP = 12  # px between two series' names at the chart's right edge (the font is 10 px)


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


def history_svg(series: dict[str, list[float | None]], runs: Sequence[int], *, width: int = 600,
                caption: str = "rating history") -> str:
    """Ratings after each run shown (``runs``: their numbers, on a linear axis), one line per bot; gaps
    where a bot had not entered yet. Both axes are titled, the run axis carries as many tick labels as fit
    without touching, and the series' names at the right are spread so that none overlaps another."""
    vals = [v for s in series.values() for v in s if v is not None]
    if not vals or not runs:
        return ""
    lo, hi = scale_for(vals)
    named = [k for k, s in series.items() if any(v is not None for v in s)]
    left, right, top, bottom = 58, 116, 10, 40
    height = max(220, top + bottom + LABEL_GAP * (len(named) + 1))
    xw = width - left - right
    yh = height - top - bottom
    first, last = runs[0], runs[-1]

    def x(run: float) -> float:
        return left + (xw / 2 if last == first else (run - first) * xw / (last - first))

    def y(v: float) -> float:
        return top + (hi - v) / (hi - lo) * yh

    e = html.escape(caption)
    parts = [f'<svg class="history" width="{width}" height="{height}" role="img" aria-label="{e}; the table below '
             f'gives the same numbers"><title>{e}</title>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + yh}" stroke="#333"/>',
             f'<line x1="{left}" y1="{top + yh}" x2="{left + xw}" y2="{top + yh}" stroke="#333"/>',
             f'<line x1="{left}" y1="{y(0):.1f}" x2="{left + xw}" y2="{y(0):.1f}" stroke="#888" stroke-dasharray="3,3"/>']
    for t in nice_ticks(lo, hi, max(2, min(6, yh // 30))):
        parts.append(f'<line x1="{left - 3}" y1="{y(t):.1f}" x2="{left}" y2="{y(t):.1f}" stroke="#333"/>'
                     f'<text class="tick" x="{left - 5}" y="{y(t) + 3:.1f}" text-anchor="end">{t:g}</text>')
    label_w = 7 * len(str(last)) + 8  # a run number's width in px at 10 px, with room around it
    if last == first:
        xt: list[float] = [float(first)]
    else:
        xt = [t for t in nice_ticks(first, last, max(1, min(len(runs) - 1, int(xw // label_w))))
              if t == int(t) and first <= t <= last]
        if not xt:
            xt = [float(first), float(last)]
    for t in xt:
        parts.append(f'<line x1="{x(t):.1f}" y1="{top + yh}" x2="{x(t):.1f}" y2="{top + yh + 3}" stroke="#333"/>'
                     f'<text class="tick" x="{x(t):.1f}" y="{top + yh + 14}" text-anchor="middle">{int(t)}</text>')
    parts.append(f'<text class="axis-title" x="{left + xw / 2:.1f}" y="{height - 6}" text-anchor="middle">run</text>')
    parts.append(f'<text class="axis-title" transform="translate(12 {top + yh / 2:.1f}) rotate(-90)" '
                 'text-anchor="middle">rating (Elo)</text>')
    ends: list[tuple[str, str, float, float]] = []
    for k, (name, s) in enumerate(series.items()):
        colour = PALETTE[k % len(PALETTE)]
        pts = [(x(runs[i]), y(v)) for i, v in enumerate(s) if v is not None]
        if len(pts) > 1:
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="'
                         + " ".join(f"{a:.1f},{b:.1f}" for a, b in pts) + '"/>')
        parts += [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{colour}"/>' for a, b in pts]
        if pts:
            ends.append((name, colour, pts[-1][0], pts[-1][1]))
    at = spread([b for _, _, _, b in ends], top + 4, top + yh)
    lx = left + xw + 8
    for (name, colour, a, b), ly in zip(ends, at):
        parts.append(f'<line x1="{a:.1f}" y1="{b:.1f}" x2="{lx - 2}" y2="{ly:.1f}" stroke="{colour}" stroke-width="0.6"/>'
                     f'<text class="series" x="{lx}" y="{ly + 3:.1f}" fill="{colour}">{html.escape(name[:16])}</text>')
    parts.append("</svg>")
    return "".join(parts)


def histogram_svg(counts: Sequence[tuple[str, int]], *, width: int = 420, caption: str = "distribution") -> str:
    """Horizontal bars of labelled counts (e.g. contracts by bid level)."""
    if not counts:
        return ""
    top = max(c for _, c in counts) or 1
    row = 16
    h = row * len(counts) + 4
    e = html.escape(caption)
    parts = [f'<svg class="hist" width="{width}" height="{h}" role="img" aria-label="{e}; the table gives the same '
             f'numbers"><title>{e}</title>']
    for i, (label, c) in enumerate(counts):
        yy = 2 + i * row
        bw = (width - 90) * c / top
        parts.append(f'<text x="40" y="{yy + 11}" text-anchor="end">{html.escape(label)}</text>'
                     f'<rect x="46" y="{yy + 2}" width="{bw:.1f}" height="{row - 4}" fill="#9cc3e6"/>'
                     f'<text x="{50 + bw:.1f}" y="{yy + 11}">{c}</text>')
    parts.append("</svg>")
    return "".join(parts)

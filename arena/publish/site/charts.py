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


def history_svg(series: dict[str, list[float | None]], runs: int, *, width: int = 560, height: int = 220,
                caption: str = "rating history") -> str:
    """Ratings after each run, one line per bot; gaps where a bot had not entered yet."""
    vals = [v for s in series.values() for v in s if v is not None]
    if not vals or runs < 1:
        return ""
    lo, hi = scale_for(vals)
    left, right, top, bottom = 48, 110, 10, 28
    xw = width - left - right
    yh = height - top - bottom
    def x(i: int) -> float:
        return left + (xw / 2 if runs == 1 else i * xw / (runs - 1))

    def y(v: float) -> float:
        return top + (hi - v) / (hi - lo) * yh

    e = html.escape(caption)
    parts = [f'<svg class="history" width="{width}" height="{height}" role="img" aria-label="{e}; the table below '
             f'gives the same numbers"><title>{e}</title>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + yh}" stroke="#333"/>',
             f'<line x1="{left}" y1="{top + yh}" x2="{left + xw}" y2="{top + yh}" stroke="#333"/>',
             f'<line x1="{left}" y1="{y(0):.1f}" x2="{left + xw}" y2="{y(0):.1f}" stroke="#888" stroke-dasharray="3,3"/>']
    for t in nice_ticks(lo, hi):
        parts.append(f'<text x="{left - 4}" y="{y(t) + 3:.1f}" text-anchor="end">{t:g}</text>')
    for i in range(runs):
        parts.append(f'<text x="{x(i):.1f}" y="{top + yh + 16}" text-anchor="middle">run {i + 1}</text>')
    for k, (name, s) in enumerate(series.items()):
        colour = PALETTE[k % len(PALETTE)]
        pts = [(x(i), y(v)) for i, v in enumerate(s) if v is not None]
        if len(pts) > 1:
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="'
                         + " ".join(f"{a:.1f},{b:.1f}" for a, b in pts) + '"/>')
        parts += [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{colour}"/>' for a, b in pts]
        if pts:
            parts.append(f'<text x="{pts[-1][0] + 6:.1f}" y="{pts[-1][1] + 3:.1f}" fill="{colour}">'
                         f'{html.escape(name[:16])}</text>')
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

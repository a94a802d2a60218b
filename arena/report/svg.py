"""The report's plots as hand-written SVG strings: no plotting library, nothing to load at view time.

Each function returns one ``<svg>`` element sized by its viewBox, so it scales with the page (the
style sheet gives it the page width), as ``Markup`` for a page's template (``arena.report.templating``).
Every string it takes in (an entrant's name, which a bot or a results file controls) is escaped by
HTML's rules where it enters; the template's environment makes the whole printable. Numbers are
rounded to keep the pages small.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from markupsafe import Markup, escape

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#17becf", "#bcbd22", "#7f7f7f")
"""Line colours, in order of the entrants' places."""

_FONT = 'font-family="system-ui, sans-serif" font-size="12"'


def colour(index: int) -> str:
    """The line colour of the entrant at ``index``."""
    return PALETTE[index % len(PALETTE)]


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering ``low`` to ``high``."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    step = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * step:
            step *= factor
            break
    first = math.floor(low / step) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        if value >= low - step * 1e-9:
            ticks.append(round(value, 10))
        value += step
    return ticks


def _label(value: float) -> str:
    return f"{value:g}" if abs(value) < 1e6 else f"{value:.3g}"


def interval_plot(rows: Sequence[tuple[str, float | None, float | None, float | None]]) -> Markup:
    """One row per entrant: its rating as a dot, its interval as a bar (open ends as arrows)."""
    label_width, width, row_height, top = 150, 640, 24, 24
    finite = [v for _, r, lo, hi in rows for v in (r, lo, hi) if v is not None and math.isfinite(v)]
    low, high = (min(finite), max(finite)) if finite else (1400.0, 1600.0)
    pad = max(10.0, (high - low) * 0.05)
    low, high = low - pad, high + pad
    plot_left, plot_right = label_width, width - 16

    def x(value: float) -> float:
        return plot_left + (value - low) / (high - low) * (plot_right - plot_left)

    height = top + row_height * len(rows) + 8
    parts = [f'<svg class="plot" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="ratings with intervals" {_FONT}>']
    for tick in _ticks(low, high):
        tx = x(tick)
        parts.append(f'<line x1="{tx:.1f}" y1="{top - 6}" x2="{tx:.1f}" y2="{height - 8}" '
                     f'stroke="#ddd"/><text x="{tx:.1f}" y="{top - 10}" text-anchor="middle" '
                     f'fill="#666">{_label(tick)}</text>')
    for index, (name, rating, lower, upper) in enumerate(rows):
        y = top + row_height * index + row_height / 2
        parts.append(f'<text x="{label_width - 8}" y="{y + 4:.1f}" text-anchor="end">'
                     f'{escape(name)}</text>')
        if rating is None:
            parts.append(f'<text x="{plot_left + 4}" y="{y + 4:.1f}" fill="#888">no finite rating'
                         f'</text>')
            continue
        left = x(max(lower, low)) if lower is not None else None
        right = x(min(upper, high)) if upper is not None else None
        if left is not None and right is not None:
            parts.append(f'<line x1="{left:.1f}" y1="{y:.1f}" x2="{right:.1f}" y2="{y:.1f}" '
                         f'stroke="{colour(index)}" stroke-width="2"/>')
            for end, bounded in ((left, math.isfinite(lower or 0)), (right, math.isfinite(upper or 0))):
                if bounded:
                    parts.append(f'<line x1="{end:.1f}" y1="{y - 6:.1f}" x2="{end:.1f}" '
                                 f'y2="{y + 6:.1f}" stroke="{colour(index)}" stroke-width="2"/>')
        parts.append(f'<circle cx="{x(rating):.1f}" cy="{y:.1f}" r="4" fill="{colour(index)}">'
                     f'<title>{escape(name)}: {rating:.0f}</title></circle>')
    parts.append("</svg>")
    return Markup("".join(parts))


def heat(share: float) -> str:
    """Red (0) through white (1/2) to green (1), as an rgb() colour."""
    share = min(1.0, max(0.0, share))
    if share < 0.5:
        t = share / 0.5
        return f"rgb(230,{int(120 + 135 * t)},{int(120 + 135 * t)})"
    t = (share - 0.5) / 0.5
    return f"rgb({int(255 - 135 * t)},{int(255 - 45 * t)},{int(255 - 135 * t)})"


def line_plot(xs: Sequence[float], series: Sequence[tuple[str, Sequence[float | None]]], *,
              x_label: str, y_label: str) -> Markup:
    """Lines of ``series`` over ``xs`` (a None breaks a line), with axes and a legend."""
    width, height, left, right, top, bottom = 640, 300, 56, 16, 16, 44
    values = [v for _, ys in series for v in ys if v is not None and math.isfinite(v)]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    x_low, x_high = (min(xs), max(xs)) if xs else (0.0, 1.0)
    if x_high - x_low < 1e-9:
        x_low, x_high = x_low - 1, x_high + 1
    legend_rows = math.ceil(len(series) / 3)
    total = height + legend_rows * 18

    def px(value: float) -> float:
        return left + (value - x_low) / (x_high - x_low) * (width - left - right)

    def py(value: float) -> float:
        return top + (high - value) / (high - low) * (height - top - bottom)

    parts = [f'<svg class="plot" viewBox="0 0 {width} {total}" role="img" '
             f'aria-label="{escape(y_label)} by {escape(x_label)}" {_FONT}>']
    for tick in _ticks(low, high):
        y = py(tick)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" '
                     f'stroke="#e5e5e5"/><text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" '
                     f'fill="#666">{_label(tick)}</text>')
    for tick in _ticks(x_low, x_high, 6):
        x = px(tick)
        parts.append(f'<text x="{x:.1f}" y="{height - bottom + 16}" text-anchor="middle" '
                     f'fill="#666">{_label(tick)}</text>')
    parts.append(f'<text x="{(left + width - right) / 2:.0f}" y="{height - 8}" '
                 f'text-anchor="middle">{escape(x_label)}</text>')
    parts.append(f'<text x="14" y="{(top + height - bottom) / 2:.0f}" text-anchor="middle" '
                 f'transform="rotate(-90 14 {(top + height - bottom) / 2:.0f})">'
                 f'{escape(y_label)}</text>')
    for index, (name, ys) in enumerate(series):
        runs: list[list[str]] = [[]]
        for xv, yv in zip(xs, ys, strict=True):
            if yv is None or not math.isfinite(yv):
                runs.append([])
            else:
                runs[-1].append(f"{px(xv):.1f},{py(yv):.1f}")
        for run in runs:
            if len(run) > 1:
                parts.append(f'<polyline fill="none" stroke="{colour(index)}" stroke-width="2" '
                             f'points="{" ".join(run)}"/>')
            elif run:
                cx, cy = run[0].split(",")
                parts.append(f'<circle cx="{cx}" cy="{cy}" r="3" fill="{colour(index)}"/>')
        lx = left + (index % 3) * 190
        ly = height + (index // 3) * 18 + 4
        parts.append(f'<rect x="{lx}" y="{ly}" width="14" height="4" fill="{colour(index)}"/>'
                     f'<text x="{lx + 20}" y="{ly + 6}">{escape(name)}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))

"""The geometry of the report's charts (inline SVG): bars, labels and lines in a
``viewBox`` of their own, so the page scales them to its width. Pure arithmetic; the
template draws them (and escapes every label).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SEVERITIES = ("pass", "warn", "fail", "error")
_NICE = (1, 2, 5, 10, 20, 25, 50, 100)


@dataclass(frozen=True, slots=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    cls: str
    title: str


@dataclass(frozen=True, slots=True)
class Label:
    x: float
    y: float
    text: str
    anchor: str = "start"
    cls: str = ""


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar of a chart (a table's stacked statuses, a rule's percentage, a bin)."""

    rects: tuple[Rect, ...]
    labels: tuple[Label, ...]
    title: str


@dataclass(frozen=True, slots=True)
class Dot:
    x: float
    y: float
    r: float
    cls: str
    title: str


@dataclass(frozen=True, slots=True)
class Point:
    """A rule in one run: the number its trend follows (``None``: nothing measured)."""

    run: str
    at: str | None
    value: float | None
    severity: str


@dataclass(frozen=True, slots=True)
class Chart:
    kind: str
    """``overview``, ``failing``, ``histogram`` or ``trend`` (the SVG's class)."""
    width: float
    height: float
    title: str
    bars: tuple[Bar, ...] = ()
    labels: tuple[Label, ...] = ()
    line: str | None = None
    """``x,y x,y ...`` of a trend's polyline."""
    dots: tuple[Dot, ...] = ()


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def status_overview(tables: Sequence[tuple[str, Mapping[str, int]]]) -> Chart:
    """One stacked bar per table: its rules by severity, the bar's length the table's
    share of rules (every table's bar spans the same width)."""
    row, name_w, bar_w, gap = 24, 170, 360, 6
    bars = []
    for i, (name, counts) in enumerate(tables):
        y = i * row + gap / 2
        total = sum(counts.get(s, 0) for s in SEVERITIES)
        rects: list[Rect] = []
        x = float(name_w)
        for severity in SEVERITIES:
            n = counts.get(severity, 0)
            if not n:
                continue
            w = bar_w * n / total
            rects.append(Rect(x, y, w, row - gap, f"s-{severity}", f"{name}: {n} {severity}"))
            x += w
        if not rects:
            rects.append(Rect(x, y, bar_w, row - gap, "s-none", f"{name}: no rules"))
        said = " · ".join(f"{counts[s]} {s}" for s in SEVERITIES if counts.get(s))
        bars.append(
            Bar(
                tuple(rects),
                (
                    Label(name_w - 8, y + row / 2, _short(name, 24), "end"),
                    Label(name_w + bar_w + 8, y + row / 2, said or "no rules", "start", "n"),
                ),
                f"{name}: {said or 'no rules'}",
            )
        )
    return Chart(
        "overview",
        name_w + bar_w + 150,
        max(len(tables), 1) * row,
        "Rules by status, per table",
        tuple(bars),
    )


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 5, 10, 20, 25, 50, 100 (percent) at or above ``value``."""
    return next((n for n in _NICE if value <= n), 100)


def failing_percent(rules: Sequence[tuple[str, float | None, str]]) -> Chart:
    """One horizontal bar per rule: its failing rows as a percentage of the table's,
    on a scale up to the largest (rounded up to 1, 2, 5, 10, 20, 25, 50 or 100%)."""
    row, name_w, bar_w = 20, 220, 300
    top = nice_ceiling(max((p or 0.0) for _, p, _ in rules))
    bars = []
    for i, (label, pct, state) in enumerate(rules):
        y = i * row + 3
        value = pct or 0.0
        w = bar_w * value / top if top else 0.0
        if 0 < w < 1.5:
            w = 1.5
        shown = percent_text(value)
        bars.append(
            Bar(
                (
                    Rect(name_w, y, bar_w, row - 6, "track", ""),
                    Rect(name_w, y, w, row - 6, f"r-{state}", f"{label}: {shown} failing"),
                ),
                (
                    Label(name_w - 8, y + (row - 6) / 2, _short(label, 34), "end"),
                    Label(name_w + bar_w + 8, y + (row - 6) / 2, shown, "start", "n"),
                ),
                f"{label}: {shown} failing",
            )
        )
    axis = (Label(name_w + bar_w, len(rules) * row + 10, f"{top:g}%", "end", "axis"),)
    return Chart(
        "failing",
        name_w + bar_w + 80,
        len(rules) * row + 16,
        "Failing rows, percent of the table",
        tuple(bars),
        (Label(name_w, len(rules) * row + 10, "0%", "start", "axis"), *axis),
    )


def histogram(bins: Sequence[Mapping[str, float | int | None]]) -> Chart | None:
    """colstats' histogram: one vertical bar per bin, heights relative to the fullest."""
    if not bins:
        return None
    width, height, base, left = 300.0, 110.0, 92.0, 4.0
    step = (width - 2 * left) / len(bins)
    top = max(int(b.get("count") or 0) for b in bins) or 1
    bars = []
    for i, b in enumerate(bins):
        count = int(b.get("count") or 0)
        h = (base - 12) * count / top
        lo, hi = b.get("lowerBound"), b.get("upperBound")
        closed = "]" if i == len(bins) - 1 else ")"
        title = f"[{_bound(lo)}, {_bound(hi)}{closed}: {count}"
        x = left + i * step
        bars.append(Bar((Rect(x + 1, base - h, step - 2, h, "bin", title),), (), title))
    labels = (
        Label(left, height - 4, _bound(bins[0].get("lowerBound")), "start", "axis"),
        Label(width - left, height - 4, _bound(bins[-1].get("upperBound")), "end", "axis"),
        Label(left, 9, f"max {top}", "start", "axis"),
    )
    return Chart("histogram", width, height, "Histogram", tuple(bars), labels)


def trend(points: Sequence[Point]) -> Chart:
    """A sparkline of a rule over runs (oldest first, this run last): its failing
    percentage or measured value, a dot per run coloured by severity."""
    width, height, pad = 132.0, 30.0, 4.0
    values = [p.value for p in points if p.value is not None]
    lo, hi = (min(values), max(values)) if values else (0.0, 0.0)
    step = (width - 2 * pad) / max(len(points) - 1, 1)

    def y_of(value: float | None) -> float:
        if value is None:
            return height - pad
        if hi == lo:
            return height / 2
        return height - pad - (height - 2 * pad) * (value - lo) / (hi - lo)

    dots = []
    coords = []
    for i, p in enumerate(points):
        x, y = pad + i * step, y_of(p.value)
        if p.value is not None:
            coords.append(f"{x:.1f},{y:.1f}")
        shown = "nothing measured" if p.value is None else f"{p.value:.6g}"
        when = f" {p.at}" if p.at else ""
        last = i == len(points) - 1
        dots.append(
            Dot(x, y, 3.2 if last else 2.2, f"s-{p.severity}", f"run {p.run}{when}: {shown}")
        )
    return Chart(
        "trend",
        width,
        height,
        f"Trend over {len(points)} runs",
        line=" ".join(coords) if len(coords) > 1 else None,
        dots=tuple(dots),
    )


def _bound(value: float | int | None) -> str:
    return "null" if value is None else f"{value:.4g}"


def percent_text(value: float) -> str:
    """``12.5%``, ``<0.01%``, ``0%``."""
    if value == 0:
        return "0%"
    if value < 0.01:
        return "<0.01%"
    if 99.995 <= value < 100:
        return ">99.99%"
    return f"{value:.2f}".rstrip("0").rstrip(".") + "%"

"""The geometry of the report's charts (inline SVG): bars, labels and lines in a
``viewBox`` of their own, so the page scales them to its width. Pure arithmetic; the
template draws them (and escapes every label).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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
    anomalous: bool = False
    """Judged an anomaly of its rule's history (docs/monitoring.md)."""


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
    """One stacked bar per table (and comparison): its rules (checks) by severity, every
    bar the same width."""
    parts = tuple((s, f"s-{s}", s) for s in SEVERITIES)
    return stacked_bars(tables, parts, "overview", "Rules by status, per table", "no rules")


def stacked_bars(
    rows: Sequence[tuple[str, Mapping[str, int]]],
    parts: Sequence[tuple[str, str, str]],
    kind: str,
    title: str,
    empty: str,
) -> Chart:
    """One stacked bar per row: its counts of each part (``key``, CSS class, word), in
    the order of ``parts``, each bar spanning the same width."""
    row, name_w, bar_w, gap = 24, 170, 360, 6
    bars = []
    for i, (name, counts) in enumerate(rows):
        y = i * row + gap / 2
        total = sum(counts.get(key, 0) for key, _, _ in parts)
        rects: list[Rect] = []
        x = float(name_w)
        for key, cls, word in parts:
            n = counts.get(key, 0)
            if not n:
                continue
            w = bar_w * n / total
            rects.append(Rect(x, y, w, row - gap, cls, f"{name}: {n:,} {word}"))
            x += w
        if not rects:
            rects.append(Rect(x, y, bar_w, row - gap, "s-none", f"{name}: {empty}"))
        said = " · ".join(f"{counts[k]:,} {word}" for k, _, word in parts if counts.get(k))
        bars.append(
            Bar(
                tuple(rects),
                (
                    Label(name_w - 8, y + row / 2, _short(name, 24), "end"),
                    Label(name_w + bar_w + 8, y + row / 2, said or empty, "start", "n"),
                ),
                f"{name}: {said or empty}",
            )
        )
    said_w = max(7 * len(b.labels[1].text) + 8 for b in bars) if bars else 0
    width = name_w + bar_w + max(150 if kind == "overview" else 330, said_w)
    return Chart(kind, width, max(len(rows), 1) * row, title, tuple(bars))


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 5, 10, 20, 25, 50, 100 (percent) at or above ``value``."""
    return next((n for n in _NICE if value <= n), 100)


def failing_percent(rules: Sequence[tuple[str, float | None, str]]) -> Chart:
    """One horizontal bar per rule: its failing rows as a percentage of the table's,
    on a scale up to the largest (rounded up to 1, 2, 5, 10, 20, 25, 50 or 100%)."""
    bars = [(label, pct, state, percent_text(pct or 0.0)) for label, pct, state in rules]
    return percent_bars(bars, "failing", "Failing rows, percent of the table", " failing")


def percent_bars(
    rows: Sequence[tuple[str, float | None, str, str]],
    kind: str,
    title: str,
    said: str = "",
    widths: tuple[int, int] = (220, 300),
) -> Chart:
    """One horizontal bar per row (``label``, percentage, state, what its value label
    says), on a scale up to the largest percentage (rounded up to a nice ceiling);
    ``widths``: of the labels and of the bars (a label is cut to fit its width)."""
    row, (name_w, bar_w) = 20, widths
    note_w = max([80, *(7 * len(note) for *_, note in rows)])
    chars = max((name_w - 16) // 6, 4)
    top = nice_ceiling(max((p or 0.0) for _, p, _, _ in rows))
    bars = []
    for i, (label, pct, state, note) in enumerate(rows):
        y = i * row + 3
        value = pct or 0.0
        w = bar_w * value / top if top else 0.0
        if 0 < w < 1.5:
            w = 1.5
        bars.append(
            Bar(
                (
                    Rect(name_w, y, bar_w, row - 6, "track", ""),
                    Rect(name_w, y, w, row - 6, f"r-{state}", f"{label}: {note}{said}"),
                ),
                (
                    Label(name_w - 8, y + (row - 6) / 2, _short(label, chars), "end"),
                    Label(
                        name_w + bar_w + 8,
                        y + (row - 6) / 2,
                        note,
                        "start",
                        "n",
                    ),
                ),
                f"{label}: {note}{said}",
            )
        )
    axis = (Label(name_w + bar_w, len(rows) * row + 10, f"{top:g}%", "end", "axis"),)
    return Chart(
        kind,
        name_w + bar_w + note_w,
        len(rows) * row + 16,
        title,
        tuple(bars),
        (Label(name_w, len(rows) * row + 10, "0%", "start", "axis"), *axis),
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


def trend(
    points: Sequence[Point],
    shown: Callable[[float], str] = lambda v: f"{v:.6g}",
    band: tuple[float | None, float | None] | None = None,
) -> Chart:
    """A sparkline of a rule (or a comparison's metric) over runs, oldest first, this run
    last: a dot per run coloured by severity (ringed when judged an anomaly), the first
    and last values written at its ends (``shown`` writes a value: ``0.3%``, ``2``), and
    the ``band`` of values its history allowed this run (low, high; None: no bound that
    side) shaded behind the last dot."""
    width, height, pad, left, right = 232.0, 30.0, 4.0, 52.0, 52.0
    values = [p.value for p in points if p.value is not None]
    values += [b for b in band or () if b is not None]
    lo, hi = (min(values), max(values)) if values else (0.0, 0.0)
    step = (width - left - right - 2 * pad) / max(len(points) - 1, 1)

    def y_of(value: float | None) -> float:
        if value is None:
            return height - pad
        if hi == lo:
            return height / 2
        return height - pad - (height - 2 * pad) * (value - lo) / (hi - lo)

    dots = []
    coords = []
    for i, p in enumerate(points):
        x, y = left + pad + i * step, y_of(p.value)
        if p.value is not None:
            coords.append(f"{x:.1f},{y:.1f}")
        said = "nothing measured" if p.value is None else shown(p.value)
        when = f" {p.at}" if p.at else ""
        last = i == len(points) - 1
        cls = f"s-{p.severity}" + (" anomaly" if p.anomalous else "")
        said += " (an anomaly)" if p.anomalous else ""
        dots.append(Dot(x, y, 3.2 if last else 2.2, cls, f"run {p.run}{when}: {said}"))
    ends = (
        [
            Label(left - 2, height / 2 + 4, _ends(points[0], shown), "end", "n"),
            Label(width - right + 2, height / 2 + 4, _ends(points[-1], shown), "start", "last"),
        ]
        if points
        else []
    )
    bars: tuple[Bar, ...] = ()
    if band is not None and points:
        x = left + pad + (len(points) - 1) * step
        bars = (_band(band, x, (y_of(band[1]), y_of(band[0])), (pad, height - pad), shown),)
    return Chart(
        "trend",
        width,
        height,
        f"Trend over {len(points)} runs",
        bars=bars,
        labels=tuple(ends),
        line=" ".join(coords) if len(coords) > 1 else None,
        dots=tuple(dots),
    )


def _band(
    band: tuple[float | None, float | None],
    x: float,
    ys: tuple[float, float],
    edges: tuple[float, float],
    shown: Callable[[float], str],
) -> Bar:
    """The shaded band of values a trend's last run was allowed, at ``x``: from ``ys``
    (the y of the high and the low bound), a missing bound reaching the chart's ``edges``
    (top, bottom)."""
    top = edges[0] if band[1] is None else ys[0]
    bottom = edges[1] if band[0] is None else ys[1]
    allowed = " – ".join("…" if b is None else shown(b) for b in band)
    said = f"allowed this run: {allowed}"
    return Bar((Rect(x - 5, top, 10, max(bottom - top, 1.0), "band", said),), (), said)


def _ends(point: Point, shown: Callable[[float], str]) -> str:
    """A trend's end label: the value as ``shown`` writes it, shortened to fit the 50
    units beside the line (``1051%``, ``12.3k``); its dot's title keeps it whole."""
    if point.value is None:
        return "–"
    text = shown(point.value)
    if len(text) <= END_CHARS:
        return text
    unit = "%" if text.endswith("%") else ""
    return compact(point.value) + unit


END_CHARS = 7
"""The longest end label a trend writes as it is (11 px digits, 50 units of room)."""


def compact(value: float) -> str:
    """A number in at most 7 characters: 4 significant digits, from 10,000 on 3 with
    ``k``, ``M``, ``G`` or ``T``.

    >>> compact(1050.79), compact(123456.0), compact(-2.5e9), compact(999999.0)
    ('1051', '123k', '-2.5G', '1M')
    >>> compact(0.000123456), compact(-0.5)
    ('0.00012', '-0.5')
    """
    size = abs(value)
    if size < 9999.5:
        return f"{value:.2g}" if 0 < size < 0.001 else f"{value:.4g}"
    for scale, suffix in ((1e3, "k"), (1e6, "M"), (1e9, "G"), (1e12, "T")):
        if size / scale < 999.5:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.2g}"


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

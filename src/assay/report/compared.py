"""What a report shows of a compared dataset, read from its ``comparison`` event alone
(docs/events.md#comparison-one-compared-dataset): the counts of each side, the pairs,
the mismatches per column, the checks with their verdicts, the sample rows side by side
with the differing cells marked, and the trends of its metrics over earlier runs.
Pure data, as :mod:`assay.report.model`; the templates lay it out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from assay.report import charts
from assay.report.sidebyside import SideBySide, side_by_side
from assay.report.text import number, percent, readable, run_time, verdict_of, where

Event = dict[str, Any]
SEVERITIES = ("pass", "warn", "fail", "error")
TREND_COUNTS = ("matched_percent", "missing_in_target", "missing_in_source", "unreconciled")
"""The counts whose trend a comparison shows (besides its checks')."""
SCHEMA_PARTS = ("source_only", "target_only", "type_differences")
PERCENTS = frozenset({"matched_percent", "mismatch_percent"})
SIDE_COUNTS = (
    ("rows", "source_rows", "target_rows", False),
    (
        "rows in no pair (missing on the other side)",
        "missing_in_target",
        "missing_in_source",
        False,
    ),
    ("duplicated keys", "duplicate_keys", "duplicate_keys", True),
    ("rows beyond the first of their key", "duplicate_rows", "duplicate_rows", True),
    (
        "columns the other side lacks",
        "columns_missing_in_target",
        "columns_missing_in_source",
        False,
    ),
)
"""The counts shown per side: words, the source's and the target's count, and whether
the count is one object with a value per side (``duplicate_keys: {source, target}``)."""
ROW_PARTS = (
    ("matched", "r-pass", "in a matched pair"),
    ("mismatched", "r-warn", "in a pair that differs"),
    ("missing", "r-fail", "in no pair"),
)
"""The parts of a side's rows in the rows chart."""


@dataclass(frozen=True, slots=True)
class Count:
    """One count of the comparison: its event name, its words, its value (exact, and
    as shown)."""

    name: str
    label: str
    value: Any
    shown: str


@dataclass(frozen=True, slots=True)
class SideCount:
    """A count of each side: source and target."""

    label: str
    source: Count
    target: Count


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    mismatched: int
    null_mismatched: int
    percent: float | None
    max_abs_diff: Any
    shown_diff: str


@dataclass(frozen=True, slots=True)
class Trend:
    """A metric over runs, this run last."""

    metric: str
    chart: charts.Chart | None
    points: tuple[charts.Point, ...]
    text: str
    """The last values in words, oldest first: ``75% → 25%``."""


@dataclass(frozen=True, slots=True)
class Check:
    """One check of a comparison (its ``checks`` entry is ``event``)."""

    event: Event
    metric: str
    threshold: str
    value: Any
    shown: str
    passed: bool
    severity: str
    state: str
    verdict: str
    message: str
    trend: Trend | None

    @property
    def ok(self) -> bool:
        return self.severity == "pass"


@dataclass(frozen=True, slots=True)
class Comparison:
    """One ``comparison`` line, with what the report shows of it."""

    event: Event
    name: str
    anchor: str
    semantics: str
    source: str
    target: str
    keys: tuple[str, ...]
    passed: bool
    severity: str
    state: str
    verdict: str
    blocking: bool
    waiver: str | None
    message: str
    error: str | None
    location: str
    sides: tuple[SideCount, ...]
    pairs: tuple[Count, ...]
    rows: charts.Chart | None
    """Each side's rows: in a matched pair, in a pair that differs, in no pair."""
    columns: tuple[Column, ...]
    mismatches: charts.Chart | None
    """The mismatched pairs of each column, when one differs."""
    checks: tuple[Check, ...]
    samples: SideBySide | None
    schema: dict[str, Any]
    outputs: tuple[dict[str, Any], ...]
    trends: tuple[Trend, ...]

    @property
    def ok(self) -> bool:
        return self.severity == "pass"

    def value(self, name: str, side: str | None = None) -> Any:
        """A count of the line (``None`` after an error): ``value("matched")``,
        ``value("duplicate_keys", "source")``."""
        found = (self.event.get("counts") or {}).get(name)
        if side is not None:
            return found.get(side) if isinstance(found, dict) else None
        return found

    def trend_of(self, metric: str) -> Trend | None:
        """The trend of one of :data:`TREND_COUNTS`, when earlier runs have it."""
        return next((t for t in self.trends if t.metric == metric), None)

    @property
    def counts(self) -> dict[str, int]:
        """Its checks by severity (an error without checks counts as one error)."""
        counts = {s: sum(c.severity == s for c in self.checks) for s in SEVERITIES}
        if self.error and not counts["error"]:
            counts["error"] = 1
        return counts


# --- building -----------------------------------------------------------------------------


def comparisons_of(
    events: Sequence[Event], history: Sequence[Sequence[Event]] = (), files: Sequence[str] = ()
) -> tuple[Comparison, ...]:
    """The run's comparisons in config order (``files``: the config files as given),
    each with its trends over ``history`` (earlier runs' events, oldest first)."""
    found = [e for e in events if e.get("event") == "comparison"]
    found.sort(key=lambda e: _config_order(e.get("location"), files))
    points = _points([*history, events])
    return tuple(
        comparison(e, f"c{i}", points.get(str(e.get("comparison")), {}))
        for i, e in enumerate(found)
    )


def comparison(
    event: Event, anchor: str, points: dict[str, list[charts.Point]] | None = None
) -> Comparison:
    """What the report shows of one ``comparison`` event (``points``: its metrics in
    every run of the report's history, this run last)."""
    points = points or {}
    counts = event.get("counts") or {}
    state, verdict = verdict_of(event)
    columns = tuple(_column(c) for c in event.get("columns") or ())
    checks = tuple(
        _check(c, event, points.get(f"check {c.get('metric')}", []))
        for c in event.get("checks") or ()
    )
    differing = [c for c in columns if c.mismatched]
    return Comparison(
        event=event,
        name=str(event.get("comparison", "")),
        anchor=anchor,
        semantics=str(event.get("semantics", "")),
        source=str(event.get("source", "")),
        target=str(event.get("target", "")),
        keys=tuple(event.get("keys") or ()),
        passed=bool(event.get("passed")),
        severity=str(event.get("severity", "error")),
        state=state,
        verdict=verdict,
        blocking=bool(event.get("blocking")),
        waiver=event.get("waiver"),
        message=readable(str(event.get("message", ""))),
        error=event.get("error"),
        location=where(event.get("location")),
        sides=_sides(counts) if counts else (),
        pairs=_pairs(counts) if counts else (),
        rows=_rows_chart(counts) if counts else None,
        columns=columns,
        mismatches=_mismatch_chart(differing) if differing else None,
        checks=checks,
        samples=side_by_side(
            event.get("samples"),
            event.get("keys") or (),
            [c.name for c in columns],
            _duplicated(counts),
        ),
        schema={k: (event.get("schema") or {}).get(k) or [] for k in SCHEMA_PARTS},
        outputs=tuple(event.get("outputs") or ()),
        trends=tuple(_trend(m, points[m]) for m in TREND_COUNTS if len(points.get(m, [])) > 1),
    )


def _config_order(location: dict[str, Any] | None, files: Sequence[str]) -> tuple[int, str, int]:
    if not location:
        return (len(files) + 1, "", 0)
    file = location.get("file") or ""
    rank = files.index(file) if file in files else len(files)
    return (rank, "" if file in files else file, location.get("line") or 0)


def shown(metric: str, value: Any) -> str:
    """A count or a check's value as the report shows it: percentages with ``%``,
    numbers rounded (:func:`assay.report.text.number`), counts with thousands separators.

    >>> shown("mismatch_percent(amount)", 14.285714285714286), shown("unmatched", 12345)
    ('14.29%', '12,345')
    """
    if isinstance(value, bool) or value is None:
        return number(value)
    if metric.split("(")[0] in PERCENTS and isinstance(value, (int, float)):
        return percent(float(value))
    if isinstance(value, int):
        return f"{value:,}"
    return number(value)


def _count(counts: dict[str, Any], name: str, label: str, side: str | bool | None = None) -> Count:
    value = counts.get(name)
    if side is not None:
        value = value.get(side) if isinstance(value, dict) else None
        return Count(f"{name}({side})", label, value, shown(name, value))
    return Count(name, label, value, shown(name, value))


def _sides(counts: dict[str, Any]) -> tuple[SideCount, ...]:
    return tuple(
        SideCount(
            label,
            _count(counts, source, label, "source" if per_side else None),
            _count(counts, target, label, "target" if per_side else None),
        )
        for label, source, target, per_side in SIDE_COUNTS
    )


def _pairs(counts: dict[str, Any]) -> tuple[Count, ...]:
    names = (
        ("compared", "pairs compared"),
        ("matched", "matched"),
        ("matched_percent", "matched, percent of the larger side"),
        ("mismatched", "pairs that differ"),
        ("mismatch_percent", "differing, percent of the pairs"),
        ("unmatched", "unmatched"),
        ("unreconciled", "rows of both sides in no matched pair"),
        ("type_differences", "columns of two types"),
    )
    return tuple(_count(counts, name, label) for name, label in names if name in counts)


def _duplicated(counts: dict[str, Any] | None) -> tuple[bool, bool]:
    """Whether the source, the target has rows beyond the first of their key."""
    extra = (counts or {}).get("duplicate_rows")
    if not isinstance(extra, dict):
        return (False, False)
    return (bool(extra.get("source")), bool(extra.get("target")))


def _rows_chart(counts: dict[str, Any]) -> charts.Chart | None:
    """Each side's rows split into matched pairs, differing pairs and rows in no pair;
    only when they add up to the side's rows (a spark-data-test job counts keys)."""
    rows: list[tuple[str, dict[str, int]]] = []
    for side, total, missing in (
        ("source", counts.get("source_rows"), counts.get("missing_in_target")),
        ("target", counts.get("target_rows"), counts.get("missing_in_source")),
    ):
        found = {"matched": counts.get("matched"), "mismatched": counts.get("mismatched")}
        found["missing"] = missing
        parts = {k: v for k, v in found.items() if isinstance(v, int)}
        if len(parts) < 3 or not isinstance(total, int) or sum(parts.values()) != total:
            return None
        rows.append((f"{side}: {total:,} rows", parts))
    return charts.stacked_bars(rows, ROW_PARTS, "rows", "Rows of each side", "no rows")


def _column(column: Event) -> Column:
    diff = column.get("max_abs_diff")
    return Column(
        name=str(column.get("column", "")),
        mismatched=int(column.get("mismatched") or 0),
        null_mismatched=int(column.get("null_mismatched") or 0),
        percent=column.get("mismatch_percent"),
        max_abs_diff=diff,
        shown_diff=number(diff),
    )


def _mismatch_chart(columns: Sequence[Column]) -> charts.Chart:
    bars = []
    for c in columns:
        note = f"{c.mismatched:,} ({percent(c.percent or 0.0)})"
        if c.null_mismatched:
            note += f", {c.null_mismatched:,} null vs value"
        if c.max_abs_diff is not None:
            note += f", max diff {c.shown_diff}"
        bars.append((c.name, c.percent, "fail", note))
    return charts.percent_bars(bars, "columns", "Pairs that differ, per column")


def _check(check: Event, event: Event, points: list[charts.Point]) -> Check:
    metric = str(check.get("metric", ""))
    judged = {**check, "blocking": event.get("blocking"), "waiver": event.get("waiver")}
    state, verdict = verdict_of(judged)
    return Check(
        event=check,
        metric=metric,
        threshold=str(check.get("threshold") or ""),
        value=check.get("value"),
        shown=shown(metric, check.get("value")),
        passed=bool(check.get("passed")),
        severity=str(check.get("severity", "error")),
        state=state,
        verdict=verdict,
        message=readable(str(check.get("message", "")), check.get("value")),
        trend=_trend(metric, points) if len(points) > 1 else None,
    )


# --- trends -------------------------------------------------------------------------------


def _points(runs: Sequence[Sequence[Event]]) -> dict[str, dict[str, list[charts.Point]]]:
    """Per comparison name, per metric (a count, or ``check <metric>``), a point per run
    that has it, oldest first."""
    found: dict[str, dict[str, list[charts.Point]]] = {}
    for events in runs:
        summary = next((e for e in reversed(events) if e.get("event") == "summary"), {})
        at, run = run_time(summary), str(summary.get("run_id", ""))
        for e in events:
            if e.get("event") != "comparison":
                continue
            metrics = found.setdefault(str(e.get("comparison")), {})
            severity = str(e.get("severity", "error"))
            for name in TREND_COUNTS:
                value = _float((e.get("counts") or {}).get(name))
                metrics.setdefault(name, []).append(charts.Point(run, at, value, severity))
            for c in e.get("checks") or ():
                point = charts.Point(run, at, _float(c.get("value")), str(c.get("severity")))
                metrics.setdefault(f"check {c.get('metric')}", []).append(point)
    return found


def _float(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _trend(metric: str, points: Sequence[charts.Point]) -> Trend:
    def said(value: float) -> str:
        return shown(
            metric,
            int(value) if value.is_integer() and metric.split("(")[0] not in PERCENTS else value,
        )

    last = [("–" if p.value is None else said(p.value)) for p in points[-5:]]
    return Trend(metric, charts.trend(points, said), tuple(points), " → ".join(last))

"""What a report shows, read from the event stream alone (docs/events.md): the run, its
tables in config order, their rules in config order, and the trend of each rule over
earlier runs. Pure data: the templates (:mod:`assay.report.render`) only lay it out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from assay.report import charts, charts_drift, compared
from assay.report.text import (
    cell,
    details_text,
    expected,
    failing_groups,
    json_value,
    number,
    percent,
    readable,
    verdict_of,
    where,
)
from assay.report.text import run_time as measured_at

__all__ = ["cell", "failing_groups", "json_value", "number", "percent", "where"]

Event = dict[str, Any]
SEVERITIES = ("pass", "warn", "fail", "error")
NOT_ROWS = frozenset({"schema", "schema_change"})
"""Rule types whose ``failed_count`` is not a count of the table's rows (``schema``
counts problems, ``schema_change`` changes): no failing percentage."""
_TOKEN = re.compile(r"(?i)(token=)[^;&\s'\"]*")


@dataclass(frozen=True, slots=True)
class Samples:
    """Sample failing rows as a table: the key columns first."""

    columns: tuple[str, ...]
    keys: frozenset[str]
    rows: tuple[tuple[str, ...], ...]
    nulls: tuple[tuple[bool, ...], ...]


@dataclass(frozen=True, slots=True)
class Rule:
    """One result line, with what the page shows of it."""

    event: Event
    index: int
    type: str
    name: str | None
    columns: tuple[str, ...]
    threshold: str | None
    measured: str
    failed_count: int | None
    row_count: int | None
    percent: float | None
    passed: bool
    severity: str
    blocking: bool
    waiver: str | None
    state: str
    """``pass``, ``tolerated`` (passed with failing rows within its tolerance), ``warn``,
    ``fail``, ``waived`` (failed, not failing the run) or ``error``."""
    verdict: str
    """The state in words: ``pass``, ``pass: 3 failing rows tolerated``, ``fail: waived
    (on_failure: warn)``..."""
    message: str
    location: str
    samples: Samples | None
    histogram: charts.Chart | None
    details: str | None
    """The rule's ``details`` for people (``count 7 · mean 4.85714 · ...``), rounded; the
    page keeps them exact in ``data-value``."""
    trend: charts.Chart | None = None
    points: tuple[charts.Point, ...] = ()
    """This rule in every run of the report's history, this run last."""
    trend_unit: str = ""
    """What the points measure: ``%``, ``rows`` or ``""`` (the measured value)."""

    @property
    def ok(self) -> bool:
        return self.severity == "pass"

    @property
    def groups(self) -> bool:
        """Whether ``failed_count`` counts groups (a ``group_by`` rule), not rows."""
        return counts_groups(self.event)

    @property
    def label(self) -> str:
        """``#4 regex (email)``: the rule in a chart's label."""
        cols = f" ({', '.join(self.columns)})" if self.columns else ""
        return f"#{self.index} {self.name or self.type}{cols}"


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    anchor: str
    source: str | None
    keys: tuple[str, ...]
    row_count: int | None
    spark_plans: int | None
    elapsed_ms: int | None
    error: str | None
    passed: bool
    counts: dict[str, int]
    rules: tuple[Rule, ...]
    location: str
    outputs: tuple[dict[str, Any], ...]
    failing: charts.Chart | None
    """Failing percentage of each rule that counts rows; ``None`` when no rule has a
    failing row (an all-zero chart says nothing)."""


@dataclass(frozen=True, slots=True)
class Run:
    status: str
    run_id: str
    started_at: str | None
    elapsed_ms: int | None
    server: str | None
    files: tuple[str, ...]
    dialects: tuple[str, ...]
    assay_version: str | None
    exit_code: int | None
    exit_reason: str
    totals: dict[str, int]
    spark_plans: int | None
    tables: tuple[Table, ...]
    overview: charts.Chart
    history_runs: int = 0
    complete: bool = True
    """Whether the stream ended with its summary (a cut-off stream is still shown)."""
    problems: tuple[Rule, ...] = field(default=())
    comparisons: tuple[compared.Comparison, ...] = ()
    """The compared datasets, in config order."""

    @property
    def trends(self) -> bool:
        """Whether the rule tables have a trend column: earlier runs are reported, or a
        rule judged over time carries the earlier values it was judged against."""
        return self.history_runs > 0 or any(r.trend for t in self.tables for r in t.rules)

    @property
    def units(self) -> tuple[tuple[str, str], ...]:
        """``(anchor, name)`` of every table, then every comparison: what the page's
        filters select."""
        return tuple((t.anchor, t.name) for t in self.tables) + tuple(
            (c.anchor, c.name) for c in self.comparisons
        )

    @property
    def unsettled(self) -> tuple[compared.Comparison, ...]:
        """The comparisons that did not pass."""
        return tuple(c for c in self.comparisons if not c.ok)


# --- reading ------------------------------------------------------------------------------


def runs_of(events: Iterable[Event]) -> list[list[Event]]:
    """The events grouped by ``run_id``, runs in the order they start."""
    runs: dict[str, list[Event]] = {}
    for event in events:
        runs.setdefault(str(event.get("run_id", "")), []).append(event)
    return list(runs.values())


def parse_lines(data: bytes) -> list[Event]:
    """JSON lines (``assay run`` output), or one JSON report document (``--jsonReport``:
    its ``events``; an appended report file has one document per line)."""
    events: list[Event] = []
    for line_number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as e:
            raise ValueError(f"line {line_number} is not JSON: {e}") from None
        if isinstance(obj, dict) and "events" in obj and "event" not in obj:
            events.extend(obj["events"])
        elif isinstance(obj, dict) and "event" in obj:
            events.append(obj)
        else:
            raise ValueError(f"line {line_number} is not an assay event")
    if not events and data.strip().startswith(b"{"):
        doc = orjson.loads(data)
        events = list(doc.get("events", []))
    return events


# --- building -----------------------------------------------------------------------------


def build(events: Sequence[Event], history: Sequence[Sequence[Event]] = ()) -> Run:
    """The report of one run (``events``), with trends over ``history`` (earlier runs'
    events, oldest first; the run itself is the last point of each trend)."""
    summary = next((e for e in reversed(events) if e.get("event") == "summary"), None)
    results = [e for e in events if e.get("event") == "result"]
    finished = {e["table"]: e for e in events if e.get("event") == "table"}
    files = tuple(summary.get("files", ())) if summary else ()
    names: list[str] = []
    for name in [*finished, *(r["table"] for r in results)]:
        if name not in names:
            names.append(name)
    names.sort(key=lambda n: _config_order(finished.get(n), results, n, files))
    trends = _trends([*history, events])
    trend_of = {id(e): trends[key] for e, key in rule_keys(events) if key in trends}
    tables = tuple(
        _table(name, finished.get(name), [r for r in results if r["table"] == name], trend_of, i)
        for i, name in enumerate(names)
    )
    totals = {s: sum(t.counts[s] for t in tables) for s in SEVERITIES}
    totals["rules"] = sum(len(t.rules) for t in tables)
    comparisons = compared.comparisons_of(events, history, files)
    status = summary["status"] if summary else _status(tables, comparisons, totals)
    run_id = str((summary or (events[0] if events else {})).get("run_id", ""))
    return Run(
        status=status,
        run_id=run_id,
        started_at=summary.get("started_at") if summary else None,
        elapsed_ms=summary.get("elapsed_ms") if summary else None,
        server=redact(summary.get("server")) if summary else None,
        files=files,
        dialects=tuple(summary.get("dialects", ())) if summary else (),
        assay_version=summary.get("assay_version") if summary else None,
        exit_code=summary.get("exit_code") if summary else None,
        exit_reason=summary.get("exit_reason", "") if summary else "the run did not finish",
        totals=totals,
        spark_plans=summary.get("spark_plans") if summary else None,
        tables=tables,
        overview=charts.status_overview(
            [(t.name, t.counts) for t in tables] + [(c.name, c.counts) for c in comparisons]
        ),
        history_runs=len(history),
        complete=summary is not None,
        problems=tuple(r for t in tables for r in t.rules if not r.ok),
        comparisons=comparisons,
    )


def _status(
    tables: Sequence[Table], comparisons: Sequence[compared.Comparison], totals: dict[str, int]
) -> str:
    """The run's status from its lines, when the stream ends before its summary."""
    severities = {c.severity for c in comparisons}
    if totals["error"] or any(t.error for t in tables) or "error" in severities:
        return "ERROR"
    return "FAIL" if totals["fail"] or "fail" in severities else "PASS"


def redact(url: str | None) -> str | None:
    """A server URL with any ``token=`` value replaced by ``***`` (the stream has it
    redacted already; a report never shows one)."""
    return None if url is None else _TOKEN.sub(r"\1***", url)


def _config_order(
    finished: Event | None, results: Sequence[Event], name: str, files: Sequence[str]
) -> tuple[int, str, int]:
    """Where the table is written: its file's place among the config files (files a
    config pulls in, such as a Metorikku job's metric files, after them), then its line."""
    where = finished.get("location") if finished else None
    if where is None:
        where = next((r["location"] for r in results if r["table"] == name), None)
    if not where:
        return (len(files) + 1, "", 0)
    file = where.get("file") or ""
    rank = files.index(file) if file in files else len(files)
    return (rank, "" if file in files else file, where.get("line") or 0)


def _table(
    name: str,
    finished: Event | None,
    results: Sequence[Event],
    trend_of: dict[int, tuple[str, list[charts.Point]]],
    position: int,
) -> Table:
    keys = tuple(finished.get("keys", ())) if finished else ()
    rules = tuple(
        _rule(r, keys, trend_of.get(id(r), ("", [])))
        for r in sorted(results, key=lambda r: r.get("rule_index", 0))
    )
    counts = {s: sum(r.severity == s for r in rules) for s in SEVERITIES}
    error = finished.get("error") if finished else None
    if error and not counts["error"]:
        counts["error"] = 1
    bars = [(r.label, r.percent, r.state) for r in rules if r.percent is not None]
    return Table(
        name=name,
        anchor=f"t{position}",
        source=finished.get("source") if finished else None,
        keys=keys,
        row_count=finished.get("row_count") if finished else None,
        spark_plans=finished.get("spark_plans") if finished else None,
        elapsed_ms=finished.get("elapsed_ms") if finished else None,
        error=error,
        passed=bool(finished.get("passed")) if finished else False,
        counts=counts,
        rules=rules,
        location=where(finished.get("location")) if finished else "",
        outputs=tuple(finished.get("outputs", ())) if finished else (),
        failing=charts.failing_percent(bars) if any(p for _, p, _ in bars) else None,
    )


Trends = dict[tuple[Any, ...], tuple[str, list[charts.Point]]]
"""Per rule (:func:`rule_keys`): the unit of its trend and a point per run."""


def _rule(event: Event, keys: Sequence[str], trend: tuple[str, list[charts.Point]]) -> Rule:
    rule = event.get("rule") or {}
    failed = event.get("failed_count")
    rows = event.get("row_count")
    percent = trend_value(event, "%")
    state, verdict = verdict_of(event)
    details = event.get("details")
    histogram = None
    if isinstance(details, dict) and isinstance(details.get("histogram"), dict):
        histogram = charts.histogram(details["histogram"].get("bins") or [])
    elif isinstance(details, dict) and isinstance(details.get("drift"), dict):
        histogram = charts_drift.distributions(details["drift"])  # both sides, drawn alike
    unit, points = trend
    band = None
    if isinstance(event.get("baseline"), dict):
        unit, points, band = judged_over_time(event, unit, points)
    stats = details.values() if isinstance(details, dict) else ()
    return Rule(
        event=event,
        index=int(event.get("rule_index", 0)),
        type=str(rule.get("type", "")),
        name=rule.get("name"),
        columns=tuple(rule.get("columns") or ()),
        threshold=expected(event),
        measured=failing_groups(event) or number(event.get("metric_value")),
        failed_count=failed,
        row_count=rows,
        percent=percent,
        passed=bool(event.get("passed")),
        severity=str(event.get("severity", "error")),
        blocking=bool(event.get("blocking")),
        waiver=event.get("waiver"),
        state=state,
        verdict=verdict,
        message=readable(str(event.get("message", "")), event.get("metric_value"), *stats),
        location=where(event.get("location")),
        samples=_samples(event.get("samples"), keys),
        histogram=histogram,
        details=_details_text(details) if details else None,
        trend=charts.trend(points, trend_shown(unit), band) if len(points) > 1 else None,
        points=tuple(points),
        trend_unit=unit,
    )


def _details_text(details: Any) -> str:
    drift = details.get("drift") if isinstance(details, dict) else None
    return charts_drift.drift_text(drift) if isinstance(drift, dict) else details_text(details)


def _samples(samples: Sequence[dict[str, Any]] | None, keys: Sequence[str]) -> Samples | None:
    if not samples:
        return None
    seen: list[str] = [k for k in keys if any(k in s for s in samples)]
    for sample in samples:
        seen += [c for c in sample if c not in seen]
    rows = tuple(tuple(cell(s.get(c)) for c in seen) for s in samples)
    nulls = tuple(tuple(s.get(c) is None for c in seen) for s in samples)
    return Samples(tuple(seen), frozenset(keys), rows, nulls)


def rule_keys(events: Sequence[Event]) -> list[tuple[Event, tuple[Any, ...]]]:
    """Each result of a run with what identifies it from run to run: its
    table, type, name, and how many rules of that table with the same type and name come
    before it in config order. A report table's rows, which name no rule index, match
    the same way."""
    keys: list[tuple[Event, tuple[Any, ...]]] = []
    seen: dict[tuple[Any, ...], int] = {}
    results = [e for e in events if e.get("event") == "result"]
    for e in sorted(results, key=lambda e: (str(e.get("table")), e.get("rule_index") or 0)):
        rule = e.get("rule") or {}
        base = (e.get("table"), rule.get("type"), rule.get("name") or None)
        keys.append((e, (*base, seen.get(base, 0))))
        seen[base] = seen.get(base, 0) + 1
    return keys


def _trends(runs: Sequence[Sequence[Event]]) -> Trends:
    """Per rule, a point per run. The number followed is the same in every point: the
    failing percentage when every run has it, else the failed count (a report table's
    rows have no row count), else the measured value."""
    found: dict[tuple[Any, ...], list[tuple[Event, str | None]]] = {}
    for events in runs:
        summary = next((e for e in reversed(events) if e.get("event") == "summary"), {})
        for e, key in rule_keys(events):
            found.setdefault(key, []).append((e, measured_at(summary)))
    trends: Trends = {}
    for key, seen in found.items():
        unit = trend_unit([e for e, _ in seen])
        trends[key] = (
            unit,
            [
                charts.Point(
                    run=str(e.get("run_id", "")),
                    at=at,
                    value=trend_value(e, unit),
                    severity=str(e.get("severity", "error")),
                    anomalous=anomalous(e),
                )
                for e, at in seen
            ],
        )
    return trends


def anomalous(event: Event) -> bool:
    """Whether a result was judged an anomaly of its history."""
    baseline = event.get("baseline")
    return isinstance(baseline, dict) and bool((baseline.get("anomaly") or {}).get("anomalous"))


def judged_over_time(
    event: Event, unit: str, points: list[charts.Point]
) -> tuple[str, list[charts.Point], tuple[float | None, float | None] | None]:
    """The trend of a rule judged over time: in the value it was judged by (its metric
    value, or its failed count), from the earlier values its result carries when the
    report has no earlier runs of it; and the band its history allowed this run (the
    strategy's, else the change's)."""
    baseline = event["baseline"]
    judged_unit = "rows" if baseline.get("measure") == "failed_count" else ""
    if len(points) < 2 and baseline.get("points") and baseline.get("value") is not None:
        earlier = [charts.Point("", p.get("run_time"), float(p["value"]), "stored")
                   for p in baseline["points"]]  # fmt: skip
        current = charts.Point(str(event.get("run_id", "")), None, float(baseline["value"]),
                               str(event.get("severity", "error")), anomalous(event))  # fmt: skip
        unit, points = judged_unit, [*earlier, current]
    if unit != judged_unit:
        return unit, points, None  # the trend follows another number: no band on it
    for part in ("anomaly", "change"):
        allowed = (baseline.get(part) or {}).get("expected")
        if isinstance(allowed, dict):
            return unit, points, (allowed.get("low"), allowed.get("high"))
    return unit, points, None


def trend_unit(events: Sequence[Event]) -> str:
    """``%`` (failing percentage), ``rows`` (failed count) or ``""`` (measured value),
    the first that every run has; for a rule the last run judged over time, the number
    it was judged by (so its band is drawn on it)."""
    baseline = events[-1].get("baseline") if events else None
    if isinstance(baseline, dict):
        judged = "rows" if baseline.get("measure") == "failed_count" else ""
        if all(trend_value(e, judged) is not None for e in events):
            return judged
    for unit in ("%", "rows"):
        if all(trend_value(e, unit) is not None for e in events):
            return unit
    return ""


def trend_shown(unit: str) -> Callable[[float], str]:
    """How a trend in ``unit`` writes a value: ``0.3%``, ``691``, ``69.1``."""
    if unit == "%":
        return charts.percent_text
    if unit == "rows":
        return lambda v: f"{v:,.0f}"
    return number


def trend_value(event: Event, unit: str = "%") -> float | None:
    """The number a rule's trend follows in ``unit`` (see :func:`trend_unit`)."""
    failed, rows = event.get("failed_count"), event.get("row_count")
    rule_type = (event.get("rule") or {}).get("type")
    if unit == "%":
        if failed is not None and rows and rule_type not in NOT_ROWS and not counts_groups(event):
            return 100.0 * failed / rows
        return None
    if unit == "rows":
        return None if failed is None else float(failed)
    value = event.get("metric_value")
    if isinstance(value, str):  # exact digits no double holds (docs/events.md)
        return float(value)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def counts_groups(event: Event) -> bool:
    """Whether a result's ``failed_count`` counts a ``group_by`` rule's groups, not rows."""
    return failing_groups(event) is not None

"""The JUnit XML report of a run (``assay run --junit``, ``assay report --junit``), made
from its events alone, as CI servers (Jenkins, GitLab, GitHub test reporters) read it.

One ``<testsuite>`` per table and per comparison, one ``<testcase>`` per rule (per check
of a comparison). What a case is follows the rule's ``severity`` (docs/events.md), never
the run's policy: ``fail`` is a ``<failure>``, ``error`` an ``<error>``, ``warn`` a passing
case whose ``<system-out>`` says ``warning: ...`` (a warning never turns a CI report red);
a table that could not be read or written is one more case, ``(table)``, with an
``<error>``. The file validates against the Jenkins JUnit schema
(``tests/report/data/jenkins-junit.xsd``), which has no ``<properties>`` in a test case:
a rule's numbers are lines of its ``<system-out>``, a table's are its suite's properties.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from assay.report import compared, model

Event = dict[str, Any]
SAMPLES = 5
"""Sample rows a failure's text shows (the JSON lines keep every one)."""
TABLE_CASE = "(table)"
"""The test case of a table's own error (its source could not be read, a write failed)."""
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""Characters XML 1.0 cannot hold, even escaped."""


@dataclass(frozen=True, slots=True)
class Case:
    """One ``<testcase>``: ``outcome`` is ``pass``, ``warn``, ``failure`` or ``error``."""

    name: str
    classname: str
    outcome: str
    message: str = ""
    kind: str = ""
    """The ``type`` of a failure or error: the severity (``fail``, ``error``)."""
    text: str = ""
    """The body of a failure or error: expectation, counts, location, samples."""
    out: str = ""
    """The ``<system-out>``: a warning, and the rule's numbers and location."""


@dataclass(frozen=True, slots=True)
class Suite:
    """One ``<testsuite>``: a table or a comparison."""

    name: str
    cases: tuple[Case, ...]
    time: float | None
    timestamp: str | None
    properties: tuple[tuple[str, str], ...]

    def count(self, outcome: str) -> int:
        return sum(c.outcome == outcome for c in self.cases)


def junit_xml(events: Sequence[Event]) -> bytes:
    """The JUnit XML document of one run's events (UTF-8, with its declaration)."""
    root = _document(suites_of(events))
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def suites_of(events: Sequence[Event]) -> tuple[Suite, ...]:
    """The tables in config order, then the comparisons in config order."""
    run = model.build(events)
    stamp = timestamp(run.started_at)
    finished = {e["table"]: e for e in events if e.get("event") == "table"}
    tables = tuple(_table_suite(t, finished.get(t.name), stamp) for t in run.tables)
    return tables + tuple(_comparison_suite(c, stamp) for c in run.comparisons)


def timestamp(started_at: str | None) -> str | None:
    """The run's start as JUnit writes it: ISO 8601 to the second, in UTC, no zone
    (the form of Ant's schema, which every reader takes).

    >>> timestamp("2024-01-31T06:00:00.250+00:00"), timestamp(None)
    ('2024-01-31T06:00:00', None)
    """
    if not started_at:
        return None
    try:
        at = dt.datetime.fromisoformat(started_at)
    except ValueError:
        return None
    if at.tzinfo is not None:
        at = at.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return at.replace(microsecond=0).isoformat()


# --- tables -------------------------------------------------------------------------------


def _table_suite(table: model.Table, finished: Event | None, stamp: str | None) -> Suite:
    cases = _unique([_rule_case(table.name, rule) for rule in table.rules], table.rules)
    if table.error:
        cases.append(
            Case(
                TABLE_CASE,
                table.name,
                "error",
                message=table.error,
                kind="error",
                text=_lines(table.error, f"location: {table.location}"),
            )
        )
    properties = [
        ("source", table.source),
        ("location", table.location),
        ("row_count", table.row_count),
        ("keys", ", ".join(table.keys) or None),
        ("spark_plans", table.spark_plans),
        ("run_id", finished.get("run_id") if finished else None),
    ]
    return Suite(
        name=table.name,
        cases=tuple(cases),
        time=_seconds(table.elapsed_ms),
        timestamp=stamp,
        properties=tuple((k, str(v)) for k, v in properties if v not in (None, "")),
    )


def case_name(rule: model.Rule) -> str:
    """A rule's test name: its ``name``, else its identity (``rule.id``: ``not_null(email)``,
    ``expression {"expression":"amount > 0"}``), else, on lines saved before results
    carried one, ``type(columns)`` (``type`` and its expectation without columns)."""
    if rule.name:
        return rule.name
    identity = (rule.event.get("rule") or {}).get("id")
    if identity:
        return str(identity)
    if rule.columns:
        return f"{rule.type}({', '.join(rule.columns)})"
    return f"{rule.type} ({rule.threshold})" if rule.threshold else rule.type


def _unique(cases: list[Case], rules: Sequence[model.Rule]) -> list[Case]:
    """Cases named apart: a name two rules share gets each rule's ``#index``."""
    names = [c.name for c in cases]
    return [
        dataclasses.replace(c, name=f"{c.name} #{r.index}") if names.count(c.name) > 1 else c
        for c, r in zip(cases, rules, strict=True)
    ]


def _rule_case(table: str, rule: model.Rule) -> Case:
    numbers = _numbers(rule)
    where = f"location: {rule.location}" if rule.location else ""
    outcome = {"pass": "pass", "warn": "warn", "error": "error"}.get(rule.severity, "failure")
    if outcome in ("pass", "warn"):
        why = rule.verdict.removeprefix("warn: ")
        warning = f"warning ({why}): {rule.message}" if outcome == "warn" else ""
        return Case(case_name(rule), table, outcome, out=_lines(warning, numbers, where))
    return Case(
        case_name(rule),
        table,
        outcome,
        message=rule.message,
        kind=rule.severity,
        text=_lines(
            rule.message,
            f"expected: {rule.threshold}" if rule.threshold else "",
            f"verdict: {rule.verdict}",
            numbers,
            where,
            _samples(rule.event.get("samples")),
        ),
    )


def _numbers(rule: model.Rule) -> str:
    """``failed_count: 3``, ``row_count: 1000``, ``metric_value: 2.5``: those present; a
    ``group_by`` rule's count of failing groups in words (``failed_groups: 0 of 4
    groups fail``) instead of its bare failed count and value."""
    groups = model.failing_groups(rule.event)
    values = (
        ("failed_count", None if groups else rule.failed_count),
        ("failed_groups", groups),
        ("row_count", rule.row_count),
        ("metric_value", None if groups else rule.event.get("metric_value")),
    )
    return _lines(*(f"{k}: {model.cell(v)}" for k, v in values if v is not None))


def _samples(samples: Sequence[Any] | None, label: str = "samples") -> str:
    """The first :data:`SAMPLES` sample rows, one JSON object a line."""
    if not samples:
        return ""
    shown = [model.json_value(s) for s in samples[:SAMPLES]]
    more = f" (first {SAMPLES} of {len(samples)})" if len(samples) > SAMPLES else ""
    return _lines(f"{label}{more}:", *(f"  {s}" for s in shown))


# --- comparisons --------------------------------------------------------------------------


def _comparison_suite(comparison: compared.Comparison, stamp: str | None) -> Suite:
    c = comparison
    cases = [_check_case(c, check) for check in c.checks]
    if c.error:
        cases.append(
            Case(
                TABLE_CASE,
                c.name,
                "error",
                message=c.error,
                kind="error",
                text=_lines(c.error, f"location: {c.location}"),
            )
        )
    counts = c.event.get("counts") or {}
    properties = [
        ("source", c.source),
        ("target", c.target),
        ("keys", ", ".join(c.keys) or None),
        ("location", c.location),
        *((k, v) for k, v in counts.items() if not isinstance(v, dict)),
        ("run_id", c.event.get("run_id")),
    ]
    return Suite(
        name=c.name,
        cases=tuple(cases),
        time=_seconds(c.event.get("elapsed_ms")),
        timestamp=stamp,
        properties=tuple((k, model.cell(v)) for k, v in properties if v is not None and v != ""),
    )


def _check_case(comparison: compared.Comparison, check: compared.Check) -> Case:
    message = str(check.event.get("message", ""))
    numbers = _lines(
        f"value: {model.cell(check.value)}" if check.value is not None else "",
        f"location: {comparison.location}" if comparison.location else "",
    )
    if check.severity in ("pass", "warn"):
        warning = f"warning: {message}" if check.severity == "warn" else ""
        return Case(check.metric, comparison.name, check.severity, out=_lines(warning, numbers))
    samples = comparison.event.get("samples") or {}
    shown = [_samples(rows, f"samples, {side}") for side, rows in samples.items()]
    return Case(
        check.metric,
        comparison.name,
        "failure" if check.severity == "fail" else "error",
        message=message,
        kind=check.severity,
        text=_lines(message, f"expected: {check.event.get('threshold')}", numbers, *shown),
    )


# --- XML ----------------------------------------------------------------------------------


def _document(suites: Iterable[Suite]) -> ET.Element:
    suites = tuple(suites)
    root = ET.Element("testsuites", name="assay")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    seconds = 0.0
    for suite in suites:
        root.append(_suite(suite))
        totals["tests"] += len(suite.cases)
        totals["failures"] += suite.count("failure")
        totals["errors"] += suite.count("error")
        seconds += suite.time or 0.0
    root.attrib.update({k: str(v) for k, v in totals.items()})
    root.set("time", f"{seconds:.3f}")
    return root


def _suite(suite: Suite) -> ET.Element:
    element = ET.Element("testsuite", name=xml_text(suite.name))
    element.set("tests", str(len(suite.cases)))
    element.set("failures", str(suite.count("failure")))
    element.set("errors", str(suite.count("error")))
    element.set("skipped", "0")
    if suite.time is not None:
        element.set("time", f"{suite.time:.3f}")
    if suite.timestamp:
        element.set("timestamp", suite.timestamp)
    if suite.properties:
        properties = ET.SubElement(element, "properties")
        for name, value in suite.properties:
            ET.SubElement(properties, "property", name=xml_text(name), value=xml_text(value))
    for case in suite.cases:
        element.append(_case(case))
    return element


def _case(case: Case) -> ET.Element:
    element = ET.Element("testcase", name=xml_text(case.name), classname=xml_text(case.classname))
    if case.outcome in ("failure", "error"):
        found = ET.SubElement(
            element, case.outcome, message=xml_text(case.message), type=xml_text(case.kind)
        )
        found.text = xml_text(case.text)
    if case.out:
        ET.SubElement(element, "system-out").text = xml_text(case.out)
    return element


def xml_text(value: object) -> str:
    """``value`` as text XML 1.0 can hold: a character it cannot (a control character,
    a lone surrogate) as ``\\xNN`` / ``\\uNNNN``; ElementTree escapes the rest.

    >>> xml_text("a\\x1bb\\x00")
    'a\\\\x1bb\\\\x00'
    """
    return _NOT_XML.sub(lambda m: _escaped(m.group()), str(value))


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _seconds(ms: Any) -> float | None:
    return ms / 1000 if isinstance(ms, (int, float)) and not isinstance(ms, bool) else None


def _lines(*parts: str) -> str:
    return "\n".join(p for p in parts if p)

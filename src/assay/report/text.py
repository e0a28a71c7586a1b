"""The report's words and numbers for people: a verdict in words, a value rounded for
display, a location as ``file:line path``. The JSON lines keep every value exact; the
page keeps it too, in ``data-value`` attributes (:func:`json_value`).
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson

from assay.report import charts

Event = dict[str, Any]


def verdict_of(event: Any) -> tuple[str, str]:
    """A result's (or a comparison's, or a check's) state and its verdict in words.

    The state is ``pass``, ``tolerated`` (passed with failing rows within its
    tolerance), ``warn``, ``fail``, ``waived`` (failed, not failing the run) or
    ``error``; the verdict says it once, readably.

    >>> verdict_of({"severity": "warn", "passed": True})
    ('warn', 'warn: passed, outside its warn threshold')
    >>> verdict_of({"severity": "fail", "passed": False, "blocking": False,
    ...             "waiver": "on_failure: warn"})
    ('waived', 'fail: waived (on_failure: warn)')
    """
    severity = event.get("severity", "error")
    failed = event.get("failed_count")
    waiver = event.get("waiver")
    if severity == "error":
        return "error", "error: not evaluated"
    if severity == "pass":
        if failed:
            rows = "failing row" if failed == 1 else "failing rows"
            return "tolerated", f"pass: {failed:,} {rows} tolerated"
        return "pass", "pass"
    if severity == "warn":
        if event.get("passed"):
            return "warn", "warn: passed, outside its warn threshold"
        return "warn", f"warn: failed, {waiver or 'level warn'}"
    if not event.get("blocking"):
        return "waived", f"fail: waived ({waiver})" if waiver else "fail: does not fail the run"
    return "fail", "fail: fails the run"


def where(location: dict[str, Any] | None) -> str:
    """``file:line path`` of an event's location."""
    if not location:
        return ""
    file = location.get("file") or ""
    line = location.get("line")
    place = f"{file}:{line}" if line is not None else file
    return f"{place} {location.get('path') or ''}".strip()


def number(value: Any) -> str:
    """A measured value for people: integers as written, other numbers to 6 significant
    digits; ``null`` as nothing.

    >>> number(17.17556403731767), number(0.10000000000000142), number(3), number(None)
    ('17.1756', '0.1', '3', '')
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def percent(value: float | None) -> str:
    """``12.5%``, ``<0.01%``, ``0%``; nothing for no percentage."""
    return "" if value is None else charts.percent_text(value)


def cell(value: Any) -> str:
    """A sample value as text: strings as they are, ``null`` for none, JSON otherwise."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    return orjson.dumps(value, default=str).decode()


def json_value(value: Any) -> str:
    """A value exactly as the JSON line has it (the page keeps it in ``data-value``)."""
    return orjson.dumps(value, default=str).decode()


def readable(message: str, *values: Any) -> str:
    """``message`` with each of ``values`` that is a float written as Python writes it
    (``stdDev 17.17556403731767``) rounded as :func:`number` shows it; nothing else of
    the message changes (an exact decimal is a string in the event, never rounded).

    >>> readable("mean 4.857142857142857, max 10.0", 4.857142857142857, 10.0)
    'mean 4.85714, max 10.0'
    """
    for value in values:
        if isinstance(value, float) and math.isfinite(value):
            long, short = repr(value), number(value)
            if len(long) - len(short) > 2:  # a long float, not 10.0 or 2.5
                found = re.compile(rf"(?<![\d.]){re.escape(long)}(?![\d])")
                message = found.sub(short, message)
    return message


def run_time(summary: Event) -> str | None:
    """When a run's values count as measured: the ``run_time`` its metrics were stored
    under (``--run-time``, for a backfill), else when it started.

    >>> run_time({"started_at": "2026-12-04T17:00:00+00:00",
    ...           "metrics": {"run_time": "2024-01-05T06:00:00.000+00:00"}})
    '2024-01-05T06:00:00.000+00:00'
    """
    metrics = summary.get("metrics")
    stored = metrics.get("run_time") if isinstance(metrics, dict) else None
    return str(stored) if stored else summary.get("started_at")


def failing_groups(event: Event) -> str | None:
    """What a ``group_by`` rule's number counts, in words (its ``failed_count`` and
    ``metric_value`` are the groups that fail, never rows): ``0 of 4 groups fail``;
    ``None`` for any other rule.

    >>> failing_groups({"details": {"group_by": ["status"], "groups": 4, "failed_groups": 1}})
    '1 of 4 groups fail'
    >>> failing_groups({"details": {"groups": 1, "failed_groups": 0}}), failing_groups({})
    ('0 of 1 groups fail', None)
    """
    details = event.get("details")
    if not isinstance(details, dict) or "failed_groups" not in details:
        return None
    groups = details.get("groups")
    if not isinstance(groups, int):
        return None
    return f"{details['failed_groups']} of {groups} groups fail"


def details_text(details: Any) -> str:
    """A rule's ``details`` (colstats' numbers, ``column_max_check``'s expected and
    actual) as one line for people, numbers rounded; the histogram is its chart.

    >>> details_text({"count": 7, "stdDev": 17.17556403731767, "histogram": None})
    'count 7 · stdDev 17.1756'
    """
    if not isinstance(details, dict):
        return json_value(details)
    shown = [
        f"{k} {json_value(v) if isinstance(v, (dict, list)) else number(v) or 'none'}"
        for k, v in details.items()
        if k != "histogram"
    ]
    return " · ".join(shown)


def expected(event: Event) -> str | None:
    """What the rule expects, as the report shows it: the result's ``expect.text``
    (``quantity between 1 and 20``), or its ``threshold`` on lines saved before results
    carried one."""
    expect = event.get("expect")
    text = expect.get("text") if isinstance(expect, dict) else None
    return str(text) if text else event.get("threshold")

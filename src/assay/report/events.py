"""The events ``assay run`` streams: one JSON object per line, documented in docs/events.md.

Renaming or removing a field is a breaking change (bump ``SCHEMA_VERSION``); adding one
is not. Numbers are JSON numbers; non-finite floats become ``null``; a number a JSON
reader would not read back exactly (a decimal no double holds, an integer beyond 64 bits)
is a JSON string of its exact digits (:func:`json_number`).
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from assay.ir.origin import Origin
from assay.ir.values import Pairs

SCHEMA_VERSION = 1


def location(origin: Origin) -> dict[str, Any]:
    """An origin as the ``location`` object of an event."""
    return {"file": origin.file, "path": origin.path, "line": origin.line}


_INT64 = 2**63


def json_number(value: object) -> int | float | str | None:
    """A measured number as JSON: a number when a JSON reader reads it back exactly (an
    integer of 64 bits, a double), else the exact decimal digits as a string; None for
    NaN and the infinities (JSON has none).

    >>> json_number(Decimal("2.50")), json_number(Decimal("0.100000000000000001"))
    (2.5, '0.100000000000000001')
    >>> json_number(Decimal("1E+20")), json_number(2**64), json_number(float("nan"))
    ('100000000000000000000', '18446744073709551616', None)
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, Decimal):
        if not value.is_finite():
            return None
        if value == value.to_integral_value():
            whole = int(value)
            return whole if -_INT64 <= whole < _INT64 else str(whole)
        nearest = float(value)
        return nearest if Decimal(repr(nearest)) == value else _digits(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, int) and not -_INT64 <= value < _INT64:
        return str(value)
    assert isinstance(value, (int, float))
    return value


def _digits(value: Decimal) -> str:
    """A decimal's digits in plain notation (no exponent)."""
    return f"{value:f}"


def spark_json(text: str | bytes) -> Any:
    """A JSON text written by Spark (a sample row), read without rounding: a decimal no
    double holds, or an integer beyond 64 bits, becomes a ``Decimal`` (a string in the
    JSON lines, by :func:`json_safe`); Spark's bare ``NaN``/``Infinity`` become floats.

    >>> spark_json('{"d":0.100000000000000001,"e":1.5,"n":12345678901234567890123}')
    {'d': Decimal('0.100000000000000001'), 'e': 1.5, 'n': Decimal('12345678901234567890123')}
    """
    return json.loads(text, parse_float=_json_float, parse_int=_json_int)


def _json_float(text: str) -> float | Decimal:
    nearest = float(text)
    return nearest if Decimal(repr(nearest)) == Decimal(text) else Decimal(text)


def _json_int(text: str) -> int | Decimal:
    whole = int(text)
    return whole if -_INT64 <= whole < _INT64 else Decimal(text)


@dataclass(frozen=True, slots=True)
class RuleResult:
    """The verdict on one rule (``event: "result"``)."""

    run_id: str
    table: str
    rule_index: int
    rule_type: str
    rule_name: str | None
    columns: tuple[str, ...]
    code: str | None
    passed: bool
    severity: str
    failed_count: int | None
    row_count: int | None
    metric_value: object
    threshold: str | None
    message: str
    samples: tuple[dict[str, Any], ...] | None
    origin: Origin
    elapsed_ms: int
    details: dict[str, Any] | None = None
    blocking: bool = False
    """Whether this result fails the run (a failed rule the run's policy does not waive)."""
    waiver: str | None = None
    """For a failed rule that does not fail the run: why (``level warn``,
    ``on_failure: warn``, ``--exitErrorOnFail false``)."""
    expect: str | None = None
    """What the rule expects, in one line (:func:`assay.planner.expectation.expectation`)."""
    params: dict[str, Any] | None = None
    """The rule's parameters as the user wrote them."""
    identity: str | None = None
    """The rule's identity in the metrics store (:mod:`assay.monitoring.identity`)."""
    scope: str | None = None
    """An incremental table's rule: ``table`` (judged on the whole table, its partitions'
    states merged) or ``new`` (docs/incremental.md); None on any other table."""
    exact: bool | None = None
    """An incremental table's rule: whether its value is exactly a full scan's."""
    estimate: Mapping[str, Any] | None = None
    """When ``exact`` is false: the sketch, its estimate and bounds."""
    baseline: dict[str, Any] | None = None
    """For a rule judged over time: the earlier values it was judged against and what
    they allowed (docs/monitoring.md#the-result-line)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this event."""
        return {
            "event": "result",
            "schema_version": SCHEMA_VERSION,
            "run_id": self.run_id,
            "table": self.table,
            "rule_index": self.rule_index,
            "rule": {
                "type": self.rule_type,
                "name": self.rule_name,
                "columns": list(self.columns),
                "code": self.code,
                "id": self.identity,
            },
            "passed": self.passed,
            "severity": self.severity,
            "blocking": self.blocking,
            "waiver": self.waiver,
            "failed_count": self.failed_count,
            "row_count": self.row_count,
            "metric_value": json_number(self.metric_value),
            "threshold": self.threshold,
            "expect": {"text": self.expect, "params": plain_json(self.params or {})},
            "message": self.message,
            "samples": json_safe(list(self.samples)) if self.samples is not None else None,
            "location": location(self.origin),
            "elapsed_ms": self.elapsed_ms,
            "details": json_safe(self.details),
            "baseline": json_safe(self.baseline),
            **({"scope": self.scope, "exact": self.exact} if self.scope is not None else {}),
            **({"estimate": json_safe(dict(self.estimate))} if self.estimate else {}),
        }


def plain_json(value: Any) -> Any:
    """Parameters as written, JSON-safe: numbers as :func:`json_safe`, dates and times as
    ISO text, anything else YAML can hold as its text."""
    if isinstance(value, (dict, Pairs)):
        return {
            str(k): plain_json(v) for k, v in (value.items() if isinstance(value, dict) else value)
        }
    if isinstance(value, (list, tuple)):
        return [plain_json(v) for v in value]
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, (int, float, Decimal)):
        return json_number(value)
    return str(value)


def json_safe(value: Any) -> Any:
    """Plain data with every number JSON-safe (see :func:`json_number`), recursively."""
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        return json_number(value)
    return value


@dataclass(frozen=True, slots=True)
class TableFinished:
    """A table's totals, after all its results (``event: "table"``)."""

    run_id: str
    table: str
    origin: Origin
    row_count: int | None
    rules: int
    failed: int
    warned: int
    errors: int
    spark_plans: int
    elapsed_ms: int
    error: str | None = None
    outputs: tuple[dict[str, Any], ...] = ()
    """The table's writes (dialect outputs): kind, rule_index, target, written."""
    blocking: int = 0
    """Failed rules that fail the run (the others are waived by their policy)."""
    source: str | None = None
    """The table's source in one line (``parquet data/orders.parquet``, ``table db.t``)."""
    keys: tuple[str, ...] = ()
    """The key columns identifying a sample's row (``keys``, or data-validator's first
    ``numKeyCols`` columns)."""
    incremental: dict[str, Any] | None = None
    """An incremental table's partitions: known, scanned, deleted, the run whose states
    were merged (docs/incremental.md#what-a-run-says)."""
    detail: str | None = field(default=None, compare=False)
    """Spark's own words for ``error`` (not in the JSON line; shown with ``--debug``)."""

    @property
    def passed(self) -> bool:
        """No failed and no errored rule, and the table itself did not fail."""
        return self.failed == 0 and self.errors == 0 and self.error is None

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this event."""
        return {
            "event": "table",
            "schema_version": SCHEMA_VERSION,
            "run_id": self.run_id,
            "table": self.table,
            "passed": self.passed,
            "row_count": self.row_count,
            "rules": self.rules,
            "failed": self.failed,
            "warned": self.warned,
            "errors": self.errors,
            "blocking": self.blocking,
            "spark_plans": self.spark_plans,
            "error": self.error,
            "location": location(self.origin),
            "elapsed_ms": self.elapsed_ms,
            "source": self.source,
            "keys": list(self.keys),
            **({"outputs": [dict(o) for o in self.outputs]} if self.outputs else {}),
            **({"incremental": self.incremental} if self.incremental is not None else {}),
        }


@dataclass(frozen=True, slots=True)
class RunSummary:
    """The last line of a run (``event: "summary"``)."""

    run_id: str
    tables: int
    rules: int
    failed: int
    warned: int
    errors: int
    spark_plans: int
    elapsed_ms: int
    exit_code: int
    failed_tables: tuple[str, ...] = field(default=())
    blocking: int = 0
    """Failed rules that fail the run; ``failed - blocking`` were waived by a policy."""
    exit_reason: str = ""
    """The exit code explained in one sentence, from the results alone."""
    started_at: str | None = None
    """When the run started: ISO 8601 in UTC, to the millisecond."""
    server: str | None = None
    """The Spark Connect server's URL, its token redacted."""
    files: tuple[str, ...] = ()
    """The config files, in the order given."""
    dialects: tuple[str, ...] = ()
    """The dialect of each config file."""
    assay_version: str | None = None
    comparisons: int = 0
    """Dataset comparisons run (their failures are counted in ``failed``...)."""
    failed_comparisons: tuple[str, ...] = ()
    metrics: dict[str, Any] | None = None
    """The metrics store the run appended to: ``store``, ``run_time``, ``rows`` and, when
    the append failed, ``error`` (docs/monitoring.md)."""
    stopped: str | None = None
    """Why the run ended before its last table: ``SIGINT``, ``SIGTERM`` or ``error`` (the
    totals are then those of what finished); None for a run that ran to its end."""

    @property
    def status(self) -> str:
        """What the verdicts say, whatever the policy: ``ERROR`` (a rule or table could
        not be evaluated, or the run stopped early), ``FAIL`` (a rule failed with severity
        fail), else ``PASS`` (warnings allowed). The exit code is the policy's reading of
        the same results."""
        if self.errors or self.stopped:
            return "ERROR"
        return "FAIL" if self.failed else "PASS"

    @property
    def passed(self) -> bool:
        """Status ``PASS``."""
        return self.status == "PASS"

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this event."""
        return {
            "event": "summary",
            "schema_version": SCHEMA_VERSION,
            "run_id": self.run_id,
            "passed": self.passed,
            "status": self.status,
            "exit_code": self.exit_code,
            "tables": self.tables,
            "rules": self.rules,
            "failed": self.failed,
            "warned": self.warned,
            "errors": self.errors,
            "blocking": self.blocking,
            "exit_reason": self.exit_reason,
            "spark_plans": self.spark_plans,
            "failed_tables": list(self.failed_tables),
            "elapsed_ms": self.elapsed_ms,
            "started_at": self.started_at,
            "server": self.server,
            "files": list(self.files),
            "dialects": list(self.dialects),
            "assay_version": self.assay_version,
            **(
                {
                    "comparisons": self.comparisons,
                    "failed_comparisons": list(self.failed_comparisons),
                }
                if self.comparisons
                else {}
            ),
            **({"metrics": self.metrics} if self.metrics is not None else {}),
            **({"stopped": self.stopped} if self.stopped is not None else {}),
        }


Event = RuleResult | TableFinished | RunSummary

"""The ``comparison`` event: one compared dataset's counts, per-column mismatches,
samples and verdicts (docs/events.md, docs/compare.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assay.ir.origin import Origin
from assay.report.events import json_safe, location

COMPARISON_SCHEMA_VERSION = 2
"""The ``comparison`` event's ``schema_version`` (docs/events.md#versions): 2 since native
comparisons pair duplicated keys row by row (``compared``, ``matched``, ``missing_in_*``
and ``unreconciled`` changed meaning) and the event has its ``schema``."""


@dataclass(frozen=True, slots=True)
class ComparisonResult:
    """The verdict on one compared dataset (``event: "comparison"``).

    ``passed``: every check held (a warning included); ``severity`` pass / warn / fail,
    or ``error`` when Spark failed (``error`` says why); ``blocking``: it fails the run.
    """

    run_id: str
    comparison: str
    semantics: str
    source: str
    target: str
    keys: tuple[str, ...]
    passed: bool
    severity: str
    message: str
    origin: Origin
    counts: dict[str, Any] | None = None
    schema: dict[str, Any] | None = None
    """The columns of one side only and the type differences (``None`` after an error)."""
    columns: tuple[dict[str, Any], ...] = ()
    checks: tuple[dict[str, Any], ...] = ()
    samples: dict[str, Any] | None = None
    blocking: bool = False
    waiver: str | None = None
    spark_plans: int = 0
    elapsed_ms: int = 0
    error: str | None = None
    outputs: tuple[dict[str, Any], ...] = ()
    detail: str | None = field(default=None, compare=False)
    """Spark's own words for ``error`` (not in the JSON line)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this event."""
        return {
            "event": "comparison",
            "schema_version": COMPARISON_SCHEMA_VERSION,
            "run_id": self.run_id,
            "comparison": self.comparison,
            "semantics": self.semantics,
            "source": self.source,
            "target": self.target,
            "keys": list(self.keys),
            "passed": self.passed,
            "severity": self.severity,
            "blocking": self.blocking,
            "waiver": self.waiver,
            "counts": json_safe(self.counts),
            "schema": json_safe(self.schema),
            "columns": json_safe(list(self.columns)),
            "checks": json_safe(list(self.checks)),
            "samples": json_safe(self.samples),
            "message": self.message,
            "location": location(self.origin),
            "spark_plans": self.spark_plans,
            "elapsed_ms": self.elapsed_ms,
            "error": self.error,
            **({"outputs": [dict(o) for o in self.outputs]} if self.outputs else {}),
        }

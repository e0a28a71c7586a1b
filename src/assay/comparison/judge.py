"""Judging a dataset comparison (pure): the metrics read back from the one aggregate's row
(``counts``, ``column_counts``), the value each check reads and its verdict (docs/compare.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from assay.comparison.plan import COUNTS, ComparePlan
from assay.ir.compare import DEFAULT_CHECK_METRICS, CompareCheck, DatasetComparison
from assay.ir.values import Comparison, Op

Number = int | float


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    """One check's verdict: ``severity`` pass / warn / fail (``passed`` unless fail)."""

    check: CompareCheck
    value: Number | None
    severity: Literal["pass", "warn", "fail"]
    message: str

    @property
    def passed(self) -> bool:
        return self.severity != "fail"

    def to_dict(self) -> dict[str, Any]:
        threshold = self.check.must.text
        if self.check.warn is not None:
            threshold += f"; warn: {self.check.warn.text}"
        return {
            "metric": self.check.label,
            "threshold": threshold,
            "value": self.value,
            "passed": self.passed,
            "severity": self.severity,
            "message": self.message,
        }


def counts(plan: ComparePlan, row: Mapping[str, Any]) -> dict[str, Any]:
    """The whole-comparison metrics from the aggregate's row (the event's ``counts``)."""
    n = {k: int(row.get(k) or 0) for k in COUNTS}
    if plan.sdt:
        # spark-data-test's numbers: matched and missing are counted by key.
        matched = int(row.get("matched_keys") or 0)
        missing_t, missing_s = n["missing_keys_target"], n["missing_keys_source"]
    else:
        matched = n["matched_pairs"]
        missing_t, missing_s = n["missing_in_target"], n["missing_in_source"]
    mismatched = n["compared"] - n["matched_pairs"]
    larger = max(n["source_rows"], n["target_rows"])
    return {
        "source_rows": n["source_rows"],
        "target_rows": n["target_rows"],
        "compared": n["compared"],
        "matched": matched,
        "mismatched": mismatched,
        "missing_in_target": missing_t,
        "missing_in_source": missing_s,
        "unmatched": missing_t + missing_s + mismatched,
        "unreconciled": n["source_rows"] + n["target_rows"] - 2 * matched,
        "duplicate_keys": {
            "source": n["duplicate_keys_source"],
            "target": n["duplicate_keys_target"],
        },
        "duplicate_rows": {
            "source": n["duplicate_rows_source"],
            "target": n["duplicate_rows_target"],
        },
        "matched_percent": 100.0 if larger == 0 else 100.0 * matched / larger,
        "mismatch_percent": _percent(mismatched, n["compared"]),
        "columns_missing_in_target": plan.schema.missing_in("target"),
        "columns_missing_in_source": plan.schema.missing_in("source"),
        "type_differences": len(plan.schema.type_differences),
    }


def column_counts(plan: ComparePlan, row: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per compared column: mismatches, null-versus-value mismatches, the largest
    absolute difference of numbers, and the mismatch percent of compared rows."""
    compared = int(row.get("compared") or 0)
    found = []
    for c in plan.columns:
        mismatched = int(row.get(f"{c.slot}_mismatched") or 0)
        diff = row.get(f"{c.slot}_max_diff") if c.kind == "numeric" else None
        found.append(
            {
                "column": c.name,
                "mismatched": mismatched,
                "null_mismatched": int(row.get(f"{c.slot}_nulls") or 0),
                "max_abs_diff": _finite(diff),
                "mismatch_percent": _percent(mismatched, compared),
            }
        )
    return found


def _percent(count: int, of: int) -> float:
    return 0.0 if of == 0 else 100.0 * count / of


def _finite(value: object) -> float | None:
    if value is None:
        return None
    number = float(value)  # type: ignore[arg-type]
    return number if number == number and abs(number) != float("inf") else None


def metric(check: CompareCheck, totals: Mapping[str, Any], per_column: Sequence[Mapping]) -> Any:
    """The value ``check`` judges."""
    if check.side is not None:
        return totals[check.metric][check.side]
    if check.column is not None:
        entry = next(c for c in per_column if c["column"].lower() == check.column.lower())
        field = {"mismatched_column": "mismatched", "mismatch_percent_column": "mismatch_percent"}
        return entry[field.get(check.metric, check.metric)]
    return totals[check.metric]


def default_checks(comparison: DatasetComparison) -> tuple[CompareCheck, ...]:
    """What a comparison with no checks must satisfy: no unmatched row, and no column of
    the source missing from the target (unless dropped, or not among named ``columns``)."""
    return tuple(
        CompareCheck(metric, Comparison(Op.EQ, Decimal(0), "= 0"), comparison.origin)
        for metric in DEFAULT_CHECK_METRICS
    )


def judge(
    comparison: DatasetComparison, totals: Mapping[str, Any], per_column: Sequence[Mapping]
) -> list[CheckOutcome]:
    """Every check's verdict (the default checks when there is none)."""
    outcomes = []
    for check in comparison.checks or default_checks(comparison):
        value = metric(check, totals, per_column)
        shown = f"{check.label} = {_fmt(value)}"
        if value is None:
            outcomes.append(
                CheckOutcome(check, None, "fail", f"{check.label} has no value (no numbers)")
            )
        elif not check.must.holds(value):
            outcomes.append(
                CheckOutcome(check, value, "fail", f"{shown}; must be {check.must.text}")
            )
        elif check.warn is not None and not check.warn.holds(value):
            outcomes.append(
                CheckOutcome(check, value, "warn", f"{shown}; warn unless {check.warn.text}")
            )
        else:
            outcomes.append(
                CheckOutcome(check, value, "pass", f"{shown}; must be {check.must.text}")
            )
    return outcomes


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def differs(totals: Mapping[str, Any]) -> bool:
    """Whether something differs, so that samples are worth a second plan."""
    return bool(totals["mismatched"] or totals["missing_in_target"] or totals["missing_in_source"])

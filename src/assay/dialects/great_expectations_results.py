"""Great Expectations' numbers of an expectation's result, read from what assay measured
(the result's ``details.great_expectations``, docs/dialects.md "Great Expectations
suites"): ``unexpected_count``, ``unexpected_percent`` (over the rows GX considers: the
non-null values, or every row for the null expectations), ``observed_value``, and
``partial_unexpected_list`` from the samples."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from assay.dialects.dqx import is_dqx
from assay.dialects.dqx_results import with_dqx_view
from assay.dialects.great_expectations_map import (
    EXPECTATIONS,
    NULL_EXPECTATIONS,
    TYPE_EXPECTATIONS,
)
from assay.dialects.great_expectations_sets import (
    CONTAIN_SET,
    DISTINCT_SETS,
    MOST_COMMON,
    NOT_IN_SET,
)
from assay.dialects.great_expectations_table import COLUMN_COUNTS
from assay.dialects.great_expectations_types import class_name
from assay.dialects.soda_checks import is_soda
from assay.dialects.soda_results import with_soda_numbers
from assay.ir.rules import MetricCheck, RowCheck, Rule, SchemaCheck, SqlCheck, UniqueCheck

KEY = "great_expectations"
"""The key of GX's numbers in a result's ``details``."""
QUANTILES = "expect_column_quantile_values_to_be_between"
PARTIAL = 20
"""GX's ``partial_unexpected_count`` (SUMMARY result format)."""
_SET_COUNTS = {
    NOT_IN_SET: ("unexpected_count",),
    CONTAIN_SET: ("missing_count",),
    "expect_column_distinct_values_to_equal_set": ("unexpected_count", "missing_count"),
}
"""The counts of GX's result of each distinct values expectation, in the order of its
metrics (a distinct values outside the set, the set's values missing)."""


def gx_numbers(
    rule: Rule,
    failed_count: int | None,
    rows: int | None,
    metric_value: object,
    samples: Sequence[Mapping[str, Any]] | None,
    table_rows: int | None = None,
) -> dict[str, Any] | None:
    """GX's result numbers of ``rule`` (None for a rule not read from a GX suite). ``rows``
    are the rows the rule considered (its filter's), ``table_rows`` the table's: GX's
    ``element_count`` of an expectation without ``row_condition``, and its
    ``missing_count`` the rows it leaves out (nulls, ``ignore_row_if``)."""
    check = rule.check
    if rule.kind not in EXPECTATIONS or isinstance(check, SchemaCheck):
        return None
    if isinstance(check, MetricCheck):  # no value (an empty column, NaN): GX's null
        if rule.filter is None and rows is not None:
            return {"observed_value": metric_value, "element_count": rows}
        return {"observed_value": metric_value}
    if rule.kind == MOST_COMMON:  # its query says whether it holds, not the values
        return None
    if isinstance(check, SqlCheck):  # unexpected_rows_expectation: the rows returned
        return {"observed_value": failed_count}
    if not isinstance(check, (RowCheck, UniqueCheck)) or failed_count is None:
        return None
    # a column's values GX sums (F.sum(F.when(...))): no row considered, no sum
    summed = len(rule.columns) == 1 and isinstance(check, RowCheck)
    found: dict[str, Any] = {"unexpected_count": None if summed and not rows else failed_count}
    found["unexpected_percent"] = failed_count / rows * 100 if rows else None
    conditioned = dict(rule.params).get("row_condition") is not None
    if rule.kind in NULL_EXPECTATIONS or (rule.filter is None and rows is not None):
        found["element_count"] = rows
    elif not conditioned and table_rows is not None and rows is not None:
        found["element_count"] = table_rows
    if rule.kind not in NULL_EXPECTATIONS and "element_count" in found and rows is not None:
        found["missing_count"] = found["element_count"] - rows
    if samples is not None:
        found["partial_unexpected_list"] = _partial(rule.columns, samples)
    return found


def _partial(columns: Sequence[str], samples: Sequence[Mapping[str, Any]]) -> list[Any]:
    """The unexpected values of the samples: the column's value, or for several columns
    a mapping of each."""
    values: list[Any] = []
    for sample in samples[:PARTIAL]:
        if len(columns) == 1:
            values.append(sample.get(columns[0]))
        else:
            values.append({c: sample.get(c) for c in columns})
    return values


def with_gx_numbers(
    details: Mapping[str, Any] | None,
    rule: Rule,
    failed_count: int | None,
    rows: int | None,
    metric_value: object,
    samples: Sequence[Mapping[str, Any]] | None,
    table_rows: int | None = None,
    measured: bool = True,
) -> dict[str, Any] | None:
    """A result's ``details`` with GX's numbers under :data:`KEY` when the rule is an
    expectation (that was ``measured``: not an error), with Soda's
    (:mod:`assay.dialects.soda_results`) when it is a SodaCL check, DQX's view
    (:mod:`assay.dialects.dqx_results`) when it is a DQX check (unchanged otherwise)."""
    if is_soda(rule):
        return with_soda_numbers(details, rule, failed_count, rows, metric_value)
    if is_dqx(rule):
        return with_dqx_view(details, rule, failed_count)
    if not measured:
        return dict(details) if details is not None else None
    found = details or {}
    if isinstance(rule.check, SchemaCheck) and rule.kind in EXPECTATIONS and "columns" in found:
        return {KEY: {"observed_value": _observed_schema(rule, rule.check, found)}}
    numbers = gx_numbers(rule, failed_count, rows, metric_value, samples, table_rows)
    if numbers is None:
        return dict(details) if details is not None else None
    if rule.kind in DISTINCT_SETS:  # distinct values outside the set, the set's missing
        values = found.get("values", [metric_value])
        counts = dict(zip(_SET_COUNTS[rule.kind], values, strict=False))
        kept = {k: v for k, v in found.items() if k != "values"}  # in GX's numbers only
        return {**kept, KEY: {"observed_value": None, **counts}}
    if rule.kind == QUANTILES:  # each quantile's value, as GX lists them
        given: Any = dict(rule.params).get("quantile_ranges") or ()
        ranges = dict(given)
        values = found.get("values", [metric_value])
        observed = {"quantiles": list(ranges.get("quantiles") or ()), "values": values}
        numbers["observed_value"] = observed
        found = {k: v for k, v in found.items() if k != "values"}  # in GX's numbers only
    return {**found, KEY: numbers}


def _observed_schema(rule: Rule, check: SchemaCheck, details: Mapping[str, Any]) -> Any:
    """GX's ``observed_value`` of a schema expectation: the table's columns (sorted for a
    set, as GX sorts them), or the class name of a column's type."""
    columns = list(details["columns"])
    if rule.kind in COLUMN_COUNTS:
        return len(columns)
    if rule.kind in TYPE_EXPECTATIONS:
        kinds = dict(zip(columns, details.get("types") or (), strict=False))
        kind = kinds.get(rule.columns[0])
        if kind is None and not check.case_sensitive:  # as Spark resolves the name
            folded = {c.lower(): k for c, k in kinds.items()}
            kind = folded.get(rule.columns[0].lower())
        return class_name(kind) if kind is not None else None
    return columns if check.exactly == "order" else sorted(columns)

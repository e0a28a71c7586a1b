"""The column metrics of an OpenLineage ``dataQualityMetrics`` facet, read from the rules'
results: only what a rule measured over the table's rows, never a number worked out.

- ``nullCount``: a one-column ``not_null``'s ``failed_count``; 0 for each column of a
  ``not_null`` over several columns that no row failed; ``missing_count`` and
  ``missing_percent`` without ``missing_values`` (their ``failed_count``);
- ``distinctCount``: a one-column ``distinct_count``;
- ``min``, ``max``, ``sum``: the rules of those types; ``count`` (non-null values),
  ``min`` and ``max`` of a ``colstats`` (its ``details``);
- ``quantiles``: an exact ``median`` (``0.5``) or ``percentile`` (at its ``quantile``).

A rule with a parameter not in :data:`OVER_THE_TABLE` (a ``filter``, ``missing_values``,
``group_by``, ``accuracy``...) measured something else and gives no metric; so does a
rule not evaluated, and a result line saved before results carried their parameters
(``expect``). Where two rules measure one metric of a column, the first (config order)
gives it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

Event = dict[str, Any]
Metric = tuple[str, str, Any]
"""``(column, metric, value)``; a quantile's metric is ``quantiles.<q>``."""
OVER_THE_TABLE = frozenset({"column", "columns", "must_be", "warn", "tolerance", "quantile"})
"""Parameters that leave a rule measuring the table's rows as they are."""


def column_metrics(results: Sequence[Event]) -> dict[str, dict[str, Any]]:
    """``{column: {metric: value}}`` of the results, columns in the order first measured."""
    found: dict[str, dict[str, Any]] = {}
    for result in results:
        for column, metric, value in measured(result):
            into = found.setdefault(column, {})
            if metric.startswith("quantiles."):
                into.setdefault("quantiles", {}).setdefault(
                    metric.removeprefix("quantiles."), value
                )
            else:
                into.setdefault(metric, value)
    return found


def measured(result: Event) -> Iterator[Metric]:
    """The column metrics one result measured over the table's rows."""
    params = (result.get("expect") or {}).get("params")
    if result.get("severity") == "error" or not isinstance(params, dict):
        return
    if not set(params) <= OVER_THE_TABLE:
        return
    rule = result.get("rule") or {}
    reader = READERS.get(str(rule.get("type")))
    if reader is not None:
        yield from reader(result, tuple(rule.get("columns") or ()), params)


def number(value: Any) -> int | float | None:
    """A finite number from a measured value (an exact decimal's digits as the nearest
    double); ``None`` for anything else.

    >>> number(3), number("0.100000000000000001"), number(float("nan")), number(True)
    (3, 0.1, None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        found = float(value)
    except (TypeError, ValueError):
        return None
    return found if math.isfinite(found) else None


def count(value: Any) -> int | None:
    """A whole non-negative number of rows or values, else ``None``."""
    found = number(value)
    if found is None or found < 0 or found != int(found):
        return None
    return int(found)


# --- one reader per rule type --------------------------------------------------------------


def _nulls(result: Event, columns: tuple[str, ...], params: Event) -> Iterator[Metric]:
    failed = count(result.get("failed_count"))
    if failed is None:
        return
    if len(columns) == 1:
        yield columns[0], "nullCount", failed
    elif failed == 0:  # no row has a null in any of them
        yield from ((c, "nullCount", 0) for c in columns)


def _missing(result: Event, columns: tuple[str, ...], params: Event) -> Iterator[Metric]:
    failed = count(result.get("failed_count"))
    if len(columns) == 1 and failed is not None:
        yield columns[0], "nullCount", failed


def _distinct(result: Event, columns: tuple[str, ...], params: Event) -> Iterator[Metric]:
    found = count(result.get("metric_value"))
    if len(columns) == 1 and found is not None:
        yield columns[0], "distinctCount", found


def _value(metric: str) -> Callable[[Event, tuple[str, ...], Event], Iterator[Metric]]:
    def read(result: Event, columns: tuple[str, ...], params: Event) -> Iterator[Metric]:
        found = number(result.get("metric_value"))
        if len(columns) == 1 and found is not None:
            yield columns[0], metric, found

    return read


def _quantile(result: Event, columns: tuple[str, ...], params: Event) -> Iterator[Metric]:
    at = number(params.get("quantile", 0.5))
    found = number(result.get("metric_value"))
    if len(columns) == 1 and at is not None and found is not None:
        yield columns[0], f"quantiles.{at:g}", found


def _colstats(result: Event, columns: tuple[str, ...], params: Event) -> Iterator[Metric]:
    details = result.get("details") or {}
    if len(columns) != 1 or not isinstance(details, dict):
        return
    values = count(details.get("count"))
    if values is not None:
        yield columns[0], "count", values
    for metric in ("min", "max"):
        found = number(details.get(metric))
        if found is not None:
            yield columns[0], metric, found


READERS: dict[str, Callable[[Event, tuple[str, ...], Event], Iterator[Metric]]] = {
    "not_null": _nulls,
    "missing_count": _missing,
    "missing_percent": _missing,
    "distinct_count": _distinct,
    "min": _value("min"),
    "max": _value("max"),
    "sum": _value("sum"),
    "median": _quantile,
    "percentile": _quantile,
    "colstats": _colstats,
}
"""The rule types that measure a column metric, by their canonical ``rule.type``."""

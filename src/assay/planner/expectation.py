"""What a rule expects, in one line a reader understands (``quantity between 1 and 8``,
``email matches ^[^@]+@``, ``avg(price) > 0``): the ``expect.text`` of its result line,
the report's expectation column, and the subject of its message.

Derived from the rule's IR, the check that actually runs, never from the config's words:
a row-level rule shows the condition a row must meet to pass (the negation of its
failing predicate, simplified: ``NOT (q < 1 OR q > 8)`` reads ``q between 1 and 8``), a
metric rule its metric and threshold, every rule its tolerance and filter. So the same
check reads the same whichever config format it was written in. The parameters as the
user wrote them are beside it (:func:`expect_params`).
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from assay.comparison.render import describe_source
from assay.ir.drift import DriftMetric, HistoryBaseline
from assay.ir.expr import (
    And,
    Coalesce,
    Col,
    Compare,
    Expr,
    HasText,
    InSet,
    IsNaN,
    IsNull,
    Length,
    LineBytes,
    Lit,
    Matches,
    Not,
    Or,
    Parses,
    Sql,
    require_translations,
)
from assay.ir.metrics import (
    AggregateMetric,
    ColumnMetric,
    ComplianceMetric,
    CountMetric,
    FrequencyMetric,
    FreshnessMetric,
    GroupMetric,
    RowCountMetric,
    SqlMetric,
)
from assay.ir.monitoring import OverTime, SchemaChangeCheck
from assay.ir.references import ForeignKeyCheck, Reference, RowCountMatchMetric
from assay.ir.rules import (
    ColStatsCheck,
    EqualsCheck,
    MetricCheck,
    RowCheck,
    Rule,
    SchemaCheck,
    SqlCheck,
    UniqueCheck,
    ValidatorCheck,
)
from assay.ir.values import Op, Tolerance

SHOWN_VALUES = 10
"""An ``IN`` list shows at most this many values, then how many more there are."""

_TOLERANCE_MARK = ", up to "
_MOSTLY_MARK = ", mostly "
"""Great Expectations' ``mostly``: a tolerance stated as the share of rows that pass."""
_SHOWN_ARGS = {"percentile": 1}
"""The arguments of an aggregate metric a reader wrote (a percentile's quantile; not its
accuracy, nor a median's 0.5)."""
_FLIPPED = {Op.LT: Op.GE, Op.LE: Op.GT, Op.EQ: Op.NE, Op.NE: Op.EQ, Op.GE: Op.LT, Op.GT: Op.LE}


def expectation(rule: Rule, tolerance: bool = True, over_time: bool = True) -> str:
    """The one-line expectation of ``rule`` (see the module docstring); without its
    tolerance when ``tolerance`` is false, without its judging over time when
    ``over_time`` is false (a message that states them apart)."""
    text = _check_text(rule.check, rule)
    if not tolerance:
        text = text.split(_TOLERANCE_MARK, 1)[0].split(_MOSTLY_MARK, 1)[0]
    if rule.filter is not None:
        text += f" where {render(rule.filter)}"
    if over_time and rule.over_time is not None:
        text += f"; {over_time_text(rule.over_time)}"
    return text


def over_time_text(over: OverTime) -> str:
    """A rule's judging over time in words: ``change from the last run between -10% and
    +20%``, ``not an anomaly (online_normal)``."""
    said = []
    if over.change is not None:
        change = over.change
        said.append(f"change from {change.baseline.text} {change.must.text}"
                     + (f" (warn unless {change.warn.text})" if change.warn else ""))  # fmt: skip
    if over.anomaly is not None:
        said.append(f"not an anomaly ({over.anomaly.strategy})")
    return "; ".join(said)


def expect_params(rule: Rule) -> dict[str, Any]:
    """The rule's parameters as the user wrote them (everything but ``type``, ``name``,
    ``level``, ``code``), its filter included."""
    return dict(rule.params)


# --- checks ---------------------------------------------------------------------------------


@functools.singledispatch
def _check_text(check: object, rule: Rule) -> str:
    raise TypeError(f"no expectation text for {type(check).__name__}")


@_check_text.register
def _(check: RowCheck, rule: Rule) -> str:
    return render(passing(check.failing)) + _tolerance(check.tolerance)


@_check_text.register
def _(check: UniqueCheck, rule: Rule) -> str:
    return f"{_columns(check.columns)} unique" + _tolerance(check.tolerance)


@_check_text.register
def _(check: MetricCheck, rule: Rule) -> str:
    text = f"{metric_text(check.metric, rule)} {check.must.text}"
    text += "".join(f", {metric_text(m, rule)} {must.text}" for m, must in check.also)
    if check.group_by:
        text += f" for every group of {_columns(check.group_by)}"
    return text + (f" (warn unless {check.warn.text})" if check.warn is not None else "")


@_check_text.register
def _(check: SchemaCheck, rule: Rule) -> str:
    parts = [f"has {', '.join(check.required)}"] if check.required else []
    if check.exactly in ("set", "order"):  # Great Expectations' column sets and lists
        parts = [f"columns are exactly {', '.join(check.required)}"]
        parts[0] += " in this order" if check.exactly == "order" else ""
    parts += [f"has no {', '.join(check.forbidden)}"] if check.forbidden else []
    parts += [f"{column} is {kind}" for column, kind in check.types]
    if check.column_count is not None:  # Great Expectations' column count
        parts.append(f"column count {check.column_count.text or 'any'}")
    return "schema: " + ("; ".join(parts) or "any")


@_check_text.register
def _(check: SchemaChangeCheck, rule: Rule) -> str:
    said = [f"fails if {' or '.join(check.fail_when)}"] if check.fail_when else []
    said += [f"warns if {' or '.join(check.warn_when)}"] if check.warn_when else []
    return f"columns as in the last run ({'; '.join(said)})"


@_check_text.register
def _(check: SqlCheck, rule: Rule) -> str:
    if check.mode == "failed_rows":
        return "the query returns no row"
    if check.mode == "value":
        warn = f" (warn unless {check.warn.text})" if check.warn is not None else ""
        must = check.must.text if check.must is not None else "any value"
        return f"the query's value {must}{warn}"
    return "the query returns one row whose value is true"


@_check_text.register
def _(check: EqualsCheck, rule: Rule) -> str:
    return f"{check.metric.fn}({check.metric.column}) = {_value(check.value)}"


@_check_text.register
def _(check: ColStatsCheck, rule: Rule) -> str:
    return f"statistics of {check.column} (informational, never fails)"


@_check_text.register
def _(check: ValidatorCheck, rule: Rule) -> str:
    return f"the validator {check.validator} passes"


@_check_text.register
def _(check: ForeignKeyCheck, rule: Rule) -> str:
    lookup = check.lookup
    within = f"{_reference(lookup.reference)} ({', '.join(lookup.reference.columns)})"
    found = "not found" if check.negate else "found"
    return f"{_columns(lookup.columns)} {found} in {within}" + _tolerance(check.tolerance)


def metric_text(metric: object, rule: Rule) -> str:
    """A metric as a reader names it: ``avg(price)``, ``row_count``,
    ``missing_percent(email)``, ``percentile(latency, 0.95)``."""
    if isinstance(metric, RowCountMetric):
        return "row_count"
    if isinstance(metric, RowCountMatchMetric):
        return f"row_count as % of {_reference(metric.reference)}"
    if isinstance(metric, DriftMetric):
        if isinstance(metric.reference, HistoryBaseline):
            return f"{metric.method}({metric.column}) against {metric.reference.text()}"
        ref = f"{_reference(metric.reference)} ({metric.reference.columns[0]})"
        return f"{metric.method}({metric.column}) against {ref}"
    if isinstance(metric, AggregateMetric):
        shown = metric.args[: _SHOWN_ARGS.get(rule.kind, 0)]
        args = "".join(f", {c}" for c in metric.more) + "".join(f", {_value(a)}" for a in shown)
        if metric.function == "approx_count_distinct":  # HLL++: its relative standard error
            args = f", relative standard error {_value(metric.args[0])}"
        return f"{rule.kind}({metric.column}{args})"
    if isinstance(metric, FrequencyMetric):
        return f"{rule.kind}({', '.join(metric.columns)})"
    if isinstance(metric, SqlMetric):
        return metric.text
    if isinstance(metric, ComplianceMetric):
        return f"compliance({_text(metric.predicate)})"
    if isinstance(metric, (ColumnMetric, FreshnessMetric)):
        return f"{rule.kind}({metric.column})"
    if isinstance(metric, GroupMetric):
        return f"{rule.kind}({', '.join(metric.columns)})"
    if isinstance(metric, CountMetric):
        return f"{rule.kind}({', '.join(rule.columns)})" if rule.columns else rule.kind
    raise TypeError(f"no expectation text for {type(metric).__name__}")


def _tolerance(tolerance: Tolerance) -> str:
    if not tolerance.value:
        return ""
    if tolerance.kind == "gx_mostly":  # Great Expectations: the share of rows that pass
        return f"{_MOSTLY_MARK}{tolerance.text}"
    if tolerance.kind in ("fraction", "dv_percent"):
        return f"{_TOLERANCE_MARK}{tolerance.text} of rows failing"
    return f"{_TOLERANCE_MARK}{tolerance.text} failing rows"


def _columns(columns: Sequence[str]) -> str:
    return columns[0] if len(columns) == 1 else f"({', '.join(columns)})"


def _reference(reference: Reference) -> str:
    return describe_source(reference.source)  # type: ignore[arg-type]


# --- row conditions ---------------------------------------------------------------------------


def passing(failing: Expr) -> Expr:
    """The condition a row meets exactly when ``failing`` is not true, simplified for
    reading: De Morgan through ``AND``/``OR``, comparisons flipped, ``NOT NOT`` dropped,
    ``coalesce(x, false)`` read as ``x`` (a row where ``x`` is null does not fail)."""
    if isinstance(failing, Coalesce) and failing.items[-1:] == (Lit(False),):
        return passing(failing.items[0]) if len(failing.items) == 2 else Not(failing)
    if isinstance(failing, Or):
        return And(tuple(passing(i) for i in failing.items))
    if isinstance(failing, And):
        return Or(tuple(passing(i) for i in failing.items))
    if isinstance(failing, Not):
        return failing.item
    if isinstance(failing, Compare):
        return Compare(_FLIPPED[failing.op], failing.left, failing.right)
    return Not(failing)


def render(expr: Expr) -> str:
    """An expression as a reader writes it (not SQL: ``planner.sqltext`` is that)."""
    if isinstance(expr, And):
        between = _between(expr.items)
        if between is not None:
            return between
    return _text(expr)


def _between(items: tuple[Expr, ...]) -> str | None:
    """``x >= a AND x <= b`` reads ``x between a and b``."""
    if len(items) != 2 or not all(isinstance(i, Compare) for i in items):
        return None
    low, high = items
    assert isinstance(low, Compare) and isinstance(high, Compare)
    if (low.op, high.op) == (Op.LE, Op.GE):
        low, high = high, low
    if (low.op, high.op) != (Op.GE, Op.LE) or low.left != high.left:
        return None
    return f"{_text(low.left)} between {_text(low.right)} and {_text(high.right)}"


@functools.singledispatch
def _text(expr: object) -> str:
    raise TypeError(f"no reading of {type(expr).__name__}")


@_text.register
def _(expr: Col) -> str:
    return expr.name


@_text.register
def _(expr: Lit) -> str:
    return _value(expr.value)


@_text.register
def _(expr: Compare) -> str:
    return f"{_text(expr.left)} {expr.op.value} {_text(expr.right)}"


@_text.register
def _(expr: And) -> str:
    return " and ".join(_part(i) for i in expr.items)


@_text.register
def _(expr: Or) -> str:
    return " or ".join(_part(i) for i in expr.items)


@_text.register
def _(expr: Not) -> str:
    inner = expr.item
    if isinstance(inner, IsNull):
        return f"{_text(inner.item)} is not null"
    if isinstance(inner, IsNaN):
        return f"{_text(inner.item)} is not NaN"
    if isinstance(inner, Matches):
        return f"{_text(inner.item)} does not match {inner.pattern}"
    if isinstance(inner, InSet):
        return f"{_text(inner.item)} not in {_values(inner.values)}"
    if isinstance(inner, HasText):
        return f"not ({_text(inner)})"
    return f"not ({render(inner)})"


@_text.register
def _(expr: IsNull) -> str:
    return f"{_text(expr.item)} is null"


@_text.register
def _(expr: IsNaN) -> str:
    return f"{_text(expr.item)} is NaN"


@_text.register
def _(expr: InSet) -> str:
    return f"{_text(expr.item)} in {_values(expr.values)}"


@_text.register
def _(expr: Matches) -> str:
    return f"{_text(expr.item)} matches {expr.pattern}"


@_text.register
def _(expr: HasText) -> str:
    verb = {"anywhere": "contains", "start": "starts with", "end": "ends with"}[expr.where]
    return f"{_text(expr.item)} {verb} {_value(expr.text)}"


@_text.register
def _(expr: Length) -> str:
    return f"length({_text(expr.item)})"


@_text.register
def _(expr: LineBytes) -> str:
    return f"bytes of {_text(expr.item)} before a final line break"


@_text.register
def _(expr: Parses) -> str:
    return f"{_text(expr.item)} reads as {expr.type}"


@_text.register
def _(expr: Coalesce) -> str:
    if len(expr.items) == 2 and expr.items[1] == Lit(False):
        return render(expr.items[0])  # must be true (null is not)
    return f"coalesce({', '.join(_text(i) for i in expr.items)})"


@_text.register
def _(expr: Sql) -> str:
    return expr.text.strip()


require_translations(_text, "a reading (planner.expectation._text)")


def _part(expr: Expr) -> str:
    """A connective's operand, in parentheses when it is itself a connective or SQL."""
    text = render(expr)
    return f"({text})" if isinstance(expr, (And, Or, Sql)) and " " in text else text


def _values(values: Sequence[object]) -> str:
    shown = ", ".join(_value(v) for v in values[:SHOWN_VALUES])
    more = len(values) - SHOWN_VALUES
    return f"({shown}{f', … {more} more' if more > 0 else ''})"


def _value(value: object) -> str:
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    if isinstance(value, Decimal):
        return format(value.normalize(), "f") if value == value.to_integral() else str(value)
    return str(value)

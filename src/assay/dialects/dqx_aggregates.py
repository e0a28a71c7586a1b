"""DQX's ``is_aggr_*`` check functions: an aggregate of a column compared with a limit,
over the whole table (``SELECT coalesce(<aggregate> <op> <limit>, false) = false``, a SQL
rule folded into or joined to the table's one scan) or per group (``group_by``: a count
per group), each with DQX's semantics (databricks-labs-dqx 0.17, ``check_funcs.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal

from assay.dialects.dqx_args import Args, Function, Mapped, number_sql, sql_string, takes
from assay.dialects.dqx_dataset import VIEW, plain_columns
from assay.ir.expr import Col, Expr, IsNull, Not, Sql, all_of, is_true
from assay.ir.metrics import CountMetric, RowCountMetric
from assay.ir.rules import MetricCheck, SqlCheck
from assay.ir.values import Comparison, Op

_AGGREGATES = {
    "count": "Count",
    "sum": "Sum",
    "avg": "Average",
    "min": "Min",
    "max": "Max",
    "count_distinct": "Distinct count",
    "approx_count_distinct": "Approximate distinct count",
    "count_if": "Conditional count",
    "stddev": "Standard deviation",
    "stddev_pop": "Population standard deviation",
    "stddev_samp": "Sample standard deviation",
    "variance": "Variance",
    "var_pop": "Population variance",
    "var_samp": "Sample variance",
    "median": "Median",
    "mode": "Mode",
    "skewness": "Skewness",
    "kurtosis": "Kurtosis",
    "percentile": "Percentile",
    "approx_percentile": "Approximate percentile",
}
"""DQX's curated aggregates (``CURATED_AGGR_FUNCTIONS``), by the names DQX shows; the
first five are folded into the table's scan, the others are SQL rules joined to it."""
_PERCENTILE_ARGS = {"percentile": ("frequency",), "approx_percentile": ("accuracy",)}
"""The further arguments of the percentile aggregates (after the percentage)."""


def _aggregate_call(a: Args, aggr: str, item: str) -> tuple[str, str]:
    """The SQL of ``aggr`` over ``item`` (DQX: ``getattr(F, aggr)(item, **aggr_params)``)
    and the name DQX shows for it."""
    node = a.get("aggr_params")
    params = node.as_mapping("a mapping of parameters") if node is not None else {}
    shown = _AGGREGATES[aggr]
    if params:
        shown += " (" + ", ".join(f"{k}={v.plain()}" for k, v in params.items()) + ")"
    if aggr in _PERCENTILE_ARGS:
        if "percentile" not in params:
            raise (node or a.node).error(
                f"DQX: '{aggr}' requires aggr_params with 'percentile' key "
                "(e.g., {'percentile': 0.95})"
            )
        args = [number_sql(params["percentile"].as_number("a percentage"))]
        for key in params:
            if key != "percentile" and key not in _PERCENTILE_ARGS[aggr]:
                raise params[key].error(f"DQX: '{aggr}' takes no parameter '{key}'")
        for key in _PERCENTILE_ARGS[aggr]:
            if key in params:
                args.append(str(params[key].as_int("an integer")))
        return f"{aggr}({item}, {', '.join(args)})", shown
    if params:
        raise (node or a.node).error(f"DQX: aggr_params are not supported with '{aggr}'")
    if aggr == "count_distinct":
        return f"count(DISTINCT {item})", shown
    return f"{aggr}({item})", shown


def _aggregate(op: str, label: str, op_name: str) -> Callable[[Args], Mapped]:
    """``is_aggr_*``: DQX fails every row (of the filter) when ``aggregate <op> limit``
    is TRUE; a NULL aggregate (sum of no value) passes. ``count`` of a column counts its
    non-null values, ``count`` of ``*`` the rows. The ``row_filter`` argument keeps the
    rows aggregated, not the rows flagged (every row)."""

    def build(a: Args) -> Mapped:
        kind = a.get("aggr_type")
        aggr = "count" if kind is None else kind.as_str("an aggregate function")
        if aggr not in _AGGREGATES:
            raise (kind or a.node).error(
                f"DQX: aggr_type '{aggr}' is not supported",
                hint=f"assay runs DQX's curated aggregates: {', '.join(_AGGREGATES)}",
            )
        if a.get("group_by") is not None:
            return _per_group(a, aggr, label, op_name)
        for key in ("abs_tolerance", "rel_tolerance"):
            node = a.get(key)
            if node is not None:
                raise node.error(
                    f"DQX: {key} is not supported in '{a.function}'",
                    hint="assay checks the aggregate over the whole table (and the check's filter)",
                )
        t = a.target()
        if t.shown == "*" and aggr != "count":
            raise a.require("column").error(f"DQX: '*' is only valid with count, not {aggr}")
        bound, shown = a.limit(a.require("limit"))
        column = "*" if t.shown == "*" else t.sql
        name = f"{t.norm}_{aggr}_{op_name}_limit".lstrip("_")
        targets = (t,) if t.shown != "*" else ()
        kept = a.row_filter or _argument_filter(a)
        # count(1) is count(*), in the form the aggregate pass folds
        counted = "count(1)" if kept is None else f"count(CASE WHEN ({kept}) THEN 1 END)"
        if column == "*":
            value, called = counted, _AGGREGATES[aggr]
        elif kept is None:
            value, called = _aggregate_call(a, aggr, column)
        else:
            value, called = _aggregate_call(a, aggr, f"CASE WHEN ({kept}) THEN {column} END")
        # the rows DQX flags: those of the check's filter, or every row when the filter
        # is the argument's (DQX flags by the check's filter alone)
        rows = "count(1)" if a.row_filter is None else counted
        message = (f"{called} value {{value}} in column '{t.shown}' is {label} "
                   f"limit: {shown}")  # fmt: skip
        # no row (of the filter): DQX has no row to flag, whatever the aggregate
        query = f"SELECT coalesce({value} {op} {bound} AND {rows} > 0, false) = false FROM {VIEW}"
        columns = tuple(x.column for x in targets if x.column is not None)
        return Mapped(SqlCheck(query), columns, name, message, row_level=False)

    return build


def _argument_filter(a: Args) -> str | None:
    """The ``row_filter`` argument (DQX: the rows aggregated, when the check has no
    ``filter``; the check's ``filter`` replaces it)."""
    node = a.get("row_filter")
    if node is None or a.row_filter is not None:
        return None
    return node.as_str("a filter (a Spark SQL predicate)")


_PASSES = {"greater_than": Op.LE, "less_than": Op.GE, "not_equal_to": Op.EQ, "equal_to": Op.NE}
"""What a group's count must be, by the DQX comparison that flags it."""


def _per_group(a: Args, aggr: str, label: str, op_name: str) -> Mapped:
    """``is_aggr_*`` with ``group_by``: DQX flags the rows of every group whose
    aggregate compares TRUE with the limit. Only ``count`` (a number for every group,
    never NULL or NaN) is run per group: a group's NULL or NaN aggregate is judged by
    DQX's Spark comparison, which assay's per-group thresholds do not reproduce. With
    the ``row_filter`` argument, every row's group counts the rows it keeps."""
    if aggr != "count" or a.get("aggr_params") is not None:
        raise a.require("group_by").error(
            f"DQX: group_by with aggr_type '{aggr}' is not supported",
            hint="assay checks count per group; a group's sum, avg, min or max may be NULL "
            "or NaN, which DQX judges by Spark's comparison",
        )
    node = a.get("aggr_params")
    if node is not None:
        raise node.error(f"DQX: aggr_params are not supported in '{a.function}'")
    by = plain_columns(a.require("group_by"))
    t = a.target()
    kept = _argument_filter(a)
    node = a.require("limit")
    if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
        raise node.error(
            "DQX: a per-group limit must be a number",
            hint="assay compares each group's count with a number",
        )
    value = node.value
    must = Comparison(_PASSES[op_name], Decimal(repr(value)), f"{_PASSES[op_name].value} {value}")
    metric: RowCountMetric | CountMetric
    present: Expr = Not(IsNull(Col(t.column) if t.column is not None else Sql(t.sql)))
    if kept is not None:
        # DQX: each group of every row, its count of the rows the argument keeps
        where = is_true(Sql(kept))
        metric = CountMetric(where if t.shown == "*" else all_of(where, present))
    elif t.shown == "*":
        metric = RowCountMetric()
    else:
        metric = CountMetric(present)
    check = MetricCheck(metric, must, group_by=by)
    name = f"{t.norm}_{aggr}_group_by_{'_'.join(by)}_{op_name}_limit".lstrip("_")
    message = (f"Count value {{value}} in column '{t.shown}' per group of columns "
               f"'{', '.join(by)}' is {label} limit: {value}")  # fmt: skip
    columns = tuple(dict.fromkeys(((t.column,) if t.column else ()) + by))
    return Mapped(check, columns, name, message, row_level=False)


def _distribution(a: Args) -> list[tuple[str, float]]:
    """DQX's ``distribution``: a non-empty mapping of values to shares (numbers, not
    NULL, summing to 1 at most)."""
    node = a.require("distribution")
    items = node.as_mapping("a mapping of values to their expected shares")
    if not items:
        raise node.error("DQX: 'distribution' must not be empty.")
    found: list[tuple[str, float]] = []
    for key, share in items.items():
        value = share.as_number("a share (a number between 0 and 1)")
        if not 0 <= value <= 1:
            raise share.error(f"DQX: the share of '{key}' must be between 0 and 1, got {value}")
        found.append((key, value))
    if math.fsum(v for _, v in found) > 1 + 1e-9:
        raise node.error("DQX: the sum of the distribution's shares must be at most 1")
    return found


def _in_distribution(a: Args) -> Mapped:
    """DQX's ``is_in_distribution``: the total variation distance between the shares of
    the column's non-NULL values (of the filter) and ``distribution`` (the values it
    does not list sharing the rest) above ``distance`` (1e-9 of slack) flags every row;
    no value, no flag. Spark's arithmetic in DQX's order, so the distance is DQX's."""
    t = a.target()
    shares = _distribution(a)
    node = a.require("distance")
    distance = node.as_number("a distance between 0 and 1")
    if not 0 <= distance <= 1:
        raise node.error(f"DQX: 'distance' must be between 0 and 1 (inclusive), got {distance}.")
    x = t.sql
    sensitive = a.flag("case_sensitive", default=True)
    if not sensitive:
        x, shares = f"lower({x})", [(k.lower(), v) for k, v in shares]
    counts = [f"count(CASE WHEN {x} = {sql_string(k)} THEN 1 END) AS c{i}"
              for i, (k, _) in enumerate(shares)]  # fmt: skip
    where = f" WHERE ({a.row_filter})" if a.row_filter is not None else ""
    counted = f"SELECT {', '.join(counts)}, count({x}) AS n FROM {VIEW}{where}"
    listed = " + ".join(f"c{i}" for i in range(len(shares)))
    rest = 1.0 - math.fsum(v for _, v in shares)
    terms = [f"abs({number_sql(float(v))} - c{i} / n)" for i, (_, v) in enumerate(shares)]
    terms.append(f"abs({number_sql(rest)} - (n - ({listed})) / n)")
    tvd = f"0.5D * ({' + '.join(terms)})"
    bound = number_sql(float(distance))
    far = f"({tvd} > {bound}) AND NOT (abs({tvd} - {bound}) <= 1.0E-9D)"
    query = f"SELECT NOT (CASE WHEN n = 0 THEN false ELSE {far} END) FROM ({counted}) AS s"
    message = (f"Column '{t.shown}' actual distribution deviates from expected by TVD={{tvd}}, "
               f"which exceeds the allowed distance={distance}.")  # fmt: skip
    columns = (t.column,) if t.column is not None else ()
    return Mapped(SqlCheck(query), columns, f"{t.norm}_is_not_in_distribution", message,
                  row_level=False)  # fmt: skip


_AGGR = takes("column", "limit", "aggr_type", "group_by", "row_filter", "aggr_params")

FUNCTIONS: dict[str, Function] = {
    "is_aggr_not_greater_than": Function(_aggregate(">", "greater than", "greater_than"), _AGGR),
    "is_aggr_not_less_than": Function(_aggregate("<", "less than", "less_than"), _AGGR),
    "is_aggr_equal": Function(
        _aggregate("!=", "not equal to", "not_equal_to"),
        _AGGR | {"abs_tolerance", "rel_tolerance"},
    ),
    "is_aggr_not_equal": Function(_aggregate("=", "equal to", "equal_to"), _AGGR),
    "is_in_distribution": Function(
        _in_distribution,
        takes("column", "distribution", "distance", "case_sensitive", "row_filter"),
    ),
}
"""The aggregate functions, by DQX's name."""

"""More Great Expectations expectations, each with GX 1.x's Spark semantics
(docs/dialects.md, "Great Expectations suites"): the proportion of non-null values (0
without rows, as GX says), a column's quantiles (``approxQuantile``: Spark's
``percentile_approx``), the rows an SQL query returns (``unexpected_rows_expectation``)
and values Python's ``strptime`` accepts (:mod:`assay.dialects.great_expectations_strftime`).
:mod:`assay.dialects.great_expectations_map` gathers them into ``EXPECTATIONS``."""

from __future__ import annotations

from decimal import Decimal
from string import Formatter

from assay.config.node import Node
from assay.dialects import great_expectations_kwargs as kw
from assay.dialects import great_expectations_strftime as strftime
from assay.dialects.great_expectations_mapped import Expectation, Mapped, column_map
from assay.ir.expr import Col, IsNaN, IsNull, Matches, Not, Sql, any_of
from assay.ir.metrics import AggregateMetric, ComplianceMetric, Metric
from assay.ir.rules import MetricCheck, SqlCheck
from assay.ir.values import Between, Threshold, to_decimal

VIEW = "_validation_df"
"""The table as SQL rules read it (GX's ``{batch}``)."""


def _non_null_proportion(kwargs: Node) -> Mapped:
    """GX's ``column.non_null_proportion``: ``count(column) / row count`` in doubles, and
    0 for a table without rows (GX's own rule: "returning 0 if all values are nulls");
    NaN is a value. Without bounds: vacuously true."""
    name = kw.column(kwargs)
    threshold = kw.bounds(kwargs, numbers=True, unbounded=True).threshold()
    metric = ComplianceMetric(Not(IsNull(Col(name))), empty=0.0)
    return Mapped(MetricCheck(metric, threshold), (name,), ((name, "any"),), None, threshold.text)


EXACT = 2**31 - 1
"""``percentile_approx``'s largest accuracy: a relative error of 1/EXACT, under which Spark
keeps every value of a column of fewer than 2^30 rows, so the quantile is the value of
rank ``ceil(q * n)``, as ``approxQuantile(column, quantiles, 0.0)`` gives it."""
_RTOL, _ATOL = Decimal("1e-4"), Decimal("1e-8")


def _quantiles(kwargs: Node) -> Mapped:
    """GX on Spark: ``df.approxQuantile(column, quantiles, 0.0)`` (the column's numbers
    as doubles, nulls and NaN left out: Spark's ``percentile_approx`` of the column cast
    to DOUBLE at its largest accuracy, where NaN is not; one call for all the quantiles,
    one summary of the column, as GX's); each quantile must be within
    its range, a null bound open, or close to a bound (GX's ``isclose``, ``rtol`` 1e-4,
    ``atol`` 1e-8: the range widened by ``atol + rtol * |bound|`` at each end); no value
    (no number in the column) fails."""
    name = kw.column(kwargs)
    _exact(kwargs)
    node = kwargs.require("quantile_ranges")
    node.as_mapping("quantile_ranges (a mapping with quantiles and value_ranges)")
    node.check_keys(frozenset({"quantiles", "value_ranges"}))
    quantiles = node.require("quantiles").as_list("a list of quantiles", non_empty=True)
    ranges = node.require("value_ranges").as_list("a list of [min, max] ranges")
    if len(quantiles) != len(ranges):
        raise node.error("quantile_values and quantiles must have the same number of elements")
    where = Not(IsNaN(Col(name)))
    found: list[Decimal] = []
    for q_node in quantiles:
        q = Decimal(repr(float(q_node.as_number("a quantile between 0 and 1"))))
        if not 0 <= q <= 1:
            raise q_node.error(f"a quantile is between 0 and 1, got {q}")
        found.append(q)
    # one summary for every quantile, as GX's one approxQuantile call: each metric is an
    # element of the same percentile_approx(x, array(...), EXACT)
    args = (tuple(found), EXACT)
    checks: list[tuple[Metric, Threshold]] = [
        (AggregateMetric("percentile_approx", name, args, where, "double", element=i), _range(r))
        for i, r in enumerate(ranges)
    ]
    (first, must), *also = checks
    check = MetricCheck(first, must, also=tuple(also))
    shown = "; ".join(f"q{q.value} {t.text}" for q, (_, t) in zip(quantiles, checks, strict=True))
    return Mapped(check, (name,), ((name, "numeric"),), None, shown)


def _exact(kwargs: Node) -> None:
    """``allow_relative_error``: GX 1.x on Spark runs only ``false`` (its default); a
    number is read as text and ``true`` is no float, both raise in GX's Spark metric."""
    node = kwargs.get("allow_relative_error")
    if node is None or node.value is None or node.value is False or node.value == 0:
        return
    raise node.error(
        f"allow_relative_error {node.value!r} is not supported",
        hint="GX's Spark metric raises 'SparkDFExecutionEngine requires relative error to be "
        "False or to be a float between 0 and 1' (GX 1.x reads a number as text); remove it",
    )


def _range(node: Node) -> Between:
    """A ``[min, max]`` range (a null bound open), widened by GX's ``isclose``."""
    items = node.as_list("a [min, max] range")
    if len(items) != 2:
        raise node.error(f"a range is [min, max], got {len(items)} values")
    low, high = (None if i.value is None else to_decimal(i.as_number("a number")) for i in items)
    if low is not None and high is not None and low > high:
        raise node.error("quantile_ranges must consist of ordered pairs")
    text = f"between {'-inf' if low is None else low} and {'inf' if high is None else high}"
    return Between(
        None if low is None else low - (_ATOL + _RTOL * abs(low)),
        None if high is None else high + (_ATOL + _RTOL * abs(high)),
        text,
    )


def _unexpected_rows(kwargs: Node) -> Mapped:
    """GX's ``UnexpectedRowsExpectation``: the rows the query returns are unexpected
    (success: none). GX formats the query with ``str.format(batch=<the batch's view>)``
    (``{{``/``}}`` are braces; any other placeholder is its error) after stripping
    trailing semicolons and whitespace; here the batch is ``_validation_df``, so a
    ``SELECT * FROM {batch} WHERE ...`` folds into the table's one aggregate scan."""
    node = kwargs.require("unexpected_rows_query")
    text = node.as_str("a SQL query (Spark SQL, with {batch} for the table)")
    condition = kwargs.get("row_condition")
    if condition is not None and condition.value is not None:
        raise condition.error(
            "row_condition is not supported with unexpected_rows_query",
            hint="write the condition in the query's WHERE",
        )
    parts: list[str] = []
    try:
        parsed = list(Formatter().parse(text.rstrip("; \t\r\n\v\f")))
    except ValueError as e:
        raise node.error(
            f"unexpected_rows_query has an unpaired or malformed brace: {e}",
            hint="to include a literal brace, double it: {{ and }}",
        ) from None
    for literal, field, spec, conversion in parsed:
        parts.append(literal)
        if field is None:
            continue
        if field != "batch" or spec or conversion:
            raise node.error(
                f"unexpected_rows_query: {{{field}}} is not a placeholder GX fills",
                hint="write {batch} for the table; double a literal brace: {{ and }}",
            )
        parts.append(VIEW)
    return Mapped(SqlCheck("".join(parts), "failed_rows"), (), (), None, None)


def _strftime(kwargs: Node) -> Mapped:
    """GX on Spark: a non-null value is expected when Python's ``datetime.strptime(value,
    format)`` accepts it (a string column; GX raises on any other)."""
    name = kw.column(kwargs)
    node = kwargs.require("strftime_format")
    fmt = node.as_str("a strftime format")
    try:
        found = strftime.translate(fmt)
    except strftime.FormatError as e:
        raise node.error(
            f"strftime_format {fmt!r}: {e}",
            hint="assay reads %Y %y %m %d %H %M %S %f and %% (no locale's names, no %j, "
            "%U, %W, %z): write the check with expect_column_values_to_match_regex",
        ) from None
    quoted = "`" + name.replace("`", "``") + "`"
    invalid = strftime.invalid_date_sql(quoted, found)
    unexpected = any_of(
        Not(Matches(Col(name), found.regex)), *([Sql(invalid)] if invalid is not None else [])
    )
    return column_map(kwargs, name, unexpected, "string")


_AGG = (
    frozenset({"column", "min_value", "max_value", "strict_min", "strict_max"})
    | kw.CONDITION
    | kw.IGNORED
)

MORE: dict[str, Expectation] = {
    "expect_column_proportion_of_non_null_values_to_be_between": Expectation(
        _non_null_proportion, _AGG
    ),
    "expect_column_quantile_values_to_be_between": Expectation(
        _quantiles, frozenset({"column", "quantile_ranges", "allow_relative_error"}) | _AGG
    ),
    "unexpected_rows_expectation": Expectation(
        _unexpected_rows,
        frozenset({"unexpected_rows_query", "description"}) | kw.CONDITION | kw.IGNORED,
    ),
    "expect_column_values_to_match_strftime_format": Expectation(
        _strftime, frozenset({"column", "strftime_format"}) | kw.MOSTLY | kw.CONDITION | kw.IGNORED
    ),
}
"""The expectations of this module, by GX's name."""

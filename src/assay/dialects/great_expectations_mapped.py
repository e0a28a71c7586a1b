"""What a Great Expectations expectation compiles to (:class:`Mapped`), how an
expectation is registered (:class:`Expectation`: its builder and the kwargs it reads) and
the column-map shape most expectations share (:func:`column_map`: GX's rows after its
null rule, ``mostly``), for the modules mapping expectations
(:mod:`assay.dialects.great_expectations_map` and the modules it gathers)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from assay.config.node import Node
from assay.dialects import great_expectations_kwargs as kw
from assay.ir.expr import Col, Expr, IsNull, Not, is_true
from assay.ir.rules import Check, RowCheck, TypeFamily
from assay.ir.values import ZERO_TOLERANCE


@dataclass(frozen=True, slots=True)
class Mapped:
    """What one expectation compiles to: its check, the columns it reads and their kinds,
    the rows it considers (``considered``: GX's rows after its null rule, beside the
    ``row_condition``) and the threshold it shows."""

    check: Check
    columns: tuple[str, ...]
    requires: tuple[tuple[str, TypeFamily], ...] = ()
    considered: Expr | None = None
    threshold: str | None = None


Builder = Callable[[Node], Mapped]


@dataclass(frozen=True, slots=True)
class Expectation:
    """An expectation assay runs: its builder and the kwargs it reads."""

    build: Builder
    keys: frozenset[str]
    filtered: bool = True
    """Whether the ``row_condition`` is the rule's filter; False when the builder
    writes it into the check itself (an SQL metric takes no filter)."""


def column_map(
    kwargs: Node,
    name: str,
    unexpected: Expr,
    family: TypeFamily = "any",
    *,
    nulls_considered: bool = False,
) -> Mapped:
    """A column-map expectation: ``unexpected`` is true for a failing non-null value."""
    tolerance = kw.mostly(kwargs) or ZERO_TOLERANCE
    considered = None if nulls_considered else Not(IsNull(Col(name)))
    failing = unexpected if nulls_considered else is_true(unexpected)
    return Mapped(
        RowCheck(failing, tolerance=tolerance),
        (name,),
        ((name, family),),
        considered,
        threshold=f"mostly {tolerance.text}" if tolerance.value else None,
    )


_NO_SPARK = "GX has no Spark implementation of it (its metric runs on pandas or SQL only)"
REFUSED: dict[str, str] = {
    "expect_column_values_to_match_like_pattern": _NO_SPARK,
    "expect_column_values_to_not_match_like_pattern": _NO_SPARK,
    "expect_column_values_to_match_like_pattern_list": _NO_SPARK,
    "expect_column_values_to_not_match_like_pattern_list": _NO_SPARK,
    "expect_column_values_to_be_dateutil_parseable": _NO_SPARK,
    "expect_query_results_to_match_comparison": _NO_SPARK + " for its comparison query",
    "expect_table_row_count_to_equal_other_table": "GX on Spark raises on it "
    "('SparkDFExecutionEngine does not currently support multiple named tables'); a native "
    "row_count_match rule compares a table's rows with a reference's",
    "expect_multicolumn_values_to_be_unique": "GX 1.x keeps it without a metric (it cannot "
    "run); expect_select_column_values_to_be_unique_within_record is its successor",
    "expect_column_value_z_scores_to_be_less_than": "each row's z-score needs the column's "
    "mean and deviation first: a second pass over the table, which assay's one aggregate "
    "scan has no place for (a scalar subquery there risks Spark's subquery pool)",
    "expect_column_values_to_not_be_outliers": "its bounds need the column's statistics "
    "before the rows are tested: a second pass over the table",
    "expect_column_values_to_be_increasing": "GX on Spark compares each value with the one "
    "before it in no defined order (a window ordered by a constant): its answer depends on "
    "how Spark happens to read the rows",
    "expect_column_values_to_be_decreasing": "GX on Spark compares each value with the one "
    "before it in no defined order (a window ordered by a constant): its answer depends on "
    "how Spark happens to read the rows",
    "expect_column_values_to_be_json_parseable": "GX on Spark runs Python's json.loads in a "
    "UDF; Spark's JSON parsers disagree with it (NaN and Infinity, text after the value, "
    "duplicate keys, lone surrogates)",
    "expect_column_values_to_match_json_schema": "GX on Spark validates each value with the "
    "jsonschema package in a UDF; Spark has no JSON Schema validator",
    "expect_column_kl_divergence_to_be_less_than": "its expected distribution is a "
    "partition_object of bins and weights; assay's drift rules compare a table with a "
    "reference table or its history (docs/rules.md), not with given weights",
}
"""Why GX's other core expectations are refused (docs/dialects.md), by GX's name."""

"""Great Expectations' expectations of the table's shape, each with GX 1.x's Spark
semantics (docs/dialects.md, "Great Expectations suites"): the number of its columns
(``table.column_count``: ``len(df.columns)``), judged from the schema before any scan.
:mod:`assay.dialects.great_expectations_map` gathers them into ``EXPECTATIONS``."""

from __future__ import annotations

from decimal import Decimal

from assay.config.node import Node
from assay.dialects import great_expectations_kwargs as kw
from assay.dialects.great_expectations_mapped import Expectation, Mapped
from assay.ir.rules import SchemaCheck
from assay.ir.values import Comparison, Op, Threshold

COLUMN_COUNTS = frozenset(
    {"expect_table_column_count_to_be_between", "expect_table_column_count_to_equal"}
)
"""The expectations whose ``observed_value`` is the number of the table's columns."""


def _counted(threshold: Threshold) -> Mapped:
    check = SchemaCheck(case_sensitive=True, exactly="superset", column_count=threshold)
    return Mapped(check, (), (), None, threshold.text)


def _column_count_between(kwargs: Node) -> Mapped:
    """Both bounds missing: vacuously true, as GX's fixture asserts."""
    return _counted(kw.bounds(kwargs, numbers=True, strict=False, unbounded=True).threshold())


def _column_count_equal(kwargs: Node) -> Mapped:
    value = kwargs.require("value").as_int("a number of columns", minimum=0)
    return _counted(Comparison(Op.EQ, Decimal(value), f"== {value}"))


TABLE: dict[str, Expectation] = {
    "expect_table_column_count_to_be_between": Expectation(
        _column_count_between, frozenset({"min_value", "max_value"}) | kw.IGNORED
    ),
    "expect_table_column_count_to_equal": Expectation(
        _column_count_equal, frozenset({"value"}) | kw.IGNORED
    ),
}
"""The expectations of this module, by GX's name."""

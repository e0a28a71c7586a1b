"""The frozen intermediate representation every dialect compiles to (no pyspark here)."""

from __future__ import annotations

from assay.ir.expr import (
    And,
    Coalesce,
    Col,
    Compare,
    Expr,
    InSet,
    IsNaN,
    IsNull,
    Length,
    Lit,
    Matches,
    Not,
    Or,
    Sql,
    all_of,
    any_of,
    columns_of,
    is_true,
)
from assay.ir.origin import Origin
from assay.ir.rules import (
    Check,
    ColStatsCheck,
    ColumnMetric,
    CountMetric,
    EqualsCheck,
    FreshnessMetric,
    GroupMetric,
    Level,
    Metric,
    MetricCheck,
    RowCheck,
    RowCountMetric,
    Rule,
    SchemaCheck,
    SqlCheck,
    TypeFamily,
    UniqueCheck,
)
from assay.ir.suite import CatalogSource, PathSource, Source, SqlSource, Suite, Table
from assay.ir.values import ZERO_TOLERANCE, Between, Comparison, Op, Threshold, Tolerance

__all__ = [
    "And", "Between", "CatalogSource", "Check", "Coalesce", "Col", "ColStatsCheck",
    "ColumnMetric", "Compare", "Comparison", "CountMetric", "EqualsCheck", "Expr",
    "FreshnessMetric", "GroupMetric", "InSet", "IsNaN",
    "IsNull", "Length", "Level", "Lit", "Matches", "Metric", "MetricCheck", "Not", "Op", "Or",
    "Origin", "PathSource", "RowCheck", "RowCountMetric", "Rule", "SchemaCheck", "Source", "Sql",
    "SqlCheck", "SqlSource", "Suite", "Table", "Threshold", "Tolerance", "TypeFamily",
    "UniqueCheck", "ZERO_TOLERANCE", "all_of", "any_of", "columns_of", "is_true",
]

"""The rest of the reference systems' catalogue, without Spark: every new rule type and
alias compiles to the documented IR, config mistakes are located errors, type mismatches
are preflight errors, targets expand, and the planner batches histograms into one plan."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import pytest

from assay.config import load_suite
from assay.dialects.catalogue import ALIASES, RULES
from assay.dialects.formats import FORMATS
from assay.errors import ConfigErrors, PreflightError
from assay.ir import (
    Between,
    Col,
    ColStatsCheck,
    ColumnMetric,
    Compare,
    Comparison,
    CountMetric,
    EqualsCheck,
    FreshnessMetric,
    GroupMetric,
    InSet,
    IsNull,
    Length,
    Lit,
    Matches,
    MetricCheck,
    Not,
    Op,
    RowCheck,
    RowCountMetric,
    SqlCheck,
    Tolerance,
    UniqueCheck,
    all_of,
    any_of,
    is_true,
)
from assay.ir.drift import DriftMetric
from assay.ir.expr import Sql
from assay.ir.metrics import AggregateMetric, ComplianceMetric, FrequencyMetric
from assay.ir.references import ForeignKeyCheck, Lookup, Reference, RowCountMatchMetric
from assay.ir.sources import CatalogSource, PathSource, SqlSource
from assay.judge.evaluate import judge
from assay.judge.preflight import check_table
from assay.planner import plan_table
from assay.planner.measures import AgeMicros, AggEquals, ColumnAgg, GroupStats, Histogram, RowCount
from assay.planner.render import render_plan
from assay.report.events import RuleResult

A, B = Col("a"), Col("b")
EQ1 = Comparison(Op.EQ, Decimal(1), "== 1")


def load(tmp_path: Path, rules: str, name: str = "c.yaml"):
    path = tmp_path / name
    path.write_text(f"tables:\n  - source: {{table: t}}\n    rules:\n{rules}")
    return load_suite([path])


def one_rule(tmp_path: Path, rule: str):
    return load(tmp_path, f"      - {rule}\n").tables[0].rules[0]


def errors(tmp_path: Path, rules: str) -> str:
    with pytest.raises(ConfigErrors) as e:
        load(tmp_path, rules)
    return str(e.value)


# --- every new type and alias -> IR -------------------------------------------------------

CASES = [
    # data-validator
    ("{type: nullCheck, column: a}", "not_null", RowCheck(IsNull(A)), ("a",), (("a", "any"),)),
    (
        "{type: null_check, column: a, tolerance: '5%'}",
        "not_null",
        RowCheck(IsNull(A), Tolerance("fraction", Decimal("0.05"), "5%")),
        ("a",),
        (("a", "any"),),
    ),
    (
        "{type: negative_check, column: a}",
        "negative_check",
        RowCheck(is_true(Compare(Op.LT, A, Lit(0)))),
        ("a",),
        (("a", "numeric"),),
    ),
    (
        "{type: negativeCheck, column: a, tolerance: 0.25}",
        "negative_check",
        RowCheck(
            is_true(Compare(Op.LT, A, Lit(0))),
            Tolerance("fraction", Decimal("0.25"), "0.25"),
        ),
        ("a",),
        (("a", "numeric"),),
    ),
    (
        "{type: range_check, column: a, min_value: 1, max_value: 5}",
        "range_check",
        RowCheck(is_true(any_of(Compare(Op.LE, A, Lit(1)), Compare(Op.GE, A, Lit(5))))),
        ("a",),
        (("a", "numeric"),),
    ),
    (
        "{type: rangeCheck, column: a, min_value: 1, max_value: 5, inclusive: true}",
        "range_check",
        RowCheck(is_true(any_of(Compare(Op.LT, A, Lit(1)), Compare(Op.GT, A, Lit(5))))),
        ("a",),
        (("a", "numeric"),),
    ),
    (
        "{type: range_check, column: a, min_value: '`b', tolerance: 3}",
        "range_check",
        RowCheck(is_true(Compare(Op.LE, A, B)), Tolerance("absolute", Decimal(3), "3")),
        ("a", "b"),
        (("b", "orderable"), ("a", "orderable")),
    ),
    (
        "{type: range_check, column: a, max_value: '`b`', min_value: 2024-01-01}",
        "range_check",
        RowCheck(
            is_true(any_of(Compare(Op.LE, A, Lit(dt.date(2024, 1, 1))), Compare(Op.GE, A, B)))
        ),
        ("a", "b"),
        (("a", "temporal"), ("b", "orderable")),
    ),
    (
        "{type: range_check, column: a, min_value: b, max_value: m}",
        "range_check",
        RowCheck(is_true(any_of(Compare(Op.LE, A, Lit("b")), Compare(Op.GE, A, Lit("m"))))),
        ("a",),
        (("a", "string"),),
    ),
    (
        "{type: string_length_check, column: a, min_length: 1, max_length: 5}",
        "string_length_check",
        RowCheck(
            is_true(any_of(Compare(Op.LT, Length(A), Lit(1)), Compare(Op.GT, Length(A), Lit(5))))
        ),
        ("a",),
        (("a", "string"),),
    ),
    (
        "{type: stringLengthCheck, column: a, max_length: 5}",
        "string_length_check",
        RowCheck(is_true(Compare(Op.GT, Length(A), Lit(5)))),
        ("a",),
        (("a", "string"),),
    ),
    (
        "{type: string_regex_check, column: a, regex: '^x$'}",
        "string_regex_check",
        RowCheck(is_true(Not(Matches(A, "^x$")))),
        ("a",),
        (("a", "string"),),
    ),
    (
        "{type: stringRegexCheck, column: a, regex: '\\w'}",
        "string_regex_check",
        RowCheck(is_true(Not(Matches(A, "\\w")))),
        ("a",),
        (("a", "string"),),
    ),
    (
        "{type: rowCount, min_num_rows: 5}",
        "row_count",
        MetricCheck(RowCountMetric(), Between(Decimal(5), None, ">= 5")),
        (),
        (),
    ),
    (
        "{type: uniqueCheck, columns: [a, b]}",
        "unique",
        UniqueCheck(("a", "b")),
        ("a", "b"),
        (("a", "any"), ("b", "any")),
    ),
    ("{type: unique_check, columns: [a]}", "unique", UniqueCheck(("a",)), ("a",), (("a", "any"),)),
    (
        "{type: column_sum_check, column: a, min_value: 1, max_value: 2.5}",
        "column_sum_check",
        MetricCheck(
            ColumnMetric("sum", "a"),
            Between(
                Decimal(1),
                Decimal("2.5"),
                "> 1 and < 2.5",
                low_inclusive=False,
                high_inclusive=False,
            ),
        ),
        ("a",),
        (("a", "numeric"),),
    ),
    (
        "{type: columnSumCheck, column: a, max_value: 10, inclusive: true}",
        "column_sum_check",
        MetricCheck(ColumnMetric("sum", "a"), Between(None, Decimal(10), "<= 10")),
        ("a",),
        (("a", "numeric"),),
    ),
    (
        "{type: column_max_check, column: a, value: 10}",
        "column_max_check",
        EqualsCheck(ColumnMetric("max", "a"), 10),
        ("a",),
        (("a", "numeric"),),
    ),
    (
        "{type: columnMaxCheck, column: a, value: abc}",
        "column_max_check",
        EqualsCheck(ColumnMetric("max", "a"), "abc"),
        ("a",),
        (("a", "string"),),
    ),
    (
        "{type: column_max_check, column: a, value: 2024-01-31}",
        "column_max_check",
        EqualsCheck(ColumnMetric("max", "a"), dt.date(2024, 1, 31)),
        ("a",),
        (("a", "temporal"),),
    ),
    (
        "{type: column_max_check, column: a, value: '2024-01-31'}",
        "column_max_check",
        EqualsCheck(ColumnMetric("max", "a"), "2024-01-31"),
        ("a",),
        (("a", "string_or_temporal"),),
    ),
    (
        "{type: column_max_check, column: a, value: true}",
        "column_max_check",
        EqualsCheck(ColumnMetric("max", "a"), True),
        ("a",),
        (("a", "boolean"),),
    ),
    ("{type: colstats, column: a}", "colstats", ColStatsCheck("a"), ("a",), (("a", "numeric"),)),
    # Metorikku / deequ
    ("{type: isComplete, column: a}", "not_null", RowCheck(IsNull(A)), ("a",), (("a", "any"),)),
    ("{type: is_complete, column: a}", "not_null", RowCheck(IsNull(A)), ("a",), (("a", "any"),)),
    ("{type: isUnique, column: a}", "unique", UniqueCheck(("a",)), ("a",), (("a", "any"),)),
    ("{type: is_unique, column: a}", "unique", UniqueCheck(("a",)), ("a",), (("a", "any"),)),
    (
        "{type: has_size, size: 1, operator: '=='}",
        "has_size",
        MetricCheck(RowCountMetric(), EQ1),
        (),
        (),
    ),
    (
        "{type: hasSize, size: 0, operator: '<'}",
        "has_size",
        MetricCheck(RowCountMetric(), Comparison(Op.LT, Decimal(0), "< 0")),
        (),
        (),
    ),
    (
        "{type: has_uniqueness, columns: [a, b]}",
        "has_uniqueness",
        MetricCheck(
            GroupMetric(("a", "b"), "uniqueness", "all"),
            Comparison(Op.EQ, Decimal("1.0"), "== 1.0"),
        ),
        ("a", "b"),
        (("a", "any"), ("b", "any")),
    ),
    (
        "{type: hasUniqueness, column: a, fraction: 0.75, operator: '>='}",
        "has_uniqueness",
        MetricCheck(
            GroupMetric(("a",), "uniqueness", "all"), Comparison(Op.GE, Decimal("0.75"), ">= 0.75")
        ),
        ("a",),
        (("a", "any"),),
    ),
    (
        "{type: is_contained_in, column: a, allowed_values: [x, y]}",
        "is_contained_in",
        RowCheck(is_true(Not(InSet(A, ("x", "y"))))),
        ("a",),
        (("a", "any"),),
    ),
    (
        "{type: isContainedIn, column: a, allowed_values: [x]}",
        "is_contained_in",
        RowCheck(is_true(Not(InSet(A, ("x",))))),
        ("a",),
        (("a", "any"),),
    ),
    # sparquet
    (
        "{type: duplicate_percent, columns: [a, b], must_be: '< 1%'}",
        "duplicate_percent",
        MetricCheck(
            GroupMetric(("a", "b"), "duplicate_percent"),
            Comparison(Op.LT, Decimal(1), "< 1%", unit="percent"),
        ),
        ("a", "b"),
        (("a", "any"), ("b", "any")),
    ),
    (
        "{type: freshness, column: a, must_be: '< 1d'}",
        "freshness",
        MetricCheck(
            FreshnessMetric("a"), Comparison(Op.LT, Decimal(86400), "< 1d", unit="seconds")
        ),
        ("a",),
        (("a", "temporal"),),
    ),
    (
        "{type: invalid_count, column: a, valid_values: [x, y], must_be: 0}",
        "invalid_count",
        MetricCheck(
            CountMetric(all_of(Not(IsNull(A)), Not(InSet(A, ("x", "y"))))),
            Comparison(Op.EQ, Decimal(0), "0"),
        ),
        ("a",),
        (("a", "any"),),
    ),
    (
        "{type: invalid_percent, column: a, valid_min: 0, valid_max: 10, missing_values: [-1],"
        " must_be: '< 5%'}",
        "invalid_percent",
        MetricCheck(
            CountMetric(
                all_of(
                    Not(IsNull(A)),
                    Not(is_true(any_of(IsNull(A), InSet(A, (-1,))))),
                    Not(all_of(Compare(Op.GE, A, Lit(0)), Compare(Op.LE, A, Lit(10)))),
                ),
                percent=True,
            ),
            Comparison(Op.LT, Decimal(5), "< 5%", unit="percent"),
        ),
        ("a",),
        (("a", "numeric"),),
    ),
    (
        "{type: invalid_count, column: a, valid_regex: '^x', valid_length: 3, must_be: 0}",
        "invalid_count",
        MetricCheck(
            CountMetric(
                all_of(
                    Not(IsNull(A)), Not(all_of(Matches(A, "^x"), Compare(Op.EQ, Length(A), Lit(3))))
                )
            ),
            Comparison(Op.EQ, Decimal(0), "0"),
        ),
        ("a",),
        (("a", "string"),),
    ),
    (
        "{type: foreign_key, column: a, tolerance: 2, references: {table: crm.c, columns: [id]}}",
        "foreign_key",
        ForeignKeyCheck(
            Lookup(("a",), Reference(CatalogSource("crm.c"), ("id",))),
            Tolerance("absolute", Decimal(2), "2"),
        ),
        ("a",),
        (("a", "any"),),
    ),
    (
        "{type: foreign_key, columns: [a, b], references: {sql: 'SELECT 1 AS x, 2 AS y', columns: [x, y]}}",
        "foreign_key",
        ForeignKeyCheck(
            Lookup(("a", "b"), Reference(SqlSource("SELECT 1 AS x, 2 AS y"), ("x", "y")))
        ),
        ("a", "b"),
        (("a", "any"), ("b", "any")),
    ),
    (
        "{type: foreign_key, column: a, negate: true, references: {table: crm.c, columns: [id]}}",
        "foreign_key",
        ForeignKeyCheck(Lookup(("a",), Reference(CatalogSource("crm.c"), ("id",))), negate=True),
        ("a",),
        (("a", "any"),),
    ),
    (
        "{type: row_count_match, references: {path: /d/c.parquet}, must_be: 'between 99% and 101%'}",
        "row_count_match",
        MetricCheck(
            RowCountMatchMetric(Reference(PathSource("parquet", ("/d/c.parquet",)))),
            Between(Decimal(99), Decimal(101), "between 99% and 101%", unit="percent"),
        ),
        (),
        (),
    ),
    # deequ's analyzers beyond plain aggregates (tests/integration/test_deequ_sketch_metrics.py)
    (
        "{type: approx_distinct_count, column: a, must_be: 1}",
        "approx_distinct_count",
        MetricCheck(
            AggregateMetric("approx_count_distinct", "a", (Decimal("0.05"),)),
            Comparison(Op.EQ, Decimal(1), "1"),
        ),
        ("a",),
        (("a", "any"),),
    ),
    (
        "{type: correlation, columns: [a, b], must_be: '> 0.5'}",
        "correlation",
        MetricCheck(
            AggregateMetric("corr", "a", more=("b",)), Comparison(Op.GT, Decimal("0.5"), "> 0.5")
        ),
        ("a", "b"),
        (("a", "numeric"), ("b", "numeric")),
    ),
    (
        "{type: compliance, expression: 'a > 1', must_be: '>= 0.9'}",
        "compliance",
        MetricCheck(ComplianceMetric(Sql("a > 1")), Comparison(Op.GE, Decimal("0.9"), ">= 0.9")),
        (),
        (),
    ),
    (
        "{type: entropy, column: a, must_be: '> 1'}",
        "entropy",
        MetricCheck(FrequencyMetric(("a",), "entropy"), Comparison(Op.GT, Decimal(1), "> 1")),
        ("a",),
        (("a", "any"),),
    ),
    (
        "{type: mutual_information, columns: [a, b], must_be: '> 1'}",
        "mutual_information",
        MetricCheck(
            FrequencyMetric(("a", "b"), "mutual_information"),
            Comparison(Op.GT, Decimal(1), "> 1"),
        ),
        ("a", "b"),
        (("a", "any"), ("b", "any")),
    ),
    (
        "{type: count, column: a, must_be: '> 1'}",
        "count",
        MetricCheck(CountMetric(Not(IsNull(A))), Comparison(Op.GT, Decimal(1), "> 1")),
        ("a",),
        (("a", "any"),),
    ),
    # a distribution against a referenced source's (tests/integration/test_drift.py)
    (
        "{type: drift, column: a, method: psi, references: {sql: 'SELECT 1 AS a'}}",
        "drift",
        MetricCheck(
            DriftMetric("a", Reference(SqlSource("SELECT 1 AS a"), ("a",)), "psi", 10),
            Comparison(Op.LT, Decimal("0.2"), "< 0.2"),
        ),
        ("a",),
        (("a", "numeric"),),
    ),
    (
        "{type: drift, column: s, method: chi_square_p_value, bins: values,"
        " references: {table: db.ref, column: state}}",
        "drift",
        MetricCheck(
            # bins: values -> None: each value is its own bin
            DriftMetric(
                "s", Reference(CatalogSource("db.ref"), ("state",)), "chi_square_p_value", None
            ),  # fmt: skip
            Comparison(Op.GT, Decimal("0.05"), "> 0.05"),
        ),
        ("s",),
        (("s", "any"),),
    ),
    (
        "{type: custom_sql, failed_rows: 'SELECT * FROM _validation_df WHERE a < 0'}",
        "sql",
        SqlCheck("SELECT * FROM _validation_df WHERE a < 0", "failed_rows"),
        (),
        (),
    ),
]


@pytest.mark.parametrize(
    ("rule", "kind", "check", "columns", "requires"), CASES, ids=[c[0][:50] for c in CASES]
)
def test_new_rule_types_compile_to_the_documented_ir(
    tmp_path, rule, kind, check, columns, requires
):
    built = one_rule(tmp_path, rule)
    assert built.kind == kind
    assert built.check == check
    assert built.columns == columns
    assert built.requires == requires


REFERENCE_TYPES = {
    "duplicate_percent", "invalid_count", "invalid_percent", "freshness", "negative_check",
    "range_check", "string_length_check", "string_regex_check", "column_sum_check",
    "column_max_check", "colstats", "has_size", "has_uniqueness", "is_contained_in",
    "foreign_key", "row_count_match", "approx_distinct_count", "correlation", "compliance",
    "entropy", "mutual_information", "count", "drift",
}  # fmt: skip
REFERENCE_ALIASES = {
    "custom_sql", "nullCheck", "null_check", "negativeCheck", "rangeCheck", "stringLengthCheck",
    "stringRegexCheck", "rowCount", "uniqueCheck", "unique_check", "columnSumCheck",
    "columnMaxCheck", "isComplete", "is_complete", "isUnique", "is_unique", "hasSize",
    "hasUniqueness", "isContainedIn",
}  # fmt: skip


def test_every_new_type_and_alias_has_a_case():
    import re

    covered = {re.search(r"type: (\w+)", c[0]).group(1) for c in CASES}
    assert set(RULES) >= REFERENCE_TYPES
    assert set(ALIASES) >= REFERENCE_ALIASES
    assert covered == REFERENCE_TYPES | REFERENCE_ALIASES


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_named_format_compiles(tmp_path, name):
    rule = one_rule(
        tmp_path, f"{{type: invalid_count, column: a, valid_format: {name}, must_be: 0}}"
    )
    assert rule.requires == (("a", "string"),)
    text = render_plan(
        plan_table(
            load(
                tmp_path,
                f"      - {{type: invalid_count, column: a, valid_format: {name}, must_be: 0}}\n",
            ).tables[0]
        )
    )
    # a regex, except for the format Spark's own cast defines
    assert ("try_cast(`a` AS BOOLEAN) IS NOT NULL" if name == "boolean" else "RLIKE") in text


# --- config errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("{type: range_check, column: a}", "range_check needs 'min_value', 'max_value' or both"),
        (
            "{type: range_check, column: a, min_value: 5, max_value: 1}",
            "min (5) is greater than max (1)",
        ),
        ("{type: range_check, column: a, min_value: 5, max_value: 5}", "no value is in range"),
        ("{type: range_check, column: a, min_value: '`a'}", "cannot be the checked column 'a'"),
        ("{type: range_check, column: a, min_value: '`'}", "expected a column reference"),
        ("{type: range_check, column: a, min_value: 1, max_value: z}", "must be of the same kind"),
        (
            "{type: range_check, column: a, min_value: 1, inclusive: 'yes'}",
            "expected true or false",
        ),
        ("{type: string_length_check, column: a}", "needs 'min_length', 'max_length' or both"),
        (
            "{type: string_length_check, column: a, min_length: 3, max_length: 2}",
            "min_length (3) must be less than or equal to max_length (2)",
        ),
        ("{type: string_regex_check, column: a}", "missing required key 'regex'"),
        ("{type: rowCount, min_num_rows: 0}", "expected a row count (an integer) >= 1, got 0"),
        ("{type: row_count, min: 1, min_num_rows: 2}", "use either 'min' or 'min_num_rows'"),
        ("{type: column_sum_check, column: a}", "needs 'min_value', 'max_value' or both"),
        ("{type: column_sum_check, column: a, min_value: 2, max_value: 2}", "must be less than"),
        ("{type: column_sum_check, column: a, min_value: x}", "expected a number"),
        ("{type: column_max_check, column: a}", "missing required key 'value'"),
        ("{type: column_max_check, column: a, value: [1]}", "expected a number, string"),
        ("{type: has_size, size: 1}", "missing required key 'operator'"),
        ("{type: has_size, size: 1, operator: '=>'}", "expected one of ==, !=, >=, >, <=, <"),
        ("{type: has_size, size: -1, operator: '=='}", "expected a row count (an integer) >= 0"),
        ("{type: has_uniqueness, columns: [a], fraction: 1.5}", "between 0 and 1, got 1.5"),
        ("{type: is_contained_in, column: a, allowed_values: []}", "got an empty list"),
        ("{type: invalid_count, column: a, must_be: 0}", "needs at least one validity option"),
        (
            "{type: invalid_count, column: a, valid_format: emial, must_be: 0}",
            "unknown format 'emial' (did you mean 'email'?)",
        ),
        (
            "{type: invalid_count, column: a, valid_min: 5, valid_max: 1, must_be: 0}",
            "min (5) is greater than max (1)",
        ),
        (
            "{type: invalid_count, column: a, valid_min_length: 5, valid_max_length: 1,"
            " must_be: 0}",
            "valid_min_length (5) is greater than valid_max_length (1)",
        ),
        ("{type: invalid_count, column: a, valid_values: [x]}", "missing required key 'must_be'"),
        ("{type: freshness, column: a, must_be: '< 1y'}", "invalid threshold"),
        (
            "{type: sql, query: 'SELECT true', failed_rows: 'SELECT 1'}",
            "use either 'query' or 'failed_rows'",
        ),
        ("{type: colstats, column: a, must_be: 0}", "unknown key 'must_be'"),
        ("{type: foreign_key, column: a}", "missing required key 'references'"),
        (
            "{type: foreign_key, column: a, references: {table: c}}",
            "missing required key 'columns'",
        ),
        (
            "{type: foreign_key, column: a, references: {table: c, columns: [x, y]}}",
            "the rule has 1 key columns (a) and its reference 2 (x, y)",
        ),
        (
            "{type: foreign_key, column: a, references: {table: c, sql: 'SELECT 1', column: x}}",
            "exactly one of 'table', 'path' or 'sql'",
        ),
        (
            "{type: foreign_key, column: a, negate: 1, references: {table: c, column: x}}",
            "expected true or false",
        ),
        ("{type: row_count_match, references: {table: c}}", "missing required key 'must_be'"),
        ("{type: approx_distinct_count, column: a, rsd: 0.5, must_be: 1}", "from 0.005 to 0.39"),
        ("{type: correlation, columns: [a, b, c], must_be: 1}", "expected two columns, got 3"),
        ("{type: mutual_information, columns: [a], must_be: 1}", "expected two columns, got 1"),
        ("{type: entropy, column: a, group_by: b, must_be: 1}", "unknown key 'group_by'"),
        ("{type: compliance, expression: ' ', must_be: 1}", "expected a SQL condition"),
        (
            "{type: row_count_match, references: {table: c, columns: [x]}, must_be: 0}",
            "unknown key 'columns'",
        ),
    ],
)
def test_config_mistakes_are_located_errors(tmp_path, rule, message):
    text = errors(tmp_path, f"      - {rule}\n")
    assert message in text, text
    assert "tables[0].rules[0]" in text


# --- targets ------------------------------------------------------------------------------


def test_targets_expand_into_independent_rules(tmp_path):
    suite = load(
        tmp_path,
        """\
      - {type: not_null, column: id}
      - type: range
        min: 1
        name: bounded
        targets:
          - {column: id, max: 1000}
          - {column: age, max: 120, min: 0, code: AGE}
      - {type: regex, targets: [{column: cpf, pattern: '^[0-9]{11}$'}]}
""",
    )
    rules = suite.tables[0].rules
    assert [r.kind for r in rules] == ["not_null", "range", "range", "regex"]
    assert [r.origin.path for r in rules] == [
        "tables[0].rules[0]",
        "tables[0].rules[1].targets[0]",
        "tables[0].rules[1].targets[1]",
        "tables[0].rules[2].targets[0]",
    ]
    assert rules[1].check == RowCheck(
        is_true(any_of(Compare(Op.LT, Col("id"), Lit(1)), Compare(Op.GT, Col("id"), Lit(1000))))
    )
    assert rules[2].check == RowCheck(
        is_true(any_of(Compare(Op.LT, Col("age"), Lit(0)), Compare(Op.GT, Col("age"), Lit(120))))
    )
    assert [r.name for r in rules[1:3]] == ["bounded", "bounded"]
    assert [r.code for r in rules[1:3]] == [None, "AGE"]
    assert rules[1].origin.line == 9 and rules[2].origin.line == 10


@pytest.mark.parametrize(
    ("rules", "messages"),
    [
        (
            "      - {type: range, min: 1, targets: [{column: a, type: regex}]}\n",
            ["tables[0].rules[0].targets[0].type: a target cannot carry 'type'"],
        ),
        (
            "      - {type: range, min: 1, targets: [{column: a, targets: [{max: 1}]}]}\n",
            ["tables[0].rules[0].targets[0].targets: a target cannot carry 'targets'"],
        ),
        (
            "      - {type: not_null, code: X, targets: [{column: a}]}\n",
            [
                "tables[0].rules[0].code: 'code' cannot sit beside 'targets'",
                "hint: put 'code' inside each target",
            ],
        ),
        (
            "      - {type: sql, output: {path: x}, targets: [{failed_rows: 'SELECT 1'}]}\n",
            ["tables[0].rules[0].output: 'output' cannot sit beside 'targets'"],
        ),
        (
            "      - {type: not_null, targets: []}\n",
            [
                "tables[0].rules[0].targets: expected a list of targets (mappings),"
                " got an empty list"
            ],
        ),
        (
            "      - {type: not_null, targets: [a]}\n",
            [
                "tables[0].rules[0].targets[0]: expected a target"
                " (a mapping of rule parameters), got a string"
            ],
        ),
        (
            # each target is built on its own: both mistakes are reported
            "      - {type: range, targets: [{column: a}, {column: b, min: 2, max: 1}]}\n",
            [
                "tables[0].rules[0].targets[0]: range needs 'min', 'max' or both",
                "tables[0].rules[0].targets[1]: min (2) is greater than max (1)",
            ],
        ),
    ],
    ids=["type", "nested", "code-beside", "output-beside", "empty", "not-mapping", "per-target"],
)
def test_targets_refusals_are_clear_errors(tmp_path, rules, messages):
    text = errors(tmp_path, rules)
    for message in messages:
        assert message in text, text


def test_rule_index_counts_expanded_rules(tmp_path):
    suite = load(
        tmp_path,
        "      - {type: not_null, targets: [{column: a}, {column: b}, {column: c}]}\n"
        "      - {type: unique, column: a}\n",
    )
    plan = plan_table(suite.tables[0])
    assert len(suite.tables[0].rules) == 4
    assert plan.slot_of(GroupStats(("a",))).rules == (3,)


# --- preflight: a check that cannot apply to a column's type ------------------------------

SCHEMA = [("n", "int"), ("d", "decimal(10,2)"), ("s", "string"), ("day", "date"),
          ("ts", "timestamp"), ("ntz", "timestamp_ntz"), ("flag", "boolean")]  # fmt: skip


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        (
            "{type: negativeCheck, column: s}",
            "negative_check: column s is string, but this rule needs a number",
        ),
        (
            "{type: regex, column: n, pattern: x}",
            "regex: column n is int, but this rule needs a string",
        ),
        (
            "{type: stringRegexCheck, column: d, regex: x}",
            "column d is decimal(10,2), but this rule needs a string",
        ),
        (
            "{type: stringLengthCheck, column: day, max_length: 3}",
            "column day is date, but this rule needs a string",
        ),
        (
            "{type: freshness, column: n, must_be: '< 1d'}",
            "column n is int, but this rule needs a date or timestamp",
        ),
        ("{type: colstats, column: s}", "column s is string, but this rule needs a number"),
        (
            "{type: columnMaxCheck, column: n, value: '10'}",
            "column n is int, but this rule needs a string",
        ),
        (
            "{type: columnMaxCheck, column: s, value: 10}",
            "column s is string, but this rule needs a number",
        ),
        (
            "{type: columnMaxCheck, column: n, value: '2024-01-01'}",
            "needs a string, date or timestamp",
        ),
        (
            "{type: column_sum_check, column: s, min_value: 1}",
            "column s is string, but this rule needs a number",
        ),
        ("{type: range, column: day, min: 1}", "column day is date, but this rule needs a number"),
        (
            "{type: range, column: n, min: 2024-01-01}",
            "column n is int, but this rule needs a date or timestamp",
        ),
        (
            "{type: range_check, column: s, min_value: 1}",
            "column s is string, but this rule needs a number",
        ),
        (
            "{type: range_check, column: n, min_value: '`zz'}",
            "range_check: column 'zz' does not exist",
        ),
        (
            "{type: min, column: s, must_be: '> 0'}",
            "column s is string, but this rule needs a number",
        ),
        (
            "{type: invalid_count, column: n, valid_format: email, must_be: 0}",
            "column n is int, but this rule needs a string",
        ),
        (
            "{type: invalid_count, column: s, valid_min: 1, must_be: 0}",
            "column s is string, but this rule needs a number",
        ),
        (
            "{type: avg, column: flag, must_be: '> 0'}",
            "column flag is boolean, but this rule needs a number",
        ),
    ],
)
def test_type_mismatches_are_reported_before_any_scan(tmp_path, rule, message):
    table = load(tmp_path, f"      - {rule}\n").tables[0]
    problems = check_table(table, SCHEMA, ())
    assert problems and all(isinstance(p, PreflightError) for p in problems)
    text = "\n".join(str(p) for p in problems)
    assert message in text, text
    assert "tables[0].rules[0]" in text


@pytest.mark.parametrize(
    "rule",
    [
        "{type: negativeCheck, column: d}",
        "{type: freshness, column: day, must_be: '< 1d'}",
        "{type: freshness, column: ts, must_be: '< 1d'}",
        "{type: freshness, column: ntz, must_be: '< 1d'}",
        "{type: columnMaxCheck, column: day, value: '2024-01-01'}",
        "{type: columnMaxCheck, column: s, value: '2024-01-01'}",
        "{type: columnMaxCheck, column: ts, value: 2024-01-01 10:00:00}",
        "{type: columnMaxCheck, column: flag, value: true}",
        "{type: range, column: ntz, min: '2024-01-01T00:00:00'}",
        "{type: range_check, column: s, min_value: a, max_value: '`s2'}",
        "{type: colstats, column: d}",
    ],
)
def test_fitting_types_pass_preflight(tmp_path, rule):
    table = load(tmp_path, f"      - {rule}\n").tables[0]
    assert check_table(table, [*SCHEMA, ("s2", "string")], ()) == []


# --- planning -----------------------------------------------------------------------------


def test_colstats_adds_one_histogram_plan_for_all_columns(tmp_path):
    table = load(
        tmp_path,
        "      - {type: colstats, column: a}\n"
        "      - {type: colstats, column: b}\n"
        "      - {type: colstats, column: a}\n"
        "      - {type: max, column: a, must_be: '> 0'}\n",
    ).tables[0]
    plan = plan_table(table)
    assert plan.histogram is not None
    assert [(h.measure, h.rules) for h in plan.histogram.columns] == [
        (Histogram("a"), (0, 2)),
        (Histogram("b"), (1,)),
    ]
    assert plan.base_plans == 2
    assert plan.slot_of(ColumnAgg("max", "a")).rules == (0, 2, 3)
    text = render_plan(plan)
    assert "spark plans: 2" in text
    assert "histogram (2 columns in one plan, after the aggregate" in text
    assert "10 equal-width buckets of a over [min, max]  <- rules[0], rules[2]" in text


def test_no_histogram_plan_without_colstats(tmp_path):
    plan = plan_table(load(tmp_path, "      - {type: max, column: a, must_be: '> 0'}\n").tables[0])
    assert plan.histogram is None and plan.base_plans == 1


def test_new_measures_share_the_aggregate_pass(tmp_path):
    table = load(
        tmp_path,
        "      - {type: column_max_check, column: a, value: 3}\n"
        "      - {type: freshness, column: t, must_be: '< 1h'}\n"
        "      - {type: has_uniqueness, columns: [a, b]}\n"
        "      - {type: has_uniqueness, columns: [a]}\n"
        "      - {type: unique, column: a}\n"
        "      - {type: negative_check, column: a}\n"
        "      - {type: sql, failed_rows: 'SELECT a FROM _validation_df WHERE a < 0'}\n",
    ).tables[0]
    plan = plan_table(table)
    assert plan.aggregate is not None and plan.sql is not None
    assert plan.base_plans == 1  # the SQL rules are joined into the aggregate plan
    measures = {s.measure for s in plan.aggregate.slots}
    assert {AggEquals("max", "a", 3), AgeMicros("t"), GroupStats(("a", "b"), "all"),
            GroupStats(("a",))} <= measures  # fmt: skip
    assert plan.slot_of(GroupStats(("a",))).rules == (3, 4)  # one column: shared with unique
    text = render_plan(plan)
    assert "max(a) = 3" in text
    assert "group by (a, b) where some key is not null" in text
    assert "unix_micros(current_timestamp())" in text
    assert "failed_rows: SELECT a FROM _validation_df WHERE a < 0" in text


# --- judging (pure) -----------------------------------------------------------------------


def test_uniqueness_of_zero_rows_has_no_value_and_fails(tmp_path):
    rule = one_rule(tmp_path, "{type: has_uniqueness, columns: [a]}")
    stats = {"groups": 0, "rows": None, "dup_rows": None, "unique_rows": 0}
    out = judge(rule, {RowCount(): 3, GroupStats(("a",)): stats})
    assert (out.severity, out.metric_value) == ("fail", None)
    assert "no row to consider" in out.message


def test_uniqueness_counts_only_the_rows_considered(tmp_path):
    rule = one_rule(tmp_path, "{type: has_uniqueness, columns: [a], fraction: 0.5}")
    stats = {"groups": 3, "rows": 4, "dup_rows": 2, "unique_rows": 2}
    out = judge(rule, {RowCount(): 10, GroupStats(("a",)): stats})
    assert (out.severity, out.metric_value, out.failed_count) == ("pass", 0.5, 2)


def test_colstats_details_and_histogram_bounds(tmp_path):
    rule = one_rule(tmp_path, "{type: colstats, column: a}")
    from assay.planner.measures import colstats_measures

    count, mean, low, high, sd = colstats_measures("a")
    values = {
        count: 4,
        mean: 2.5,
        low: 0,
        high: 10,
        sd: 1.0,
        Histogram("a"): [1, 0, 0, 0, 0, 0, 0, 0, 0, 3],
    }
    out = judge(rule, values)
    assert out.severity == "pass" and out.metric_value is None
    bins = out.details["histogram"]["bins"]
    assert [(b["lowerBound"], b["upperBound"], b["count"]) for b in bins][:2] == [
        (0.0, 1.0, 1),
        (1.0, 2.0, 0),
    ]
    assert bins[-1] == {"lowerBound": 9.0, "upperBound": 10.0, "count": 3}
    assert out.details["min"] == 0.0 and out.details["count"] == 4
    # no values: no histogram, still a pass
    empty = judge(rule, {count: 0, mean: None, low: None, high: None, sd: None})
    assert empty.severity == "pass" and empty.details["histogram"] is None
    # a NaN bound: no histogram
    nan = judge(rule, {count: 2, mean: float("nan"), low: 1.0, high: float("nan"), sd: None})
    assert nan.details["histogram"] is None


def test_details_are_json_safe():
    from assay.ir import Origin

    event = RuleResult(
        run_id="r",
        table="t",
        rule_index=0,
        rule_type="colstats",
        rule_name=None,
        columns=("a",),
        code=None,
        passed=True,
        severity="pass",
        failed_count=None,
        row_count=1,
        metric_value=None,
        threshold=None,
        message="m",
        samples=None,
        origin=Origin("c.yaml"),
        elapsed_ms=0,
        details={"mean": float("nan"), "max": float("inf"), "count": 2, "min": Decimal("1.5")},
    ).to_dict()
    assert event["details"] == {"mean": None, "max": None, "count": 2, "min": 1.5}
    json.dumps(event, allow_nan=False)

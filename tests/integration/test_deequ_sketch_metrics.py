"""deequ's own test outcomes for the analyzers ported as native rules (AnalyzerTests.scala
and NullHandlingTests.scala of awslabs/deequ, on the same data): Entropy,
MutualInformation, Compliance, Correlation, ApproxCountDistinct, and what deequ gives no
value for. One run of one config, one Spark plan per table."""

from __future__ import annotations

import math

import pytest

from tests.helpers import run_config, write_config

pytestmark = pytest.mark.spark

FULL = "SELECT * FROM VALUES ('1', 'a', 'c'), ('2', 'a', 'c'), ('3', 'a', 'c'), ('4', 'b', 'd') AS t(item, att1, att2)"
UNINFORMATIVE = "SELECT * FROM VALUES (1, 0), (2, 0), (3, 0) AS t(att1, att2)"
INFORMATIVE = "SELECT * FROM VALUES (1, 4), (2, 5), (3, 6) AS t(att1, att2)"
NUMERIC = (
    "SELECT * FROM VALUES ('1', 1, 0), ('2', 2, 0), ('3', 3, 0), ('4', 4, 5), ('5', 5, 6),"
    " ('6', 6, 7) AS t(item, att1, att2)"
)
UNIQUE = (
    "SELECT * FROM VALUES ('1', '1'), ('2', '2'), ('3', NULL), ('4', '3'), ('5', '4'),"
    " ('6', '5') AS t(`unique`, uniqueWithNulls)"
)
NULLS = (
    "SELECT CAST(NULL AS STRING) AS stringCol, CAST(NULL AS DOUBLE) AS numericCol,"
    " CAST(NULL AS DOUBLE) AS numericCol2, CAST(id AS DOUBLE) AS numericCol3 FROM range(1, 9)"
)
EMPTY = "SELECT * FROM VALUES (1, 2) AS t(x, y) WHERE false"

H = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
"""deequ's expected entropy of att1 (and att2) of getDfFull, natural log."""

TABLES = {
    "full": (FULL, [
        ("{type: entropy, column: att1, must_be: '> 0'}", H),
        ("{type: entropy, column: att2, must_be: '> 0'}", H),
        ("{type: mutual_information, columns: [att1, att2], must_be: '> 0'}", H),
        # deequ: MutualInformation(att1, att1) == Entropy(att1); item determines att1 too
        ("{type: mutual_information, columns: [item, att1], must_be: '> 0'}", H),
    ]),
    "uninformative": (UNINFORMATIVE, [
        ("{type: mutual_information, columns: [att1, att2], must_be: '= 0'}", 0.0),
        # deequ yields NaN (0 / 0); Spark's corr yields no value: both fail
        ("{type: correlation, columns: [att1, att2], must_be: 'between -1 and 1'}", None),
    ]),
    "informative": (INFORMATIVE, [
        ("{type: correlation, columns: [att1, att2], must_be: '= 1'}", 1.0),
        ("{type: correlation, columns: [att2, att1], must_be: '= 1'}", 1.0),  # commutative
    ]),
    "numeric": (NUMERIC, [
        ("{type: compliance, expression: 'att1 > 3', must_be: '= 0.5'}", 3 / 6),
        ("{type: compliance, expression: 'att1 > 2', must_be: '> 0.66'}", 4 / 6),
        ("{type: compliance, expression: 'att2 = 0', filter: 'att1 < 4', must_be: '= 1'}", 1.0),
    ]),
    "unique": (UNIQUE, [
        ("{type: approx_distinct_count, column: uniqueWithNulls, must_be: '= 5'}", 5),
        (
            "{type: approx_distinct_count, column: uniqueWithNulls, filter: '`unique` < 4',"
            " must_be: '= 2'}",
            2,
        ),
    ]),
    "nulls": (NULLS, [
        ("{type: approx_distinct_count, column: stringCol, must_be: '= 0'}", 0),
        ("{type: entropy, column: stringCol, must_be: '>= 0'}", None),
        ("{type: mutual_information, columns: [numericCol, numericCol2], must_be: '>= 0'}", None),
        ("{type: mutual_information, columns: [numericCol, numericCol3], must_be: '>= 0'}", None),
        ("{type: correlation, columns: [numericCol, numericCol2], must_be: '>= -1'}", None),
        ("{type: correlation, columns: [numericCol, numericCol3], must_be: '>= -1'}", None),
        ("{type: count, column: numericCol3, must_be: '= 8'}", 8),
        ("{type: count, column: numericCol, must_be: '= 0'}", 0),
    ]),
    "empty": (EMPTY, [
        ("{type: compliance, expression: 'x > 0', must_be: '>= 0'}", None),
        ("{type: entropy, column: x, must_be: '>= 0'}", None),
        ("{type: approx_distinct_count, column: x, must_be: '= 0'}", 0),
    ]),
}  # fmt: skip
"""Per table: its rows (deequ's fixtures) and (rule, deequ's value: None when deequ has
no value, and the rule fails)."""


def _config() -> str:
    lines = ["tables:"]
    for name, (sql, rules) in TABLES.items():
        lines += [f"  - name: {name}", f'    source: {{sql: "{sql}"}}', "    rules:"]
        lines += [f"      - {rule}" for rule, _ in rules]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def ran(spark, tmp_path_factory):
    return run_config(spark, write_config(tmp_path_factory.mktemp("deequ_sketch"), _config()))


def _cases():
    return [(t, i, rule, want) for t, (_, rules) in TABLES.items()
            for i, (rule, want) in enumerate(rules)]  # fmt: skip


@pytest.mark.parametrize(("table", "index", "rule", "want"), _cases(), ids=lambda v: str(v)[:60])
def test_deequs_outcome(ran, table, index, rule, want):
    (result,) = [r for r in ran.results if r["table"] == table and r["rule_index"] == index]
    got = result["metric_value"]
    if want is None:
        assert got is None and result["severity"] == "fail", result
        assert "no value" in result["message"], result["message"]
        return
    assert got is not None and math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12), result
    assert result["severity"] == "pass", result


def test_each_table_is_one_plan(ran):
    assert {t: v["spark_plans"] for t, v in ran.tables().items()} == dict.fromkeys(TABLES, 1)


def test_the_approximate_count_states_its_error(ran):
    (result,) = [r for r in ran.results if r["table"] == "unique" and r["rule_index"] == 0]
    assert "relative standard error 0.05" in result["expect"]["text"]

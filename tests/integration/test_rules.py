"""Every core rule on real data with nulls, duplicates, an empty table and values exactly at
each bound; expected values are computed independently in the test."""

from __future__ import annotations

import datetime as dt
import statistics

import pytest

from tests.helpers import expected_passed, run_config, write_config

pytestmark = pytest.mark.spark

D = dt.date
PEOPLE = [
    (1, "ann", 18, "ann@x.com", 1.5, D(2024, 1, 1), "active"),
    (2, "bob", 65, "bob@x", 2.5, D(2024, 6, 30), "inactive"),
    (3, None, None, None, None, None, None),
    (4, "dan", 17, "dan@x.com", 10.0, D(2023, 12, 31), "banned"),
    (5, "eve", 66, "eve@x.com", -1.0, D(2024, 7, 1), "active"),
    (5, "eve2", 30, "e@x.com", 0.0, D(2024, 3, 1), "active"),
]
SCHEMA = "id long, name string, age int, email string, score double, joined date, status string"
AGES = [r[2] for r in PEOPLE if r[2] is not None]
SCORES = [r[4] for r in PEOPLE if r[4] is not None]


@pytest.fixture(scope="module")
def people(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("people") / "people.parquet")
    spark.createDataFrame(PEOPLE, SCHEMA).write.parquet(path)
    return path


# (rule yaml, expected severity, expected failed_count, expected metric_value)
CASES = [
    ("{type: not_null, column: name}", "fail", 1, None),
    ("{type: not_null, columns: [name, email]}", "fail", 1, None),
    ("{type: not_null, column: name, tolerance: 1}", "pass", 1, None),
    ("{type: not_null, column: name, tolerance: '10%'}", "fail", 1, None),
    ("{type: not_null, column: name, tolerance: 0.2}", "pass", 1, None),
    ("{type: not_null, column: id}", "pass", 0, None),
    ("{type: range, column: age, min: 18, max: 65}", "fail", 2, None),
    ("{type: range, column: age, min: 17, max: 66}", "pass", 0, None),
    ("{type: range, column: age, min: 18, max: 65, inclusive: false}", "fail", 4, None),
    ("{type: range, column: joined, min: 2024-01-01, max: 2024-06-30}", "fail", 2, None),
    ("{type: range, column: score, min: -1}", "pass", 0, None),
    ("{type: regex, column: email, pattern: '^[^@]+@[^@]+\\.[a-z]+$'}", "fail", 2, None),
    ("{type: accepted_values, column: status, values: [active, inactive]}", "fail", 1, None),
    (
        "{type: accepted_values, column: status, values: [active, inactive, banned]}",
        "pass",
        0,
        None,
    ),
    ("{type: length, column: name, min: 3, max: 3}", "fail", 1, None),
    ("{type: length, column: name, max: 4}", "pass", 0, None),
    ("{type: unique, column: id}", "fail", 2, None),
    ("{type: unique, columns: [id, name]}", "pass", 0, None),
    ("{type: row_count, min: 1, max: 6}", "pass", None, 6),
    ("{type: row_count, must_be: '> 6'}", "fail", None, 6),
    ("{type: avg, column: age, must_be: 'between 30 and 40'}", "pass", None, sum(AGES) / len(AGES)),
    ("{type: sum, column: score, must_be: '= 13'}", "pass", None, sum(SCORES)),
    ("{type: min, column: age, must_be: '= 17'}", "pass", None, 17),
    ("{type: max, column: age, must_be: '< 66'}", "fail", None, 66),
    ("{type: stddev, column: score, must_be: '> 0'}", "pass", None, statistics.stdev(SCORES)),
    ("{type: missing_count, column: email, must_be: '= 1'}", "pass", 1, 1),
    ("{type: missing_percent, column: name, must_be: '< 20%', warn: '< 10%'}", "warn", 1, 100 / 6),
    (
        "{type: missing_count, column: status, missing_values: [banned], must_be: '= 0'}",
        "fail",
        2,
        2,
    ),
    ("{type: duplicate_count, column: id, must_be: '= 0'}", "fail", 2, 2),
    ("{type: distinct_count, column: id, must_be: '= 5'}", "pass", None, 5),
    ("{type: not_null, column: name, level: warn}", "warn", 1, None),
    (
        "{type: sql, query: 'SELECT count(*) = 0 FROM _validation_df WHERE age > 100'}",
        "pass",
        None,
        None,
    ),
    ("{type: sql, query: 'SELECT max(age) < 60 FROM _validation_df'}", "fail", None, None),
    (
        "{type: schema, required_columns: [id], column_types: {id: long, age: integer, joined: date}}",
        "pass",
        0,
        None,
    ),
    ("{type: schema, forbidden_columns: [email], column_types: {score: float}}", "fail", 2, None),
]


def config(path: str, rules: list[str], extra: str = "") -> str:
    body = "\n".join(f"      - {r}" for r in rules)
    return f"""
tables:
  - name: people
    source: {{path: "{path}"}}
    keys: [id]
{extra}    rules:
{body}
"""


@pytest.fixture(scope="module")
def fused(spark, people, tmp_path_factory):
    cfg = write_config(tmp_path_factory.mktemp("fused"), config(people, [c[0] for c in CASES]))
    return run_config(spark, cfg)


@pytest.mark.parametrize(("index", "case"), list(enumerate(CASES)), ids=[c[0][:60] for c in CASES])
def test_rule_result(fused, index, case):
    _, severity, failed, value = case
    got = fused.result("people", index)
    assert got["severity"] == severity, got["message"]
    assert got["failed_count"] == failed
    if value is None:
        assert got["metric_value"] is None
    else:
        assert got["metric_value"] == pytest.approx(value, rel=1e-12)
    assert got["row_count"] == len(PEOPLE)
    assert got["passed"] == expected_passed(case[0], severity)


def test_samples_show_keys_and_offending_values(fused):
    regex = fused.result("people", 11)
    assert regex["samples"] == [{"id": 2, "email": "bob@x"}, {"id": 3, "email": None}]
    unique = fused.result("people", 16)
    assert unique["samples"] == [{"id": 5}, {"id": 5}]
    assert fused.result("people", 5)["samples"] is None  # passed: no samples


def test_fused_equals_one_rule_at_a_time(spark, people, fused, tmp_path):
    for index, case in enumerate(CASES):
        alone = run_config(
            spark, write_config(tmp_path, config(people, [case[0]]), f"r{index}.yaml")
        )
        mine, together = alone.result("people", 0), fused.result("people", index)
        for key in ("severity", "failed_count", "metric_value", "row_count", "samples", "message"):
            if key == "row_count" and "schema" in case[0]:
                assert mine[key] is None  # a schema rule alone reads the schema only: no scan
                continue
            assert mine[key] == together[key], (case[0], key)


def test_empty_table(spark, people, tmp_path):
    rules = [
        "{type: not_null, column: name}",
        "{type: unique, column: id}",
        "{type: row_count, must_be: '= 0'}",
        "{type: avg, column: age, must_be: '> 0'}",
        "{type: missing_percent, column: name, must_be: '= 0'}",
        "{type: distinct_count, column: id, must_be: '= 0'}",
        "{type: duplicate_count, column: id, must_be: '= 0'}",
        "{type: sql, query: 'SELECT count(*) = 0 FROM _validation_df'}",
    ]
    out = run_config(spark, write_config(tmp_path, config(people, rules, "    filter: id < 0\n")))
    got = [(r["severity"], r["row_count"], r["metric_value"]) for r in out.results]
    assert got == [
        ("pass", 0, None),
        ("pass", 0, None),
        ("pass", 0, 0),
        ("fail", 0, None),  # nothing to average: fails, with the reason in the message
        ("pass", 0, 0.0),
        ("pass", 0, 0),
        ("pass", 0, 0),
        ("pass", 0, None),
    ]
    assert "no value" in out.results[3]["message"]


def test_filter_applies_to_every_rule_and_sql(spark, people, tmp_path):
    rules = [
        "{type: row_count, must_be: '= 3'}",
        "{type: sql, query: 'SELECT count(*) = 3 FROM _validation_df'}",
        "{type: accepted_values, column: status, values: [active]}",
    ]
    out = run_config(
        spark, write_config(tmp_path, config(people, rules, "    filter: \"status = 'active'\"\n"))
    )
    assert [r["severity"] for r in out.results] == ["pass", "pass", "pass"]
    assert out.results[0]["metric_value"] == 3


def test_expression_samples_show_the_columns_it_reads(spark, people, tmp_path):
    rules = [
        "{type: expression, expression: 'age >= 18 AND Score > 0'}",
        '{type: expression, expression: "`status` <> \'banned\' OR id > 4", filter: "name IS NOT NULL"}',
    ]
    out = run_config(spark, write_config(tmp_path, config(people, rules, "    sample_size: 5\n")))
    adults = out.result("people", 0)["samples"]
    assert adults == [
        {"id": 3, "age": None, "score": None},
        {"id": 4, "age": 17, "score": 10.0},
        {"id": 5, "age": 30, "score": 0.0},  # equal keys: ordered by the sampled columns
        {"id": 5, "age": 66, "score": -1.0},
    ]
    # the expression's columns, not the filter's
    assert out.result("people", 1)["samples"] == [{"id": 4, "status": "banned"}]


def test_expression_samples_without_keys_lead_with_its_columns(spark, people, tmp_path):
    text = config(people, ["{type: expression, expression: 'score > 0'}"]).replace(
        "    keys: [id]\n", "    sample_size: 2\n"
    )
    out = run_config(spark, write_config(tmp_path, text))
    first = out.result("people", 0)["samples"][0]
    assert list(first)[0] == "score", first

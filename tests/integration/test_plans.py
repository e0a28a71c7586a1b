"""The plan count contract, read from the Spark UI REST API: 1 plan per table when every
rule passes (+1 with SQL rules), +1 detail plan only when a row-level rule fails."""

from __future__ import annotations

import pytest

from tests.helpers import run_config, write_config

pytestmark = pytest.mark.spark

ROWS = [(i, f"n{i}", i % 10, f"u{i}@x.com") for i in range(1, 201)]


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("plans") / "t.parquet")
    spark.createDataFrame(ROWS, "id long, name string, grp int, email string").write.parquet(path)
    return path


PASSING = [
    "{type: not_null, columns: [id, name]}",
    "{type: unique, column: id}",
    "{type: unique, columns: [grp, name]}",
    "{type: range, column: grp, min: 0, max: 9}",
    "{type: regex, column: email, pattern: '@'}",
    "{type: accepted_values, column: grp, values: [0,1,2,3,4,5,6,7,8,9]}",
    "{type: length, column: name, min: 2}",
    "{type: row_count, min: 200, max: 200}",
    "{type: avg, column: grp, must_be: 'between 4 and 5'}",
    "{type: distinct_count, column: grp, must_be: '= 10'}",
    "{type: duplicate_count, column: name, must_be: '= 0'}",
    "{type: missing_percent, column: email, must_be: '= 0'}",
    "{type: schema, required_columns: [id]}",
]
SQL = [
    "{type: sql, query: 'SELECT count(*) = 200 FROM _validation_df'}",
    "{type: sql, query: 'SELECT min(id) = 1 FROM _validation_df'}",
]
FAILING_ROW = ["{type: range, column: grp, max: 5}", "{type: not_null, column: grp, level: warn}"]
COLSTATS = ["{type: colstats, column: grp}", "{type: colstats, column: id}"]


def tables(path: str, *rule_sets: list[str]) -> str:
    out = ["tables:"]
    for n, rules in enumerate(rule_sets):
        out += [
            f"  - name: t{n}",
            f"    source: {{path: '{path}'}}",
            "    keys: [id]",
            "    rules:",
        ]
        out += [f"      - {r}" for r in rules]
    return "\n".join(out) + "\n"


@pytest.mark.parametrize(
    ("rule_sets", "expected"),
    [
        ([PASSING], 1),
        ([PASSING + SQL], 1),  # SQL rules are joined into the aggregate plan
        ([PASSING + FAILING_ROW], 2),
        ([PASSING + SQL + FAILING_ROW], 2),
        ([PASSING, PASSING + SQL, PASSING + FAILING_ROW], 1 + 1 + 2),
        ([SQL], 1),
        ([["{type: schema, required_columns: [id]}"]], 0),
        # every colstats histogram of a table: one plan after the aggregate
        ([PASSING + COLSTATS], 2),
        ([PASSING + SQL + COLSTATS + FAILING_ROW], 3),
        ([COLSTATS], 2),
    ],
    ids=[
        "pass",
        "pass+sql",
        "row-fails",
        "sql+row-fails",
        "three-tables",
        "sql-only",
        "schema-only",
        "colstats",
        "colstats+sql+row-fails",
        "colstats-only",
    ],
)
def test_sql_executions(server, data, tmp_path, rule_sets, expected):
    cfg = write_config(tmp_path, tables(data, *[list(r) for r in rule_sets]))
    before = server.sql_executions()
    out = run_config(server.spark, cfg)
    assert server.sql_executions() - before == expected
    assert out.summary["spark_plans"] == expected
    assert sum(t["spark_plans"] for t in out.tables().values()) == expected


def test_metric_failure_needs_no_detail_plan(server, data, tmp_path):
    cfg = write_config(
        tmp_path, tables(data, PASSING + ["{type: avg, column: grp, must_be: '> 100'}"])
    )
    before = server.sql_executions()
    out = run_config(server.spark, cfg)
    assert server.sql_executions() - before == 1
    assert out.summary["failed"] == 1


def test_thousand_rules_on_one_table(server, data, tmp_path):
    rules = []
    for i in range(1000):
        kind = i % 4
        if kind == 0:
            rules.append(f"{{type: range, column: grp, min: {-(i % 50)}, max: {9 + i % 40}}}")
        elif kind == 1:
            rules.append(f"{{type: length, column: name, min: 1, max: {10 + i}}}")
        elif kind == 2:
            rules.append(
                f"{{type: accepted_values, column: grp, values: [0,1,2,3,4,5,6,7,8,9,{100 + i}]}}"
            )
        else:
            rules.append(
                f"{{type: regex, column: email, pattern: 'u[0-9]+@x{i % 7 if i % 7 else ''}'}}"
            )
    cfg = write_config(tmp_path, tables(data, rules))
    before = server.sql_executions()
    out = run_config(server.spark, cfg)
    assert server.sql_executions() - before == 2  # the regex variants with a digit fail
    assert len(out.results) == 1000
    assert all(r["severity"] in ("pass", "fail") for r in out.results)
    fails = {r["rule_index"] for r in out.results if r["severity"] == "fail"}
    assert fails == {i for i in range(1000) if i % 4 == 3 and i % 7}

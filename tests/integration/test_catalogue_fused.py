"""One table carrying every rule type (and the aliases users reach for): it runs with
exactly the Spark plans `assay explain` predicts, counted by the server's UI REST API, and
every result equals the same rule run alone."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from decimal import Decimal

import pytest

from assay.dialects.catalogue import ALIASES, RULES
from tests.conftest import ROOT
from tests.helpers import run_config, validate_event, write_config

pytestmark = pytest.mark.spark

ROWS = [
    (1, 1.5, 3, Decimal("1.10"), "ann", "ann@x.com", "a", dt.date(2024, 1, 1)),
    (2, 2.5, 0, Decimal("2.20"), "bob", "bob@x.com", "b", dt.date(2024, 1, 2)),
    (3, 4.0, 7, Decimal("0.30"), "cy", "cy@x.org", "a", dt.date(2024, 1, 3)),
    (4, 0.5, 10, Decimal("5.00"), "dee", "dee@x.net", "b", dt.date(2024, 1, 4)),
    (5, 9.0, 5, Decimal("3.33"), "eve", "eve@x.io", "a", dt.date(2024, 1, 5)),
]
COLUMNS = (
    "id long, amount double, qty int, price decimal(10,2), name string, email string,"
    " status string, day date"
)

EVERY = [
    "{type: not_null, columns: [id, name]}",
    "{type: unique, column: id}",
    "{type: range, column: qty, min: 0, max: 10}",
    "{type: regex, column: email, pattern: '@'}",
    "{type: accepted_values, column: status, values: [a, b]}",
    "{type: length, column: name, min: 2, max: 3}",
    "{type: row_count, min: 5, max: 5}",
    "{type: min, column: qty, must_be: '= 0'}",
    "{type: max, column: qty, must_be: '= 10'}",
    "{type: avg, column: amount, must_be: '= 3.5'}",
    "{type: sum, column: price, must_be: '= 11.93'}",
    "{type: stddev, column: amount, must_be: '> 3'}",
    "{type: missing_count, column: name, must_be: 0}",
    "{type: missing_percent, column: email, missing_values: [''], must_be: '= 0%'}",
    "{type: duplicate_count, column: id, must_be: 0}",
    "{type: distinct_count, column: status, must_be: 2}",
    "{type: schema, required_columns: [id], column_types: {price: 'decimal(10,2)', id: long}}",
    "{type: sql, query: 'SELECT count(*) = 5 FROM _validation_df'}",
    "{type: duplicate_percent, column: email, must_be: 0}",
    "{type: invalid_count, column: email, valid_format: email, must_be: 0}",
    "{type: invalid_percent, column: status, valid_values: [a, b], must_be: '= 0'}",
    "{type: freshness, column: day, must_be: '> 1d'}",
    "{type: negative_check, column: qty}",
    "{type: range_check, column: qty, min_value: 0, max_value: 10, inclusive: true}",
    "{type: string_length_check, column: name, min_length: 2, max_length: 3}",
    "{type: string_regex_check, column: name, regex: '^[a-z]+$'}",
    "{type: column_sum_check, column: qty, min_value: 24, max_value: 25, inclusive: true}",
    "{type: column_max_check, column: email, value: eve@x.io}",
    "{type: colstats, column: amount}",
    "{type: has_size, size: 5, operator: '=='}",
    "{type: has_uniqueness, columns: [id, status]}",
    "{type: is_contained_in, column: status, allowed_values: [a, b]}",
    # aliases
    "{type: in_set, column: status, values: [a, b]}",
    "{type: string_length, column: name, max: 3}",
    "{type: mean, column: qty, must_be: '= 5'}",
    "{type: custom_sql, failed_rows: 'SELECT * FROM _validation_df WHERE qty < 0'}",
    "{type: nullCheck, column: id}",
    "{type: null_check, column: email}",
    "{type: negativeCheck, column: price}",
    "{type: rangeCheck, column: qty, min_value: -1, max_value: 11}",
    "{type: stringLengthCheck, column: email, max_length: 20}",
    "{type: stringRegexCheck, column: email, regex: '[.]'}",
    "{type: rowCount, min_num_rows: 5}",
    "{type: uniqueCheck, columns: [id]}",
    "{type: unique_check, columns: [email]}",
    "{type: columnSumCheck, column: price, max_value: 12}",
    "{type: columnMaxCheck, column: day, value: 2024-01-05}",
    "{type: colstats, column: qty}",
    "{type: isComplete, column: status}",
    "{type: is_complete, column: day}",
    "{type: isUnique, column: email}",
    "{type: is_unique, column: name}",
    "{type: hasSize, size: 4, operator: '>'}",
    "{type: hasUniqueness, columns: [status], fraction: 0, operator: '>='}",
    "{type: isContainedIn, column: name, allowed_values: [ann, bob, cy, dee, eve]}",
]


def test_the_table_carries_every_rule_type_and_alias():
    import re

    used = {re.search(r"type: (\w+)", r).group(1) for r in EVERY}
    assert used == set(RULES) | set(ALIASES)


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("every") / "every.parquet")
    spark.createDataFrame(ROWS, COLUMNS).write.parquet(path)
    return path


def config(path: str, rules: list[str]) -> str:
    body = "\n".join(f"      - {r}" for r in rules)
    source = f'{{path: "{path}"}}'
    return f"tables:\n  - name: every\n    source: {source}\n    keys: [id]\n    rules:\n{body}\n"


def explain(path) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "assay", "explain", str(path), "--format", "json"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[0])


@pytest.fixture(scope="module")
def fused(server, data, tmp_path_factory):
    cfg = write_config(tmp_path_factory.mktemp("everyfused"), config(data, EVERY))
    predicted = explain(cfg)
    before = server.sql_executions()
    out = run_config(server.spark, cfg)
    return out, predicted, server.sql_executions() - before


def test_runs_with_the_plans_explain_predicts(fused):
    out, predicted, executed = fused
    assert predicted["spark_plans"] == 2  # aggregate (with the SQL rules), histogram
    assert "histogram (2 columns in one plan" in predicted["plan"]
    # Both SQL rules only count rows: folded into the aggregate scan, no query left.
    assert "sql rules folded into the aggregate scan" in predicted["plan"]
    assert "sql (" not in predicted["plan"]
    assert executed == predicted["spark_plans"]
    assert out.tables()["every"]["spark_plans"] == executed
    assert [r["severity"] for r in out.results] == ["pass"] * len(EVERY), [
        (r["rule_index"], r["message"]) for r in out.results if r["severity"] != "pass"
    ]
    for r in out.results:
        validate_event(r)


def test_every_result_equals_the_rule_run_alone(spark, data, fused, tmp_path):
    together = fused[0]
    for index, rule in enumerate(EVERY):
        alone = run_config(spark, write_config(tmp_path, config(data, [rule]), f"r{index}.yaml"))
        mine, theirs = alone.result("every", 0), together.result("every", index)
        for key in ("severity", "failed_count", "samples", "details", "threshold", "rule"):
            assert mine[key] == theirs[key], (rule, key)
        if "freshness" in rule:  # measured against the clock: a moment apart
            assert mine["metric_value"] == pytest.approx(theirs["metric_value"], abs=60)
        else:
            assert (mine["metric_value"], mine["message"]) == (
                theirs["metric_value"],
                theirs["message"],
            ), rule
        assert mine["row_count"] == (None if "schema" in rule else theirs["row_count"])

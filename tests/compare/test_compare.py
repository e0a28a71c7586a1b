"""Native comparisons on the real server: every count, samples, verdicts, and the plans
submitted (1 when the datasets match, 2 when they differ)."""

from __future__ import annotations

import json

import pytest

import assay
from assay.config import load_suite
from assay.errors import ConfigErrors
from assay.executor.run import run_suite
from tests.helpers import validate_event

pytestmark = pytest.mark.spark

SCHEMA = "id int, name string, price double, amount decimal(12,2)"
# source: key 2 twice; key 3's price null; key 4 only here; a null key (matches null-safe).
SOURCE = [
    (1, "a", 1.0, "10.00"),
    (2, "b", 2.0, "20.00"),
    (2, "b", 2.0, "20.00"),
    (3, "c", None, "30.00"),
    (4, "d", 4.0, "40.00"),
    (None, "n", 1.0, "1.00"),
]
# target: key 1's price off by 0.05, key 2's name in upper case, key 5 only here.
TARGET = [
    (1, "a", 1.05, "10.00"),
    (2, "B ", 2.0, "20.00"),
    (3, "c", 3.0, "30.01"),
    (5, "e", 5.0, "50.00"),
    (None, "n", 1.0, "1.00"),
]


def frame(spark, rows):
    from decimal import Decimal

    return spark.createDataFrame([(i, n, p, Decimal(a)) for i, n, p, a in rows], SCHEMA)


@pytest.fixture(scope="module")
def paths(spark, tmp_path_factory):
    base = tmp_path_factory.mktemp("compare")
    found = {}
    for name, rows in (("source", SOURCE), ("target", TARGET)):
        path = str(base / f"{name}.parquet")
        frame(spark, rows).write.parquet(path)
        found[name] = path
    return found


def _run(spark, tmp_path, body: str):
    path = tmp_path / "compare.yaml"
    path.write_text(body)
    events = []
    summary = run_suite(load_suite([path]), spark, events.append)
    for event in events:
        validate_event(json.loads(json.dumps(event.to_dict(), default=str)))
    return [e for e in events if e.to_dict()["event"] == "comparison"], summary


def test_counts_columns_samples_and_checks(spark, paths, tmp_path):
    body = f"""
compare:
  - name: prices
    source: {{path: "{paths["source"]}"}}
    target: {{path: "{paths["target"]}"}}
    keys: [id]
    tolerance: 0.1
    ignore_case: true
    ignore_whitespace: true
    checks:
      missing_in_target: "= 0"
      mismatch_percent(price): "< 50%"
      duplicate_keys(source): {{must_be: "<= 1", warn: "= 0"}}
"""
    (event,), summary = _run(spark, tmp_path, body)
    d = event.to_dict()
    assert d["counts"] == {
        "source_rows": 6,
        "target_rows": 5,
        "compared": 5,  # 1, 2 (twice: two source rows), 3, null
        "matched": 4,  # 1 (within 0.1), 2 twice (case and whitespace ignored), null
        "mismatched": 1,  # 3: null price, amount off by 0.01
        "missing_in_target": 1,
        "missing_in_source": 1,
        "unmatched": 3,
        "unreconciled": 3,
        "duplicate_keys": {"source": 1, "target": 0},
        "matched_percent": pytest.approx(400 / 6),
        "mismatch_percent": 20.0,
    }
    by_column = {c["column"]: c for c in d["columns"]}
    assert by_column["name"]["mismatched"] == 0
    assert by_column["price"] == {
        "column": "price",
        "mismatched": 1,
        "null_mismatched": 1,
        "max_abs_diff": pytest.approx(0.05),
        "mismatch_percent": 20.0,
    }
    assert by_column["amount"]["mismatched"] == 0  # 30.00 vs 30.01, within 0.1
    assert by_column["amount"]["max_abs_diff"] == pytest.approx(0.01)
    assert d["samples"]["missing_in_target"] == [
        {"id": 4, "source": {"name": "d", "price": 4.0, "amount": 40.0}}
    ]
    assert d["samples"]["missing_in_source"][0]["id"] == 5
    mismatched = {(s["column"], s["key"]["id"]) for s in d["samples"]["mismatched"]}
    assert mismatched == {("price", 3)}
    assert [c["severity"] for c in d["checks"]] == ["fail", "pass", "warn"]
    assert (d["passed"], d["severity"], d["blocking"]) == (False, "fail", True)
    assert summary.exit_code == 1 and summary.comparisons == 1
    assert summary.failed_comparisons == ("prices",)
    assert d["spark_plans"] == 2


def test_exact_comparison_counts_case_and_values(spark, paths, tmp_path):
    body = f"""
compare:
  - source: {{path: "{paths["source"]}"}}
    target: {{path: "{paths["target"]}"}}
    keys: [id]
    columns: [name]
"""
    (event,), summary = _run(spark, tmp_path, body)
    d = event.to_dict()
    assert [c["column"] for c in d["columns"]] == ["name"]
    assert d["columns"][0]["mismatched"] == 2  # key 2's two pairs: "b" vs "B "
    assert d["checks"][0]["metric"] == "unmatched" and not d["passed"]


def test_one_plan_when_the_datasets_match_two_when_they_differ(server, spark, paths, tmp_path):
    same = f"""
compare:
  - source: {{path: "{paths["source"]}"}}
    target: {{path: "{paths["source"]}"}}
    keys: [id]
    checks: {{duplicate_keys(source): "<= 1"}}
"""
    before = server.sql_executions()
    (event,), summary = _run(spark, tmp_path, same)
    assert server.sql_executions() - before == 1
    assert event.spark_plans == 1 and event.samples is None and event.passed
    assert summary.exit_code == 0 and summary.spark_plans == 1
    differ = same.replace(
        f'target: {{path: "{paths["source"]}"}}', f'target: {{path: "{paths["target"]}"}}'
    )
    before = server.sql_executions()
    (event,), _ = _run(spark, tmp_path, differ)
    assert server.sql_executions() - before == 2
    assert event.spark_plans == 2 and event.samples is not None


def test_warn_policy_waives_a_failed_comparison(spark, paths, tmp_path):
    body = f"""
on_failure: warn
compare:
  - source: {{path: "{paths["source"]}"}}
    target: {{path: "{paths["target"]}"}}
    keys: [id]
"""
    (event,), summary = _run(spark, tmp_path, body)
    assert (event.passed, event.blocking, event.waiver) == (False, False, "on_failure: warn")
    assert summary.exit_code == 0
    assert "do" in summary.exit_reason and "on_failure: warn" in summary.exit_reason


def test_a_missing_key_or_check_column_is_a_config_error_before_any_scan(
    server, spark, paths, tmp_path
):
    body = f"""
compare:
  - source: {{path: "{paths["source"]}"}}
    target: {{path: "{paths["target"]}"}}
    keys: [nope]
  - source: {{path: "{paths["source"]}"}}
    target: {{path: "{paths["target"]}"}}
    keys: [id]
    checks: {{mismatched(missing): "= 0"}}
"""
    path = tmp_path / "bad.yaml"
    path.write_text(body)
    before = server.sql_executions()
    with pytest.raises(ConfigErrors) as caught:
        run_suite(load_suite([path]), spark, lambda e: None)
    text = str(caught.value)
    assert "key 'nope' is not a column of the source" in text
    assert "mismatched(missing): not a compared column" in text
    assert server.sql_executions() == before


def test_python_compare(spark):
    result = assay.compare(
        frame(spark, SOURCE),
        frame(spark, TARGET),
        keys=["id"],
        column_tolerance={"price": 0.1, "amount": {"absolute": 0.01}},
        checks={"mismatched(price)": "<= 1"},
    )
    assert result.counts["compared"] == 5
    by_column = {c["column"]: c["mismatched"] for c in result.columns}
    assert by_column == {"name": 2, "price": 1, "amount": 0}
    assert result.passed


def test_relative_tolerance(spark):
    src = spark.createDataFrame([(1, 100.0), (2, 100.0)], "id int, v double")
    tgt = spark.createDataFrame([(1, 101.0), (2, 103.0)], "id int, v double")
    result = assay.compare(src, tgt, keys=["id"], relative_tolerance=0.02)
    assert result.columns[0]["mismatched"] == 1  # |100-101| <= 0.02*101; |100-103| > 2.06
    assert result.samples["mismatched"] == [
        {"column": "v", "key": {"id": 2}, "source": 100.0, "target": 103.0}
    ]

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
        "compared": 4,  # 1, 2 (its first source row with the target's one), 3, null
        "matched": 3,  # 1 (within 0.1), 2 (case and whitespace ignored), null
        "mismatched": 1,  # 3: null price, amount off by 0.01
        "missing_in_target": 2,  # 4, and key 2's second source row
        "missing_in_source": 1,
        "unmatched": 4,
        "unreconciled": 5,
        "duplicate_keys": {"source": 1, "target": 0},
        "duplicate_rows": {"source": 1, "target": 0},
        "matched_percent": 50.0,
        "mismatch_percent": 25.0,
        "columns_missing_in_target": 0,
        "columns_missing_in_source": 0,
        "type_differences": 0,
    }
    assert d["schema"] == {"source_only": [], "target_only": [], "type_differences": []}
    by_column = {c["column"]: c for c in d["columns"]}
    assert by_column["name"]["mismatched"] == 0
    assert by_column["price"] == {
        "column": "price",
        "mismatched": 1,
        "null_mismatched": 1,
        "max_abs_diff": pytest.approx(0.05),
        "mismatch_percent": 25.0,
    }
    assert by_column["amount"]["mismatched"] == 0  # 30.00 vs 30.01, within 0.1
    assert by_column["amount"]["max_abs_diff"] == pytest.approx(0.01)
    assert d["samples"]["missing_in_target"] == [
        {"id": 2, "source": {"name": "b", "price": 2.0, "amount": 20.0}},
        {"id": 4, "source": {"name": "d", "price": 4.0, "amount": 40.0}},
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
    assert d["columns"][0]["mismatched"] == 1  # key 2's pair: "b" vs "B "
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
    assert result.counts["compared"] == 4
    by_column = {c["column"]: c["mismatched"] for c in result.columns}
    assert by_column == {"name": 1, "price": 1, "amount": 0}
    assert result.passed


def test_relative_tolerance(spark):
    src = spark.createDataFrame([(1, 100.0), (2, 100.0)], "id int, v double")
    tgt = spark.createDataFrame([(1, 101.0), (2, 103.0)], "id int, v double")
    result = assay.compare(src, tgt, keys=["id"], relative_tolerance=0.02)
    assert result.columns[0]["mismatched"] == 1  # |100-101| <= 0.02*101; |100-103| > 2.06
    assert result.samples["mismatched"] == [
        {"column": "v", "key": {"id": 2}, "source": 100.0, "target": 103.0}
    ]


# --- nothing lost without a word ---------------------------------------------------------


def test_rows_lost_from_duplicated_keys_are_missing_and_fail_the_default_check(spark):
    # The source holds key 1 twice and the null key twice, the target each once: the
    # join's m * n pairs used to count 5 matches of 5 source rows (100%, unreconciled -2).
    src = spark.createDataFrame([(1, 1), (1, 1), (None, 2), (None, 2), (3, 3)], "id int, v int")
    tgt = spark.createDataFrame([(1, 1), (None, 2), (3, 3)], "id int, v int")
    result = assay.compare(src, tgt, keys=["id"])
    counts = result.counts
    assert (counts["source_rows"], counts["target_rows"]) == (5, 3)
    assert (counts["compared"], counts["matched"]) == (3, 3)
    assert (counts["missing_in_target"], counts["missing_in_source"]) == (2, 0)
    assert counts["unmatched"] == 2 and counts["unreconciled"] == 2
    assert counts["matched_percent"] == 60.0
    assert counts["duplicate_keys"] == {"source": 2, "target": 0}
    assert counts["duplicate_rows"] == {"source": 2, "target": 0}
    assert result.samples["missing_in_target"] == [
        {"id": None, "source": {"v": 2}},
        {"id": 1, "source": {"v": 1}},
    ]
    assert not result.passed and result.checks[0]["value"] == 2


def test_duplicated_keys_on_both_sides_pair_row_by_row_in_value_order(spark):
    # Key 7: three source rows, two target rows; each side's rows are paired in the order
    # of their values, whatever order they were read in.
    src = spark.createDataFrame([(7, 30), (7, 10), (7, 20), (8, 1)], "id int, v int")
    tgt = spark.createDataFrame([(7, 20), (7, 10), (8, 1), (8, 2)], "id int, v int")
    result = assay.compare(src, tgt, keys=["id"], checks={"matched_percent": "< 100%"})
    counts = result.counts
    assert (counts["compared"], counts["matched"]) == (3, 3)  # 10-10, 20-20, 1-1
    assert (counts["missing_in_target"], counts["missing_in_source"]) == (1, 1)  # 30; 2
    assert counts["duplicate_keys"] == {"source": 1, "target": 2}
    assert counts["duplicate_rows"] == {"source": 2, "target": 2}
    assert counts["matched_percent"] == 75.0  # 3 of the larger side's 4 rows
    assert result.samples["missing_in_target"] == [{"id": 7, "source": {"v": 30}}]
    assert result.samples["missing_in_source"] == [{"id": 8, "target": {"v": 2}}]
    assert result.passed


def test_matched_percent_is_100_only_when_every_row_of_both_sides_matched(spark):
    same = spark.createDataFrame([(1, 1), (1, 1), (2, 2)], "id int, v int")
    fewer = spark.createDataFrame([(1, 1), (2, 2)], "id int, v int")
    assert assay.compare(same, same, keys=["id"]).counts["matched_percent"] == 100.0
    for source, target in ((same, fewer), (fewer, same)):
        counts = assay.compare(source, target, keys=["id"]).counts
        assert counts["matched_percent"] < 100 and counts["unreconciled"] == 1


def test_columns_of_one_side_only_and_type_differences_are_reported(spark):
    src = spark.createDataFrame([(1, 1, 0)], "id int, v int, z int")
    tgt = spark.createDataFrame([(1, 1, 0)], "id int, v bigint, w int")
    result = assay.compare(src, tgt, keys=["id"])
    assert result.schema == {
        "source_only": ["z"],
        "target_only": ["w"],
        "type_differences": [{"column": "v", "source": "int", "target": "bigint"}],
    }
    counts = result.counts
    assert (counts["columns_missing_in_target"], counts["columns_missing_in_source"]) == (1, 1)
    assert counts["type_differences"] == 1 and counts["unmatched"] == 0
    assert [(c["metric"], c["passed"]) for c in result.checks] == [
        ("unmatched", True),
        ("columns_missing_in_target", False),
    ]
    assert not result.passed
    # Excluded: dropped, or not among the compared columns named.
    assert assay.compare(src, tgt, keys=["id"], drop_cols=["z"]).passed
    named = assay.compare(src, tgt, keys=["id"], columns=["v"])
    assert named.passed and named.schema["source_only"] == ["z"]
    checked = assay.compare(src, tgt, keys=["id"], checks={"columns_missing_in_source": "= 0"})
    assert not checked.passed and checked.checks[0]["value"] == 1


def test_filters_keep_the_rows_of_each_side(spark):
    src = spark.createDataFrame([(1, 1), (2, 2), (3, 3)], "id int, v int")
    tgt = spark.createDataFrame([(1, 1), (2, 5)], "id int, v int")
    result = assay.compare(src, tgt, keys=["id"], source_filter="id < 3", target_filter="v < 5")
    assert (result.counts["source_rows"], result.counts["target_rows"]) == (2, 1)
    assert result.counts["missing_in_target"] == 1 and result.counts["matched"] == 1


def test_a_filter_spark_refuses_is_a_config_error(spark):
    src = spark.createDataFrame([(1, 1)], "id int, v int")
    with pytest.raises(ConfigErrors) as caught:
        assay.compare(src, src, keys=["id"], target_filter="vv > 1")
    (error,) = caught.value.errors
    assert "target_filter 'vv > 1' does not run" in error.message
    with pytest.raises(ConfigErrors) as caught:
        assay.compare(src, src, keys=["id"], source_filter="v + 1")
    assert "source_filter 'v + 1' is an int, not a condition" in caught.value.errors[0].message

"""Watching a table over time, on the real server: seven daily runs whose row count drops
40% on day 6 judged by a change threshold and Deequ's online normal strategy through the
file store (the table store runs the same days on the standalone cluster:
tests/cluster/test_cluster.py); the table store's concurrent appends; the table's plans
unchanged by the store; a history that cannot be read costing only its rules; and the
command line: run, explain and history."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

import assay
from assay.executor.metrics import read_history
from assay.ir.monitoring import MetricsStore, Monitoring
from assay.monitoring.records import parse_time
from assay.monitoring.series import wanted
from tests.monitoring.scenario import (
    COUNTS,
    RULES,
    check_seven_days,
    day_frame,
    run_time,
    seven_days,
)

pytestmark = pytest.mark.spark


def test_seven_days_through_a_file_store(spark, tmp_path):
    store = tmp_path / "metrics.jsonl"
    results = seven_days(spark, metrics=str(store))
    check_seven_days(results)
    assert [r.summary.metrics["history_runs_read"] for r in results] == [0, 4, 7, 10, 12, 14, 16]
    stored = [json.loads(line) for line in store.read_text().splitlines()]
    assert len({r["run_id"] for r in stored}) == 7
    rules = {"rows_change", "rows_online", "rows_online_all", "not_null(id)", "(table)"}
    assert {r["rule"] for r in stored} == rules
    rows = [r["value"] for r in stored if r["rule"] == "(table)"]
    assert rows == [float(c) for c in COUNTS]
    assert results[0].summary.metrics["rows"] == len(stored) // 7
    # the store as a DataFrame, typed as the table store
    frame = assay.history(metrics=str(store), spark=spark)
    assert frame.count() == len(stored)
    assert dict(frame.dtypes)["run_time"] == "timestamp" and dict(frame.dtypes)["value"] == "double"
    day6 = frame.where("rule = '(table)' AND value = 600").select("run_time").collect()
    assert [str(r[0].date()) for r in day6] == ["2024-01-06"]


def test_the_table_store_keeps_every_row_of_runs_appending_at_once(spark):
    table = "assay_test_metrics_concurrent"
    spark.sql(f"DROP TABLE IF EXISTS {table}").collect()
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            r = assay.validate(spark.range(10 + n), [{"type": "row_count", "must_be": "> 0"}],
                               metrics_table=table)  # fmt: skip
            assert r.summary.metrics["rows"] == 3 and "error" not in r.summary.metrics
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    assay.validate(spark.range(1), [{"type": "row_count", "must_be": "> 0"}], metrics_table=table)
    threads = [threading.Thread(target=run, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert errors == []
    counted = spark.sql(f"SELECT count(*), count(DISTINCT run_id) FROM {table}").collect()[0]
    assert tuple(counted) == (15, 5)
    assert assay.history(metrics_table=table, spark=spark).count() == 15
    values = spark.sql(f"SELECT value FROM {table} WHERE rule = '(table)'").collect()
    assert sorted(v[0] for v in values) == [1.0, 10.0, 11.0, 12.0, 13.0]


def test_the_tables_plans_are_what_they_were_and_a_file_store_adds_none(spark, server, tmp_path):
    frame = day_frame(spark, 1)
    before = server.sql_executions()
    plain = assay.validate(frame, RULES)
    alone = server.sql_executions() - before
    before = server.sql_executions()
    stored = assay.validate(frame, RULES, metrics=str(tmp_path / "m.jsonl"), run_time=run_time(1))
    assert server.sql_executions() - before == alone
    table = "assay_test_metrics_plans"
    spark.sql(f"DROP TABLE IF EXISTS {table}").collect()
    tabled = assay.validate(frame, RULES, metrics_table=table, run_time=run_time(1))
    again = assay.validate(frame, RULES, metrics_table=table, run_time=run_time(2))
    counts = [r.events[-2].spark_plans for r in (plain, stored, tabled, again)]
    assert counts == [counts[0]] * 4  # the table line: its own plans only
    assert again.summary.metrics["history_runs_read"] == 4
    # the history read of a table store is one Spark plan
    suite = assay.rules_suite(RULES)  # named "dataframe", as the runs above
    want = wanted(
        suite.tables, Monitoring(MetricsStore("table", table)), "x", parse_time(run_time(3))
    )
    before = server.sql_executions()
    history = read_history(spark, MetricsStore("table", table), want)
    assert server.sql_executions() - before == 1
    assert [p.value for p in history[("dataframe", "rows_online")]] == [1000.0, 1000.0]


def test_a_history_that_cannot_be_read_errors_only_its_rules(spark):
    table = "assay_test_metrics_wrong"
    spark.sql(f"DROP TABLE IF EXISTS {table}").collect()
    spark.sql(f"CREATE TABLE {table} (x INT) USING parquet").collect()
    rules = [{"type": "row_count", "must_be": "> 0"}, RULES[0]]
    result = assay.validate(spark.range(3), rules, metrics_table=table)
    plain, judged = result.results
    assert (plain.severity, judged.severity) == ("pass", "error")
    assert judged.message.startswith("not judged over time: metrics store table")
    assert "run_id" in judged.message or "table" in judged.message
    assert result.exit_code == 3 and "error" in result.summary.metrics


def _assay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assay", *args], capture_output=True, text=True,
                          timeout=300)  # fmt: skip


CONFIG = """\
metrics: {path: metrics.jsonl, tags: {env: ci}}
tables:
  - name: days
    source: {sql: "SELECT id FROM range($rows)"}
    rules:
      - {type: row_count, change: {vs: last, must_be: "between -10% and +20%"}}
      - {type: not_null, column: id}
"""


def test_the_command_line_runs_explains_and_lists_the_history(server, tmp_path):
    config = tmp_path / "days.yaml"
    config.write_text(CONFIG)
    lines = []
    for day, rows in ((1, 1000), (2, 500)):
        done = _assay("run", str(config), "--remote", server.url, "--var", f"rows={rows}",
                      "--run-time", run_time(day))  # fmt: skip
        assert done.returncode == (0 if day == 1 else 1), done.stderr[-2000:]
        lines.append([json.loads(line) for line in done.stdout.splitlines()])
    second = lines[1][0]
    assert second["rule"]["id"] == "row_count"
    assert second["baseline"]["change"]["change"] == -50.0 and second["severity"] == "fail"
    assert lines[1][-1]["metrics"]["store"] == f"file {tmp_path / 'metrics.jsonl'}"
    explained = _assay("explain", str(config), "--var", "rows=1")
    assert "metrics store: file" in explained.stdout and "(runs tagged env=ci)" in explained.stdout
    assert "days: row_count (metric_value, last 1)" in explained.stdout
    listed = _assay(
        "history",
        str(config),
        "--var",
        "rows=1",
        "--rule",
        "row_count",
        "--measure",
        "metric_value",
    )
    assert [json.loads(x)["value"] for x in listed.stdout.splitlines()] == [1000.0, 500.0]
    other = _assay("history", str(config), "--var", "rows=1", "--tag", "env=prod")
    assert other.returncode == 0 and other.stdout == ""
    bad = _assay("run", str(config), "--var", "rows=1", "--run-time", "yesterday")
    assert bad.returncode == 2 and "--run-time: 'yesterday' is not an ISO 8601 time" in bad.stderr

"""Watching a table over time, on the real server: seven daily runs whose row count drops
40% on day 6 judged by a change threshold and Deequ's online normal strategy through the
file store (the table store runs the same days on the standalone cluster:
tests/cluster/test_cluster.py); the table store's concurrent appends; the table's plans
unchanged by the store; a history that cannot be read costing only its rules; and the
command line: run, explain and history."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import pytest
from pyspark.sql.connect import functions as F

import assay
from assay.executor.metrics import read_history
from assay.ir.monitoring import MetricsStore, Monitoring
from assay.monitoring.records import parse_time
from assay.monitoring.series import wanted
from tests.helpers import assay_cli, validate_event
from tests.monitoring.filling import fill, small_filesystem
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
    rules = {"rows_change", "rows_online", "rows_online_all", "not_null(id)", "(table)",
             "(schema)"}  # fmt: skip
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
            assert r.summary.metrics["rows"] == 4 and "error" not in r.summary.metrics
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
    assert tuple(counted) == (20, 5)  # each run's 3 values and its schema
    assert assay.history(metrics_table=table, spark=spark).count() == 20
    values = spark.sql(f"SELECT value FROM {table} WHERE rule = '(table)'").collect()
    assert sorted(v[0] for v in values) == [1.0, 10.0, 11.0, 12.0, 13.0]


def test_the_tables_plans_are_what_they_were_and_a_file_store_adds_none(spark, server, tmp_path):
    frame = day_frame(spark, 1)
    before = server.sql_executions()
    # the same rules, none judged over time: a run without a store judges none
    unwatched = [{k: v for k, v in r.items() if k not in ("change", "anomaly")} for r in RULES]
    plain = assay.validate(frame, [r if r["type"] == "not_null" else {"must_be": ">= 0", **r}
                                   for r in unwatched])  # fmt: skip
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
    return assay_cli(*args, cwd=Path.cwd())


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
    # --remote: the history of a file store reads no Spark, and the command runs in this
    # process (tests.helpers.assay_cli), not in an interpreter of its own
    remote = ("--remote", server.url)
    listed = _assay(
        "history",
        str(config),
        "--var",
        "rows=1",
        "--rule",
        "row_count",
        "--measure",
        "metric_value",
        *remote,
    )
    assert [json.loads(x)["value"] for x in listed.stdout.splitlines()] == [1000.0, 500.0]
    other = _assay("history", str(config), "--var", "rows=1", "--tag", "env=prod", *remote)
    assert other.returncode == 0 and other.stdout == ""
    bad = _assay("run", str(config), "--var", "rows=1", "--run-time", "yesterday", *remote)
    assert bad.returncode == 2 and "--run-time: 'yesterday' is not an ISO 8601 time" in bad.stderr


# --- the first run, a run without a store, and the store under faults -----------------------


def test_a_simple_threshold_judges_the_first_run(spark, tmp_path):
    frame = spark.range(3).selectExpr("CAST(id AS DOUBLE) - 1.0 AS x")  # min -1.0
    rule = {"type": "min", "column": "x",
            "anomaly": {"strategy": "simple_threshold", "lower_bound": -0.5, "upper_bound": 1.0}}  # fmt: skip
    result = assay.validate(frame, [rule], metrics=str(tmp_path / "m.jsonl"))
    (judged,) = result.results
    assert (judged.metric_value, judged.severity, judged.baseline["runs"]) == (-1.0, "fail", 0)
    assert "Value -1.0 is not in bounds [-0.5, 1.0]" in judged.message
    assert result.summary.metrics["history_runs_read"] == 0


def test_a_rule_judged_over_time_needs_a_store(spark, server, tmp_path):
    config = tmp_path / "days.yaml"
    config.write_text(CONFIG.replace("metrics: {path: metrics.jsonl, tags: {env: ci}}\n", ""))
    before = server.sql_executions()
    with pytest.raises(assay.ConfigErrors) as refused:
        assay.run(config, spark=spark, vars={"rows": "3"})
    assert str(refused.value).startswith(f"{config}:5 tables[0].rules[0]: change: judged over")
    with pytest.raises(assay.ConfigErrors, match=r"<rules> rules\[0\]: anomaly: judged over"):
        assay.validate(spark.range(3), [RULES[1]])
    assert server.sql_executions() == before  # refused before any Spark work
    ran = assay.run(config, spark=spark, vars={"rows": "3"}, metrics=str(tmp_path / "m.jsonl"))
    assert ran.exit_code == 0 and ran.summary.metrics["rows"] > 0


def test_a_full_disk_costs_the_append_and_leaves_the_store_as_it_was(spark, tmp_path):
    rules = [RULES[0]]
    with small_filesystem(tmp_path) as fs:
        path = fs / "metrics.jsonl"
        first = assay.validate(day_frame(spark, 1), rules, metrics=str(path), run_time=run_time(1))
        assert first.summary.metrics["rows"] == 4
        with open(path, "ab") as handle:  # blank lines: the file's last page all but full
            handle.write(b"\n" * (4096 - path.stat().st_size % 4096 - 20))
        before = path.read_bytes()
        filler = fill(fs)
        full = assay.validate(day_frame(spark, 2), rules, metrics=str(path), run_time=run_time(2))
        assert path.read_bytes() == before
        (judged,) = full.results  # the verdicts stand, judged against day 1
        assert (judged.severity, judged.baseline["change"]["baseline"]) == ("pass", 1000.0)
        said = full.summary.metrics
        assert full.exit_code == full.summary.exit_code == 3 and said["rows"] == 0
        assert said["error"] == (
            f"metrics store file {path}: No space left on device: none of the run's 4 rows"
            " appended (the file is as it was)"
        )
        assert said["error"] in full.summary.exit_reason
        validate_event(full.summary.to_dict())
        filler.unlink()
        third = assay.validate(day_frame(spark, 3), rules, metrics=str(path), run_time=run_time(3))
    assert third.summary.metrics["history_runs_read"] == 1  # day 1's: day 2 left nothing
    assert third.results[0].baseline["points"][0]["value"] == 1000.0
    assert "skipped" not in third.summary.metrics


def _stored_line(**row: object) -> bytes:
    line = {"run_time": "2024-01-01T06:00:00.000+00:00", "table": "orders", "rule": "rows_change",
            "rule_type": "row_count", "columns": "", "measure": "metric_value", "value": 1000.0,
            "severity": "pass", "server": None, "tags": {}, "run_id": "day1"}  # fmt: skip
    return json.dumps({**line, **row}).encode()


def test_lines_that_are_not_rows_are_skipped_counted_and_said(spark, server, tmp_path):
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(b"\n".join([
        _stored_line(),
        _stored_line(value="abc", run_id="abc"),
        _stored_line(run_time="not a time", run_id="bad time"),
        b"\x00\xff\xfe junk \x01",
        _stored_line(value=None, run_id="null"),
        _stored_line(run_id="cut")[:50],  # cut short: no newline at the end
    ]))  # fmt: skip
    result = assay.validate(day_frame(spark, 2), [RULES[0]], name="orders", metrics=str(path),
                            run_time=run_time(2))  # fmt: skip
    (judged,) = result.results
    assert judged.baseline["points"] == [{"run_time": "2024-01-01T06:00:00.000+00:00",
                                          "value": 1000.0}]  # fmt: skip
    skipped = {"count": 5, "lines": [2, 3, 4, 5, 6], "reasons": {
        "a value that is not a finite number": 1, "a run_time that is not an ISO 8601 time": 1,
        "not JSON (a line cut short, or not written by assay)": 2, "no value": 1}}  # fmt: skip
    assert result.summary.metrics["skipped"] == skipped
    assert result.exit_code == 0 and result.summary.metrics["rows"] == 4
    validate_event(result.summary.to_dict())
    # the run's rows start on a line of their own, after the line cut short
    lines = path.read_bytes().split(b"\n")
    assert lines[5] == _stored_line(run_id="cut")[:50] and len(lines) == 6 + 4 + 1
    listed = _assay("history", "--metrics", str(path), "--remote", server.url)
    assert listed.returncode == 0, listed.stderr
    assert len(listed.stdout.splitlines()) == 5  # day 1's row and the run's 4
    assert f"assay: warning: metrics store file {path}: 5 lines skipped" in listed.stderr


def test_a_killed_runs_unregistered_partition_is_never_read(spark):
    """A run killed between writing its partition directory and adding it to the catalog
    leaves a complete ``run_id=`` directory the catalog does not list: history, ``assay
    history`` and the next appends ignore it (docs/monitoring.md#the-store)."""
    from assay.executor.metrics import _location, history_read, stored
    from assay.monitoring.series import Selection

    table = "assay_test_metrics_killed"
    spark.sql(f"DROP TABLE IF EXISTS {table}").collect()
    rules = [RULES[0]]
    assay.validate(day_frame(spark, 1), rules, metrics_table=table, run_time=run_time(1))
    store = MetricsStore("table", table)
    killed = spark.sql(f"SELECT * FROM {table}").drop("run_id").withColumn("value", F.lit(-1.0))
    killed.write.format("parquet").save(f"{_location(spark, store)}/run_id=killed")
    second = assay.validate(day_frame(spark, 2), rules, metrics_table=table, run_time=run_time(2))
    (judged,) = second.results
    assert [p["value"] for p in judged.baseline["points"]] == [1000.0]  # not the killed -1.0
    assert second.summary.metrics["rows"] == 4 and "error" not in second.summary.metrics
    found, skipped = stored(spark, store, Selection())
    assert second.summary.run_id in {r["run_id"] for r in found}
    assert "killed" not in {r["run_id"] for r in found} and len({r["run_id"] for r in found}) == 2
    assert -1.0 not in {r["value"] for r in found} and not skipped
    assert assay.history(metrics_table=table, spark=spark).where("value = -1.0").count() == 0
    want = wanted(assay.rules_suite(rules).tables, Monitoring(store), "x", parse_time(run_time(9)))
    history, _ = history_read(spark, store, want)
    assert [p.value for p in history[("dataframe", "rows_change")]] == [1010.0]

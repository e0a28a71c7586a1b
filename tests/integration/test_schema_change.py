"""A table's schema over time, on the real server: every run stores each table's columns
with its values (file and table stores, one append), and ``schema_change`` judges the
table's columns against the last run's, without a scan: a column added, removed,
retyped or reordered, nothing changed, the first run; without a store it is a config
error at its line. SodaCL's ``when schema changes`` runs as it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import orjson
import pytest

import assay
from assay.executor.metrics import stored
from assay.ir.monitoring import MetricsStore
from assay.monitoring.schemas import BAD_SCHEMA, SCHEMA_MEASURE, SCHEMA_RULE
from assay.monitoring.series import Selection
from tests.helpers import assay_cli, validate_event

pytestmark = pytest.mark.spark

BASE = "id, CAST(id AS STRING) AS name, CAST(id * 2 AS INT) AS qty"
DAYS = [
    ("first run", BASE),
    ("nothing changed", BASE),
    ("a column added", f"{BASE}, id % 2 = 0 AS even"),
    ("a column removed", "id, CAST(id AS STRING) AS name, id % 2 = 0 AS even"),
    ("retyped", "id, CAST(id AS STRING) AS name, CAST(id % 2 AS INT) AS even"),
    ("reordered", "CAST(id AS STRING) AS name, id, CAST(id % 2 AS INT) AS even"),
]
RULES = [
    {"type": "schema_change", "name": "every_change"},
    {"type": "schema_change", "name": "lenient", "fail_when": ["removed"],
     "warn_when": ["added", "retyped"]},
    {"type": "row_count", "must_be": "> 0"},
]  # fmt: skip


def _frame(spark, select: str):
    return spark.sql(f"SELECT {select} FROM range(5)")


def _day(day: int) -> str:
    return f"2024-02-{day:02d}T06:00:00Z"


def _runs(spark, **store):
    return [
        assay.validate(_frame(spark, select), RULES, name="orders", run_time=_day(day), **store)
        for day, (_, select) in enumerate(DAYS, 1)
    ]


def _check_days(results) -> None:
    by_day = [[(r.severity, r.failed_count) for r in result.results[:2]] for result in results]
    assert by_day == [
        [("pass", 0), ("pass", 0)],  # first run
        [("pass", 0), ("pass", 0)],  # nothing changed
        [("fail", 1), ("warn", 1)],  # added even
        [("fail", 1), ("fail", 1)],  # removed qty
        [("fail", 1), ("warn", 1)],  # even boolean -> int
        [("fail", 1), ("pass", 0)],  # name before id: reordered, allowed by lenient
    ]
    first, same, added, removed, retyped, reordered = (r.results[0] for r in results)
    assert first.message == "no earlier schema: first run"
    assert first.details["schema_change"]["earlier"] is None
    assert same.message == (
        "schema unchanged since the last run (2024-02-01T06:00:00.000+00:00): 3 columns"
    )
    assert added.details["schema_change"]["added"] == [{"name": "even", "type": "boolean"}]
    assert added.message.endswith("added even (boolean)")
    assert removed.details["schema_change"]["removed"] == [{"name": "qty", "type": "int"}]
    assert retyped.details["schema_change"]["retyped"] == [
        {"name": "even", "from": "boolean", "to": "int"}
    ]
    assert retyped.message.endswith("retyped even boolean -> int")
    assert reordered.details["schema_change"]["reordered"] == ["name"]
    assert results[5].results[1].message.endswith("(reordered: allowed by the rule)")
    assert results[2].results[1].passed and results[2].exit_code == 1  # every_change fails
    for result in results:
        for r in result.results:
            validate_event(r.to_dict())


def test_every_kind_of_change_over_runs_through_a_file_store(spark, tmp_path):
    path = tmp_path / "metrics.jsonl"
    results = _runs(spark, metrics=str(path))
    _check_days(results)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    schemas = [r for r in rows if r["rule"] == SCHEMA_RULE]
    assert [r["run_id"] for r in schemas] == [r.summary.run_id for r in results]
    assert [r["value"] for r in schemas] == [3.0, 3.0, 4.0, 3.0, 3.0, 3.0]
    first = json.loads(schemas[0]["columns"])
    assert [(c["name"], c["type"], c["position"]) for c in first] == [
        ("id", "bigint", 1), ("name", "string", 2), ("qty", "int", 3)]  # fmt: skip
    assert first[0]["nullable"] is False  # range's id is never null
    # the schema row is part of the run's one append, and its history is one row a run
    assert results[0].summary.metrics["rows"] == len(rows) // len(DAYS)
    assert [r.summary.metrics["history_runs_read"] for r in results] == [0, 1, 1, 1, 1, 1]


def test_the_table_store_keeps_the_schemas_and_skips_a_bad_one(spark):
    table = "assay_test_metrics_schemas"
    spark.sql(f"DROP TABLE IF EXISTS {table}").collect()
    _check_days(_runs(spark, metrics_table=table))
    store = MetricsStore("table", table)
    found, skipped = stored(spark, store, Selection(measures=(SCHEMA_MEASURE,)))
    assert [r["value"] for r in found] == [3.0, 3.0, 4.0, 3.0, 3.0, 3.0] and not skipped
    # a schema row another program wrote, newer than the runs: skipped, counted, not judged
    spark.sql(
        f"INSERT INTO {table} PARTITION (run_id = 'other') SELECT TIMESTAMP'2024-02-20 06:00:00',"
        f" 'orders', '{SCHEMA_RULE}', 'schema', 'not json', '{SCHEMA_MEASURE}', 1.0, NULL,"
        " NULL, CAST(map() AS MAP<STRING, STRING>), NULL"
    ).collect()
    # and one whose JSON parses but a column lacks its type (read as NULL): skipped too
    spark.sql(
        f"INSERT INTO {table} PARTITION (run_id = 'another') SELECT TIMESTAMP'2024-02-19 06:00:00',"
        f" 'orders', '{SCHEMA_RULE}', 'schema', '[{{\"name\": \"id\"}}]', '{SCHEMA_MEASURE}', 1.0,"
        " NULL, NULL, CAST(map() AS MAP<STRING, STRING>), NULL"
    ).collect()
    found, skipped = stored(spark, store, Selection(measures=(SCHEMA_MEASURE,)))
    assert len(found) == 6 and skipped.to_dict() == {
        "count": 2, "reasons": {BAD_SCHEMA: 2}, "lines": []}  # fmt: skip
    later = assay.validate(_frame(spark, DAYS[-1][1]), RULES, name="orders",
                           run_time="2024-02-21T06:00:00Z", metrics_table=table)  # fmt: skip
    assert later.summary.metrics["skipped"]["reasons"] == {BAD_SCHEMA: 1}  # the newest only
    # the newest row was the bad one: skipped, and the previous good one judged against
    assert later.results[0].message == (
        "schema unchanged since the last run (2024-02-06T06:00:00.000+00:00): 3 columns"
    )


def test_judged_without_a_scan_and_the_plans_unchanged(spark, server, tmp_path):
    frame = _frame(spark, BASE)
    plain = assay.validate(frame, RULES[2:], metrics=str(tmp_path / "a.jsonl"))
    before = server.sql_executions()
    again = assay.validate(frame, RULES[2:], metrics=str(tmp_path / "a.jsonl"))
    alone = server.sql_executions() - before
    before = server.sql_executions()
    watched = assay.validate(frame, RULES, metrics=str(tmp_path / "b.jsonl"))
    assert server.sql_executions() - before == alone
    counts = [r.events[-2].spark_plans for r in (plain, again, watched)]
    assert counts == [counts[0]] * 3


CONFIG = """\
metrics: {path: metrics.jsonl}
tables:
  - name: days
    source: {sql: "SELECT $columns FROM range(3)"}
    rules:
      - {type: row_count, must_be: "> 0"}
      - {type: schema_change, warn_when: [added]}
"""


def _assay(*args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return assay_cli(*args, cwd=cwd or Path.cwd())


def test_the_command_line_runs_explains_and_lists_the_schema_series(server, tmp_path):
    config = tmp_path / "days.yaml"
    config.write_text(CONFIG)
    codes = []
    for day, columns in ((1, "id"), (2, "id, id AS twice"), (3, "CAST(id AS INT) AS id")):
        done = _assay("run", str(config), "--remote", server.url, "--var", f"columns={columns}",
                      "--run-time", _day(day))  # fmt: skip
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        codes.append((done.returncode, lines[1]["severity"]))
        validate_event(lines[1])
    assert codes == [(0, "pass"), (0, "warn"), (1, "fail")]
    explained = _assay("explain", str(config), "--var", "columns=id")
    assert explained.returncode == 0, explained.stderr
    text = explained.stdout
    assert "days: its last schema (schema_change)" in text
    assert "schema (no scan, read from the schema)\n    rules[1] schema_change" in text
    assert "every value measured, each table's schema appended" in text
    remote = ("--remote", server.url)  # a file store: no Spark read, the command in-process
    listed = _assay("history", str(config), "--var", "columns=id", "--measure", "schema", *remote)
    series = [json.loads(x) for x in listed.stdout.splitlines()]
    assert [[c["name"] + " " + c["type"] for c in s["columns"]] for s in series] == [
        ["id bigint"], ["id bigint", "twice bigint"], ["id int"]]  # fmt: skip
    assert [s["value"] for s in series] == [1.0, 2.0, 1.0]
    csv_out = _assay("history", str(config), "--var", "columns=id", "--measure", "schema",
                     "--format", "csv", *remote)  # fmt: skip
    assert len(csv_out.stdout.splitlines()) == 4 and '""name"":""twice""' in csv_out.stdout


def test_without_a_store_it_is_a_config_error_at_its_line(spark, server, tmp_path):
    config = tmp_path / "days.yaml"
    config.write_text(CONFIG.replace("metrics: {path: metrics.jsonl}\n", ""))
    before = server.sql_executions()
    with pytest.raises(assay.ConfigErrors) as refused:
        assay.run(config, spark=spark, vars={"columns": "id"})
    assert str(refused.value).startswith(
        f"{config}:6 tables[0].rules[1]: schema_change: judged over time, the rule needs a"
        " metrics store"
    )
    assert server.sql_executions() == before
    checked = _assay("check", str(config), "--var", "columns=id")
    assert checked.returncode == 2 and "tables[0].rules[1]: schema_change: judged" in (
        checked.stdout + checked.stderr
    )


SODA = """\
checks for orders:
  - schema:
      name: columns as yesterday
      fail:
        when schema changes: [column delete, column type change]
      warn:
        when schema changes: any
"""


def test_sodacl_when_schema_changes(spark, tmp_path):
    checks = tmp_path / "checks.yml"
    checks.write_text(SODA)
    path = str(tmp_path / "metrics.jsonl")
    outcomes = []
    for day, (_, select) in enumerate(DAYS[:4], 1):
        spark.sql(f"SELECT {select} FROM range(5)").createOrReplaceTempView("orders")
        result = assay.run(checks, spark=spark, metrics=path, run_time=_day(day))
        (judged,) = result.results
        outcomes.append((judged.severity, judged.details["soda"]["outcome"]))
        validate_event(judged.to_dict())
    # Soda skips the first run (no earlier schema: outcome null), warns on a column added
    assert outcomes == [("pass", None), ("pass", "pass"), ("warn", "warn"), ("fail", "fail")]
    with open(path, "rb") as handle:
        stored_rows = [orjson.loads(line) for line in handle]
    assert {r["table"] for r in stored_rows if r["rule"] == SCHEMA_RULE} == {"orders"}

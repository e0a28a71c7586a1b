"""The store's ``state`` column (docs/monitoring.md#the-store): a state row written and read
back whole in both backends (base64 text in a file's line, binary in a table), a store
written before the column read with null states, and an old table store given the column
by the next append (``ALTER TABLE ADD COLUMNS``), its earlier rows kept."""

from __future__ import annotations

import base64
import datetime as dt
import json

import pytest

from assay.ir.monitoring import MetricsStore
from assay.monitoring import files
from assay.monitoring.records import COLUMNS, NAMES, STATE_MEASURE
from assay.monitoring.rows import BAD_STATE, checked_row
from assay.monitoring.series import Selection

UTC = dt.timezone.utc
STATE = bytes(range(256)) + b"\x00state"  # every byte value: nothing lost in either backend


def _row(run: int, state: bytes | None, measure: str = STATE_MEASURE) -> dict:
    return {"run_time": dt.datetime(2024, 1, run, tzinfo=UTC), "table": "t", "rule": "r",
            "rule_type": "sum", "columns": '{"day":"2024-01-01"}', "measure": measure,
            "value": 10.0, "severity": None, "server": None, "tags": {}, "state": state,
            "run_id": f"run{run}"}  # fmt: skip


def test_the_state_column_comes_before_run_id():
    assert ("state", "binary") in COLUMNS and NAMES[-2:] == ("state", "run_id")


def test_a_state_row_in_a_file_is_base64_text_read_back_as_bytes(tmp_path):
    path = str(tmp_path / "m.jsonl")
    files.append(path, [_row(1, STATE), _row(1, None, "metric_value")])
    lines = [json.loads(line) for line in (tmp_path / "m.jsonl").read_text().splitlines()]
    assert lines[0]["state"] == base64.b64encode(STATE).decode()
    assert lines[1]["state"] is None
    found, skipped = files.rows(path)
    assert not skipped
    assert [r["state"] for r in found] == [STATE, None]


def test_a_line_written_before_the_column_reads_as_null_and_a_bad_state_is_skipped(tmp_path):
    path = tmp_path / "m.jsonl"
    old = {k: v for k, v in _row(1, None, "metric_value").items() if k != "state"}
    old["run_time"] = "2024-01-01T00:00:00.000+00:00"
    bad = {**old, "measure": STATE_MEASURE, "state": "not base64!"}
    path.write_text(json.dumps(old) + "\n" + json.dumps(bad) + "\n")
    found, skipped = files.rows(str(path))
    assert [r["state"] for r in found] == [None]
    assert skipped.count == 1 and dict(skipped.reasons) == {BAD_STATE: 1}
    assert checked_row({**old, "state": 3}) == BAD_STATE


@pytest.mark.spark
@pytest.mark.parametrize("format", ["parquet", "json"])
def test_a_state_row_in_a_table_store_and_an_old_table_given_the_column(spark, format):  # noqa: A002
    from assay.executor.metrics import append, stored

    table = f"assay_test_state_{format}"
    spark.sql(f"DROP TABLE IF EXISTS {table}").collect()
    old_columns = ", ".join(f"`{n}` {kind}" for n, kind in COLUMNS if n != "state")
    partitioned = " PARTITIONED BY (run_id)" if format == "parquet" else ""
    spark.sql(f"CREATE TABLE {table} ({old_columns}) USING {format}{partitioned}").collect()
    old = _row(1, None, "metric_value")
    spark.createDataFrame(
        [tuple(old[n] for n in NAMES if n != "state")], old_columns
    ).write.insertInto(table)
    store = MetricsStore("table", table, format)
    found, skipped = stored(spark, store, Selection())  # an old store read as it is
    assert not skipped and [r["state"] for r in found] == [None]
    assert append(spark, store, [_row(2, STATE), _row(2, None, "metric_value")]) == 2
    assert "state" in spark.read.table(table).columns
    found, skipped = stored(spark, store, Selection())
    assert not skipped
    by_run = sorted((r["run_id"], r["measure"], r["state"]) for r in found)
    assert by_run == [("run1", "metric_value", None), ("run2", "metric_value", None),
                      ("run2", STATE_MEASURE, STATE)]  # fmt: skip
    assert append(spark, store, [_row(3, b"again")]) == 1  # the column is not added twice
    spark.sql(f"DROP TABLE IF EXISTS {table}").collect()

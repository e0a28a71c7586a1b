"""DQX's ``has_valid_schema`` against DQX itself: the same checks run by DQX's engine
(``DQEngineCore.apply_checks_by_metadata`` on the test server's session) and by assay on a
table of many types (numbers, strings, a decimal, a timestamp, an array, a map, a
struct): for every check, assay fails exactly when DQX flags rows, and assay's message
is the message DQX writes in them. DQX's answers are recorded in ``schema_oracle.json``
(tests/dialects/recorded.py), re-recorded with ``ASSAY_RECORD_ORACLES=1``."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.dialects import recorded
from tests.dialects.dqx.test_oracle import _Workspace
from tests.dialects.helpers import errors, load, run, write
from tests.helpers import validate_event

pytestmark = pytest.mark.spark

SCHEMA = pa.schema(
    [("id", pa.int64()), ("name", pa.string()), ("amount", pa.decimal128(10, 2)),
     ("ts", pa.timestamp("us", tz="UTC")), ("tags", pa.list_(pa.string())),
     ("attrs", pa.map_(pa.string(), pa.int32())),
     ("s", pa.struct([("a", pa.int32()), ("b", pa.string())]))]
)  # fmt: skip
ROWS = [
    {"id": 1, "name": "a", "amount": Decimal("1.50"), "ts": dt.datetime(2025, 1, 1, tzinfo=dt.UTC),
     "tags": ["x"], "attrs": [("k", 1)], "s": {"a": 1, "b": "ü"}},
    {"id": None, "name": None, "amount": None, "ts": None, "tags": None, "attrs": None, "s": None},
]  # fmt: skip
ALL = (
    "id BIGINT, name STRING, amount DECIMAL(10,2), ts TIMESTAMP, tags ARRAY<STRING>, "
    "attrs MAP<STRING,INT>, s STRUCT<a: INT, b: STRING>"
)


def _check(criticality: str = "error", **arguments: Any) -> dict[str, Any]:
    return {"criticality": criticality,
            "check": {"function": "has_valid_schema", "arguments": arguments}}  # fmt: skip


CHECKS: list[dict[str, Any]] = [
    _check(expected_schema="id BIGINT, name STRING"),
    _check(expected_schema="id INT, name VARCHAR(10), amount DOUBLE, ts DATE"),
    _check(expected_schema="struct<id:tinyint,name:char(3),amount:decimal(3,1)>"),
    _check(expected_schema="id BIGINT, missing STRING, other INT"),
    _check(expected_schema="name INT, id STRING, ts BOOLEAN"),
    _check(expected_schema="tags ARRAY<INT>, attrs MAP<STRING,BIGINT>, s STRUCT<a: BIGINT, b: STRING>"),
    _check(expected_schema="tags ARRAY<VARCHAR(3)>, attrs MAP<INT,INT>"),
    _check(expected_schema="s STRUCT<b: STRING, a: INT>"),
    _check(expected_schema="s STRUCT<a: INT>"),
    _check(expected_schema="id BIGINT NOT NULL, name STRING"),
    _check(expected_schema=ALL, strict=True),
    _check(expected_schema=ALL.replace("id BIGINT", "id BIGINT NOT NULL"), strict=True),
    _check(expected_schema="name STRING, id BIGINT", strict=True),
    _check(expected_schema="id INT, name STRING", strict=True, columns=["id", "name"]),
    _check(expected_schema="id BIGINT, name STRING", strict=True, columns=["id", "name"]),
    _check(expected_schema="id BIGINT, name STRING", strict=True,
           exclude_columns=["amount", "ts", "tags", "attrs", "s", "nope"]),
    _check(expected_schema=ALL + ", extra STRING", strict=True),
    _check(expected_schema="id BIGINT, name STRING", columns=["id"]),
    _check("warn", expected_schema="id BIGINT, name BINARY"),
    _check(expected_schema="s STRUCT<a: INT NOT NULL, b: STRING>", strict=True, columns=["s"]),
]  # fmt: skip
RECORDING = Path(__file__).with_name("schema_oracle.json")


def _named() -> list[dict[str, Any]]:
    return [{**check, "name": f"c{i}"} for i, check in enumerate(CHECKS)]


def _dqx(spark, path: Path) -> dict[str, dict[str, Any]]:
    """Per check: the rows DQX flags and the messages it writes in them."""
    from databricks.labs.dqx import engine as dqx_engine

    engine = dqx_engine.DQEngineCore(_Workspace(), spark)  # type: ignore[arg-type]
    checked = engine.apply_checks_by_metadata(spark.read.parquet(str(path)), _named())
    found: dict[str, dict[str, Any]] = {c["name"]: {"rows": 0, "messages": []} for c in _named()}
    for row in checked.select("_errors", "_warnings").collect():
        for item in [*(row["_errors"] or ()), *(row["_warnings"] or ())]:
            entry = found[item["name"]]
            entry["rows"] += 1
            if item["message"] not in entry["messages"]:
                entry["messages"].append(item["message"])
    return found


def _inputs() -> dict[str, Any]:
    return {
        "data": recorded.rows_digest(SCHEMA, ROWS),
        "checks": _named(),
        "versions": recorded.versions("databricks-labs-dqx", "pyspark", "pyarrow"),
        "code": recorded.sources(_Workspace, _dqx),
    }


def test_recording_is_current():
    recorded.assert_current(
        RECORDING, {"tricky": _inputs()}, "DQX", "tests/dialects/dqx/test_schema.py"
    )


def test_assay_judges_schemas_as_dqx_does(spark, tmp_path, monkeypatch):
    monkeypatch.setenv("SPARK_CONNECT_MODE_ENABLED", "1")
    path = tmp_path / "data.parquet"
    pq.write_table(pa.Table.from_pylist(ROWS, schema=SCHEMA), path)
    expected = recorded.answers(RECORDING, "tricky", _inputs(), lambda: _dqx(spark, path))
    file = tmp_path / "checks.json"
    file.write_text(json.dumps(_named(), indent=2))
    results = run(spark, load(file, source=str(path), for_run=True)).results
    differ = []
    for check, result in zip(_named(), results, strict=True):
        validate_event(result)
        dqx = expected[check["name"]]
        what = f"{check['name']} {check['check']['arguments']}"
        assert result["severity"] != "error", f"{what}: {result['message']}"
        assert dqx["rows"] in (0, len(ROWS)), dqx  # every row or none
        if (dqx["rows"] > 0) == result["passed"]:
            differ.append(f"{what}: DQX flags {dqx['rows']} rows, assay {result['severity']}")
        elif dqx["messages"] and dqx["messages"] != [result["message"]]:
            differ.append(f"{what}: DQX says {dqx['messages']}, assay {result['message']!r}")
        if check["criticality"] == "warn" and dqx["rows"]:
            assert result["severity"] == "warn"
        assert result["details"]["dqx"]["every_row_when_failing"] is True
    assert not differ, "\n".join(differ)
    assert sum(not r["passed"] for r in results) >= 10


def test_assay_names_the_check_as_dqx_does(spark, tmp_path, monkeypatch):
    from databricks.labs.dqx.checks_serializer import deserialize_checks

    # DQX parses the expected schema when the check is built, in the active session
    monkeypatch.setenv("SPARK_CONNECT_MODE_ENABLED", "1")
    del spark
    file = write(tmp_path, json.dumps(CHECKS[:1]), "checks.json")
    rules = load(file, source=str(tmp_path / "data.parquet")).tables[0].rules
    assert [r.name for r in rules] == [rule.name for rule in deserialize_checks(CHECKS[:1])]


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"expected_schema": "id INT,"}, "DQX: Invalid schema string 'id INT,'"),
        ({"expected_schema": "STRING"}, "DQX: Invalid schema string 'STRING'"),
        ({"ref_table": "db.t"}, "has_valid_schema with ref_table is not supported"),
        ({"expected_schema": "id INT", "columns": ["a + 1"]}, "'a + 1' is not a column name"),
    ],
)
def test_refused_at_the_arguments(tmp_path, arguments, said):
    check = {"check": {"function": "has_valid_schema", "arguments": arguments}}
    text = errors(write(tmp_path, json.dumps([check]), "checks.json"), source="t.parquet")
    assert said in text and "checks.json:" in text, text

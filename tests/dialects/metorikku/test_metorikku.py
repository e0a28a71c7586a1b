"""Metorikku metric files through the metorikku dialect: the docs' example, every operator
and level, inputs (--input and job files), failed-row writes, errors, and results equal to
the same rules written natively."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assay.dialects.metorikku import FAILED_DF_ENV
from assay.ir import CatalogSource, PathSource, SqlSource
from assay.ir.outputs import FailedRows
from tests.dialects.helpers import errors, load, run, write
from tests.helpers import assay_cli as assay

HERE = Path(__file__).parent
REFERENCE = HERE / "reference_example.yaml"


@pytest.fixture(scope="module")
def input_1(tmp_path_factory) -> Path:
    """ids 1-200; col1 is null for id 150, col2 for ids 50 (filtered out) and 160, 170."""
    ids = list(range(1, 201))
    path = tmp_path_factory.mktemp("metorikku") / "input_1.parquet"
    pq.write_table(
        pa.table(
            {
                "id": ids,
                "col1": [None if i == 150 else f"a{i}" for i in ids],
                "col2": [None if i in (50, 160, 170) else i % 7 for i in ids],
                "kind": ["x" if i % 3 else "y" for i in ids],
            }
        ),
        path,
    )
    return path


def test_the_reference_example_parses():
    suite = load(REFERENCE)
    assert suite.dialects == ("metorikku",)
    (view,) = suite.views
    assert view.name == "df1" and isinstance(view.source, SqlSource)
    assert "FROM input_1" in view.source.query
    (table,) = suite.tables
    assert table.name == "df1" and table.source == CatalogSource("df1")
    assert [(r.kind, r.level, r.columns) for r in table.rules] == [
        ("not_null", "warn", ("col1",)),
        ("not_null", "error", ("col2",)),
    ]
    assert table.origin.path == "steps[0].dq"
    assert table.rules[1].origin.path == "steps[0].dq.checks[1]"


@pytest.mark.spark
def test_the_reference_example_runs(spark, input_1):
    got = run(spark, load(REFERENCE, inputs={"input_1": str(input_1)}))
    rows = pq.read_table(input_1).to_pylist()
    kept = [r for r in rows if r["id"] > 100]
    col1 = sum(r["col1"] is None for r in kept)
    col2 = sum(r["col2"] is None for r in kept)
    assert [(r["severity"], r["failed_count"]) for r in got.results] == [
        ("warn", col1),
        ("fail", col2),
    ]
    assert got.summary["exit_code"] == 1 and got.results[0]["row_count"] == len(kept)


def test_levels(tmp_path):
    path = write(
        tmp_path,
        """\
        steps:
        - dataFrameName: a
          sql: SELECT 1 AS x
          dq:
            checks:
            - isComplete: {column: x}
            - isComplete: {column: x, level: error}
        - dataFrameName: b
          sql: SELECT * FROM a
          dq:
            level: error
            checks:
            - isComplete: {column: x}
            - isComplete: {column: x, level: warning}
        """,
    )
    a, b = load(path).tables
    assert [r.level for r in a.rules + b.rules] == ["warn", "error", "error", "warn"]


ALL_OPERATORS = """\
steps:
- dataFrameName: src
  sql: SELECT * FROM input_1
- dataFrameName: checked
  sql:
    SELECT id, col1, col2, kind FROM src WHERE id > 100
  dq:
    checks:
    - isComplete: {column: col2}
    - isUnique: {column: kind}
    - isUnique: {column: id, level: error}
    - hasSize: {size: "100", operator: "=="}
    - hasSize: {size: 50, operator: "<"}
    - hasUniqueness: {columns: [kind, col2], fraction: "0.5", operator: ">="}
    - hasUniqueness: {columns: [id]}
    - isContainedIn: {column: kind, allowedValues: [x]}
    - isContainedIn: {column: kind, allowedValues: [x, y], level: error}
"""

NATIVE = """\
tables:
  - name: checked
    source: {table: checked}
    rules:
    - {type: not_null, column: col2, level: warn}
    - {type: unique, column: kind, level: warn}
    - {type: unique, column: id}
    - {type: has_size, size: 100, operator: "==", level: warn}
    - {type: has_size, size: 50, operator: "<", level: warn}
    - {type: has_uniqueness, columns: [kind, col2], fraction: 0.5, operator: ">=", level: warn}
    - {type: has_uniqueness, columns: [id], level: warn}
    - {type: is_contained_in, column: kind, allowed_values: [x], level: warn}
    - {type: is_contained_in, column: kind, allowed_values: [x, y]}
"""


@pytest.mark.spark
def test_every_operator_and_the_same_rules_natively(spark, tmp_path, input_1, monkeypatch):
    prefix = tmp_path / "failed"
    monkeypatch.setenv(FAILED_DF_ENV, str(prefix))
    suite = load(write(tmp_path, ALL_OPERATORS), inputs={"input_1": str(input_1)})
    assert [v.name for v in suite.views] == ["input_1", "src", "checked"]
    assert suite.views[0].source == PathSource("parquet", (str(input_1),))
    got = run(spark, suite)
    native = run(spark, load(write(tmp_path, NATIVE, "native.yaml")))  # the view is there now

    # The same verdicts and failing rows as the native rules; metric_value is deequ's
    # (a fraction for the row-level checks, which native rules leave null).
    def verdicts(results):
        return [(r["severity"], r["failed_count"], r["samples"]) for r in results]

    assert verdicts(got.results) == verdicts(native.results)

    rows = [r for r in pq.read_table(input_1).to_pylist() if r["id"] > 100]
    kinds = [r["kind"] for r in rows]
    pairs = [(r["kind"], r["col2"]) for r in rows]
    unique_pairs = sum(pairs.count(p) == 1 for p in pairs)
    nulls = sum(r["col2"] is None for r in rows)
    expected = [
        ("warn", nulls, (len(rows) - nulls) / len(rows)),
        ("warn", len(rows), 0.0),  # every kind repeats
        ("pass", 0, 1.0),
        ("pass", None, 100),
        ("warn", None, 100),
        (
            "pass" if unique_pairs / len(rows) >= 0.5 else "warn",
            len(rows) - unique_pairs,
            unique_pairs / len(rows),
        ),
        ("pass", 0, 1.0),
        ("warn", kinds.count("y"), kinds.count("x") / len(rows)),
        ("pass", 0, 1.0),
    ]
    assert [(r["severity"], r["failed_count"], r["metric_value"]) for r in got.results] == expected

    # failing rows of each failed check, one directory per step and check
    table = got.tables()["checked"]
    written = {o["rule_index"]: o for o in table["outputs"] if o["written"]}
    assert sorted(written) == [i for i, e in enumerate(expected) if e[0] != "pass"]
    assert written[0]["target"] == str(prefix / "checked" / "0_isComplete")
    assert pq.read_table(prefix / "checked" / "0_isComplete").num_rows == expected[0][1]
    assert pq.read_table(prefix / "checked" / "1_isUnique").num_rows == len(rows)
    assert pq.read_table(prefix / "checked" / "4_hasSize").num_rows == len(rows)  # the whole df
    if 5 in written:  # rows whose (kind, col2) is not unique
        assert (
            pq.read_table(prefix / "checked" / "5_hasUniqueness").num_rows
            == len(rows) - unique_pairs
        )
    assert set(
        pq.read_table(prefix / "checked" / "7_isContainedIn").column("kind").to_pylist()
    ) == {"y"}
    assert not (prefix / "src").exists() and not (prefix / "checked" / "2_isUnique").exists()


@pytest.mark.spark
def test_nothing_is_written_without_the_prefix(spark, tmp_path, input_1, monkeypatch):
    monkeypatch.delenv(FAILED_DF_ENV, raising=False)
    suite = load(REFERENCE, inputs={"input_1": str(input_1)})
    assert all(t.outputs == () for t in suite.tables)
    got = run(spark, suite)
    assert "outputs" not in got.tables()["df1"]


def test_failed_rows_are_planned_per_check(tmp_path, monkeypatch):
    monkeypatch.setenv(FAILED_DF_ENV, "s3://bucket/failed")
    (table,) = load(REFERENCE).tables
    assert [o.sink.target for o in table.outputs if isinstance(o, FailedRows)] == [
        "s3://bucket/failed/df1/0_isComplete",
        "s3://bucket/failed/df1/1_isComplete",
    ]
    assert {(o.sink.format, o.sink.mode) for o in table.outputs} == {("parquet", "overwrite")}


@pytest.mark.spark
def test_cli_inputs_and_a_job_file(server, tmp_path, input_1):
    proc = assay("run", str(REFERENCE), "--remote", server.url, "--input", f"input_1={input_1}")
    assert proc.returncode == 1, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [e["severity"] for e in events if e["event"] == "result"] == ["warn", "fail"]
    proc = assay("run", str(REFERENCE), "--remote", server.url)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "steps[0]" in proc.stderr and "--input NAME=SOURCE" in proc.stderr
    (tmp_path / "q.sql").write_text("SELECT * FROM input_1 WHERE id <= 100;\n")
    metric = write(
        tmp_path,
        "steps:\n- dataFrameName: low\n  file: q.sql\n  dq:\n    checks:\n"
        "    - hasSize: {size: 100, operator: '=='}\n",
        "metric.yaml",
    )
    job = write(
        tmp_path,
        f"metrics: [{metric.name}]\nappName: ignored\ninputs:\n"
        f"  input_1:\n    file:\n      path: {input_1}\n",
        "job.yaml",
    )
    proc = assay("run", str(job), "--remote", server.url)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[0])
    assert result["table"] == "low" and result["metric_value"] == 100


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("steps:\n- dataFrameName: a\n  sql: SELECT 1\n", "no step has a 'dq' block"),
        (
            "steps:\n- dataFrameName: a\n  sql: x\n  dq: {checks: [{isComplet: {column: a}}]}\n",
            "unknown operator 'isComplet' (did you mean 'isComplete'?)",
        ),
        (
            "steps:\n- dataFrameName: a\n  sql: x\n  dq: {checks: [{isComplete: {colum: a}}]}\n",
            "unknown key 'colum' (did you mean 'column'?)",
        ),
        (
            "steps:\n- dataFrameName: a\n  sql: x\n  dq: {level: fatal, checks: [{isComplete: {column: a}}]}\n",
            "expected 'error', 'warn' or 'warning', got 'fatal'",
        ),
        (
            "steps:\n- dataFrameName: a\n  classpath: com.x.Y\n  dq: {checks: [{isComplete: {column: a}}]}\n",
            "code steps (Scala classes) cannot run in assay",
        ),
        (
            "steps:\n- dataFrameName: a\n  sql: x\n  dq: {checks: [{isComplete: {column: a}, isUnique: {column: a}}]}\n",
            "a check is one operator",
        ),
        (
            "steps:\n- dataFrameName: a\n  sql: x\n  dq: {checks: [{hasSize: {size: ten, operator: '=='}}]}\n",
            "expected an integer, got 'ten'",
        ),
        (
            "steps:\n- dataFrameName: a\n  sql: x\n  dq: {checks: [{hasSize: {size: 1, operator: '=<'}}]}\n",
            "expected one of ==, !=, >=, >, <=, <; got '=<'",
        ),
        (
            "steps:\n- dataFrameName: a b\n  sql: x\n  dq: {checks: [{isComplete: {column: a}}]}\n",
            "must be a SQL identifier",
        ),
        (
            "steps:\n- dataFrameName: a\n  file: missing.sql\n  dq: {checks: [{isComplete: {column: a}}]}\n",
            "cannot read SQL file",
        ),
        ("metrics: [nope.yaml]\n", "metric file"),
    ],
)
def test_errors(tmp_path, body, fragment):
    assert fragment in errors(write(tmp_path, body))


def test_input_errors(tmp_path):
    text = errors(REFERENCE, inputs={"input_1": str(tmp_path / "dir_without_extension/")})
    assert "--input input_1" in text and "cannot tell the data format" in text

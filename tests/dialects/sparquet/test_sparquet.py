"""sparquet validations through the sparquet dialect (and inside native tables): the docs'
examples, on_failure, the report, the valid/invalid split, failed_rows outputs, targets,
custom rule types, errors, and results equal to the same rules written natively."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assay.dialects.plugins import registered, unregister_rule
from assay.dialects.validations import REPORT_COLUMNS
from assay.ir import CatalogSource, PathSource
from assay.ir.outputs import RowSplit, RuleReport
from tests.dialects.helpers import DATA, comparable, errors, load, run, write
from tests.helpers import assay_cli as assay

HERE = Path(__file__).parent
REFERENCE = HERE / "reference_example.json"
QUARANTINE = HERE / "quarantine_example.json"
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$")


@pytest.fixture(scope="module")
def orders(tmp_path_factory) -> Path:
    """The columns the docs' example reads: 50 orders, id 7 without customer, two bad
    emails, one negative revenue, quantities 0..49 (0 is out of range)."""
    ids = list(range(1, 51))
    path = tmp_path_factory.mktemp("sparquet") / "orders.parquet"
    pq.write_table(
        pa.table(
            {
                "id": ids,
                "customer_id": [None if i == 7 else i % 9 for i in ids],
                "quantity": [i - 1 for i in ids],
                "email": [
                    f"u{i}.example.com" if i in (3, 30) else f"u{i}@example.com" for i in ids
                ],
                "revenue": [-1.5 if i == 20 else i * 2.5 for i in ids],
                "ordered_at": [
                    dt.date(2030, 1, 1) if i == 5 else dt.date(2024, 1, i % 28 + 1) for i in ids
                ],
            }
        ),
        path,
    )
    return path


def rows(path: Path) -> list[dict]:
    return pq.read_table(path).to_pylist()


def redirected(tmp_path: Path, source: Path, **paths: str) -> Path:
    """A copy of a reference example with its output paths moved under ``tmp_path``."""
    text = source.read_text()
    for old, new in paths.items():
        text = text.replace(f'"{old}"', json.dumps(str(tmp_path / new)))
    out = tmp_path / source.name
    out.write_text(text)
    return out


def test_the_reference_examples_parse():
    suite = load(REFERENCE, source="db.orders")
    (table,) = suite.tables
    assert suite.dialects == ("sparquet",) and table.name == "reference_example"
    assert table.source == CatalogSource("db.orders")
    assert [r.kind for r in table.rules] == [
        "not_null",
        "unique",
        "range",
        "regex",
        "row_count",
        "sql",
    ]
    assert {r.level for r in table.rules} == {"error"} and table.hold_outputs == ()
    assert {r.on_failure for r in table.rules} == {"warn"}
    (report,) = table.outputs
    assert isinstance(report, RuleReport) and report.rules == tuple(range(6))
    assert (report.sink.format, report.sink.target, report.sink.mode) == (
        "csv",
        "/dq/orders",
        "append",
    )
    (quarantine,) = load(QUARANTINE, source=str(DATA / "orders.parquet")).tables
    assert quarantine.source == PathSource("parquet", (str(DATA / "orders.parquet"),))
    (split,) = quarantine.outputs
    assert isinstance(split, RowSplit) and split.rules == (0, 1)
    assert split.valid.is_table and split.valid.target == "silver.orders_ok"  # type: ignore[union-attr]


def test_a_source_is_needed_to_run():
    assert "--source" in errors(REFERENCE, for_run=True)
    assert load(REFERENCE).tables[0].source == CatalogSource("<--source>")  # explain


@pytest.mark.spark
def test_the_reference_example_runs(spark, tmp_path, orders):
    path = redirected(tmp_path, REFERENCE, **{"/dq/orders": "dq/orders"})
    got = run(spark, load(path, source=str(orders), pipeline="orders"))
    data = rows(orders)
    expected = [
        ("fail", sum(r["id"] is None or r["customer_id"] is None for r in data)),
        ("pass", 0),
        ("fail", sum(not 1 <= r["quantity"] <= 10000 for r in data)),
        ("fail", sum(not EMAIL.match(r["email"]) for r in data)),
        ("pass", 0),  # sparquet-cola: a passing rule counts 0 failed
        ("fail", 1),  # ... and a failing boolean sql rule 1
    ]
    assert [(r["severity"], r["failed_count"]) for r in got.results] == expected
    assert got.results[5]["message"] == "Negative revenue found"
    # on_failure: warn is the run's policy: the verdicts stay, the run does not fail
    failed = [r for r in got.results if r["severity"] == "fail"]
    assert all(not r["passed"] and not r["blocking"] for r in failed)
    assert {r["waiver"] for r in failed} == {"on_failure: warn"}
    assert got.summary["exit_code"] == 0 and got.summary["blocking"] == 0
    assert got.summary["status"] == "FAIL"
    assert got.summary["exit_reason"] == (
        "exit 0: no failed rule fails the run; "
        "4 failed rules do not fail it (4 under on_failure: warn)"
    )
    report = [
        line.split(",")
        for f in sorted((tmp_path / "dq" / "orders").glob("*.csv"))
        for line in f.read_text().splitlines()
    ]
    assert [(r[0], r[1], r[3], r[4], r[5]) for r in report] == [
        ("orders", kind, sev, passed, failed)
        for kind, sev, passed, failed in (
            ("not_null", "fail", "false", "1"), ("unique", "pass", "true", "0"),
            ("range", "fail", "false", "1"), ("regex", "fail", "false", "2"),
            ("row_count", "pass", "true", "0"), ("sql", "fail", "false", "1"),
        )
    ]  # fmt: skip


@pytest.mark.spark
def test_delta_is_refused_clearly_before_any_scan(server, orders):
    before = server.sql_executions()
    proc = assay("run", str(QUARANTINE), "--source", str(orders), "--remote", server.url)
    # the table is an error before any scan (nothing written); the run still reports it
    assert proc.returncode == 3
    assert "no 'delta' data source" in proc.stderr and "outputs.valid" in proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [e["event"] for e in events][-2:] == ["table", "summary"]
    assert all(e["severity"] == "error" for e in events if e["event"] == "result")
    assert server.sql_executions() - before <= 2  # analysis only: schema and probe


BLOCK = """\
{
  "name": "orders",
  "validations": {
    "on_failure": "%s",
    "report": {"format": "parquet", "path": "./report", "mode": "append", "partition_by": ["pipeline"]},
    "rules": [
      {"type": "not_null", "columns": ["customer_id"]},
      {"type": "range", "column": "quantity", "min": 1, "max": 100, "name": "qty"},
      {"type": "unique", "columns": ["id"]},
      {"type": "invalid_count", "column": "email", "valid_format": "email", "must_be": "< 5", "warn": "= 0"},
      {"type": "missing_count", "column": "customer_id", "must_be": "< 10"},
      {"type": "duplicate_count", "columns": ["customer_id"], "must_be": ">= 0"},
      {"type": "sql", "failed_rows": "SELECT id, revenue FROM _validation_df WHERE revenue < 0",
       "output": {"format": "json", "path": "./negative", "mode": "overwrite"}}
    ],
    "outputs": {
      "valid": {"format": "parquet", "path": "./ok", "mode": "overwrite"},
      "invalid": {"format": "parquet", "path": "./quarantine", "mode": "overwrite"}
    }
  }
}
"""


@pytest.mark.spark
@pytest.mark.parametrize("mode", ["fail", "warn"])
def test_on_failure_report_split_and_failed_rows(spark, tmp_path, orders, mode):
    path = write(tmp_path, BLOCK % mode, "orders.json")
    got = run(spark, load(path, source=str(orders)))
    data = rows(orders)
    table = got.tables()["orders"]
    if mode == "fail":
        assert got.summary["exit_code"] == 1
        assert [o["written"] for o in table["outputs"]] == [False] * 4
        assert not any((tmp_path / d).exists() for d in ("report", "ok", "quarantine", "negative"))
        return
    assert got.summary["exit_code"] == 0 and table["error"] is None
    assert [o["kind"] for o in table["outputs"] if o["written"]] == [
        "valid",
        "invalid",
        "failed_rows_sql",
        "report",
    ]

    # the split: a row is invalid when it breaks a row-level rule (0-4), not duplicate_count
    def invalid(r):
        return (
            r["customer_id"] is None
            or not 1 <= r["quantity"] <= 100
            or not EMAIL.match(r["email"])  # the named format agrees on these values
        )

    ok = pq.read_table(tmp_path / "ok").to_pylist()
    bad = pq.read_table(tmp_path / "quarantine").to_pylist()
    assert sorted(r["id"] for r in bad) == sorted(r["id"] for r in data if invalid(r))
    assert sorted(r["id"] for r in ok) == sorted(r["id"] for r in data if not invalid(r))
    assert pq.read_table(tmp_path / "ok").column_names == list(data[0])
    negative = [
        json.loads(line)
        for f in (tmp_path / "negative").glob("*.json")
        for line in f.read_text().splitlines()
    ]
    assert negative == [{"id": r["id"], "revenue": r["revenue"]} for r in data if r["revenue"] < 0]
    report = pq.read_table(tmp_path / "report").to_pandas()
    assert list(report.columns) == [c for c in REPORT_COLUMNS if c != "pipeline"] + ["pipeline"]
    assert (tmp_path / "report" / "pipeline=orders").is_dir()
    assert list(report["rule_type"]) == [
        "not_null",
        "range",
        "unique",
        "invalid_count",
        "missing_count",
        "duplicate_count",
        "sql",
    ]
    assert list(report["severity"]) == ["fail", "fail", "pass", "warn", "pass", "pass", "fail"]
    assert list(report["passed"]) == [False, False, True, True, True, True, False]
    assert list(report["check_name"]) == ["", "qty", "", "", "", "", ""]
    # sparquet-cola: a warning metric keeps its counted rows; a passing rule counts 0
    assert list(report["failed_count"]) == [1, 1, 0, 2, 0, 0, 1]
    assert report["metric_value"][6] == 1  # the failed_rows query's row count
    assert report["metric_value"][3] == 2 and report["metric_value"].isna()[0]


def test_on_failure_is_case_sensitive_and_other_errors(tmp_path):
    text = errors(write(tmp_path, BLOCK % "FAIL", "orders.json"))
    assert "expected 'fail', 'warn' or 'skip', got 'FAIL'" in text and "lower case" in text
    assert load(write(tmp_path, BLOCK % "skip", "o2.json")).tables[0].hold_outputs == ()
    cases = [
        (
            '{"validations": {"rules": [{"type": "not_null", "column": "a", "level": "warn"}]}}',
            "has no 'level'",
        ),
        (
            '{"validations": {"rules": [{"type": "not_null", "column": "a", "output": {"format": "json", "path": "./x"}}]}}',
            "'output' applies only to a sql rule with 'failed_rows'",
        ),
        (
            '{"validations": {"rules": [{"type": "row_count", "min": 1}], "outputs": {"valid": {"format": "json", "path": "./x"}}}}',
            "this block has none",
        ),
        (
            '{"validations": {"rules": [{"type": "row_count", "min": 1}], "report": {"format": "json", "path": "./x", "partition_by": ["day"]}}}',
            "cannot partition by 'day'",
        ),
        (
            '{"validations": {"rules": [{"type": "row_count", "min": 1}], "report": {"format": "json", "path": "./x", "mode": "upsert"}}}',
            "unknown save mode 'upsert'",
        ),
        (
            '{"validations": {"rules": [{"type": "row_count", "min": 1}], "report": {"format": "json", "path": "my report"}}}',
            "neither a path",
        ),
        (
            '{"transformations": [], "validations": {"rules": [{"type": "row_count", "min": 1}]}}',
            "'transformations' is a pipeline step",
        ),
        ('{"validations": {"rules": []}}', "expected at least one rule"),
        (
            '{"validations": {"rules": [{"type": "regex", "targets": [{"column": "a", "type": "x"}], "pattern": "x"}]}}',
            "a target cannot carry 'type'",
        ),
        (
            '{"validations": {"rules": [{"type": "regex", "code": "C", "targets": [{"column": "a"}], "pattern": "x"}]}}',
            "'code' cannot sit beside 'targets'",
        ),
    ]
    for body, fragment in cases:
        assert fragment in errors(write(tmp_path, body, "v.json")), fragment


def test_targets_expand_into_one_report_row_each(tmp_path):
    path = write(
        tmp_path,
        """\
        {"validations": {"report": {"format": "csv", "path": "./r"}, "rules": [
          {"type": "regex", "targets": [
             {"column": "cpf", "pattern": "^[0-9]{11}$"},
             {"column": "cnpj", "pattern": "^[0-9]{14}$", "code": "CNPJ"}]},
          {"type": "range", "min": 1, "targets": [{"column": "id", "max": 1000}, {"column": "age", "max": 120}]},
          {"type": "not_null", "targets": [{"column": "a"}, {"column": "b"}, {"column": "c"}]}
        ]}}
        """,
        "multi.json",
    )
    (table,) = load(path).tables
    assert len(table.rules) == 7 and table.outputs[0].rules == tuple(range(7))  # type: ignore[union-attr]
    assert [r.code for r in table.rules[:2]] == [None, "CNPJ"]
    assert table.rules[3].origin.path == "validations.rules[1].targets[1]"


# --- native tables with a validations block, and equivalence -----------------------------


@pytest.mark.spark
def test_a_native_table_carries_a_block_and_matches_the_native_rules(spark, tmp_path, orders):
    native_block = write(
        tmp_path,
        f"""\
        tables:
          - name: orders
            source: {{path: "{orders}"}}
            rules:
              - {{type: row_count, min: 1}}
            validations:
              report: {{format: json, path: ./native_report}}
              rules:
                - {{type: not_null, columns: [customer_id]}}
                - {{type: regex, column: email, pattern: "@"}}
                - {{type: avg, column: revenue, must_be: "> 0"}}
        """,
        "native.yaml",
    )
    (table,) = load(native_block).tables
    assert [r.kind for r in table.rules] == ["row_count", "not_null", "regex", "avg"]
    assert table.hold_outputs == (1, 2, 3) and table.outputs[0].rules == (1, 2, 3)  # type: ignore[union-attr]
    assert table.rules[1].origin.path == "tables[0].validations.rules[0]"
    got = run(spark, load(native_block))
    sparquet_file = write(
        tmp_path,
        '{"validations": {"rules": [{"type": "row_count", "min": 1}, '
        '{"type": "not_null", "columns": ["customer_id"]}, {"type": "regex", "column": "email", '
        '"pattern": "@"}, {"type": "avg", "column": "revenue", "must_be": "> 0"}]}}',
        "orders.json",
    )
    plain = run(spark, load(sparquet_file, source=str(orders)))
    # The block's rules are sparquet's in both; the table's own row_count is native (a
    # passing native row_count has no failed count, sparquet-cola's counts 0).
    assert comparable(got.results)[1:] == comparable(plain.results)[1:]
    assert (got.results[0]["failed_count"], plain.results[0]["failed_count"]) == (None, 0)
    only_rules = (
        native_block.read_text()
        .replace(
            "    validations:\n      report: {format: json, path: ./native_report}\n      rules:\n",
            "",
        )
        .replace("        - {", "      - {")
    )
    native = run(spark, load(write(tmp_path, only_rules, "rules_only.yaml")))
    assert len(native.results) == 4

    def verdicts(results):
        return [(r["passed"], r["severity"], r["metric_value"]) for r in results]

    assert verdicts(native.results) == verdicts(got.results)
    assert got.results[1]["severity"] == "fail", got.results[1]["message"]
    assert not (tmp_path / "native_report").exists()  # on_failure fail held the report


# --- custom rule types -----------------------------------------------------------------------


@pytest.fixture
def no_future_date():
    import importlib

    import tests.dialects.sparquet.no_future_date as module

    importlib.reload(module)
    yield module
    unregister_rule("no_future_date")


@pytest.mark.spark
def test_a_custom_rule_type_from_python(spark, tmp_path, orders, no_future_date):
    assert "no_future_date" in registered()
    path = write(
        tmp_path,
        '{"validations": {"rules": [{"type": "no_future_date", "column": "ordered_at"},'
        ' {"type": "no_future_date", "column": "ordered_at", "tolerance": 1, "name": "lenient"}]}}',
        "orders.json",
    )
    got = run(spark, load(path, source=str(orders)))
    future = sum(r["ordered_at"] > dt.date.today() for r in rows(orders))
    assert [(r["rule"]["type"], r["severity"], r["failed_count"]) for r in got.results] == [
        ("no_future_date", "fail", future),
        ("no_future_date", "pass", future),
    ]
    # without keys a sample is the whole row (the rule's column first): it identifies it
    assert got.results[0]["samples"] == [
        {"ordered_at": "2030-01-01", "id": 5, "customer_id": 5, "quantity": 4,
         "email": "u5@example.com", "revenue": 12.5}
    ]  # fmt: skip
    assert got.summary["spark_plans"] == 2  # the aggregate (both fused) + the detail plan
    bad = write(
        tmp_path,
        '{"validations": {"rules": [{"type": "no_future_date", "column": "id"}]}}',
        "x.json",
    )
    from assay.errors import ConfigErrors

    with pytest.raises(ConfigErrors, match="needs a date or timestamp"):
        run(spark, load(bad, source=str(orders)))


def test_custom_rule_errors(no_future_date, tmp_path):
    import assay

    with pytest.raises(ValueError, match="built-in"):
        assay.register_rule("not_null", lambda p: None)
    path = write(
        tmp_path, '{"validations": {"rules": [{"type": "no_future_date", "colum": "a"}]}}', "x.json"
    )
    assert "unknown key 'colum' (did you mean 'column'?)" in errors(path)
    assay.register_rule("broken", lambda p: 42)
    try:
        path = write(tmp_path, '{"validations": {"rules": [{"type": "broken"}]}}', "y.json")
        assert "its builder returned int" in errors(path)
    finally:
        unregister_rule("broken")


@pytest.mark.spark
def test_cli_plugin_and_source(server, tmp_path, orders):
    """A plugin registers its rule types when imported: each command in a process of its
    own, where no test imported it before."""
    from tests.cli.test_cli import assay as fresh

    path = write(
        tmp_path,
        '{"validations": {"rules": [{"type": "no_future_date", "column": "ordered_at"}]}}',
        "p.json",
    )
    proc = fresh("run", str(path), "--source", str(orders), "--remote", server.url)
    assert proc.returncode == 2 and "unknown rule type 'no_future_date'" in proc.stderr
    proc = fresh(
        "run", str(path), "--source", str(orders), "--remote", server.url,
        "--plugin", "tests.dialects.sparquet.no_future_date", "--pipeline", "nightly",
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout.splitlines()[0])
    assert (result["table"], result["failed_count"]) == ("nightly", 1)
    proc = fresh("run", str(path), "--plugin", "no.such.module", "--remote", "sc://localhost:1")
    assert proc.returncode == 2 and "--plugin no.such.module: cannot import it" in proc.stderr


@pytest.mark.spark
def test_an_output_cannot_overwrite_the_table_being_validated(spark, tmp_path, orders):
    from assay.errors import ConfigErrors

    copy = tmp_path / "data" / "orders.parquet"
    copy.parent.mkdir()
    copy.write_bytes(orders.read_bytes())
    path = write(
        tmp_path,
        '{"validations": {"rules": [{"type": "not_null", "column": "id"}], "outputs": '
        '{"valid": {"format": "parquet", "path": "./data", "mode": "overwrite"}}}}',
        "clobber.json",
    )
    with pytest.raises(ConfigErrors, match="would overwrite the table being validated"):
        run(spark, load(path, source=str(copy)))
    assert copy.exists()


# --- the bundled example, sparquet-cola's thresholds and refusals ---------------------------


@pytest.mark.spark
def test_the_bundled_example_runs_and_writes_its_failed_rows_output(server, tmp_path):
    """Its failed_rows query is folded into the aggregate pass (no SQL query runs), and
    its output still binds _validation_df (it used to exit 3: 'a failed_rows output
    without its SQL')."""
    from tests.conftest import ROOT

    example = ROOT / "examples" / "sparquet" / "orders_validations.json"
    copy = tmp_path / "examples" / "sparquet" / example.name
    copy.parent.mkdir(parents=True)
    copy.write_text(example.read_text())  # ../../build/dq/... lands under tmp_path/build
    data = DATA / "orders.parquet"
    proc = assay("run", str(copy), "--source", str(data), "--remote", server.url)
    assert proc.returncode == 0, proc.stderr  # on_failure: warn
    table = next(json.loads(x) for x in proc.stdout.splitlines() if '"event":"table"' in x)
    assert table["error"] is None
    assert [o["written"] for o in table["outputs"]] == [True] * 4
    big = pq.read_table(tmp_path / "build" / "dq" / "big_orders").to_pylist()
    assert sorted(r["order_id"] for r in big) == sorted(
        r["order_id"] for r in rows(data) if r["quantity"] > 19
    )
    assert len(big) > 0


def _rules(tmp_path, *rules: str):
    body = '{{"validations": {{"rules": [{}]}}}}'.format(", ".join(rules))
    return load(write(tmp_path, body, "v.json")).tables[0].rules


def test_thresholds_in_sparquet_colas_language(tmp_path):
    from decimal import Decimal

    from assay.ir.values import Op

    rules = _rules(
        tmp_path,
        '{"type": "avg", "column": "a", "must_be": "<> 0"}',
        '{"type": "avg", "column": "a", "must_be": "+5"}',
        '{"type": "freshness", "column": "t", "must_be": "< 1H", "warn": "<= 30 M"}',
        '{"type": "avg", "column": "a", "must_be": "NOT BETWEEN .5 AND 1e3"}',
        '{"type": "avg", "column": "a", "condition": "== 1_000"}',
        '{"type": "missing_percent", "column": "a", "must_be": "< 5 %"}',
        '{"type": "avg", "column": "a", "must_be": "between 20 and 10"}',
    )
    musts = [r.check.must for r in rules]  # type: ignore[union-attr]
    assert (musts[0].op, musts[0].value) == (Op.NE, 0)
    assert (musts[1].op, musts[1].value) == (Op.EQ, 5)
    assert musts[2].value == 3600 and rules[2].check.warn.value == 1800  # type: ignore[union-attr]
    assert musts[3].negate and (musts[3].low, musts[3].high) == (Decimal("0.5"), 1000)
    assert musts[4].value == 1000 and rules[4].threshold == "== 1_000"
    assert musts[5].value == 5
    # an inverted range is accepted, as sparquet-cola does: it never holds
    assert not musts[6].holds(15) and not musts[6].holds(25)
    # NaN satisfies only != and not between (doubles compared as in Python)
    nan = float("nan")
    assert musts[0].holds(nan) and musts[3].holds(nan) and not musts[1].holds(nan)


def test_what_sparquet_cola_cannot_run_is_refused_at_config_time(tmp_path):
    cases = [
        ('{"type": "avg", "column": "a", "must_be": 0}', 'quote it: "must_be": "= 0"'),
        ('{"type": "avg", "column": "a", "must_be": "> 0", "warn": 0}', "'warn' must be a string"),
        ('{"type": "avg", "column": "a", "must_be": "> 0", "warn": ""}', "'warn' is empty"),
        ('{"type": "avg", "column": "a", "must_be": "=> 5"}', "'> 5' is not a number"),
        ('{"type": "avg", "column": "a", "must_be": "5x"}', "'5x' is not a number"),
        ('{"type": "avg", "column": "a", "must_be": "between 1 and"}', "is not a number"),
        ('{"type": "not_null", "column": "a", "tolerance": 3}', "sparquet-cola would ignore it"),
        ('{"type": "range", "column": "a", "min": 1, "inclusive": false}', "'inclusive' is not a sparquet key"),
        ('{"type": "avg", "columns": ["a", "b"], "must_be": "> 0"}', "would measure only the first one"),
        ('{"type": "duplicate_count", "must_be": "= 0"}', "every column of the table"),
        ('{"type": "invalid_count", "column": "a", "must_be": "= 0"}', "at least one validity option"),
        ('{"type": "invalid_count", "column": "a", "valid_format": "cep", "must_be": "= 0"}', "unknown format 'cep'"),
        ('{"type": "row_count", "min": 1, "must_be": "> 0"}', "use either 'must_be' or 'min'/'max'"),
        ('{"type": "avg", "column": "a", "must_be": "> 0", "condition": "> 1"}', "another name of 'must_be'"),
        ('{"type": "avg", "column": "a", "metric": "sum", "must_be": "> 0"}', "unknown key 'metric'"),
    ]  # fmt: skip
    for rule, fragment in cases:
        body = f'{{"validations": {{"rules": [{rule}]}}}}'
        assert fragment in errors(write(tmp_path, body, "v.json")), (rule, fragment)
    # the native grammar is unchanged: "<>" and "+5" are still native errors
    native = write(
        tmp_path,
        'tables: [{name: t, source: {table: db.t}, rules: [{type: avg, column: a, must_be: "<> 0"}]}]',
        "n.yaml",
    )
    assert "invalid threshold" in errors(native)


def test_the_rules_carry_sparquet_colas_counting(tmp_path):
    from assay.ir.metrics import GroupMetric
    from assay.ir.rules import MetricCheck, RowCheck, SchemaCheck, SqlCheck, UniqueCheck

    rules = _rules(
        tmp_path,
        '{"type": "not_null", "columns": ["a", "b"]}',
        '{"type": "unique", "columns": ["a"]}',
        '{"type": "duplicate_percent", "columns": ["a", "b"], "must_be": "< 1%"}',
        '{"type": "mean", "column": "a", "must_be": "> 0"}',
        '{"type": "sql", "query": "SELECT 1"}',
        '{"type": "schema", "column_types": {"a": "Long", "b": "decimal(10,2)"}}',
    )
    assert isinstance(rules[0].check, RowCheck) and len(rules[0].check.summed) == 2
    assert isinstance(rules[1].check, UniqueCheck)
    assert (rules[1].check.counted, rules[1].check.nulls) == ("surplus", "none")
    check = rules[2].check
    assert isinstance(check, MetricCheck) and isinstance(check.metric, GroupMetric)
    assert (check.metric.stat, check.metric.nulls) == ("surplus_percent", "none")
    assert rules[3].kind == "mean"  # sparquet-cola's report names the metric as written
    assert isinstance(rules[4].check, SqlCheck) and rules[4].check.reading == "sparquet"
    schema = rules[5].check
    assert isinstance(schema, SchemaCheck) and schema.case_sensitive
    assert schema.types == (("a", "bigint"), ("b", "decimal"))

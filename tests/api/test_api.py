"""The Python API against the real embedded server: results equal the CLI's JSON lines,
plan counts read from the Spark UI equal the CLI's, errors are the project's own."""

from __future__ import annotations

import json
import textwrap
import threading
from pathlib import Path

import pytest

import assay
from assay.errors import (
    ChecksFailed,
    ConfigErrors,
    PreflightError,
    SparkFailure,
    ThresholdSyntaxError,
    UnsupportedSession,
)
from tests.helpers import assay_cli, validate_event

pytestmark = pytest.mark.spark

RULES = [
    {"type": "not_null", "columns": ["id", "amount"]},
    {"type": "unique", "column": "id"},
    {"type": "range", "column": "amount", "min": 0, "max": 90},
    {"type": "regex", "column": "name", "pattern": "^n[0-9]{1,2}$"},
    {"type": "avg", "column": "amount", "must_be": "between 10 and 500", "warn": "< 40"},
    {"type": "missing_percent", "column": "name", "must_be": "< 5%", "level": "warn"},
    {"type": "sql", "query": "SELECT count(*) = 0 FROM _validation_df WHERE amount < 0"},
    {"type": "sql", "failed_rows": "SELECT * FROM _validation_df WHERE name RLIKE '^n9{2}$'"},
]
"""Row rules (two failing: ``range``, and ``regex`` on the null names), a metric with its own warning, a failure at level
warn, SQL over ``_validation_df`` folded and as a query (with braces in it)."""

VOLATILE = ("run_id", "elapsed_ms", "started_at")


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("api") / "t.parquet")
    rows = [(i, f"n{i}" if i % 10 else None, float(i * 2)) for i in range(1, 61)]
    spark.createDataFrame(rows, "id long, name string, amount double").write.parquet(path)
    return path


def config(tmp_path: Path, data: str, rules=RULES, name: str = "t") -> Path:
    table = {"name": name, "source": {"path": data}, "keys": ["id"], "rules": rules}
    path = tmp_path / "checks.json"
    path.write_text(json.dumps({"tables": [table]}))
    return path


def cli(server, *args: str) -> tuple[int, list[dict]]:
    proc = assay_cli("run", *args, "--remote", server.url)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, [json.loads(line) for line in proc.stdout.splitlines()]


def comparable(event: dict, *, location: bool = True) -> dict:
    """An event without what differs between two runs; without ``location`` also what
    differs between rules given in a config file and the same rules given in Python
    (``tables[0].rules[2]`` there, ``rules[2]`` here)."""
    found = {k: v for k, v in event.items() if k not in VOLATILE}
    if found.get("event") == "summary":
        found.pop(
            "server", None
        )  # the CLI names the server it connected to; a caller's session has none
    if not location:
        found.pop("location", None)
        found.pop("source", None)  # a DataFrame here, the file it was read from there
        found.pop("files", None)
        if "exit_reason" in found:
            found["exit_reason"] = found["exit_reason"].replace("tables[0].rules", "rules")
    return found


def executions(server, action):
    before = server.sql_executions()
    out = action()
    return out, server.sql_executions() - before


# --- validate -----------------------------------------------------------------------------


def test_validate_equals_the_cli_run_of_the_same_rules(server, spark, data, tmp_path):
    code, lines = cli(server, str(config(tmp_path, data)))
    result, plans = executions(
        server, lambda: assay.validate(spark.read.parquet(data), RULES, keys=["id"], name="t")
    )
    assert result.exit_code == code == 1
    got = [comparable(d, location=False) for d in result.to_dicts()]
    assert got == [comparable(d, location=False) for d in lines]
    assert result.summary.spark_plans == lines[-1]["spark_plans"] == plans == 2
    assert [r.origin.path for r in result.results] == [f"rules[{i}]" for i in range(len(RULES))]
    for event in result.to_dicts():
        validate_event(event)


def test_plan_counts_read_from_the_spark_ui_equal_the_cli(server, spark, data, tmp_path):
    path = str(config(tmp_path, data))
    (code, lines), cli_plans = executions(server, lambda: cli(server, path))
    result, api_plans = executions(
        server, lambda: assay.validate(spark.read.parquet(data), RULES, keys=["id"], name="t")
    )
    run_result, run_plans = executions(server, lambda: assay.run(path, spark=spark))
    assert cli_plans == api_plans == run_plans == lines[-1]["spark_plans"] == 2
    assert result.summary.spark_plans == run_result.summary.spark_plans == 2


def test_result_reads_as_the_json_lines_say(spark, data):
    result = assay.validate(spark.read.parquet(data), RULES, keys=["id"], name="t")
    assert (result.passed, result.status, result.exit_code) == (False, "FAIL", 1)
    assert [r.rule_type for r in result.failures()] == ["range", "regex"]
    assert [(r.rule_type, r.passed, r.waiver) for r in result.warnings()] == [
        ("avg", True, None),  # its own warn threshold: the condition held
        ("missing_percent", False, "level warn"),  # failed, at level warn
    ]
    failed = result.failures()[0]
    assert failed.failed_count == 15 and failed.blocking
    assert failed.samples is not None and {"id", "amount"} <= set(failed.samples[0])
    assert len(result) == len(RULES) and list(result) == list(result.results)
    assert result.table("t").spark_plans == 2
    lines = result.to_json_lines().splitlines()
    assert [json.loads(line) for line in lines] == result.to_dicts()
    assert result.to_dicts()[-1]["event"] == "summary"
    with pytest.raises(ChecksFailed) as raised:
        result.raise_for_failures()
    assert raised.value.failures == result.failures() == result.blocking()
    assert "range" in str(raised.value) and "rules[2]" in str(raised.value)
    assert raised.value.exit_code == 1


def test_a_passing_run_returns_itself_from_raise_for_failures(spark):
    df = spark.range(5)
    result = assay.validate(df, [{"type": "not_null", "column": "id"}])
    assert result.raise_for_failures() is result
    assert (result.passed, result.status, result.exit_code) == (True, "PASS", 0)
    assert result.results[0].table == "dataframe"


def test_on_failure_warn_waives_the_failures_not_the_verdicts(spark):
    df = spark.range(5)
    rules = [{"type": "range", "column": "id", "max": 2}]
    result = assay.validate(df, rules, on_failure="warn")
    assert (result.passed, result.status, result.exit_code) == (False, "FAIL", 0)
    assert result.failures()[0].waiver == "on_failure: warn"
    assert result.raise_for_failures() is result


def test_filter_and_sample_size_are_the_tables(spark):
    df = spark.range(100)
    rules = [{"type": "range", "column": "id", "max": 10}]
    result = assay.validate(df, rules, filter="id < 50", sample_size=2, keys=["id"])
    failed = result.failures()[0]
    assert (failed.row_count, failed.failed_count, len(failed.samples or ())) == (50, 39, 2)


def test_rules_from_a_config_file_check_the_dataframe(spark, data, tmp_path):
    path = config(tmp_path, data)
    df = spark.read.parquet(data).where("id <= 30")
    result = assay.validate(df, path)
    assert result.results[0].row_count == 30
    assert result.results[0].origin.file == str(path)


def jobs_run(server, action) -> tuple[object, int, int]:
    """``action()``, the SQL executions it added and how many of them ran Spark jobs."""
    import urllib.request

    def listed() -> list[dict]:
        server.sql_executions()  # finds the application id
        url = f"{server.ui_url}/api/v1/applications/{server._app_id}/sql?length=1000000"
        with urllib.request.urlopen(url + "&details=false", timeout=10) as r:
            return json.load(r)

    before = len(listed())
    out = action()
    added = listed()[before:]
    return out, len(added), sum(1 for e in added if e.get("successJobIds"))


def test_sql_that_cannot_fold_binds_the_dataframe_in_executions_without_jobs(server, spark):
    rules = [
        {
            "type": "sql",
            "query": "SELECT count(*) > 0 FROM _validation_df WHERE id IN (SELECT id FROM _validation_df)",
        }
    ]
    result, executions_, with_jobs = jobs_run(
        server, lambda: assay.validate(spark.range(10), rules)
    )
    assert result.summary.spark_plans == with_jobs == 1
    assert executions_ == 3  # Spark records the binding of the DataFrame twice, with no job


def test_no_temp_view_and_no_setting_is_left_behind(spark):
    views = {t.name for t in spark.catalog.listTables()}
    excluded = spark.conf.get("spark.sql.optimizer.excludedRules", None)
    assay.validate(
        spark.range(10), [{"type": "sql", "query": "SELECT count(*) > 0 FROM _validation_df"}]
    )
    assert {t.name for t in spark.catalog.listTables()} == views
    assert spark.conf.get("spark.sql.optimizer.excludedRules", None) == excluded


# --- run ----------------------------------------------------------------------------------


def test_run_equals_the_cli(server, spark, data, tmp_path):
    path = str(config(tmp_path, data))
    code, lines = cli(server, path, "--var", "unused=1")
    result = assay.run(path, spark=spark, vars={"unused": "1"})
    assert result.exit_code == code
    assert [comparable(d) for d in result.to_dicts()] == [comparable(d) for d in lines]


def test_run_streams_events_and_writes_reports(spark, data, tmp_path):
    report = tmp_path / "report.json"
    seen = []
    result = assay.run(
        config(tmp_path, data), spark=spark, json_report=str(report), on_event=seen.append
    )
    assert tuple(seen) == result.events
    assert json.loads(report.read_text())  # the data-validator style report document
    waived = assay.run(config(tmp_path, data), spark=spark, exit_error_on_fail=False)
    assert (waived.status, waived.exit_code) == ("FAIL", 0)


def test_run_resolves_deferred_variables_like_the_cli(server, spark, data, tmp_path):
    path = tmp_path / "dv.yaml"
    path.write_text(
        textwrap.dedent(
            f"""\
            numKeyCols: 1
            numErrorsToReport: 5
            detailedErrors: true
            vars:
              - name: top
                sql: SELECT max(id) FROM parquet.`{data}`
            tables:
              - parquetFile: {data}
                checks:
                  - type: rangeCheck
                    column: id
                    minValue: 1
                    maxValue: $top
                    inclusive: true
            """
        )
    )
    code, lines = cli(server, str(path))
    result = assay.run(path, spark=spark)
    assert result.exit_code == code == 0
    assert [comparable(d) for d in result.to_dicts()] == [comparable(d) for d in lines]


def test_iteration_streams_results_as_tables_finish(spark, data, tmp_path):
    stream = assay.iter_validate(spark.read.parquet(data), RULES, name="t")
    first = next(stream)
    assert first.rule_index == 0
    rest = list(stream)
    assert len(rest) == len(RULES) - 1
    assert stream.result.results == (first, *rest)
    again = assay.iter_run(config(tmp_path, data), spark=spark)
    assert again.result.exit_code == 1


# --- errors -------------------------------------------------------------------------------


def test_a_wrong_rule_is_a_located_config_error(spark):
    with pytest.raises(ConfigErrors) as raised:
        assay.validate(spark.range(3), [{"type": "not_null", "column": "id"}, {"type": "nul"}])
    assert str(raised.value.errors[0].origin) == "<rules> rules[1].type"
    assert raised.value.exit_code == 2


def test_a_bad_threshold_shows_the_caret(spark):
    with pytest.raises(ConfigErrors) as raised:
        assay.validate(spark.range(3), [{"type": "avg", "column": "id", "must_be": "> > 1"}])
    error = raised.value.errors[0]
    assert isinstance(error, ThresholdSyntaxError)
    assert "^" in str(error) and "rules[0].must_be" in str(error)


def test_a_config_file_error_names_file_and_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("tables:\n  - source: {table: t}\n    rules:\n      - {type: nope}\n")
    with pytest.raises(ConfigErrors) as raised:
        assay.run(path)
    assert str(raised.value.errors[0].origin).startswith(f"{path}:4 tables[0].rules[0]")


def test_config_errors_wait_for_an_unreachable_server_only_briefly(tmp_path, monkeypatch):
    """With a remote at hand, a config with errors also has its loaded tables checked on
    the server; one that does not answer within EXTRA_CHECK_TIMEOUT is not waited for."""
    import socket

    from assay.api.running import EXTRA_CHECK_TIMEOUT
    from assay.executor import session

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    asked: list[float] = []
    real = session.open_session

    def recording(*args, **kwargs):
        asked.append(kwargs["connect_timeout"])
        return real(*args, **kwargs)

    monkeypatch.setattr(session, "open_session", recording)
    path = tmp_path / "bad.yaml"
    path.write_text(
        "tables:\n  - source: {table: t}\n    rules:\n      - {type: nope}\n"
        "  - source: {table: u}\n    rules:\n      - {type: row_count, min: 1}\n"
    )
    with pytest.raises(ConfigErrors) as raised:
        assay.run(path, remote=f"sc://127.0.0.1:{port}")
    assert [str(e.origin) for e in raised.value.errors] == [f"{path}:4 tables[0].rules[0].type"]
    assert asked == [EXTRA_CHECK_TIMEOUT] and EXTRA_CHECK_TIMEOUT <= 5


def test_a_rule_that_does_not_fit_the_schema_is_a_preflight_error(spark):
    with pytest.raises(ConfigErrors) as raised:
        assay.validate(spark.range(3), [{"type": "not_null", "column": "nope"}])
    assert isinstance(raised.value.errors[0], PreflightError)
    assert "hint: columns: id" in str(raised.value)


def test_a_source_spark_cannot_read_is_a_spark_failure(spark, tmp_path):
    path = tmp_path / "c.json"
    missing = str(tmp_path / "missing.parquet")
    table = {"source": {"path": missing}, "rules": [{"type": "row_count", "min": 1}]}
    path.write_text(json.dumps({"tables": [table]}))
    result = assay.run(path, spark=spark)  # the table is an error; the run is reported
    assert (result.status, result.exit_code) == ("ERROR", 3)
    assert "missing.parquet" in result.tables[0].error
    with pytest.raises(SparkFailure) as raised:
        result.raise_for_failures()
    assert "missing.parquet" in str(raised.value)


def test_a_query_failing_at_run_time_is_an_error_result(spark):
    df = spark.range(3).selectExpr("id", "CAST(raise_error('boom') AS int) AS x")
    result = assay.validate(df, [{"type": "max", "column": "x", "must_be": "> 0"}])
    assert (result.status, result.exit_code) == ("ERROR", 3)
    assert result.errors()[0].severity == "error"
    with pytest.raises(SparkFailure) as raised:
        result.raise_for_failures()
    assert "boom" in str(raised.value)


def test_a_classic_dataframe_is_refused_up_front():
    from pyspark.sql.classic.dataframe import DataFrame

    classic = object.__new__(DataFrame)  # no JVM started: the type is what is checked
    with pytest.raises(UnsupportedSession) as raised:
        assay.validate(classic, [{"type": "not_null", "column": "id"}])
    assert "classic" in str(raised.value) and "spark.api.mode" in str(raised.value)
    assert 'remote("sc://' in str(raised.value) and raised.value.exit_code == 2


def test_a_classic_session_is_refused_up_front(tmp_path):
    from pyspark.sql.session import SparkSession

    classic = object.__new__(SparkSession)
    with pytest.raises(UnsupportedSession, match="classic SparkSession"):
        assay.run(tmp_path / "never-read.yaml", spark=classic)
    with pytest.raises(UnsupportedSession, match="expected a Spark Connect DataFrame"):
        assay.validate("not a frame", [])  # type: ignore[arg-type]


# --- concurrency --------------------------------------------------------------------------


def test_threads_validate_dataframes_concurrently_on_one_session(spark, data, tmp_path):
    excluded = spark.conf.get("spark.sql.optimizer.excludedRules", None)
    path = config(tmp_path, data)
    results: dict[int, object] = {}
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            if i % 2:
                df = spark.read.parquet(data).where(f"id <= {10 * (i + 1)}")
                results[i] = assay.validate(df, RULES, keys=["id"], name=f"t{i}")
            else:
                results[i] = assay.run(path, spark=spark)
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i, result in results.items():
        rows = 10 * (i + 1) if i % 2 else 60
        assert {r.row_count for r in result.results} == {rows}  # type: ignore[attr-defined]
        assert len({r.run_id for r in result.results}) == 1  # type: ignore[attr-defined]
    assert spark.conf.get("spark.sql.optimizer.excludedRules", None) == excluded


# --- validators and explain ---------------------------------------------------------------


def no_future_ids(df, params):
    failed = df.where(f"{params['column']} > {params['max']}").count()
    return assay.ValidatorResult(failed == 0, f"{failed} ids above {params['max']}", failed)


@pytest.fixture
def validator():
    assay.register_validator("ids_at_most", no_future_ids, plans=1, keys=("column", "max"))
    yield "ids_at_most"
    assay.unregister_validator("ids_at_most")


def test_a_validator_costs_its_declared_plans(server, spark, validator):
    rules = [
        {"type": "not_null", "column": "id"},
        {"type": validator, "column": "id", "max": 7},
        {"type": "row_count", "min": 1},
    ]
    result, plans = executions(server, lambda: assay.validate(spark.range(10), rules))
    assert [r.rule_type for r in result.results] == ["not_null", validator, "row_count"]
    got = result.results[1]
    assert (got.passed, got.failed_count, got.message) == (False, 2, "2 ids above 7")
    assert got.blocking and result.exit_code == 1
    assert result.summary.spark_plans == plans == 2  # the fused plan + the validator's count


def test_a_validator_that_raises_is_an_error_result(spark):
    def broken(df, params):
        raise RuntimeError("oops")

    assay.register_validator("broken_check", broken, keys=())
    try:
        result = assay.validate(spark.range(3), [{"type": "broken_check"}])
    finally:
        assay.unregister_validator("broken_check")
    assert result.errors()[0].message == "validator broken_check raised RuntimeError: oops"
    assert result.exit_code == 3


def test_explain_shows_the_validators_plans(validator, tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(
        "tables:\n  - name: t\n    source: {table: t}\n    rules:\n"
        "      - {type: not_null, column: id}\n"
        f"      - {{type: {validator}, column: id, max: 3}}\n"
    )
    text = assay.explain(path)
    assert "validators: 1 Python functions, not fused" in text
    assert f"[1] {validator}: 1 Spark plans" in text
    assert text.rstrip().endswith(
        "1 tables, 2 Spark plans when every rule passes (+1 per table whose row-level rules fail)"
    )


def test_the_api_without_traps(spark):
    """One rule dict is a list of one, a string key is one column, a Result is truthy
    exactly when the run exits 0, an unknown table names the tables there are."""
    import assay

    df = spark.createDataFrame([(1, "a"), (2, None)], "order_id int, s string")
    result = assay.validate(df, {"type": "not_null", "column": "s"}, keys="order_id")
    assert len(result) == 1 and result.results[0].failed_count == 1
    assert result.results[0].samples == ({"order_id": 2, "s": None},)
    assert not result and result.exit_code == 1
    assert assay.validate(df, [{"type": "not_null", "column": "order_id"}])
    with pytest.raises(KeyError, match="no table 'nope' in this run .its tables: 'dataframe'"):
        result.table("nope")

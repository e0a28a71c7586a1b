"""OpenLineage events: made from a real run's lines (tests/report/data/openlineage.yaml,
saved as openlineage.jsonl: column metrics measured, rules over other rows, failing and
warning rules, an unreadable table, a comparison), valid against the spec's schemas,
written as JSON lines and POSTed to a loopback OpenLineage server."""

from __future__ import annotations

import copy
import datetime as dt
import json
from pathlib import Path

import pytest

import assay
from assay.report.history import load_runs
from assay.report.openlineage import (
    dataset_of,
    json_lines,
    openlineage_events,
    run_uuid,
)
from assay.report.openlineage_metrics import measured
from tests.conftest import ROOT
from tests.report.lineage import endpoint, load_schemas, refused_url
from tests.report.test_cli import assay as assay_cli

DATA = Path(__file__).parent / "data"
RUN = DATA / "openlineage.jsonl"
ORDERS = str(ROOT / "examples/data/orders.parquet")


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    """The saved run, its data named by this checkout's absolute paths (saved as @ROOT@)."""
    here = tmp_path_factory.mktemp("lineage") / RUN.name
    here.write_text(RUN.read_text().replace("@ROOT@", str(ROOT)))
    return here


@pytest.fixture(scope="module")
def events(saved) -> list[dict]:
    [run] = load_runs([saved])
    return run


@pytest.fixture(scope="module")
def lineage(events) -> list[dict]:
    return openlineage_events(events)


def by_job(lineage: list[dict]) -> dict[str, dict]:
    return {e["job"]["name"]: e for e in lineage}


# --- the spec -----------------------------------------------------------------------------


def test_every_event_and_facet_validates_against_the_published_schemas(lineage):
    schemas = load_schemas()
    assert [schemas.errors(e) for e in lineage] == [[], [], []]
    wrong = copy.deepcopy(lineage[0])
    wrong["run"]["runId"] = "3f2a9c1b7d10"  # assay's run id is no UUID
    wrong["eventTime"] = "yesterday"
    del wrong["inputs"][0]["inputFacets"]["dataQualityAssertions"]["assertions"][0]["success"]
    found = " | ".join(schemas.errors(wrong))
    assert "is not a 'uuid'" in found and "is not a 'date-time'" in found
    assert "dataQualityAssertions: 'success' is a required property" in found


def test_a_run_event_per_table_in_config_order_then_per_comparison(events, lineage):
    summary = events[-1]
    assert [(e["eventType"], e["job"]["namespace"], e["job"]["name"]) for e in lineage] == [
        ("COMPLETE", "assay", "openlineage.orders"),
        ("FAIL", "assay", "openlineage.returns"),
        ("COMPLETE", "assay", "openlineage.orders_copy"),
    ]
    ended = dt.datetime.fromisoformat(summary["started_at"]) + dt.timedelta(
        milliseconds=summary["elapsed_ms"]
    )
    assert {dt.datetime.fromisoformat(e["eventTime"]) for e in lineage} == {ended}
    assert {e["producer"] for e in lineage} == {"https://pypi.org/project/spark-assay/0.1.0/"}
    ids = [e["run"]["runId"] for e in lineage]
    assert ids[0] == run_uuid(summary["run_id"], "table", "orders") and len(set(ids)) == 3
    assert openlineage_events(events) == lineage  # the same lines, the same events
    job_type = lineage[0]["job"]["facets"]["jobType"]
    assert (job_type["processingType"], job_type["integration"], job_type["jobType"]) == (
        "BATCH",
        "ASSAY",
        "TABLE",
    )


def test_a_tables_input_is_its_source_with_every_rule_as_an_assertion(lineage):
    [dataset] = by_job(lineage)["openlineage.orders"]["inputs"]
    assert (dataset["namespace"], dataset["name"]) == ("file", ORDERS)
    assertions = dataset["inputFacets"]["dataQualityAssertions"]["assertions"]
    assert [(a["assertion"], a["success"], a.get("column")) for a in assertions] == [
        ("not_null", True, "order_id"),
        ("not_null", False, "coupon"),  # a warning (level warn) did not pass
        ("missing_count", True, "email"),
        ("missing_count", True, "status"),
        ("regex", False, "email"),
        ("distinct_count", True, "customer_id"),
        ("distinct_count", True, "customer_id"),
        ("min", True, "amount"),
        ("max", True, "quantity"),
        ("sum", True, "quantity"),
        ("min", True, "quantity"),
        ("median", True, "amount"),
        ("colstats", True, "quantity"),
        ("row_count", True, None),
        ("sql", True, None),
    ]
    regex = assertions[4]
    assert regex["name"] == "email looks like an email" and regex["actual"] == "3"
    assert regex["description"].startswith("email is not null and email matches ^[^@")
    assert assertions[7] | {"_": 0} == {
        "assertion": "min",
        "success": True,
        "column": "amount",
        "description": "min(amount) > 0",
        "expected": "> 0",
        "actual": "2.97",
        "params": {"column": "amount", "must_be": "> 0"},
        "_": 0,
    }
    sql = assertions[14]
    assert (sql["contentType"], sql["content"]) == (
        "sql",
        "SELECT count(*) = 0 FROM _validation_df WHERE amount <= 0",
    )


def test_metrics_are_the_row_count_and_what_the_rules_measured_over_the_table(lineage):
    [dataset] = by_job(lineage)["openlineage.orders"]["inputs"]
    metrics = dataset["inputFacets"]["dataQualityMetrics"]
    assert metrics["rowCount"] == 1000
    assert metrics["columnMetrics"] == {
        "order_id": {"nullCount": 0},  # not_null over two columns, no row failing
        "customer_id": {"nullCount": 0, "distinctCount": 200},
        "coupon": {"nullCount": 691},  # the warn-level not_null's failing rows
        "email": {"nullCount": 0},  # missing_count
        "amount": {"min": 2.97, "quantiles": {"0.5": 260.28}},  # min, median
        "quantity": {"max": 20, "sum": 10796, "count": 1000, "min": 1.0},  # max, sum, colstats
    }
    # missing_values counts "" too, a distinct count of pairs is no column's: no metric
    assert "status" not in metrics["columnMetrics"]


def test_a_rule_over_other_rows_or_not_evaluated_measures_no_column_metric(events):
    rules = {(e["rule"]["type"], e["rule_index"]): e for e in events if e["event"] == "result"}
    filtered = rules[("min", 10)]
    assert filtered["expect"]["params"]["filter"] == "status = 'shipped'"
    assert list(measured(filtered)) == []
    assert list(measured({**filtered, "expect": None})) == []  # lines saved before `expect`
    unfiltered = {**filtered, "expect": {"params": {"column": "quantity", "must_be": ">= 1"}}}
    assert list(measured(unfiltered)) == [("quantity", "min", 1)]
    assert list(measured({**unfiltered, "severity": "error"})) == []


def test_a_table_that_could_not_be_read_fails_with_its_error(lineage):
    event = by_job(lineage)["openlineage.returns"]
    error = event["run"]["facets"]["errorMessage"]
    assert error["programmingLanguage"] == "PYTHON"
    assert "cannot read its source: [PATH_NOT_FOUND]" in error["message"]
    [dataset] = event["inputs"]
    assert dataset["name"] == str(ROOT / "examples/data/no_such_returns.parquet")
    assert "dataQualityMetrics" not in dataset["inputFacets"]  # nothing was measured
    [rule] = dataset["inputFacets"]["dataQualityAssertions"]["assertions"]
    assert (rule["assertion"], rule["success"]) == ("row_count", False)
    assert rule["description"].startswith("not evaluated: table returns")


def test_a_comparison_checks_the_target_against_the_source(lineage):
    source, target = by_job(lineage)["openlineage.orders_copy"]["inputs"]
    assert (source["name"], target["name"]) == (ORDERS, ORDERS)
    assert source["inputFacets"]["dataQualityMetrics"]["rowCount"] == 1000
    assert target["inputFacets"]["dataQualityMetrics"]["rowCount"] == 990  # target_filter
    assert "dataQualityAssertions" not in source["inputFacets"]
    checks = target["inputFacets"]["dataQualityAssertions"]["assertions"]
    assert [(c["assertion"], c["success"], c.get("column"), c["actual"]) for c in checks] == [
        ("missing_in_target", False, None, "10"),
        ("mismatch_percent", True, "amount", "0.0"),
        ("duplicate_keys", True, None, "0"),  # (source) is a side, not a column
    ]
    assert checks[1]["name"] == "mismatch_percent(amount)" and checks[1]["expected"] == "= 0"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("parquet data/orders.parquet", ("file", "data/orders.parquet")),
        ("parquet /lake/orders", ("file", "/lake/orders")),
        ("parquet file:/lake/orders", ("file", "/lake/orders")),
        ("parquet file://nas/lake/orders", ("file://nas", "/lake/orders")),
        ("delta s3a://lake/dq/orders", ("s3://lake", "dq/orders")),
        ("csv hdfs://nn:8020/raw/o.csv header=true sep=;", ("hdfs://nn:8020", "/raw/o.csv")),
        ("parquet gs://bucket/o/", ("gs://bucket", "o/")),
        ("table sales.orders", ("spark_catalog", "sales.orders")),
        ("table glue.sales.orders", ("glue", "sales.orders")),
        ("sql SELECT * FROM sales.orders WHERE x = 1", ("inmemory://", "cfg.t")),
        ("dataframe (given to assay.validate)", ("inmemory://", "cfg.t")),
        ("json /a.json, /b.json", ("inmemory://", "cfg.t")),
        (None, ("inmemory://", "cfg.t")),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_a_sources_dataset_follows_the_openlineage_naming(source, expected):
    assert dataset_of(source, "cfg.t") == expected


# --- outputs ------------------------------------------------------------------------------


def test_assay_report_writes_json_lines_and_posts_each_event(saved, events, lineage, tmp_path):
    out = tmp_path / "lineage.jsonl"
    env = {"OPENLINEAGE_API_KEY": "s3cret", "OPENLINEAGE_NAMESPACE": "dq-prod"}
    with endpoint() as server:
        done = assay_cli(
            "report",
            str(saved),
            "--openlineage",
            str(out),
            "--openlineage-url",
            server.url,
            env=env,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # an output option: no Markdown on stdout
    expected = openlineage_events(events, "dq-prod")
    assert out.read_bytes() == json_lines(expected)
    assert server.bodies == expected
    assert {path for path, _, _ in server.received} == {"/api/v1/lineage"}
    headers = [h for _, h, _ in server.received]
    assert {h["Authorization"] for h in headers} == {"Bearer s3cret"}
    assert {h["Content-Type"] for h in headers} == {"application/json"}
    assert f"sent 3 OpenLineage events to {server.url}/api/v1/lineage" in done.stderr


def test_the_url_from_the_environment_and_its_endpoint_as_the_client_joins_them(saved, events):
    with endpoint() as server:
        env = {"OPENLINEAGE_URL": server.url + "/lineage/", "OPENLINEAGE_ENDPOINT": "v1/events"}
        done = assay_cli("report", str(saved), "--openlineage-namespace", "mine", env=env)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("## assay report")  # no output option given
        assert {p for p, _, _ in server.received} == {"/lineage/v1/events"}
        assert "Authorization" not in server.received[0][1]
        assert server.bodies == openlineage_events(events, "mine")
        off = assay_cli("report", str(saved), env={**env, "OPENLINEAGE_DISABLED": "true"})
        assert off.returncode == 0 and len(server.received) == 3


@pytest.mark.parametrize("answer", ["refused", "500"])
def test_a_post_that_fails_is_exit_3_with_what_happened(saved, answer, tmp_path):
    out = tmp_path / "lineage.jsonl"
    with endpoint(status=500, answer=b'{"code":500,"message":"db down"}') as server:
        url = refused_url() if answer == "refused" else server.url
        done = assay_cli("report", str(saved), "--openlineage", str(out), "--openlineage-url", url)
    assert done.returncode == 3
    assert "Traceback" not in done.stderr and out.is_file()  # the file was written first
    [line] = [x for x in done.stderr.splitlines() if x.startswith("error:")]
    target = f"{url}/api/v1/lineage"
    if answer == "refused":
        assert line == (
            f"error: OpenLineage: POST {target}: the connection was refused (is the "
            "OpenLineage server running at that URL?) (0 of 3 events were sent)"
        )
    else:
        assert line == (
            f"error: OpenLineage: POST {target}: the server answered HTTP 500 Internal Server "
            'Error: {"code":500,"message":"db down"} (0 of 3 events were sent)'
        )


def test_a_server_that_does_not_answer_in_time_fails_the_post():
    from assay.report.openlineage_http import Lineage, LineageFailure, post_events

    with endpoint(delay=1.0) as server:
        slow = Lineage(url=server.url, timeout=0.2)
        with pytest.raises(LineageFailure, match=r"no answer within 0.2 s \(0 of 1 events"):
            post_events([{"eventType": "COMPLETE"}], slow)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--openlineage-url", "marquez:5000"], "--openlineage-url 'marquez:5000' is not an HTTP"),
        (["--openlineage", "/no/such/dir/x.jsonl"], "--openlineage /no/such/dir/x.jsonl: cannot"),
    ],
)
def test_a_wrong_output_is_exit_2_before_anything_is_read(args, message):
    done = assay_cli("report", "no-such-run.jsonl", *args)
    assert done.returncode == 2 and message in done.stderr


@pytest.mark.spark
def test_assay_run_posts_the_events_of_its_own_lines(server, tmp_path):
    """A real run: the events it POSTs and writes are those of the JSON lines it
    printed (exit 1: a rule fails on purpose; the POSTs do not change that)."""
    out = tmp_path / "lineage.jsonl"
    with endpoint() as lineage_server:
        done = assay_cli(
            "run", "examples/orders.yaml", "--remote", server.url,
            "--openlineage", str(out), "--openlineage-url", lineage_server.url,
            env={"OPENLINEAGE_API_KEY": "k"},
        )  # fmt: skip
    assert done.returncode == 1, done.stderr
    printed = [json.loads(line) for line in done.stdout.splitlines()]
    expected = openlineage_events(printed)
    assert lineage_server.bodies == expected
    assert out.read_bytes() == json_lines(expected)
    assert [e["job"]["name"] for e in expected] == ["orders.orders", "orders.customers"]
    assert {h["Authorization"] for _, h, _ in lineage_server.received} == {"Bearer k"}
    customers = expected[1]["inputs"][0]["inputFacets"]["dataQualityMetrics"]
    assert customers == customers | {"rowCount": 200}
    assert customers["columnMetrics"] == {"name": {"nullCount": 0}, "country": {"nullCount": 0}}


@pytest.mark.spark
def test_assay_run_from_python_reports_a_failed_post_as_exit_3(spark, tmp_path):
    result = assay.run(
        ROOT / "examples/orders.yaml",
        spark=spark,
        openlineage=str(tmp_path / "lineage.jsonl"),
        openlineage_url=refused_url(),
    )
    assert result.summary.exit_code == 1 and result.exit_code == 3
    [problem] = result.report_problems
    assert problem.startswith("OpenLineage: POST http://127.0.0.1:")
    assert "connection was refused" in problem
    lines = (tmp_path / "lineage.jsonl").read_bytes()
    assert lines == json_lines(openlineage_events([e.to_dict() for e in result.events]))


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"openlineage_url": "ftp://marquez"}, "openlineage-url 'ftp://marquez' is not an HTTP"),
        ({"openlineage": "/no/such/dir/x.jsonl"}, "--openlineage /no/such/dir/x.jsonl: cannot"),
    ],
)
def test_assay_run_refuses_a_wrong_output_before_spark_starts(keywords, message, monkeypatch):
    monkeypatch.setattr("assay.api.running._session", lambda *a: pytest.fail("Spark started"))
    with pytest.raises(assay.ConfigError, match=message):
        assay.run(ROOT / "examples/orders.yaml", **keywords)

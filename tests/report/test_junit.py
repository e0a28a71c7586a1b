"""The JUnit XML report: made from a real run's events (tests/report/data/ci.yaml, saved as
ci.jsonl: passing, failing, warn-level, errored rules, an unreadable table and a
comparison), valid against Jenkins's schema and read back by junitparser."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
import xmlschema
from junitparser import Error, Failure, JUnitXml

from assay.report.history import load_runs
from assay.report.junit import junit_xml, suites_of
from tests.report.test_cli import assay

DATA = Path(__file__).parent / "data"
SCHEMA = xmlschema.XMLSchema(DATA / "jenkins-junit.xsd")
CI = DATA / "ci.jsonl"


@pytest.fixture(scope="module")
def events() -> list[dict]:
    [run] = load_runs([CI])
    return run


def read(tmp_path: Path, data: bytes) -> JUnitXml:
    path = tmp_path / "junit.xml"
    path.write_bytes(data)
    SCHEMA.validate(str(path))
    return JUnitXml.fromfile(str(path))


def cases(suite) -> dict[str, object]:
    return {case.name: case for case in suite}


def test_a_suite_per_table_and_comparison_with_the_counts_of_its_cases(events, tmp_path):
    xml = read(tmp_path, junit_xml(events))
    suites = {s.name: s for s in xml}
    assert list(suites) == ["orders", "returns", "orders_copy"]
    counts = {n: (s.tests, s.failures, s.errors, s.skipped) for n, s in suites.items()}
    assert counts == {"orders": (6, 1, 1, 0), "returns": (2, 0, 2, 0), "orders_copy": (2, 1, 0, 0)}
    summary = events[-1]
    assert all(s.timestamp == summary["started_at"][:19] for s in suites.values())
    table = next(e for e in events if e.get("table") == "orders" and e["event"] == "table")
    assert suites["orders"].time == pytest.approx(table["elapsed_ms"] / 1000)
    properties = {p.name: p.value for p in suites["orders"].properties()}
    assert properties["row_count"] == "1000" and properties["keys"] == "order_id"
    assert properties["location"] == "tests/report/data/ci.yaml:6 tables[0]"


def test_a_failing_rule_is_a_failure_with_its_message_expectation_and_samples(events, tmp_path):
    orders = cases(next(s for s in read(tmp_path, junit_xml(events)) if s.name == "orders"))
    assert list(orders) == [
        "not_null(order_id)",
        "email looks like an email",
        "not_null(coupon)",
        "missing_percent(coupon)",
        "emails are numbers",
        "avg(amount)",
    ]
    assert all(c.classname == "orders" for c in orders.values())
    [failure] = orders["email looks like an email"].result
    assert isinstance(failure, Failure) and failure.type == "fail"
    assert failure.message == "3 of 1000 rows fail: regex (email)"
    assert "failed_count: 3\nrow_count: 1000" in failure.text
    assert "location: tests/report/data/ci.yaml:13 tables[0].rules[1]" in failure.text
    assert '{"order_id":18,"email":"customer17.example.com"}' in failure.text
    assert orders["not_null(order_id)"].is_passed and orders["avg(amount)"].is_passed
    assert "metric_value: 256.53221" in orders["avg(amount)"].system_out


def test_a_warning_passes_and_says_so_in_its_output(events, tmp_path):
    orders = cases(next(s for s in read(tmp_path, junit_xml(events)) if s.name == "orders"))
    level = orders["not_null(coupon)"]
    assert level.is_passed and level.system_out.startswith("warning (failed, level warn): 691")
    metric = orders["missing_percent(coupon)"]
    assert metric.is_passed and metric.system_out.startswith(
        "warning (passed, outside its warn threshold)"
    )
    assert "metric_value: 69.1" in metric.system_out


def test_errors_are_errors_and_an_unreadable_table_is_a_case_of_its_own(events, tmp_path):
    suites = {s.name: s for s in read(tmp_path, junit_xml(events))}
    [error] = cases(suites["orders"])["emails are numbers"].result
    assert isinstance(error, Error) and error.type == "error"
    assert "CAST_INVALID_INPUT" in error.message
    returns = cases(suites["returns"])
    # lines saved before results carried their identity: the type and its expectation
    assert list(returns) == ["row_count (>= 1)", "(table)"]
    [table] = returns["(table)"].result
    assert isinstance(table, Error) and "PATH_NOT_FOUND" in table.message
    assert all(c.is_error for c in returns.values())


def test_a_comparison_has_a_case_per_check(events, tmp_path):
    suite = next(s for s in read(tmp_path, junit_xml(events)) if s.name == "orders_copy")
    checks = cases(suite)
    [failure] = checks["missing_in_target"].result
    assert failure.message == "missing_in_target = 10; must be = 0"
    assert "expected: = 0" in failure.text and "samples, missing_in_target:" in failure.text
    assert checks["matched_percent"].is_passed
    assert checks["matched_percent"].system_out.startswith("warning: matched_percent = 99")
    properties = {p.name: p.value for p in suite.properties()}
    assert properties["missing_in_target"] == "10" and properties["target_rows"] == "990"


def test_markup_control_characters_and_shared_names_stay_valid(events, tmp_path):
    """A rule name that is markup, a message with a control character XML cannot hold,
    and two rules of one name: the file still validates, names are told apart."""
    nasty = '<script>&"quoted"]]> \x1b[31m ünï'
    changed = copy.deepcopy(events)
    first = next(e for e in changed if e["event"] == "result" and e["severity"] == "fail")
    first["rule"]["name"] = nasty
    first["message"] = "bad \x00 byte\nsecond line"
    twin = copy.deepcopy(first)
    twin["rule_index"] = 99
    changed.insert(changed.index(first) + 1, twin)
    suite = next(s for s in read(tmp_path, junit_xml(changed)) if s.name == "orders")
    named = [c for c in suite if c.name.startswith("<script>")]
    escaped = nasty.replace("\x1b", "\\x1b")
    assert [c.name for c in named] == [f"{escaped} #1", f"{escaped} #99"]
    [failure] = named[0].result
    assert failure.message == "bad \\x00 byte\nsecond line"


def test_a_stream_cut_before_its_summary_has_no_timestamp(events, tmp_path):
    cut = [e for e in events if e["event"] != "summary"]
    assert all(s.timestamp is None for s in suites_of(cut))
    assert [s.name for s in read(tmp_path, junit_xml(cut))] == ["orders", "returns", "orders_copy"]


def test_assay_report_writes_it_atomically_and_nothing_else(events, tmp_path):
    out = tmp_path / "out.xml"
    done = assay("report", str(CI), "--junit", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # --junit given: no Markdown on stdout
    assert out.read_bytes() == junit_xml(events)
    assert sorted(os.listdir(tmp_path)) == ["out.xml"]  # no temp sibling left behind


@pytest.mark.parametrize("where", ["missing/out.xml", "."])
def test_a_junit_path_that_cannot_be_written_exits_2_naming_it(tmp_path, where):
    target = tmp_path / where
    for command in (["report", str(CI)], ["run", "examples/orders.yaml"]):
        done = assay(*command, "--junit", str(target))
        assert done.returncode == 2, done.stderr
        assert f"--junit {target}: cannot write it" in done.stderr
        assert done.stdout == ""
    assert sorted(os.listdir(tmp_path)) == []


@pytest.mark.spark
def test_assay_run_writes_the_junit_report_of_its_own_events(server, tmp_path):
    """A real run: the file is the report of the JSON lines it printed; in a GitHub
    Actions step the summary is appended to the job summary and the annotations go to
    stderr, stdout staying JSON lines."""
    out, summary = tmp_path / "junit.xml", tmp_path / "summary.md"
    summary.write_text("## an earlier step's summary\n")
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    done = assay(
        "run", "tests/report/data/ci.yaml", "--remote", server.url, "--junit", str(out), env=env
    )
    assert done.returncode == 3, done.stderr
    printed = [json.loads(line) for line in done.stdout.splitlines()]
    assert out.read_bytes() == junit_xml(printed)
    read(tmp_path, out.read_bytes())
    text = summary.read_text()
    assert text.startswith("## an earlier step's summary\n") and "## assay report: ERROR" in text
    errors = [line for line in done.stderr.splitlines() if line.startswith("::error ")]
    warnings = [line for line in done.stderr.splitlines() if line.startswith("::warning ")]
    assert (len(errors), len(warnings)) == (5, 2)
    assert "file=tests/report/data/ci.yaml,line=13," in errors[0]

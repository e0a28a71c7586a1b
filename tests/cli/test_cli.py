"""The CLI as users run it (a real subprocess): exit codes, stdout JSON lines only,
clear errors on stderr without tracebacks."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.helpers import validate_event

pytestmark = pytest.mark.spark


def assay(
    *args: str, timeout: float = 300, env: dict | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    full_env.pop("SPARK_REMOTE", None)
    return subprocess.run(
        [sys.executable, "-m", "assay", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=full_env,
    )


def json_lines(stdout: str) -> list[dict]:
    events = [json.loads(line) for line in stdout.splitlines()]
    for event in events:
        validate_event(event)
    return events


def assert_clean_error(
    proc: subprocess.CompletedProcess[str],
    code: int,
    *fragments: str,
    check: bool = False,
    stopped: bool = False,
) -> None:
    """A clean failure: its exit code, nothing on stdout (``check``: only its one
    ``check`` line, invalid; ``stopped``: a run past its config's validation, only its
    summary, saying it stopped), the fragments on stderr, no traceback."""
    assert proc.returncode == code, proc.stderr
    if check:
        (line,) = json_lines(proc.stdout)
        assert line["event"] == "check" and line["valid"] is False and line["problems"]
    elif stopped:
        (line,) = json_lines(proc.stdout)
        assert (line["event"], line["exit_code"], line["stopped"]) == ("summary", code, "error")
    else:
        assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    for fragment in fragments:
        assert fragment in proc.stderr


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("cli") / "t.parquet")
    rows = [(i, f"n{i}" if i % 10 else None) for i in range(1, 51)]
    spark.createDataFrame(rows, "id long, name string").write.parquet(path)
    return path


def cfg(tmp_path: Path, data: str, *rules: str, extra: str = "") -> Path:
    body = "".join(f"      - {r}\n" for r in rules)
    text = f'tables:\n  - name: t\n    source: {{path: "{data}"}}\n    keys: [id]\n{extra}    rules:\n{body}'
    path = tmp_path / "checks.yaml"
    path.write_text(text)
    return path


def test_passing_run_exits_0_with_json_lines(server, data, tmp_path):
    path = cfg(tmp_path, data, "{type: unique, column: id}", "{type: row_count, min: 50}")
    proc = assay("run", str(path), "--remote", server.url)
    assert proc.returncode == 0, proc.stderr
    events = json_lines(proc.stdout)
    assert [e["event"] for e in events] == ["result", "result", "table", "summary"]
    assert events[-1]["status"] == "PASS" and events[-1]["spark_plans"] == 1
    assert "Traceback" not in proc.stderr


def test_failing_run_exits_1_with_samples(server, data, tmp_path):
    proc = assay(
        "run", str(cfg(tmp_path, data, "{type: not_null, column: name}")), "--remote", server.url
    )
    assert proc.returncode == 1, proc.stderr
    result = json_lines(proc.stdout)[0]
    assert result["failed_count"] == 5
    assert result["samples"] == [{"id": i, "name": None} for i in (10, 20, 30, 40, 50)]


def test_sample_size_option(server, data, tmp_path):
    path = cfg(tmp_path, data, "{type: not_null, column: name}")
    proc = assay("run", str(path), "--remote", server.url, "--sample-size", "2")
    assert [s["id"] for s in json_lines(proc.stdout)[0]["samples"]] == [10, 20]


def test_config_error_exits_2_naming_file_and_path(tmp_path, data):
    path = cfg(tmp_path, data, "{type: not_null, colums: [name]}")
    proc = assay("run", str(path), "--remote", "sc://localhost:1")
    assert_clean_error(proc, 2, "checks.yaml", "tables[0].rules[0]", "colums", "did you mean")


def test_bad_threshold_shows_caret(tmp_path, data):
    path = cfg(tmp_path, data, "{type: avg, column: id, must_be: 'betwen 1 and 2'}")
    proc = assay("check", str(path))
    assert_clean_error(proc, 2, "tables[0].rules[0]", "^", check=True)


def test_missing_column_is_reported_before_any_scan(server, data, tmp_path):
    rules = "{type: not_null, column: nme}", "{type: regex, column: id, pattern: x}"
    before = server.sql_executions()
    proc = assay("run", str(cfg(tmp_path, data, *rules)), "--remote", server.url)
    assert_clean_error(
        proc,
        2,
        "tables[0].rules[0]",
        "'nme'",
        "did you mean 'name'",
        "tables[0].rules[1]",
        "bigint",
    )
    assert server.sql_executions() == before


def test_missing_source_exits_3(server, tmp_path):
    proc = assay(
        "run",
        str(cfg(tmp_path, str(tmp_path / "nope.parquet"), "{type: row_count, min: 1}")),
        "--remote",
        server.url,
    )
    # the table is an error, with a result per rule, a table line and the summary
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr and "cannot read its source" in proc.stderr
    events = json_lines(proc.stdout)
    assert [e["event"] for e in events] == ["result", "table", "summary"]
    assert events[0]["severity"] == "error" and "cannot read its source" in events[1]["error"]
    assert events[1]["location"]["path"] == "tables[0]" and events[2]["exit_code"] == 3


def test_unreachable_server_exits_3_quickly(tmp_path, data):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    proc = assay(
        "run",
        str(cfg(tmp_path, data, "{type: row_count, min: 1}")),
        "--remote",
        f"sc://localhost:{port}/;token=s3cr3t",
        # the refusal's retries take half of it (12 s of the default 30 s: bounded, as
        # tests/executor/test_session.py's test of the retry policy says)
        env={"ASSAY_CONNECT_TIMEOUT": "4"},
    )
    assert time.monotonic() - start < 30
    assert_clean_error(proc, 3, f"localhost:{port}", stopped=True)
    assert "s3cr3t" not in proc.stderr + proc.stdout


def test_bad_var_syntax_is_a_usage_error(tmp_path, data):
    proc = assay("check", str(cfg(tmp_path, data, "{type: row_count, min: 1}")), "--var", "novalue")
    assert_clean_error(proc, 2, "NAME=VALUE", check=True)


def test_check_and_explain_need_no_spark(tmp_path, data):
    path = cfg(
        tmp_path, data, "{type: not_null, column: name}", "{type: sql, query: 'SELECT true'}"
    )
    proc = assay("check", str(path))
    assert proc.returncode == 0, proc.stderr
    assert json_lines(proc.stdout) == [
        {
            "event": "check",
            "schema_version": 1,
            "valid": True,
            "files": [str(path)],
            "tables": 1,
            "rules": 2,
            "comparisons": 0,
            "problems": [],
        }
    ]
    proc = assay("explain", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "spark plans: 1 (+1 detail plan if a row-level rule fails)" in proc.stdout
    proc = assay("explain", str(path), "--format", "json")
    assert json_lines(proc.stdout)[0]["spark_plans"] == 1


def json_lines_plain(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_missing_config_file(tmp_path):
    assert_clean_error(assay("run", str(tmp_path / "none.yaml")), 2, "none.yaml")


def test_readme_example_on_the_embedded_server():
    proc = assay("run", "examples/orders.yaml")
    assert proc.returncode == 1, proc.stderr
    events = json_lines(proc.stdout)
    failed = [e for e in events if e["event"] == "result" and e["severity"] == "fail"]
    assert [(e["table"], e["rule"]["type"], e["failed_count"]) for e in failed] == [
        ("orders", "regex", 3)
    ]
    assert [s["order_id"] for s in failed[0]["samples"]] == [18, 424, 912]
    warned = [e for e in events if e["event"] == "result" and e["severity"] == "warn"]
    assert [e["rule"]["type"] for e in warned] == ["missing_percent"]
    assert events[-1] == {**events[-1], "event": "summary", "exit_code": 1, "tables": 2}
    assert "Traceback" not in proc.stderr


def test_missing_java_exits_3_with_what_to_install(tmp_path, data):
    empty = tmp_path / "nojava"
    (empty / "bin").mkdir(parents=True)
    path = cfg(tmp_path, data, "{type: row_count, min: 1}")
    env = {"JAVA_HOME": str(empty), "PATH": os.path.dirname(sys.executable)}
    proc = assay("run", str(path), env=env)
    assert_clean_error(proc, 3, "Java", "17", stopped=True)


def test_progress_goes_to_stderr_only(server, data, tmp_path):
    path = cfg(tmp_path, data, "{type: not_null, column: name}")
    proc = assay("run", str(path), "--remote", server.url, "--progress")
    assert proc.returncode == 1
    json_lines(proc.stdout)  # stdout still parses line by line
    assert "t: aggregate plan" in proc.stderr and "t: detail plan" in proc.stderr


def test_explain_into_a_closed_pipe_exits_quietly(tmp_path, data):
    # enough tables that the plan text overflows the pipe once the reader has gone
    tables = "\n".join(
        f"  - name: t{i}\n    source: {{path: '{data}'}}\n    rules:\n"
        + "\n".join(f"      - {{type: not_null, column: name, name: r{j}}}" for j in range(40))
        for i in range(60)
    )
    path = tmp_path / "many.yaml"
    path.write_text("tables:\n" + tables + "\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "assay", "explain", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()  # what `| head -1` reads
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141  # 128 + SIGPIPE, as a shell reports it
    assert first.startswith(b"table t0")
    assert err == "", err


def test_a_table_failing_at_run_time_says_why_on_stderr_without_a_terminal(server, tmp_path):
    # the source fails only when its rows are computed (after preflight): exit 3
    path = tmp_path / "boom.yaml"
    path.write_text(
        "tables:\n  - name: boom\n"
        "    source: {sql: \"SELECT id, assert_true(id < 5, 'id too large') AS ok FROM range(10)\"}\n"
        "    rules:\n      - {type: not_null, column: ok}\n      - {type: row_count, min: 1}\n"
    )
    proc = assay("run", str(path), "--remote", server.url)
    assert proc.returncode == 3, proc.stderr
    events = json_lines(proc.stdout)
    table = next(e for e in events if e["event"] == "table")
    summary = events[-1]
    assert table["errors"] == 2 == summary["errors"]  # the table line and the summary agree
    assert table["error"].startswith("Spark failed during table boom's aggregate plan: ")
    assert "id too large" in table["error"]
    assert all(
        e["message"] == "not evaluated: table boom's aggregate plan failed (see its table line)"
        for e in events
        if e["event"] == "result"
    )
    # stderr is not a terminal; the table's place leads the line
    where = f"{table['location']['file']}:{table['location']['line']} {table['location']['path']}"
    assert f"error: {where}: table boom: {table['error']}" in proc.stderr
    assert "assay: exit 3: 2 rules could not be evaluated (tables boom)" in proc.stderr
    assert "Traceback" not in proc.stderr and "JVM stacktrace" not in proc.stderr


def test_a_failing_run_says_why_it_exits_1_on_stderr(server, data, tmp_path):
    proc = assay(
        "run", str(cfg(tmp_path, data, "{type: not_null, column: name}")), "--remote", server.url
    )
    assert proc.returncode == 1
    assert "assay: exit 1: 1 failed rule fails the run (t tables[0].rules[0])" in proc.stderr

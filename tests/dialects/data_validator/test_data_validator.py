"""target/data-validator configs through the data-validator dialect: the README's own
configs, every field, variables (incl. the shell opt-in), errors, and results equal to the
same rules written natively and to expectations computed in Python."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from pathlib import Path

import pytest

from assay.config import read_document
from assay.dialects import data_validator as dv
from assay.dialects import detect
from assay.errors import VariableError
from assay.grammar import substitute
from assay.ir import CatalogSource, Col, Compare, Lit, Op, PathSource, RowCheck
from assay.ir.origin import UNKNOWN
from assay.ir.outputs import EmailReport, ReportFile, ReportPipe
from tests.dialects.helpers import DATA, comparable, errors, load, people, run, write
from tests.helpers import assay_cli as assay

HERE = Path(__file__).parent
README = HERE / "readme_example.yaml"
LOCAL = HERE / "local_validators.yaml"
EXAMPLE = HERE.parents[2] / "examples" / "data_validator" / "people.yaml"


# --- the README's configs --------------------------------------------------------------------


def test_the_readme_example_parses(monkeypatch):
    monkeypatch.setenv("JAVA_HOME", "/opt/java")
    suite = load(README, allow_shell=True)
    (table,) = suite.tables
    assert suite.dialects == ("data-validator",)
    assert table.source == CatalogSource("census_income.adult")
    assert table.filter == "educationNum >= 5"
    assert table.keys == ("age", "occupation") and table.key_count is None
    assert (table.sample_size, table.detail) == (5, True)
    assert [r.kind for r in table.rules] == [
        "row_count", "negative_check", "colstats", "not_null",
        "string_length_check", "string_regex_check", "string_regex_check",
    ]  # fmt: skip
    assert [d.name for d in suite.deferred] == ["TODAY", "MAX_AGE"]
    assert [d.kind for d in suite.deferred] == ["shell", "sql"]
    file, pipe, email = suite.reports
    assert file == ReportFile("/user/home/sample.json", True, file.origin)
    assert isinstance(pipe, ReportPipe) and pipe.command == "/path/to/program" and pipe.ignore_error
    assert isinstance(email, EmailReport)
    assert email.to == ("person1@example.com",)
    assert email.cc == ("person2@example.com", "person3@example.com")
    assert email.bcc == ("person4@example.com",)


def test_local_validators_parses():
    (table,) = load(LOCAL).tables
    assert table.source == PathSource("orc", (str(HERE / "testData.orc"),))
    assert table.keys == () and table.key_count == 2
    assert [r.kind for r in table.rules] == ["row_count", "not_null"]


def test_assay_check_on_the_readme_configs():
    proc = assay("check", "--allow-shell", str(README), str(LOCAL), env={"JAVA_HOME": "/opt/java"})
    assert proc.returncode == 0, proc.stderr
    event = json.loads(proc.stdout)
    assert event["tables"] == 2 and event["rules"] == 9
    assert event["unresolved_variables"] == ["TODAY", "MAX_AGE"]


# --- the shell opt-in ------------------------------------------------------------------------


def shell_config(tmp_path: Path, command: str) -> Path:
    return write(
        tmp_path,
        f"""\
        numKeyCols: 1
        numErrorsToReport: 1
        detailedErrors: false
        vars:
          - name: OUT
            shell: {json.dumps(command)}
        tables:
          - orcFile: {DATA / "people.orc"}
            condition: "name <> '$OUT'"
            checks:
              - {{type: rowCount, minNumRows: 1}}
        """,
    )


def test_shell_without_the_flag_is_refused_and_never_runs(tmp_path):
    sentinel = tmp_path / "SENTINEL"
    path = shell_config(tmp_path, f"touch {sentinel}; echo x")
    text = errors(path)
    assert "variable 'OUT' runs a shell command" in text and "--allow-shell" in text
    proc = assay("run", str(path), "--remote", "sc://localhost:1")
    assert proc.returncode == 2 and "'OUT'" in proc.stderr and proc.stdout == ""
    assert "DATA_VALIDATOR_STATUS=FAIL" in proc.stderr
    assert not sentinel.exists()


def test_shell_with_the_flag_takes_the_first_line(tmp_path):
    path = shell_config(tmp_path, "printf 'first\\nsecond\\n'")
    suite = load(path, allow_shell=True)
    assert [d.name for d in suite.deferred] == ["OUT"]
    values = dv.resolve_deferred(suite.deferred, {}, _no_sql)
    assert values == {"OUT": "first"}
    (table,) = load(path, allow_shell=True, variables=values).tables
    assert table.filter == "name <> 'first'"


def _no_sql(text, var):
    raise AssertionError("no sql variable here")


def test_a_variable_value_never_executes(tmp_path, monkeypatch):
    sentinel = tmp_path / "SENTINEL"
    path = write(
        tmp_path,
        f"""\
        numKeyCols: 1
        numErrorsToReport: 1
        detailedErrors: false
        vars:
          - name: X
            value: "; touch {sentinel}"
          - name: Y
            shell: echo "[$X]" $(echo ${{X}})
        tables:
          - orcFile: {DATA / "people.orc"}
            checks: [{{type: rowCount, minNumRows: 1}}]
        """,
    )
    suite = load(path, allow_shell=True)
    values = dv.resolve_deferred(suite.deferred, {}, _no_sql)
    assert values["Y"] == f"[; touch {sentinel}] ; touch {sentinel}"
    # the same through --vars
    values = dv.resolve_deferred(suite.deferred, {"X": f"`touch {sentinel}`"}, _no_sql)
    assert values["Y"].startswith(f"[`touch {sentinel}`]")
    assert not sentinel.exists()


def test_commands_get_a_scrubbed_environment(tmp_path, monkeypatch):
    from assay.config import shell

    monkeypatch.setenv("SPARK_CONNECT_AUTHENTICATE_TOKEN", "s3cr3t")
    monkeypatch.setenv("MY_DB_PASSWORD", "hunter2")
    monkeypatch.setenv("PLAIN_SETTING", "kept")
    done = shell.run_command(
        'echo "${SPARK_CONNECT_AUTHENTICATE_TOKEN:-none} ${MY_DB_PASSWORD:-none} $PLAIN_SETTING"'
    )
    assert done.first_line() == "none none kept"
    with pytest.raises(shell.CommandTimeout):
        shell.run_command("sleep 20", timeout=0.5)
    assert shell.run_command("cat", stdin=b"fed").stdout == "fed"


def test_a_failing_or_silent_command_is_a_variable_error(tmp_path):
    for command, message in (("exit 3", "exited with status 3"), ("true", "printed nothing")):
        suite = load(shell_config(tmp_path, command), allow_shell=True)
        with pytest.raises(VariableError, match=message):
            dv.resolve_deferred(suite.deferred, {}, _no_sql)


def test_shell_commands_cannot_use_reserved_names(tmp_path):
    path = write(
        tmp_path,
        f"""\
        numKeyCols: 1
        numErrorsToReport: 1
        detailedErrors: false
        vars:
          - {{name: PATH, value: /tmp}}
          - {{name: OUT, shell: "ls $PATH"}}
        tables:
          - orcFile: {DATA / "people.orc"}
            checks: [{{type: rowCount, minNumRows: 1}}]
        """,
    )
    assert "cannot use $PATH" in errors(path, allow_shell=True)


# --- substitution ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$x", "X"),
        ("${x}y", "Xy"),
        ("$xy", None),  # $xy is the variable xy: unknown
        ("price > $1", "price > $1"),  # $ + digit: not a variable
        ("${${x}}", "${X}"),  # the inner reference only, as data-validator's regex finds it
        ("$$x", "$X"),  # no escape in data-validator: $$x is '$' then $x
        ("${x", "${x"),  # unclosed: literal
        ("^[a-z]+$", "^[a-z]+$"),
        ("$x_1-$x", "V-X"),  # longest name, never the prefix of another
        ("${D}x", "$x"),  # the escape idiom: a variable whose value is '$'
    ],
)
def test_substitution(text, expected):
    variables = {"x": "X", "x_1": "V", "D": "$"}
    if expected is None:
        with pytest.raises(VariableError, match='unknown variable "xy"'):
            substitute(text, variables, UNKNOWN, escapes=False)
    else:
        assert substitute(text, variables, UNKNOWN, escapes=False) == expected


def test_values_are_inserted_verbatim_never_re_expanded():
    assert substitute("$a", {"a": "$b", "b": "no"}, UNKNOWN, escapes=False) == "$b"


def dv_config(tmp_path, checks: str, extra: str = "", table: str = "") -> Path:
    return write(
        tmp_path,
        f"""\
        numKeyCols: 1
        numErrorsToReport: 2
        detailedErrors: true
        {extra}
        tables:
          - orcFile: {DATA / "people.orc"}
            {table}
            checks:
        """.rstrip(" ")
        + "\n".join(f"              - {c}" for c in checks.strip().splitlines()),
    )


def test_variables_in_sources_validators_and_row_count(tmp_path):
    extra = "vars:\n          - {name: N, value: 5}\n          - {name: C, value: age}\n"
    path = dv_config(
        tmp_path,
        "{type: rangeCheck, column: $C, minValue: $N, maxValue: '${N}0'}\n"
        "{type: columnMaxCheck, column: '${C}', value: '$N'}",
        extra=extra,
        table="condition: 'age > $N'",
    )
    (table,) = load(path).tables
    assert table.filter == "age > 5"
    check = table.rules[0].check
    assert isinstance(check, RowCheck)
    assert Compare(Op.LE, Col("age"), Lit(5)) in check.failing.items[0].items  # type: ignore[union-attr]
    assert table.rules[1].check.value == 5  # type: ignore[union-attr]
    # rowCount substitutes too (data-validator 1ef847b, "add variable substitution for
    # minNumRows"; its README still says it does not)
    counted = dv_config(tmp_path, "{type: rowCount, minNumRows: $N}", extra=extra)
    (table,) = load(counted).tables
    assert table.rules[0].threshold == ">= 5"


def test_unknown_variables_are_errors(tmp_path):
    path = dv_config(tmp_path, "{type: nullCheck, column: $missing}")
    assert 'unknown variable "missing"' in errors(path)


def test_command_line_variables_override(tmp_path):
    extra = "vars:\n          - {name: C, value: age}\n"
    path = dv_config(tmp_path, "{type: nullCheck, column: $C}", extra=extra)
    (table,) = load(path, variables={"C": "name"}).tables
    assert table.rules[0].columns == ("name",)


def test_sql_variables_are_deferred(tmp_path):
    extra = (
        "vars:\n          - {name: T, value: people}\n"
        "          - {name: M, sql: 'SELECT max(age) FROM $T'}\n"
    )
    path = dv_config(
        tmp_path,
        "{type: rangeCheck, column: age, maxValue: $M}\n{type: nullCheck, column: name}",
        extra=extra,
    )
    suite = load(path)
    assert [(d.name, d.kind, d.bindings) for d in suite.deferred] == [
        ("M", "sql", (("T", "people"),))
    ]
    assert suite.unresolved_rules == 1 and len(suite.tables[0].rules) == 1
    seen = []
    values = dv.resolve_deferred(suite.deferred, {}, lambda q, v: seen.append(q) or "77")
    assert seen == ["SELECT max(age) FROM people"] and values == {"M": "77"}
    assert len(load(path, variables=values).tables[0].rules) == 2


# --- mapping and errors ----------------------------------------------------------------------


def test_global_settings_and_every_source(tmp_path, monkeypatch):
    monkeypatch.setenv("DV_TEST_DIR", str(DATA))
    path = write(
        tmp_path,
        """\
        numKeyCols: 3
        numErrorsToReport: 7
        detailedErrors: false
        vars:
          - {name: D, env: DV_TEST_DIR}
        tables:
          - {db: sales, table: orders, keyColumns: [id], checks: [{type: nullCheck, column: id}]}
          - {parquetFile: $D/people.parquet, checks: [{type: nullCheck, column: id}]}
          - {parquetFile: $D/people.parquet, condition: "id > 1", checks: [{type: nullCheck, column: id}]}
          - format: csv
            options: {header: true, sep: ","}
            loadData: [$D/people.csv]
            checks: [{type: nullCheck, column: id}]
          - {format: noop, checks: [{type: nullCheck, column: id}]}
        """,
    )
    tables = load(path).tables
    assert [t.name for t in tables] == ["sales.orders", "people", "people_2", "people_3", "noop_4"]
    assert tables[0].keys == ("id",) and tables[0].key_count is None
    assert tables[1].key_count == 3 and (tables[1].sample_size, tables[1].detail) == (7, False)
    assert tables[2].filter == "id > 1"
    assert tables[3].source == PathSource(
        "csv", (str(DATA / "people.csv"),), (("header", "true"), ("sep", ","))
    )
    assert tables[4].source == PathSource("noop")


@pytest.mark.parametrize(
    ("checks", "fragment"),
    [
        (
            "{type: nulCheck, column: id}",
            "unknown check type 'nulCheck' (did you mean 'nullCheck'?)",
        ),
        ("{type: nullCheck, colum: id}", "unknown key 'colum' (did you mean 'column'?)"),
        ("{type: rangeCheck, column: id}", "Must defined minValue or maxValue or both."),
        (
            "{type: rangeCheck, column: id, minValue: 5, maxValue: 1}",
            "minValue (5) must be less than maxValue (1)",
        ),
        (
            "{type: stringLengthCheck, column: name}",
            "Must define minLength or maxLength or both.",
        ),
        (
            "{type: nullCheck, column: id, threshold: 'lots'}",
            "checks[0].threshold: Threshold `lots` not parsable.",
        ),
        ("{type: rowCount, minNumRows: 0}", "minNumRows must be a natural number, got 0"),
        ("{type: uniqueCheck, column: id}", "unknown key 'column' (did you mean 'columns'?)"),
        (
            "{type: columnSumCheck, column: balance}",
            "columnSumCheck needs 'minValue', 'maxValue' or both",
        ),
    ],
)
def test_check_errors_name_data_validator_keys(tmp_path, checks, fragment):
    text = errors(dv_config(tmp_path, checks))
    assert fragment in text and "tables[0].checks[0]" in text


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (
            "tables:\n  - {orcFile: a.orc, parquetFile: b.parquet, checks: [{type: rowCount, minNumRows: 1}]}",
            "exactly one source",
        ),
        (
            "tables:\n  - {table: t, checks: [{type: rowCount, minNumRows: 1}]}",
            "'table' needs 'db'",
        ),
        ("tables:\n  - {orcFile: a.orc, checks: []}", "expected at least one check"),
        (
            "tables:\n  - {orcFile: a.orc, loadData: [x], checks: [{type: rowCount, minNumRows: 1}]}",
            "'loadData' applies only with 'format'",
        ),
        (
            "vars:\n  - {name: V, env: DV_SURELY_UNSET_42}\ntables: []",
            "environment variable 'DV_SURELY_UNSET_42' is not set",
        ),
        (
            "vars:\n  - {name: V, value: 1, sql: x}\ntables: []",
            "exactly one of value, env, shell, sql",
        ),
        (
            "vars:\n  - {name: V, value: 1}\n  - {name: V, value: 2}\ntables: []",
            "variable 'V' is defined twice",
        ),
        (
            "outputs:\n  - {filename: 'hdfs://nn/x.json'}\ntables: []",
            "only local files are supported",
        ),
        ("outputs:\n  - {pipe: cat}\ntables: []", "pipes the report to a shell command"),
        (
            "email: {smtpHost: h, subject: s, from: nobody, to: [a@b.c]}\ntables: []",
            "'nobody' is not an email address",
        ),
        (
            "email: {smtpHost: h, subject: s, from: a@b.c, to: []}\ntables: []",
            "expected a list of email addresses, got an empty list",
        ),
    ],
)
def test_file_errors(tmp_path, monkeypatch, body, fragment):
    monkeypatch.delenv("DV_SURELY_UNSET_42", raising=False)
    head = "numKeyCols: 1\nnumErrorsToReport: 1\ndetailedErrors: true\n"
    assert fragment in errors(write(tmp_path, head + body))


def test_missing_global_settings(tmp_path):
    text = errors(
        write(
            tmp_path, "tables:\n  - {orcFile: a.orc, checks: [{type: rowCount, minNumRows: 1}]}\n"
        )
    )
    for key in ("numKeyCols", "numErrorsToReport", "detailedErrors"):
        assert f"missing required key '{key}'" in text


def test_detection_and_the_no_match_error(tmp_path):
    assert detect(read_document(README)) == "data-validator"
    assert detect(read_document(LOCAL)) == "data-validator"
    text = errors(write(tmp_path, "checks: [1]\n"))
    for shape in ("native assay config", "data-validator config", "Metorikku", "sparquet"):
        assert shape in text
    assert "--dialect native|data-validator|metorikku|sparquet" in text
    forced = errors(
        write(tmp_path, "tables:\n  - {source: {sql: x}, rules: []}\n"), dialect="data-validator"
    )
    assert "missing required key 'numKeyCols'" in forced


# --- results (Spark) -------------------------------------------------------------------------

EVERY_CHECK = """\
{type: rowCount, minNumRows: 50}
{type: nullCheck, column: name}
{type: nullCheck, column: name, threshold: "1"}
{type: negativeCheck, column: balance}
{type: rangeCheck, column: age, minValue: 18, maxValue: 77, inclusive: true}
{type: rangeCheck, column: age, minValue: 18, maxValue: 77}
{type: rangeCheck, column: end_date, minValue: "`start_date"}
{type: stringLengthCheck, column: code, minLength: 4, maxLength: 4}
{type: stringRegexCheck, column: code, regex: "^C[0-9]{3}$", threshold: "5%"}
{type: uniqueCheck, columns: [dept]}
{type: columnSumCheck, column: balance, minValue: 0, maxValue: 100000}
{type: columnMaxCheck, column: age, value: 77}
{type: colstats, column: age}
"""

NATIVE = f"""\
sample_size: 2
tables:
  - name: people
    source: {{path: "{DATA / "people.orc"}"}}
    keys: [id]
    rules:
      - {{type: row_count, min_num_rows: 50}}
      - {{type: not_null, column: name}}
      - {{type: not_null, column: name, tolerance: 1}}
      - {{type: negative_check, column: balance}}
      - {{type: range_check, column: age, min_value: 18, max_value: 77, inclusive: true}}
      - {{type: range_check, column: age, min_value: 18, max_value: 77}}
      - {{type: range_check, column: end_date, min_value: "`start_date"}}
      - {{type: string_length_check, column: code, min_length: 4, max_length: 4}}
      - {{type: string_regex_check, column: code, regex: "^C[0-9]{{3}}$", tolerance: "5%"}}
      - {{type: unique, columns: [dept]}}
      - {{type: column_sum_check, column: balance, min_value: 0, max_value: 100000}}
      - {{type: column_max_check, column: age, value: 77}}
      - {{type: colstats, column: age}}
"""


@pytest.fixture(scope="module")
def dv_and_native(spark, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dv")
    got = run(spark, load(dv_config(tmp, EVERY_CHECK, table="keyColumns: [id]")))
    native = run(spark, load(write(tmp, NATIVE, "native.yaml")))
    return got, native


@pytest.mark.spark
def test_the_same_rules_natively_give_identical_results(dv_and_native):
    got, native = dv_and_native
    # all but uniqueCheck, which counts duplicated values where native unique counts rows
    same = [r for r in comparable(got.results) if r["rule_index"] != 9]
    assert same == [r for r in comparable(native.results) if r["rule_index"] != 9]
    assert comparable(got.events[-2:-1]) == comparable(native.events[-2:-1])


@pytest.mark.spark
def test_results_match_expectations_computed_in_python(dv_and_native):
    got, _ = dv_and_native
    rows = people()
    r = {e["rule_index"]: e for e in got.results}
    nulls = sum(p["name"] is None for p in rows)
    negative = [p["id"] for p in rows if p["balance"] < 0]
    inclusive_out = sum(not 18 <= p["age"] <= 77 for p in rows)
    exclusive_out = sum(not 18 < p["age"] < 77 for p in rows)
    dates = [p["id"] for p in rows if p["end_date"] <= p["start_date"]]
    lengths = sum(len(p["code"]) != 4 for p in rows)
    depts = Counter(p["dept"] for p in rows)  # a null dept is a value, as in groupBy
    duplicated_depts = sum(n > 1 for n in depts.values())
    regex = sum(
        not (p["code"][0] == "C" and p["code"][1:].isdigit() and len(p["code"]) == 4) for p in rows
    )
    expected = [
        ("pass", None), ("fail", nulls), ("pass", nulls), ("fail", len(negative)),
        ("pass", inclusive_out), ("fail", exclusive_out), ("fail", len(dates)),
        ("fail", lengths), ("pass", regex), ("fail", duplicated_depts),
    ]  # fmt: skip
    assert [(r[i]["severity"], r[i]["failed_count"]) for i in range(10)] == expected
    assert [s["id"] for s in r[3]["samples"]] == negative[:2]
    assert [s["id"] for s in r[6]["samples"]] == dates
    total = sum(p["balance"] for p in rows)
    assert r[10]["severity"] == "pass" and r[10]["metric_value"] == pytest.approx(total)
    assert r[11]["severity"] == "pass" and r[11]["metric_value"] == max(p["age"] for p in rows)
    ages = [p["age"] for p in rows]
    details = r[12]["details"]
    assert details["count"] == len(ages) and details["mean"] == pytest.approx(statistics.mean(ages))
    assert details["stdDev"] == pytest.approx(statistics.stdev(ages))
    assert sum(b["count"] for b in details["histogram"]["bins"]) == len(ages)


@pytest.mark.spark
def test_num_key_cols_and_detailed_errors(spark, tmp_path):
    path = write(
        tmp_path,
        f"""\
        numKeyCols: 2
        numErrorsToReport: 1
        detailedErrors: true
        tables:
          - orcFile: {DATA / "people.orc"}
            checks: [{{type: negativeCheck, column: balance}}]
        """,
    )
    (result,) = run(spark, load(path)).results
    assert result["samples"] == [{"id": 3, "name": "person3", "balance": -5.0}]
    path.write_text(path.read_text().replace("detailedErrors: true", "detailedErrors: false"))
    got = run(spark, load(path))
    assert got.results[0]["samples"] is None and got.summary["spark_plans"] == 1


# --- the CLI: exit codes, status line, reports ----------------------------------------------


@pytest.mark.spark
def test_example_run_status_line_and_reports(server, tmp_path):
    json_report, html_report = tmp_path / "report.json", tmp_path / "report.html"
    proc = assay(
        "run", str(EXAMPLE), "--remote", server.url, "--exitErrorOnFail", "false",
        "--jsonReport", str(json_report), "--htmlReport", str(html_report),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "DATA_VALIDATOR_STATUS=FAIL"
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert "DATA_VALIDATOR_STATUS" not in proc.stdout
    failed = [(e["table"], e["rule_index"]) for e in events if e.get("severity") == "fail"]
    assert failed == [("people", 2), ("people", 4)]
    ranged = next(e for e in events if e.get("rule_index") == 3 and e["table"] == "people")
    assert ranged["severity"] == "pass"  # minValue: $MIN_AGE from the sql variable
    summary = events[-1]
    # --exitErrorOnFail false is the run's policy: the verdicts stay, the exit code is 0
    assert (summary["status"], summary["exit_code"], summary["blocking"]) == ("FAIL", 0, 0)
    assert summary["exit_reason"].endswith("(2 under --exitErrorOnFail false)")
    report = json.loads(json_report.read_text())
    assert report["status"] == "FAIL" and report["events"] == events
    page = html_report.read_text()
    results = [e for e in events if e["event"] == "result"]
    assert page.startswith("<!DOCTYPE html>") and page.count('<tr class="rule ') == len(results)
    assert "negative_check" in page and "<td>-5.0</td>" in page  # a sample's balance


@pytest.mark.spark
def test_outputs_file_append_pipe_and_exit_codes(server, tmp_path):
    existing = tmp_path / "history.json"
    existing.write_text('{"old": true}\n')
    piped = tmp_path / "piped.json"
    path = write(
        tmp_path,
        f"""\
        numKeyCols: 1
        numErrorsToReport: 1
        detailedErrors: true
        vars:
          - {{name: DIR, value: "{tmp_path}"}}
          - {{name: WHO, shell: "echo person1"}}
        outputs:
          - filename: $DIR/history.json
            append: true
          - filename: local://{tmp_path}/fresh.json
          - pipe: cat > "$DIR/piped.json"
        tables:
          - orcFile: {DATA / "people.orc"}
            condition: name = '$WHO'
            checks: [{{type: rowCount, minNumRows: 1}}]
        """,
    )
    proc = assay("run", str(path), "--remote", server.url, "--allow-shell")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "DATA_VALIDATOR_STATUS=PASS"
    lines = existing.read_text().splitlines()
    assert lines[0] == '{"old": true}' and json.loads(lines[1])["status"] == "PASS"
    assert json.loads((tmp_path / "fresh.json").read_text())["summary"]["tables"] == 1
    assert json.loads(piped.read_text())["events"][0]["row_count"] == 1
    # an output that cannot be written: exit 2 before anything runs
    before = server.sql_executions()
    bad = path.read_text().replace(
        f"local://{tmp_path}/fresh.json", f"{tmp_path}/no/such/dir/x.json"
    )
    path.write_text(bad)
    proc = assay(
        "run", str(path), "--remote", server.url, "--allow-shell", "--exitErrorOnFail", "false"
    )
    assert proc.returncode == 2 and "does not exist" in proc.stderr and proc.stdout == ""
    assert "DATA_VALIDATOR_STATUS=FAIL" in proc.stderr
    assert server.sql_executions() == before


def test_exit_error_on_fail_takes_true_or_false(tmp_path):
    proc = assay("run", str(EXAMPLE), "--exitErrorOnFail", "maybe", "--remote", "sc://localhost:1")
    assert proc.returncode == 2 and "--exitErrorOnFail must be true or false" in proc.stderr


# --- email ----------------------------------------------------------------------------------


def test_email_is_sent_through_smtp(tmp_path):
    from assay.report.files import send_email
    from tests.dialects.smtp import FakeSmtp

    with FakeSmtp() as smtp:
        report = EmailReport(
            f"127.0.0.1:{smtp.port}", "DQ", "dv@example.com", ("a@example.com",),
            ("c@example.com",), ("b@example.com",), UNKNOWN,
        )  # fmt: skip
        send_email(report, "<p>hi</p>")
    (mail,) = smtp.messages
    assert mail["from"] == "dv@example.com"
    assert mail["to"] == ["a@example.com", "c@example.com", "b@example.com"]
    assert "Subject: DQ" in mail["data"] and "<p>hi</p>" in mail["data"]
    assert "b@example.com" not in mail["data"]  # bcc is not a header

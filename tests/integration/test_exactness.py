"""Exact numbers on data built to break them: each case was once wrong (a hang, a wrong
count, a rounded number), and the expected values are computed here, independently."""

from __future__ import annotations

import pytest

from tests.helpers import run_config, write_config

pytestmark = pytest.mark.spark


def config(path: str, rules: list[str], keys: str | None = "[id]") -> str:
    body = "\n".join(f"      - {r}" for r in rules)
    keyed = f"\n    keys: {keys}" if keys else ""
    return f"""
tables:
  - name: t
    source: {{path: {path}, format: parquet}}{keyed}
    rules:
{body}
"""


@pytest.fixture(scope="module")
def strings(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("strings") / "s.parquet")
    rows = [(1, "ABC", " true "), (2, "xB", "Y\n"), (3, "A", "\ttrue"), (4, "zzz", "N\r\n"),
            (5, None, "maybe"), (6, "x\u2028y", "t r u e")]  # fmt: skip
    spark.createDataFrame(rows, "id int, s string, b string").write.parquet(path)
    return path


@pytest.mark.parametrize("n", [16, 24])
def test_many_sql_rules_that_do_not_fold_finish(spark, tmp_path, strings, n):
    """Every unfolded SQL rule is a branch of one union, not a scalar subquery: 16 or more
    subqueries of one query exhausted Spark's subquery pool and hung the server."""
    where = "WHERE id IS NOT NULL"  # a WHERE keeps the comparison of aggregates a query
    rules = [
        f'{{type: sql, query: "SELECT max(id) < {k} FROM _validation_df {where}"}}'
        for k in range(n)
    ]
    sink = run_config(spark, write_config(tmp_path, config(strings, rules)))
    verdicts = [r["passed"] for r in sorted(sink.results, key=lambda r: r["rule_index"])]
    assert verdicts == [k > 6 for k in range(n)]
    assert sink.summary["status"] == "FAIL"


def test_sql_rules_alone_count_the_rows(spark, tmp_path, strings):
    rules = ['{type: sql, query: "SELECT count(DISTINCT s) = 5 FROM (SELECT * FROM _validation_df)"}',
             '{type: sql, failed_rows: "SELECT * FROM _validation_df WHERE s IS NULL"}']  # fmt: skip
    sink = run_config(spark, write_config(tmp_path, config(strings, rules)))
    first, second = sorted(sink.results, key=lambda r: r["rule_index"])
    assert first["passed"] and first["row_count"] == 6
    assert not second["passed"] and second["failed_count"] == 1


@pytest.mark.parametrize(
    ("rule", "failing"),
    [
        # Java: alternation binds loosest, `^A|B$` is "starts with A, or ends with B"
        ("{type: regex, column: s, pattern: '^A|B$'}", [4, 5, 6]),  # zzz, null (fails), x\u2028y
        ("{type: regex, column: s, pattern: '^(A|B)$'}", [1, 2, 4, 5, 6]),
        ("{type: regex, column: s, pattern: 'A|B$'}", [4, 5, 6]),
        ("{type: string_regex_check, column: s, regex: '^A|B$'}", [4, 6]),
        ("{type: invalid_count, column: s, valid_regex: '^A|B$', must_be: 0}", [4, 6]),
    ],
)
def test_a_top_level_alternation_keeps_each_alternatives_anchors(
    spark, tmp_path, strings, rule, failing
):
    # the rule next to a real `^(A|B)$` one: the two must not share a measure
    rules = [rule, "{type: regex, column: s, pattern: '^(A|B)$', name: grouped}"]
    sink = run_config(spark, write_config(tmp_path, config(strings, rules)))
    got = sink.result("t", 0)
    assert got["failed_count"] == len(failing), got["message"]
    assert sorted(s["id"] for s in got["samples"]) == failing
    assert sink.result("t", 1)["failed_count"] == 5


def test_boolean_format_is_what_spark_casts(spark, tmp_path, strings):
    rule = "{type: invalid_count, column: b, valid_format: boolean, must_be: 0}"
    sink = run_config(spark, write_config(tmp_path, config(strings, [rule])))
    truth = spark.sql(
        "SELECT count_if(try_cast(b AS BOOLEAN) IS NULL) AS n FROM VALUES"
        " (' true '), ('Y\\n'), ('\\ttrue'), ('N\\r\\n'), ('maybe'), ('t r u e') AS v(b)"
    ).collect()[0]["n"]
    got = sink.result("t", 0)
    assert truth == 2
    assert got["failed_count"] == 2
    assert sorted(s["id"] for s in got["samples"]) == [5, 6]


def test_json_lines_escape_the_characters_line_splitters_break_on(spark, strings):
    import json

    import assay

    df = spark.read.parquet(strings)
    result = assay.validate(
        df, [{"type": "regex", "column": "s", "pattern": "^[a-z]+$"}], keys=["id"]
    )
    text = result.to_json_lines()
    assert "\u2028" not in text and "\\u2028" in text
    lines = text.splitlines()
    assert len(lines) == len(result.events)
    samples = [json.loads(line) for line in lines][0]["samples"]
    assert {"id": 6, "s": "x\u2028y"} in samples


@pytest.fixture(scope="module")
def numbers(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("numbers") / "n.parquet")
    spark.sql(
        "SELECT * FROM VALUES"
        " (1, CAST('0.100000000000000001' AS DECIMAL(38,18)), CAST(0.1 AS FLOAT), 5L, 'x'),"
        " (2, CAST('0.1' AS DECIMAL(38,18)), CAST(0.5 AS FLOAT), 9223372036854775807L, '1'),"
        " (3, CAST(NULL AS DECIMAL(38,18)), CAST(NULL AS FLOAT), NULL, NULL)"
        " AS v(id, dec, f, big, s)"
    ).write.parquet(path)
    return path


NUMBER_CASES = [
    # (rule, failed count, the plain SQL that is the truth)
    ("{type: range, column: dec, max: 0.1}", 1, "dec > 0.1"),
    ("{type: range, column: dec, min: 0.1}", 0, "dec < 0.1"),
    # Spark's own `dec > 0.1000000000000000005` loses the last digit (no common decimal
    # type holds both exactly): the truth is written by row
    ("{type: range, column: dec, max: 0.1000000000000000005}", 1, "id = 1"),
    ("{type: range, column: dec, min: 0.1000000000000000005}", 1, "id = 2"),
    ("{type: range_check, column: dec, max_value: 0.1}", 2, "dec >= 0.1"),
    ("{type: accepted_values, column: dec, values: [0.1]}", 1, "dec NOT IN (0.1)"),
    (
        "{type: accepted_values, column: f, values: [0.1, 0.5]}",
        0,
        "f NOT IN (CAST(0.1 AS FLOAT), CAST(0.5 AS FLOAT))",
    ),
    ("{type: range, column: f, max: 0.1}", 1, "f > CAST(0.1 AS FLOAT)"),
    ("{type: range, column: f, max: 1.0e+300}", 0, "CAST(f AS DOUBLE) > 1e300"),
    ("{type: range, column: big, max: 9223372036854775808}", 0, "false"),
    ("{type: range, column: big, min: -9223372036854775809}", 0, "false"),
    ("{type: range, column: big, max: 9223372036854775806.5}", 1, "big > 9223372036854775806"),
    ("{type: range, column: dec, max: 123456789012345678901234567890123456789012}", 0, "false"),
    ("{type: length, column: s, max: 99999999999999999999}", 0, "false"),
    ("{type: length, column: s, min: 99999999999999999999}", 2, "s IS NOT NULL"),
    ("{type: accepted_values, column: s, values: [1, 2]}", 1, "s NOT IN ('1', '2')"),
    (
        "{type: accepted_values, column: big, values: [5, '9223372036854775807', x, 0.5]}",
        0,
        "big NOT IN (5, 9223372036854775807)",
    ),
    ("{type: invalid_count, column: dec, valid_max: 0.1, must_be: 0}", 1, "dec > 0.1"),
    ("{type: invalid_count, column: dec, valid_values: [0.1], must_be: 0}", 1, "dec <> 0.1"),
]


def test_literals_take_the_type_of_the_column_they_meet(spark, tmp_path, numbers):
    """A YAML number against a DECIMAL column is the exact decimal, against FLOAT the
    float, against a string the text; a bound beyond the type decides for every value."""
    rules = [rule for rule, _, _ in NUMBER_CASES]
    sink = run_config(spark, write_config(tmp_path, config(numbers, rules)))
    spark.read.parquet(numbers).createOrReplaceTempView("exact_numbers")
    for n, (rule, failed, truth) in enumerate(NUMBER_CASES):
        sql = f"SELECT count_if(coalesce({truth}, false)) AS n FROM exact_numbers"
        assert spark.sql(sql).collect()[0]["n"] == failed, rule
        got = sink.result("t", n)
        assert got["severity"] != "error", (rule, got["message"])
        assert got["failed_count"] == failed, (rule, got["message"])


@pytest.mark.parametrize(
    ("rule", "passed"),
    [
        ("{type: column_max_check, column: dec, value: 0.1}", False),
        ("{type: column_max_check, column: dec, value: 0.100000000000000001}", True),
        ("{type: column_max_check, column: f, value: 0.5}", True),
        ("{type: column_max_check, column: big, value: 9223372036854775807}", True),
        ("{type: column_max_check, column: big, value: 9223372036854775808}", False),
        ("{type: column_max_check, column: s, value: x}", True),
    ],
)
def test_column_max_compares_in_the_columns_type(spark, tmp_path, numbers, rule, passed):
    sink = run_config(spark, write_config(tmp_path, config(numbers, [rule])))
    got = sink.result("t", 0)
    assert got["severity"] != "error", got["message"]
    assert got["passed"] is passed, got["message"]


def test_float_column_max_equals_the_float_literal(spark, tmp_path):
    path = str(tmp_path / "f.parquet")
    spark.sql("SELECT CAST(0.1 AS FLOAT) AS f").write.parquet(path)
    sink = run_config(
        spark,
        write_config(
            tmp_path, config(path, ["{type: column_max_check, column: f, value: 0.1}"], keys=None)
        ),
    )
    assert sink.result("t", 0)["passed"] is True


def test_numbers_no_double_holds_are_reported_exactly(spark, tmp_path, numbers):
    """max(dec) = 0.100000000000000001 is not reported as 0.1: a number a double cannot
    hold is a string of its exact digits, in metric_value and in samples."""
    rules = ["{type: max, column: dec, must_be: '< 0.1'}", "{type: range, column: dec, max: 0.1}",
             "{type: sum, column: dec, must_be: '> 0.2'}"]  # fmt: skip
    sink = run_config(spark, write_config(tmp_path, config(numbers, rules)))
    top, ranged, total = (sink.result("t", n) for n in range(3))
    assert top["metric_value"] == "0.100000000000000001"
    assert not top["passed"]
    assert ranged["samples"] == [{"id": 1, "dec": "0.100000000000000001"}]
    assert total["metric_value"] == "0.200000000000000001" and total["passed"]
    from tests.helpers import validate_event

    for event in sink.events:
        validate_event(event)


def test_a_plan_past_its_timeout_is_interrupted_and_errors_its_table_alone(
    spark, tmp_path, strings
):
    """A plan that runs past ``plan_timeout`` is interrupted on the server; its table is an
    error naming the plan and the bound, the other table is judged, the server answers."""
    from assay.config import load_suite
    from assay.executor.run import run_suite
    from tests.helpers import Collect

    # a plan that sleeps on the server (one task, interrupted by the bound like any task),
    # not one that burns both cores for the 8 s (16 CPU s of the file's 37)
    sleep = "reflect('java.lang.Thread', 'sleep', 600000L)"
    slow = f'{{type: sql, query: "SELECT count_if(z IS NULL) > 0 FROM (SELECT {sleep} AS z)"}}'
    text = (
        config(strings, [slow])
        + f"""
  - name: fine
    source: {{path: {strings}, format: parquet}}
    rules:
      - {{type: not_null, column: id}}
"""
    )
    sink = Collect()
    suite = load_suite([write_config(tmp_path, text)])
    # one table at a time: the slow plan must not hold back the other past its bound
    summary = run_suite(suite, spark, sink, plan_timeout=8, concurrency=1)
    tables = sink.tables()
    assert "did not finish within 8s and was interrupted" in tables["t"]["error"]
    assert "aggregate plan" in tables["t"]["error"]
    assert tables["fine"]["error"] is None and sink.result("fine", 0)["passed"]
    assert summary.exit_code == 3
    assert spark.sql("SELECT 1 AS x").collect()[0]["x"] == 1


def test_an_unreadable_source_errors_its_table_alone(spark, tmp_path, strings):
    """One table's missing path costs that table: the other two are judged, the missing
    one is a table error with a result per rule, the summary is written, exit 3."""
    from assay.config import load_suite
    from assay.executor.run import run_suite
    from tests.helpers import Collect, validate_event

    def table(name: str, path: str) -> str:
        return f"""
  - name: {name}
    source: {{path: {path}, format: parquet}}
    rules:
      - {{type: not_null, column: id}}
      - {{type: row_count, must_be: "> 0"}}
"""

    text = (
        "tables:"
        + table("a", strings)
        + table("gone", str(tmp_path / "missing"))
        + table("b", strings)
    )
    sink = Collect()
    summary = run_suite(load_suite([write_config(tmp_path, text)]), spark, sink)
    tables = sink.tables()
    assert tables["a"]["error"] is None and tables["b"]["error"] is None
    assert "cannot read its source" in tables["gone"]["error"]
    assert tables["gone"]["location"]["path"] == "tables[1]"
    assert [r["severity"] for r in sink.results if r["table"] == "gone"] == ["error", "error"]
    assert all(r["passed"] for r in sink.results if r["table"] != "gone")
    assert sink.events[-1]["event"] == "summary" and summary.exit_code == 3
    for event in sink.events:
        validate_event(event)


def test_config_errors_and_unreadable_sources_are_listed_together(spark, tmp_path, strings):
    from assay.config import load_suite
    from assay.errors import ConfigErrors
    from assay.executor.run import run_suite
    from tests.helpers import Collect

    text = f"""
tables:
  - name: gone
    source: {{path: {tmp_path / "missing"}, format: parquet}}
    rules: [{{type: not_null, column: id}}]
  - name: bad
    source: {{path: {strings}, format: parquet}}
    rules: [{{type: not_null, column: nope}}]
"""
    with pytest.raises(ConfigErrors) as caught:
        run_suite(load_suite([write_config(tmp_path, text)]), spark, Collect())
    messages = [str(e) for e in caught.value.errors]
    assert any("nope" in m and "tables[1].rules[0]" in m for m in messages), messages
    assert any("cannot read its source" in m and "tables[0]" in m for m in messages), messages


def test_a_regex_java_cannot_compile_is_a_config_error_at_its_rule(spark, tmp_path, strings):
    """Found before any scan (the optimizer folds the pattern against a literal), named
    at the rule; the valid regexes of the same table are not reported."""
    from assay.errors import ConfigErrors

    rules = [
        "{type: not_null, column: id}",
        "{type: regex, column: s, pattern: '([a-z'}",
        "{type: regex, column: s, pattern: '^[a-z]+$'}",
        "{type: invalid_count, column: s, valid_regex: 'a{2,1}', must_be: 0}",
    ]
    with pytest.raises(ConfigErrors) as caught:
        run_config(spark, write_config(tmp_path, config(strings, rules)))
    found = sorted((e.origin.path, e.message) for e in caught.value.errors)
    assert [path for path, _ in found] == ["tables[0].rules[1]", "tables[0].rules[3]"]
    assert "'([a-z'" in found[0][1] and "JVM" not in found[0][1]


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        (
            '{type: sql, query: "SELEC count(*) = 0 FROM _validation_df"}',
            # Spark reads `SELEC count` as far as the `(`: the position is its own
            ["(line 1, pos 11)", "    SELEC count(*) = 0 FROM _validation_df", "               ^"],
        ),
        (
            '{type: sql, query: "SELECT count(*) = 0\\nFROM _validation_df\\nWHERE nope > 1"}',
            ["nope", "line 3 pos 6", "    WHERE nope > 1", "          ^"],
        ),
    ],
)
def test_a_sql_rule_error_quotes_the_users_text(spark, tmp_path, strings, rule, expected):
    """Positions in the rule's own query, its line under a caret; never assay's wrapper
    query or Spark's analysed plan."""
    from assay.errors import ConfigErrors

    with pytest.raises(ConfigErrors) as caught:
        run_config(spark, write_config(tmp_path, config(strings, [rule])))
    [error] = caught.value.errors
    text = str(error)
    assert error.origin.path == "tables[0].rules[0]"
    for part in expected:
        assert part in text.split("\n") or part in text, text
    for leak in ("_assay", "WITH _validation_df", "== SQL ==", "'Project", "JVM"):
        assert leak not in text, text


def test_a_bad_table_filter_is_reported_at_the_filter(spark, tmp_path, strings):
    from assay.errors import ConfigErrors

    text = config(strings, ["{type: not_null, column: id}"]).replace(
        "    rules:", '    filter: "nope > 1"\n    rules:'
    )
    with pytest.raises(ConfigErrors) as caught:
        run_config(spark, write_config(tmp_path, text))
    [error] = caught.value.errors
    assert error.origin.path == "tables[0].filter"
    assert "nope" in error.message and "'Project" not in error.message


def test_a_rule_spark_fails_on_while_running_errors_alone(spark, tmp_path, numbers):
    """sum(big) overflows bigint (ANSI): that rule alone is an error with Spark's reason;
    the eleven others are judged, from plans rerun without it."""
    good = [
        "{type: not_null, column: id}",
        "{type: range, column: dec, max: 0.1}",
        "{type: max, column: id, must_be: '= 3'}",
        "{type: row_count, must_be: '= 3'}",
        "{type: unique, column: id}",
        "{type: accepted_values, column: s, values: [x, '1']}",
        "{type: min, column: big, must_be: '= 5'}",
        "{type: avg, column: id, must_be: '= 2'}",
        "{type: missing_count, column: s, must_be: '= 1'}",
        "{type: distinct_count, column: s, must_be: '= 2'}",
        '{type: sql, query: "SELECT max(id) = 3 FROM _validation_df"}',
    ]
    rules = good[:5] + ["{type: sum, column: big, must_be: '> 0'}"] + good[5:]
    sink = run_config(spark, write_config(tmp_path, config(numbers, rules)))
    results = sorted(sink.results, key=lambda r: r["rule_index"])
    bad = results.pop(5)
    assert bad["severity"] == "error" and "ARITHMETIC_OVERFLOW" in bad["message"], bad["message"]
    assert "JVM" not in bad["message"] and "\n" not in bad["message"]
    assert [r["severity"] for r in results] == ["pass", "fail", *["pass"] * 9]
    [table] = sink.tables().values()
    assert table["errors"] == 1 and table["error"] is None
    assert sink.summary["exit_code"] == 3


@pytest.mark.parametrize("where", ["", "WHERE id IS NOT NULL"], ids=["folded", "a query"])
def test_a_sql_rule_spark_fails_on_while_running_errors_alone(spark, tmp_path, numbers, where):
    rules = [
        '{type: sql, query: "SELECT max(id) = 3 FROM _validation_df"}',
        f'{{type: sql, query: "SELECT sum(big) > 0 FROM _validation_df {where}"}}',
        '{type: sql, query: "SELECT count(*) = 3 FROM _validation_df WHERE id > 0"}',
        '{type: sql, query: "SELECT min(id) = 1 FROM (SELECT id FROM _validation_df LIMIT 5)"}',
    ]
    sink = run_config(spark, write_config(tmp_path, config(numbers, rules)))
    severities = [r["severity"] for r in sorted(sink.results, key=lambda r: r["rule_index"])]
    assert severities == ["pass", "error", "pass", "pass"]

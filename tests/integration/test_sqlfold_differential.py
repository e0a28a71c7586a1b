"""The SQL fold, proven against the plain form: every rule of a corpus of conditions runs
folded into the aggregate scan and as the user's query (folding off); verdicts, counts and
errors must agree. Malformed queries must be errors naming the rule in both forms: a fold
never turns a query Spark would reject into a verdict.
"""

from __future__ import annotations

import dataclasses

import pytest

from assay.config import load_suite
from assay.errors import ConfigErrors
from assay.executor.run import run_suite
from assay.planner import plan_table
from assay.planner.cost import DEFAULT_OPTIONS
from tests.helpers import Collect, write_config

pytestmark = pytest.mark.spark

PLAIN = dataclasses.replace(DEFAULT_OPTIONS, fold_sql=False)

ROWS = [
    (1, 1, 2, "WHERE", "2024-01-01"),
    (2, 5, 3, "it's", "2024-02-01"),
    (3, 3, None, "a;b", None),
    (4, 0, 1, "--x", "2023-12-31"),
    (5, 7, 7, None, "2024-03-01"),
    (6, 2, 9, "", "2024-01-15"),
    (7, None, 4, "where", "2024-01-02"),
    (8, 9, 0, "/* no */", "2024-04-01"),
]
SCHEMA = "id long, a int, b int, s string, d string"

V = "FROM _validation_df"
# (query or failed_rows query, folds?)
VALID = [
    (f"SELECT count(*) = 0 {V} WHERE a < b", True),
    (f"SELECT count(*) <= 100 {V} WHERE a < b AND b IS NOT NULL", True),
    (f"SELECT count(*) > 0 {V} WHERE s = 'WHERE'", True),
    (f"SELECT count(*) = 1 {V} WHERE s = 'it''s'", True),
    (f"SELECT count(*) = 1 {V} WHERE s = 'a;b'", True),
    (f"SELECT count(*) = 0 {V} WHERE s LIKE '%--%'", True),
    (f"SELECT count(*) = 1 {V} WHERE s = '/* no */'", True),
    (f"SELECT count(*) = 0 {V} WHERE ((a > 1) AND (b < 3 OR s IS NULL))", True),
    (f"SELECT count(*) = 0 {V} WHERE NOT (a <=> b)", True),
    (f"SELECT count(*) = 0 {V} WHERE a IN (1, 2, 3)", True),
    (f"SELECT count(*) = 0 {V} WHERE b = NULL", True),
    (f"SELECT count(*) > 0 {V} WHERE NOT (b > 0)", True),
    (f"SELECT count(*) = 0 {V} WHERE CASE WHEN a > 1 THEN b ELSE 0 END > 2", True),
    (f"SELECT count(*) = 0 {V} WHERE `a` < `b`", True),
    (f"SELECT count(*) = 0 {V} WHERE to_date(d) > DATE'2024-01-01'", True),
    (f"select COUNT(1) <> 3 {V}", True),
    (f"SELECT count(*) == 8 {V};", True),
    (f"SELECT count(*) = 0 {V} WHERE a < b;  ", True),
    (f"SELECT count(*) = 0 {V} WHERE lower(s) = 'where'", True),
    (f"SELECT count(*) = 0 {V} WHERE a < b -- a comment", False),
    (f"SELECT count(*) = 0 {V} WHERE a < b /* a comment */", False),
    (f"SELECT count(*) = 0 {V} WHERE b IN (SELECT a {V})", False),
    (f"WITH c AS (SELECT * {V}) SELECT count(*) = 0 FROM c WHERE a < b", False),
    (f"SELECT count(*) = 0 {V} x WHERE x.a < x.b", False),
    (f"SELECT count(DISTINCT a) = 7 {V}", True),
    (f"SELECT count(DISTINCT a) = 8 {V}", True),
    (f"SELECT count(DISTINCT S) >= 6 {V}", True),
    (f"SELECT count(DISTINCT a, b) = 6 {V}", True),
    (f"SELECT count(DISTINCT b, `s`) < 6 {V} WHERE a > 1", True),
    (f"SELECT count(DISTINCT s) = 0 {V} WHERE a > 100", True),
    (f"SELECT count(DISTINCT d) > 6 {V} WHERE d IS NOT NULL", True),
    (f"SELECT count(DISTINCT a + 0) = 7 {V}", False),
    (f"SELECT max(a) <= 9 {V}", True),
    (f"SELECT max(a) < 9 {V}", True),
    (f"SELECT sum(a) > 26 {V};", True),
    (f"SELECT max(a) - min(a) = 9 {V}", True),
    (f"SELECT count(s) = 7 {V}", True),
    (f"select COUNT_IF(a > b) <> 2 {V}", True),
    (f"SELECT avg(b) > 3.5 {V}", True),
    (f"SELECT min(d) >= '2024-01-01' {V}", True),
    (f"SELECT max(a) = max(b) {V}", True),
    (f"SELECT avg(b) BETWEEN 3 AND 4 {V}", False),
    (f"SELECT max(a) <= 3 {V} WHERE b > 0", False),
    (f"SELECT count(*) = 0 {V} WHERE a < b; -- done", False),
]
VALID_ROWS = [
    (f"SELECT * {V} WHERE s IS NULL OR s = ''", True),
    (f"SELECT * {V} WHERE a > b", True),
    (f"SELECT * {V} WHERE a > b -- trailing", False),
    (f"SELECT id {V} WHERE a > b", False),
]
MALFORMED = [
    f"SELECT count(*) = 0 {V} WHERE a < 0 AND",
    f"SELECT count(*) = 0 {V} WHERE a > 19 banana",
    f"SELECT count(*) = 0 {V} WHERE a >",
    f"SELECT count(*) = 0 {V} WHERE a < b)",
    f"SELECT count(*) = 0 {V} WHERE no_such_column < 1",
    f"SELECT count(*) = 0 {V} WHERE a < b; SELECT 1",
    f"SELECT count(*) = 0 {V} WHERE s = 'unterminated",
    f"SELECT count(*) = 0 {V} WHERE a < b AS x",
    f"SELECT count(*) = 0 {V} WHERE sum(a) > 1",
    f"SELECT count(*) = 0 {V} WHERE a",
    f"SELECT count(*) = 0 {V} WHERE NULL",  # Spark: FILTER_NOT_BOOLEAN; count_if(NULL) runs
    f"SELECT count(DISTINCT no_such_column) = 0 {V}",
    f"SELECT max(no_such_column) <= 1 {V}",
    f"SELECT max(a) <= nope(1) {V}",
    f"SELECT count(DISTINCT a) = 0 {V} WHERE nope(b)",
]
MALFORMED_ROWS = [
    f"SELECT * {V} WHERE a > 19 banana",
    f"SELECT * {V} WHERE a < 0 OR",
]


def _yaml_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _config(tmp_path, data: str, rules: list[str], name: str = "checks.yaml"):
    body = "\n".join(f"      - {r}" for r in rules)
    text = (
        f"tables:\n  - name: t\n    source: {{path: '{data}'}}\n    keys: [id]\n"
        f"    rules:\n{body}\n"
    )
    return write_config(tmp_path, text, name)


def _rule(query: str, rows: bool) -> str:
    return f"{{type: sql, {'failed_rows' if rows else 'query'}: {_yaml_str(query)}}}"


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("fold") / "t.parquet")
    spark.createDataFrame(ROWS, SCHEMA).write.parquet(path)
    return path


def _run(spark, path, options):
    sink = Collect()
    run_suite(load_suite([path]), spark, sink, options=options)
    return sink


def test_valid_queries_agree_folded_and_as_written(spark, data, tmp_path):
    rules = [_rule(q, False) for q, _ in VALID] + [_rule(q, True) for q, _ in VALID_ROWS]
    path = _config(tmp_path, data, rules)
    folds = [f for _, f in VALID] + [f for _, f in VALID_ROWS]
    plan = plan_table(load_suite([path]).tables[0])
    assert [f.rule_index for f in plan.folded] == [i for i, f in enumerate(folds) if f]
    folded, plain = _run(spark, path, DEFAULT_OPTIONS), _run(spark, path, PLAIN)
    seen = {(r["severity"], r["failed_count"]) for r in folded.results}
    assert {"pass", "fail"} <= {s for s, _ in seen}  # the corpus has both outcomes
    for f, p in zip(folded.results, plain.results, strict=True):
        assert (f["passed"], f["severity"], f["failed_count"], f["message"]) == (
            p["passed"],
            p["severity"],
            p["failed_count"],
            p["message"],
        ), f["location"]


def test_specific_answers_of_the_corpus(spark, data, tmp_path):
    # a few verdicts computed by hand from ROWS, so agreement is not agreement in error
    path = _config(
        tmp_path,
        data,
        [_rule(VALID[0][0], False), _rule(VALID[3][0], False), _rule(VALID_ROWS[0][0], True)],
    )
    got = _run(spark, path, DEFAULT_OPTIONS).results
    a_lt_b = sum(1 for r in ROWS if r[1] is not None and r[2] is not None and r[1] < r[2])
    assert a_lt_b == 3 and (got[0]["passed"], got[0]["severity"]) == (False, "fail")
    assert got[1]["passed"] is True  # exactly one row holds it's
    assert (got[2]["severity"], got[2]["failed_count"]) == ("fail", 2)
    # distinct counts by hand: nulls left out, a row with a null in one column too
    assert len({r[1] for r in ROWS if r[1] is not None}) == 7  # `count(DISTINCT a) = 7`
    pairs = {(r[1], r[2]) for r in ROWS if r[1] is not None and r[2] is not None}
    assert len(pairs) == 6  # `count(DISTINCT a, b) = 6`
    distinct = [q for q, _ in VALID if "DISTINCT a) = " in q or "DISTINCT a, b)" in q]
    got = _run(
        spark,
        _config(tmp_path, data, [_rule(q, False) for q in distinct], "d.yaml"),
        DEFAULT_OPTIONS,
    ).results
    assert [r["passed"] for r in got] == [True, False, True]


@pytest.mark.parametrize(
    ("query", "rows"),
    [(q, False) for q in MALFORMED] + [(q, True) for q in MALFORMED_ROWS],
    ids=[q[len("SELECT count(*) = 0 FROM _validation_df") :] or q for q in MALFORMED]
    + list(MALFORMED_ROWS),
)
def test_a_query_spark_rejects_is_an_error_folded_or_not(spark, data, tmp_path, query, rows):
    path = _config(tmp_path, data, ["{type: not_null, column: id}", _rule(query, rows)])
    for options in (DEFAULT_OPTIONS, PLAIN):
        with pytest.raises(ConfigErrors) as caught:
            _run(spark, path, options)
        [error] = caught.value.errors
        assert error.origin is not None and error.origin.path == "tables[0].rules[1]", str(error)


def test_a_folded_comparison_spark_fails_on_while_running_is_that_rules_error(
    spark, data, tmp_path
):
    # ANSI mode: casting 'x' to a number fails while the query runs, not when analysed
    rules = ["{type: not_null, column: id}", _rule(f"SELECT max(a) <= 'x' {V}", False)]
    path = _config(tmp_path, data, rules)
    assert [f.rule_index for f in plan_table(load_suite([path]).tables[0]).folded] == [1]
    for options in (DEFAULT_OPTIONS, PLAIN):
        got = _run(spark, path, options).results
        assert [r["severity"] for r in got] == ["pass", "error"], got[1]["message"]

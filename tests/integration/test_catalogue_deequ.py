"""Metorikku's deequ checks on real data: completeness, uniqueness (deequ's definition,
computed here independently), size with every operator at its edge, allowed values,
levels, and an empty table."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers import assert_case, expected_passed, run_config, write_config

pytestmark = pytest.mark.spark

ROWS = [
    (1, "x", "p"),
    (1, "x", "q"),
    (2, None, "p"),
    (2, None, "r"),
    (None, None, "s"),
    (None, None, "t"),
    (3, "y", None),
    (None, "z", None),
]
N = len(ROWS)


def uniqueness(*idx: int) -> float | None:
    """deequ's Uniqueness: among rows where at least one column is not null, the
    fraction whose value (nulls compared as equal) occurs exactly once."""
    keys = [tuple(r[i] for i in idx) for r in ROWS if any(r[i] is not None for i in idx)]
    counts = Counter(keys)
    return sum(1 for k in keys if counts[k] == 1) / len(keys) if keys else None


U_AB, U_A = uniqueness(0, 1), uniqueness(0)  # 2/6 and 1/5
NULL_A = sum(1 for r in ROWS if r[0] is None)
DUP_A = sum(1 for r in ROWS if r[0] is not None and sum(1 for o in ROWS if o[0] == r[0]) > 1)

# (rule, severity, failed_count, metric_value)
CASES = [
    ("{type: isComplete, column: a}", "fail", NULL_A, None),
    ("{type: is_complete, column: s, level: warn}", "warn", 2, None),
    ("{type: isComplete, column: s, tolerance: 2}", "pass", 2, None),
    ("{type: isUnique, column: a}", "fail", DUP_A, None),
    ("{type: is_unique, column: s}", "fail", 2, None),
    ("{type: isUnique, columns: [a, s]}", "pass", 0, None),
    ("{type: hasSize, size: 8, operator: '=='}", "pass", None, N),
    ("{type: has_size, size: 8, operator: '!='}", "fail", None, N),
    ("{type: has_size, size: 8, operator: '>='}", "pass", None, N),
    ("{type: has_size, size: 8, operator: '>'}", "fail", None, N),
    ("{type: has_size, size: 8, operator: '<='}", "pass", None, N),
    ("{type: has_size, size: 8, operator: '<'}", "fail", None, N),
    ("{type: has_size, size: 9, operator: '<'}", "pass", None, N),
    ("{type: has_size, size: 7, operator: '>'}", "pass", None, N),
    ("{type: hasUniqueness, columns: [a, b]}", "fail", 4, U_AB),
    (f"{{type: has_uniqueness, columns: [a, b], fraction: {U_AB!r}}}", "pass", 4, U_AB),
    (
        f"{{type: has_uniqueness, columns: [a, b], fraction: {U_AB!r}, operator: '>'}}",
        "fail",
        4,
        U_AB,
    ),
    ("{type: has_uniqueness, columns: [a, b], fraction: 0.33, operator: '>='}", "pass", 4, U_AB),
    ("{type: has_uniqueness, columns: [a, b], fraction: 0.34, operator: '<'}", "pass", 4, U_AB),
    ("{type: has_uniqueness, column: a, fraction: 0.2, operator: '<='}", "pass", 4, U_A),
    ("{type: has_uniqueness, column: a, fraction: 0.2, operator: '!='}", "fail", 4, U_A),
    ("{type: has_uniqueness, columns: [s], level: warn}", "warn", 2, 4 / 6),
    ("{type: isContainedIn, column: s, allowed_values: [p, q, r]}", "fail", 2, None),
    ("{type: is_contained_in, column: s, allowed_values: [p, q, r, s, t]}", "pass", 0, None),
    ("{type: is_contained_in, column: a, allowed_values: [1, 2]}", "fail", 1, None),
    (
        "{type: is_contained_in, column: s, allowed_values: [p, q, r], tolerance: '25%'}",
        "pass",
        2,
        None,
    ),
]


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("deequ") / "d.parquet")
    spark.createDataFrame(ROWS, "a int, b string, s string").write.parquet(path)
    return path


def config(path: str, rules: list[str], extra: str = "") -> str:
    body = "\n".join(f"      - {r}" for r in rules)
    return f'tables:\n  - name: dq\n    source: {{path: "{path}"}}\n{extra}    rules:\n{body}\n'


@pytest.fixture(scope="module")
def fused(spark, data, tmp_path_factory):
    cfg = write_config(tmp_path_factory.mktemp("dqfused"), config(data, [c[0] for c in CASES]))
    return run_config(spark, cfg)


@pytest.mark.parametrize(("index", "case"), list(enumerate(CASES)), ids=[c[0][:70] for c in CASES])
def test_check(fused, index, case):
    text, severity, failed, value = case
    got = fused.result("dq", index)
    assert_case(got, severity, failed, value, N, expected_passed(text, severity))


def test_aliases_report_the_canonical_type(fused):
    types = [fused.result("dq", i)["rule"]["type"] for i in (0, 3, 6, 14, 22)]
    assert types == ["not_null", "unique", "has_size", "has_uniqueness", "is_contained_in"]


def test_multi_column_uniqueness_keeps_rows_with_some_nulls(fused):
    # deequ groups (2, null) twice: those two rows are not unique; (null, null) rows are out
    assert fused.result("dq", 14)["message"] == f"has_uniqueness(a, b) = {U_AB}; must be == 1.0"


def test_empty_table(spark, data, tmp_path):
    rules = [
        "{type: isComplete, column: a}",
        "{type: isUnique, column: a}",
        "{type: hasSize, size: 0, operator: '=='}",
        "{type: hasUniqueness, columns: [a]}",
        "{type: isContainedIn, column: s, allowed_values: [p]}",
    ]
    out = run_config(spark, write_config(tmp_path, config(data, rules, "    filter: a > 100\n")))
    got = [(r["severity"], r["failed_count"], r["metric_value"]) for r in out.results]
    assert got == [
        ("pass", 0, None),
        ("pass", 0, None),
        ("pass", None, 0),
        ("fail", 0, None),  # uniqueness of no row is undefined (deequ fails it too)
        ("pass", 0, None),
    ]
    assert "no row to consider" in out.results[3]["message"]


def test_uniqueness_of_only_null_keys_has_no_value(spark, data, tmp_path):
    rules = ["{type: hasUniqueness, columns: [a, b], fraction: 0, operator: '>='}"]
    out = run_config(
        spark, write_config(tmp_path, config(data, rules, "    filter: a IS NULL AND b IS NULL\n"))
    )
    assert (out.results[0]["severity"], out.results[0]["row_count"]) == ("fail", 2)

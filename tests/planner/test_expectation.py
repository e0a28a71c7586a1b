"""Every rule's expectation in one line, derived from the check that runs: the bound a
reader needs to read a failing value (``quantity between 1 and 20``), for every rule kind
of every config format."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.api.suites import rules_suite
from assay.config import load_suite
from assay.planner.expectation import expect_params, expectation
from assay.report.events import plain_json

ROOT = Path(__file__).resolve().parents[2]

CASES = [
    ({"type": "range", "column": "q", "min": 1, "max": 8}, "q between 1 and 8"),
    ({"type": "range", "column": "q", "min": 1, "max": 8, "inclusive": False}, "q > 1 and q < 8"),
    ({"type": "range", "column": "q", "min": 1}, "q >= 1"),
    ({"type": "not_null", "column": "a", "filter": "s = 'x'"}, "a is not null where s = 'x'"),
    ({"type": "not_null", "columns": ["a", "b"]}, "a is not null and b is not null"),
    ({"type": "regex", "column": "e", "pattern": "^[^@]+@"}, "e is not null and e matches ^[^@]+@"),
    ({"type": "accepted_values", "column": "s", "values": ["a", "it's"]}, "s in ('a', 'it''s')"),
    (
        {"type": "is_contained_in", "column": "s", "allowed_values": list("abcdefghijklm")},
        "s in ('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', … 3 more)",
    ),
    ({"type": "length", "column": "n", "min": 1, "max": 5}, "length(n) between 1 and 5"),
    ({"type": "string_length_check", "column": "n", "min_length": 2}, "length(n) >= 2"),
    ({"type": "negative_check", "column": "x"}, "x >= 0"),
    (
        {"type": "range_check", "column": "d", "min_value": 0, "max_value": "`other"},
        "d > 0 and d < other",
    ),
    ({"type": "unique", "columns": ["id", "day"]}, "(id, day) unique"),
    ({"type": "unique", "column": "id", "tolerance": 3}, "id unique, up to 3 failing rows"),
    (
        {"type": "expression", "expression": "a >= b", "tolerance": "5%"},
        "a >= b, up to 5% of rows failing",
    ),
    (
        {"type": "avg", "column": "p", "must_be": "> 0", "warn": "> 5"},
        "avg(p) > 0 (warn unless > 5)",
    ),
    (
        {"type": "row_count", "must_be": "between 1 and 10", "group_by": ["c"]},
        "row_count between 1 and 10 for every group of c",
    ),
    ({"type": "missing_percent", "column": "e", "must_be": "< 1%"}, "missing_percent(e) < 1%"),
    (
        {"type": "invalid_count", "column": "e", "valid_format": "email", "must_be": "< 5"},
        "invalid_count(e) < 5",
    ),
    (
        {"type": "foreign_key", "column": "c", "references": {"table": "crm.c", "columns": ["id"]}},
        "c found in table crm.c (id)",
    ),
    (
        {
            "type": "row_count_match",
            "references": {"table": "crm.c"},
            "must_be": "between 99% and 101%",
        },
        "row_count as % of table crm.c between 99% and 101%",
    ),
    ({"type": "freshness", "column": "t", "must_be": "< 2h"}, "freshness(t) < 2h"),
    (
        {
            "type": "percentile",
            "column": "l",
            "quantile": 0.95,
            "accuracy": 1000,
            "must_be": "< 250",
        },
        "percentile(l, 0.95) < 250",
    ),
    ({"type": "median", "column": "l", "must_be": "< 250"}, "median(l) < 250"),
    (
        {"type": "schema", "required_columns": ["id"], "column_types": {"id": "long"}},
        "schema: has id; id is bigint",
    ),
    ({"type": "sql", "failed_rows": "SELECT * FROM t WHERE x < 0"}, "the query returns no row"),
    ({"type": "column_max_check", "column": "x", "value": 3}, "max(x) = 3"),
    ({"type": "has_size", "size": 3, "operator": ">="}, "row_count >= 3"),
    ({"type": "distinct_count", "column": "a", "must_be": "> 3"}, "distinct_count(a) > 3"),
]


@pytest.mark.parametrize(("written", "expected"), CASES, ids=[c[1] for c in CASES])
def test_a_rule_reads_as_what_it_checks(written: dict, expected: str) -> None:
    (rule,) = rules_suite([written]).tables[0].rules
    assert expectation(rule) == expected
    params = {k: v for k, v in written.items() if k != "type"}
    assert plain_json(expect_params(rule)) == params  # as written, the filter included


def test_a_message_states_the_tolerance_apart() -> None:
    (rule,) = rules_suite([{"type": "not_null", "column": "a", "tolerance": "5%"}]).tables[0].rules
    assert expectation(rule) == "a is not null, up to 5% of rows failing"
    assert expectation(rule, tolerance=False) == "a is not null"


@pytest.mark.parametrize(
    "config",
    [
        "tests/golden/every_rule.yaml",
        "examples/orders.yaml",
        "examples/data_validator/people.yaml",
        "examples/metorikku/people_metric.yaml",
        "examples/sparquet/orders_validations.json",
    ],
)
def test_every_rule_of_every_format_has_an_expectation(config: str) -> None:
    suite = load_suite([ROOT / config])
    texts = [expectation(rule) for table in suite.tables for rule in table.rules]
    assert texts and all(t and "\n" not in t for t in texts)

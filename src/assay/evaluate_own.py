"""The verdicts of rules judged by their own pass, not from the aggregate's values:
``schema`` (from the table's schema, no scan) and ``sql`` (from its own query's answer)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assay.evaluate import Outcome
from assay.evaluate import failed_severity as _fail
from assay.ir.rules import Rule, SchemaCheck, SqlCheck


def judge_schema(rule: Rule, schema: Sequence[tuple[str, str]]) -> Outcome:
    """Judge a schema rule against ``(column, type)`` pairs (Spark simple type strings)."""
    check = rule.check
    assert isinstance(check, SchemaCheck)
    name = (lambda c: c) if check.case_sensitive else str.lower
    types = {name(c): kind for c, kind in schema}
    problems = [f"missing column {c}" for c in check.required if name(c) not in types]
    problems += _not_exactly(check, [name(c) for c, _ in schema], name)
    problems += [f"forbidden column {c} is present" for c in check.forbidden if name(c) in types]
    for column, expected in check.types:
        actual = types.get(name(column))
        if actual is None:
            problems.append(f"missing column {column} (expected {expected})")
        elif not type_matches(expected, actual):
            problems.append(f"column {column} is {actual}, expected {expected}")
    # a rule on the whole column list reports it (Great Expectations' observed_value)
    columns = {"columns": [c for c, _ in schema]} if check.exactly else None
    if problems:
        said = "schema: " + "; ".join(problems)
        return Outcome(_fail(rule), len(problems), None, said, columns)
    return Outcome("pass", 0, None, f"schema matches ({len(schema)} columns)", columns)


def _not_exactly(check: SchemaCheck, columns: list[str], name: Any) -> list[str]:
    """What breaks a schema rule's ``exactly``: other columns, or another order."""
    wanted = [name(c) for c in check.required]
    if check.exactly == "set":
        return [f"unexpected column {c}" for c in columns if c not in wanted]
    if check.exactly == "order" and columns != wanted:
        return [f"columns are {', '.join(columns)}, expected {', '.join(wanted)} in this order"]
    return []


def type_matches(expected: str, actual: str) -> bool:
    """Whether a Spark type string matches an expected type (``decimal`` matches any
    precision and scale).

    >>> type_matches("decimal", "decimal(10,2)"), type_matches("bigint", "int")
    (True, False)
    """
    actual = actual.lower().replace(" ", "")
    if expected == "decimal":
        return actual.startswith("decimal")
    return actual == expected.replace(" ", "")


def judge_sql(rule: Rule, rows_returned: int, value: Any) -> Outcome:
    """Judge a SQL rule from what its query returned."""
    check = rule.check
    assert isinstance(check, SqlCheck)
    custom = dict(rule.params).get("error_message")
    if check.mode == "failed_rows":
        failed = int(value or 0)
        metric = float(failed) if check.reading == "sparquet" else None
        if failed == 0:
            return Outcome("pass", 0, metric, "the query returned no failing rows")
        return Outcome(
            _fail(rule), failed, metric, str(custom or f"the query returned {failed} failing rows")
        )
    if check.reading == "sparquet" and rows_returned >= 1:
        # sparquet-cola: bool(collect()[0][0]), the first row's first value.
        if value is not None and bool(value):
            return Outcome("pass", 0, None, f"the query returned {_said(value)}")
        return Outcome(
            _fail(rule), 1, None, str(custom or f"the query returned {_said(value)}; expected true")
        )
    if rows_returned != 1:
        return Outcome(
            "error",
            None,
            None,
            f"the query returned {rows_returned} rows; expected one row with one boolean",
        )
    if value is True:
        return Outcome("pass", None, None, "the query returned true")
    said = "NULL" if value is None else str(value).lower()
    return Outcome(
        _fail(rule), None, None, str(custom or f"the query returned {said}; expected true")
    )


def _said(value: object) -> str:
    return "NULL" if value is None else str(value).lower()

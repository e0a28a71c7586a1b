"""The verdicts of rules judged by their own pass, not from the aggregate's values:
``schema`` (from the table's schema, no scan), ``sql`` (from its own query's answer) and
a validator function's (from what it returned). Each is registered in
:data:`assay.judge.evaluate.JUDGES` with the part of
:class:`~assay.judge.outcome.Evidence` it reads."""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from assay.ir.monitoring import SchemaChangeCheck
from assay.ir.rules import Rule, SchemaCheck, SqlCheck, ValidatorCheck
from assay.judge.nested import is_nested, type_at
from assay.judge.outcome import Evidence, Outcome
from assay.judge.outcome import failed_severity as _fail
from assay.judge.schema_change import judge_schema_change

if TYPE_CHECKING:
    from assay.dialects.validator_functions import ValidatorResult


def judge_schema(rule: Rule, schema: Sequence[tuple[str, str]]) -> Outcome:
    """Judge a schema rule against ``(column, type)`` pairs (Spark simple type strings)."""
    check = rule.check
    assert isinstance(check, SchemaCheck)
    name = (lambda c: c) if check.case_sensitive else str.lower
    types = {name(c): kind for c, kind in schema}
    at = {c: _type_of(types, c, name) for c in (*check.required, *(c for c, _ in check.types))}
    problems = [f"missing column {c}" for c in check.required if at[c] is None]
    problems += _not_exactly(check, [name(c) for c, _ in schema], name)
    problems += [f"forbidden column {c} is present" for c in check.forbidden if name(c) in types]
    for column, expected in check.types:
        actual = at[column]
        if actual is None:
            problems.append(f"missing column {column} (expected {expected})")
        elif not type_matches(expected, actual):
            problems.append(f"column {column} is {actual}, expected {expected}")
    counted = check.column_count
    if counted is not None and not counted.holds(len(schema)):
        problems.append(f"{len(schema)} columns, expected {counted.text}")
    # a rule on the whole column list reports it (Great Expectations' observed_value)
    listed = {"columns": [c for c, _ in schema], "types": [k for _, k in schema]}
    columns = listed if check.exactly or counted is not None else None
    if problems:
        said = "schema: " + "; ".join(problems)
        return Outcome(_fail(rule), len(problems), None, said, columns)
    return Outcome("pass", 0, None, f"schema matches ({len(schema)} columns)", columns)


def _type_of(types: dict[str, str], column: str, name: Any) -> str | None:
    """A column's type; a path into a column (``a.b``, ``a[].b``: a data contract's nested
    property) when no column has that name."""
    found = types.get(name(column))
    return type_at(types, column, name) if found is None and is_nested(column) else found


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
    >>> type_matches("tinyint|int|decimal(*,0)", "decimal(12,0)")
    True
    """
    actual = actual.lower().replace(" ", "")
    if "|" in expected or "*" in expected:
        # a data contract's family of types (dialects/odcs_types.py): alternatives, globs
        return any(fnmatch.fnmatchcase(actual, one) for one in expected.split("|"))
    if expected == "decimal":
        return actual.startswith("decimal")
    return actual == expected.replace(" ", "")


def judge_sql(rule: Rule, rows_returned: int, value: Any) -> Outcome:
    """Judge a SQL rule from what its query returned."""
    check = rule.check
    assert isinstance(check, SqlCheck)
    custom = dict(rule.params).get("error_message")
    if check.mode == "value":
        return _judge_value(rule, check, rows_returned, value)
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


def _judge_value(rule: Rule, check: SqlCheck, rows_returned: int, value: Any) -> Outcome:
    """A query's number judged by its thresholds, as a metric's value is: no row, NULL
    or NaN has no value and fails; a value that is not a number is an error."""
    if rows_returned > 1:
        return Outcome(
            "error", None, None, f"the query returned {rows_returned} rows; expected one number"
        )
    if isinstance(value, bool) or not (value is None or isinstance(value, (int, float, Decimal))):
        return Outcome("error", None, None, f"the query returned {value!r}, not a number")
    must = f"; must be {check.must.text}" if check.must is not None else ""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        said = "no row" if rows_returned == 0 else "NULL" if value is None else "NaN"
        return Outcome(_fail(rule), None, None, f"the query returned {said}{must}")
    number = float(value)
    shown = f"the query's value = {_number_text(number)}"
    if check.must is not None and not check.must.holds(value):
        return Outcome(_fail(rule), None, number, shown + must)
    if check.warn is not None and not check.warn.holds(value):
        return Outcome("warn", None, number, f"{shown}; warn unless {check.warn.text}", held=True)
    return Outcome("pass", None, number, shown + must)


def _number_text(number: float) -> str:
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else repr(number)


def _said(value: object) -> str:
    return "NULL" if value is None else str(value).lower()


def judge_validator(rule: Rule, verdict: ValidatorResult | str | None) -> Outcome:
    """Judge a validator rule from what its function returned (a text: why it returned
    nothing usable)."""
    assert isinstance(rule.check, ValidatorCheck)
    if verdict is None or isinstance(verdict, str):
        return Outcome("error", None, None, verdict or f"validator {rule.kind} was not called")
    severity = "pass" if verdict.passed else _fail(rule)
    message = verdict.message or ("passed" if verdict.passed else "failed")
    return Outcome(severity, verdict.failed_count, verdict.metric_value, message)


def schema_judge(rule: Rule, check: SchemaCheck, evidence: Evidence) -> Outcome:
    """:func:`judge_schema` reading :attr:`Evidence.schema`."""
    return judge_schema(rule, evidence.schema)


def schema_change_judge(rule: Rule, check: SchemaChangeCheck, evidence: Evidence) -> Outcome:
    """:func:`~assay.judge.schema_change.judge_schema_change` reading
    :attr:`Evidence.schema` and :attr:`Evidence.earlier`."""
    return judge_schema_change(rule, evidence.schema, evidence.earlier)


def sql_judge(rule: Rule, check: SqlCheck, evidence: Evidence) -> Outcome:
    """:func:`judge_sql` reading :attr:`Evidence.answer`, the rule's query's."""
    if evidence.answer is None:
        raise TypeError(f"{rule.kind}: a SQL rule is judged from its query's answer")
    rows, value = evidence.answer
    return judge_sql(rule, rows, value)


def validator_judge(rule: Rule, check: ValidatorCheck, evidence: Evidence) -> Outcome:
    """:func:`judge_validator` reading :attr:`Evidence.verdict`."""
    return judge_validator(rule, evidence.verdict)

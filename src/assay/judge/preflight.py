"""Rules against a table's schema, before any scan (pure: takes the schema as data).

Every problem names the rule's config location. Column names resolve
case-insensitively, as Spark resolves them by default.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from assay.errors import PreflightError
from assay.ir.rules import Rule, SchemaCheck, TypeFamily, TypeRequirement
from assay.ir.suite import Table
from assay.judge.nested import is_nested, type_at

Schema = Sequence[tuple[str, str]]
"""``(column, Spark type string)`` pairs, e.g. ``("amount", "decimal(10,2)")``."""

_NUMERIC = re.compile(r"(tinyint|smallint|int|bigint|float|double|decimal(\(\d+,\s*\d+\))?)$")
_STRING = re.compile(r"(string|varchar\(\d+\)|char\(\d+\))$")
_TEMPORAL = re.compile(r"(date|timestamp|timestamp_ntz|timestamp_ltz)$")


def family_of(spark_type: str) -> set[TypeFamily]:
    """The rule type families a Spark type belongs to.

    >>> sorted(family_of("decimal(10,2)"))
    ['any', 'number_string_or_temporal', 'numeric', 'orderable']
    >>> sorted(family_of("varchar(5)"))
    ['any', 'number_string_or_temporal', 'orderable', 'string', 'string_or_temporal']
    """
    t = spark_type.lower().strip()
    families: set[TypeFamily] = {"any"}
    if _NUMERIC.match(t):
        families |= {"numeric", "orderable", "number_string_or_temporal"}
    elif _STRING.match(t):
        families |= {"string", "orderable", "string_or_temporal", "number_string_or_temporal"}
    elif _TEMPORAL.match(t):
        families |= {"temporal", "orderable", "string_or_temporal", "number_string_or_temporal"}
    elif t == "boolean":
        families |= {"boolean", "orderable"}
    return families


_FAMILY_WORDS: dict[TypeFamily, str] = {
    "string": "a string",
    "numeric": "a number",
    "orderable": "a number, string, date or timestamp",
    "temporal": "a date or timestamp",
    "boolean": "a boolean",
    "string_or_temporal": "a string, date or timestamp",
    "number_string_or_temporal": "a number, string, date or timestamp",
    "any": "any type",
}


def orderable(spark_type: str) -> bool:
    """Whether Spark can sort by a column of this type (maps and variants it cannot,
    even nested)."""
    return "map<" not in spark_type and "variant" not in spark_type


_INTERPOLABLE = frozenset({"tinyint", "smallint", "int", "bigint", "float", "double", "date"})


def interpolable(spark_type: str) -> bool:
    """Whether a point between two values of this type can be computed client-side
    (numbers and dates: the detail plan's key bounds, :func:`assay.planner.cost.key_bound`).

    >>> interpolable("bigint"), interpolable("decimal(15,2)"), interpolable("string")
    (True, True, False)
    """
    return spark_type in _INTERPOLABLE or spark_type.startswith("decimal(")


def check_table(table: Table, schema: Schema, keys: Sequence[str]) -> list[PreflightError]:
    """Every mismatch between the table's rules (and keys) and its schema."""
    types = {name.lower(): (name, kind) for name, kind in schema}
    problems = [
        _missing(key, types, table.place("keys"), "key column")
        for key in keys
        if key.lower() not in types
    ]
    for rule in table.rules:
        problems += check_rule(rule, types)
    return problems


def check_rule(rule: Rule, types: dict[str, tuple[str, str]]) -> list[PreflightError]:
    """Problems of one rule: missing columns, then columns of the wrong kind."""
    problems: list[PreflightError] = []
    wanted = dict.fromkeys([*rule.columns, *(c for c, _ in rule.requires)])
    if isinstance(rule.check, SchemaCheck):
        return problems  # a schema rule reports missing columns as its own result
    for column in wanted:
        if column.lower() not in types and not _nested_in(column, types):
            problems.append(_missing(column, types, rule.origin, f"{rule.kind}: column"))
    for column, family in rule.requires:
        found = types.get(column.lower())
        if found is not None and family not in family_of(found[1]):
            problems.append(
                PreflightError(
                    f"{rule.kind}: column {found[0]} is {found[1]}, but this rule needs "
                    f"{_FAMILY_WORDS[family]}",
                    origin=rule.origin,
                )
            )
    if not problems:
        problems += [
            PreflightError(message, origin=rule.origin, hint=req.hint)
            for req in rule.type_checks
            if (message := _type_problem(req, types)) is not None
        ]
    return problems


def _nested_in(path: str, types: dict[str, tuple[str, str]]) -> bool:
    """A path into a column (``a.b``, ``a[].b``: a data contract's nested property) that
    its column's type has."""
    kinds = {name: kind for name, (_, kind) in types.items()}
    return is_nested(path) and type_at(kinds, path) is not None


def simple_type(spark_type: str) -> str:
    """A Spark type string as :class:`~assay.ir.rules.TypeRequirement` names it.

    >>> simple_type("decimal(10,2)"), simple_type("varchar(5)"), simple_type("INT")
    ('decimal', 'string', 'int')
    """
    t = spark_type.lower().strip()
    if t.startswith("decimal"):
        return "decimal"
    if t.startswith(("varchar(", "char(")):
        return "string"
    return t


_NUMBERS = ("tinyint", "smallint", "int", "bigint", "float", "double", "decimal")


def wider_type_exists(a: str, b: str) -> bool:
    """Whether Spark's ``TypeCoercion.findWiderTypeForTwo`` finds a common type of two
    column types (numbers with numbers, a string with any atomic type but binary and
    boolean, dates with timestamps, a type with itself).

    >>> wider_type_exists("int", "double"), wider_type_exists("int", "string")
    (True, True)
    >>> wider_type_exists("boolean", "int"), wider_type_exists("boolean", "string")
    (False, False)
    """
    a, b = simple_type(a), simple_type(b)
    if a == b:
        return True
    if a in _NUMBERS and b in _NUMBERS:
        return True
    temporal = ("date", "timestamp", "timestamp_ntz")
    if a in temporal and b in temporal:
        return True
    atomic = (*_NUMBERS, *temporal, "string")
    return (a == "string" and b in atomic) or (b == "string" and a in atomic)


def _type_problem(req: TypeRequirement, types: dict[str, tuple[str, str]]) -> str | None:
    found = types.get(req.column.lower())
    if found is None:
        return None  # reported as a missing column
    name, kind = found
    fields = {"column": name, "type": kind}
    if req.other is not None:
        other = types.get(req.other.lower())
        if other is None or wider_type_exists(kind, other[1]):
            return None
        fields |= {"other": other[0], "other_type": other[1]}
    elif simple_type(kind) in req.types:
        return None
    # placeholders by name only: values written in the config may hold braces
    return re.sub(r"\{(column|type|other|other_type)\}", lambda m: fields[m.group(1)], req.message)


def _missing(column: str, types: dict[str, tuple[str, str]], origin, what: str) -> PreflightError:
    names = [name for name, _ in types.values()]
    close = difflib.get_close_matches(column, names, n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"columns: {', '.join(names[:20])}"
    return PreflightError(
        f"{what} {column!r} does not exist in the table", origin=origin, hint=hint
    )

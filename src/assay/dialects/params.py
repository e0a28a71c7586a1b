"""Typed readers for rule parameters shared by the front ends (columns, bounds, values,
thresholds, tolerances, type names). Each returns IR-ready values or raises a located
:class:`~assay.errors.ConfigError`.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal, InvalidOperation

from assay.config.node import Node, unknown_message
from assay.grammar import parse_threshold, parse_tolerance
from assay.ir.expr import Scalar
from assay.ir.rules import TypeFamily
from assay.ir.values import ZERO_TOLERANCE, Op, Threshold, Tolerance

Bound = int | float | Decimal | dt.date | dt.datetime

COLUMN = "a column name"
COLUMNS = "a list of column names"


def column(rule: Node, key: str = "column") -> str:
    """The single column named at ``key`` (required)."""
    node = rule.require(key)
    if isinstance(node.value, list):
        raise node.error(f"expected {COLUMN}, got a list", hint="use 'columns' for several")
    return node.as_str(COLUMN)


def column_list(node: Node, what: str = COLUMNS) -> tuple[str, ...]:
    """A non-empty list of distinct, non-empty column names."""
    names: list[str] = []
    for item in node.as_list(what, non_empty=True):
        name = item.as_str(COLUMN)
        if name in names:
            raise item.error(f"duplicate column '{name}'")
        names.append(name)
    return tuple(names)


def columns(rule: Node) -> tuple[str, ...]:
    """Exactly one of ``column`` (one name) or ``columns`` (a list), as a tuple."""
    if rule.get("column") is not None and rule.get("columns") is not None:
        raise rule.error("use either 'column' or 'columns', not both")
    many = rule.get("columns")
    if many is None:
        if rule.get("column") is None:
            raise rule.error("missing required key 'column' (or 'columns')")
        return (column(rule),)
    return column_list(many)


def tolerance(rule: Node) -> tuple[Tolerance, str | None]:
    """The row-level ``tolerance`` (default: no failing row) and its text as written."""
    node = rule.get("tolerance")
    if node is None:
        return ZERO_TOLERANCE, None
    if isinstance(node.value, bool) or not isinstance(node.value, (str, int, float)):
        raise node.type_error("a tolerance (a row count, a fraction or a percentage)")
    return parse_tolerance(node.value, node.origin), _text(node)


def threshold(node: Node) -> tuple[Threshold, str]:
    """A ``must_be``/``warn`` threshold and its text as written."""
    if isinstance(node.value, bool) or not isinstance(node.value, (str, int, float)):
        raise node.type_error("a threshold such as '> 0' or 'between 1 and 10'")
    return parse_threshold(node.value, node.origin), _text(node)


def _text(node: Node) -> str:
    return node.text if node.text is not None else str(node.value).strip()


def exact_number(node: Node) -> float | Decimal:
    """A non-integer number as written: the float, or the exact decimal of its text when
    the nearest double is another number (``0.1000000000000000005`` is not 0.1).

    >>> from assay.ir.origin import Origin
    >>> exact_number(Node(0.1, Origin("f", ""), "0.1"))
    0.1
    >>> exact_number(Node(0.1, Origin("f", ""), "0.1000000000000000005"))
    Decimal('0.1000000000000000005')
    """
    value = node.as_number()
    if not isinstance(value, float) or node.text is None:
        return value
    try:
        written = Decimal(node.text.strip().replace("_", ""))
    except InvalidOperation:
        return value
    return value if written == Decimal(repr(value)) else written


def bound(node: Node) -> Bound:
    """A range bound: a number, a date or a timestamp (YAML dates or ISO-8601 strings)."""
    value = node.value
    if isinstance(value, float):
        return exact_number(node)
    if isinstance(value, (dt.date, int)) and not isinstance(value, bool):
        return node.as_number() if not isinstance(value, dt.date) else value
    if isinstance(value, str):
        text = value.strip()
        try:
            if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
                return dt.date.fromisoformat(text)
            # Python 3.10's fromisoformat does not read a trailing "Z".
            return dt.datetime.fromisoformat(re.sub(r"[zZ]$", "+00:00", text))
        except ValueError:
            raise node.error(
                f"expected a number, a date or a timestamp, got '{value}'",
                hint="dates and timestamps are ISO 8601: 2024-01-31, 2024-01-31T12:00:00",
            ) from None
    raise node.type_error("a number, a date or a timestamp")


def bound_family(value: Bound) -> TypeFamily:
    """The column kind a bound compares with: numbers with numbers, dates and
    timestamps with dates and timestamps.

    >>> bound_family(3), bound_family(dt.date(2024, 1, 1))
    ('numeric', 'temporal')
    """
    return "temporal" if isinstance(value, dt.date) else "numeric"


def column_ref(node: Node) -> str | None:
    """The column a data-validator style bound names with a leading backtick
    (```other_col`` or ```other_col```), or None for a literal bound."""
    value = node.value
    if not isinstance(value, str) or not value.startswith("`"):
        return None
    name = value[1:-1] if len(value) > 2 and value.endswith("`") else value[1:]
    if not name.strip() or "`" in name:
        raise node.error(f"expected a column reference such as `other_column, got '{value}'")
    return name


def typed_value(node: Node) -> tuple[Scalar, TypeFamily]:
    """A value compared with a column as is, with the column kind its type needs: a
    number (numeric column), a string (string), a boolean, a date or a timestamp
    (temporal). A string in ISO date or timestamp form stays a string, which Spark casts
    when the column is a date or timestamp (JSON has no date type)."""
    value = node.value
    if isinstance(value, bool):
        return value, "boolean"
    if isinstance(value, float):
        return exact_number(node), "numeric"
    if isinstance(value, int):
        return node.as_number(), "numeric"
    if isinstance(value, dt.date):
        return value, "temporal"
    if isinstance(value, str):
        iso = _ISO_TEMPORAL.fullmatch(value.strip())
        return value, "string_or_temporal" if iso else "string"
    raise node.type_error("a number, string, boolean, date or timestamp")


_ISO_TEMPORAL = re.compile(
    r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([zZ]|[+-]\d{2}:?\d{2})?)?"
)

COMPARISON_OPERATORS = {
    "==": Op.EQ, "=": Op.EQ, "!=": Op.NE, "<>": Op.NE,
    ">=": Op.GE, ">": Op.GT, "<=": Op.LE, "<": Op.LT,
}  # fmt: skip
"""Metorikku/deequ comparison operators (``==`` ... ``<``), plus SQL spellings."""


def operator(node: Node | None, default: str | None = None) -> tuple[Op, str]:
    """A comparison operator and its text (``default`` when absent)."""
    if node is None:
        assert default is not None
        return COMPARISON_OPERATORS[default], default
    text = node.as_str("an operator: ==, !=, >=, >, <=, <").strip()
    if text not in COMPARISON_OPERATORS:
        raise node.error(f"expected one of ==, !=, >=, >, <=, <; got '{text}'")
    return COMPARISON_OPERATORS[text], text


def ordered(low: Bound, high: Bound, rule: Node) -> None:
    """Reject bounds of different kinds, and ``min`` > ``max``."""
    kinds = {_kind(low), _kind(high)}
    if len(kinds) > 1:
        raise rule.error(f"min and max must be of the same kind, got {' and '.join(sorted(kinds))}")
    a, b = (_comparable(low), _comparable(high))
    if a > b:  # type: ignore[operator]
        raise rule.error(f"min ({low}) is greater than max ({high})")


def _kind(value: Bound) -> str:
    return "a date or timestamp" if isinstance(value, dt.date) else "a number"


def _comparable(value: Bound) -> object:
    """Dates as midnight timestamps; aware timestamps compared in UTC without zone."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            return value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return value
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    return value


def scalar_values(node: Node, what: str) -> tuple[Scalar, ...]:
    """A non-empty list of scalars (no nulls, no nesting), duplicates dropped in order."""
    values: list[Scalar] = []
    for item in node.as_list(what, non_empty=True):
        if item.value is None:
            raise item.error(
                "null is not allowed here",
                hint="nulls are handled by the rule itself; use not_null for them",
            )
        if not item.is_scalar():
            raise item.type_error("a string, number, boolean or date")
        value = exact_number(item) if isinstance(item.value, float) else item.value
        # by type too: in Python True == 1 and 1 == 1.0, which are other values in Spark
        if not any(type(v) is type(value) and v == value for v in values):
            values.append(value)  # type: ignore[arg-type]
    return tuple(values)


# --- Spark type names (schema rule) ------------------------------------------------------

_TYPE_ALIASES = {
    "long": "bigint",
    "integer": "int",
    "short": "smallint",
    "byte": "tinyint",
    "real": "float",
    "bool": "boolean",
    "str": "string",
    "varchar": "string",
    "text": "string",
    "numeric": "decimal",
    "dec": "decimal",
}
SPARK_TYPES = frozenset(
    {
        "string",
        "binary",
        "boolean",
        "tinyint",
        "smallint",
        "int",
        "bigint",
        "float",
        "double",
        "decimal",
        "date",
        "timestamp",
        "timestamp_ntz",
        "timestamp_ltz",
        "void",
        "variant",
    }
)
_DECIMAL = re.compile(r"(decimal|numeric|dec)(\(\d+(,\d+)?\))?")
_VARCHAR = re.compile(r"(var)?char\(\d+\)")


def spark_type(node: Node) -> str:
    """A column type name, normalised: lower case, aliases resolved (``long`` -> ``bigint``),
    any ``decimal(p,s)`` -> ``decimal``, ``varchar(n)``/``char(n)`` -> ``string``;
    complex types (``array<...>``, ``map<...>``, ``struct<...>``) and intervals pass through
    with spaces removed.
    """
    text = node.as_str("a type name such as 'bigint'")
    name = re.sub(r"\s+", "", text.lower())
    if _DECIMAL.fullmatch(name):
        return "decimal"
    if _VARCHAR.fullmatch(name):
        return "string"
    name = _TYPE_ALIASES.get(name, name)
    if name in SPARK_TYPES or "<" in name:
        return name
    if name.startswith("interval"):
        return " ".join(text.lower().split())
    raise node.error(unknown_message("column type", text, SPARK_TYPES | set(_TYPE_ALIASES)))

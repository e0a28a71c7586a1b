"""data-validator's own config checks: its ``threshold`` syntax and arithmetic, and the
checks it makes of a check's parameters (some without the table, some against the schema)."""

from __future__ import annotations

import datetime as dt
import math
import re
from decimal import Decimal
from typing import Any

from assay.config.node import Node, describe
from assay.errors import ThresholdSyntaxError
from assay.ir.rules import TypeRequirement
from assay.ir.values import Tolerance

THRESHOLD = re.compile(r"^([0-9]+\.*[0-9]*)\s*%{0,1}$", re.ASCII)
"""data-validator's ``RowBased.THRESHOLD_NUMBER_REGEX`` (``findFirstIn``; Java's ``$``
also matches before a final line terminator, as Python's does before a final ``\\n``)."""


INTEGRAL = {
    "tinyint": (-(2**7), 2**7 - 1),
    "smallint": (-(2**15), 2**15 - 1),
    "int": (-(2**31), 2**31 - 1),
    "bigint": (-(2**63), 2**63 - 1),
}
"""The integer column types data-validator compares a JSON number with (circe's
``toByte``/``toShort``/``toInt``/``toLong``: a whole number within range)."""


_UNSUPPORTED_RUNS = "data-validator accepts this in its config check but fails at run time"


def dv_threshold(node: Node | None) -> Tolerance | None:
    """A row-level ``threshold`` as data-validator reads it: a string matching its regex
    (``10``, ``0.5``, ``1.``, ``150%``, ``5 %``), computed by its own arithmetic."""
    if node is None:
        return None
    value = node.value
    if not isinstance(value, str):
        raise node.error(
            f"threshold must be a quoted string, got {describe(value)}",
            hint=f'write threshold: "{node.text or value}" (data-validator reads only a '
            "string threshold: it silently ignores an unquoted number and allows no "
            "failing row)",
        )
    if THRESHOLD.search(value) is None:
        raise ThresholdSyntaxError(
            f"Threshold `{value}` not parsable.",
            origin=node.origin,
            hint="a row count (10), a fraction of the rows below 1 (0.05) or a percentage "
            "(5%), digits and dots only, no sign and no leading space",
        )
    percent = value.endswith("%")
    number = value[:-1] if percent else value
    try:
        parsed = float(number)  # Java's toDouble, which trims like Python's float
    except ValueError:
        raise ThresholdSyntaxError(
            f"Threshold `{value}` is not a number",
            origin=node.origin,
            hint=f"{_UNSUPPORTED_RUNS} (NumberFormatException): write one decimal point, "
            "and '%' last",
        ) from None
    kind = "dv_percent" if percent else "dv_number"
    return Tolerance(kind, Decimal(repr(parsed)), value)  # type: ignore[arg-type]


def normalised(key: str, node: Node) -> Node:
    """A JSON parameter as the native builder reads it: a whole float is an integer
    where data-validator asks circe for one (``minLength: 3.0`` is 3), and a YAML date
    or timestamp is the string written (circe-yaml reads every scalar that is not a
    number, boolean or null as a string)."""
    value = node.value
    if isinstance(value, (dt.date, dt.datetime)):
        return Node(node.text or value.isoformat(), node.origin, node.text)
    whole = isinstance(value, float) and value.is_integer() and math.isfinite(value)
    if key in ("minNumRows", "minLength", "maxLength") and whole:
        return Node(int(value), node.origin, node.text)  # type: ignore[arg-type]
    return node


def _shown(node: Node) -> str:
    """A parameter as written: strings quoted, the rest as in the file."""
    if isinstance(node.value, str):
        return repr(node.value)
    return node.text or str(node.value)


def _is_number(node: Node) -> bool:
    return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def _is_ref(node: Node) -> bool:
    return isinstance(node.value, str) and node.value.startswith("`")


def _integer_types(value: int | float) -> frozenset[str]:
    if isinstance(value, float) and not value.is_integer():
        return frozenset()
    return frozenset(t for t, (lo, hi) in INTEGRAL.items() if lo <= value <= hi)


def _bound_pair(item: Node, low_key: str, high_key: str, numbers: str) -> None:
    """data-validator's ``checkMinLessThanMax`` family: two numbers must be ordered
    (``numbers`` says how), two strings (column references) must differ, and a number
    beside a string, or a value that is neither, is "Unsupported type"."""
    given = [n for n in (item.get(low_key), item.get(high_key)) if n is not None]
    if not given:
        return
    if all(_is_number(n) for n in given):
        if len(given) == 2:
            low, high = (float(given[0].value), float(given[1].value))  # type: ignore[arg-type]
            if (low >= high) if numbers == "<" else (low > high):
                relation = "less than" if numbers == "<" else "less than or equal to"
                raise item.error(
                    f"{low_key} ({given[0].value}) must be {relation} {high_key} ({given[1].value})"
                )
        return
    if all(isinstance(n.value, str) for n in given):
        if len(given) == 2 and given[0].value == given[1].value:
            raise item.error(
                f"{low_key} and {high_key} are both '{given[0].value}' (data-validator: "
                "Min[String] must be less than max[String])"
            )
        return
    shown = ", ".join(f"{n.value!r}" for n in given)
    raise item.error(
        f"Unsupported type in {shown}: {low_key} and {high_key} must both be numbers or "
        "both be `column references"
    )


def _inclusive(item: Node) -> None:
    node = item.get("inclusive")
    if node is not None and not isinstance(node.value, bool):
        raise node.error(
            f"Inclusive flag is defined, but is not a boolean, inclusive: {_shown(node)}"
        )


def config_check(kind: str, item: Node) -> tuple[TypeRequirement, ...]:
    """data-validator's ``configCheck`` of one check: what it refuses without the table
    raises here; what needs the column's type comes back as type requirements."""
    column_node = item.get("column")
    column = column_node.value if column_node is not None else None
    if kind == "rowCount":
        node = item.require("minNumRows")
        value: Any = node.value
        if not _is_number(node) or not float(value).is_integer() or value <= 0:
            raise node.error(
                f"minNumRows must be a natural number, got {_shown(node)}",
                hint="a whole number of rows, at least 1",
            )
        return ()
    if not isinstance(column, str):
        return ()  # the native builder reports the missing or wrong column
    if kind == "rangeCheck":
        return _range_check(item, column)
    if kind == "stringLengthCheck":
        _string_length_check(item)
        return ()
    if kind == "stringRegexCheck":
        _string_regex_check(item)
        return ()
    if kind == "columnSumCheck":
        _inclusive(item)
        return (
            TypeRequirement(
                column,
                frozenset({"tinyint", "smallint", "int", "bigint", "float", "double"}),
                "columnSumCheck: column {column} is {type}: data-validator sums only byte, "
                "short, int, long, float and double columns",
                hint=f"{_UNSUPPORTED_RUNS} (a decimal sum is an unsupported type); cast "
                "the column in a view, or use the native sum rule",
            ),
        )
    if kind == "columnMaxCheck":
        return (_max_value(item.require("value"), column),)
    return ()


def _string_length_check(item: Node) -> None:
    """stringLengthCheck's config check: at least one bound; numbers ordered (min <= max);
    each bound an integer (an int) or a `column."""
    if item.get("minLength") is None and item.get("maxLength") is None:
        raise item.error("Must define minLength or maxLength or both.")
    _bound_pair(item, "minLength", "maxLength", "<=")
    for key in ("minLength", "maxLength"):
        bound = item.get(key)
        if bound is None or _is_ref(bound):
            continue
        node = bound
        if not _is_number(node) or not _integer_types(node.value) >= {"int"}:  # type: ignore[arg-type]
            raise node.error(
                f"{key} must be an integer (or a `column), got {_shown(node)}",
                hint=_UNSUPPORTED_RUNS,
            )


def _string_regex_check(item: Node) -> None:
    """stringRegexCheck's config check: a regex, written as a string (not a `column)."""
    regex = item.get("regex")
    if regex is None:
        raise item.error("Must define a regex.")
    node = regex
    if not isinstance(node.value, str):
        raise node.error(f"regex must be a string, got {_shown(node)}", hint=_UNSUPPORTED_RUNS)
    if _is_ref(node):
        raise node.error(
            "a regex read from another column (`column) is not supported",
            hint="write the regular expression itself",
        )


def _range_check(item: Node, column: str) -> tuple[TypeRequirement, ...]:
    """rangeCheck's config check: at least one bound; numbers ordered (min < max, also
    when inclusive); each bound a number fitting the column's type (byte, short, int,
    long: a whole number in range; double: any number) or a `column with a common type;
    inclusive a boolean."""
    if item.get("minValue") is None and item.get("maxValue") is None:
        raise item.error("Must defined minValue or maxValue or both.")
    _bound_pair(item, "minValue", "maxValue", "<")
    _inclusive(item)
    found: list[TypeRequirement] = []
    for key in ("minValue", "maxValue"):
        node = item.get(key)
        if node is None:
            continue
        if _is_ref(node):
            other = str(node.value)[1:]
            found.append(
                TypeRequirement(
                    column,
                    frozenset(),
                    f"rangeCheck: {key} {node.value}: column {{other}} ({{other_type}}) is "
                    "not compatible with column {column} ({type})",
                    other=other[:-1] if other.endswith("`") else other,
                )
            )
            continue
        if not _is_number(node):
            raise node.error(
                f"Range constraint types not compatible with column '{column}': {key} "
                f"{_shown(node)} is neither a number nor a `column reference",
                hint="data-validator compares only with numbers or other columns",
            )
        fits = sorted(_integer_types(node.value) | {"double"})  # type: ignore[arg-type]
        found.append(
            TypeRequirement(
                column,
                frozenset(fits),
                f"rangeCheck: Range constraint types not compatible with column[{{type}}]: "
                f"'{{column}}' ({key} {node.value} fits {', '.join(fits)})",
                hint="data-validator compares a number only with a byte, short, int, long "
                "(a whole number in range) or double column; a string column with a number "
                "bound is accepted by its config check but fails at run time",
            )
        )
    return tuple(found)


def _max_value(node: Node, column: str) -> TypeRequirement:
    """columnMaxCheck's ``checkTypes``: a number for a byte/short/int/long column (whole,
    in range) or a double column, a string for a string column."""
    value = node.value
    if _is_number(node):
        types = _integer_types(value) | {"double"}  # type: ignore[arg-type]
        wanted = f"{value} fits {', '.join(sorted(types))}"
        hint = (
            "data-validator's config check refuses a float, decimal, date or timestamp "
            "column, and a number that does not fit the column's type"
        )
    elif isinstance(value, str):
        types, wanted = frozenset({"string"}), "a string needs a string column"
        hint = "write a number (unquoted) for a numeric column"
    else:
        types, wanted = frozenset(), f"{describe(value)} value"
        hint = (
            "data-validator accepts a boolean only for a boolean column, and then always "
            "fails (not implemented)"
        )
    return TypeRequirement(
        column,
        frozenset(types),
        f"columnMaxCheck: checkTypes failed for column {{column}} ({{type}}), value "
        f"{_shown(node)} ({wanted})",
        hint=hint,
    )

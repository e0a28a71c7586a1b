"""DQX check functions -> IR checks, each with DQX's own semantics (databricks-labs-dqx
0.17, ``check_funcs.py``; docs/dialects.md "DQX checks files").

A DQX row check is a Spark condition: the row lands in ``_errors`` (or ``_warnings``)
exactly when the condition is TRUE and the check's filter is TRUE, so a NULL condition
passes (``is_in_list``, ``is_in_range``, ``sql_expression`` and the comparisons pass a
NULL value). Each condition is written here as the Spark SQL text DQX's Column stands
for, with DQX's readings of its arguments: a column argument is a name or a SQL
expression (``normalize_column_expr``), a limit or a list item that is a string is a
column expression unless it is all digits (a number) or an ISO date or timestamp
(``get_limit_expr``). Dataset checks map onto assay's uniqueness check and the aggregate
pass (``SELECT coalesce(<aggregate> <op> <limit>, false) = false``, folded into the
table's one scan).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from assay.config.node import Node
from assay.ir.expr import Col, IsNull, Not, Sql, is_true
from assay.ir.metrics import CountMetric, RowCountMetric
from assay.ir.references import ForeignKeyCheck, Lookup, Reference
from assay.ir.rules import Check, MetricCheck, RowCheck, SqlCheck, TypeFamily, UniqueCheck
from assay.ir.suite import CatalogSource, Source
from assay.ir.values import Comparison, Op


@dataclass(frozen=True, slots=True)
class Mapped:
    """What one DQX check compiles to: its check, the columns it is about (those it
    names plainly, checked against the schema before any scan), DQX's default name of
    the check and its message (with ``{value}`` where DQX shows the row's value)."""

    check: Check
    columns: tuple[str, ...]
    name: str
    message: str
    row_level: bool = True
    expression: str | None = None
    """A ``sql_expression``'s predicate (analysed before any scan, at its line)."""


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_STRUCTURE = re.compile(r"""[()\[\]{},;'"`*]""")
_OPERATOR = re.compile(r"[-+/%<>=!&|~^]\s|\s[-+/%<>=!&|~^]")
_NORMALIZE = re.compile("[^a-zA-Z0-9]+")
_QUOTED = re.compile(r"^`((?:[^`]|``)*)`$")


def normalize(text: str) -> str:
    """DQX's ``normalize_col_str``: the name part of a check's default name."""
    return _NORMALIZE.sub("_", text[:255].lower()).rstrip("_")


@dataclass(frozen=True, slots=True)
class Target:
    """A column argument as DQX reads it: its SQL (``normalize_column_expr``), its text
    in messages, its normalized name, and the column name when it is a plain one."""

    sql: str
    shown: str
    norm: str
    column: str | None


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def target(node: Node) -> Target:
    """A column argument: a column name (a dotted path is a struct field) or a SQL
    expression (``try_element_at(m, 'k')``)."""
    text = node.as_str("a column name or a SQL expression")
    quoted = _QUOTED.match(text)
    shown = quoted.group(1).replace("``", "`") if quoted else text
    if _STRUCTURE.search(text) or _OPERATOR.search(text):
        # an expression: one operand wherever the condition puts it, as DQX's Column is
        sql = text if quoted else f"({text})"
    else:
        sql = ".".join(s if _IDENTIFIER.match(s) else _quote(s) for s in text.split("."))
    plain = shown if quoted or _IDENTIFIER.match(text) else None
    return Target(sql, shown, normalize(shown), plain)


_SIMPLE = re.compile(r"^(?:'(?:[^'\\]|\\.)*'|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)$")
"""A quoted string or a (dotted) name: an operand as it is."""


def _operand(text: str) -> str:
    """A SQL expression as one operand wherever a condition puts it (as DQX's Column
    is): parenthesized unless it is a quoted string or a name."""
    return text if _SIMPLE.match(text) else f"({text})"


def _number_sql(value: int | float) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "CAST('NaN' AS DOUBLE)"
        if math.isinf(value):
            return f"CAST('{'' if value > 0 else '-'}Infinity' AS DOUBLE)"
        return f"CAST({value!r} AS DOUBLE)"
    return str(value)


def _date_sql(value: dt.date) -> str:
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP'{value.isoformat(sep=' ')}'"
    return f"DATE'{value.isoformat()}'"


def is_expression(node: Node) -> bool:
    """Whether DQX reads this limit or list item as a SQL expression (a string that is
    not all digits nor an ISO date or timestamp)."""
    value = node.value
    if not isinstance(value, str) or value.isdigit():
        return False
    try:
        dt.datetime.fromisoformat(value)
    except ValueError:
        return True
    return False


def limit(node: Node, what: str = "limit") -> tuple[str, str]:
    """A limit as DQX's ``get_limit_expr`` reads it, as (SQL, text in messages): a
    number or a date as a literal of its type (a float a DOUBLE), a string of digits as
    a number, an ISO date (or timestamp, with a ':') as a DATE (TIMESTAMP), any other
    string as a SQL expression (a column, ``col2 * 2``, ``'quoted text'``)."""
    value = node.value
    if value is None:
        raise node.error(f"{what} is not provided", hint="DQX: MissingParameterError")
    if isinstance(value, bool):
        return ("TRUE" if value else "FALSE"), str(value).lower()
    if isinstance(value, (int, float)):
        return _number_sql(value), str(value)
    if isinstance(value, dt.date):
        return _date_sql(value), str(value)
    if isinstance(value, str):
        if value.isdigit():
            return value, value
        try:
            parsed = dt.datetime.fromisoformat(value)
        except ValueError:
            return _operand(value), value
        if ":" in value:
            return _date_sql(parsed), str(parsed)
        return _date_sql(parsed.date()), str(parsed.date())
    raise node.type_error("a number, a date, or a string (a column or SQL expression)")


class Args:
    """The ``arguments`` of a check: read by name, DQX's earlier names accepted
    (``col_name``, ``col_name1``...), unknown names refused as DQX's
    signature validation refuses them."""

    def __init__(
        self,
        node: Node,
        function: str,
        allowed: frozenset[str],
        row_filter: str | None = None,
        frames: Callable[[Node], Source] | None = None,
    ) -> None:
        self.node, self.function, self.row_filter = node, function, row_filter
        self.frames = frames
        """Where a DataFrame DQX is handed by name (``ref_df_name``) is read from."""
        mapping = node.as_mapping("the arguments of a check (a mapping)")
        self.values: dict[str, Node] = {}
        for key, value in mapping.items():
            name = _OLD_NAMES.get(key, key)
            if name not in allowed:
                known = ", ".join(sorted(allowed)) or "none"
                raise value.error(
                    f"DQX: unexpected argument '{key}' for function '{function}'",
                    hint=f"its arguments: {known}",
                )
            self.values[name] = value

    def get(self, key: str) -> Node | None:
        node = self.values.get(key)
        return None if node is None or node.value is None else node

    def require(self, key: str) -> Node:
        node = self.get(key)
        if node is None:
            raise self.node.error(
                f"DQX: function '{self.function}' needs the argument '{key}'",
                hint="DQX: MissingParameterError",
            )
        return node

    def flag(self, key: str, default: bool = False) -> bool:
        node = self.get(key)
        return default if node is None else node.as_bool()

    def integer(self, key: str, default: int) -> int:
        node = self.get(key)
        return default if node is None else node.as_int("an integer")

    sql_written: bool = False
    """Whether a column or a limit is a SQL expression the user wrote: the check's
    condition is then analysed by Spark before any scan, at the arguments' place."""

    def target(self, key: str = "column") -> Target:
        found = target(self.require(key))
        self.sql_written = self.sql_written or found.column is None
        return found

    def limit(self, node: Node, what: str = "limit") -> tuple[str, str]:
        self.sql_written = self.sql_written or is_expression(node)
        return limit(node, what)


_OLD_NAMES = {"col_name": "column", "col_name1": "column1", "col_name2": "column2"}
"""DQX's first argument names (``col_functions.py``), read as the current ones (its
``col_names``, the check once per column, is read as ``for_each_column``)."""


def _row(condition: str, targets: tuple[Target, ...], name: str, message: str) -> Mapped:
    """A row check: the row fails where ``condition`` is TRUE (NULL passes)."""
    columns = tuple(t.column for t in targets if t.column is not None)
    return Mapped(RowCheck(is_true(Sql(condition))), columns, name, message)


def _is_not_null(a: Args) -> Mapped:
    t = a.target()
    return _row(f"{t.sql} IS NULL", (t,), f"{t.norm}_is_null", f"Column '{t.shown}' value is null")


def _is_null(a: Args) -> Mapped:
    t = a.target()
    message = f"Column '{t.shown}' value is not null"
    return _row(f"{t.sql} IS NOT NULL", (t,), f"{t.norm}_is_not_null", message)


def _trimmed(a: Args, t: Target) -> str:
    return f"trim({t.sql})" if a.flag("trim_strings") else t.sql


def _is_not_empty(a: Args) -> Mapped:
    t = a.target()
    condition = f"CAST({_trimmed(a, t)} AS STRING) = ''"
    return _row(condition, (t,), f"{t.norm}_is_empty", f"Column '{t.shown}' value is empty")


def _is_empty(a: Args) -> Mapped:
    t = a.target()
    condition = f"CAST({_trimmed(a, t)} AS STRING) != ''"
    message = f"Column '{t.shown}' value is not empty"
    return _row(condition, (t,), f"{t.norm}_is_not_empty", message)


def _is_not_null_and_not_empty(a: Args) -> Mapped:
    t = a.target()
    x = _trimmed(a, t)
    condition = f"{x} IS NULL OR (CAST({x} AS STRING) IS NULL OR CAST({x} AS STRING) = '')"
    message = f"Column '{t.shown}' value is null or empty"
    return _row(condition, (t,), f"{t.norm}_is_null_or_empty", message)


def _is_null_or_empty(a: Args) -> Mapped:
    t = a.target()
    x = _trimmed(a, t)
    text = f"CAST({x} AS STRING)"
    condition = f"{x} IS NOT NULL AND ({text} IS NOT NULL AND {text} != '')"
    message = f"Column '{t.shown}' value is not null and not empty"
    return _row(condition, (t,), f"{t.norm}_is_not_null_and_not_empty", message)


def _values(a: Args, key: str) -> tuple[list[str], list[str]]:
    """A list of allowed/forbidden values (each read as a limit), as SQL and as text."""
    node = a.require(key)
    items = node.as_list(f"a list of values ({key})")
    if not items:
        raise node.error(f"DQX: {key} list must not be empty", hint="DQX: InvalidParameterError")
    sql: list[str] = []
    shown: list[str] = []
    for item in items:
        if isinstance(item.value, (list, dict)):
            raise item.error(
                "DQX: list or map values in a list are not supported",
                hint="assay compares scalar values only; write the check as sql_expression",
            )
        one = a.limit(item, "a value")
        sql.append(one[0])
        shown.append(one[1])
    return sql, shown


def _in_list(a: Args, key: str, *, forbidden: bool, not_null: bool) -> Mapped:
    t = a.target()
    sql, shown = _values(a, key)
    x = t.sql
    if not a.flag("case_sensitive", default=True):
        x, sql = f"lower({x})", [f"lower({v})" for v in sql]
    found = f"{x} IN ({', '.join(sql)})"
    condition = found if forbidden else f"NOT ({found})"
    if not_null:
        condition = f"{t.sql} IS NULL OR {condition}"
    listed = ", ".join(shown)
    if forbidden:
        what, name = f"is in the forbidden list: [{listed}]", "is_in_the_forbidden_list"
    elif not_null:
        what = f"is null or not in the allowed list: [{listed}]"
        name = "is_null_or_is_not_in_the_list"
    else:
        what, name = f"is not in the allowed list: [{listed}]", "is_not_in_the_list"
    message = f"Value '{{value}}' in Column '{t.shown}' {what}"
    return _row(condition, (t,), f"{t.norm}_{name}", message)


def _nulls(a: Args, t: Target, condition: str, name: str, message: str) -> Mapped:
    """DQX's ``allow_nulls`` (default true): false also fails a null value."""
    if a.flag("allow_nulls", default=True):
        return _row(condition, (t,), f"{t.norm}_{name}", message)
    either = f"{t.sql} IS NULL OR ({condition})"
    return _row(either, (t,), f"{t.norm}_is_null_or_{name}", message)


def _compare(op: str, name: str, what: str) -> Callable[[Args], Mapped]:
    def build(a: Args) -> Mapped:
        t = a.target()
        bound, shown = a.limit(a.require("limit"))
        message = f"Value '{{value}}' in Column '{t.shown}' is {what} limit: {shown}"
        return _nulls(a, t, f"{t.sql} {op} {bound}", name, message)

    return build


def _range(inside: bool) -> Callable[[Args], Mapped]:
    def build(a: Args) -> Mapped:
        t = a.target()
        low, low_text = a.limit(a.require("min_limit"), "min_limit")
        high, high_text = a.limit(a.require("max_limit"), "max_limit")
        x = t.sql
        if inside:
            condition = f"({x} >= {low}) AND ({x} <= {high})"
            what, name = "in range", "in_range"
        else:
            condition = f"({x} < {low}) OR ({x} > {high})"
            what, name = "not in range", "not_in_range"
        message = f"Value '{{value}}' in Column '{t.shown}' {what}: [{low_text}, {high_text}]"
        return _nulls(a, t, condition, name, message)

    return build


def _equal(equal: bool) -> Callable[[Args], Mapped]:
    def build(a: Args) -> Mapped:
        t = a.target()
        for key in ("abs_tolerance", "rel_tolerance"):
            node = a.get(key)
            if node is not None and node.as_number("a tolerance") != 0:
                raise node.error(
                    f"DQX: {key} is not supported",
                    hint="assay compares exactly; remove the tolerance or write the check "
                    "as sql_expression",
                )
        value, shown = a.limit(a.require("value"), "value")
        op, name = ("!=", "not_equal_to_value") if equal else ("=", "equal_to_value")
        what = "not equal to value" if equal else "equal to value"
        message = f"Value '{{value}}' in Column '{t.shown}' is {what}: {shown}"
        return _nulls(a, t, f"{t.sql} {op} {value}", name, message)

    return build


DECIMAL_NUMBER = r"\A[+-]?(?=\.?\d)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\z"
"""A plain or exponent number as text: its digits before and after the point, and its
exponent (DQX's ``DQPattern.DECIMAL_NUMBER``)."""


def _decimal_places(a: Args) -> Mapped:
    """DQX's ``has_num_decimal_places``: the value's decimal places, read from its text
    (trailing zeros do not count, the exponent does), above the limit fail; a value that
    is not a number fails, and so does a non-NULL value whose limit is NULL."""
    t = a.target()
    bound, shown = a.limit(a.require("limit"))
    x = f"CAST({t.sql} AS STRING)"
    pattern = _sql_string(DECIMAL_NUMBER)
    integer, fraction, exponent = (f"regexp_extract({x}, {pattern}, {i})" for i in (1, 2, 3))
    power = f"CASE WHEN {exponent} = '' THEN 0 ELSE CAST({exponent} AS DOUBLE) END"
    significand = f"regexp_replace(concat({integer}, {fraction}), '0+\\\\z', '')"
    zeros = f"(length({integer}) + length({fraction}) - length({significand}))"
    places = (f"CASE WHEN {significand} = '' THEN 0 "
              f"ELSE greatest(length({fraction}) - {zeros} - {power}, 0) END")  # fmt: skip
    condition = (f"({t.sql} IS NOT NULL AND {bound} IS NULL) OR NOT ({x} RLIKE {pattern}) "
                 f"OR ({places} > {bound})")  # fmt: skip
    message = f"Value '{{value}}' in Column '{t.shown}' has more than {shown} decimal places"
    return _nulls(a, t, condition, "num_decimal_places_greater_than_limit", message)


def _regex_match(a: Args) -> Mapped:
    t = a.target()
    pattern = a.require("regex").as_str("a regular expression (Java, as Spark's rlike)")
    literal = "'" + pattern.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if a.flag("negate"):
        message = f"Column '{t.shown}' is matching regex"
        return _row(f"{t.sql} RLIKE {literal}", (t,), f"{t.norm}_matching_regex", message)
    message = f"Column '{t.shown}' is not matching regex"
    return _row(f"NOT ({t.sql} RLIKE {literal})", (t,), f"{t.norm}_not_matching_regex", message)


def _not_null_and_not_empty_array(a: Args) -> Mapped:
    t = a.target()
    message = f"Column '{t.shown}' is null or empty array"
    condition = f"{t.sql} IS NULL OR (size({t.sql}) = 0)"
    return _row(condition, (t,), f"{t.norm}_is_null_or_empty_array", message)


def _sql_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _valid_time(kind: str, key: str) -> Callable[[Args], Mapped]:
    def build(a: Args) -> Mapped:
        t = a.target()
        node = a.get(key)
        fmt = node.as_str("a datetime pattern") if node is not None else None
        parsed = f"try_to_timestamp({t.sql}" + (f", {_sql_string(fmt)})" if fmt else ")")
        condition = f"CASE WHEN {t.sql} IS NULL THEN NULL ELSE {parsed} IS NULL END"
        message = f"Value '{{value}}' in Column '{t.shown}' is not a valid {kind}"
        if fmt is not None:
            message += f" with format '{fmt}'"
        return _row(condition, (t,), f"{t.norm}_is_not_valid_{kind}", message)

    return build


def _pattern(pattern: str, suffix: str, label: str) -> Callable[[Args], Mapped]:
    def build(a: Args) -> Mapped:
        t = a.target()
        condition = (
            f"CASE WHEN {t.sql} IS NOT NULL THEN NOT ({t.sql} RLIKE {_sql_string(pattern)}) "
            "ELSE NULL END"
        )
        message = f"Value '{{value}}' in Column '{t.shown}' does not match pattern '{label}'"
        return _row(condition, (t,), f"{t.norm}_does_not_match_pattern_{suffix}", message)

    return build


def _invalid_json(sql: str) -> str:
    """TRUE for a non-NULL value that is not JSON (DQX's ``is_valid_json`` condition)."""
    return f"CASE WHEN {sql} IS NOT NULL THEN try_parse_json({sql}) IS NULL END"


def _is_valid_json(a: Args) -> Mapped:
    t = a.target()
    message = f"Value '{{value}}' in Column '{t.shown}' is not a valid JSON string"
    return _row(f"({_invalid_json(t.sql)})", (t,), f"{t.norm}_is_not_valid_json", message)


def _has_json_keys(a: Args) -> Mapped:
    t = a.target()
    node = a.require("keys")
    items = node.as_list("a list of keys")
    if not items:
        raise node.error("DQX: The 'keys' parameter must be a non-empty list of strings.")
    keys = [item.as_str("a key (a string)", allow_empty=True) for item in items]
    required = f"array_distinct(array({', '.join(_sql_string(k) for k in keys)}))"
    found = f"json_object_keys({t.sql})"
    if a.flag("require_all", default=True):
        when_valid = f"size(array_except({required}, {found})) = 0"
    else:
        when_valid = f"arrays_overlap({found}, {required})"
    invalid = f"coalesce({_invalid_json(t.sql)}, false)"
    holds = f"(CASE WHEN NOT {invalid} THEN {when_valid} ELSE false END) OR {t.sql} IS NULL"
    message = (f"Value '{{value}}' in Column '{t.shown}' is missing keys in the list: "
               f"[{', '.join(keys)}]")  # fmt: skip
    return _row(f"NOT ({holds})", (t,), f"{t.norm}_does_not_have_json_keys", message)


def _string_case(a: Args) -> Mapped:
    t = a.target()
    node = a.require("case")
    case = node.as_str("upper, lower, title or sentence")
    if case not in ("upper", "lower", "title", "sentence"):
        raise node.error(
            f"DQX: 'case' must be one of ['lower', 'sentence', 'title', 'upper'], got '{case}'"
        )
    x = f"CAST({t.sql} AS STRING)"
    if case in ("upper", "lower"):
        normal = f"{case}({x})"
    elif case == "title":
        word = "concat(upper(substring(w, 1, 1)), substring(w, 2, length(w)))"
        normal = f"array_join(transform(split({x}, ' '), w -> {word}), ' ')"
    else:
        prefix = "regexp_extract(g, '^(\\\\s*)', 1)"
        start = f"length({prefix}) + 1"
        segment = (f"concat(substring(g, 1, length({prefix})), upper(substring(g, {start}, 1)), "
                   f"substring(g, {start} + 1, length(g)))")  # fmt: skip
        normal = f"array_join(transform(split({x}, '\\\\.'), g -> {segment}), '.')"
    message = f"Value '{{value}}' in Column '{t.shown}' does not have valid '{case}' string case"
    return _row(f"{x} != {normal}", (t,), f"{t.norm}_has_invalid_{case}_string_case", message)


def _is_data_fresh(a: Args) -> Mapped:
    t = a.target()
    minutes = a.require("max_age_minutes").as_int("a number of minutes")
    node = a.get("base_timestamp")
    base, shown = a.limit(node, "base_timestamp") if node is not None else (
        "current_timestamp()", "<current time>"
    )  # fmt: skip
    condition = f"{t.sql} < {base} - INTERVAL {minutes} MINUTES"
    message = (f"Value '{{value}}' in Column '{t.shown}' is older than {minutes} minutes from "
               f"base timestamp '{shown}'")  # fmt: skip
    return _row(condition, (t,), f"{t.norm}_is_data_fresh", message)


_OCTET = r"(25[0-5]|2[0-4]\d|1\d{2}|[1-9]?\d)"
IPV4_ADDRESS = rf"\A{_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET}\z"
"""DQX's ``DQPattern.IPV4_ADDRESS``."""


IPV4_CIDR = rf"\A{_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET}/(3[0-2]|[12]?\d)\z"
"""An IPv4 CIDR block (DQX's ``DQPattern.IPV4_CIDR_BLOCK``)."""


def _ipv4_bits(sql: str) -> str:
    """The 32 bits of an IPv4 address as text (DQX's ``_convert_ipv4_to_bits``)."""
    octets = f"split(regexp_extract({sql}, {_sql_string(IPV4_ADDRESS)}, 0), '\\\\.')"
    return "concat(" + ", ".join(
        f"lpad(conv({octets}[{i}], 10, 2), 8, '0')" for i in range(4)
    ) + ")"  # fmt: skip


def _ipv4_in_cidr(a: Args) -> Mapped:
    """DQX's ``is_ipv4_address_in_cidr``: an invalid address fails, a valid one fails
    when its first prefix bits are not the block's (NULL passes)."""
    t = a.target()
    node = a.require("cidr_block")
    block = node.as_str("an IPv4 CIDR block", allow_empty=True)
    found = re.match(IPV4_CIDR.replace("\\z", "\\Z"), block)
    if not block or found is None:
        raise node.error(f"DQX: CIDR block '{block}' is not a valid IPv4 CIDR block.")
    prefix = int(found.group(5))
    bits = "".join(f"{int(o):08b}" for o in block.split("/")[0].split("."))
    network = bits[:prefix].ljust(32, "0")
    invalid = (f"coalesce(CASE WHEN {t.sql} IS NOT NULL THEN NOT ({t.sql} RLIKE "
               f"{_sql_string(IPV4_ADDRESS)}) ELSE NULL END, false)")  # fmt: skip
    outside = f"rpad(substring({_ipv4_bits(t.sql)}, 1, {prefix}), 32, '0') != '{network}'"
    message = f"Value '{{value}}' in Column '{t.shown}' is not in the CIDR block '{block}'"
    return _row(f"{invalid} OR ({outside})", (t,), f"{t.norm}_is_not_ipv4_in_cidr", message)


_HEX = "[0-9A-Fa-f]"
UUID = rf"\A{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}\z"
"""The canonical 8-4-4-4-12 hexadecimal form of a UUID (RFC 9562), any case."""
UUID_STRICT = rf"\A{_HEX}{{8}}-{_HEX}{{4}}-[1-8]{_HEX}{{3}}-[89ABab]{_HEX}{{3}}-{_HEX}{{12}}\z"
"""As :data:`UUID`, with a version (1-8) and the RFC variant (8, 9, a, b)."""


def _is_valid_uuid(a: Args) -> Mapped:
    strict = a.flag("strict")
    pattern = UUID_STRICT if strict else UUID
    label, suffix = ("UUID_STRICT", "uuid_strict") if strict else ("UUID", "uuid")
    return _pattern(pattern, suffix, label)(a)


def _future(near: bool) -> Callable[[Args], Mapped]:
    def build(a: Args) -> Mapped:
        t = a.target()
        if a.get("curr_timestamp") is not None:
            raise a.require("curr_timestamp").error(
                "DQX: curr_timestamp is a Spark Column in DQX, not a config value",
                hint="remove it: the check uses the server's current time",
            )
        offset = a.integer("offset", 0)
        later = f"from_unixtime(unix_timestamp(current_timestamp()) + {offset})"
        if near:
            condition = f"({t.sql} > current_timestamp()) AND ({t.sql} < {later})"
            message = (
                f"Value '{{value}}' in Column '{t.shown}' is greater than '<current time>"
                f" and smaller than '<current time + {offset} s>'"
            )
            return _row(condition, (t,), f"{t.norm}_in_near_future", message)
        message = (f"Value '{{value}}' in Column '{t.shown}' is greater than time "
                   f"'<current time + {offset} s>'")  # fmt: skip
        return _row(f"{t.sql} > {later}", (t,), f"{t.norm}_in_future", message)

    return build


def _older_than_n_days(a: Args) -> Mapped:
    t = a.target()
    if a.get("curr_date") is not None:
        raise a.require("curr_date").error(
            "DQX: curr_date is a Spark Column in DQX, not a config value",
            hint="remove it: the check uses the server's current date",
        )
    days = a.require("days").as_int("a number of days")
    within = f"to_date({t.sql}) >= date_sub(current_date(), {days})"
    if a.flag("negate"):
        message = (f"Value '{{value}}' in Column '{t.shown}' is less than current date "
                   f"'<current date>' for {days} or more days")  # fmt: skip
        return _row(f"NOT ({within})", (t,), f"is_col_{t.norm}_not_older_than_n_days", message)
    message = (f"Value '{{value}}' in Column '{t.shown}' is not less than current date "
               f"'<current date>' for more than {days} days")  # fmt: skip
    return _row(within, (t,), f"is_col_{t.norm}_older_than_n_days", message)


def _older_than_col2(a: Args) -> Mapped:
    t1, t2 = a.target("column1"), a.target("column2")
    days = a.integer("days", 0)
    within = f"to_date({t1.sql}) >= date_sub(to_date({t2.sql}), {days})"
    if a.flag("negate"):
        message = (f"Value '{{value}}' in Column '{t1.shown}' is less than Value '{{value2}}' "
                   f"in Column '{t2.shown}' for {days} or more days")  # fmt: skip
        name = f"is_col_{t1.norm}_not_older_than_{t2.norm}_for_n_days"
        return _row(f"NOT ({within})", (t1, t2), name, message)
    message = (f"Value '{{value}}' in Column '{t1.shown}' is not less than Value '{{value2}}' "
               f"in Column '{t2.shown}' for more than {days} days")  # fmt: skip
    return _row(within, (t1, t2), f"is_col_{t1.norm}_older_than_{t2.norm}_for_n_days", message)


def _sql_expression(a: Args) -> Mapped:
    expression = a.require("expression").as_str("a SQL expression")
    negate = a.flag("negate")
    msg = a.get("msg")
    name_node = a.get("name")
    columns: tuple[Target, ...] = ()
    columns_node = a.get("columns")
    if columns_node is not None:
        columns = tuple(target(n) for n in columns_node.as_list("a list of columns"))
    if negate:
        condition = expression
        message = f"Value is matching expression: ~({expression})"
    else:
        condition = f"NOT ({expression})"
        message = f"Value is not matching expression: {expression}"
    if name_node is not None:
        name = name_node.as_str("a name")
    else:
        name = normalize(f"NOT ({expression})" if not negate else expression)
        if columns:
            name = normalize("_".join(t.norm for t in columns) + "_" + name)
    if msg is not None:
        message = msg.as_str("a message")
    mapped = _row(f"({condition})", columns, name, message)
    return Mapped(mapped.check, mapped.columns, mapped.name, mapped.message,
                  expression=expression)  # fmt: skip


# --- dataset-level ----------------------------------------------------------------------


def _plain_columns(node: Node, *, keep_repeats: bool = False) -> tuple[str, ...]:
    """Column names only (DQX's ``F.col`` of each): a dotted path or an expression is
    refused, as assay's key checks read named columns."""
    items = node.as_list("a list of column names")
    if not items:
        raise node.error("DQX: columns must not be empty")
    names: list[str] = []
    for item in items:
        t = target(item)
        if t.column is None:
            raise item.error(
                f"DQX: '{t.shown}' is not a column name",
                hint="assay checks keys of named columns; a struct field or an expression "
                "is not supported here",
            )
        names.append(t.column)
    return tuple(names) if keep_repeats else tuple(dict.fromkeys(names))


def _is_unique(a: Args) -> Mapped:
    names = _plain_columns(a.require("columns"))
    if a.flag("trim_strings"):
        raise a.require("trim_strings").error(
            "DQX: is_unique with trim_strings is not supported",
            hint="remove trim_strings, or check trim(column) with an expression column",
        )
    if a.get("row_filter") is not None:
        raise a.require("row_filter").error(
            "DQX: row_filter is set from the check's filter", hint="write it as 'filter:'"
        )
    nulls_distinct = a.flag("nulls_distinct", default=True)
    check = UniqueCheck(names, nulls="any" if nulls_distinct else "none")
    shown = names[0] if len(names) == 1 else f"struct({', '.join(names)})"
    message = f"Value '{{value}}' in column '{shown}' is not unique, found {{count}} duplicates"
    return Mapped(check, names, f"{normalize(shown)}_is_not_unique", message, row_level=False)


def _foreign_key(a: Args) -> Mapped:
    """DQX's ``foreign_key``: a row whose key (no column null) has no match among the
    referenced keys fails; ``ref_df_name`` is read from ``--input NAME=...``,
    ``ref_table`` is a catalog table."""
    for key, why in (
        ("negate", "assay checks that keys are found; a key that must not be found has no "
         "check of assay's"),
        ("null_safe", "assay matches keys as SQL does: a null never matches"),
        ("row_filter", "it is set from the check's filter; write it as 'filter:'"),
    ):  # fmt: skip
        node = a.get(key)
        if node is not None and node.value is not False:
            raise node.error(f"DQX: foreign_key with {key} is not supported", hint=why)
    columns = _plain_columns(a.require("columns"), keep_repeats=True)
    refs = _plain_columns(a.require("ref_columns"), keep_repeats=True)
    if len(columns) != len(refs):
        raise a.require("ref_columns").error(
            "DQX: The number of columns to check against the reference columns must be equal."
        )
    frame, table = a.get("ref_df_name"), a.get("ref_table")
    if (frame is None) == (table is None):
        raise a.node.error(
            "DQX: give one of ref_df_name and ref_table",
            hint="ref_df_name names data given with --input NAME=path; ref_table a table",
        )
    if frame is not None:
        if a.frames is None:
            raise frame.error("DQX: ref_df_name is not read here")
        source: Source = a.frames(frame)
    else:
        assert table is not None
        source = CatalogSource(table.as_str("a table name"))
    check = ForeignKeyCheck(Lookup(columns, Reference(source, refs)))
    if len(columns) == 1:
        shown, ref_shown = columns[0], refs[0]
    else:
        shown = "struct(" + ", ".join(f"{c} AS {c}" for c in columns) + ")"
        pairs = zip(refs, columns, strict=True)
        ref_shown = "struct(" + ", ".join(f"{r} AS {c}" for r, c in pairs) + ")"
    name = f"{normalize(shown)}_not_exists_in_ref_{normalize(ref_shown)}"
    message = f"Value '{{value}}' in column '{shown}' not found in reference column '{ref_shown}'"
    return Mapped(check, tuple(dict.fromkeys(columns)), name, message, row_level=True)


_PLACEHOLDER = re.compile(r"\{\{[^}]*\}\}")


def _sql_query(a: Args) -> Mapped:
    """DQX's dataset-level ``sql_query`` (no ``merge_columns``): its query runs over the
    table (the rows of the check's filter) and returns at most one row; when its
    condition column is TRUE (FALSE with ``negate``) DQX flags every row, NULL or no row
    passes, several rows fail the run. Run as a SQL rule of the table's plan."""
    merge = a.get("merge_columns")
    if merge is not None and merge.as_list("a list of columns"):
        raise merge.error(
            "DQX: sql_query with merge_columns is not supported",
            hint="assay runs the dataset-level form (one row: every row passes or fails)",
        )
    if a.get("row_filter") is not None:
        raise a.require("row_filter").error(
            "DQX: row_filter is set from the check's filter", hint="write it as 'filter:'"
        )
    query = a.require("query").as_str("a SQL query")
    condition = a.get("condition_column")
    column = condition.as_str("a column name") if condition is not None else "condition"
    placeholder = a.get("input_placeholder")
    view_name = placeholder.as_str("a name") if placeholder is not None else "input_view"
    view = VIEW if a.row_filter is None else f"(SELECT * FROM {VIEW} WHERE ({a.row_filter}))"

    def resolve(found: re.Match[str]) -> str:
        key = found.group(0).strip("{} \t")
        if key != view_name:
            raise a.require("query").error(
                f"DQX: the placeholder {found.group(0)} names a reference DataFrame",
                hint="assay runs queries over the checked table ({{" + view_name + "}}) only",
            )
        return view

    resolved = _PLACEHOLDER.sub(resolve, query)
    negate = a.flag("negate")
    value = f"{'NOT ' if negate else ''}q.{_quote(column)}"
    # no row (of the filter): DQX has no row to flag
    rows = f"(SELECT count(*) FROM {view}) > 0"
    text = f"SELECT coalesce((SELECT {value} FROM ({resolved}) AS q) AND {rows}, false) = false"
    name_node = a.get("name")
    name = name_node.as_str("a name") if name_node is not None else f"query_{column}_violation"
    msg = a.get("msg")
    said = "Value is matching query" if negate else "Value is not matching query"
    message = msg.as_str("a message") if msg is not None else f"{said}: '{query}'"
    return Mapped(SqlCheck(text), (), name, message, row_level=False)


_AGGREGATES = {
    "count": "Count",
    "sum": "Sum",
    "avg": "Average",
    "min": "Min",
    "max": "Max",
    "count_distinct": "Distinct count",
    "approx_count_distinct": "Approximate distinct count",
    "count_if": "Conditional count",
    "stddev": "Standard deviation",
    "stddev_pop": "Population standard deviation",
    "stddev_samp": "Sample standard deviation",
    "variance": "Variance",
    "var_pop": "Population variance",
    "var_samp": "Sample variance",
    "median": "Median",
    "mode": "Mode",
    "skewness": "Skewness",
    "kurtosis": "Kurtosis",
    "percentile": "Percentile",
    "approx_percentile": "Approximate percentile",
}
"""DQX's curated aggregates (``CURATED_AGGR_FUNCTIONS``), by the names DQX shows; the
first five are folded into the table's scan, the others are SQL rules joined to it."""
_PERCENTILE_ARGS = {"percentile": ("frequency",), "approx_percentile": ("accuracy",)}
"""The further arguments of the percentile aggregates (after the percentage)."""


def _aggregate_call(a: Args, aggr: str, item: str) -> tuple[str, str]:
    """The SQL of ``aggr`` over ``item`` (DQX: ``getattr(F, aggr)(item, **aggr_params)``)
    and the name DQX shows for it."""
    node = a.get("aggr_params")
    params = node.as_mapping("a mapping of parameters") if node is not None else {}
    shown = _AGGREGATES[aggr]
    if params:
        shown += " (" + ", ".join(f"{k}={v.plain()}" for k, v in params.items()) + ")"
    if aggr in _PERCENTILE_ARGS:
        if "percentile" not in params:
            raise (node or a.node).error(
                f"DQX: '{aggr}' requires aggr_params with 'percentile' key "
                "(e.g., {'percentile': 0.95})"
            )
        args = [_number_sql(params["percentile"].as_number("a percentage"))]
        for key in params:
            if key != "percentile" and key not in _PERCENTILE_ARGS[aggr]:
                raise params[key].error(f"DQX: '{aggr}' takes no parameter '{key}'")
        for key in _PERCENTILE_ARGS[aggr]:
            if key in params:
                args.append(str(params[key].as_int("an integer")))
        return f"{aggr}({item}, {', '.join(args)})", shown
    if params:
        raise (node or a.node).error(f"DQX: aggr_params are not supported with '{aggr}'")
    if aggr == "count_distinct":
        return f"count(DISTINCT {item})", shown
    return f"{aggr}({item})", shown


VIEW = "_validation_df"


def _aggregate(op: str, label: str, op_name: str) -> Callable[[Args], Mapped]:
    """``is_aggr_*``: DQX fails every row (of the filter) when ``aggregate <op> limit``
    is TRUE; a NULL aggregate (sum of no value) passes. ``count`` of a column counts its
    non-null values, ``count`` of ``*`` the rows."""

    def build(a: Args) -> Mapped:
        kind = a.get("aggr_type")
        aggr = "count" if kind is None else kind.as_str("an aggregate function")
        if aggr not in _AGGREGATES:
            raise (kind or a.node).error(
                f"DQX: aggr_type '{aggr}' is not supported",
                hint=f"assay runs DQX's curated aggregates: {', '.join(_AGGREGATES)}",
            )
        if a.get("group_by") is not None:
            return _per_group(a, aggr, label, op_name)
        for key in ("row_filter", "abs_tolerance", "rel_tolerance"):
            node = a.get(key)
            if node is not None:
                raise node.error(
                    f"DQX: {key} is not supported in '{a.function}'",
                    hint="assay checks the aggregate over the whole table (and the check's filter)",
                )
        t = a.target()
        if t.shown == "*" and aggr != "count":
            raise a.require("column").error(f"DQX: '*' is only valid with count, not {aggr}")
        bound, shown = a.limit(a.require("limit"))
        column = "*" if t.shown == "*" else t.sql
        name = f"{t.norm}_{aggr}_{op_name}_limit".lstrip("_")
        targets = (t,) if t.shown != "*" else ()
        # count(1) is count(*), in the form the aggregate pass folds
        rows = (
            "count(1)" if a.row_filter is None else f"count(CASE WHEN ({a.row_filter}) THEN 1 END)"
        )
        if column == "*":
            value, called = rows, _AGGREGATES[aggr]
        elif a.row_filter is None:
            value, called = _aggregate_call(a, aggr, column)
        else:
            value, called = _aggregate_call(
                a, aggr, f"CASE WHEN ({a.row_filter}) THEN {column} END"
            )
        message = (f"{called} value {{value}} in column '{t.shown}' is {label} "
                   f"limit: {shown}")  # fmt: skip
        # no row (of the filter): DQX has no row to flag, whatever the aggregate
        query = f"SELECT coalesce({value} {op} {bound} AND {rows} > 0, false) = false FROM {VIEW}"
        columns = tuple(x.column for x in targets if x.column is not None)
        return Mapped(SqlCheck(query), columns, name, message, row_level=False)

    return build


_PASSES = {"greater_than": Op.LE, "less_than": Op.GE, "not_equal_to": Op.EQ, "equal_to": Op.NE}
"""What a group's count must be, by the DQX comparison that flags it."""


def _per_group(a: Args, aggr: str, label: str, op_name: str) -> Mapped:
    """``is_aggr_*`` with ``group_by``: DQX flags the rows of every group whose
    aggregate compares TRUE with the limit. Only ``count`` (a number for every group,
    never NULL or NaN) is run per group: a group's NULL or NaN aggregate is judged by
    DQX's Spark comparison, which assay's per-group thresholds do not reproduce."""
    if aggr != "count" or a.get("aggr_params") is not None:
        raise a.require("group_by").error(
            f"DQX: group_by with aggr_type '{aggr}' is not supported",
            hint="assay checks count per group; a group's sum, avg, min or max may be NULL "
            "or NaN, which DQX judges by Spark's comparison",
        )
    for key in ("aggr_params", "row_filter"):
        node = a.get(key)
        if node is not None:
            raise node.error(f"DQX: {key} is not supported in '{a.function}'")
    by = _plain_columns(a.require("group_by"))
    t = a.target()
    node = a.require("limit")
    if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
        raise node.error(
            "DQX: a per-group limit must be a number",
            hint="assay compares each group's count with a number",
        )
    value = node.value
    must = Comparison(_PASSES[op_name], Decimal(repr(value)), f"{_PASSES[op_name].value} {value}")
    metric: RowCountMetric | CountMetric
    if t.shown == "*":
        metric = RowCountMetric()
    elif t.column is not None:
        metric = CountMetric(Not(IsNull(Col(t.column))))
    else:
        metric = CountMetric(Not(IsNull(Sql(t.sql))))
    check = MetricCheck(metric, must, group_by=by)
    name = f"{t.norm}_{aggr}_group_by_{'_'.join(by)}_{op_name}_limit".lstrip("_")
    message = (f"Count value {{value}} in column '{t.shown}' per group of columns "
               f"'{', '.join(by)}' is {label} limit: {value}")  # fmt: skip
    columns = tuple(dict.fromkeys(((t.column,) if t.column else ()) + by))
    return Mapped(check, columns, name, message, row_level=False)


@dataclass(frozen=True, slots=True)
class Function:
    """A DQX check function assay runs: its builder and its argument names."""

    build: Callable[[Args], Mapped]
    keys: frozenset[str]


def _keys(*names: str) -> frozenset[str]:
    return frozenset(names)


_COLUMN = _keys("column")
_TRIM = _keys("column", "trim_strings")
_LIST = _keys("column", "allowed", "case_sensitive")
_LIMIT = _keys("column", "limit", "allow_nulls")
_RANGE = _keys("column", "min_limit", "max_limit", "allow_nulls")
_AGGR = _keys("column", "limit", "aggr_type", "group_by", "row_filter", "aggr_params")

FUNCTIONS: dict[str, Function] = {
    "is_not_null": Function(_is_not_null, _COLUMN),
    "is_null": Function(_is_null, _COLUMN),
    "is_not_empty": Function(_is_not_empty, _TRIM),
    "is_empty": Function(_is_empty, _TRIM),
    "is_not_null_and_not_empty": Function(_is_not_null_and_not_empty, _TRIM),
    "is_null_or_empty": Function(_is_null_or_empty, _TRIM),
    "is_in_list": Function(
        lambda a: _in_list(a, "allowed", forbidden=False, not_null=False), _LIST
    ),
    "is_not_null_and_is_in_list": Function(
        lambda a: _in_list(a, "allowed", forbidden=False, not_null=True), _LIST
    ),
    "is_not_in_list": Function(
        lambda a: _in_list(a, "forbidden", forbidden=True, not_null=False),
        _keys("column", "forbidden", "case_sensitive"),
    ),
    "is_not_null_and_not_empty_array": Function(_not_null_and_not_empty_array, _COLUMN),
    "is_in_range": Function(_range(False), _RANGE),
    "is_not_in_range": Function(_range(True), _RANGE),
    "is_not_less_than": Function(_compare("<", "less_than_limit", "less than"), _LIMIT),
    "is_not_greater_than": Function(_compare(">", "greater_than_limit", "greater than"), _LIMIT),
    "is_equal_to": Function(
        _equal(True), _keys("column", "value", "allow_nulls", "abs_tolerance", "rel_tolerance")
    ),
    "is_not_equal_to": Function(
        _equal(False), _keys("column", "value", "allow_nulls", "abs_tolerance", "rel_tolerance")
    ),
    "is_valid_date": Function(_valid_time("date", "date_format"), _keys("column", "date_format")),
    "is_valid_timestamp": Function(
        _valid_time("timestamp", "timestamp_format"), _keys("column", "timestamp_format")
    ),
    "is_not_in_future": Function(_future(False), _keys("column", "offset", "curr_timestamp")),
    "is_not_in_near_future": Function(_future(True), _keys("column", "offset", "curr_timestamp")),
    "is_older_than_n_days": Function(
        _older_than_n_days, _keys("column", "days", "curr_date", "negate")
    ),
    "is_older_than_col2_for_n_days": Function(
        _older_than_col2, _keys("column1", "column2", "days", "negate")
    ),
    "regex_match": Function(_regex_match, _keys("column", "regex", "negate")),
    "sql_expression": Function(
        _sql_expression, _keys("expression", "msg", "name", "negate", "columns")
    ),
    "is_valid_ipv4_address": Function(
        _pattern(IPV4_ADDRESS, "ipv4_address", "IPV4_ADDRESS"), _COLUMN
    ),
    "foreign_key": Function(
        _foreign_key,
        _keys(
            "columns",
            "ref_columns",
            "ref_df_name",
            "ref_table",
            "negate",
            "row_filter",
            "null_safe",
            "broadcast_ref",
        ),
    ),  # fmt: skip
    "sql_query": Function(
        _sql_query,
        _keys(
            "query",
            "merge_columns",
            "msg",
            "name",
            "negate",
            "condition_column",
            "input_placeholder",
            "row_filter",
        ),
    ),  # fmt: skip
    "is_ipv4_address_in_cidr": Function(_ipv4_in_cidr, _keys("column", "cidr_block")),
    "has_num_decimal_places": Function(_decimal_places, _LIMIT),
    "is_valid_json": Function(_is_valid_json, _COLUMN),
    "is_valid_uuid": Function(_is_valid_uuid, _keys("column", "strict")),
    "has_json_keys": Function(_has_json_keys, _keys("column", "keys", "require_all")),
    "has_valid_string_case": Function(_string_case, _keys("column", "case")),
    "is_data_fresh": Function(_is_data_fresh, _keys("column", "max_age_minutes", "base_timestamp")),
    "is_unique": Function(
        _is_unique, _keys("columns", "nulls_distinct", "row_filter", "trim_strings")
    ),
    "is_aggr_not_greater_than": Function(_aggregate(">", "greater than", "greater_than"), _AGGR),
    "is_aggr_not_less_than": Function(_aggregate("<", "less than", "less_than"), _AGGR),
    "is_aggr_equal": Function(
        _aggregate("!=", "not equal to", "not_equal_to"),
        _AGGR | {"abs_tolerance", "rel_tolerance"},
    ),
    "is_aggr_not_equal": Function(_aggregate("=", "equal to", "equal_to"), _AGGR),
}
"""Every DQX check function assay runs, by DQX's name; any other is a config error."""

OLD_FUNCTIONS = {
    "value_is_in_list": "is_in_list",
    "value_is_not_null_and_is_in_list": "is_not_null_and_is_in_list",
    "not_in_future": "is_not_in_future",
    "not_in_near_future": "is_not_in_near_future",
    "not_less_than": "is_not_less_than",
    "not_greater_than": "is_not_greater_than",
}
"""DQX's first function names (``col_functions.py``), read as the current ones."""


NOT_RUN: dict[str, str] = {
    "compare_datasets": "use assay's comparisons (assay compare, docs/compare.md)",
    "aggr_matches_dataset": "use assay's comparisons (assay compare, docs/compare.md)",
    "is_in_distribution": "a distribution test has no mapping onto assay's checks",
    "has_no_outliers": "its outlier bounds are not computed by assay",
    "has_no_aggr_outliers": "its outlier bounds are not computed by assay",
    "has_valid_schema": "write it as a native schema rule",
}
"""DQX functions refused with a reason (any other unknown name is refused too)."""


def family_of(function: str) -> TypeFamily:
    """The kind of column a check reads (its names are checked to exist before any scan;
    DQX's own coercions decide the rest)."""
    del function
    return "any"

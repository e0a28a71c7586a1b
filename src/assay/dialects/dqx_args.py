"""A DQX check's arguments as DQX reads them (databricks-labs-dqx 0.17, ``check_funcs.py``):
a column argument is a name or a SQL expression (``normalize_column_expr``), a limit or a
list item that is a string is a column expression unless it is all digits (a number) or an
ISO date or timestamp (``get_limit_expr``); and what one check compiles to (:class:`Mapped`),
the row check every row-level function builds (:func:`row`), a function's entry
(:class:`Function`). The functions themselves are in ``dqx_rows``, ``dqx_text``,
``dqx_dataset`` and ``dqx_aggregates``, gathered in ``dqx_functions``.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from assay.config.node import Node
from assay.ir.expr import Sql, is_true
from assay.ir.rules import Check, RowCheck
from assay.ir.suite import Source


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


def quote(name: str) -> str:
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
        sql = ".".join(s if _IDENTIFIER.match(s) else quote(s) for s in text.split("."))
    plain = shown if quoted or _IDENTIFIER.match(text) else None
    return Target(sql, shown, normalize(shown), plain)


_SIMPLE = re.compile(r"^(?:'(?:[^'\\]|\\.)*'|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)$")
"""A quoted string or a (dotted) name: an operand as it is."""


def _operand(text: str) -> str:
    """A SQL expression as one operand wherever a condition puts it (as DQX's Column
    is): parenthesized unless it is a quoted string or a name."""
    return text if _SIMPLE.match(text) else f"({text})"


def number_sql(value: int | float) -> str:
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
        return number_sql(value), str(value)
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


def row(condition: str, targets: tuple[Target, ...], name: str, message: str) -> Mapped:
    """A row check: the row fails where ``condition`` is TRUE (NULL passes)."""
    columns = tuple(t.column for t in targets if t.column is not None)
    return Mapped(RowCheck(is_true(Sql(condition))), columns, name, message)


def nulls(a: Args, t: Target, condition: str, name: str, message: str) -> Mapped:
    """DQX's ``allow_nulls`` (default true): false also fails a null value."""
    if a.flag("allow_nulls", default=True):
        return row(condition, (t,), f"{t.norm}_{name}", message)
    either = f"{t.sql} IS NULL OR ({condition})"
    return row(either, (t,), f"{t.norm}_is_null_or_{name}", message)


def sql_string(text: str) -> str:
    """``text`` as a Spark SQL string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


@dataclass(frozen=True, slots=True)
class Function:
    """A DQX check function assay runs: its builder and its argument names."""

    build: Callable[[Args], Mapped]
    keys: frozenset[str]


def takes(*names: str) -> frozenset[str]:
    """The argument names a function takes."""
    return frozenset(names)


COLUMN = takes("column")
TRIM = takes("column", "trim_strings")
LIMIT = takes("column", "limit", "allow_nulls")
"""The arguments several functions take alike."""

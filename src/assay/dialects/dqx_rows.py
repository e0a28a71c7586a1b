"""DQX's row-level check functions on a value: nulls and emptiness, allowed and forbidden
lists, comparisons with a limit, ranges, equality, dates and times, ``regex_match`` and
``sql_expression``, each with DQX's semantics (databricks-labs-dqx 0.17, ``check_funcs.py``).

A DQX row check is a Spark condition: the row lands in ``_errors`` (or ``_warnings``)
exactly when the condition is TRUE and the check's filter is TRUE, so a NULL condition
passes (``is_in_list``, ``is_in_range``, ``sql_expression`` and the comparisons pass a
NULL value). Each condition is written here as the Spark SQL text DQX's Column stands
for.
"""

from __future__ import annotations

from collections.abc import Callable

from assay.dialects.dqx_args import (
    COLUMN,
    LIMIT,
    TRIM,
    Args,
    Function,
    Mapped,
    Target,
    normalize,
    nulls,
    row,
    sql_string,
    takes,
    target,
)


def _is_not_null(a: Args) -> Mapped:
    t = a.target()
    return row(f"{t.sql} IS NULL", (t,), f"{t.norm}_is_null", f"Column '{t.shown}' value is null")


def _is_null(a: Args) -> Mapped:
    t = a.target()
    message = f"Column '{t.shown}' value is not null"
    return row(f"{t.sql} IS NOT NULL", (t,), f"{t.norm}_is_not_null", message)


def _trimmed(a: Args, t: Target) -> str:
    return f"trim({t.sql})" if a.flag("trim_strings") else t.sql


def _is_not_empty(a: Args) -> Mapped:
    t = a.target()
    condition = f"CAST({_trimmed(a, t)} AS STRING) = ''"
    return row(condition, (t,), f"{t.norm}_is_empty", f"Column '{t.shown}' value is empty")


def _is_empty(a: Args) -> Mapped:
    t = a.target()
    condition = f"CAST({_trimmed(a, t)} AS STRING) != ''"
    message = f"Column '{t.shown}' value is not empty"
    return row(condition, (t,), f"{t.norm}_is_not_empty", message)


def _is_not_null_and_not_empty(a: Args) -> Mapped:
    t = a.target()
    x = _trimmed(a, t)
    condition = f"{x} IS NULL OR (CAST({x} AS STRING) IS NULL OR CAST({x} AS STRING) = '')"
    message = f"Column '{t.shown}' value is null or empty"
    return row(condition, (t,), f"{t.norm}_is_null_or_empty", message)


def _is_null_or_empty(a: Args) -> Mapped:
    t = a.target()
    x = _trimmed(a, t)
    text = f"CAST({x} AS STRING)"
    condition = f"{x} IS NOT NULL AND ({text} IS NOT NULL AND {text} != '')"
    message = f"Column '{t.shown}' value is not null and not empty"
    return row(condition, (t,), f"{t.norm}_is_not_null_and_not_empty", message)


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
    return row(condition, (t,), f"{t.norm}_{name}", message)


def _compare(op: str, name: str, what: str) -> Callable[[Args], Mapped]:
    def build(a: Args) -> Mapped:
        t = a.target()
        bound, shown = a.limit(a.require("limit"))
        message = f"Value '{{value}}' in Column '{t.shown}' is {what} limit: {shown}"
        return nulls(a, t, f"{t.sql} {op} {bound}", name, message)

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
        return nulls(a, t, condition, name, message)

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
        return nulls(a, t, f"{t.sql} {op} {value}", name, message)

    return build


def _regex_match(a: Args) -> Mapped:
    t = a.target()
    pattern = a.require("regex").as_str("a regular expression (Java, as Spark's rlike)")
    literal = "'" + pattern.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if a.flag("negate"):
        message = f"Column '{t.shown}' is matching regex"
        return row(f"{t.sql} RLIKE {literal}", (t,), f"{t.norm}_matching_regex", message)
    message = f"Column '{t.shown}' is not matching regex"
    return row(f"NOT ({t.sql} RLIKE {literal})", (t,), f"{t.norm}_not_matching_regex", message)


def _not_null_and_not_empty_array(a: Args) -> Mapped:
    t = a.target()
    message = f"Column '{t.shown}' is null or empty array"
    condition = f"{t.sql} IS NULL OR (size({t.sql}) = 0)"
    return row(condition, (t,), f"{t.norm}_is_null_or_empty_array", message)


def _valid_time(kind: str, key: str) -> Callable[[Args], Mapped]:
    def build(a: Args) -> Mapped:
        t = a.target()
        node = a.get(key)
        fmt = node.as_str("a datetime pattern") if node is not None else None
        parsed = f"try_to_timestamp({t.sql}" + (f", {sql_string(fmt)})" if fmt else ")")
        condition = f"CASE WHEN {t.sql} IS NULL THEN NULL ELSE {parsed} IS NULL END"
        message = f"Value '{{value}}' in Column '{t.shown}' is not a valid {kind}"
        if fmt is not None:
            message += f" with format '{fmt}'"
        return row(condition, (t,), f"{t.norm}_is_not_valid_{kind}", message)

    return build


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
    return row(condition, (t,), f"{t.norm}_is_data_fresh", message)


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
            return row(condition, (t,), f"{t.norm}_in_near_future", message)
        message = (f"Value '{{value}}' in Column '{t.shown}' is greater than time "
                   f"'<current time + {offset} s>'")  # fmt: skip
        return row(f"{t.sql} > {later}", (t,), f"{t.norm}_in_future", message)

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
        return row(f"NOT ({within})", (t,), f"is_col_{t.norm}_not_older_than_n_days", message)
    message = (f"Value '{{value}}' in Column '{t.shown}' is not less than current date "
               f"'<current date>' for more than {days} days")  # fmt: skip
    return row(within, (t,), f"is_col_{t.norm}_older_than_n_days", message)


def _older_than_col2(a: Args) -> Mapped:
    t1, t2 = a.target("column1"), a.target("column2")
    days = a.integer("days", 0)
    within = f"to_date({t1.sql}) >= date_sub(to_date({t2.sql}), {days})"
    if a.flag("negate"):
        message = (f"Value '{{value}}' in Column '{t1.shown}' is less than Value '{{value2}}' "
                   f"in Column '{t2.shown}' for {days} or more days")  # fmt: skip
        name = f"is_col_{t1.norm}_not_older_than_{t2.norm}_for_n_days"
        return row(f"NOT ({within})", (t1, t2), name, message)
    message = (f"Value '{{value}}' in Column '{t1.shown}' is not less than Value '{{value2}}' "
               f"in Column '{t2.shown}' for more than {days} days")  # fmt: skip
    return row(within, (t1, t2), f"is_col_{t1.norm}_older_than_{t2.norm}_for_n_days", message)


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
    mapped = row(f"({condition})", columns, name, message)
    return Mapped(mapped.check, mapped.columns, mapped.name, mapped.message,
                  expression=expression)  # fmt: skip


def _coordinate(kind: str, bound: int) -> Callable[[Args], Mapped]:
    """DQX's ``is_latitude``/``is_longitude`` (``geo``): the value read as a DOUBLE
    (``try_cast``) outside ±bound fails; a value that is no number passes, as in DQX."""

    def build(a: Args) -> Mapped:
        t = a.target()
        within = f"TRY_CAST({t.sql} AS DOUBLE) BETWEEN -{bound}.0D AND {bound}.0D"
        condition = f"NOT (CASE WHEN {t.sql} IS NULL THEN NULL ELSE {within} END)"
        message = (f"value `{{value}}` in column `{t.shown}` is not a valid {kind} (must be "
                   f"between -{bound} and {bound})")  # fmt: skip
        return row(condition, (t,), f"{t.norm}_is_not_valid_{kind}", message)

    return build


_LIST = takes("column", "allowed", "case_sensitive")
_RANGE = takes("column", "min_limit", "max_limit", "allow_nulls")
_EQUAL = takes("column", "value", "allow_nulls", "abs_tolerance", "rel_tolerance")
_FUTURE = takes("column", "offset", "curr_timestamp")

FUNCTIONS: dict[str, Function] = {
    "is_not_null": Function(_is_not_null, COLUMN),
    "is_null": Function(_is_null, COLUMN),
    "is_not_empty": Function(_is_not_empty, TRIM),
    "is_empty": Function(_is_empty, TRIM),
    "is_not_null_and_not_empty": Function(_is_not_null_and_not_empty, TRIM),
    "is_null_or_empty": Function(_is_null_or_empty, TRIM),
    "is_in_list": Function(
        lambda a: _in_list(a, "allowed", forbidden=False, not_null=False), _LIST
    ),
    "is_not_null_and_is_in_list": Function(
        lambda a: _in_list(a, "allowed", forbidden=False, not_null=True), _LIST
    ),
    "is_not_in_list": Function(
        lambda a: _in_list(a, "forbidden", forbidden=True, not_null=False),
        takes("column", "forbidden", "case_sensitive"),
    ),
    "is_not_null_and_not_empty_array": Function(_not_null_and_not_empty_array, COLUMN),
    "is_in_range": Function(_range(False), _RANGE),
    "is_not_in_range": Function(_range(True), _RANGE),
    "is_not_less_than": Function(_compare("<", "less_than_limit", "less than"), LIMIT),
    "is_not_greater_than": Function(_compare(">", "greater_than_limit", "greater than"), LIMIT),
    "is_equal_to": Function(_equal(True), _EQUAL),
    "is_not_equal_to": Function(_equal(False), _EQUAL),
    "is_valid_date": Function(_valid_time("date", "date_format"), takes("column", "date_format")),
    "is_valid_timestamp": Function(
        _valid_time("timestamp", "timestamp_format"), takes("column", "timestamp_format")
    ),
    "is_not_in_future": Function(_future(False), _FUTURE),
    "is_not_in_near_future": Function(_future(True), _FUTURE),
    "is_older_than_n_days": Function(
        _older_than_n_days, takes("column", "days", "curr_date", "negate")
    ),
    "is_older_than_col2_for_n_days": Function(
        _older_than_col2, takes("column1", "column2", "days", "negate")
    ),
    "is_data_fresh": Function(_is_data_fresh, takes("column", "max_age_minutes", "base_timestamp")),
    "regex_match": Function(_regex_match, takes("column", "regex", "negate")),
    "is_latitude": Function(_coordinate("latitude", 90), COLUMN),
    "is_longitude": Function(_coordinate("longitude", 180), COLUMN),
    "sql_expression": Function(
        _sql_expression, takes("expression", "msg", "name", "negate", "columns")
    ),
}
"""The row-level functions on a value, by DQX's name."""

"""Metorikku's ``dq`` checks -> rules, read as Metorikku builds them on deequ 2.0.1: one
``{operator: {params}}`` check per rule, its level, and the parameters as Jackson and the
JVM read them (``String.toLong``, ``String.toDouble``, Spark 3.2's reading of deequ's SQL
literals) (docs/dialects.md, "Metorikku")."""

from __future__ import annotations

import datetime as dt
import math
import re
from decimal import Decimal

from assay.config.node import Node, unknown_message
from assay.errors import ConfigError, ConfigErrors
from assay.ir.expr import Col, InSet, IsNull, Not, Sql, any_of, is_true
from assay.ir.metrics import GroupMetric, Metric, RowCountMetric
from assay.ir.rules import Check, Level, MetricCheck, RowCheck, Rule, TypeFamily, UniqueCheck
from assay.ir.values import Comparison, Op, to_decimal

OPERATORS: dict[str, tuple[str, tuple[str, ...]]] = {
    "isComplete": ("not_null", ("column",)),
    "isUnique": ("unique", ("column",)),
    "hasSize": ("has_size", ("size", "operator")),
    "hasUniqueness": ("has_uniqueness", ("columns", "fraction", "operator")),
    "isContainedIn": ("is_contained_in", ("column", "allowedValues")),
}
"""deequ operator (as Metorikku names it) -> (native rule type, its parameters)."""
ASSERTIONS = {"==": Op.EQ, "!=": Op.NE, ">=": Op.GE, ">": Op.GT, "<=": Op.LE, "<": Op.LT}
"""Metorikku's ``Evaluator.dqAssertion`` operators, matched exactly (no spaces)."""
LEVELS: dict[str, Level] = {"error": "error", "warn": "warn", "warning": "warn"}
"""Metorikku's ``Operator.getLevel``: exactly these spellings (case-sensitive)."""


def _level(node: Node | None, default: Level) -> Level:
    """A ``level`` as Metorikku's ``Operator.getLevel`` reads it: ``error``, ``warn`` or
    ``warning``, exactly (``ERROR`` or ``Warn`` make Metorikku throw "Illegal DQ level")."""
    text = _jackson_text(node, "'error', 'warn' or 'warning'")
    if text is None:
        return default
    level = LEVELS.get(text)
    if level is None:
        hint = None
        if text.strip().lower() in LEVELS:
            hint = (
                f"write '{text.strip().lower()}': Metorikku matches levels exactly "
                "(lowercase, no spaces) and fails the step on any other spelling"
            )
        raise node.error(  # type: ignore[union-attr]
            f"expected 'error', 'warn' or 'warning', got '{text}'", hint=hint
        )
    return level


def dq_check(item: Node, step_level: Node | None) -> tuple[Rule, str]:
    """One ``{operator: {params}}`` check as a rule with deequ's reading, and the operator
    name. The level is the check's, else the step's, else ``warn`` (Metorikku's
    ``operator.level.getOrElse(level.getOrElse("warn"))``)."""
    mapping = item.as_mapping("a check (a mapping of one operator to its parameters)")
    if len(mapping) != 1:
        raise item.error(
            "a check is one operator with its parameters, e.g. {isComplete: {column: id}}; "
            f"got {len(mapping)} keys"
        )
    operator, params = next(iter(mapping.items()))
    if operator not in OPERATORS:
        raise params.error(unknown_message("operator", operator, OPERATORS))
    native, keys = OPERATORS[operator]
    params.as_mapping(f"the parameters of {operator} (a mapping)")
    params.check_keys({*keys, "level"})
    own = params.get("level")
    found: list[ConfigError] = []
    level: Level = "warn"
    try:
        if own is not None and own.value is not None:
            level = _level(own, "warn")
        else:
            level = _level(step_level, "warn")
    except ConfigError as e:
        found.append(e)
    try:
        check, columns, requires, threshold = _BUILDERS[operator](params)
    except ConfigError as e:
        found.append(e)
    if found:
        raise found[0] if len(found) == 1 else ConfigErrors(found)
    rule = Rule(
        kind=native,
        check=check,
        origin=item.origin,
        columns=columns,
        level=level,
        threshold=threshold,
        requires=requires,
        params=tuple((k, v.plain()) for k, v in params.as_mapping().items() if k != "level"),
    )
    return rule, operator


Built = tuple[Check, tuple[str, ...], tuple[tuple[str, TypeFamily], ...], str | None]
"""A check, its columns, the column kinds it needs, the threshold as written."""


# --- the operators, as Metorikku builds them on deequ 2.0.1 -----------------------------


def _is_complete(params: Node) -> Built:
    """deequ ``isComplete``: Completeness (non-null rows / rows) must be 1; an empty
    frame has no completeness and fails."""
    name = _column(params)
    failing = IsNull(Col(name))
    return RowCheck(failing, reports="passing_fraction"), (name,), ((name, "any"),), None


def _is_unique(params: Node) -> Built:
    """deequ ``isUnique``: Uniqueness (rows whose value occurs once / rows with a value)
    must be 1. Null values are left out (so nulls never fail it); no value at all (an
    empty frame, only nulls) fails."""
    name = _column(params)
    check = UniqueCheck((name,), reports="passing_fraction")
    return check, (name,), ((name, "any"),), None


def _has_size(params: Node) -> Built:
    """deequ ``hasSize`` with Metorikku's ``size.toLong`` and operator."""
    size_node = _required(params, "size")
    text = _jackson_text(size_node, "a row count (a Java long)")
    size = _java_long(text, size_node)  # type: ignore[arg-type]
    op_text, op = _assertion(_required(params, "operator"))
    threshold = f"{op_text} {text}"
    return _metric_check(RowCountMetric(), op, Decimal(size), threshold), (), (), threshold


def _has_uniqueness(params: Node) -> Built:
    """deequ ``hasUniqueness(columns, fraction <op>)``: the fraction of rows (where not
    every column is null) whose combination occurs once, compared as Java doubles."""
    cols = _column_list(_required(params, "columns"))
    fraction_node = params.get("fraction")
    fraction_text = _jackson_text(fraction_node, "a fraction (a Java double)")
    if fraction_text is None:
        fraction_text = "1.0"
    fraction = _java_double(fraction_text, fraction_node)
    op_node = params.get("operator")
    if op_node is None or op_node.value is None:
        op_text, op = "==", Op.EQ
    else:
        op_text, op = _assertion(op_node)
    op, value = _double_bound(op, fraction)
    threshold = f"{op_text} {fraction_text}"
    metric = GroupMetric(cols, "uniqueness", nulls="all")
    check = _metric_check(metric, op, value, threshold)
    return check, cols, tuple((c, "any") for c in cols), threshold


def _is_contained_in(params: Node) -> Built:
    """deequ ``isContainedIn(column, allowedValues)``: Compliance of
    `` `col` IS NULL OR `col` IN ('v1', ...) `` must be 1 (an empty frame fails). Spark
    3.2 compares a non-string column with the strings as strings, so the column is cast
    to a string; the values are read as Spark 3.2 reads deequ's SQL text."""
    name = _column(params)
    values_node = _required(params, "allowedValues")
    items = values_node.as_list("a list of allowed values (strings)")
    values: list[str] = []
    for item in items:
        text = _jackson_text(item, "an allowed value (a string)")
        if text is None:
            raise item.error(
                "null is not an allowed value",
                hint="Metorikku fails the step on a null here; nulls always pass isContainedIn",
            )
        read = _spark32_literal(text, item)
        if read not in values:
            values.append(read)
    if not values:  # deequ's mkString("'", "','", "'") of no value is ''
        values.append("")
    as_text = Sql(f"CAST({_quote(name)} AS STRING)")
    failing = is_true(Not(any_of(IsNull(Col(name)), InSet(as_text, tuple(values)))))
    check = RowCheck(failing, reports="passing_fraction")
    return check, (name,), ((name, "number_string_or_temporal"),), None


_BUILDERS = {
    "isComplete": _is_complete,
    "isUnique": _is_unique,
    "hasSize": _has_size,
    "hasUniqueness": _has_uniqueness,
    "isContainedIn": _is_contained_in,
}


def _metric_check(metric: Metric, op: Op, value: Decimal, text: str) -> MetricCheck:
    return MetricCheck(metric, Comparison(op, value, text))


# --- Jackson's and the JVM's readings of the parameters ----------------------------------


def _jackson_text(node: Node | None, what: str) -> str | None:
    """A parameter Metorikku declares as ``String``: Jackson gives any scalar's text as
    written (``size: 10`` is ``"10"``, ``yes`` is ``"yes"``), null for null/absent, and
    refuses a list or mapping."""
    if node is None or node.value is None:
        return None
    if isinstance(node.value, (dict, list)):
        raise node.type_error(what)
    if node.text is not None:
        return node.text
    if isinstance(node.value, str):
        return node.value
    if isinstance(node.value, bool):
        return "true" if node.value else "false"
    if isinstance(node.value, (dt.date, dt.datetime)):
        return node.value.isoformat()
    return str(node.value)


def _required(params: Node, key: str) -> Node:
    node = params.get(key)
    if node is None or node.value is None:
        raise params.error(
            f"missing required key '{key}'",
            hint="Metorikku fails the step when it is missing",
        )
    return node


def _column(params: Node) -> str:
    node = _required(params, "column")
    name = _jackson_text(node, "a column name")
    if not name:
        raise node.error("expected a column name, got an empty string")
    return name


def _column_list(node: Node) -> tuple[str, ...]:
    items = node.as_list("a list of column names")
    if not items:
        raise node.error(
            "expected at least one column",
            hint="deequ refuses no columns ('At least one column needs to be specified!'), "
            "so the check could only fail",
        )
    names: list[str] = []
    for item in items:
        name = _jackson_text(item, "a column name")
        if not name:
            raise item.error("expected a column name")
        if name not in names:
            names.append(name)
    return tuple(names)


def _assertion(node: Node) -> tuple[str, Op]:
    text = _jackson_text(node, "an operator: ==, !=, >=, >, <=, <")
    op = ASSERTIONS.get(text)  # type: ignore[arg-type]
    if op is None:
        hint = None
        if text is not None and text.strip() in ASSERTIONS:
            hint = f"write '{text.strip()}': Metorikku matches the operator exactly"
        elif text in ("=", "<>"):
            hint = "Metorikku's operators are ==, !=, >=, >, <=, <"
        raise node.error(f"expected one of ==, !=, >=, >, <=, <; got '{text}'", hint=hint)
    return text, op  # type: ignore[return-value]


_LONG = re.compile(r"[+-]?\d+")
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


def _java_long(text: str | None, node: Node) -> int:
    """``String.toLong`` (``java.lang.Long.parseLong``): an optional sign and digits, no
    spaces, no decimal point, within a 64-bit long."""
    if text is not None and _LONG.fullmatch(text):
        value = int(text)
        if LONG_MIN <= value <= LONG_MAX:
            return value
    raise node.error(
        f"expected an integer, got '{text}'",
        hint="Metorikku reads 'size' as a Java long (digits with an optional sign, no "
        "spaces or decimal point) and fails the step on anything else",
    )


_DOUBLE = re.compile(r"[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?)", re.ASCII)
_HEX_DOUBLE = re.compile(
    r"([+-]?)0[xX]([0-9a-fA-F]*)\.?([0-9a-fA-F]*)[pP]([+-]?\d+)[fFdD]?", re.ASCII
)


def _java_double(text: str, node: Node | None) -> float:
    """``String.toDouble`` (``java.lang.Double.parseDouble``): surrounding whitespace
    trimmed, ``NaN``, ``Infinity``, decimal or hexadecimal notation, an optional
    ``f``/``d`` suffix."""
    trimmed = text.strip("".join(chr(c) for c in range(33)))
    if _DOUBLE.fullmatch(trimmed):
        body = trimmed.rstrip("fFdD")
        if body.lstrip("+-") == "Infinity":
            return -math.inf if body.startswith("-") else math.inf
        if body.lstrip("+-") == "NaN":
            return math.nan
        return float(body)
    hexa = _HEX_DOUBLE.fullmatch(trimmed)
    if hexa and (hexa.group(2) or hexa.group(3)):
        sign, whole, frac, exp = hexa.groups()
        return float.fromhex(f"{sign}0x{whole or '0'}.{frac or '0'}p{exp}")
    assert node is not None  # the default "1.0" parses
    raise node.error(
        f"expected a number, got '{text}'",
        hint="Metorikku reads 'fraction' as a Java double and fails the step on anything else",
    )


def _double_bound(op: Op, fraction: float) -> tuple[Op, Decimal]:
    """``uniqueness <op> fraction`` as Metorikku's ``Evaluator`` computes it on doubles:
    ``==``/``!=`` are IEEE, the orderings ``java.lang.Double.compare`` (NaN above every
    number, -0.0 below 0.0). A measured uniqueness is in [0, 1], never NaN or -0.0, so NaN
    reads as +Infinity and -0.0 as a bound just below 0 for the orderings."""
    if math.isnan(fraction):
        return op, Decimal("Infinity")
    if fraction == 0.0 and math.copysign(1.0, fraction) < 0 and op in (Op.GT, Op.LE):
        return (Op.GE if op is Op.GT else Op.LT), Decimal(0)
    value = to_decimal(fraction)
    assert value is not None
    return op, value


def _spark32_literal(value: str, node: Node) -> str:
    """The string Spark 3.2 reads from deequ's literal for ``value``: deequ 2.0.1 doubles
    each quote (``'it''s'``), which Spark 3.2's grammar reads as two adjacent literals,
    ``'it'`` and ``'s'``, concatenated: the quotes vanish. A backslash is an escape in Spark
    SQL literals; assay refuses it rather than guess."""
    if "\\" in value:
        raise node.error(
            f"allowed value '{value}' contains a backslash",
            hint="deequ splices the values into SQL, where Spark reads a backslash as an "
            "escape; assay does not reproduce that reading",
        )
    return value.replace("'", "")


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"

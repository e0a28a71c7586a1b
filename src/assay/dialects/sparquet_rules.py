"""The rules of a sparquet ``validations`` block, with sparquet-cola 0.4.0's numbers.

sparquet's rule types have native namesakes, but sparquet-cola counts and judges some of
them differently; a block's rules are built here so they report what sparquet-cola
reports for the same data (docs/dialects.md, "sparquet"):

- ``not_null`` over several columns: the failed count is the nulls of each column,
  summed (a row with two nulls counts twice);
- ``unique``, ``duplicate_count``/``duplicate_percent``: rows minus distinct values, a
  null being a value like any other (``count(DISTINCT struct(...))``);
  ``distinct_count`` counts the null value too;
- metrics: thresholds in sparquet-cola's language (:mod:`assay.grammar.sparquet`),
  judged on doubles (no value is NaN, freshness without a value is +infinity); the
  failed count is 0 for a passing rule, the counted rows for a failing or warning
  ``missing_*``/``invalid_*``/``duplicate_*``, 0 for the other metrics, 1 for
  ``row_count``;
- ``missing_values`` and the validity options of ``invalid_*`` as sparquet-cola tests
  them: missing values compared as strings, formats, regexes and lengths on the value
  cast to a string, sparquet-cola's named formats;
- ``sql``: a boolean query passes when its first value is truthy, failing counts 1; a
  ``failed_rows`` query's row count is also its metric value;
- ``schema``: column names compared exactly, sparquet-cola's type aliases.

A key that sparquet-cola does not read but a native rule does (``tolerance``,
``inclusive``...) is refused: sparquet-cola would ignore it, so the verdict would not be
sparquet's. Other rule types (native ones sparquet-cola does not have, custom types
from Python) keep their native meaning.
"""

from __future__ import annotations

import dataclasses

from assay.config.node import Node, unknown_message
from assay.dialects import params as p
from assay.dialects.catalogue import build_rule, optional_text, rule_level, rule_type
from assay.dialects.rule_spec import COMMON_KEYS
from assay.dialects.validity import VALIDITY_KEYS, Reading, validity
from assay.grammar.sparquet import HINT, parse_sparquet_threshold
from assay.ir.expr import (
    Col,
    Expr,
    InSet,
    IsNull,
    Matches,
    Not,
    Sql,
    all_of,
    any_of,
    is_true,
)
from assay.ir.metrics import (
    ColumnFn,
    ColumnMetric,
    CountMetric,
    FreshnessMetric,
    GroupMetric,
    GroupStat,
    Metric,
    RowCountMetric,
)
from assay.ir.rules import (
    MetricCheck,
    RowCheck,
    Rule,
    SchemaCheck,
    SqlCheck,
    TypeFamily,
    UniqueCheck,
)
from assay.ir.values import Threshold

NAMED_FORMATS: dict[str, str] = {
    "email": r"^[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}$",
    "uuid": r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
    "phone": r"^\+?[0-9 ()\-]{7,}$",
    "integer": r"^[-+]?\d+$",
    "decimal": r"^[-+]?\d+(\.\d+)?$",
    "number": r"^[-+]?\d+(\.\d+)?$",
    "percentage": r"^[-+]?\d+(\.\d+)?\s*%?$",
    "date": r"^\d{4}-\d{2}-\d{2}$",
    "timestamp": r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}",
    "ip": r"^(\d{1,3}\.){3}\d{1,3}$",
    "ipv4": r"^(\d{1,3}\.){3}\d{1,3}$",
    "url": r"^https?://[^\s]+$",
    "boolean": r"^(true|false|0|1|t|f|yes|no)$",
    "alphanumeric": r"^[A-Za-z0-9]+$",
    "credit_card": r"^\d{13,19}$",
    "cpf": r"^\d{11}$|^\d{3}\.\d{3}\.\d{3}-\d{2}$",
    "cnpj": r"^\d{14}$|^\d{2}\.\d{3}\.\d{3}/\d{4}-\d{2}$",
}
"""sparquet-cola 0.4.0's named formats (``valid_format``, matched with ``rlike``, so a
pattern without ``$`` matches a prefix: ``timestamp``)."""

TYPE_ALIASES: dict[str, str] = {
    "integer": "int", "int": "int", "long": "bigint", "bigint": "bigint",
    "short": "smallint", "byte": "tinyint", "str": "string", "string": "string",
    "text": "string", "float": "float", "double": "double", "bool": "boolean",
    "boolean": "boolean", "timestamp": "timestamp", "date": "date",
}  # fmt: skip
"""sparquet-cola's ``column_types`` aliases (any other name is compared as written,
lower-cased; ``decimal(p,s)`` matches any decimal)."""

_THRESHOLDS = frozenset({"must_be", "condition", "warn"})
_ONE_OR_MANY = frozenset({"column", "columns"})
_COUNTED: dict[str, frozenset[str]] = {
    "missing_count": _THRESHOLDS | _ONE_OR_MANY | {"missing_values"},
    "invalid_count": _THRESHOLDS | _ONE_OR_MANY | {"missing_values"} | VALIDITY_KEYS,
}
_COLUMN_FNS: dict[str, ColumnFn] = {
    "min": "min", "max": "max", "avg": "avg", "sum": "sum", "stddev": "stddev",
}  # fmt: skip

KEYS: dict[str, frozenset[str]] = {
    "not_null": _ONE_OR_MANY,
    "unique": _ONE_OR_MANY,
    "range": frozenset({"column", "min", "max"}),
    "regex": frozenset({"column", "pattern"}),
    "row_count": _THRESHOLDS | {"min", "max"},
    "sql": frozenset({"query", "failed_rows", "error_message"}),
    "schema": frozenset({"required_columns", "forbidden_columns", "column_types"}),
    "distinct_count": _THRESHOLDS | _ONE_OR_MANY,
    "duplicate_count": _THRESHOLDS | _ONE_OR_MANY,
    "duplicate_percent": _THRESHOLDS | _ONE_OR_MANY,
    "missing_count": _COUNTED["missing_count"],
    "missing_percent": _COUNTED["missing_count"],
    "invalid_count": _COUNTED["invalid_count"],
    "invalid_percent": _COUNTED["invalid_count"],
    "freshness": _THRESHOLDS | _ONE_OR_MANY,
    **dict.fromkeys(_COLUMN_FNS, _THRESHOLDS | _ONE_OR_MANY),
}
"""The keys sparquet-cola 0.4.0 reads, per (canonical) rule type, besides COMMON_KEYS."""

NATIVE_ONLY = frozenset({"tolerance", "inclusive", "min_num_rows", "values"})
"""Keys of the native namesakes that sparquet-cola does not read."""


def build_sparquet_rule(node: Node) -> Rule:
    """The rule of one (expanded) validations entry, reading as sparquet-cola does.

    Raises:
        ConfigError: unknown type or key, a key sparquet-cola would ignore, a threshold
        sparquet-cola cannot read, a wrong parameter.
    """
    mapping = node.as_mapping("a rule (a mapping with a 'type')")
    kind = rule_type(node)
    if kind not in KEYS:  # a native-only or custom type
        return build_rule(node)
    allowed = COMMON_KEYS | KEYS[kind]
    for key in mapping:
        if key in NATIVE_ONLY and key not in allowed:
            raise mapping[key].error(
                f"'{key}' is not a sparquet key: sparquet-cola would ignore it, and the "
                "verdict would not be sparquet's",
                hint=f"remove it, or write the rule in a native table's 'rules' to use {key}",
            )
    node.check_keys(allowed)
    if node.get("condition") is not None and node.get("must_be") is not None:
        raise node.require("condition").error(
            "'condition' is another name of 'must_be': give one of them"
        )
    written = node.require("type").value
    if kind in ("not_null", "unique", "range", "regex", "sql"):
        return _native_shaped(node, kind)
    if kind == "schema":
        return _schema(node)
    if kind == "row_count" and (node.get("min") is not None or node.get("max") is not None):
        return _row_count_bounds(node)
    return _metric(node, kind, str(written))


def _native_shaped(node: Node, kind: str) -> Rule:
    """The native rule, with sparquet-cola's counts."""
    rule = build_rule(node)
    check = rule.check
    if kind == "not_null" and len(rule.columns) > 1:
        assert isinstance(check, RowCheck)
        summed = tuple(IsNull(Col(c)) for c in rule.columns)
        check = dataclasses.replace(check, summed=summed)
    elif kind == "unique":
        assert isinstance(check, UniqueCheck)
        check = dataclasses.replace(check, counted="surplus", nulls="none")
    elif kind == "sql":
        assert isinstance(check, SqlCheck)
        check = dataclasses.replace(check, reading="sparquet")
    return dataclasses.replace(rule, check=check)


def _row_count_bounds(node: Node) -> Rule:
    """``row_count`` with ``min`` (default 0) and/or ``max``: sparquet-cola counts 1
    failed when the count is outside, and reads no threshold beside them."""
    for key in sorted(_THRESHOLDS):
        if node.get(key) is not None:
            raise node.require(key).error(
                f"use either '{key}' or 'min'/'max', not both",
                hint="sparquet-cola reads only min/max when they are given",
            )
    rule = build_rule(node)
    check = rule.check
    assert isinstance(check, MetricCheck)
    check = dataclasses.replace(check, doubles=True, failing_count=1, count_when_passed=False)
    return dataclasses.replace(rule, check=check)


def _threshold(node: Node, key: str) -> tuple[Threshold, str]:
    value = node.value
    if not isinstance(value, str):
        raise node.error(
            f"'{key}' must be a string in sparquet's threshold language, got "
            f"{type(value).__name__} {value!r}",
            hint=f'quote it: "{key}": "= {value}"' if isinstance(value, (int, float)) else HINT,
        )
    if not value.strip():
        raise node.error(f"'{key}' is empty", hint=HINT)
    return parse_sparquet_threshold(value, node.origin), value.strip()


def _metric(node: Node, kind: str, written: str) -> Rule:
    must_node = node.get("must_be") or node.get("condition")
    if must_node is None:
        raise node.error(
            f"{written} needs 'must_be' (a threshold such as '> 0')"
            + (", or 'min'/'max'" if kind == "row_count" else "")
        )
    key = "must_be" if node.get("must_be") is not None else "condition"
    must, text = _threshold(must_node, key)
    warn_node = node.get("warn")
    warn = None
    if warn_node is not None:
        warn, warn_text = _threshold(warn_node, "warn")
        text = f"{text}; warn: {warn_text}"
    metric, columns, requires, failing = _measure(node, kind)
    check = MetricCheck(
        metric, must, warn, doubles=True, failing_count=failing, count_when_passed=False
    )
    return Rule(
        # sparquet-cola names a result by the metric as written: "mean", not "avg".
        kind="mean" if written == "mean" else kind,
        check=check,
        origin=node.origin,
        columns=columns,
        name=optional_text(node, "name"),
        level=rule_level(node),
        threshold=text,
        requires=requires,
        code=optional_text(node, "code"),
        params=tuple((k, v.plain()) for k, v in node.as_mapping().items() if k not in COMMON_KEYS),
    )


Measured = tuple[Metric, tuple[str, ...], tuple[tuple[str, TypeFamily], ...], int | None]


def _measure(node: Node, kind: str) -> Measured:
    if kind == "row_count":
        return RowCountMetric(), (), (), 1
    if kind in ("distinct_count", "duplicate_count", "duplicate_percent"):
        cols = _group_columns(node, kind)
        stat: GroupStat = {
            "distinct_count": "distinct_count",
            "duplicate_count": "surplus_count",
            "duplicate_percent": "surplus_percent",
        }[kind]  # type: ignore[assignment]
        failing = 0 if kind == "distinct_count" else None
        return GroupMetric(cols, stat, nulls="none"), cols, _any(cols), failing
    name = _one_column(node, kind)
    if kind in _COLUMN_FNS:
        metric: Metric = ColumnMetric(_COLUMN_FNS[kind], name)
        return metric, (name,), ((name, "numeric"),), 0
    if kind == "freshness":
        return FreshnessMetric(name, whole_seconds=True), (name,), ((name, "temporal"),), 0
    if kind.startswith("missing"):
        counted = missing(node, name)
        return CountMetric(counted, kind.endswith("percent")), (name,), _any((name,)), None
    found = validity(node, name, SPARQUET_VALIDITY)
    requires = tuple((name, f) for f in found.families) or _any((name,))
    return CountMetric(found.invalid, kind.endswith("percent")), (name,), requires, None


def _any(cols: tuple[str, ...]) -> tuple[tuple[str, TypeFamily], ...]:
    return tuple((c, "any") for c in cols)


def _group_columns(node: Node, kind: str) -> tuple[str, ...]:
    if node.get("column") is None and node.get("columns") is None:
        raise node.error(
            f"{kind} needs 'column' or 'columns'",
            hint="sparquet-cola then uses every column of the table; list them here",
        )
    return p.columns(node)


def _one_column(node: Node, kind: str) -> str:
    cols = p.columns(node)
    if len(cols) > 1:
        raise node.require("columns").error(
            f"{kind} measures one column, got {len(cols)}",
            hint="sparquet-cola would measure only the first one; use 'targets' for several",
        )
    return cols[0]


def _as_string(name: str) -> Expr:
    return Sql(f"CAST(`{name.replace('`', '``')}` AS STRING)")


def missing(node: Node, name: str) -> Expr:
    """sparquet-cola's missing test: null, or the value cast to a string equal to one of
    ``missing_values`` written as Python's ``str`` writes them."""
    col = Col(name)
    extra = node.get("missing_values")
    if extra is None:
        return IsNull(col)
    values = p.scalar_values(extra, "a list of values counted as missing")
    if not values:
        return IsNull(col)
    texts = tuple(_py_str(v) for v in values)
    return is_true(any_of(IsNull(col), InSet(_as_string(name), texts)))


def _py_str(value: object) -> str:
    return str(value)


def _invalid(node: Node, name: str, valid: Expr) -> Expr:
    # NOT(valid) is null when a test is null (e.g. a null among valid_values): not counted.
    return is_true(all_of(Not(missing(node, name)), Not(valid)))


def _format_name(node: Node) -> str:
    name = node.as_str("a format name such as 'email'").lower()
    if name not in NAMED_FORMATS:
        raise node.error(unknown_message("format", name, NAMED_FORMATS))
    return name


SPARQUET_VALIDITY = Reading(
    text=_as_string,
    text_family=None,
    valid_format=lambda node, name: Matches(_as_string(name), NAMED_FORMATS[_format_name(node)]),
    regex_wins=True,
    in_order=False,
    lengths=("valid_min_length", "valid_max_length", "valid_length"),
    invalid=_invalid,
    hint="without one sparquet-cola counts no value invalid",
)
"""sparquet-cola's reading of the validity options of ``invalid_*`` (:func:`validity`): not
missing, and failing one of them (all must hold for a valid value); formats, regexes and
lengths on the value cast to a string, its named formats as regexes, ``valid_regex``
winning over ``valid_format``, bounds and lengths read as written."""


def _schema(node: Node) -> Rule:
    keys = ("required_columns", "forbidden_columns", "column_types")
    if all(node.get(k) is None for k in keys):
        raise node.error(f"schema needs at least one of: {', '.join(keys)}")
    required = _names(node, "required_columns")
    forbidden = _names(node, "forbidden_columns")
    types: tuple[tuple[str, str], ...] = ()
    types_node = node.get("column_types")
    if types_node is not None:
        mapping = types_node.as_mapping("a mapping of column name to type name")
        types = tuple(
            (name, schema_type(t.as_str("a type name such as 'bigint'")))
            for name, t in mapping.items()
        )
    mentioned = tuple(dict.fromkeys((*required, *forbidden, *(c for c, _ in types))))
    check = SchemaCheck(required, forbidden, types, case_sensitive=True)
    return Rule(
        kind="schema",
        check=check,
        origin=node.origin,
        columns=mentioned,
        name=optional_text(node, "name"),
        level=rule_level(node),
        code=optional_text(node, "code"),
        params=tuple((k, v.plain()) for k, v in node.as_mapping().items() if k not in COMMON_KEYS),
    )


def _names(node: Node, key: str) -> tuple[str, ...]:
    child = node.get(key)
    return () if child is None else p.column_list(child)


def schema_type(name: str) -> str:
    """An expected type as sparquet-cola compares it: aliases resolved, lower case, and
    ``decimal`` for any ``decimal(p,s)``.

    >>> schema_type("Long"), schema_type("decimal(10,2)"), schema_type("array<int>")
    ('bigint', 'decimal', 'array<int>')
    """
    expected = name.strip().lower()
    expected = TYPE_ALIASES.get(expected, expected)
    if expected.split("(")[0] == "decimal":
        return "decimal"
    return expected


__all__ = ["KEYS", "NAMED_FORMATS", "build_sparquet_rule", "schema_type"]

"""The check map: each data-validator check type is a native rule type with renamed keys,
built by the native catalogue, its errors put back in data-validator's words."""

from __future__ import annotations

import dataclasses
import re

from assay.config.node import Node, unknown_message
from assay.dialects.base import Context
from assay.dialects.catalogue import build_rule
from assay.dialects.data_validator.config_checks import config_check, dv_threshold, normalised
from assay.dialects.data_validator.variables import Variables
from assay.errors import ConfigError, ConfigErrors
from assay.ir.rules import RowCheck, Rule, UniqueCheck

CHECKS: dict[str, tuple[str, dict[str, str]]] = {
    "rowCount": ("row_count", {"minNumRows": "min_num_rows"}),
    "nullCheck": ("not_null", {"column": "column", "threshold": "tolerance"}),
    "negativeCheck": ("negative_check", {"column": "column", "threshold": "tolerance"}),
    "rangeCheck": (
        "range_check",
        {
            "column": "column",
            "minValue": "min_value",
            "maxValue": "max_value",
            "inclusive": "inclusive",
            "threshold": "tolerance",
        },
    ),
    "stringLengthCheck": (
        "string_length_check",
        {
            "column": "column",
            "minLength": "min_length",
            "maxLength": "max_length",
            "threshold": "tolerance",
        },
    ),
    "stringRegexCheck": (
        "string_regex_check",
        {"column": "column", "regex": "regex", "threshold": "tolerance"},
    ),
    "uniqueCheck": ("unique", {"columns": "columns"}),
    "columnSumCheck": (
        "column_sum_check",
        {
            "column": "column",
            "minValue": "min_value",
            "maxValue": "max_value",
            "inclusive": "inclusive",
        },
    ),
    "columnMaxCheck": ("column_max_check", {"column": "column", "value": "value"}),
    "colstats": ("colstats", {"column": "column"}),
}
"""data-validator check type -> (native rule type, data-validator key -> native key)."""


JSON_KEYS = frozenset(
    {"minValue", "maxValue", "value", "minLength", "maxLength", "inclusive", "regex", "minNumRows"}
)
"""Parameters data-validator substitutes as JSON (``getVarSubJson``: ``"$n"`` with
``n=5`` is the number 5); the others (``column``, ``columns``, ``threshold``) stay text."""


_NATIVE_WORDS = {
    native: dv for _, keys in CHECKS.values() for dv, native in keys.items() if native != dv
} | {native: dv for dv, (native, _) in CHECKS.items() if native not in ("unique", "not_null")}


def read_checks(node: Node, ctx: Context, variables: Variables) -> tuple[Rule, ...]:
    checks_node = ctx.attempt(node.require, "checks")
    if checks_node is None:
        return ()
    items = ctx.attempt(checks_node.as_list, "a list of checks")
    if items == []:
        ctx.errors.append(
            checks_node.error(
                "expected at least one check, got an empty list",
                hint="a table with 0 checks would pass silently",
            )
        )
    rules: list[Rule] = []
    for item in items or ():
        if isinstance(item.value, dict) and variables.touches_failed(item):
            continue  # uses a variable whose definition failed: that error is reported
        if isinstance(item.value, dict) and variables.touches_deferred(item):
            # Uses a sql/shell variable: only a run knows its value. `assay check` reports
            # it as unresolved (data-validator's config check skips substitutions too).
            ctx.unresolved_rules += 1
            continue
        rule = ctx.attempt(build_check, item, variables)
        if rule is not None:
            rules.append(rule)
    return tuple(rules)


def build_check(item: Node, variables: Variables | None = None) -> Rule:
    """One data-validator check as the native rule it maps to (errors name the
    data-validator keys), with data-validator's own config checks: those it makes
    without the table (:func:`config_check`) now, those that need the schema as the
    rule's ``type_checks`` (preflight, before any scan)."""
    item.as_mapping("a check (a mapping with a 'type')")
    type_node = item.require("type")
    kind = type_node.as_str("a check type such as 'nullCheck'")
    if kind not in CHECKS:
        raise type_node.error(unknown_message("check type", kind, CHECKS))
    native, keys = CHECKS[kind]
    item.check_keys({"type", *keys})
    if variables is not None:
        item = Node(
            {k: variables.node(v, json=k in JSON_KEYS) for k, v in item.as_mapping().items()},
            item.origin,
        )
    item = Node({k: normalised(k, v) for k, v in item.as_mapping().items()}, item.origin)
    tolerance = dv_threshold(item.get("threshold"))
    type_checks = config_check(kind, item)
    renamed = {"type": Node(native, type_node.origin, type_node.text)}
    for key, child in item.as_mapping().items():
        if key not in ("type", "threshold"):
            renamed[keys[key]] = child
    try:
        rule = build_rule(Node(renamed, item.origin))
    except ConfigErrors as e:
        raise ConfigErrors([_in_dv_words(x) for x in e.errors]) from None
    except ConfigError as e:
        raise _in_dv_words(e) from None
    check = rule.check
    if isinstance(check, UniqueCheck):
        # "N duplicates found!": duplicated values, nulls grouped as a value (groupBy).
        check = dataclasses.replace(check, counted="values", nulls="none")
    if tolerance is not None:
        assert isinstance(check, RowCheck)
        check = dataclasses.replace(check, tolerance=tolerance)
    requires = rule.requires
    if kind in ("rangeCheck", "columnMaxCheck"):
        # the value's fit to the column's type is data-validator's own (type_checks)
        requires = tuple((c, f) for c, f in requires if f in ("orderable", "any"))
    params = rule.params
    if tolerance is not None:
        params = (*params, ("tolerance", tolerance.text))
    return dataclasses.replace(
        rule,
        check=check,
        threshold=tolerance.text if tolerance is not None else rule.threshold,
        requires=requires,
        params=params,
        type_checks=type_checks,
    )


def _in_dv_words(error: ConfigError) -> ConfigError:
    """A native builder's error with data-validator's key and type names."""

    def words(text: str | None) -> str | None:
        if text is None:
            return None
        return re.sub(
            r"\b(" + "|".join(map(re.escape, _NATIVE_WORDS)) + r")\b",
            lambda m: _NATIVE_WORDS[m.group(1)],
            text,
        )

    return type(error)(words(error.message) or "", origin=error.origin, hint=words(error.hint))

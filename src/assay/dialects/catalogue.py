"""The rule catalogue: every native rule type declared once (:class:`RuleSpec`).

A declaration names the builder (:mod:`assay.dialects.native_rules`), the keys, the
aliases, the schema of the values where it differs from the shared vocabulary, what the
type requires, and its documentation; the JSON Schema and the rule tables of the docs are
generated from it (``python -m assay.schema.generate``). :func:`build_rule` handles what
every rule shares (``type``, ``name``, ``level``, ``code``, unknown keys, params for
display).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from assay.config.node import Node, unknown_message
from assay.dialects import params as p
from assay.dialects.catalogue_drift import DRIFT_RULES
from assay.dialects.catalogue_metrics import METRIC_RULES
from assay.dialects.catalogue_references import REFERENCE_RULES
from assay.dialects.catalogue_rows import ROW_RULES
from assay.dialects.catalogue_sketches import SKETCH_RULES
from assay.dialects.over_time import over_time
from assay.dialects.rule_spec import COMMON_KEYS, LEVELS, Built, RuleSpec
from assay.ir.expr import Sql
from assay.ir.metrics import GroupMetric
from assay.ir.rules import Level, MetricCheck, Rule, Scope

RULES: dict[str, RuleSpec] = {
    **ROW_RULES,
    **REFERENCE_RULES,
    **METRIC_RULES,
    **SKETCH_RULES,
    **DRIFT_RULES,
}
"""Canonical rule type -> spec: the one registry of rule types, in the order the docs list
them, and the types a plugin registers (:func:`assay.dialects.plugins.register_rule`, ``custom``
specs)."""

ALIASES: dict[str, str] = {alias: kind for kind, spec in RULES.items() for alias in spec.aliases}
"""Alternative type names -> canonical type (``Rule.kind`` is always canonical)."""

WORDED: dict[str, Callable[[str, Node], Rule]] = {}
"""A rule written in another dialect's words: the key naming the dialect (in place of
``type``) -> its reader, registered by :mod:`assay.dialects.embedded`."""


def build_rule(node: Node) -> Rule:
    """The IR rule for one rule mapping; its origin is the mapping's.

    Raises:
        ConfigError: unknown type or key (with did-you-mean), wrong or missing parameter.
    """
    mapping = node.as_mapping("a rule (a mapping with a 'type')")
    worded = [key for key in WORDED if key in mapping]
    if worded and "type" not in mapping:
        return WORDED[worded[0]](worded[0], node)
    if node.get("targets") is not None:
        raise node.require("targets").error("'targets' must be expanded first (expand_targets)")
    kind = rule_type(node)
    spec = RULES[kind]
    if node.get("filter") is not None and "filter" not in spec.keys:
        raise node.require("filter").error(
            f"a {kind} rule takes no filter (it is not measured over the table's rows"
            + ("; write the condition in its query)" if kind == "sql" else ")")
        )
    node.check_keys(COMMON_KEYS | spec.keys)
    built = grouped(spec.build(node), node)
    where = rule_filter(node)
    judged_over_time = over_time(node, built.check)
    return Rule(
        kind=kind,
        check=built.check,
        origin=node.origin,
        columns=built.columns,
        name=optional_text(node, "name"),
        level=rule_level(node),
        threshold=built.threshold,
        requires=built.requires,
        code=optional_text(node, "code"),
        params=tuple((k, v.plain()) for k, v in node.as_mapping().items() if k not in COMMON_KEYS),
        filter=None if where is None else Sql(where),
        places=tuple((k, node.require(k).origin) for k in PLACED_KEYS if node.get(k) is not None)
        + node.places(REFERENCE_PLACES),
        over_time=judged_over_time,
        scope=rule_scope(node),
    )


SNIPPET_KEYS = ("filter", "expression")
"""Keys holding SQL the user wrote (analysed by Spark before any scan, errors placed at
the key: :mod:`assay.executor.snippets`)."""
PLACED_KEYS = (*SNIPPET_KEYS, "references")
"""Keys whose line a rule records (:attr:`Rule.places`): its snippets, and its
``references`` (checked against the referenced source's schema before any scan)."""
REFERENCE_PLACES = {"references.columns": "references.columns",
                    "references.column": "references.column"}  # fmt: skip
"""The referenced key columns' lines (their types are checked against the table's)."""


def grouped(built: Built, node: Node) -> Built:
    """The rule judged per group of its ``group_by`` columns, when it has them."""
    child = node.get("group_by")
    if child is None:
        return built
    check = built.check
    if not isinstance(check, MetricCheck) or isinstance(check.metric, GroupMetric):
        raise child.error(
            "group_by applies to metrics of rows (row_count, missing_*, invalid_*, min, max,"
            " avg, sum, stddev, percentile, median, freshness), not to distinct or duplicate"
            " counts"
        )
    columns = (
        (child.as_str("a column"),)
        if isinstance(child.value, str)
        else p.column_list(child, "a list of columns to group by")
    )
    needs = tuple((c, "any") for c in columns)
    return dataclasses.replace(
        built,
        check=dataclasses.replace(check, group_by=columns),
        requires=(*built.requires, *needs),  # type: ignore[arg-type]
    )


def rule_filter(node: Node) -> str | None:
    """A rule's ``filter``: a SQL predicate (analysed by Spark before any scan)."""
    child = node.get("filter")
    if child is None:
        return None
    text = child.as_str("a SQL predicate such as \"status = 'shipped'\"")
    if not text.strip():
        raise child.error("the filter is empty: a SQL predicate such as \"status = 'shipped'\"")
    return text


def rule_type(node: Node) -> str:
    """The canonical type of a rule mapping (aliases resolved)."""
    type_node = node.require("type")
    name = type_node.as_str("a rule type such as 'not_null'")
    if name in RULES:
        return name
    if name in ALIASES:
        return ALIASES[name]
    known = RULES.keys() | ALIASES.keys()
    raise type_node.error(unknown_message("rule type", name, known))


def rule_level(node: Node) -> Level:
    """A rule's ``level``: ``error`` (default) or ``warn``."""
    level_node = node.get("level")
    if level_node is None:
        return "error"
    level = level_node.as_str("'error' or 'warn'")
    if level not in LEVELS:
        raise level_node.error(f"expected 'error' or 'warn', got '{level}'")
    return level


def rule_scope(node: Node) -> Scope:
    """An incremental table's rule's ``scope``: ``table`` (default) or ``new``."""
    scope_node = node.get("scope")
    if scope_node is None:
        return "table"
    scope = scope_node.as_str("'table' or 'new'")
    if scope not in ("table", "new"):
        raise scope_node.error(f"expected 'table' or 'new', got '{scope}'")
    return "new" if scope == "new" else "table"


def optional_text(node: Node, key: str) -> str | None:
    """The string under ``key``, or ``None`` when it is not given."""
    child = node.get(key)
    return None if child is None else child.as_str("a string")

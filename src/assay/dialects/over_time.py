"""A native rule's judging over time (``change``, ``anomaly``), the ``schema_change`` rule
and a file's metrics store (``metrics``): docs/monitoring.md.

::

    change: {vs: last, must_be: "between -10% and +20%"}
    change: {vs: avg of last 7, must_be: "< 50%", warn: "< 20%"}
    anomaly: {strategy: online_normal, lower_deviation_factor: 2}
    anomaly: batch_normal                                    # the strategy's defaults
    {type: schema_change, fail_when: [removed, retyped], warn_when: [added]}
"""

from __future__ import annotations

import re

from assay.config.node import Node, unknown_message
from assay.dialects import params as p
from assay.dialects.rule_spec import Built
from assay.ir.monitoring import (
    SCHEMA_CHANGES,
    AnomalyDetection,
    Baseline,
    Change,
    MetricsStore,
    OverTime,
    SchemaChange,
    SchemaChangeCheck,
    TooLittle,
)
from assay.ir.references import ForeignKeyCheck
from assay.ir.rules import Check, MetricCheck, RowCheck, UniqueCheck
from assay.monitoring.registry import STRATEGIES, strategy_from_config

_SHARED = frozenset({"min_runs", "too_little"})
CHANGE_KEYS = frozenset({"vs", "must_be", "warn"}) | _SHARED
ANOMALY_KEYS = frozenset({"strategy", "window"}) | _SHARED
STORE_KEYS = frozenset({"table", "path", "format", "tags"})
STORE_FORMATS = ("parquet", "orc", "delta", "iceberg")
DEFAULT_WINDOW = 100
_VS = re.compile(r"(?i)^\s*(?:(last)|(avg|min|max|median)\s+of\s+(?:the\s+)?last\s+(\d+))\s*$")
_VS_HINT = 'write "last", or "avg of last 7" (avg, min, max or median of the last N runs)'


def over_time(rule: Node, check: Check) -> OverTime | None:
    """The rule's ``change`` and ``anomaly``, or None when it has neither."""
    change_node, anomaly_node = rule.get("change"), rule.get("anomaly")
    if change_node is None and anomaly_node is None:
        return None
    _judgeable(rule, check)
    change = None if change_node is None else _change(change_node)
    anomaly = None if anomaly_node is None else _anomaly(anomaly_node)
    min_runs: int | None = None
    too_little = "pass"
    for node in (change_node, anomaly_node):
        if node is None or not isinstance(node.value, dict):
            continue
        if node.get("min_runs") is not None:
            given = node.require("min_runs").as_int("a number of runs", minimum=1)
            min_runs = given if min_runs is None else max(min_runs, given)
        if node.get("too_little") is not None:
            too_little = _too_little(node.require("too_little"))
    origin = (change_node or anomaly_node).origin  # type: ignore[union-attr]
    return OverTime(change, anomaly, min_runs, too_little, origin)  # type: ignore[arg-type]


def _judgeable(rule: Node, check: Check) -> None:
    """Over time, a rule is judged by its one value: a metric (not per group) or a
    row-level rule's failed count."""
    key = "change" if rule.get("change") is not None else "anomaly"
    if isinstance(check, MetricCheck) and check.group_by:
        raise rule.require(key).error(
            f"{key} judges one value over time; a metric per group has one per group",
            hint="drop group_by, or give each group a rule of its own with a filter",
        )
    if not isinstance(check, (MetricCheck, RowCheck, UniqueCheck, ForeignKeyCheck)):
        raise rule.require(key).error(f"{key} applies to metric and row-level rules")


def _change(node: Node) -> Change:
    node.as_mapping('a mapping such as {vs: last, must_be: "between -10% and +20%"}')
    node.check_keys(CHANGE_KEYS)
    baseline = _baseline(node.get("vs"))
    must, _ = p.threshold(node.require("must_be"))
    warn = p.threshold(node.require("warn"))[0] if node.get("warn") is not None else None
    return Change(baseline, must, warn)


def _baseline(node: Node | None) -> Baseline:
    if node is None:
        return Baseline()
    text = node.as_str(_VS_HINT)
    found = _VS.match(text)
    if not found:
        raise node.error(f"unknown baseline '{text}'", hint=_VS_HINT)
    if found.group(1):
        return Baseline()
    runs = int(found.group(3))
    if runs < 1:
        raise node.error("the last 0 runs have no value", hint=_VS_HINT)
    return Baseline(found.group(2).lower(), runs)  # type: ignore[arg-type]


def _anomaly(node: Node) -> AnomalyDetection:
    if isinstance(node.value, str):
        name = _strategy_name(node, node.value)
        _built(node, name, {})
        return AnomalyDetection(name, (), DEFAULT_WINDOW)
    mapping = node.as_mapping("a strategy name, or a mapping with 'strategy' and its parameters")
    name = _strategy_name(node.require("strategy"), node.require("strategy").as_str("a name"))
    params = {k: v.plain() for k, v in mapping.items() if k not in ANOMALY_KEYS}
    allowed = ANOMALY_KEYS | set(STRATEGIES[name].params)
    node.check_keys(allowed)
    _built(node, name, params)
    window = DEFAULT_WINDOW
    if node.get("window") is not None:
        window = node.require("window").as_int("a number of runs", minimum=1)
        needed = strategy_from_config(name, params).min_history or 0
        if window < needed:
            raise node.require("window").error(
                f"a window of {window} runs is shorter than the {needed} earlier runs {name}"
                " needs to judge a value: it would never judge one",
                hint=f"give a window of at least {needed}, or leave it out (default "
                f"{DEFAULT_WINDOW})",
            )
    return AnomalyDetection(name, tuple(sorted(params.items())), window)


def _built(node: Node, name: str, params: dict) -> None:
    """Refuse what Deequ refuses of the strategy's parameters, at the config's line."""
    try:
        strategy_from_config(name, params)
    except (TypeError, ValueError) as e:
        raise node.error(f"anomaly strategy {name}: {e}") from None


def _strategy_name(node: Node, name: str) -> str:
    if name not in STRATEGIES:
        raise node.error(unknown_message("anomaly strategy", name, sorted(STRATEGIES)))
    return name


def _too_little(node: Node) -> TooLittle:
    said = node.as_str("'pass' or 'fail'")
    if said not in ("pass", "fail"):
        raise node.error(f"expected 'pass' or 'fail', got '{said}'")
    return said  # type: ignore[return-value]


def metrics_store(node: Node) -> tuple[MetricsStore, tuple[tuple[str, str], ...]]:
    """A file's ``metrics``: ``{table: dq.metrics}`` (a catalog table, ``format`` when it
    is created) or ``{path: metrics.jsonl}`` (a JSON-lines file), with ``tags``."""
    node.as_mapping("a mapping with 'table' or 'path'")
    node.check_keys(STORE_KEYS)
    table, path = node.get("table"), node.get("path")
    if (table is None) == (path is None):
        raise node.error("give the store's 'table' (a catalog table) or its 'path' (a file)")
    fmt = "parquet"
    if node.get("format") is not None:
        if path is not None:
            raise node.require("format").error("a file store is JSON lines; 'format' is a table's")
        fmt = node.require("format").as_str("a format").lower()
        if fmt not in STORE_FORMATS:
            raise node.require("format").error(unknown_message("format", fmt, STORE_FORMATS))
    if table is not None:
        store = MetricsStore("table", table.as_str("a table name"), fmt, node.origin)
    else:
        store = MetricsStore("file", path.as_str("a file path"), fmt, node.origin)  # type: ignore[union-attr]
    return store, _tags(node.get("tags"))


def _tags(node: Node | None) -> tuple[tuple[str, str], ...]:
    if node is None:
        return ()
    mapping = node.as_mapping("a mapping of tag names to values")
    tags = []
    for key, value in mapping.items():
        if not value.is_scalar() or value.value is None:
            raise value.error("a tag's value is a string or a number")
        tags.append((key, str(value.value)))
    return tuple(sorted(tags))


SCHEMA_CHANGE_KEYS = frozenset({"fail_when", "warn_when", "order"})
ORDERS = ("relative", "index")
SCHEMA_CHANGE_LIST = {
    "oneOf": [
        {"const": "any"},
        {"type": "array", "items": {"enum": list(SCHEMA_CHANGES)}, "uniqueItems": True},
    ],
    "description": "The changes since the last run: any, or a list of added, removed, retyped"
    " and reordered (columns).",
}


def build_schema_change(node: Node) -> Built:
    """``{type: schema_change, fail_when: [...], warn_when: [...], order: relative}``: the
    kinds of change that fail (default: every kind not in ``warn_when``) and warn."""
    given = {key: _change_kinds(node.require(key)) for key in ("fail_when", "warn_when")
             if node.get(key) is not None}  # fmt: skip
    warn = given.get("warn_when", ())
    fail = given.get("fail_when", tuple(k for k in SCHEMA_CHANGES if k not in warn))
    both = [k for k in fail if k in warn]
    if both:
        raise node.require("warn_when").error(
            f"{', '.join(both)}: both in fail_when and warn_when",
            hint="a change either fails the rule or warns: list it once",
        )
    if not fail and not warn:
        raise node.error(
            "fail_when and warn_when are both empty: the rule would pass whatever changed",
            hint=f"list the changes that fail it ({', '.join(SCHEMA_CHANGES)}), or drop it",
        )
    order = "relative"
    if node.get("order") is not None:
        order = node.require("order").as_str("relative or index")
        if order not in ORDERS:
            raise node.require("order").error(unknown_message("order", order, ORDERS))
    return Built(SchemaChangeCheck(fail, warn, order))  # type: ignore[arg-type]


def _change_kinds(node: Node) -> tuple[SchemaChange, ...]:
    """``any``, or a list of kinds of change, in :data:`SCHEMA_CHANGES`'s order."""
    hint = f"'any', or a list of {', '.join(SCHEMA_CHANGES)}"
    if node.value == "any":
        return SCHEMA_CHANGES
    listed = []
    for item in node.as_list(hint):
        kind = item.as_str(hint)
        if kind not in SCHEMA_CHANGES:
            raise item.error(unknown_message("schema change", kind, SCHEMA_CHANGES))
        listed.append(kind)
    return tuple(k for k in SCHEMA_CHANGES if k in listed)

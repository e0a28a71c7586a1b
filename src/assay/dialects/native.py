"""The native assay format (see docs/config.md): document -> tables.

This module handles the document, variables, tables and sources; rules live in
:mod:`assay.dialects.catalogue`. Every independent part is built under
:meth:`Context.attempt`, so one pass reports every error of the file.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping

from assay.config.node import Node
from assay.dialects import dqx, great_expectations, soda, sources, validations
from assay.dialects import params as p
from assay.dialects.base import Context, Dialect
from assay.dialects.catalogue import build_rule
from assay.dialects.compare import comparisons
from assay.dialects.over_time import metrics_store
from assay.dialects.targets import expand_targets
from assay.errors import VariableError
from assay.grammar import substitute
from assay.ir.incremental import Incremental
from assay.ir.monitoring import Monitoring
from assay.ir.outputs import RuleReport
from assay.ir.rules import OnFailure, Rule
from assay.ir.suite import DEFAULT_SAMPLE_SIZE, CatalogSource, PathSource, Source, Table

TOP_KEYS = frozenset(
    {"$schema", "version", "vars", "sample_size", "on_failure", "tables", "compare", "metrics"}
)
EXTENSION = "x-"
"""Top-level keys starting with this are ignored (a place for YAML anchors)."""
TABLE_KEYS = frozenset(
    {
        "name",
        "source",
        "filter",
        "keys",
        "sample_size",
        "on_failure",
        "rules",
        "validations",
        "expectations",
        "sodacl",
        "dqx",
        "history",
        "incremental",
    }
)
ON_FAILURE: tuple[OnFailure, ...] = ("fail", "warn")
"""A native file's or table's policy over its failing rules: ``fail`` (default) lets a
failure fail the run, ``warn`` only reports it (verdicts are unchanged)."""
SOURCE_KEYS = sources.SOURCE_KEYS
VAR_KEYS = frozenset({"env", "default"})
MAX_SAMPLE_SIZE = 1000

_VAR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TABLE_NAME = re.compile(r"[A-Za-z0-9_.-]+")


def matches(doc: Node) -> bool:
    """A mapping with ``tables`` whose entries have ``source`` or ``rules`` (or whose
    ``tables`` is too malformed to tell: the native builder then explains what is wrong)."""
    if isinstance(doc.value, dict) and "compare" in doc.value and "tables" not in doc.value:
        return True  # comparisons only (docs/compare.md)
    if not isinstance(doc.value, dict) or "tables" not in doc.value:
        return False
    tables = doc.value["tables"].value
    if not isinstance(tables, list):
        return True
    entries = [t.value for t in tables if isinstance(t.value, dict)]
    return not entries or any("source" in e or "rules" in e for e in entries)


def build(doc: Node, ctx: Context) -> tuple[Table, ...]:
    """The tables of a native document, in order; errors go to ``ctx.errors`` (a table
    with any error is left out)."""
    mapping = doc.as_mapping("a mapping with 'tables'")
    ctx.attempt(doc.check_keys, TOP_KEYS | {k for k in mapping if k.startswith(EXTENSION)})
    ctx.attempt(_version, doc)
    variables = _variables(doc, ctx)
    sample_size = ctx.attempt(_sample_size, doc)
    on_failure = ctx.attempt(_on_failure, doc) or "fail"
    metrics_node = doc.get("metrics")
    if metrics_node is not None:
        declared = ctx.attempt(metrics_store, _substituted(metrics_node, variables, ctx))
        if declared is not None:
            store, tags = declared
            if store.kind == "file" and not os.path.isabs(store.location):
                # beside the config, as its data paths
                location = os.path.normpath(ctx.base_dir / store.location)
                store = dataclasses.replace(store, location=location)
            ctx.monitoring = Monitoring(store, tags)
    compare_node = doc.get("compare")
    if compare_node is not None:
        compare_node = _substituted(compare_node, variables, ctx)
        size = DEFAULT_SAMPLE_SIZE if sample_size is None else sample_size
        found = ctx.attempt(comparisons, compare_node, ctx, size, on_failure, _source)
        ctx.comparisons += found or []
        if doc.get("tables") is None:
            return ()
    tables_node = doc.require("tables")
    items = tables_node.as_list("a list of tables", non_empty=True)
    tables = []
    for i, item in enumerate(items):
        item = _substituted(item, variables, ctx)
        table = _table(
            item,
            ctx.table_offset + i,
            ctx,
            DEFAULT_SAMPLE_SIZE if sample_size is None else sample_size,
            on_failure,
        )
        if table is not None:
            tables.append(table)
    return tuple(tables)


def _version(doc: Node) -> None:
    node = doc.get("version")
    if node is not None and node.as_int("the format version (1)") != 1:
        raise node.error(f"unsupported version {node.value}; this assay reads version 1")


def _on_failure(node: Node) -> OnFailure | None:
    child = node.get("on_failure")
    if child is None:
        return None
    mode = child.as_str("'fail' or 'warn'")
    if mode not in ON_FAILURE:
        hint = "a rule's failure can also be a warning: give the rule level: warn"
        raise child.error(f"expected 'fail' or 'warn', got '{mode}'", hint=hint)
    return mode  # type: ignore[return-value]


def _sample_size(node: Node) -> int | None:
    child = node.get("sample_size")
    return (
        None if child is None else child.as_int("a sample size", minimum=0, maximum=MAX_SAMPLE_SIZE)
    )


# --- variables ----------------------------------------------------------------------------


def _variables(doc: Node, ctx: Context) -> dict[str, str]:
    """``vars`` resolved (environment read now), overridden by the caller's variables.

    A variable that fails to resolve gets its own reference as value, so its uses do not
    add "unknown variable" errors on top of the real one.
    """
    values = dict(ctx.variables)
    node = doc.get("vars")
    if node is None:
        return values
    definitions = ctx.attempt(node.as_mapping, "a mapping of variable name to value") or {}
    for name, child in definitions.items():
        if name not in values:
            value = ctx.attempt(_variable, name, child)
            if value is not None or _VAR_NAME.fullmatch(name):
                values[name] = f"${{{name}}}" if value is None else value
    return values


def _variable(name: str, node: Node) -> str:
    if not _VAR_NAME.fullmatch(name):
        raise VariableError(
            f"invalid variable name '{name}' (use letters, digits and _, "
            "not starting with a digit)",
            origin=node.origin,
        )
    if not isinstance(node.value, dict):
        return sources.scalar_text(
            node, "a variable value (a string, number or boolean, or {env: NAME})"
        )
    node.check_keys(VAR_KEYS)
    env = node.require("env").as_str("an environment variable name")
    if env in os.environ:
        return os.environ[env]
    default = node.get("default")
    if default is None:
        raise VariableError(
            f"environment variable '{env}' is not set (needed by variable '{name}')",
            origin=node.origin,
            hint=f"set {env}, add 'default:', or pass --var {name}=...",
        )
    return sources.scalar_text(default, "a default value (a string, number or boolean)")


def _substituted(node: Node, variables: Mapping[str, str], ctx: Context) -> Node:
    """``node`` with variables replaced in every string scalar (not in keys); a string
    with a bad reference is kept as is after its error is recorded."""
    value = node.value
    if isinstance(value, str):
        text = ctx.attempt(substitute, value, variables, node.origin)
        if text is None or text == value:
            return node
        return Node(_as_number(text), node.origin, text=text)
    if isinstance(value, dict):
        return Node({k: _substituted(v, variables, ctx) for k, v in value.items()}, node.origin)
    if isinstance(value, list):
        return Node([_substituted(v, variables, ctx) for v in value], node.origin)
    return node


_INT = re.compile(r"-?[0-9]+")
_FLOAT = re.compile(r"-?[0-9]+\.[0-9]+")


def _as_number(text: str) -> str | int | float:
    """A substituted string that is exactly a number becomes that number, as if written
    in place (``max: $limit`` with ``limit: 20``), like data-validator's textual
    substitution; any other text stays a string."""
    stripped = text.strip()
    if _INT.fullmatch(stripped):
        return int(stripped)
    if _FLOAT.fullmatch(stripped):
        return float(stripped)
    return text


# --- tables -------------------------------------------------------------------------------


def _table(
    node: Node, position: int, ctx: Context, sample_size: int, on_failure: OnFailure = "fail"
) -> Table | None:
    """One table, or ``None`` when any part of it is wrong (all its errors recorded).

    ``on_failure`` (the file's, or the table's own) is the policy of the table's
    ``rules``; a ``validations`` block keeps its own."""
    before = len(ctx.errors)
    if ctx.attempt(node.as_mapping, "a table (a mapping with 'source' and 'rules')") is None:
        return None
    ctx.attempt(node.check_keys, TABLE_KEYS)
    source = ctx.attempt(_source, node, ctx)
    rules = _rules(node, ctx)
    policy = ctx.attempt(_on_failure, node) or on_failure
    if policy != "fail":
        rules = tuple(dataclasses.replace(r, on_failure=policy) for r in rules)
    filter_node, keys_node = node.get("filter"), node.get("keys")
    where = ctx.attempt(filter_node.as_str, "a SQL predicate") if filter_node is not None else None
    keys = ctx.attempt(p.column_list, keys_node) if keys_node is not None else ()
    own_sample = ctx.attempt(_sample_size, node)
    name = ctx.attempt(_name, node, source, position) if source is not None else None
    block_node = node.get("validations")
    block = None
    if block_node is not None:
        # sparquet's validations block (docs/dialects.md): its rules follow the table's.
        block = validations.block(block_node, ctx, name or "", len(rules))
    rules += _bound_rules(node, ctx, name or "")
    all_rules = rules + (block.rules if block else ())
    outputs = block.outputs if block else ()
    history_node = node.get("history")
    if history_node is not None:
        # every rule's verdict appended per run (docs/reports.md): never held by on_failure
        sink = ctx.attempt(validations.sink_of, history_node, ctx, validations.HISTORY_COLUMNS)
        if sink is not None:
            indices = tuple(range(len(all_rules)))
            outputs = (*outputs, RuleReport(name or "", indices, sink, history=True))
    incremental_node = node.get("incremental")
    incremental = ctx.attempt(_incremental, incremental_node) if incremental_node else None
    if len(ctx.errors) > before or source is None or name is None:
        return None
    return Table(
        name=name,
        source=source,
        rules=all_rules,
        origin=node.origin,
        filter=where,
        keys=keys or (),
        sample_size=sample_size if own_sample is None else own_sample,
        outputs=outputs,
        hold_outputs=block.hold if block else (),
        places=node.places({"source": "source", "filter": "filter", "keys": "keys"}),
        incremental=incremental,
    )


def _incremental(node: Node) -> Incremental:
    """``incremental: {by: <column>}`` (docs/incremental.md)."""
    node.as_mapping("a mapping with 'by' (the partition column)")
    node.check_keys({"by"})
    by = node.require("by").as_str("a column name (the partition column)")
    return Incremental(by, node.origin)


def _bound_rules(node: Node, ctx: Context, name: str) -> tuple[Rule, ...]:
    """The rules of the checks files another dialect wrote, bound to the table
    (docs/dialects.md): after the table's own rules, before its validations block's."""
    rules: tuple[Rule, ...] = ()
    suite_node = node.get("expectations")
    if suite_node is not None:
        # a Great Expectations suite file bound to this table
        rules += ctx.attempt(great_expectations.bound_suite, suite_node, ctx) or ()
    checks_node = node.get("sodacl")
    if checks_node is not None:
        # a SodaCL checks file bound to this table
        rules += ctx.attempt(soda.bound_checks, checks_node, ctx, name) or ()
    dqx_node = node.get("dqx")
    if dqx_node is not None:
        # a DQX checks file bound to this table
        rules += ctx.attempt(dqx.bound_checks, dqx_node, ctx) or ()
    return rules


def _rules(node: Node, ctx: Context) -> tuple[Rule, ...]:
    if node.get("rules") is None and any(
        node.get(key) is not None for key in ("validations", "expectations", "sodacl", "dqx")
    ):
        return ()
    rules_node = ctx.attempt(node.require, "rules")
    if rules_node is None:
        return ()
    items = ctx.attempt(rules_node.as_list, "a list of rules")
    if items == []:
        ctx.errors.append(
            rules_node.error(
                "expected at least one rule, got an empty list",
                hint="a table with 0 checks would pass silently",
            )
        )
    expanded = [rule for item in items or () for rule in ctx.attempt(expand_targets, item) or ()]
    built = (ctx.attempt(build_rule, item) for item in expanded)
    return tuple(rule for rule in built if rule is not None)


def _name(node: Node, source: Source, position: int) -> str:
    """The ``name`` given, else one derived from the source (see docs/config.md)."""
    name_node = node.get("name")
    if name_node is not None:
        name = name_node.as_str("a table name")
        if not _TABLE_NAME.fullmatch(name):
            raise name_node.error(
                f"invalid table name '{name}': use letters, digits, '_', '.' and '-'"
            )
        return name
    if isinstance(source, CatalogSource):
        derived = source.table
    elif isinstance(source, PathSource) and source.paths:
        derived = sources.stem(source.paths[0])
    else:
        return f"query_{position}"
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", derived).strip("_.") or f"table_{position}"


# --- sources ------------------------------------------------------------------------------


def _source(table: Node, ctx: Context) -> Source:
    """Exactly one of ``table``, ``path`` (+ ``format``, ``options``) or ``sql``."""
    return sources.table_source(table.require("source"), ctx.base_dir)


DIALECT = Dialect(
    name="native",
    shape="a native assay config (a mapping with 'tables', each table with 'source' and 'rules')",
    matches=matches,
    build=build,
)

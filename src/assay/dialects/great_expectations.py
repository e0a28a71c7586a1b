"""A Great Expectations suite (GX 1.x ``{"name", "expectations": [{"type", "kwargs"}]}``
or 0.x ``{"expectation_suite_name", "expectations": [{"expectation_type", "kwargs"}]}``)
-> one IR table (docs/dialects.md, "Great Expectations suites").

A suite does not say where its data is: a suite file on its own checks the table given
with ``--source`` (as a sparquet validations file), and a native table binds one with
``expectations: path/to/suite.json``. Expectations are mapped by
:mod:`assay.dialects.great_expectations_map`.
"""

from __future__ import annotations

import re
from pathlib import Path

from assay.config.document import read_document
from assay.config.node import Node
from assay.dialects import great_expectations_kwargs as kw
from assay.dialects import sources
from assay.dialects.base import Context, Dialect
from assay.dialects.great_expectations_map import EXPECTATIONS
from assay.dialects.great_expectations_mapped import REFUSED
from assay.errors import ConfigError
from assay.ir.origin import Origin
from assay.ir.rules import Rule, SchemaCheck
from assay.ir.suite import Source, Table

NAME = "great-expectations"
SUITE_KEYS = frozenset(
    {
        "name",
        "expectation_suite_name",
        "expectations",
        "meta",
        "id",
        "ge_cloud_id",
        "notes",
        "data_asset_type",
        "evaluation_parameters",
        "suite_parameters",
    }
)
"""A suite's top-level keys (1.x and 0.x); ``meta``, ``id``, ``notes`` are not read."""
ITEM_KEYS = frozenset(
    {
        "type",
        "expectation_type",
        "kwargs",
        "meta",
        "id",
        "ge_cloud_id",
        "notes",
        "description",
        "severity",
        "rendered_content",
        "expectation_context",
    }
)


def matches(doc: Node) -> bool:
    """A mapping with an ``expectations`` list beside ``name`` or ``expectation_suite_name``."""
    if not isinstance(doc.value, dict) or "expectations" not in doc.value:
        return False
    return "expectation_suite_name" in doc.value or "name" in doc.value


def build(doc: Node, ctx: Context) -> tuple[Table, ...]:
    """The one table a suite file checks (its data given with ``--source``)."""
    before = len(ctx.errors)
    name = ctx.attempt(suite_name, doc)
    rules = suite_rules(doc, ctx)
    source = ctx.attempt(_source, doc, ctx)
    if len(ctx.errors) > before or source is None:
        return ()
    table_name = re.sub(r"[^A-Za-z0-9_.-]+", "_", name or "suite").strip("_.") or "suite"
    return (Table(name=table_name, source=source, rules=rules, origin=doc.origin),)


def suite_name(doc: Node) -> str:
    """The suite's ``name`` (1.x) or ``expectation_suite_name`` (0.x)."""
    node = doc.get("name") or doc.require("expectation_suite_name")
    return node.as_str("a suite name")


def suite_rules(doc: Node, ctx: Context) -> tuple[Rule, ...]:
    """The rules of every expectation of a suite document (errors to ``ctx.errors``)."""
    if ctx.attempt(doc.as_mapping, "a Great Expectations suite (a mapping)") is None:
        return ()
    ctx.attempt(doc.check_keys, SUITE_KEYS)
    items = ctx.attempt(lambda: doc.require("expectations").as_list("a list of expectations"))
    built = (ctx.attempt(expectation_rule, item) for item in items or ())
    return tuple(rule for rule in built if rule is not None)


def bound_suite(node: Node, ctx: Context) -> tuple[Rule, ...]:
    """The rules of the suite file a native table names under ``expectations`` (a path,
    relative to the config file)."""
    path = Path(node.as_str("the path of a Great Expectations suite (a JSON file)"))
    full = path if path.is_absolute() else ctx.base_dir / path
    try:
        doc = read_document(full)
    except ConfigError as e:
        raise node.error(f"cannot read the suite {path}: {e.message}", hint=e.hint) from None
    if not matches(doc):
        raise node.error(
            f"{path} is not a Great Expectations suite",
            hint="expected a JSON mapping with 'expectations' and 'name' "
            "(or 'expectation_suite_name')",
        )
    return suite_rules(doc, ctx)


def expectation_rule(item: Node) -> Rule:
    """One expectation as a rule with GX's semantics; an expectation assay does not run
    is an error naming it."""
    item.as_mapping("an expectation (a mapping with 'type' and 'kwargs')")
    item.check_keys(ITEM_KEYS)
    type_node = item.get("type") or item.get("expectation_type")
    if type_node is None:
        raise item.error("missing required key 'type' (GX 1.x) or 'expectation_type' (0.x)")
    kind = type_node.as_str("an expectation type")
    expectation = EXPECTATIONS.get(kind)
    if expectation is None:
        why = REFUSED.get(kind)
        raise type_node.error(
            f"Great Expectations: '{kind}' is not supported" + (f": {why}" if why else ""),
            hint="docs/dialects.md lists the expectations assay runs; remove it or write "
            "the check as a native rule",
        )
    kwargs = item.require("kwargs")
    kwargs.as_mapping("the kwargs of an expectation (a mapping)")
    kwargs.check_keys(expectation.keys)
    mapped = expectation.build(kwargs)
    condition = kw.row_condition(kwargs) if expectation.keys >= kw.CONDITION else None
    if not expectation.filtered:  # written into the check by its builder
        condition = None
    if isinstance(mapped.check, SchemaCheck):  # a type: GX on Spark reads no row
        condition = None
    places: tuple[tuple[str, Origin], ...] = ()
    condition_node = kwargs.get("row_condition")
    if condition is not None and condition_node is not None:
        places = (("filter", condition_node.origin),)
    return Rule(
        kind=kind,
        check=mapped.check,
        origin=item.origin,
        columns=mapped.columns,
        threshold=mapped.threshold,
        requires=mapped.requires,
        params=tuple((k, v.plain()) for k, v in kwargs.as_mapping().items()),
        filter=kw.both(condition, mapped.considered),
        places=places,
    )


def _source(doc: Node, ctx: Context) -> Source:
    return sources.command_line_source(
        doc,
        ctx.options,
        "a Great Expectations suite checks the table given with --source",
        hint="pass --source db.table or --source path/to/data.parquet, or bind the "
        "suite to a native table with 'expectations: suite.json'",
    )


DIALECT = Dialect(
    name=NAME,
    shape="a Great Expectations suite (a mapping with 'expectations' and 'name' or "
    "'expectation_suite_name')",
    matches=matches,
    build=build,
)

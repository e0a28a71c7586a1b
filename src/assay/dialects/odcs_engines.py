"""A data contract's ``type: custom`` quality entries: the ``implementation`` is the
checks of another tool, read by assay's dialect of that tool (docs/dialects.md, "Data
contracts"): ``engine: soda`` (SodaCL), ``greatExpectations`` (expectations), ``dqx``
(DQX checks). Each rule keeps its dialect's kind and details, and gets the contract's
view (``details.odcs``) and the entry's severity. Another engine is an error naming it.
"""

from __future__ import annotations

from assay.config.document import parse_text
from assay.config.node import Node
from assay.dialects import dqx, great_expectations, soda
from assay.dialects.base import Context
from assay.dialects.odcs_rules import Scope, level_of, view, with_view
from assay.errors import ConfigError
from assay.ir.origin import Origin
from assay.ir.rules import Rule

ENGINES = {
    "soda": "soda",
    "sodacl": "soda",
    "greatexpectations": "great_expectations",
    "great-expectations": "great_expectations",
    "great_expectations": "great_expectations",
    "gx": "great_expectations",
    "dqx": "dqx",
}
"""``engine`` (lower-cased) -> the dialect that reads its implementation."""


def custom_rules(item: Node, scope: Scope, ctx: Context) -> list[Rule]:
    """The rules of a ``type: custom`` entry, read by the engine's dialect."""
    engine_node = item.require("engine")
    engine = engine_node.as_str("an engine (soda, greatExpectations, dqx)")
    reader = ENGINES.get(engine.strip().lower())
    if reader is None:
        raise engine_node.error(
            f"custom engine '{engine}' is not supported",
            hint="assay runs custom checks of the engines soda, greatExpectations and dqx",
        )
    implementation = embedded(item.require("implementation"))
    before = len(ctx.errors)
    if reader == "soda":
        rules = _soda(implementation, scope, ctx)
    elif reader == "great_expectations":
        rules = _expectations(implementation, ctx)
    else:
        rules = _dqx(implementation, ctx)
    if len(ctx.errors) > before:
        return []
    if not rules:
        raise implementation.error(f"the {engine} implementation holds no check")
    odcs = view(scope, "quality_custom_" + reader, engine=engine)
    level = level_of(item)
    return [with_view(rule, odcs, level if level == "warn" else None) for rule in rules]


def embedded(node: Node) -> Node:
    """An implementation: a mapping or list as written, or a text holding YAML (read
    with the lines of the contract: a block scalar's first line is the one below its
    key)."""
    if not isinstance(node.value, str):
        return node
    try:
        inner = parse_text(node.value, node.origin.file, "yaml")
    except ConfigError as e:
        raise node.error(f"the implementation is not YAML: {e.message}") from None
    return _shifted(inner, node.origin)


def _shifted(node: Node, base: Origin) -> Node:
    """``node`` (read from a text) placed inside the contract at ``base``."""
    path = node.origin.path
    joined = base.path if not path else f"{base.path}{'' if path.startswith('[') else '.'}{path}"
    line = (base.line or 0) + (node.origin.line or 1) if base.line is not None else None
    origin = Origin(base.file, joined, line)
    value = node.value
    if isinstance(value, dict):
        value = {k: _shifted(v, base) for k, v in value.items()}
    elif isinstance(value, list):
        value = [_shifted(v, base) for v in value]
    return Node(value, origin, node.text)


def _soda(doc: Node, scope: Scope, ctx: Context) -> list[Rule]:
    """SodaCL: a checks file (``checks for <dataset>:``, the dataset being the schema
    object), or a list of checks of the schema object."""
    if isinstance(doc.value, list):
        doc = Node({f"checks for {scope.schema}": doc}, doc.origin)
    if not soda.matches(doc):
        raise doc.error(
            "a soda implementation is a SodaCL checks file ('checks for <dataset>:') or a "
            "list of SodaCL checks"
        )
    reading = soda.read_checks(doc, ctx)
    others = [name for name in reading.origins if name != scope.schema]
    if others:
        raise reading.origins[others[0]].error(
            f"the SodaCL checks are for '{others[0]}', not for the schema object "
            f"'{scope.schema}' that holds them"
        )
    return list(reading.rules.get(scope.schema, ()))


def _expectations(doc: Node, ctx: Context) -> list[Rule]:
    """Great Expectations: a suite (named or not), a list of expectations, or one."""
    if great_expectations.matches(doc):
        return list(great_expectations.suite_rules(doc, ctx))
    if isinstance(doc.value, dict) and list(doc.value) == ["expectations"]:
        doc = doc.require("expectations")  # a suite's expectations, the suite unnamed
    items = doc.value if isinstance(doc.value, list) else [doc]
    built = (ctx.attempt(great_expectations.expectation_rule, item) for item in items)
    return [rule for rule in built if rule is not None]


def _dqx(doc: Node, ctx: Context) -> list[Rule]:
    """DQX: a list of checks, or one check."""
    if isinstance(doc.value, dict):
        doc = Node([doc], doc.origin)
    return list(dqx.checks_rules(doc, ctx))

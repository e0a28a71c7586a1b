"""A data contract's ``relationships`` (ODCS v3.1+ foreign keys: a property's, or a
schema object's ``from``/``to``) as assay's foreign keys, checked as datacontract-cli
checks them (1.2.8, ``engines/checks/create_checks.py``'s ``_relationship_checks`` and
``ibis_check_execute.py``'s ``_run_missing_reference``): the rows whose key columns are
all non-null and match no row of the referenced schema object fail; the check fails when
one does (``field_relationships``, ``mustBe: 0``).

``to`` names ``<schema object>.<property>`` (a list for a composite key, all of one
schema object); the referenced data is that schema object's (its ``--input``, else the
server's, else its table). A relationship datacontract-cli does not check (its lists of
different lengths, a property or schema object the contract does not have) is a warning
there, "not checked": assay refuses it at its place, saying why.
"""

from __future__ import annotations

from collections.abc import Callable

from assay.config.node import Node
from assay.dialects.odcs_rules import odcs_rule
from assay.ir.references import ForeignKeyCheck, Lookup, Reference
from assay.ir.rules import Rule
from assay.ir.sources import Source
from assay.ir.values import Pairs

SourceOf = Callable[[Node], Source]
"""The source of a schema object's data, as its own table reads it."""


def relationship_rules(obj: Node, objects: list[Node], source_of: SourceOf) -> list[Rule]:
    """The foreign keys of a schema object's relationships: its properties' first, then
    its own, as datacontract-cli lists them."""
    declared: list[tuple[Node, list[str]]] = []
    for prop in _list(obj.get("properties")):
        for rel in _list(prop.get("relationships")):
            declared.append((rel, [prop.require("name").as_str("a property name")]))
    for rel in _list(obj.get("relationships")):
        written = rel.require("from")
        items = written.as_list() if isinstance(written.value, list) else [written]
        declared.append((rel, [i.as_str("a property reference") for i in items]))
    rules = []
    for rel, names in declared:
        kind = rel.get("type")
        if kind is not None and kind.value not in (None, "foreignKey"):
            continue  # datacontract-cli checks foreign keys only
        rules.append(_foreign_key(rel, names, obj, objects, source_of))
    return rules


def _list(node: Node | None) -> list[Node]:
    if node is None or node.value is None:
        return []
    return node.as_list("a list")


def _physical(obj: Node, name: str) -> str | None:
    """The column of ``obj``'s property ``name`` (its physicalName, else its name)."""
    for prop in _list(obj.get("properties")):
        if prop.get("name") is not None and prop.require("name").value == name:
            physical = prop.get("physicalName")
            return physical.as_str("a column name") if physical is not None else name
    return None


def _name(obj: Node) -> str:
    return obj.require("name").as_str("a schema object name")


def _model(obj: Node) -> str:
    """datacontract-cli's name of a schema object's table (its ``physicalName``)."""
    physical = obj.get("physicalName")
    return physical.as_str("a table name") if physical is not None else _name(obj)


def _foreign_key(
    rel: Node, sources: list[str], obj: Node, objects: list[Node], source_of: SourceOf
) -> Rule:
    name = _name(obj)
    to = rel.require("to")
    targets = [t.as_str("a property reference") for t in to.as_list()] if isinstance(
        to.value, list
    ) else [to.as_str("a property reference")]  # fmt: skip
    own = [s.removeprefix(f"{name}.") for s in sources]
    parts = [t.rsplit(".", 1) for t in targets]
    target = next(
        (o for o in objects if parts and len(parts[0]) == 2 and _name(o) == parts[0][0]), None
    )
    columns = [_physical(obj, s) for s in own]
    referenced = [
        _physical(target, p[-1]) if target is not None and p[0] == _name(target) else None
        for p in parts
    ]
    why = None
    if len(parts) != len(columns):
        why = "its from and to lists differ in length"
    elif None in columns:
        why = f"{name} has no property {own[columns.index(None)]}"
    elif any(len(p) == 1 for p in parts):
        why = f"{next(p[0] for p in parts if len(p) == 1)} is not a schema.property reference"
    elif target is None:
        why = f"the contract has no schema {parts[0][0]}"
    elif any(p[0] != _name(target) for p in parts):
        why = "a composite key must reference a single schema"
    elif None in referenced:
        why = f"{_name(target)} has no property {parts[referenced.index(None)][-1]}"
    if why is not None or target is None:
        raise rel.error(
            f"the relationship from {', '.join(own)} to {', '.join(targets)} cannot be "
            f"checked: {why}",
            hint="datacontract-cli does not check it either (a warning)",
        )
    keys = tuple(c for c in columns if c is not None)
    refs = tuple(c for c in referenced if c is not None)
    check = ForeignKeyCheck(Lookup(keys, Reference(source_of(target), refs)))
    model, referenced_model = _model(obj), _model(target)
    key = f"{model}__{'__'.join(keys)}__{referenced_model}__{'__'.join(refs)}__field_relationships"
    view = Pairs(
        {
            "schema": name,
            "property": own[0] if len(own) == 1 else None,
            "quality": None,
            "check": "field_relationships",
            "key": key,
            "references": f"{referenced_model} ({', '.join(refs)})",
        }.items()
    )
    shown = keys[0] if len(keys) == 1 else f"({', '.join(keys)})"
    said = f"{shown} has no values missing from {referenced_model} ({', '.join(refs)})"
    return odcs_rule(rel, "relationship", check, view, columns=keys, name=said)

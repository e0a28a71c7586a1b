"""A property's nested properties -> rules at their paths (docs/dialects.md, "Data
contracts"), as datacontract-cli 1.2.8 checks them (``create_checks._iter_property_paths``,
``ibis_check_execute._row_predicate``): an object's ``properties`` are struct fields
(``customer.address.city``), an array's ``items`` its elements (``scores[]``, and their
fields ``items[].sku``).

A nested value is checked in its parent row: a field's check counts the rows where every
struct above it is not NULL and the check fails (a field of a NULL struct is not missing:
the struct's own ``required`` says whether it may be NULL); an element's check counts the
rows of which some element fails it (``exists``: an empty or NULL array fails nothing; a
NULL element's fields are NULL). ``unique`` of an element (or of its field) counts the
rows whose own array repeats a value (NULLs equal), of a struct field the values held by
more than one row. Presence and types are schema checks at the path (no scan). The
checks are SQL over the row: Spark's higher-order functions (``exists``, ``transform``)
for the arrays, which are not whole-stage code-generated (docs/dialects.md states what
that costs).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from decimal import Decimal

from assay.config.node import Node
from assay.dialects import odcs_types
from assay.dialects.base import Context
from assay.dialects.formats import FORMATS
from assay.dialects.odcs_fields import (
    DESCRIPTIVE_OPTIONS,
    REFUSED,
    STRING_FORMATS,
    UNCHECKED_FORMATS,
    present,
)
from assay.dialects.odcs_rules import Scope, odcs_rule, view
from assay.ir.expr import Sql, is_true
from assay.ir.rules import RowCheck, Rule, SqlCheck, TypeFamily
from assay.ir.values import Comparison, Op

Build = Callable[[str], str]
"""A failing predicate of one value (SQL text of the value -> SQL text)."""
NESTED_REFUSED = {
    "quality": "a nested property's quality entries are not checked by assay yet: write "
    "them on the schema object (a `sql` query reading the path)",
    "primaryKey": "a nested property is no key of the table's rows",
    "relationships": "a relationship from a nested property is not checked by datacontract-cli",
}


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def literal(value: object) -> str:
    """A value written in the contract as a SQL literal."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, Decimal)):
        return str(value)
    if isinstance(value, float):
        return str(Decimal(repr(value))) if math.isfinite(value) else f"double('{value}')"
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"


def kind_of(node: Node) -> str | None:
    """A property's type family (``object``, ``array``, ``string``...): its physical
    type's, else its logical type's, else the one its ``properties`` or ``items``
    imply (datacontract-cli's ``_property_type``)."""
    for key in ("physicalType", "logicalType"):
        found = node.get(key)
        if found is not None and isinstance(found.value, str):
            return odcs_types.family(found.value)
    implied = [k for k, key in (("object", "properties"), ("array", "items")) if _has(node, key)]
    return implied[0] if len(implied) == 1 else None


def _has(node: Node, key: str) -> bool:
    found = node.get(key)
    return found is not None and found.value not in (None, [], {})


def nested_paths(node: Node, path: str) -> Iterator[tuple[str, Node]]:
    """The nested properties below the property at ``path``, each with its path
    (datacontract-cli's ``_iter_nested_paths``); what it does not check is an error at
    its place."""
    kind = kind_of(node)
    items, props = node.get("items"), node.get("properties")
    if _has(node, "items"):
        assert items is not None
        if kind != "array":
            raise items.error(f"'items' of a property of type {kind}: only an array has items")
        items.as_mapping("the items (a property without a name)")
        if kind_of(items) == "array" and _has(items, "items"):
            raise items.require("items").error(
                "the items of an array's items are not checked: datacontract-cli does not "
                "check them (a[][])"
            )
        if any(_has(items, k) for k in ("logicalType", "physicalType", "properties")) or any(
            _has(items, k) for k in ("logicalTypeOptions", "enum", "required", "unique", "quality")
        ):
            yield f"{path}[]", items
        yield from nested_paths(items, f"{path}[]")
    if _has(node, "properties"):
        assert props is not None
        if kind not in ("object", None):
            raise props.error(
                f"'properties' of a property of type {kind}: only an object has properties"
            )
        for child in props.as_list("a list of properties"):
            child.as_mapping("a property (a mapping with 'name')")
            physical = child.get("physicalName")
            name = (physical or child.require("name")).as_str("a property name")
            yield f"{path}.{name}", child
            yield from nested_paths(child, f"{path}.{name}")


def row_predicate(path: str, build: Build) -> str:
    """The rows failing ``build`` at ``path`` (datacontract-cli's ``_row_predicate``):
    a field where every struct above it is present, an element of an array by
    ``exists``."""
    names = (f"_e{i}" for i in itertools.count())
    return _row(path, build, names)


def _row(path: str, build: Build, names: Iterator[str]) -> str:
    if path.endswith("[]"):
        return _row(path[:-2], lambda array: _exists(array, build, names), names)
    head, marker, tail = path.partition("[].")
    if not marker:
        column, _, rest = path.partition(".")
        return _present(quote(column), rest, build) if rest else build(quote(column))
    return _exists(_struct(head), lambda e: _element(e, tail, build, names), names)


def _exists(array: str, build: Build, names: Iterator[str]) -> str:
    name = next(names)
    return f"exists({array}, {name} -> {build(name)})"


def _element(element: str, path: str, build: Build, names: Iterator[str]) -> str:
    head, marker, tail = path.partition("[].")
    if not marker:
        first, _, rest = path.partition(".")
        value = f"{element}.{quote(first)}"
        return _present(value, rest, build) if rest else build(value)
    inner = _struct(head, element)
    return _exists(inner, lambda e: _element(e, tail, build, names), names)


def _present(value: str, path: str, build: Build) -> str:
    """``build`` at ``path`` inside the struct ``value``, false where a struct on the
    way is NULL (datacontract-cli's ``_path_predicate``)."""
    present = []
    for part in path.split("."):
        present.append(f"{value} IS NOT NULL")
        value = f"{value}.{quote(part)}"
    return "(" + " AND ".join([*present, f"({build(value)})"]) + ")"


def _struct(path: str, start: str | None = None) -> str:
    parts = [quote(p) for p in path.split(".")]
    return ".".join([start, *parts] if start is not None else parts)


def repeats(path: str) -> str:
    """The rows whose own array repeats a value at ``path`` (``a[]``: its elements;
    ``a[].b``: its elements' field; NULLs equal, as Spark's ``array_distinct``)."""
    if path.endswith("[]"):
        array_path, leaf = path[:-2], None
    else:
        array_path, _, leaf = path.rpartition("[].")

    def build(array: str) -> str:
        values = array if leaf is None else f"transform({array}, _v -> {_struct(leaf, '_v')})"
        return f"size(array_distinct({values})) < size({values})"

    return row_predicate(array_path, build)


def duplicated(path: str, scope: Scope) -> str:
    """A struct field's values held by more than one row (NULLs left out), counted."""
    value = _struct(path)
    return (
        f"SELECT count(*) FROM (SELECT {value} AS v FROM {scope.table_sql} "
        f"WHERE {value} IS NOT NULL GROUP BY {value} HAVING count(*) > 1)"
    )


def nested_rules(node: Node, path: str, root: str, schema: str, ctx: Context) -> list[Rule]:
    """The rules of the nested property at ``path`` of the column ``root``."""
    for key, reason in {**REFUSED, **NESTED_REFUSED}.items():
        if _has(node, key) and node.require(key).value is not False:
            raise node.require(key).error(f"'{key}' of a nested property: {reason}")
    scope = Scope(schema, path, path)
    rules: list[Rule] = []
    if not path.endswith("]") or kind_of(node) is not None:
        typed = ctx.attempt(present, node, scope, implied(node))
        rules += [typed] if typed is not None else []

    def flag(key: str) -> bool:
        return _has(node, key) and node.require(key).as_bool()

    if flag("required"):
        rules.append(_rule(node.require("required"), scope, root, "required",
                           "field_required", lambda v: f"{v} IS NULL"))  # fmt: skip
    if flag("unique"):
        rules.append(_unique(node.require("unique"), scope, root))
    options = node.get("logicalTypeOptions")
    if options is not None and options.value is not None:
        for key, at in options.as_mapping("logicalTypeOptions (a mapping)").items():
            built = None if at.value is None else ctx.attempt(_option, key, at, scope, root)
            rules += [built] if built is not None else []
    if _has(node, "enum"):
        built = ctx.attempt(_enum, node.require("enum"), scope, root)
        rules += [built] if built is not None else []
    return rules


def implied(node: Node) -> str | None:
    declared = any(_has(node, k) for k in ("physicalType", "logicalType"))
    return None if declared else kind_of(node)


def _rule(at: Node, scope: Scope, root: str, what: str, check_type: str, failing: Build,
          written: object = None, **more: object) -> Rule:  # fmt: skip
    """A row check at the path: the rows where ``failing`` holds for its value."""
    assert scope.column is not None
    check = RowCheck(is_true(Sql(row_predicate(scope.column, failing))))
    if check_type == "field_required":
        odcs = view(scope, check_type)
        name = f"{scope.prop} required: not null"
    else:
        written = at.plain() if written is None else written
        odcs = view(scope, check_type, option=what, limit=written, **more)
        shown = ", ".join(map(str, written)) if isinstance(written, tuple) else written
        name = f"{scope.prop} {what} {shown}"
    return odcs_rule(
        at, what, check, odcs, columns=(root,), name=name, requires=_reads(root, scope)
    )


def _unique(at: Node, scope: Scope, root: str) -> Rule:
    path = scope.column
    assert path is not None
    name = f"{scope.prop} unique"
    odcs = view(scope, "field_unique")
    if "[]" in path:
        check = RowCheck(is_true(Sql(repeats(path))))
        return odcs_rule(
            at, "unique", check, odcs, columns=(root,), name=name, requires=_reads(root, scope)
        )
    none = Comparison(Op.EQ, Decimal(0), "= 0")
    counted = SqlCheck(duplicated(path, scope), mode="value", must=none)
    return odcs_rule(
        at, "unique", counted, odcs, columns=(root,), name=name, requires=_reads(root, scope)
    )


def _reads(root: str, scope: Scope) -> tuple[tuple[str, TypeFamily], ...]:
    """The column, and the path in it: a path its type lacks is an error before any
    scan (docs/dialects.md), as a missing column is."""
    assert scope.column is not None
    return ((root, "any"), (scope.column, "any"))


def _invalid(valid: Build) -> Build:
    """datacontract-cli's invalid count: a value neither NULL nor valid."""
    return lambda v: f"{v} IS NOT NULL AND NOT ({valid(v)})"


def _option(key: str, at: Node, scope: Scope, root: str) -> Rule | None:
    if key in DESCRIPTIVE_OPTIONS:
        return None
    checks: dict[str, tuple[str, Callable[[str], Build]]] = {
        "minLength": ("field_min_length", lambda n: lambda v: f"length({v}) >= {n}"),
        "maxLength": ("field_max_length", lambda n: lambda v: f"length({v}) <= {n}"),
        "minimum": ("field_minimum", lambda n: lambda v: f"{v} >= {n}"),
        "maximum": ("field_maximum", lambda n: lambda v: f"{v} <= {n}"),
        "exclusiveMinimum": ("field_exclusive_minimum", lambda n: lambda v: f"{v} > {n}"),
        "exclusiveMaximum": ("field_exclusive_maximum", lambda n: lambda v: f"{v} < {n}"),
        "minItems": ("field_min_items", lambda n: lambda v: f"size({v}) >= {n}"),
        "maxItems": ("field_max_items", lambda n: lambda v: f"size({v}) <= {n}"),
        "multipleOf": ("field_multiple_of", lambda n: lambda v: f"{v} % {n} = 0"),
        "pattern": ("field_regex", lambda p: lambda v: f"CAST({v} AS STRING) RLIKE {p}"),
    }
    if key == "uniqueItems":
        if not at.as_bool("true or false"):
            return None
        valid: Build = lambda v: f"size(array_distinct({v})) = size({v})"  # noqa: E731
        return _rule(at, scope, root, key, "field_unique_items", _invalid(valid))
    if key == "format":
        return _format(at, scope, root)
    if key not in checks:
        raise at.error(f"logicalTypeOptions.{key} is not supported")
    check_type, make = checks[key]
    if key == "pattern":
        text = literal(at.as_str("a regular expression"))
    elif key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        text = literal(at.value if isinstance(at.value, str) else at.as_number("a number"))
    elif key == "multipleOf":
        text = literal(at.as_number("a number above 0"))
    else:
        text = str(at.as_int(f"'{key}' (a whole number)", minimum=0))
    return _rule(at, scope, root, key, check_type, _invalid(make(text)))


def _format(at: Node, scope: Scope, root: str) -> Rule | None:
    name = at.as_str("a format")
    if name in UNCHECKED_FORMATS:
        return None
    if name not in STRING_FORMATS:
        raise at.error(
            f"format '{name}' of a nested property is not supported",
            hint="assay checks " + ", ".join(STRING_FORMATS) + " on nested properties",
        )
    known = STRING_FORMATS[name]
    fmt = FORMATS.get(known)

    def valid(v: str) -> str:
        text = f"CAST({v} AS STRING)"
        pattern = fmt.pattern if fmt is not None else known
        tests = [f"{text} RLIKE {literal(pattern)}"] if pattern else []
        if fmt is not None and fmt.extra is not None:
            tests.append(f"({fmt.extra(text)})")
        return " AND ".join(tests)

    return _rule(at, scope, root, "format", "field_format", _invalid(valid))


def _enum(node: Node, scope: Scope, root: str) -> Rule:
    """A value not NULL is one of them (NULLs in the list dropped)."""
    values = []
    for item in node.as_list("a list of allowed values", non_empty=True):
        value = item.get("value") if isinstance(item.value, dict) else item
        if value is not None and value.value is not None:
            values.append(value.value)
    listed = ", ".join(literal(v) for v in values)
    valid: Build = (lambda v: f"{v} IN ({listed})") if values else (lambda v: "false")
    return _rule(node, scope, root, "enum", "field_enum", _invalid(valid), written=tuple(values))

"""A schema object's ``properties`` -> rules (docs/dialects.md, "Data contracts"): the
column's presence and type (a schema check, no scan), ``required``, ``unique``,
``primaryKey``, ``enum`` and the ``logicalTypeOptions`` constraints as row checks of the
table's one plan, and the property's ``quality`` entries. A value is checked only when it
is not NULL (``required`` says whether it may be), as datacontract-cli's invalid counts.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal

from assay.config.node import Node
from assay.dialects import odcs_nested
from assay.dialects.base import Context
from assay.dialects.formats import FORMATS, format_valid
from assay.dialects.odcs_fields import (
    DESCRIPTIVE_OPTIONS,
    REFUSED,
    STRING_FORMATS,
    UNCHECKED_FORMATS,
    present,
)
from assay.dialects.odcs_quality import quality_rules
from assay.dialects.odcs_rules import Scope, odcs_rule, view
from assay.ir.expr import (
    Col,
    Compare,
    Expr,
    InSet,
    IsNull,
    Length,
    Lit,
    Matches,
    Not,
    Sql,
    all_of,
    is_true,
)
from assay.ir.rules import Check, RowCheck, Rule, TypeFamily, UniqueCheck
from assay.ir.values import Op

READ = frozenset(
    {"name", "physicalName", "logicalType", "physicalType", "required", "unique",
     "primaryKey", "primaryKeyPosition", "logicalTypeOptions", "enum", "quality",
     "relationships", "properties", "items"}
)  # fmt: skip
"""Keys of a property assay reads (its ``relationships`` by
:mod:`~assay.dialects.odcs_relationships`, with its schema object's)."""
DESCRIPTIVE = frozenset(
    {"id", "description", "businessName", "tags", "customProperties",
     "authoritativeDefinitions", "classification", "encryptedName", "transformSourceObjects",
     "transformLogic", "transformDescription", "examples", "criticalDataElement",
     "partitioned", "partitionKeyPosition", "synonyms", "deprecated", "semanticType"}
)  # fmt: skip
"""Keys of a property that only describe it: read and ignored."""
READ |= {"properties", "items"}  # nested: assay.dialects.odcs_nested
INTEGER_FORMATS = {
    f"{sign}{bits}": (
        (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if sign == "i" else (0, 2**bits - 1)
    )
    for sign in ("i", "u")
    for bits in (8, 16, 32, 64, 128)
}


@dataclasses.dataclass(frozen=True)
class Property:
    """One property read: its scope and node (for the rules of the schema object)."""

    scope: Scope
    node: Node
    primary: int | None
    """Its ``primaryKeyPosition`` when it is part of the primary key (0 when unsaid)."""


def read_property(node: Node, schema: str) -> Property:
    """A property's name, column and primary-key position; refused keys are errors."""
    node.as_mapping("a property (a mapping with 'name')")
    for key in node.as_mapping():
        if key in REFUSED and node.require(key).value not in (None, [], {}):
            raise node.require(key).error(f"'{key}': {REFUSED[key]}")
        if key not in READ | DESCRIPTIVE | REFUSED.keys():
            raise node.require(key).error(f"property key '{key}' is not supported")
    name = node.require("name").as_str("a property name")
    physical = node.get("physicalName")
    column = physical.as_str("a column name") if physical is not None else name
    primary = None
    if _flag(node, "primaryKey"):
        position = node.get("primaryKeyPosition")
        primary = position.as_int("a position") if position is not None else 0
    return Property(Scope(schema, name, column), node, primary)


def _flag(node: Node, key: str) -> bool:
    found = node.get(key)
    return found is not None and found.value is not None and found.as_bool()


def property_rules(prop: Property, composite: bool, ctx: Context) -> list[Rule]:
    """The rules of one property (errors to ``ctx.errors``); ``composite``: the primary
    key has several columns, checked together by the schema object."""
    node, scope = prop.node, prop.scope
    column = scope.column
    assert column is not None
    rules: list[Rule] = []
    typed = ctx.attempt(present, node, scope, odcs_nested.implied(node))
    rules += [typed] if typed is not None else []
    required, unique = _flag(node, "required"), _flag(node, "unique")
    if required:
        rules.append(_not_null(node.require("required"), scope, "required", "field_required"))
    if unique:
        rules.append(_unique(node.require("unique"), scope, "unique", "field_unique"))
    if prop.primary is not None:
        key = node.require("primaryKey")
        if not required:
            rules.append(_not_null(key, scope, "primaryKey", "field_primary_key_required"))
        if not composite and not unique:
            rules.append(_unique(key, scope, "primaryKey", "field_primary_key_unique"))
    options = node.get("logicalTypeOptions")
    if options is not None and options.value is not None:
        rules += ctx.attempt(_options, options, scope) or []
    enum = node.get("enum")
    if enum is not None and enum.value is not None:
        built = ctx.attempt(_enum, enum, scope)
        rules += [built] if built is not None else []
    quality = node.get("quality")
    if quality is not None and quality.value is not None:
        rules += quality_rules(quality, scope, ctx)
    for path, nested in ctx.attempt(lambda: list(odcs_nested.nested_paths(node, column))) or []:
        inner = ctx.attempt(odcs_nested.nested_rules, nested, path, column, scope.schema, ctx)
        rules += inner or []
    return rules


def _not_null(at: Node, scope: Scope, what: str, check_type: str) -> Rule:
    assert scope.column is not None
    check = RowCheck(IsNull(Col(scope.column)))
    name = f"{scope.prop} {what}: not null"
    return odcs_rule(at, what, check, view(scope, check_type), columns=(scope.column,), name=name)


def _unique(at: Node, scope: Scope, what: str, check_type: str) -> Rule:
    assert scope.column is not None
    check = UniqueCheck((scope.column,), counted="values", nulls="any")
    name = f"{scope.prop} {what}: unique"
    return odcs_rule(at, what, check, view(scope, check_type), columns=(scope.column,), name=name)


def composite_key(props: list[Property], node: Node, schema: str) -> Rule:
    """A primary key of several columns: their combinations are unique (rows with a NULL
    in one of them are left out, as datacontract-cli's duplicate count)."""
    ordered = sorted(props, key=lambda p: p.primary or 0)
    columns = tuple(p.scope.column for p in ordered if p.scope.column is not None)
    check = UniqueCheck(columns, counted="values", nulls="any")
    odcs = view(
        Scope(schema), "primary_key_unique", properties=tuple(p.scope.prop for p in ordered)
    )
    name = f"primary key ({', '.join(columns)}): unique"
    return odcs_rule(node, "primaryKey", check, odcs, columns=columns, name=name)


def _row_rule(
    at: Node, scope: Scope, what: str, check_type: str, failing: Expr,
    needs: TypeFamily = "any", written: object = None, **more: object,
) -> Rule:  # fmt: skip
    """A constraint on each non-NULL value: a row fails when ``failing`` is true."""
    column = scope.column
    assert column is not None
    check: Check = RowCheck(is_true(failing))
    written = at.plain() if written is None else written
    odcs = view(scope, check_type, option=what, limit=written, **more)
    shown = ", ".join(map(str, written)) if isinstance(written, tuple) else written
    name = f"{scope.prop} {what} {shown}"
    return odcs_rule(
        at, what, check, odcs, columns=(column,), name=name, requires=((column, needs),)
    )


def _options(node: Node, scope: Scope) -> list[Rule]:
    """``logicalTypeOptions``: each constraint a row check."""
    col = Col(scope.column or "")
    rules: list[Rule] = []
    for key, at in node.as_mapping("logicalTypeOptions (a mapping)").items():
        if at.value is None or key in DESCRIPTIVE_OPTIONS:
            continue
        built = _option(key, at, col, scope)
        if built is not None:
            rules.append(built)
    return rules


def _option(key: str, at: Node, col: Col, scope: Scope) -> Rule | None:
    lengths = {"minLength": (Op.LT, "field_min_length"), "maxLength": (Op.GT, "field_max_length")}
    bounds = {
        "minimum": (Op.LT, "field_minimum"),
        "maximum": (Op.GT, "field_maximum"),
        "exclusiveMinimum": (Op.LE, "field_exclusive_minimum"),
        "exclusiveMaximum": (Op.GE, "field_exclusive_maximum"),
    }
    if key in lengths:
        op, check_type = lengths[key]
        n = at.as_int(f"'{key}' (a whole number)", minimum=0)
        return _row_rule(at, scope, key, check_type, Compare(op, Length(col), Lit(n)), "string")
    if key in bounds:
        op, check_type = bounds[key]
        return _row_rule(at, scope, key, check_type, Compare(op, col, Lit(_bound(at, key))))
    if key == "pattern":
        pattern = at.as_str("a regular expression")
        return _row_rule(at, scope, key, "field_regex", Not(Matches(col, pattern)), "string")
    if key == "format":
        return _format(at, col, scope)
    if key == "multipleOf":
        m = at.as_number("a number above 0")
        failing = Sql(f"`{col.name}` % {m} <> 0")
        return _row_rule(at, scope, key, "field_multiple_of", failing, "numeric")
    return _array_option(key, at, col, scope)


def _bound(at: Node, key: str) -> int | float | Decimal | str:
    if isinstance(at.value, str):
        return at.value  # a date or a timestamp, compared in the column's type
    number = at.as_number(f"'{key}' (a number, or a date as a string)")
    return Decimal(repr(number)) if isinstance(number, float) else number


def _array_option(key: str, at: Node, col: Col, scope: Scope) -> Rule:
    name = "`" + col.name.replace("`", "``") + "`"
    if key in ("minItems", "maxItems"):
        n = at.as_int(f"'{key}' (a whole number)", minimum=0)
        op = "<" if key == "minItems" else ">"
        failing = Sql(f"size({name}) {op} {n}")
        return _row_rule(at, scope, key, f"field_{key[:3]}_items", failing)
    if key == "uniqueItems":
        if not at.as_bool("true or false"):
            return None  # type: ignore[return-value]
        failing = Sql(f"size(array_distinct({name})) <> size({name})")
        return _row_rule(at, scope, key, "field_unique_items", failing)
    raise at.error(f"logicalTypeOptions.{key} is not supported")


def _format(at: Node, col: Col, scope: Scope) -> Rule | None:
    name = at.as_str("a format")
    if name in UNCHECKED_FORMATS:
        return None
    if name in INTEGER_FORMATS:
        low, high = INTEGER_FORMATS[name]
        quoted = "`" + col.name.replace("`", "``") + "`"
        # a bound beyond a bigint's holds for every integral Spark type
        tests = [f"{quoted} < {low}" if low > -(2**63) else ""]
        tests.append(f"{quoted} > {high}" if high < 2**63 - 1 else "")
        said = " OR ".join(t for t in tests if t)
        if not said:
            return None  # every integral Spark type holds an i128
        return _row_rule(at, scope, "format", "field_format", Sql(said), "numeric")
    if name not in STRING_FORMATS:
        raise at.error(
            f"format '{name}' is not supported",
            hint="assay checks "
            + ", ".join((*STRING_FORMATS, *INTEGER_FORMATS))
            + "; a date's format describes text: not checked",
        )
    known = STRING_FORMATS[name]
    valid = format_valid(col.name, known) if known in FORMATS else Matches(col, known)
    return _row_rule(at, scope, "format", "field_format", Not(valid), "string")


def _enum(node: Node, scope: Scope) -> Rule:
    """``enum`` (ODCS 3.2: entries with a ``value``; a plain list too): a value that is
    not NULL is one of them (NULLs in the list dropped, as datacontract-cli does)."""
    values = []
    for item in node.as_list("a list of allowed values", non_empty=True):
        value = item.get("value") if isinstance(item.value, dict) else item
        if value is not None and value.value is not None:
            values.append(value.value)
    col = Col(scope.column or "")
    allowed: Expr = InSet(col, tuple(values)) if values else Lit(False)  # type: ignore[arg-type]
    failing = all_of(Not(IsNull(col)), Not(allowed))
    return _row_rule(node, scope, "enum", "field_enum", failing, written=tuple(values))

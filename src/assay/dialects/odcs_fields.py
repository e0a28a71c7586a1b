"""What a property and a nested property share (docs/dialects.md, "Data contracts"):
the keys refused, the string formats checked, the options that only describe, and the
presence-and-type check (a schema check at the column or at the nested path)."""

from __future__ import annotations

from assay.config.node import Node
from assay.dialects import odcs_types
from assay.dialects.odcs_rules import Scope, odcs_rule, view
from assay.ir.rules import Rule, SchemaCheck

REFUSED = {
    "map": "the keys and values of a map are not checked: datacontract-cli 1.2.8 does not "
    "check them either ('not supported yet', a warning)",
}
STRING_FORMATS = {
    "email": "email",
    "uuid": "uuid",
    "ipv4": "ipv4",
    "ipv6": "ipv6",
    "uri": r"\A[A-Za-z][A-Za-z0-9+.-]*:[^\s]*\z",
    "hostname": r"\A(?=.{1,253}\z)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\z",
    "byte": r"\A(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?\z",
}
"""ODCS's string formats assay checks: a named format of assay's (docs/rules.md) or a
regex; ``password`` and ``binary`` say how a value is used or stored, nothing to check."""
UNCHECKED_FORMATS = frozenset({"password", "binary", "f32", "f64"})
DESCRIPTIVE_OPTIONS = frozenset({"timezone", "defaultTimezone"})


def present(node: Node, scope: Scope, implied: str | None = None) -> Rule:
    """The column (or the nested path) exists, of the declared type (a schema check: no
    scan); ``implied``: the type its ``properties`` or ``items`` imply when none is
    declared (``object``, ``array``)."""
    column = scope.column
    assert column is not None
    physical, logical = node.get("physicalType"), node.get("logicalType")
    if physical is not None and physical.value is not None:
        expected, written, at = odcs_types.physical(physical), physical.value, physical
    elif logical is not None and logical.value is not None:
        expected, written, at = odcs_types.logical(logical), logical.value, logical
    elif implied is not None:
        expected, written, at = odcs_types.FAMILIES[implied], implied, node
    else:
        check = SchemaCheck(required=(column,))
        odcs = view(scope, "field_is_present")
        return odcs_rule(
            node, "present", check, odcs, columns=(column,), name=f"{scope.prop} present"
        )
    check = SchemaCheck(required=(column,), types=((column, expected),))
    odcs = view(scope, "field_type", type=written, spark_types=expected)
    name = f"{scope.prop} is {written}"
    return odcs_rule(at, "type", check, odcs, columns=(column,), name=name)

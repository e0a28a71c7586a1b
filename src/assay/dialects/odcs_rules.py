"""What every rule of a data contract shares (docs/dialects.md, "Data contracts"): where
it comes from (a :class:`Scope`: the schema object, the property, the quality entry),
its ``odcs`` parameter (read back as the result's ``details.odcs``), ODCS's thresholds
(``mustBe``, ``mustBeBetween``...) and its severities.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from decimal import Decimal

from assay.config.node import Node
from assay.ir.origin import Origin
from assay.ir.rules import Check, Level, Rule, TypeFamily
from assay.ir.values import Between, Comparison, Op, Pairs, Threshold

KIND = "odcs"
"""A contract's own rules are ``odcs:<what>``; a custom engine's keep its dialect's kind."""
PARAM = "odcs"
"""The rule parameter holding the contract's view (``details.odcs`` of its result)."""
COMPARATORS = {
    "mustBe": Op.EQ,
    "mustNotBe": Op.NE,
    "mustBeGreaterThan": Op.GT,
    "mustBeGreaterOrEqualTo": Op.GE,
    "mustBeLessThan": Op.LT,
    "mustBeLessOrEqualTo": Op.LE,
}
RANGES = ("mustBeBetween", "mustNotBeBetween")
WARNING_SEVERITIES = frozenset({"info", "warning", "warn", "low", "minor", "trivial"})
"""ODCS ``severity`` values that make a failing check a warning (datacontract-cli's
``failure_result``); any other fails."""


@dataclass(frozen=True)
class Scope:
    """Where a rule of the contract comes from."""

    schema: str
    """The schema object's (model's) name: the table."""
    prop: str | None = None
    """The property's (field's) name, None at schema level."""
    column: str | None = None
    """The column the property names (its ``physicalName``, else its name)."""
    quality: int | None = None
    """The position of the quality entry in its list."""
    table_sql: str = "_validation_df"


def is_odcs(rule: Rule) -> bool:
    """Whether ``rule`` was read from a data contract (its own or a custom engine's)."""
    return any(name == PARAM for name, _ in rule.params)


def view(scope: Scope, check: str, **more: object) -> Pairs:
    """The contract's view of a rule: its schema object, property, the check's type as
    datacontract-cli names it (``field_required``, ``row_count``...) and its key
    (``orders__email__field_required``), and ``more`` (metric, threshold, unit...)."""
    key = "__".join(p for p in (scope.schema, scope.column, check) if p is not None)
    if check.startswith("quality_custom"):
        key = f"{scope.schema}__quality_custom_{scope.quality}"
    elif check.endswith("quality_sql"):
        key = "__".join(p for p in (scope.schema, scope.column, "quality_sql") if p is not None)
        key += f"_{scope.quality}"
    items = {
        "schema": scope.schema,
        "property": scope.prop,
        "quality": scope.quality,
        "check": check,
        "key": key,
        **more,
    }
    return Pairs(items.items())


def odcs_rule(
    node: Node,
    what: str,
    check: Check,
    odcs: Pairs,
    *,
    columns: tuple[str, ...] = (),
    name: str | None = None,
    level: Level = "error",
    threshold: str | None = None,
    requires: tuple[tuple[str, TypeFamily], ...] = (),
    params: tuple[tuple[str, object], ...] = (),
    places: tuple[tuple[str, Origin], ...] = (),
) -> Rule:
    """A rule of the contract (kind ``odcs:<what>``), written at ``node``."""
    return Rule(
        kind=f"{KIND}:{what}",
        check=check,
        origin=node.origin,
        columns=columns,
        name=name,
        level=level,
        threshold=threshold,
        requires=requires or tuple((c, "any") for c in columns),
        params=(*params, (PARAM, odcs)),
        places=places,
    )


def with_view(rule: Rule, odcs: Pairs, level: Level | None) -> Rule:
    """A custom engine's rule with the contract's view (and the entry's severity)."""
    params = (*rule.params, (PARAM, odcs))
    if level == "warn":
        return dataclasses.replace(rule, params=params, level="warn")
    return dataclasses.replace(rule, params=params)


def level_of(entry: Node) -> Level:
    """An entry's ``severity``: a warning-like one (``info``, ``warning``...) is ``warn``."""
    node = entry.get("severity")
    if node is None or node.value is None:
        return "error"
    text = node.as_str("a severity (info, warning, error...)")
    return "warn" if text.strip().lower() in WARNING_SEVERITIES else "error"


def threshold_of(entry: Node, *, unit: str = "number") -> tuple[Threshold, str, Pairs]:
    """The one comparator of a quality entry as an assay threshold, its text, and the
    comparator as written (for ``details.odcs``).

    Raises:
        ConfigError: none or several comparators, or a bound that is not a number.
    """
    given = [k for k in (*COMPARATORS, *RANGES) if entry.get(k) is not None]
    if len(given) != 1:
        said = ", ".join(given) if given else "none"
        raise entry.error(
            f"a quality check needs exactly one comparator, got {said}",
            hint="one of " + ", ".join((*COMPARATORS, *RANGES)),
        )
    key = given[0]
    node = entry.require(key)
    shown_unit = "%" if unit == "percent" else ""
    if key in COMPARATORS:
        number = node.as_number(f"'{key}' (a number)")
        text = f"{COMPARATORS[key].value} {_num(number)}{shown_unit}"
        value = Decimal(repr(number)) if isinstance(number, float) else Decimal(number)
        return (
            Comparison(COMPARATORS[key], value, text, unit="percent" if shown_unit else "number"),
            text,
            Pairs(((key, number),)),
        )
    items = node.as_list(f"'{key}' (two numbers, the smaller first)")
    if len(items) != 2:
        raise node.error(f"'{key}' takes two numbers, the smaller first")
    low, high = (i.as_number("a number") for i in items)
    if low > high:
        raise node.error(f"'{key}': the smaller number comes first, got {low} then {high}")
    negate = key == "mustNotBeBetween"
    text = f"{'not ' if negate else ''}between {_num(low)}{shown_unit} and {_num(high)}{shown_unit}"
    bounds = Between(
        _dec(low),
        _dec(high),
        text,
        negate=negate,
        unit="percent" if shown_unit else "number",
    )
    return bounds, text, Pairs(((key, (low, high)),))


def _dec(value: int | float) -> Decimal:
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def _num(value: int | float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)

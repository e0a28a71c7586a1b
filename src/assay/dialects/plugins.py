"""Custom rule types from Python (docs/dialects.md, "Custom rule types").

A plugin registers a rule type with :func:`register_rule`; every dialect that takes native
rules (the native format and sparquet ``validations``) then accepts it::

    import assay
    from assay.ir import Col, Compare, Op, Sql

    def no_future_date(params):
        # the rows that FAIL: the planner fuses this count into the table's single scan
        return Compare(Op.GT, Col(params.column), Sql("current_date()"))

    assay.register_rule("no_future_date", no_future_date)

The builder gets the rule's parameters (:class:`RuleParams`) and returns either

- a row predicate (an IR :data:`~assay.ir.Expr`) that is true for a **failing** row: a
  row-level rule, counted in the aggregate pass, with sample rows and ``tolerance``;
- or any IR :data:`~assay.ir.Check` the planner already computes, e.g.
  ``MetricCheck(CountMetric(expr), threshold)`` or ``MetricCheck(ColumnMetric("max", c),
  ...)``: aggregates fused into the same pass;
- or a :class:`~assay.dialects.rule_spec.Built` for full control (columns, column kinds
  checked before any scan, threshold text).

Plugins are loaded with ``--plugin module`` (the module registers its rules when imported)
and from the entry point group ``assay.rules`` (each entry point is loaded; a callable is
called with no arguments).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

from assay.config.node import Node
from assay.dialects import params as p
from assay.dialects.catalogue import ALIASES, RULES
from assay.dialects.rule_spec import Built, RuleSpec
from assay.errors import ConfigError
from assay.ir.expr import Expr, columns_of, is_true
from assay.ir.rules import Check, RowCheck

ENTRY_POINT_GROUP = "assay.rules"

Builder = Callable[["RuleParams"], Any]


@dataclass(frozen=True)
class CustomRule:
    """A registered rule type: its entry in the one registry of rule types
    (:data:`assay.dialects.catalogue.RULES`) builds with :func:`build`."""

    name: str
    builder: Builder
    keys: frozenset[str]
    column_kind: str


class RuleParams:
    """A rule's parameters as the builder sees them; every error names the config place."""

    def __init__(self, node: Node):
        self.node = node

    def __getitem__(self, key: str) -> object:
        return self.node.require(key).plain()

    def get(self, key: str, default: object = None) -> object:
        child = self.node.get(key)
        return default if child is None else child.plain()

    def __contains__(self, key: str) -> bool:
        return self.node.get(key) is not None

    @property
    def column(self) -> str:
        """The ``column`` parameter (required)."""
        return p.column(self.node)

    @property
    def columns(self) -> tuple[str, ...]:
        """``column`` or ``columns``, as a tuple (exactly one is required)."""
        return p.columns(self.node)

    def error(self, message: str, hint: str | None = None) -> ConfigError:
        """A config error located at this rule, to raise from a builder."""
        return self.node.error(message, hint)


def register_rule(
    name: str,
    builder: Builder,
    *,
    keys: Iterable[str] = ("column", "columns"),
    column_kind: str = "any",
    replace: bool = False,
) -> None:
    """Register the rule type ``name``.

    ``keys`` are the parameters it accepts besides the common ones (``type``, ``name``,
    ``level``, ``code``, ``targets``; ``tolerance`` is added for row predicates);
    ``column_kind`` the kind its columns must have (``any``, ``numeric``, ``string``,
    ``temporal``...), checked against the schema before any scan.

    Raises:
        ValueError: ``name`` is a built-in type or alias, or already registered (unless
            ``replace``).
    """
    if name in ALIASES or (name in RULES and not RULES[name].custom):
        raise ValueError(f"'{name}' is a built-in rule type")
    if name in RULES and not replace:
        raise ValueError(f"rule type '{name}' is already registered")
    rule = CustomRule(name, builder, frozenset(keys) | {"tolerance"}, column_kind)
    RULES[name] = RuleSpec(partial(build, rule), rule.keys, custom=True)


def unregister_rule(name: str) -> None:
    """Forget a registered rule type (no error when it is not registered)."""
    if name in RULES and RULES[name].custom:
        del RULES[name]


def registered() -> tuple[str, ...]:
    """The rule types registered from Python, in registration order."""
    return tuple(name for name, spec in RULES.items() if spec.custom)


def load_plugins(modules: Iterable[str]) -> None:
    """Import each module (``--plugin``); importing it registers its rules.

    Raises:
        ConfigError: a module cannot be imported or fails while importing.
    """
    for module in modules:
        try:
            importlib.import_module(module)
        except Exception as e:  # noqa: BLE001 - any failure of user code is reported
            raise ConfigError(
                f"--plugin {module}: cannot import it: {type(e).__name__}: {e}",
                hint="the module must be importable from the current directory or sys.path",
            ) from None


def load_entry_points() -> None:
    """Load every ``assay.rules`` entry point (a callable is called with no arguments).

    Raises:
        ConfigError: an entry point fails to load.
    """
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            loaded = point.load()
            if callable(loaded) and not isinstance(loaded, type):
                loaded()
        except Exception as e:  # noqa: BLE001
            raise ConfigError(
                f"plugin entry point {point.name} ({point.value}): {type(e).__name__}: {e}"
            ) from None


def build(rule: CustomRule, node: Node) -> Built:
    """The :class:`~assay.dialects.rule_spec.Built` of one use of a custom rule."""
    params = RuleParams(node)
    try:
        out = rule.builder(params)
    except ConfigError:
        raise
    except Exception as e:  # noqa: BLE001 - a plugin's bug is reported at the rule
        raise node.error(f"rule type '{rule.name}' failed: {type(e).__name__}: {e}") from None
    if isinstance(out, Built):
        return out
    declared = _declared_columns(node)
    kind = rule.column_kind
    if isinstance(out, Expr):  # type: ignore[arg-type]
        columns = declared or columns_of(out)
        tolerance, text = p.tolerance(node)
        requires = tuple((c, kind) for c in columns)
        return Built(RowCheck(is_true(out), tolerance), columns, requires, text)  # type: ignore[arg-type]
    if isinstance(out, Check):  # type: ignore[arg-type]
        if node.get("tolerance") is not None:
            raise node.require("tolerance").error("'tolerance' applies only to row predicates")
        requires = tuple((c, kind) for c in declared)
        return Built(out, declared, requires)  # type: ignore[arg-type]
    raise node.error(
        f"rule type '{rule.name}': its builder returned {type(out).__name__}; expected a row "
        "predicate (an assay.ir expression) or an assay.ir check"
    )


def _declared_columns(node: Node) -> tuple[str, ...]:
    if node.get("column") is None and node.get("columns") is None:
        return ()
    return p.columns(node)

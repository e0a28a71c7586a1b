"""Validator functions: the escape hatch for checks the planner cannot fuse (docs/api.md).

A validator is a Python function that receives the table's DataFrame and its rule's
parameters and returns the verdict, as sparquet's ``BaseValidator.validate(df)`` does::

    import assay
    from pyspark.sql import functions as F

    def no_future_date(df, params):
        failed = df.where(F.col(params["column"]) > F.current_date()).count()
        return assay.ValidatorResult(failed == 0, f"{failed} future dates", failed)

    assay.register_validator("no_future_date", no_future_date, plans=1)

Once registered, ``{type: no_future_date, column: ordered_at}`` is a rule of every
dialect that takes native rules. Unlike :func:`assay.register_rule` (a row predicate or
an aggregate, fused into the table's one plan), a validator costs the Spark plans it runs
itself: ``plans`` declares how many, ``assay explain`` shows them and ``spark_plans``
counts them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assay.dialects import plugins
from assay.errors import ConfigError
from assay.ir.rules import ValidatorCheck
from assay.ir.suite import Table

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from assay.dialects.rule_spec import Built


@dataclass(frozen=True, slots=True)
class ValidatorResult:
    """What a validator function returns (a plain ``bool`` means ``ValidatorResult(b)``).

    ``failed_count`` and ``metric_value`` appear in the result as for any rule;
    ``samples`` are failing rows (mappings of column to value), at most the table's
    ``sample_size`` of them are kept.
    """

    passed: bool
    message: str = ""
    failed_count: int | None = None
    metric_value: float | int | None = None
    samples: Sequence[Mapping[str, Any]] | None = None


ValidatorFn = Callable[["DataFrame", Mapping[str, Any]], "ValidatorResult | bool"]


@dataclass(frozen=True)
class Validator:
    """A registered validator function and the Spark plans it declares."""

    name: str
    fn: ValidatorFn
    plans: int


VALIDATORS: dict[str, Validator] = {}
"""Registered validators by rule type."""


def register_validator(
    name: str,
    fn: ValidatorFn,
    *,
    plans: int = 1,
    keys: Iterable[str] = ("column", "columns"),
    replace: bool = False,
) -> None:
    """Register ``fn`` as the rule type ``name``.

    ``plans`` is how many Spark plans ``fn`` runs (shown by ``explain``, counted in
    ``spark_plans``); ``keys`` the parameters the rule accepts besides the common ones.

    Raises:
        ValueError: ``name`` is a built-in or registered rule type (unless ``replace``),
            or ``plans`` is negative.
    """
    if plans < 0:
        raise ValueError("plans must be 0 or more")
    builder = lambda params: _built(name, plans, params)  # noqa: E731
    plugins.register_rule(name, builder, keys=keys, replace=replace)
    VALIDATORS[name] = Validator(name, fn, plans)


def unregister_validator(name: str) -> None:
    """Forget a registered validator (no error when it is not registered)."""
    if VALIDATORS.pop(name, None) is not None:
        plugins.unregister_rule(name)


def _built(name: str, plans: int, params: plugins.RuleParams) -> Built:
    from assay.dialects import params as p
    from assay.dialects.rule_spec import Built

    node = params.node
    if node.get("tolerance") is not None:
        raise node.require("tolerance").error("'tolerance' does not apply to a validator")
    declared = node.get("column") is not None or node.get("columns") is not None
    columns = p.columns(node) if declared else ()
    return Built(ValidatorCheck(name, plans), columns, tuple((c, "any") for c in columns))


def split(table: Table) -> tuple[Table, tuple[int, ...]]:
    """The table without its validator rules (what the planner plans), and their indices.

    Raises:
        ConfigError: a table with validators also has dialect outputs (whose rule indices
            and on_failure holds would need the validators' verdicts first).
    """
    indices = tuple(i for i, r in enumerate(table.rules) if isinstance(r.check, ValidatorCheck))
    if not indices:
        return table, ()
    if table.outputs:
        raise ConfigError(
            "a table with validator rules cannot have outputs yet",
            origin=table.rules[indices[0]].origin,
        )
    kept = tuple(r for r in table.rules if not isinstance(r.check, ValidatorCheck))
    return dataclasses.replace(table, rules=kept), indices


def declared_plans(table: Table) -> int:
    """The Spark plans the table's validators declare."""
    return sum(r.check.plans for r in table.rules if isinstance(r.check, ValidatorCheck))

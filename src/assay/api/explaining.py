"""``assay.explain``: each table's plan and the Spark plans a run submits (no Spark)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assay.api.suites import Config, load
from assay.ir.rules import ValidatorCheck
from assay.ir.suite import Suite, Table


@dataclass(frozen=True)
class TableExplain:
    """One table's plan as ``assay explain`` prints it, and its Spark plan count when
    every rule passes (validator functions' declared plans included)."""

    table: str
    spark_plans: int
    detail_plan: bool
    text: str


def explain_tables(suite: Suite) -> list[TableExplain]:
    """The plan of every table of ``suite``."""
    from assay import validators
    from assay.planner import plan_table
    from assay.planner.render import render_plan

    found = []
    for table in suite.tables:
        planned, _ = validators.split(table)
        plan = plan_table(planned)
        text = render_plan(plan) + _validators_text(table) + _outputs_text(planned)
        plans = plan.base_plans + validators.declared_plans(table)
        found.append(TableExplain(table.name, plans, plan.detail is not None, text))
    return found


def explain(config: Config, **options: Any) -> str:
    """The text ``assay explain`` prints for ``config`` (options as :func:`assay.load`).

    Raises:
        ConfigErrors: the config is wrong.
    """
    suite = load(config, for_run=False, **options)
    tables = explain_tables(suite)
    total = sum(t.spark_plans for t in tables)
    views = f"; {len(suite.views)} temp views are created first" if suite.views else ""
    lines = [t.text + "\n" for t in tables]
    lines.append(
        f"{len(tables)} tables, {total} Spark plans when every rule passes"
        f" (+1 per table whose row-level rules fail){views}"
    )
    return "\n".join(lines) + "\n"


def _validators_text(table: Table) -> str:
    """The validator functions of a table, each with the plans it declares."""
    found = [(i, r) for i, r in enumerate(table.rules) if isinstance(r.check, ValidatorCheck)]
    if not found:
        return ""
    lines = [f"  validators: {len(found)} Python functions, not fused (plans of their own)"]
    for i, rule in found:
        assert isinstance(rule.check, ValidatorCheck)
        lines.append(f"    [{i}] {rule.kind}: {rule.check.plans} Spark plans  ({rule.origin})")
    return "\n" + "\n".join(lines)


def _outputs_text(table: Table) -> str:
    """The writes a table's dialect outputs add (one Spark plan each)."""
    from assay.ir.outputs import FailedRows, sinks_of

    if not table.outputs:
        return ""
    sinks = sinks_of(table.outputs)
    if all(isinstance(o, FailedRows) for o in table.outputs):
        when = "each only when its rule fails"
    elif table.hold_outputs:
        when = "none when a rule fails: on_failure fail"
    else:
        when = "after the checks"
    lines = [f"  writes: up to {len(sinks)} Spark plans ({when})"]
    lines += [f"    {s.format} -> {s.target}" for s in sinks]
    return "\n" + "\n".join(lines)

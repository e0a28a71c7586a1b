"""``assay.explain``: each table's plan and the Spark plans a run submits (no Spark)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay.api.suites import Config, load
from assay.ir.monitoring import Monitoring
from assay.ir.rules import ValidatorCheck
from assay.ir.suite import Suite, Table
from assay.monitoring.schemas import SCHEMA_RULE
from assay.options import RunOptions, checked, declarations, takes_options

if TYPE_CHECKING:
    from assay.planner.cost import PlannerOptions


@dataclass(frozen=True)
class TableExplain:
    """One table's plan as ``assay explain`` prints it, and its Spark plan count when
    every rule passes (validator functions' declared plans included); ``plan`` is the
    same plan as JSON values (``assay explain --format json``)."""

    table: str
    spark_plans: int
    detail_plan: bool
    text: str
    plan: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The ``plan`` line of ``assay explain --format json`` (docs/events.md)."""
        return {
            "event": "plan",
            "schema_version": PLAN_SCHEMA_VERSION,
            "table": self.table,
            "spark_plans": self.spark_plans,
            "detail_plan": self.detail_plan,
            "plan": self.plan,
            "text": self.text,
        }


PLAN_SCHEMA_VERSION = 1
"""The ``schema_version`` of ``plan`` lines."""


def explain_tables(suite: Suite, options: PlannerOptions | None = None) -> list[TableExplain]:
    """The plan of every table of ``suite``, planned with ``options`` (a run's
    :func:`~assay.planner.cost.planner_options`; None: the planner's defaults)."""
    from assay.dialects import validator_functions as validators
    from assay.planner import plan_table
    from assay.planner.plan_json import table_plan_json
    from assay.planner.render import render_plan

    found = []
    for table in suite.tables:
        planned, _ = validators.split(table)
        plan = plan_table(planned) if options is None else plan_table(planned, options)
        text = render_plan(plan) + _validators_text(table) + _outputs_text(planned)
        declared = validators.declared_plans(table)
        structure, writes = table_plan_json(plan), _writes_json(planned)
        counts = {**structure["counts"], "validators": declared, "writes": len(writes)}
        structure.update(counts=counts, validators=_validators_json(table), writes=writes)
        if planned.incremental is not None:  # docs/incremental.md
            from assay.planner.incremental import incremental_json

            structure["incremental"] = incremental_json(planned)
        plans = plan.base_plans + declared
        found.append(TableExplain(table.name, plans, plan.detail is not None, text, structure))
    return found


@takes_options("explain")
def explain(config: Config, **options: Any) -> str:
    """The text ``assay explain`` prints for ``config``: the options of :func:`assay.load`
    and those the planner reads (as ``assay.run`` takes them), so the plan explained is
    the plan run.

    Raises:
        ConfigErrors: the config is wrong.
    """
    given = checked(explain, options)
    planning = {f.name for f, d in declarations(RunOptions) if d.planner is not None}
    loading = {k: v for k, v in given.items() if k not in planning}
    suite = load(config, for_run=False, **loading)
    planned = {k: v for k, v in given.items() if k in planning}
    if not planned:
        return _explained(suite, explain_tables(suite))
    from assay.planner.cost import planner_options

    return _explained(suite, explain_tables(suite, planner_options(RunOptions(**planned))))


def _explained(suite: Suite, tables: list[TableExplain]) -> str:
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


def _validators_json(table: Table) -> list[dict[str, Any]]:
    """The validator functions of a table (not fused): each rule and its declared plans."""
    return [
        {"rule": i, "type": r.kind, "plans": r.check.plans}
        for i, r in enumerate(table.rules)
        if isinstance(r.check, ValidatorCheck)
    ]


def _writes_json(table: Table) -> list[dict[str, Any]]:
    """The writes a table's dialect outputs may add (one Spark plan each, at most)."""
    from assay.ir.outputs import sinks_of

    when = _writes_when(table)
    return [{"format": s.format, "target": s.target, "when": when} for s in sinks_of(table.outputs)]


def _writes_when(table: Table) -> str:
    """When a table's outputs are written, as ``explain`` says it."""
    from assay.ir.outputs import FailedRows

    if all(isinstance(o, FailedRows) for o in table.outputs):
        return "each only when its rule fails"
    if table.hold_outputs:
        return "none when a rule fails: on_failure fail"
    return "after the checks"


def _outputs_text(table: Table) -> str:
    """The writes a table's dialect outputs add (one Spark plan each)."""
    from assay.ir.outputs import sinks_of

    if not table.outputs:
        return ""
    sinks = sinks_of(table.outputs)
    when = _writes_when(table)
    lines = [f"  writes: up to {len(sinks)} Spark plans ({when})"]
    lines += [f"    {s.format} -> {s.target}" for s in sinks]
    return "\n" + "\n".join(lines)


def explain_history(suite: Suite, monitoring: Monitoring | None) -> dict[str, Any] | None:
    """What a run does with its metrics store (None without one): the history it reads
    once before any table (the rules judged over time and how many earlier runs of each)
    and the append after; the ``history`` line of ``assay explain --format json``."""
    if monitoring is None:
        return None
    import datetime as dt

    from assay.monitoring.series import wanted

    want = wanted(suite.tables, monitoring, "", dt.datetime.now(dt.timezone.utc))
    rules = [{"table": t, "rule": r, "measure": m, "runs": n}
             for (t, r, m), n in sorted(want.runs.items())]  # fmt: skip
    table = monitoring.store.kind == "table"
    return {
        "event": "history",
        "schema_version": PLAN_SCHEMA_VERSION,
        "store": str(monitoring.store),
        "tags": dict(monitoring.tags),
        "rules": rules,
        "read_plans": 1 if table and rules else 0,
        "write_plans": 1 if table else 0,
    }


def history_text(found: dict[str, Any]) -> str:
    """:func:`explain_history` in words."""
    rules = found["rules"]
    tags = ", ".join(f"{k}={v}" for k, v in found["tags"].items())
    lines = [f"metrics store: {found['store']}" + (f" (runs tagged {tags})" if tags else "")]
    if rules:
        how = "1 Spark plan" if found["read_plans"] else "one pass over the file"
        lines.append(f"  history: read once before any table ({how}): {len(rules)} rules"
                     f" judged over time, the newest {max(r['runs'] for r in rules)} runs"
                     " at most")  # fmt: skip
        lines += [f"    {r['table']}: {_read(r)}" for r in rules]
    else:
        lines.append("  history: none read (no rule has change or anomaly, nor is schema_change)")
    write = "1 Spark write" if found["write_plans"] else "one append to the file"
    lines.append(f"  after the run: every value measured, each table's schema appended ({write})")
    return "\n".join(lines)


def _read(wanted: dict[str, Any]) -> str:
    """What the history read holds of one rule (a table's last schema: schema_change)."""
    if wanted["rule"] == SCHEMA_RULE:
        return "its last schema (schema_change)"
    return f"{wanted['rule']} ({wanted['measure']}, last {wanted['runs']})"

"""The planner's passes as they run over a table, as text: the state after each pass
(``assay explain --passes``, the golden fixtures of tests/planner/passes/)."""

from __future__ import annotations

from assay.ir.rules import expressions_of
from assay.ir.suite import Table
from assay.planner.passes import PASSES, Pass, PlanContext, PlanState, states
from assay.planner.plan import DetailEntry
from assay.planner.render import render_branch, render_expr, render_measure, slot_users


def render_state(state: PlanState) -> dict[str, list[str]]:
    """A state's parts as text, by name (a part with nothing in it is left out): the
    rules' expressions, the folded SQL rules, the slots not yet in a branch, the branches,
    the sampled rules and the key whose range is measured."""
    parts = {
        "rules": [_rule(i, state.table) for i in range(len(state.table.rules))],
        "folded": [f"    rules[{f.rule_index}]  {render_measure(f.measure)}" for f in state.folded],
        "slots": [
            f"    {s.name}  {render_measure(s.form)}  <- {slot_users(s, state.key_range)}"
            for s in state.slots
        ],
        "branches": [line for b in state.branches for line in render_branch(b, state.key_range)],
        "samples": [_sampled(e) for e in state.detail.entries] if state.detail else [],
        "key range": [f"    {state.key_range}"] if state.key_range else [],
    }
    return {name: lines for name, lines in parts.items() if lines}


def trace(table: Table, context: PlanContext | None = None) -> str:
    """The table's first state, then each pass with the parts of the state it changed."""
    context = context or PlanContext()
    state = PlanState(table)
    lines = [f"table {table.name}: the planner's state after each pass", "  0. first state"]
    lines += _parts(render_state(state))
    before = render_state(state)
    for n, (step, after) in enumerate(states(state, context), 1):
        lines.append(f"  {n}. {step.name}{_heading(step, after, before)}")
        if after is None:
            continue
        now = render_state(after)
        lines += _parts(_changed(before, now))
        lines += [f"   {k}: (none left)" for k in before if k not in now]
        before = now
    return "\n".join(lines) + "\n"


def traced(table: Table, context: PlanContext | None = None) -> list[dict[str, object]]:
    """The states of :func:`trace` as JSON values (``assay explain --passes --format
    json``): the first state, then one entry per pass with the whole state after it (its
    parts as lines) or, for a pass its option turned off, ``off`` and no state."""
    context = context or PlanContext()
    state = PlanState(table)
    found: list[dict[str, object]] = [{"pass": None, "off": None, "state": _json(state)}]
    for step, later in states(state, context):
        off = None if later is not None else step.option
        found.append({"pass": step.name, "off": off, "state": _json(later) if later else None})
    return found


def _json(state: PlanState) -> dict[str, list[str]]:
    return {name: [line.strip() for line in lines] for name, lines in render_state(state).items()}


def _changed(before: dict[str, list[str]], now: dict[str, list[str]]) -> dict[str, list[str]]:
    """The parts of ``now`` that differ from ``before``; of a part that only grew (the
    branches), the lines added."""
    found = {}
    for name, lines in now.items():
        old = before.get(name, [])
        if old == lines:
            continue
        grew = old and lines[: len(old)] == old
        found[f"{name} (added)" if grew else name] = lines[len(old) :] if grew else lines
    return found


def after(name: str, table: Table, context: PlanContext | None = None) -> str:
    """The whole state after the pass named ``name`` (the passes before it run too)."""
    context = context or PlanContext()
    found = [s for p, s in states(PlanState(table), context, PASSES) if p.name == name]
    assert found, name
    state = found[0]
    if state is None:
        return f"(off: PlannerOptions.{_pass(name).option})\n"
    return "\n".join(_parts(render_state(state))) + "\n"


def _pass(name: str) -> Pass:
    return next(p for p in PASSES if p.name == name)


def _heading(step: Pass, after: PlanState | None, before: dict[str, list[str]]) -> str:
    if after is None:
        return f" (off: PlannerOptions.{step.option})"
    return "" if render_state(after) != before else " (unchanged)"


def _parts(parts: dict[str, list[str]]) -> list[str]:
    return [line for name, lines in parts.items() for line in (f"   {name}:", *lines)]


def _rule(index: int, table: Table) -> str:
    rule = table.rules[index]
    exprs = "; ".join(render_expr(e) for e in expressions_of(rule.check))
    return f"    rules[{index}] {rule.kind}" + (f": {exprs}" if exprs else "")


def _sampled(entry: DetailEntry) -> str:
    if entry.predicate is not None:
        what = render_expr(entry.predicate)
    elif entry.grouped is not None:
        what = f"the failing groups of ({', '.join(entry.columns)})"
    else:
        what = f"value of ({', '.join(entry.group or ())}) shared by another row"
    return f"    rules[{entry.rule_index}]  {what}"

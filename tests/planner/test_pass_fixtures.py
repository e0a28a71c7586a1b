"""Each planner pass against its golden fixture (tests/planner/passes/<module>.txt, in
sqlglot's optimizer style): a table and the planner's context, then the whole state
after that pass (the passes before it run too). ``ASSAY_REGEN=1`` rewrites them; and the
fold over PASSES is the plan a run uses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from assay.config import load_suite
from assay.ir.suite import Table
from assay.planner import plan_table
from assay.planner.cost import PlannerOptions
from assay.planner.lower import planned
from assay.planner.passes import PASSES, PlanContext, PlanState, run
from assay.planner.trace import after

FIXTURES = Path(__file__).parent / "passes"
SPLIT = "-- after "


def _module(name: str) -> str:
    return next(p.function.__module__ for p in PASSES if p.name == name).rsplit(".", 1)[1]


def _case(path: Path, tmp_path: Path) -> tuple[str, Table, PlanContext, str, str]:
    text = path.read_text()
    head, _, rest = text.partition(SPLIT)
    name, _, expected = rest.partition("\n")
    given = yaml.safe_load(head)
    table = {"name": "t", "source": {"path": "/data/t.parquet"}} | given["table"]
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({"tables": [table]}))
    raw = dict(given.get("context") or {})
    options = PlannerOptions(**raw.pop("options", {}))
    for key in ("unfold", "without"):
        raw[key] = frozenset(raw.get(key, ()))
    context = PlanContext(options=options, **raw)
    return name, load_suite([str(config)]).tables[0], context, expected, head + SPLIT + name


def test_every_pass_has_a_fixture():
    assert sorted(f.stem for f in FIXTURES.glob("*.txt")) == sorted(_module(p.name) for p in PASSES)


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.txt")), ids=lambda p: p.stem)
def test_the_state_after_each_pass(path, tmp_path):
    name, table, context, expected, head = _case(path, tmp_path)
    assert _module(name) == path.stem, "a fixture is named after its pass's module"
    found = after(name, table, context)
    if os.environ.get("ASSAY_REGEN"):
        path.write_text(head + "\n" + found)
        return
    assert found == expected


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.txt")), ids=lambda p: p.stem)
def test_the_fold_over_the_passes_is_the_plan_a_run_uses(path, tmp_path):
    """What the executor gets (plan_table, as executor/prepare.py calls it) is the fold of
    PASSES over the same table and context, read as plans."""
    _, table, context, _, _ = _case(path, tmp_path)
    folded = planned(run(PASSES, PlanState(table), context))
    assert folded == plan_table(
        table, context.options, size_bytes=context.size_bytes, unfold=context.unfold,
        key_range=context.key_range, without=context.without, columnar=context.columnar,
        types=context.types,
    )  # fmt: skip


@pytest.mark.spark
def test_a_run_plans_through_the_fold_alone(server, monkeypatch):
    """The plan a run uses (executor/prepare.py, with the server's types and sizes) is
    the fold of PASSES over the table as loaded: nothing rewrites the table before the
    planner (its literals are typed by the fold's first pass)."""
    from assay.executor import prepare
    from assay.planner.cost import DEFAULT_OPTIONS
    from tests.conftest import ROOT

    calls: list[tuple[Table, PlanContext]] = []

    def recorded(table: Table, options: PlannerOptions, **given: object):
        unfold, without = (frozenset(given.pop(k, ())) for k in ("unfold", "without"))  # type: ignore[arg-type]
        context = PlanContext(options=options, unfold=unfold, without=without, **given)  # type: ignore[arg-type]
        calls.append((table, context))
        return plan_table(table, options, unfold=unfold, without=without, **given)  # type: ignore[arg-type]

    monkeypatch.setattr(prepare, "plan_table", recorded)
    for table in load_suite([str(ROOT / "examples" / "orders.yaml")]).tables:
        df, schema = prepare.read_source(server.spark, table)  # type: ignore[misc]
        plan, _ = prepare.planned(server.spark, table, df, schema, DEFAULT_OPTIONS)
        given, context = calls[-1]
        assert given == table, "the executor hands the planner the table as loaded"
        assert context.types, "with the column types: the literals are typed in the fold"
        assert plan == planned(run(PASSES, PlanState(table), context))

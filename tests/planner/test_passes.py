"""The planner's passes are named once (assay.planner.passes), each with a test that
exists, and `assay explain --passes` prints them in order, then each table's state after
each of them."""

from __future__ import annotations

import json

from assay.planner.passes import PASSES, describe
from tests.conftest import ROOT
from tests.helpers import assay_cli


def test_every_pass_names_a_function_and_a_test_that_exist():
    assert len({p.name for p in PASSES}) == len(PASSES)
    for p in PASSES:
        assert (ROOT / p.test).is_file(), p
        assert p.where.startswith("assay.planner.passes."), p
    modules = [p.function.__module__ for p in PASSES]
    assert len(set(modules)) == len(modules), "one pass per module"


def test_a_pass_turned_off_is_skipped_by_the_fold(tmp_path):
    from assay.planner.cost import PlannerOptions
    from assay.planner.passes import PlanContext, PlanState, states
    from tests.planner.test_pass_fixtures import FIXTURES, _case

    _, table, context, _, _ = _case(FIXTURES / "sql_folding.txt", tmp_path)
    off = PlanContext(options=PlannerOptions(fold_sql=False))
    ran = {p.name: s for p, s in states(PlanState(table), off)}
    assert ran["sql folding"] is None and not ran["measure sharing"].folded


def test_explain_prints_the_passes_in_order():
    args = ["explain", "examples/orders.yaml", "--passes"]
    text = assay_cli(*args)
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith(describe())
    places = [text.stdout.index(f"{n}. {p.name}") for n, p in enumerate(PASSES, 1)]
    assert places == sorted(places)
    trace = text.stdout[text.stdout.index("table orders: the planner's state after each pass") :]
    steps = [trace.index(f"\n  {n}. {p.name}") for n, p in enumerate(PASSES, 1)]
    assert steps == sorted(steps)
    assert "  3. measure sharing\n   slots:\n    m000_rows  count(*)" in trace
    done = assay_cli(*args, "--format", "json")
    first = json.loads(done.stdout.splitlines()[0])
    assert first["event"] == "passes"
    assert [p["name"] for p in first["passes"]] == [p.name for p in PASSES]
    assert {p["name"]: p["option"] for p in first["passes"]}["sql folding"] == "fold_sql"
    orders = next(t for t in first["tables"] if t["table"] == "orders")
    assert [s["pass"] for s in orders["states"]] == [None, *(p.name for p in PASSES)]
    sharing = next(s for s in orders["states"] if s["pass"] == "measure sharing")
    assert "m000_rows  count(*)" in sharing["state"]["slots"][0]


def test_the_json_states_are_the_text_states(tmp_path):
    """Each pass's state as JSON is the text `after` prints, line for line; a pass turned
    off has no state in either."""
    from assay.planner.cost import PlannerOptions
    from assay.planner.passes import PlanContext
    from assay.planner.trace import after, traced
    from tests.planner.test_pass_fixtures import FIXTURES, _case

    _, table, _, _, _ = _case(FIXTURES / "sql_folding.txt", tmp_path)
    for context in (PlanContext(), PlanContext(options=PlannerOptions(fold_sql=False))):
        for step in traced(table, context)[1:]:
            text = after(str(step["pass"]), table, context)
            if step["state"] is None:
                assert step["off"] == "fold_sql" and text.startswith("(off:")
                continue
            lines = [f"{k}:" if i == 0 else v for k, vs in step["state"].items()
                     for i, v in enumerate([None, *vs])]  # fmt: skip
            assert [line.strip() for line in text.splitlines()] == lines

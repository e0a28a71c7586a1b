"""A table's run as its stages (assay.executor.stages), run as pure code: the plans go to
a submitter of the test's own that answers from values computed beforehand (the
project's ``Submitter`` protocol, not a stand-in for pyspark), so the planner calls and
the Spark round trips of a table are counted without a server; the last test counts the
real submitter's against a real one."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from assay.config import load_suite
from assay.dialects.validator_functions import ValidatorResult
from assay.executor.stages import aggregate as aggregate_stage
from assay.executor.stages import detail as detail_stage
from assay.executor.stages.prepared import Planned
from assay.executor.stages.submitter import Answer, Samples
from assay.executor.table import TableContext, run_table
from assay.ir.rules import Rule
from assay.ir.suite import Table
from assay.planner import plan_table
from assay.planner.measures import CountIf, Measure, RowCount
from assay.planner.plan import AggregatePlan, DetailPlan, HistogramPlan, SqlPlan
from assay.report.events import RuleResult

RULES = """\
      - {type: not_null, column: id}
      - {type: row_count, min: 1}
      - {type: schema, required_columns: [id, name]}
      - {type: sql, query: "SELECT count(*) = 0 FROM _validation_df WHERE id < 0"}
"""


class Answers:
    """A :class:`~assay.executor.stages.submitter.Submitter` answering each plan from
    ``value_of`` (a measure's value) and ``queries`` (a SQL rule's rows and value); it
    counts the plans it is handed, by kind. ``bad`` measures make a plan holding them
    fail, as Spark fails on an overflow."""

    def __init__(
        self,
        value_of: Callable[[Measure], object],
        queries: Mapping[int, tuple[int, Any]] | None = None,
        bad: Callable[[Measure], bool] = lambda _: False,
    ) -> None:
        self.value_of, self.queries, self.bad = value_of, dict(queries or {}), bad
        self.calls: Counter[str] = Counter()
        self.plans, self.step, self.notes = 0, "aggregate plan", list[str]()

    def note(self, line: str) -> None:
        self.notes.append(line)

    def _submitted(self, kind: str) -> None:
        self.calls[kind] += 1
        self.plans += 1
        self.step = f"{kind} plan"

    def aggregate(self, aggregate: AggregatePlan | None, sql: SqlPlan | None) -> Answer:
        self._submitted("aggregate")
        slots = aggregate.slots if aggregate is not None else ()
        if any(self.bad(s.measure) for s in slots):
            raise ArithmeticError("[ARITHMETIC_OVERFLOW] long overflow")
        values = {s.measure: self.value_of(s.measure) for s in slots}
        queries = {q.rule_index: self.queries[q.rule_index] for q in sql.queries} if sql else {}
        rows = self.value_of(RowCount()) if sql is not None and sql.count_rows else None
        return Answer(values, queries, rows)

    def histogram(self, plan: HistogramPlan, bounds: Mapping[str, tuple[float, float]]) -> Any:
        raise AssertionError("no histogram in these tables")

    def detail(self, plan: DetailPlan) -> Samples:
        self._submitted("detail")
        return {e.rule_index: [{"id": None}] * plan.sample_size for e in plan.entries}

    def validate(self, rule: Rule) -> ValidatorResult | str:
        raise AssertionError("no validator in these tables")

    def write(self, results: list[RuleResult]) -> tuple[list[dict[str, Any]], int]:
        raise AssertionError("no output in these tables")


def table(tmp_path: Path, rules: str = RULES) -> Table:
    path = tmp_path / "c.yaml"
    path.write_text("tables:\n  - name: t\n    source: {table: db.t}\n    rules:\n" + rules)
    return load_suite([path]).tables[0]


def planned(t: Table) -> Planned:
    """The prepare stage's answer for a table of ``id bigint, name string`` (one
    planner call, as preparing a table whose folds Spark accepts costs)."""
    types = {"id": "bigint", "name": "string"}
    return Planned(plan_table(t, types=types), tuple(types.items()), ("id",))


@pytest.fixture
def planner_calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """The planner functions the stages call, counted (each still computes its plan)."""
    counted: Counter[str] = Counter()
    for module, name in (
        (detail_stage, "plan_detail"),
        (aggregate_stage, "aggregate_subset"),
        (aggregate_stage, "sql_subset"),
    ):
        real = getattr(module, name)

        def counting(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            counted[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, counting)
    return counted


def rows_and_nulls(nulls: int) -> Callable[[Measure], object]:
    """10 rows, ``nulls`` of them failing each row rule."""
    return lambda m: 10 if m == RowCount() else (nulls if isinstance(m, CountIf) else None)


def test_a_passing_table_is_one_planner_call_and_one_spark_plan(tmp_path, planner_calls):
    ready = planned(table(tmp_path))
    answers = Answers(rows_and_nulls(0))
    outcome = run_table(answers, ready, TableContext("r"))
    assert [e.severity for e in outcome.events] == ["pass"] * 4
    assert outcome.finished.row_count == 10
    assert outcome.planner_calls == 1 and sum(planner_calls.values()) == 0
    assert answers.calls == {"aggregate": 1} and outcome.finished.spark_plans == 1


def test_a_failing_table_adds_one_planner_call_and_one_plan_for_its_samples(
    tmp_path, planner_calls
):
    ready = planned(table(tmp_path))
    answers = Answers(rows_and_nulls(3))
    outcome = run_table(answers, ready, TableContext("r"))
    severities = [e.severity for e in outcome.events]
    assert severities[0] == "fail" and outcome.events[0].failed_count == 3
    assert severities[2] == "pass"  # the schema rule, judged from the schema alone
    assert outcome.events[0].samples
    assert outcome.planner_calls == 2 and planner_calls == {"plan_detail": 1}
    assert answers.calls == {"aggregate": 1, "detail": 1} and outcome.finished.spark_plans == 2


def test_the_schema_judge_reads_the_schema_the_prepare_stage_read(tmp_path):
    ready = planned(table(tmp_path, "      - {type: schema, required_columns: [id, gone]}\n"))
    outcome = run_table(Answers(rows_and_nulls(0)), ready, TableContext("r"))
    assert (
        outcome.events[0].severity == "fail" and "missing column gone" in outcome.events[0].message
    )


def test_a_sql_rule_run_as_a_query_is_judged_from_its_answer(tmp_path):
    rules = (
        '      - {type: sql, query: "SELECT collect_list(name) IS NOT NULL FROM _validation_df"}\n'
    )
    ready = planned(table(tmp_path, rules))
    assert ready.plan.sql is not None and not ready.plan.folded
    answers = Answers(rows_and_nulls(0), {0: (1, False)})
    outcome = run_table(answers, ready, TableContext("r"))
    assert outcome.events[0].severity == "fail" and outcome.events[0].message.endswith(
        "expected true"
    )
    assert answers.calls == {"aggregate": 1}


def test_a_measure_spark_fails_on_costs_its_rule_alone(tmp_path, planner_calls):
    rules = "".join(f"      - {{type: not_null, column: c{i}}}\n" for i in range(4))
    ready = planned(table(tmp_path, rules))
    bad = lambda m: isinstance(m, CountIf) and "c2" in repr(m)  # noqa: E731
    answers = Answers(rows_and_nulls(0), bad=bad)
    outcome = run_table(answers, ready, TableContext("r"))
    severities = [e.severity for e in outcome.events]
    assert severities == ["pass", "pass", "error", "pass"]
    assert "Spark could not compute this rule" in outcome.events[2].message
    # the whole plan; then its measures but the row count (a subset), and halves down
    # to the bad one: [c0 c1] [c2 c3], [c2] [c3]
    assert answers.calls == {"aggregate": 6} and planner_calls == {"aggregate_subset": 5}
    assert outcome.planner_calls == 1 + 5
    assert outcome.finished.error is None


def test_every_kind_of_check_is_judged_through_the_registry():
    from assay.ir import Origin
    from assay.ir.rules import ValidatorCheck
    from assay.judge import evaluate
    from assay.judge.outcome import Evidence

    assert None not in evaluate.JUDGES.values()
    rule = Rule("no_future_date", ValidatorCheck("no_future_date"), Origin("t.yaml", "r"))
    verdict = ValidatorResult(False, "2 future dates", 2)
    judged = evaluate.judge(rule, Evidence(verdict=verdict))
    assert (judged.severity, judged.failed_count, judged.message) == ("fail", 2, "2 future dates")
    raised = evaluate.judge(rule, Evidence(verdict="validator x raised KeyError: 'c'"))
    assert raised.severity == "error" and raised.message.endswith("KeyError: 'c'")


class Counted:
    """The real submitter, its calls counted by kind."""

    def __init__(self, real: Any) -> None:
        self.real, self.calls = real, Counter[str]()

    @property
    def plans(self) -> int:
        return int(self.real.plans)

    @property
    def step(self) -> str:
        return str(self.real.step)

    def note(self, line: str) -> None:
        self.real.note(line)

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.real, name)

        def counted(*args: Any) -> Any:
            self.calls[name] += 1
            return method(*args)

        return counted


@pytest.mark.spark
def test_the_real_submitter_is_called_as_often_on_a_real_server(spark, tmp_path, planner_calls):
    from assay.executor.prepare import prepare
    from assay.executor.stages.prepared import Prepared
    from assay.executor.stages.submitter import SparkSubmitter

    data = tmp_path / "t.parquet"
    spark.range(10).selectExpr(
        "IF(id < 3, NULL, id) AS id", "CAST(id AS STRING) AS name"
    ).write.parquet(str(data))
    counts = {}
    for rule in ("name", "id"):  # a passing table, then a failing one
        rules = RULES.replace("column: id}", f"column: {rule}}}")
        path = tmp_path / f"{rule}.yaml"
        path.write_text(
            f"tables:\n  - name: t\n    source: {{path: {data}, format: parquet}}\n    rules:\n{rules}"
        )
        prepared = prepare(spark, load_suite([path]).tables[0])
        assert isinstance(prepared, Prepared)
        submitter = Counted(SparkSubmitter(spark, prepared))
        outcome = run_table(submitter, prepared.planned, TableContext("r"))
        assert outcome.finished.error is None
        counts[rule] = (outcome.planner_calls, dict(submitter.calls), outcome.finished.spark_plans)
    assert counts["name"] == (1, {"aggregate": 1}, 1)
    assert counts["id"] == (2, {"aggregate": 1, "detail": 1}, 2)
    assert planner_calls == {"plan_detail": 1}

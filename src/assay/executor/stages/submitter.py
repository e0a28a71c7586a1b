"""The one way a table's stages reach Spark: :class:`Submitter`.

The stages hand it plans (plan IR) and get values back; :class:`SparkSubmitter` builds
the frames (:mod:`assay.emit`), collects them under the plan timeout and the run's
interruption (:mod:`assay.executor.deadline`), and counts the plans it submits. A test
gives the stages a submitter of its own that answers from values computed beforehand.
"""

from __future__ import annotations

import contextlib
import json
import threading
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from assay.dialects.validator_functions import ValidatorResult
from assay.emit import detail as emit_detail
from assay.emit import spark as emit
from assay.emit.histogram import histogram_frame
from assay.executor.beside import beside
from assay.executor.deadline import deadline
from assay.executor.outputs import write_outputs
from assay.executor.validators import call_validator
from assay.ir.rules import Rule
from assay.planner.measures import Histogram, Measure, kind_of
from assay.planner.plan import AggregatePlan, DetailPlan, HistogramPlan, SqlPlan
from assay.report.events import RuleResult, spark_json

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.connect.session import SparkSession

    from assay.executor.stages.prepared import Prepared

Samples = dict[int, list[dict[str, Any]]]
"""Sample rows (column -> value) by rule index."""


@dataclass(frozen=True)
class Asked:
    """A detail plan in flight beside the caller's next plans
    (:meth:`SparkSubmitter.detail_beside`): its samples once it ends, or ``cancel`` to
    interrupt it on the server when they are not needed."""

    plan: DetailPlan
    samples: Future[Samples]
    cancel: Callable[[], None]


@dataclass(frozen=True)
class Answer:
    """The one row of an aggregate plan (with the SQL rules cross-joined into it), read:
    ``values`` by measure, ``queries`` each SQL rule's (rows returned, first value) by
    rule index, ``rows`` the table's row count when the SQL part counted it."""

    values: Mapping[Measure, object] = field(default_factory=dict)
    queries: Mapping[int, tuple[int, Any]] = field(default_factory=dict)
    rows: object = None


class Submitter(Protocol):
    """What the stages of one table's run ask of Spark. Each call is one Spark plan (a
    round trip), except :meth:`note`; ``plans`` counts them as the table's line does,
    ``step`` names the plan a failure is reported on."""

    plans: int
    step: str

    def note(self, line: str) -> None:
        """A progress line."""

    def aggregate(self, aggregate: AggregatePlan | None, sql: SqlPlan | None) -> Answer:
        """``aggregate`` and ``sql`` in ONE plan (one row)."""

    def histogram(
        self, plan: HistogramPlan, bounds: Mapping[str, tuple[float, float]]
    ) -> Mapping[Histogram, object]:
        """The histograms of ``plan`` over the columns that have ``bounds``."""

    def detail(self, plan: DetailPlan) -> Samples:
        """The sample rows of each rule of ``plan``."""

    def validate(self, rule: Rule) -> ValidatorResult | str:
        """A validator rule's function called on the table (a text: why it gave no
        verdict); the plans it runs are its declared ones, counted by the caller."""

    def write(self, results: list[RuleResult]) -> tuple[list[dict[str, Any]], int]:
        """The table's outputs written; what was (or was not) written, the plans it took."""


@dataclass
class SparkSubmitter:
    """:class:`Submitter` over a Spark Connect session and a prepared table's frames."""

    spark: SparkSession
    prepared: Prepared
    note: Callable[[str], None] = field(default=lambda _: None, repr=False)
    plans: int = field(init=False)
    step: str = "aggregate plan"

    def __post_init__(self) -> None:
        self.plans = self.prepared.planned.setup_plans  # a temp view binding the SQL rules

    def _collect(self, frame: Any) -> list[Any]:
        with deadline(frame.sparkSession, self.prepared.timeout):
            return frame.collect()  # type: ignore[no-any-return]

    def aggregate(self, aggregate: AggregatePlan | None, sql: SqlPlan | None) -> Answer:
        p = self.prepared
        frames = []
        if aggregate is not None:
            frames.append(emit.aggregate_frame(p.df, aggregate, p.refs))
        if sql is not None:
            assert p.validation_sql is not None
            frames.append(self.spark.sql(emit.sql_text(sql, p.validation_sql)))
        if not frames:
            return Answer()
        measures = len(aggregate.slots) if aggregate is not None else 0
        queries = len(sql.queries) if sql is not None else 0
        self.step = "aggregate plan"
        self.note(f"aggregate plan ({measures} measures, {queries} sql rules)")
        # the aggregate's one row, with each SQL rule's row beside it (emit.sql_text)
        frame = frames[0] if len(frames) == 1 else frames[0].crossJoin(frames[1])
        self.plans += 1
        collected = self._collect(frame)
        row = collected[0].asDict()
        if sql is not None:
            row["_assay_sql"] = [{"i": r["_assay_i"], "r": r["_assay_r"]} for r in collected]
        found = sql_values(sql, row)
        rows = found.pop(emit.ROWS_INDEX)[1] if emit.ROWS_INDEX in found else None
        return Answer(aggregate_values(aggregate, row), found, rows)

    def histogram(
        self, plan: HistogramPlan, bounds: Mapping[str, tuple[float, float]]
    ) -> Mapping[Histogram, object]:
        self.step = "histogram plan"
        row = self._collect(histogram_frame(self.prepared.df, plan, bounds))[0].asDict()
        self.plans += 1
        return {h.measure: row[h.name] for h in plan.columns if h.name in bounds}

    def detail(self, plan: DetailPlan) -> Samples:
        self.step = "detail plan"
        p = self.prepared
        rows = self._collect(emit_detail.detail_frame(p.df, plan, p.refs))
        self.plans += 1
        return _samples(plan, rows)

    def detail_beside(self, plan: DetailPlan, df: DataFrame) -> Asked:
        """``plan`` over ``df`` collected in a thread of its own, under the plan timeout
        and a tag of its own (what :attr:`Asked.cancel` interrupts), while the caller
        goes on with its next plan; counted as submitted (taken back when cancelled
        before its thread sent it)."""
        frame = emit_detail.detail_frame(df, plan, self.prepared.refs)
        spark: Any = frame.sparkSession  # the frame's session (a DataFrame source's own)
        timeout = self.prepared.timeout
        tag = f"assay-beside-{uuid.uuid4().hex[:12]}"
        lock, state = threading.Lock(), {"sent": False, "cancelled": False}

        def collect() -> Samples:
            with lock:
                if state["cancelled"]:
                    return {}
                state["sent"] = True
            spark.addTag(tag)  # tags are per thread: this thread's plan only
            try:
                with deadline(spark, timeout):
                    return _samples(plan, frame.collect())
            finally:
                spark.removeTag(tag)

        def cancel() -> None:
            with lock:
                state["cancelled"] = True
                if not state["sent"]:
                    self.plans -= 1
                    return
            with contextlib.suppress(Exception):  # it may have just ended
                spark.interruptTag(tag)

        self.plans += 1
        return Asked(plan, beside(collect, "assay-samples"), cancel)

    def validate(self, rule: Rule) -> ValidatorResult | str:
        return call_validator(rule, self.prepared.df)

    def write(self, results: list[RuleResult]) -> tuple[list[dict[str, Any]], int]:
        p = self.prepared
        columns = [name for name, _ in p.schema]
        return write_outputs(
            self.spark, p.plan.table, p.df, columns, p.validation_sql, results, self.note
        )


def _samples(plan: DetailPlan, rows: list[Any]) -> Samples:
    """A detail plan's rows as each rule's samples (every rule of the plan has a list)."""
    found: Samples = {e.rule_index: [] for e in plan.entries}
    for row in rows:
        found[int(row["_assay_rule"])].append(spark_json(row["_assay_row"]))
    return found


def aggregate_values(
    aggregate: AggregatePlan | None, row: Mapping[str, Any]
) -> dict[Measure, object]:
    """The value of each slot of ``aggregate`` in its plan's row, by measure."""
    values: dict[Measure, object] = {}
    for slot in aggregate.slots if aggregate is not None else ():
        outputs = kind_of(slot.measure).outputs
        if outputs:
            values[slot.measure] = {k: row[f"{slot.name}_{k}"] for k in outputs}
        else:
            values[slot.measure] = row[slot.name]
    return values


def sql_values(sql: SqlPlan | None, row: Mapping[str, Any]) -> dict[int, tuple[int, Any]]:
    """Each SQL rule's (rows returned, first value), by rule index; the table's row count
    under :data:`emit.ROWS_INDEX` when the plan counts rows."""
    found: dict[int, tuple[int, Any]] = {}
    if sql is None:
        return found
    for item in row["_assay_sql"]:
        # Spark's JSON: decimals keep their digits, NaN and Infinity are bare words
        value = json.loads(item["r"], parse_float=Decimal)
        found[int(item["i"])] = (int(value["n"]), value.get("v"))
    for q in sql.queries:
        if q.check.mode == "failed_rows":
            found[q.rule_index] = (1, found[q.rule_index][0])
    if sql.count_rows:
        found[emit.ROWS_INDEX] = (1, found[emit.ROWS_INDEX][0])
    return found

"""Measure kinds live in one table (planner.measures.MEASURE_KINDS) with one emitter each
(emit.spark); an unknown kind is an error in every layer, never a silent default; and
judging reads exactly the measures the planner computes for a rule."""

from __future__ import annotations

import datetime as dt
import typing
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path

import pytest

from assay.config import load_suite
from assay.ir import (
    Col,
    ColumnMetric,
    Comparison,
    IsNull,
    Length,
    Op,
    Origin,
    Rule,
    SchemaCheck,
    SqlCheck,
)
from assay.ir.references import Lookup, Reference
from assay.ir.sources import CatalogSource
from assay.judge.evaluate import judge
from assay.planner import plan_table
from assay.planner.drift import Distribution, Sketch, SketchCounts, ValueCounts
from assay.planner.frequencies import Frequencies
from assay.planner.measures import (
    MEASURE_KINDS,
    AgeMicros,
    AggEquals,
    Aggregate,
    ColumnAgg,
    CountIf,
    ExprAggregate,
    GroupStats,
    Measure,
    MeasureKind,
    PerGroup,
    RowCount,
    ServerNow,
    SqlAggregate,
    kind_of,
    measures_of,
)
from assay.planner.references import Matched, ReferenceRows, Unmatched
from assay.planner.render import render_measure
from tests.config.test_catalogue import CASES as NATIVE_CASES

SAMPLES: dict[type, Measure] = {
    RowCount: RowCount(),
    SqlAggregate: SqlAggregate("max(a) <= 3"),
    CountIf: CountIf(IsNull(Col("a"))),
    ColumnAgg: ColumnAgg("stddev", "a"),
    ServerNow: ServerNow(),
    AggEquals: AggEquals("max", "a", 3),
    AgeMicros: AgeMicros("d"),
    GroupStats: GroupStats(("a", "b"), "all"),
    Aggregate: Aggregate("percentile", "a", (Decimal("0.95"),)),
    ExprAggregate: ExprAggregate("percentile_approx", Length(Col("a")), ((0.5, 0.9), 100)),
    Unmatched: Unmatched(Lookup(("a",), Reference(CatalogSource("r"), ("b",))), Col("d")),
    Matched: Matched(Lookup(("a",), Reference(CatalogSource("r"), ("b",))), Col("d"), True),
    ReferenceRows: ReferenceRows(CatalogSource("r")),
    PerGroup: PerGroup(("b",), ColumnMetric("max", "a"), Comparison(Op.LT, Decimal(3), "< 3")),
    Frequencies: Frequencies(("a", "b"), Col("d")),
    Distribution: Distribution("a", CatalogSource("r"), "b", 10, True, Col("d")),
    Sketch: Sketch("a", 200, Col("d")),
    SketchCounts: SketchCounts(Sketch("a", 200, Col("d"))),
    ValueCounts: ValueCounts("a", 1000, Col("d")),
}


def test_every_measure_of_the_union_has_a_kind():
    assert set(typing.get_args(Measure)) == set(MEASURE_KINDS) == set(SAMPLES)


@pytest.mark.parametrize("kind", list(SAMPLES), ids=lambda k: k.__name__)
def test_a_kind_names_renders_and_reads_its_columns(kind):
    measure = SAMPLES[kind]
    known = kind_of(measure)
    assert known.suffix(measure).isidentifier()
    assert render_measure(measure)
    assert set(known.columns(measure)) <= {"a", "b", "d"}


def test_an_unknown_measure_is_an_error_not_a_default():
    class Mystery:
        pass

    with pytest.raises(TypeError, match="not a measure kind the planner knows"):
        kind_of(Mystery())
    with pytest.raises(TypeError, match="not a measure kind"):
        render_measure(Mystery())  # type: ignore[arg-type]


def test_a_kind_without_an_emitter_stops_the_import_check(monkeypatch):
    from assay.emit import spark as emit

    class Fresh:
        pass

    kinds = {**MEASURE_KINDS, Fresh: MeasureKind(lambda m: "x", lambda m: "x", lambda m: ())}
    monkeypatch.setattr(emit, "MEASURE_KINDS", kinds)
    with pytest.raises(TypeError, match="without a Spark emitter: Fresh"):
        emit._check_emitters()
    with pytest.raises(TypeError, match="no Spark emitter"):
        emit.measure_columns("m", Fresh())  # type: ignore[arg-type]


def test_an_unknown_check_has_no_measures_rather_than_none():
    class OddCheck:
        pass

    rule = Rule("odd", OddCheck(), Origin("c.yaml"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="no measures for check OddCheck"):
        measures_of(rule)
    for check in (SchemaCheck(("a",)), SqlCheck("SELECT true")):
        assert measures_of(Rule("x", check, Origin("c.yaml"))) == ()


class OnlyPlanned(Mapping):
    """The measured values of exactly the measures the planner computes for a rule:
    reading any other key is the drift between planning and judging."""

    def __init__(self, measures: tuple[Measure, ...]) -> None:
        self._values = {m: _value(m) for m in measures}

    def __getitem__(self, key):
        if key not in self._values:
            raise AssertionError(f"judging read {key!r}, which the planner does not compute")
        return self._values[key]

    def get(self, key, default=None):
        return self[key] if key in self._values else default

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


def _value(measure: Measure) -> object:
    if isinstance(measure, GroupStats):
        return {"groups": 4, "rows": 8, "dup_rows": 4, "unique_rows": 2}
    if isinstance(measure, ServerNow):
        return dt.datetime(2024, 1, 1)
    if isinstance(measure, AggEquals):
        return True
    if isinstance(measure, AgeMicros):
        return 3_600_000_000
    if isinstance(measure, ColumnAgg):
        return 5
    if isinstance(measure, Distribution):  # two bins of each side, over [0, 2]
        from pyspark.sql import Row  # the bins come back as rows of the plan

        bins = [Row(i=0, t=3, r=2), Row(i=1, t=5, r=6)]
        return {"bins": bins, "low": 0.0, "high": 2.0, "ks": 0.1, "wasserstein": 0.2}
    if isinstance(measure, ValueCounts):  # no value counted
        return {"kept": [], "others_values": 0, "others_rows": 0, "nulls": 1}
    if isinstance(measure, Sketch):  # no value sketched
        return {"sketch": None, "nulls": 1, "nan": 0, "infinite": 0}
    if isinstance(measure, Frequencies):
        return {"groups": 2, "rows": 8, "paired": 6, "n_log_n": 4.0, "n_log_marginals": 9.0}
    return 10 if isinstance(measure, RowCount) else 2


@pytest.mark.parametrize("case", [c[0] for c in NATIVE_CASES], ids=lambda c: c[:60])
def test_judging_reads_only_what_the_planner_computes(tmp_path: Path, case: str):
    path = tmp_path / "c.yaml"
    path.write_text(f"tables:\n  - source: {{table: t}}\n    rules:\n      - {case}\n")
    (table,) = load_suite([path]).tables
    (rule,) = table.rules
    if isinstance(rule.check, (SchemaCheck, SqlCheck)):
        return
    planned = tuple(s.measure for s in plan_table(table).aggregate.slots)  # type: ignore[union-attr]
    assert set(measures_of(rule)) <= set(planned)
    outcome = judge(rule, OnlyPlanned(measures_of(rule)))
    assert outcome.severity in ("pass", "warn", "fail", "error")


def test_every_registry_of_check_kinds_is_complete_and_a_missing_entry_fails_at_import():
    """The check and metric kinds of the IR are registered in each layer (the IR's shapes,
    the planner's measures, the judges): a kind without its entry is an import error."""
    import typing

    import assay.ir.metrics as metrics
    import assay.ir.rules as ir
    import assay.judge.evaluate as evaluate
    import assay.planner.measures as planner
    from assay.ir.shapes import complete

    checks, kinds = set(typing.get_args(ir.Check)), set(typing.get_args(metrics.Metric))
    for registry, union in (
        (ir.CHECK_SHAPES, checks),
        (metrics.METRIC_SHAPES, kinds),
        (planner.CHECK_MEASURES, checks),
        (planner.METRIC_MEASURES, kinds),
        (evaluate.JUDGES, checks),
        (evaluate.METRIC_VALUES, kinds),
    ):
        assert set(registry) == union
    without = {k: v for k, v in evaluate.METRIC_VALUES.items() if k is not metrics.FreshnessMetric}
    with pytest.raises(TypeError, match=r"missing \['FreshnessMetric'\]"):
        complete(without, metrics.Metric, "METRIC_VALUES")

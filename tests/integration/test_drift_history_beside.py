"""Drift against history, a sketch's exact counts in a scan branch of the table's
aggregate when its sampling rate is known (planner/drift_plan.counted_beside; the
sketches' branch then reads only its sample): every count equal to the plain form's
(the counts cross-joined in the sketches' branch) and to the whole-scan form's, and the
sketches built from the SAME sample (a ``k`` large enough that no sketch compacts, so
each holds exactly the values it was fed), on data built to break it: NULL, NaN,
+-Inf, -0.0, DECIMAL(38,18), a column of one value, a column of no value, a filter, an
empty table; and where the counts may ride (an unfiltered scan branch of generated
code) and where they stay (no such branch, a sketch without a rate)."""

from __future__ import annotations

import dataclasses
import math
from decimal import Decimal

import numpy as np
import pytest

from assay.ir.expr import Col, Compare, Lit, Op
from assay.judge.drift_kll import read
from assay.planner.drift import Sketch, SketchCounts
from assay.planner.drift_plan import counted_beside
from assay.planner.measures import Aggregate, CountIf, RowCount
from assay.planner.plan import AggregatePlan, ScanAggregate, Slot

ROWS = 4000
SAMPLE = 600
K = 4000  # no sketch of at most K values compacts: it keeps every value it was fed
SCHEMA = "d double, dec decimal(38,18), one int, nothing double, tie bigint, g int, z double"
KEPT = Compare(Op.EQ, Col("g"), Lit(1))
COUNTS = ("nulls", "nan", "infinite", "values")


SPECIAL = {0: None, 1: math.nan, 2: math.inf, 3: -math.inf, 4: -0.0, 5: 0.0}


def _rows() -> list[tuple]:
    rng = np.random.default_rng(11)
    normal = rng.normal(10, 2, ROWS)
    ties = rng.integers(0, 5, ROWS)
    out = []
    for i in range(ROWS):
        d = SPECIAL.get(i % 37, float(normal[i]))
        dec = None if i % 89 == 0 else Decimal(f"{int(ties[i]) * 10**17 + i}.{i * 7919:018d}")
        z = -0.0 if i % 2 else 0.0
        out.append((d, dec, 7, None, int(ties[i]), i % 3, z))
    return out


COLUMNS = {"s0": ("d", None), "s1": ("dec", None), "s2": ("one", None), "s3": ("nothing", None),
           "s4": ("tie", None), "s5": ("d", KEPT), "s6": ("z", None)}  # fmt: skip


def _sketches(expected: int) -> list[Slot]:
    out = []
    for i, (name, (c, where)) in enumerate(COLUMNS.items()):
        measure = Sketch(c, k=K, where=where, sample=SAMPLE)
        out.append(Slot(name, measure, (i,), dataclasses.replace(measure, expected=expected)))
    return out


def _hosts() -> list[ScanAggregate]:
    """Two scan branches of ordinary measures: one reading ``d`` and ``g``, one ``tie``."""
    positive = Compare(Op.GT, Col("d"), Lit(0))
    return [
        ScanAggregate((Slot("r", RowCount(), (10,)), Slot("p", CountIf(positive), (11,)))),
        ScanAggregate((Slot("t", CountIf(Compare(Op.GT, Col("tie"), Lit(2))), (12,)),)),
    ]


def _plan(expected: int) -> AggregatePlan:
    return AggregatePlan((*_hosts(), ScanAggregate(tuple(_sketches(expected)))))


# --- where the counts ride (pure) ---------------------------------------------------------


def test_the_counts_ride_in_the_branch_reading_their_column():
    branches = counted_beside(_plan(ROWS).branches)
    first, second, sketches = branches
    assert all(isinstance(s.form, Sketch) and s.form.counted for s in sketches.slots)
    carried = {s.name: i for i, b in enumerate((first, second)) for s in b.slots
               if isinstance(s.form, SketchCounts)}  # fmt: skip
    assert set(carried) == set(COLUMNS)
    assert carried["s0"] == carried["s5"] == 0  # d (and g): read by the first
    assert carried["s4"] == 1  # tie: read by the second
    for b in (first, second):  # the hosts' own slots first, as planned
        assert [s.name for s in b.slots if not isinstance(s.form, SketchCounts)] == [
            s.name for s in _hosts()[(first, second).index(b)].slots
        ]


def test_the_counts_stay_without_a_rate_or_a_host():
    plan = _plan(0)  # nothing stored: the counts set the rate first
    assert counted_beside(plan.branches) == plan.branches
    mixed = [*_sketches(ROWS)[:-1], _sketches(0)[-1]]  # one without a rate: all stay
    plan = AggregatePlan((*_hosts(), ScanAggregate(tuple(mixed))))
    assert counted_beside(plan.branches) == plan.branches
    alone = AggregatePlan((ScanAggregate(tuple(_sketches(ROWS))),))  # no other branch
    assert counted_beside(alone.branches) == alone.branches
    approx = Aggregate("percentile_approx", "d", args=(0.5,))
    filtered = ScanAggregate((Slot("f", CountIf(KEPT), (20,)),), where=KEPT)
    objects = ScanAggregate((Slot("o", approx, (21,)),))
    plan = AggregatePlan((filtered, objects, ScanAggregate(tuple(_sketches(ROWS)))))
    assert counted_beside(plan.branches) == plan.branches  # neither can carry them


# --- against Spark ------------------------------------------------------------------------


def _values(frame, plan: AggregatePlan, beside: bool) -> dict:
    """The plan's one row, the counts beside (as a run holds and emits it) or in the
    sketches' branch (the plain form)."""
    from assay.emit import spark as emit

    if beside:
        plan = AggregatePlan(counted_beside(plan.branches))
    return emit.aggregate_frame(frame, plan).collect()[0].asDict()


def _whole(frame) -> dict:
    from assay.emit.spark import measure_columns

    slots = _sketches(ROWS)
    return (
        frame.agg(*(c for s in slots for c in measure_columns(s.name, s.measure)))
        .collect()[0]
        .asDict()
    )


@pytest.mark.spark
@pytest.mark.parametrize("empty", [False, True], ids=["rows", "empty"])
def test_counts_equal_and_the_same_sample_sketched(spark, empty):
    frame = spark.createDataFrame(_rows(), SCHEMA)
    if empty:
        frame = frame.where("g > 5")
    plan = _plan(ROWS)
    beside, plain, whole = _values(frame, plan, True), _values(frame, plan, False), _whole(frame)
    assert set(beside) == set(plain)
    for name in COLUMNS:
        for output in COUNTS:
            key = f"{name}_{output}"
            assert beside[key] == plain[key] == whole[key], (key, beside[key], whole[key])
        ours, theirs = read(bytes(beside[f"{name}_sketch"])), read(bytes(plain[f"{name}_sketch"]))
        assert ours.n == theirs.n <= K and set(ours.weights) <= {1}  # every value kept
        assert ours.values == theirs.values, name  # the same sampled values
        if not empty and name != "s3":
            assert 0 < ours.n < beside[f"{name}_values"]  # a sample, not every value
    for key in ("r", "p", "t"):
        assert beside[key] == plain[key]
    if empty:
        assert all(beside[f"{n}_values"] == 0 for n in COLUMNS)
    else:
        assert beside["s6_values"] == ROWS and beside["s3_nulls"] == ROWS
        assert beside["s0_nan"] > 0 and beside["s0_infinite"] > 0
        assert beside["s5_values"] < beside["s0_values"]  # the filter kept


@pytest.mark.spark
def test_the_sketches_branch_reads_no_count(spark):
    """The plain form's sketches' branch aggregates every row besides its sample (two
    aggregates cross-joined); counted beside, its only aggregate is the sample's."""
    from assay.emit.drift import sketch_frame

    frame = spark.createDataFrame(_rows()[:50], SCHEMA)
    (*_, sketches) = counted_beside(_plan(ROWS).branches)
    counted = sketch_frame(frame, sketches.slots)
    assert set(counted.columns) == {f"{n}_sketch" for n in COLUMNS}
    plain = sketch_frame(frame, _sketches(ROWS))
    assert set(plain.columns) == {f"{n}_{o}" for n in COLUMNS for o in ("sketch", *COUNTS)}


# --- the plan a run holds, and what explain says -------------------------------------------


def test_a_run_holds_the_counts_where_they_run_and_explain_says_so(tmp_path):
    """With every sketch's count stored, the plan the run holds (and submits) has the
    counts as ``count_if`` slots of the scan branch reading the column and the sketches'
    branch reading only its sample, both rendered as such; ``explain`` (no store read)
    shows the first run's form and where the counts go once a count is stored."""
    from assay.executor.stages.drift_history import with_rates
    from assay.monitoring.series import Point, distribution_identity
    from assay.planner.render import render_plan
    from tests.integration.test_drift_history_rate import _planned

    planned = _planned(tmp_path)
    rules = planned.plan.table.rules
    stored = lambda n: (Point("2026-01-03T00:00:00", n, "c", state=b"s"),)  # noqa: E731
    history = {("t", distribution_identity(rules[i])): stored(n)
               for i, n in ((0, 1200.0), (2, 500.0), (3, 700.0))}  # fmt: skip
    held = with_rates(planned, history).plan
    forms = [type(s.form).__name__ for b in held.aggregate.branches for s in b.slots]
    assert forms.count("SketchCounts") == 3 and forms.count("Sketch") == 3
    sketches = [s.form for s in held.aggregate.slots if isinstance(s.form, Sketch)]
    assert all(m.counted and m.expected for m in sketches)
    text = render_plan(held)
    assert text.count("(its sketch's counts)") == 3
    assert text.count("; counted in a scan branch)") == 3
    first = render_plan(planned.plan)
    assert "(its sketch's counts)" not in first
    assert first.count("with a count stored by an earlier run, counted in a scan branch") == 3

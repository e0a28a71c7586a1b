"""Drift against history, the sketches' branch at the rate a stored run's count gives
(emit/drift.sketch_frame with ``Sketch.expected``: no counting subquery, the values
counted in the same read as the sketches): the counts exact and equal to the subquery
form's and the whole-scan form's (every row sketched) on NULL, NaN, +-Inf,
DECIMAL(38,18), a column of one value, a filter, repeated values; each sketch's CDF
within the bound its ACTUAL sample gives, for a table the same size as the history's, one
that grew (more values sketched) and one that shrank (fewer, the bound larger); a column
with no usable count (none stored, a count of 0) keeps the subquery form; the run's
history sets the rate (executor/stages/drift_history.with_rates)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from assay.ir.expr import Col, Compare, Lit, Op
from assay.judge.drift_kll import distribution, rank_error, read, sample_error
from tests.integration.test_drift_history_sampled import SCHEMA, _exact, _rows

pytestmark = pytest.mark.spark

SAMPLE = 800
KEPT = Compare(Op.EQ, Col("g"), Lit(1))
COLUMNS = {"s0": ("d", None), "s1": ("dec", None), "s2": ("one", None), "s3": ("tie", None),
           "s4": ("d", KEPT)}  # fmt: skip
INDEX = {"d": 0, "dec": 1, "one": 2, "nothing": 3, "tie": 4}


@pytest.fixture(scope="module")
def frame(spark):
    return spark.createDataFrame(_rows(), SCHEMA)


def _values() -> dict[str, list[float]]:
    rows = _rows()
    return {
        name: _exact(rows, INDEX[c], None if where is None else (lambda r: r[5] == 1))
        for name, (c, where) in COLUMNS.items()
    }


def _slots(expected: dict[str, int], columns=COLUMNS):
    from assay.planner.drift import Sketch
    from assay.planner.plan import Slot

    out = []
    for i, (name, (c, where)) in enumerate(columns.items()):
        measure = Sketch(c, where=where, sample=SAMPLE)
        rated = dataclasses.replace(measure, expected=expected.get(name, 0))
        out.append(Slot(name, measure, (i,), rated))
    return out


def _subquery(df) -> bool:
    return "subquery" in df._explain_string("extended").lower()


def _whole(frame, slots) -> dict:
    from assay.emit.spark import measure_columns

    row = frame.agg(*(c for s in slots for c in measure_columns(s.name, s.measure))).collect()
    return row[0].asDict()


COUNTS = ("nulls", "nan", "infinite", "values")


@pytest.mark.parametrize("change", [1, 4, 0.25], ids=["same", "grew 4x", "shrank 4x"])
def test_history_rate_counts_exact_and_the_cdf_within_the_actual_samples_bound(frame, change):
    """The stored counts are the table's divided by ``change``: a table that grew 4x
    since samples about 4x more values, one that shrank about 4x fewer (its bound, from
    the sketch's own n, larger)."""
    from assay.emit.drift import sketch_frame

    values = _values()
    slots = _slots({n: max(1, round(len(v) / change)) for n, v in values.items()})
    rated = sketch_frame(frame, slots)
    assert not _subquery(rated)  # one read: the counts beside the sketches
    new = rated.collect()[0].asDict()
    counted = sketch_frame(frame, _slots({})).collect()[0].asDict()  # the subquery form
    assert _subquery(sketch_frame(frame, _slots({})))
    whole = _whole(frame, slots)
    for s in slots:
        for output in COUNTS:
            key = f"{s.name}_{output}"
            assert new[key] == counted[key] == whole[key], (key, new[key], whole[key])
    for name, exact in values.items():
        assert new[f"{name}_values"] == len(exact)
        sketch = read(bytes(new[f"{name}_sketch"]), new[f"{name}_values"])
        planned = min(len(exact), SAMPLE * change)  # each column at its own rate
        assert planned / 2 < sketch.n < planned * 1.5 or sketch.n == len(exact), (name, sketch.n)
        if sketch.n < len(exact):  # the bound from the values actually sketched
            own = 0.0 if set(sketch.weights) == {1} else rank_error(200)  # never compacted
            assert sketch.rank_error == pytest.approx(own + sample_error(sketch.n))
        d = distribution([sketch])
        assert d.n == len(exact)
        points = exact[:: max(1, len(exact) // 200)]
        ecdf = np.searchsorted(exact, points, side="right") / len(exact)
        worst = max(abs(d.at(x) - e) for x, e in zip(points, ecdf, strict=True))
        assert worst <= d.error, (name, worst, d.error)
        print(f"{change}x {name}: {sketch.n} of {len(exact)} sketched, CDF off by"
              f" {worst:.4f}, bound {d.error:.4f}")  # fmt: skip


def test_no_usable_count_keeps_the_subquery_form(frame):
    """A column no run counted (nothing stored, or a count of 0: ``expected`` 0) makes
    the branch count first; its answers are the subquery form's."""
    from assay.emit.drift import sketch_frame

    values = _values()
    columns = {**COLUMNS, "s5": ("nothing", None)}
    known = {n: len(v) for n, v in values.items()}
    mixed = sketch_frame(frame, _slots(known, columns))
    assert _subquery(mixed)
    row = mixed.collect()[0].asDict()
    assert row["s5_values"] == 0 and read(bytes(row["s5_sketch"])).n == 0
    for name, exact in values.items():
        assert row[f"{name}_values"] == len(exact)


def test_a_column_with_no_value_now(frame):
    """A column that had values in the stored run and has none now: counted 0, its
    sketch empty, in the one read."""
    from assay.emit.drift import sketch_frame

    columns = {"s0": ("nothing", None), "s1": ("d", None)}
    rated = sketch_frame(frame, _slots({"s0": 500, "s1": 5000}, columns))
    assert not _subquery(rated)
    row = rated.collect()[0].asDict()
    assert row["s0_values"] == 0 and read(bytes(row["s0_sketch"])).n == 0
    assert row["s0_nulls"] == len(_rows())
    assert row["s1_values"] == len(_values()["s0"])


RULES = """      - {type: drift, column: x, method: ks, references: {history: last}}
      - {type: drift, column: x, method: psi, references: {history: {runs: 3}}}
      - {type: drift, column: y, method: ks, references: {history: last}}
      - {type: drift, column: x, method: ks, filter: "y > 0", references: {history: last}}
      - {type: not_null, column: x}
"""


def _planned(tmp_path: Path):
    from assay.config import load_suite
    from assay.executor.stages.prepared import Planned
    from assay.planner import plan_table

    path = tmp_path / "c.yaml"
    path.write_text("tables:\n  - name: t\n    source: {table: db.t}\n    rules:\n" + RULES)
    table = load_suite([path]).tables[0]
    types = {"x": "double", "y": "double"}
    return Planned(plan_table(table, types=types), tuple(types.items()), ())


def _expected(planned) -> dict[tuple[str, bool], int]:
    from assay.planner.drift import Sketch

    return {
        (s.measure.column, s.measure.where is not None): s.form.expected
        for s in planned.plan.aggregate.slots
        if isinstance(s.measure, Sketch)
    }


def test_the_newest_stored_count_sets_the_rate(tmp_path):
    """Each sketch's ``expected`` is its newest stored run's count (whichever baseline
    its rules compare with); a column with none stored, an unreadable history, a count
    of 0 leave it 0 (the subquery form)."""
    from assay.executor.stages.drift_history import with_rates
    from assay.monitoring.series import Point, distribution_identity

    planned = _planned(tmp_path)
    rules = planned.plan.table.rules
    x = [Point("2026-01-01T00:00:00", 900.0, "a", state=b"s"),
         Point("2026-01-03T00:00:00", 1200.0, "c", state=b"s"),
         Point("2026-01-02T00:00:00", 1000.0, "b", state=b"s")]  # fmt: skip
    y = [Point("2026-01-03T00:00:00", 0.0, "c", state=b"s")]
    filtered = [Point("2026-01-03T00:00:00", 700.0, "c", state=b"s")]
    history = {("t", distribution_identity(rules[0])): tuple(x),
               ("t", distribution_identity(rules[2])): tuple(y),
               ("t", distribution_identity(rules[3])): tuple(filtered)}  # fmt: skip
    rated = with_rates(planned, history)
    assert _expected(rated) == {("x", False): 1200, ("y", False): 0, ("x", True): 700}
    assert _expected(with_rates(planned, "unreadable")) == _expected(planned)
    assert set(_expected(planned).values()) == {0}
    assert rated.plan.aggregate.slots == tuple(  # answers keyed as planned
        dataclasses.replace(s, computed=t.computed)
        for s, t in zip(planned.plan.aggregate.slots, rated.plan.aggregate.slots, strict=True)
    )

"""Drift against history, the sketches' branch (emit/drift.sketch_frame): the counts
exact and equal to the whole-scan form's (the one-aggregate emitter of emit/spark.py,
every row sketched), on data built to break it (NULL, NaN, +-Inf, DECIMAL(38,18), a
column of one value, a column of no value, a filter, repeated values); the sketch read
from a sample when a column has more values than the measure's ``sample``, its CDF
within the stated bound (the sketch's rank error plus the sample's DKW bound) of the
exact values', and every value sketched when there are fewer."""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest

from assay.ir.expr import Col, Compare, Lit, Op
from assay.judge.drift_kll import distribution, read, sample_error

pytestmark = pytest.mark.spark

ROWS = 6000
SAMPLE = 800


def _rows() -> list[tuple]:
    rng = np.random.default_rng(5)
    normal = rng.normal(10, 2, ROWS)
    ties = rng.integers(0, 5, ROWS)
    out = []
    for i in range(ROWS):
        d = float(normal[i])
        d = {0: None, 1: math.nan, 2: math.inf, 3: -math.inf}.get(i % 97, d)
        dec = None if i % 89 == 0 else Decimal(f"{int(ties[i]) * 10**17 + i}.{i * 7919:018d}")
        out.append((d, dec, 7, None, int(ties[i]), i % 3))
    return out


SCHEMA = "d double, dec decimal(38,18), one int, nothing double, tie bigint, g int"


@pytest.fixture(scope="module")
def frame(spark):
    return spark.createDataFrame(_rows(), SCHEMA)


def _slots(sample: int):
    from assay.planner.drift import Sketch
    from assay.planner.plan import Slot

    kept = Compare(Op.EQ, Col("g"), Lit(1))
    measures = [Sketch("d", sample=sample), Sketch("dec", sample=sample),
                Sketch("one", sample=sample), Sketch("nothing", sample=sample),
                Sketch("tie", sample=sample), Sketch("d", where=kept, sample=sample)]  # fmt: skip
    return [Slot(f"s{i}", m, (i,)) for i, m in enumerate(measures)]


def _exact(rows: list[tuple], index: int, where=None) -> list[float]:
    values = [float(r[index]) for r in rows if r[index] is not None and (where is None or where(r))]
    return sorted(v for v in values if math.isfinite(v))


def test_counts_equal_the_whole_scan_form_and_the_sketch_within_its_bound(frame):
    from assay.emit.drift import sketch_frame
    from assay.emit.spark import measure_columns

    slots = _slots(SAMPLE)
    new = sketch_frame(frame, slots).collect()[0].asDict()
    old = frame.agg(*(c for s in slots for c in measure_columns(s.name, s.measure))).collect()
    old = old[0].asDict()
    for s in slots:
        for output in ("nulls", "nan", "infinite", "values"):
            assert new[f"{s.name}_{output}"] == old[f"{s.name}_{output}"], (s.name, output)
    rows = _rows()
    exact = {"s0": _exact(rows, 0), "s1": _exact(rows, 1), "s2": _exact(rows, 2),
             "s4": _exact(rows, 4), "s5": _exact(rows, 0, lambda r: r[5] == 1)}  # fmt: skip
    assert new["s3_values"] == 0 and read(bytes(new["s3_sketch"])).n == 0  # no value
    for name, values in exact.items():
        assert new[f"{name}_values"] == len(values)
        sketch = read(bytes(new[f"{name}_sketch"]), new[f"{name}_values"])
        full = read(bytes(old[f"{name}_sketch"]))
        assert full.n == len(values)  # the whole-scan form sketched every value
        if len(set(values)) == 1:
            assert sketch.values[0] == values[0]
        assert sketch.n < len(values), name  # a sample, each column at least about SAMPLE
        assert sketch.n > SAMPLE / 2, (name, sketch.n)
        assert sketch.rank_error >= sample_error(sketch.n) > 0
        d = distribution([sketch])
        assert d.n == len(values)  # the values it stands for, counted exactly
        points = values[:: max(1, len(values) // 200)]
        ecdf = np.searchsorted(values, points, side="right") / len(values)
        worst = max(abs(d.at(x) - e) for x, e in zip(points, ecdf, strict=True))
        assert worst <= d.error, (name, worst, d.error)
        print(f"{name}: {sketch.n} of {len(values)} sketched, CDF off by {worst:.4f},"
              f" bound {d.error:.4f}")  # fmt: skip


def test_every_value_sketched_below_the_sample(frame):
    from assay.emit.drift import sketch_frame

    slots = _slots(ROWS)
    new = sketch_frame(frame, slots).collect()[0].asDict()
    for s in slots[:3]:
        sketch = read(bytes(new[f"{s.name}_sketch"]), new[f"{s.name}_values"])
        assert sketch.n == new[f"{s.name}_values"] and sketch.size == sketch.n
        assert sketch.rank_error in (0.0, pytest.approx(2.296 / 200**0.9723))


def test_a_sampled_state_stands_for_its_column():
    """A stored state's value (its column's values, exact) sizes the reference: the
    union of runs weighs each by it, the bound carries the sample's error."""
    import struct

    # a sketch of five values at weight 1 (DataSketches' compact form, 5 preamble ints)
    values = [1.0, 2.0, 2.0, 3.0, 9.0]
    head = struct.pack("<BBBBHBB", 5, 1, 15, 0, 200, 8, 0) + struct.pack("<QHBB", 5, 200, 1, 0)
    body = struct.pack("<I", 0) + struct.pack("<dd", 1.0, 9.0) + struct.pack("<5d", *values)
    data = head + body
    alone, sampled = read(data), read(data, 5000)
    assert (alone.size, alone.exact, alone.rank_error) == (5, True, 0.0)
    assert (sampled.size, sampled.exact) == (5000, False)
    assert sampled.rank_error == pytest.approx(sample_error(5))
    both = distribution([alone, sampled])
    assert both.n == 5005 and both.at(2.0) == pytest.approx(3 / 5)

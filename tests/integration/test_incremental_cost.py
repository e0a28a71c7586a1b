"""The shapes of an incremental run's aggregate over the partitions it scans
(docs/incremental.md#what-it-costs): one aggregate, the same split into branches by the
columns they read as a full scan's (a first run, ``--full``), the groups' statistics by a
window (a few partitions), the sketches apart. Every shape gives each partition the same
partial values, on data built to break them: nulls, NaN, -0.0, decimals, a null
partition, a filtered key whose rows some partitions lack, keys repeated across
partitions; and a first run split into branches equals a full scan."""

from __future__ import annotations

import dataclasses
import math

import pytest

import assay
from assay.emit import incremental as emit
from assay.executor.stages import incremental as stage
from assay.ir.suite import PathSource
from assay.monitoring.states import partition_key
from assay.planner.cost import DEFAULT_OPTIONS
from assay.planner.incremental import aggregates, column_types, empty_partial, table_measures
from assay.planner.measures import Measure
from tests.integration.test_incremental import _config, _day, _results, _same, _table

pytestmark = pytest.mark.spark

RULES = """
tables:
  - name: t
    source: {path: data, format: parquet}
    incremental: {by: p}
    rules:
      - {type: not_null, column: v}
      - {type: range, column: v, min: -5, max: 5}
      - {type: regex, column: s, pattern: "^[a-c]+$"}
      - {type: sum, column: d, must_be: ">= 0"}
      - {type: avg, column: d, must_be: ">= 0"}
      - {type: avg, column: v, must_be: ">= 0"}
      - {type: stddev, column: v, must_be: ">= 0"}
      - {type: min, column: v, must_be: ">= 0"}
      - {type: max, column: v, must_be: ">= 0"}
      - {type: max, column: d, must_be: ">= 0"}
      - {type: unique, columns: [k, p]}
      - {type: duplicate_count, columns: [s, p], filter: "k > 6", must_be: ">= 0"}
      - {type: distinct_count, column: s, must_be: "> 0"}
      - {type: distinct_count, column: v, must_be: "> 0"}
"""
"""Every kind of partial value: counts, sums and means of a DECIMAL and of a double with
NaN, -0.0 and nulls, the groups of two keys holding the partition (one
filtered: partitions without a kept row), two sketched distinct counts."""

ROWS = """
SELECT k,
       CASE WHEN k % 5 = 0 THEN NULL WHEN k % 7 = 0 THEN CAST('NaN' AS DOUBLE)
            WHEN k % 3 = 0 THEN -0.0 ELSE k * 0.5 - 4 END AS v,
       CASE WHEN k % 4 = 0 THEN NULL ELSE substr('abcdx', 1 + k % 5, 2) END AS s,
       CAST(k / 7 AS DECIMAL(38, 18)) - 1.000000000000000001 AS d,
       CASE WHEN k % 9 = 8 THEN NULL ELSE CAST(k % 4 AS STRING) END AS p
FROM (SELECT id % 13 AS k FROM range(60))
"""
"""Keys repeated within and across partitions, the null partition, a partition whose
rows are all below the filter ``k > 6`` of the duplicate count."""


def _partials(spark, tmp_path, shape: str) -> dict:
    config = tmp_path / "rules.yaml"
    config.write_text(RULES.replace("data", str(tmp_path / "data")))
    table = assay.load(str(config)).tables[0]
    df = spark.sql(ROWS)
    types = column_types([(f.name, f.dataType.simpleString()) for f in df.schema.fields])
    measures = table_measures(table.rules, "p")
    options = dataclasses.replace(DEFAULT_OPTIONS, max_outputs=2)  # many small branches
    split, windowed = shape == "split", shape == "windowed"
    found = aggregates(measures, "p", options, table.source, types, split, windowed)
    if shape == "split":
        assert len(found) > 6  # the plain measures in branches, the groups and sketches apart
    frame = emit.partition_states(df, "p", measures, types, found, windowed)
    values: dict = {}
    for row in frame.collect():
        got = row.asDict()
        part = values.setdefault(partition_key(got[emit.PART]), {})
        for i in found[got[emit.AGGREGATE]]:
            part[measures[i]] = [got[n] for n in emit.partial_columns(i, measures[i], "p")]
    for part in values.values():
        for measure in measures:
            part.setdefault(measure, empty_partial(measure, "p"))
    return values


def _same_partials(a: dict[Measure, list], b: dict[Measure, list]) -> None:
    assert a.keys() == b.keys()
    for measure in a:
        for x, y in zip(a[measure], b[measure], strict=True):
            if isinstance(x, float) and isinstance(y, float):
                assert (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=1e-12)
            elif isinstance(x, (bytes, bytearray)):
                assert bytes(x) == bytes(y), measure  # the same sketch of the same values
            else:
                assert x == y, (measure, x, y)


def test_every_shape_of_the_aggregate_gives_each_partition_the_same_partials(spark, tmp_path):
    one = _partials(spark, tmp_path, "one")
    assert len(one) == 5  # four partitions and the null one
    for shape in ("split", "windowed"):
        other = _partials(spark, tmp_path, shape)
        assert other.keys() == one.keys(), shape
        for key in one:
            _same_partials(one[key], other[key])


def test_a_first_run_split_into_branches_equals_a_full_scan(spark, tmp_path, monkeypatch):
    """The split is chosen by the bytes scanned (16 MiB of files by default): forced here
    on small data, in branches of four measures, the groups and the sketch apart."""
    data = tmp_path / "data"
    for day in (1, 2, 3):
        _day(spark, data, day, 50 + day)
    inc, full = _config(tmp_path, data, True), _config(tmp_path, data, False)
    shapes: list[int] = []
    aggregated = stage.aggregates

    def split_in_twos(measures, by, options, source, types, split, windowed):  # type: ignore[no-untyped-def]
        assert isinstance(source, PathSource) and not windowed
        small = dataclasses.replace(options, max_outputs=4)
        found = aggregated(measures, by, small, source, types, True, windowed)
        shapes.append(len(found))
        return found

    monkeypatch.setattr(stage, "aggregates", split_in_twos)
    got = assay.run(str(inc), spark=spark, run_time="2024-02-01T06:00:00Z")
    want = assay.run(str(full), spark=spark, run_time="2024-02-01T06:00:00Z")
    assert shapes and shapes[0] > 6
    assert _table(got)["error"] is None and len(_table(got)["incremental"]["scanned"]) == 3
    mine, theirs = _results(got), _results(want)
    assert mine.keys() == theirs.keys()
    for index in mine:
        _same(mine[index], theirs[index])

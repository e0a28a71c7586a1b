"""The shapes of an incremental run's aggregate over the partitions it scans
(docs/incremental.md#what-it-costs): one aggregate of every count as written (the plain
form), the same split into branches by the columns they read as a full scan's (a first
run, ``--full``), and the full scan's forms (its literals typed, a regex of one class by
its bytes); the key's groups and the sketches apart. Every shape gives each partition
the same partial values, on data built to break them: nulls, NaN, -0.0, decimals, a
null partition, a filtered key whose rows some partitions lack, keys repeated across
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
from assay.planner.incremental import (
    column_types,
    empty_partial,
    merged,
    partial_kind,
    table_measures,
)
from assay.planner.lower import plan_table
from assay.planner.measures import Measure
from assay.planner.partitions import partition_plan
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


SKETCHED = """
tables:
  - name: t
    source: {path: data, format: parquet}
    incremental: {by: p}
    rules:
      - {type: distinct_count, column: few, must_be: "> 0"}
      - {type: distinct_count, column: mid, must_be: "> 0"}
      - {type: distinct_count, column: wide, must_be: "> 0"}
      - {type: distinct_count, column: apart, must_be: "> 0"}
      - {type: distinct_count, column: f, must_be: "> 0"}
      - {type: distinct_count, column: d, must_be: "> 0"}
      - {type: distinct_count, column: day, must_be: "> 0", filter: "k % 3 > 0"}
      - {type: unique, columns: [k, p]}
"""
"""Distinct counts whose sketches are in every mode: a few values (the sketch lists
them), a few hundred per partition repeated in every partition (its set), thousands
per partition (HLL mode: its estimator depends on the order of the values unless read
out of order), a few hundred per partition, different in each, whose union passes into
HLL mode (the union adds them one by one); a double with NaN, -0.0, 0.0 and nulls, a
DECIMAL, a filtered date; and a key's groups."""

SKETCHED_ROWS = """
SELECT k,
       CASE WHEN k % 11 = 10 THEN NULL ELSE CAST(k % 5 AS STRING) END AS p,
       substr('abc', 1 + k % 3, 1) AS few,
       CAST(floor(k / 5) % 350 AS BIGINT) AS mid,
       CAST(floor(k / 5) % 2500 AS INT) AS wide,
       CAST(k % 1100 AS STRING) AS apart,
       CASE WHEN k % 7 = 0 THEN CAST('NaN' AS DOUBLE) WHEN k % 7 = 1 THEN -0.0
            WHEN k % 7 = 2 THEN 0.0 WHEN k % 7 = 3 THEN NULL ELSE (k % 3000) * 0.25 END AS f,
       CAST(k % 900 AS DECIMAL(38, 18)) / 7 AS d,
       date_add(DATE'2020-01-01', CAST(k % 800 AS INT)) AS day
FROM (SELECT (id * 7919) % 40000 AS k FROM range(40000))
"""
"""40,000 rows in five partitions and the null one, in an order unlike the key's."""


def _partials(
    spark, tmp_path, shape: str, rules: str = RULES, rows: str = ROWS, shuffled: bool = False
) -> dict:
    config = tmp_path / "rules.yaml"
    config.write_text(rules.replace("data", str(tmp_path / "data")))
    table = assay.load(str(config)).tables[0]
    df = spark.sql(rows)
    if shuffled:  # each partition's rows in another order, in several tasks
        df = df.repartition(7, "k")
    types = column_types([(f.name, f.dataType.simpleString()) for f in df.schema.fields])
    measures = table_measures(table.rules, "p")
    options = dataclasses.replace(DEFAULT_OPTIONS, max_outputs=2)  # many small branches
    typed = None
    if shape == "planned":  # the full scan's forms: literals typed, a regex by its bytes
        typed = plan_table(table, types=types).table
    else:
        options = dataclasses.replace(
            options, by_value=False, class_runs=False, decimal_doubles=False
        )
    plan = partition_plan(table, measures, options, types, shape == "split", typed)
    found = plan.aggregates
    if shape == "split":
        assert len(found) > 6  # the plain measures in branches, the groups and sketches apart
    if shape == "planned":
        assert plan.forms  # the regex of one class by its bytes
    frame = emit.partition_states(
        df, "p", measures, types, found, values=plan.values, forms=plan.forms
    )
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
        if partial_kind(measure, "p") == "hll":
            # a sketch's bytes depend on the order its values came in (and on the tasks
            # that built it); what it estimates, read as the merge reads it, does not
            assert merged(measure, [a[measure]], None, "p") == merged(
                measure, [b[measure]], None, "p"
            ), measure
            continue
        for x, y in zip(a[measure], b[measure], strict=True):
            if isinstance(x, float) and isinstance(y, float):
                assert (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=1e-12)
            else:
                assert x == y, (measure, x, y)


def test_every_shape_of_the_aggregate_gives_each_partition_the_same_partials(spark, tmp_path):
    one = _partials(spark, tmp_path, "one")
    assert len(one) == 5  # four partitions and the null one
    for shape in ("split", "planned"):
        other = _partials(spark, tmp_path, shape)
        assert other.keys() == one.keys(), shape
        for key in one:
            _same_partials(one[key], other[key])


def test_the_sketches_estimate_the_same_whatever_the_order_of_the_rows(spark, tmp_path):
    """Each partition's sketch built by one task in the files' order, and by several
    tasks from the rows shuffled (Spark unions their sketches): the bytes differ, the
    estimate and bounds each partition's sketch gives and the whole table's union gives
    do not, in every mode of the sketch (its union read out of order:
    ``planner.incremental._out_of_order``); and the exact distinct count lies within the
    bounds."""
    one = _partials(spark, tmp_path, "one", SKETCHED, SKETCHED_ROWS)
    other = _partials(spark, tmp_path, "one", SKETCHED, SKETCHED_ROWS, shuffled=True)
    assert len(one) == 6 and other.keys() == one.keys()
    sketched = [m for m in next(iter(one.values())) if partial_kind(m, "p") == "hll"]
    assert len(sketched) == 7
    differ = 0
    for measure in sketched:
        whole = [merged(measure, [p[measure] for p in got.values()], None, "p")
                 for got in (one, other)]  # fmt: skip
        assert whole[0] == whole[1], measure
        differ += sum(bytes(one[k][measure][0]) != bytes(other[k][measure][0]) for k in one)
        (column,) = measure.columns
        where = "" if measure.where is None else " WHERE k % 3 > 0"
        query = f"SELECT count(DISTINCT {column}) FROM ({SKETCHED_ROWS}){where}"
        exact = spark.sql(query).collect()[0][0]
        bounds = whole[0]["estimate"]
        assert bounds["lower"] <= exact <= bounds["upper"], (measure, bounds, exact)
    assert differ > 0  # the bytes did differ: the estimates compared are not of equal sketches
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
    planned = stage.partition_plan

    def split_in_twos(table, measures, options, types, split, typed=None, size=None):  # type: ignore[no-untyped-def]
        assert isinstance(table.source, PathSource)
        small = dataclasses.replace(options, max_outputs=4)
        found = planned(table, measures, small, types, True, typed, size)
        assert list(found.keyed.values()) == [1]  # unique(id, day): shuffled by key, small
        shapes.append(len(found.aggregates))
        return found

    monkeypatch.setattr(stage, "partition_plan", split_in_twos)
    got = assay.run(str(inc), spark=spark, run_time="2024-02-01T06:00:00Z")
    want = assay.run(str(full), spark=spark, run_time="2024-02-01T06:00:00Z")
    assert shapes and shapes[0] > 6
    assert _table(got)["error"] is None and len(_table(got)["incremental"]["scanned"]) == 3
    mine, theirs = _results(got), _results(want)
    assert mine.keys() == theirs.keys()
    for index in mine:
        _same(mine[index], theirs[index])

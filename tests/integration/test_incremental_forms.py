"""An incremental run's aggregate over the partitions it scans, planned as a full scan's
(:mod:`assay.planner.partitions`): the counts of a string column with few values by
value, a regex of one class by its bytes, a decimal comparison in doubles, literals in
their columns' types, each grouped by the partition. Every partition's partial values
equal those of the plain form (every count as written, in one aggregate), computed by
Spark on data built to break it: values a test tells apart that differ by a line
terminator, case, normalization or a trailing space, the empty string and null, a bound
the data breaks, a null partition and a partition holding one value only; and a run
equals a full scan on such data (its sketched distinct counts of a string and a binary
column holding the empty value, which a sketch passes over unless every value ends in
one more character: ``planner.incremental.SKETCHED_TEXT``, within their bounds)."""

from __future__ import annotations

import dataclasses

import pytest

import assay
from assay.emit import incremental as emit
from assay.monitoring.states import partition_key
from assay.planner.cost import DEFAULT_OPTIONS
from assay.planner.incremental import column_types, empty_partial, table_measures
from assay.planner.lower import plan_table
from assay.planner.measures import GroupStats, measures_of
from assay.planner.partitions import partition_plan
from tests.integration.test_incremental import _results, _same, _table
from tests.integration.test_incremental_cost import _same_partials

pytestmark = pytest.mark.spark

TRICKY = [
    None, "", "A", "a", "A\n", "A\r\n", "A\r", "A\u2028", "A\n\n", "AB", "AB ", " AB",
    "ABC", "\u00c9", "E\u0301", "\uff5a", "\U0001f642x", "x" * 40, "abc", "ab\r\n",
]  # fmt: skip

RULES = """
tables:
  - name: t
    source: {path: data, format: parquet}
    incremental: {by: p}
    rules:
      - {type: regex, column: c, pattern: '^[A-Z]+$'}
      - {type: regex, column: c, pattern: '^[A-Z]{1,2}$'}
      - {type: regex, column: c, pattern: '[a-z]'}
      - {type: accepted_values, column: c, values: [A, AB, ABC, '']}
      - {type: length, column: c, min: 1, max: 3}
      - {type: not_null, column: c}
      - {type: regex, column: c, pattern: '^A', filter: 'id % 3 = 0'}
      - {type: expression, expression: "c RLIKE '^[A-Z]'"}
      - {type: distinct_count, column: c, must_be: '<= 20'}
      - {type: distinct_count, column: bin, must_be: '<= 20'}
      - {type: accepted_values, column: l, values: [a, ab]}
      - {type: regex, column: l, pattern: '^[ab]{1,2}$'}
      - {type: regex, column: w, pattern: '^[a-z]{2,5}$'}
      - {type: regex, column: w, pattern: '^[a-z]+$'}
      - {type: length, column: w, max: 4}
      - {type: expression, expression: "m / q > 2.5"}
      - {type: expression, expression: "m * 3 <= 100.01"}
      - {type: range, column: b, min: -1000, max: 1000}
      - {type: range, column: m, min: 0.005, max: 99.995}
      - {type: sum, column: m, must_be: '>= 0'}
      - {type: max, column: b, must_be: '<= 50'}
"""
"""Counts of a few-valued string (regexes, sets, lengths, a filtered one that stays in
the scan), regexes of one class with a length on a many-valued string, decimal
comparisons, a range beyond a TINYINT's values and one between a DECIMAL(12, 2)'s."""


def _frame(spark):  # type: ignore[no-untyped-def]
    rows = []
    for i in range(1, 700):
        c = TRICKY[(i * 7) % len(TRICKY)] if i < 500 else f"v{i}"  # breaks the bound
        l = None if i % 11 == 0 else ("a", "ab", "b", "ab\n", "abc")[i % 5]  # noqa: E741
        w = None if i % 13 == 0 else ("ab", "abcdef", "xyz", "a\n", "Ab", "")[i % 6] + "q" * (i % 3)
        p = None if i % 17 == 0 else ("x", "y", "z")[i % 3] if i < 650 else "only"
        rows.append((i, c, l, w, i % 120 - 60, p))
    schema = "id INT, c STRING, l STRING, w STRING, b TINYINT, p STRING"
    df = spark.createDataFrame(rows, schema)
    return df.selectExpr(
        "*",
        "CAST(id % 97 / 3 AS DECIMAL(12, 2)) AS m",
        "CAST(id % 7 + 1 AS DECIMAL(5, 1)) AS q",
        "CAST(c AS BINARY) AS bin",
    )


def _states(spark, tmp_path, options, planned: bool) -> tuple[dict, object]:  # type: ignore[no-untyped-def]
    config = tmp_path / "rules.yaml"
    config.write_text(RULES.replace("data", str(tmp_path / "data")))
    table = assay.load(str(config)).tables[0]
    df = _frame(spark)
    types = column_types([(f.name, f.dataType.simpleString()) for f in df.schema.fields])
    measures = table_measures(table.rules, "p")
    typed = plan_table(table, types=types).table if planned else None
    shape = partition_plan(table, measures, options, types, False, typed)
    return _partials(df, shape, measures, types), shape


def _partials(df, shape, measures, types) -> dict:  # type: ignore[no-untyped-def]
    """Each partition's partial values by the aggregate ``shape`` over ``df``'s rows (read
    in one task when ``shape.one_task``, as a run reads them: ``emit.in_partitions``)."""
    if shape.one_task:
        df = emit.in_partitions(df, "p", ["x", "y", "z", "only", None], one_task=True)
    frame = emit.partition_states(
        df, "p", measures, types, shape.aggregates, values=shape.values, forms=shape.forms,
        keyed=shape.keyed,
    )  # fmt: skip
    values: dict = {}
    for row in frame.collect():
        got = row.asDict()
        part = values.setdefault(partition_key(got[emit.PART]), {})
        for i in shape.aggregates[got[emit.AGGREGATE]]:
            part[measures[i]] = [got[n] for n in emit.partial_columns(i, measures[i], "p")]
    for part in values.values():
        for measure in measures:
            part.setdefault(measure, empty_partial(measure, "p"))
    return values


KEYS = """
      - {type: unique, columns: [id, p]}
      - {type: unique, columns: [k, p]}
      - {type: duplicate_count, columns: [k, p], must_be: '>= 0'}
      - {type: has_uniqueness, columns: [k, c, p], fraction: 0, operator: '>='}
"""
"""Keys holding the partition column: one unique, one repeated within and across
partitions (and in the late rows), one with a key column holding nulls."""


def test_one_task_gives_each_partition_the_partials_of_the_shuffled_aggregate(spark, tmp_path):
    """A scan small enough for one task (``PartitionPlan.one_task``: its rows coalesced to
    one Spark partition, each aggregate and group-by without a shuffle) against the same
    aggregate shuffled (the key groups of a unique rule by key into one partition, into
    the session's, or grouped as any group-by): the same partial values of every
    partition, on the tricky frame read from several Spark partitions, with keys repeated
    within and across partitions, a null partition, every partition new at once, and
    late rows of two partitions (duplicating keys already there) in another frame."""
    from pyspark.sql.connect import functions as F

    config = tmp_path / "rules.yaml"
    config.write_text(RULES.replace("data", str(tmp_path / "data")) + KEYS)
    table = assay.load(str(config)).tables[0]
    early = _frame(spark).withColumn("k", F.col("id") % 50)
    late = early.where("p = 'x' OR p IS NULL").withColumn("id", F.col("id") + 1000)
    df = early.unionByName(late).repartition(3)
    types = column_types([(f.name, f.dataType.simpleString()) for f in df.schema.fields])
    measures = table_measures(table.rules, "p")
    typed = plan_table(table, types=types).table
    shape = partition_plan(table, measures, DEFAULT_OPTIONS, types, False, typed, 2**20)
    assert shape.one_task and not shape.keyed and len(shape.values) == 1
    got = _partials(df, shape, measures, types)
    assert len(got) == 5  # x, y, z, only, the null one
    past = partition_plan(table, measures, DEFAULT_OPTIONS, types, False, typed, 4 * 2**20 + 1)
    assert not past.one_task and past.keyed  # over one_task_bytes (4 MiB): shuffled
    shuffled = partition_plan(table, measures, DEFAULT_OPTIONS, types, False, typed, 2**30)
    assert not shuffled.one_task and len(shuffled.keyed) == 2
    for keyed in (shuffled.keyed, dict.fromkeys(shuffled.keyed), {}):
        want = _partials(df, dataclasses.replace(shuffled, keyed=keyed), measures, types)
        assert got.keys() == want.keys()
        for key in want:
            _same_partials(got[key], want[key])
    (repeated,) = [m for m in measures_of(table.rules[-3]) if isinstance(m, GroupStats)]
    assert got[partition_key("x")][repeated][2] > 0  # rows in groups of 2+: keys repeat in x


def test_the_full_scan_forms_give_each_partition_the_partials_of_the_plain_form(spark, tmp_path):
    plain = dataclasses.replace(
        DEFAULT_OPTIONS, by_value=False, class_runs=False, decimal_doubles=False
    )
    want, plain_shape = _states(spark, tmp_path, plain, planned=False)
    assert not plain_shape.values and not plain_shape.forms  # type: ignore[attr-defined]
    assert len(plain_shape.aggregates[-1]) == 2  # type: ignore[attr-defined] # c's, bin's sketch
    for options in (DEFAULT_OPTIONS, dataclasses.replace(DEFAULT_OPTIONS, join_values=False)):
        got, shape = _states(spark, tmp_path, options, planned=True)
        values = shape.values  # type: ignore[attr-defined]
        # c by value (a regex, a bound); l rides along c's group-by (its tests cheap)
        riding = ["c", "l"] if options.join_values else ["c"]
        assert list(values.values()) == [tuple(riding)], values
        assert len(shape.forms) >= 4  # type: ignore[attr-defined]
        # c's sketch from its value groups; bin's (not a string) in the sketches' aggregate
        assert len(shape.aggregates[-1]) == 1  # type: ignore[attr-defined]
        assert got.keys() == want.keys() and len(want) == 5  # x, y, z, only, the null one
        for key in want:
            _same_partials(got[key], want[key])


def test_a_run_with_the_full_scan_forms_equals_a_full_scan(spark, tmp_path):
    data = tmp_path / "data"
    _frame(spark).write.partitionBy("p").parquet(str(data))
    configs = {}
    for name, incremental in (("inc", True), ("full", False)):
        text = RULES.replace("data", str(data))
        if not incremental:
            text = text.replace("    incremental: {by: p}\n", "")
        metrics = f"metrics: {{path: {tmp_path / (name + '.jsonl')}}}\n"
        configs[name] = tmp_path / f"{name}.yaml"
        configs[name].write_text(metrics + text)
    got = assay.run(str(configs["inc"]), spark=spark, run_time="2024-02-01T06:00:00Z")
    want = assay.run(str(configs["full"]), spark=spark, run_time="2024-02-01T06:00:00Z")
    assert _table(got)["error"] is None and len(_table(got)["incremental"]["scanned"]) == 5
    mine, theirs = _results(got), _results(want)
    assert mine.keys() == theirs.keys()
    for index in mine:
        if mine[index]["exact"] is False:  # the sketched distinct count: within its bounds
            bounds = mine[index]["estimate"]
            assert bounds["lower"] <= theirs[index]["metric_value"] <= bounds["upper"]
            continue
        _same(mine[index], theirs[index])

"""What an incremental run costs, counted, not timed (docs/incremental.md#what-it-costs):
the Spark plans and the client's round trips of a run after one new partition and of a
run with nothing new, so that neither can grow back; a path source not partitioned by the
column (the listing refused, the rows hashed); and what the file listing's fingerprint
cannot see (a file rewritten with the same name, size and modification time)."""

from __future__ import annotations

import os
from collections import Counter

import pytest

import assay
from tests.integration.test_incremental import _config, _day, _results, _same, _scanned, _table

pytestmark = pytest.mark.spark


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """The client's analysis and execution requests, by kind, counted as they pass (each
    still sent to the server)."""
    from pyspark.sql.connect.client import core

    seen: Counter[str] = Counter()
    analyze = core.SparkConnectClient._analyze
    execute = core.SparkConnectClient._execute_and_fetch_as_iterator

    def counted_analyze(self, method, **kwargs):  # type: ignore[no-untyped-def]
        seen[f"analyze:{method}"] += 1
        return analyze(self, method, **kwargs)

    def counted_execute(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen["execute"] += 1
        return execute(self, *args, **kwargs)

    monkeypatch.setattr(core.SparkConnectClient, "_analyze", counted_analyze)
    monkeypatch.setattr(core.SparkConnectClient, "_execute_and_fetch_as_iterator", counted_execute)
    return seen


ONE_NEW = {
    # the source's schema (prepare.read_source); the expression rule's types and its
    # counted form (emit.spark.snippet_types, snippet_counts: as a full scan's)
    "analyze:schema": 3,
    # the source's size and columnarity (emit.statistics.scan_facts)
    "analyze:explain": 1,
    # the file listing (no analysis round trip before it), the aggregate over the new
    # partition, the detail plan (not_null fails on it)
    "execute": 3,
}
"""The requests of a run after one new partition. The file listing was analysed on its
own before it was collected (one more ``analyze:schema``): it is collected as it is, and
a source Spark cannot list by the column says so when the plan is analysed."""


def _jobs(server, since: int) -> list[int]:  # type: ignore[no-untyped-def]
    """The Spark jobs of each SQL execution from number ``since`` on (Spark UI REST API)."""
    import json
    import urllib.request

    server.sql_executions()  # finds the application id
    url = f"{server.ui_url}/api/v1/applications/{server._app_id}/sql?details=false"
    with urllib.request.urlopen(url, timeout=60) as r:
        found = {int(e["id"]): e for e in json.load(r)}
    return [len(found[i]["successJobIds"]) for i in sorted(found) if i >= since]


def test_a_run_after_one_new_partition_makes_the_requests_counted(spark, server, tmp_path, calls):
    data = tmp_path / "data"
    inc = _config(tmp_path, data, True)
    for day in (1, 2):
        _day(spark, data, day, 40)
    assay.run(str(inc), spark=spark, run_time="2024-02-01T06:00:00Z")
    _day(spark, data, 3, 40)
    calls.clear()
    before = server.sql_executions()
    result = assay.run(str(inc), spark=spark, run_time="2024-02-02T06:00:00Z")
    table = _table(result)
    assert _scanned(table) == ["2024-01-03"] and table["error"] is None
    assert server.sql_executions() - before == table["spark_plans"] == 3
    # one Spark job per plan: the new partition is small, read in one task by the
    # aggregate and the detail plan (no shuffle, so no adaptive query stages; shuffled,
    # they ran 8 and 2 jobs here, the aggregate five stages in five jobs at SF1)
    assert _jobs(server, before) == [1, 1, 1]
    assert {k: v for k, v in calls.items() if k.startswith(("analyze", "execute"))} == ONE_NEW
    calls.clear()
    before = server.sql_executions()
    result = assay.run(str(inc), spark=spark, run_time="2024-02-03T06:00:00Z")
    assert _scanned(_table(result)) == [] and server.sql_executions() - before == 1
    assert calls["execute"] == 1  # the listing alone
    assert calls["analyze:schema"] == ONE_NEW["analyze:schema"]  # as before the table


def test_a_path_not_partitioned_by_the_column_is_fingerprinted_by_its_rows(spark, server, tmp_path):
    """``day`` a column of the files, not a directory: the listing is refused when Spark
    analyses it (no plan runs), the rows are hashed, only the changed day aggregated."""
    layout = tmp_path / "layout"
    for day in (1, 2):
        _day(spark, layout, day, 30)
    data = tmp_path / "data"
    frame = spark.read.parquet(str(layout))
    frame.write.parquet(str(data))  # day in the files
    inc, full = _config(tmp_path, data, True), _config(tmp_path, data, False)
    first = assay.run(str(inc), spark=spark, run_time="2024-02-01T06:00:00Z")
    assert sorted(_scanned(_table(first))) == ["2024-01-01", "2024-01-02"]
    _day(spark, layout, 3, 30)
    spark.read.parquet(str(layout)).where("day = '2024-01-03'").write.mode("append").parquet(
        str(data)
    )
    before = server.sql_executions()
    got = assay.run(str(inc), spark=spark, run_time="2024-02-02T06:00:00Z")
    # the hashed fingerprints, the aggregate, the detail plan; and the listing, which the
    # server records as a failed execution when it refuses it at analysis (as it did
    # the listing's schema analysed alone before)
    assert server.sql_executions() - before - 1 == _table(got)["spark_plans"] == 3
    assert _scanned(_table(got)) == ["2024-01-03"]
    want = assay.run(str(full), spark=spark, run_time="2024-02-02T06:00:00Z")
    mine, theirs = _results(got), _results(want)
    for index in mine:
        _same(mine[index], theirs[index])


def test_a_file_rewritten_with_its_name_size_and_time_is_not_seen(spark, tmp_path):
    """The listing's fingerprint is each file's path, size and modification time: a file
    rewritten in place keeping all three (a tool preserving times, values of the same
    width) is not seen as changed, its stale states are merged; ``--full`` rescans it."""
    data, made = tmp_path / "data", tmp_path / "made"
    inc = _config(tmp_path, data, True)
    _day(spark, data, 1, 40)
    _day(spark, made, 2, 40)
    day = spark.read.parquet(str(made / "day=2024-01-02"))
    for name, frame in (("was", day), ("now", day.withColumn("qty", day["qty"] + 100))):
        frame.coalesce(1).write.option("compression", "none").parquet(str(tmp_path / name))
    (was,) = (tmp_path / "was").glob("*.parquet")
    (now,) = (tmp_path / "now").glob("*.parquet")
    assert was.stat().st_size == now.stat().st_size  # ints of the same width, uncompressed
    target = data / "day=2024-01-02" / was.name
    target.parent.mkdir()
    target.write_bytes(was.read_bytes())
    first = assay.run(str(inc), spark=spark, run_time="2024-02-01T06:00:00Z")
    assert sorted(_scanned(_table(first))) == ["2024-01-01", "2024-01-02"]
    stat = target.stat()
    target.write_bytes(now.read_bytes())
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    blind = assay.run(str(inc), spark=spark, run_time="2024-02-02T06:00:00Z")
    assert _scanned(_table(blind)) == []  # not seen: the stored states are merged
    rescanned = assay.run(str(inc), spark=spark, run_time="2024-02-03T06:00:00Z", full=True)
    assert sorted(_scanned(_table(rescanned))) == ["2024-01-01", "2024-01-02"]
    whole = spark.read.parquet(str(data)).selectExpr("sum(qty)").collect()[0][0]
    assert _sum_of(rescanned) == whole != _sum_of(blind)


def _sum_of(result) -> object:  # type: ignore[no-untyped-def]
    """The sum of qty (rules[14])."""
    return _results(result)[14]["metric_value"]


def test_the_group_statistics_of_each_partition_equal_a_full_scans_of_it(spark):
    """The groups of a key holding the partition column by their own group-by per
    partition (unioned with the other aggregates) and a full scan's group-by of each
    partition's rows alone (``emit.spark.group_frame``): the same statistics, on keys built
    to tell them apart (nulls in one key or both, NaN and -0.0 against 0.0, a filter that
    is null on some rows, a partition without kept rows, a null partition), whatever the
    measure's nulls."""
    from pyspark.sql.connect import functions as F

    from assay.emit.incremental import AGGREGATE, PART, partial_columns, partition_states
    from assay.emit.spark import group_frame
    from assay.ir.expr import Col, Compare, Lit
    from assay.ir.values import Op
    from assay.planner.measures import GroupStats, RowCount
    from assay.planner.plan import GroupAggregate, Slot

    frame = spark.sql(
        """SELECT * FROM VALUES
             ('a', 1.0, 'x', 1), ('a', 1.0, 'x', 2), ('a', -0.0, 'y', 3), ('a', 0.0, 'y', 4),
             ('a', CAST('NaN' AS DOUBLE), NULL, 5), ('a', CAST('NaN' AS DOUBLE), NULL, NULL),
             ('a', NULL, NULL, 7), ('a', NULL, NULL, 8), ('a', NULL, 'z', 9),
             ('b', 2.0, 'x', 0), ('b', 2.0, 'x', 0), (NULL, 3.0, 'w', 10), (NULL, 3.0, 'w', 11)
           AS t(day, k, j, v)"""
    )
    where = Compare(Op.GT, Col("v"), Lit(2))
    measures = [RowCount()] + [
        GroupStats(columns, nulls, filtered)
        for columns in (("day", "k"), ("day", "k", "j"))
        for nulls in ("any", "all", "none")
        for filtered in (None, where)
    ]
    types = {"day": "string", "k": "double", "j": "string", "v": "int"}

    shape = [(i,) for i in range(len(measures))]  # each key's groups a group-by of its own
    # and each shuffled straight to its key's partition (keys expected unique: 1 or the
    # session's partitions), as planned for a rule expecting unique keys: the same values
    every = range(1, len(measures))
    said: dict = {}
    for keyed in ({}, dict.fromkeys(every, 1), dict.fromkeys(every)):
        found: dict = {}
        for row in partition_states(frame, "day", measures, types, shape, keyed=keyed).collect():
            got = row.asDict()
            for i in shape[got[AGGREGATE]]:
                found[got[PART], i] = [got[n] for n in partial_columns(i, measures[i], "day")]
        assert found == (said or found)
        said = found
    wanted = []  # a full scan's group-by of each partition's rows, in one plan
    for n, day in enumerate(("a", "b", None)):
        rows = frame.where(F.col("day").eqNullSafe(F.lit(day)))
        for i, measure in enumerate(measures[1:], 1):
            assert isinstance(measure, GroupStats)
            branch = GroupAggregate(measure.columns, Slot("g", measure, ()))
            wanted.append(
                group_frame(rows, branch).select(F.lit(n).alias("n"), F.lit(i).alias("i"), "*")
            )
    union = wanted[0]
    for other in wanted[1:]:
        union = union.unionByName(other)
    found = union.collect()
    assert len(found) == 3 * (len(measures) - 1)
    for row in found:
        day, i, *want = row
        got = said.get((("a", "b", None)[day], i), [0, None, None, 0])  # no kept row: no group
        assert [got[0] or 0, *got[1:3], got[3] or 0] == [want[0] or 0, *want[1:3], want[3] or 0]
    assert said["a", 1][0] == 3 and said["b", 1][2] == 2  # NaN one value


def test_the_embedded_server_lists_a_tables_directories_on_the_driver(spark):
    """A table in more than 32 partition directories was listed by a Spark job at each
    analysis of its source and each file listing (Spark's default threshold): the
    embedded server lists up to 1,024 on the driver (docs/incremental.md#what-it-costs)."""
    from assay.executor.session.embedded import LISTED_ON_THE_DRIVER, LISTING_THRESHOLD

    assert spark.conf.get(LISTING_THRESHOLD) == LISTED_ON_THE_DRIVER


def test_a_runs_file_listing_starts_while_the_table_is_prepared(spark, tmp_path):
    """A run's prepare starts an incremental table's file listing first, before the
    source's schema is asked (collected in a thread while the table is analysed), its
    partitions typed as Spark infers them from the paths, as the table's reader does;
    ``assay check``'s prepare lists nothing (analysis round trips only)."""
    from assay.emit.incremental import LISTED_TYPE
    from assay.executor.prepare import prepare
    from assay.executor.stages.incremental import typed_as
    from assay.executor.stages.prepared import Prepared

    data = tmp_path / "data"
    for day in (1, 2):
        _day(spark, data, day, 20)
    table = assay.load(str(_config(tmp_path, data, True))).tables[0]
    checked = prepare(spark, table)
    assert isinstance(checked, Prepared) and checked.listing is None
    ran = prepare(spark, table, listing=True)
    assert isinstance(ran, Prepared) and ran.listing is not None
    rows = ran.listing.result(timeout=120)
    assert sorted({str(r["_assay_partition"]) for r in rows}) == ["2024-01-01", "2024-01-02"]
    assert all(r["length"] > 0 for r in rows)
    assert dict(ran.schema)["day"] == "date" and {r[LISTED_TYPE] for r in rows} == {"date"}
    assert typed_as(rows, "date") and not typed_as(rows, "string")


def test_an_early_listing_typed_otherwise_is_listed_again_cast(
    spark, server, tmp_path, monkeypatch
):
    """The early listing's partitions typed otherwise than the table's column (as a
    reader given a schema would type them): the listing is collected again, cast to the
    table's type, one more plan; its fingerprints are those of the early listing (the
    run after the first scans nothing), the results as before."""
    from assay.executor.stages import incremental as stage

    data = tmp_path / "data"
    inc = _config(tmp_path, data, True)
    for day in (1, 2):
        _day(spark, data, day, 30)
    first = assay.run(str(inc), spark=spark, run_time="2024-02-01T06:00:00Z")
    monkeypatch.setattr(stage, "typed_as", lambda rows, kind: False)
    before = server.sql_executions()
    again = assay.run(str(inc), spark=spark, run_time="2024-02-02T06:00:00Z")
    table = _table(again)
    assert _scanned(table) == [] and table["error"] is None
    assert server.sql_executions() - before == table["spark_plans"] == 2  # listed twice
    mine, theirs = _results(again), _results(first)
    assert mine.keys() == theirs.keys()
    for index in mine:
        assert mine[index]["metric_value"] == theirs[index]["metric_value"], index
        assert mine[index]["passed"] == theirs[index]["passed"], index

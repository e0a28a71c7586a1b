"""Incremental tables on the real server (docs/incremental.md): a parquet table partitioned
by day (hive layout) grown one day at a time, then a late partition, a rewritten one, an
empty one and a deleted one. After every change an incremental run scans only what
changed (counted: Spark plans per run, the partitions it says it scanned) and every
whole-table result equals a full scan's of the same rules (exactly for counts, min, max
and decimal sums and means; to 1e-12 relative for floating means, sums and standard
deviations, which Spark itself adds up in no fixed order), on data with nulls, NaN,
DECIMAL(38, 18) values and keys repeated across partitions. Then ``--full``, rules that
cannot be merged refused at their line, and a run without a store refused."""

from __future__ import annotations

import base64
import json
import math
import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

import assay
from assay.errors import ConfigErrors
from tests.helpers import validate_event

pytestmark = pytest.mark.spark

RULES = """
      - {type: row_count, must_be: "> 0"}
      - {type: not_null, column: id}
      - {type: not_null, column: note}
      - {type: range, column: qty, min: 0, max: 1000}
      - {type: expression, expression: "qty >= 0 OR qty IS NULL", filter: "id > 3"}
      - {type: missing_count, column: x, must_be: "<= 1000"}
      - {type: count, column: note, must_be: ">= 0"}
      - {type: avg, column: x, must_be: "> -1000000000"}
      - {type: avg, column: amount, must_be: "> -1000000000"}
      - {type: avg, column: qty, must_be: "> -1000000000"}
      - {type: stddev, column: x, must_be: ">= 0"}
      - {type: stddev, column: amount, must_be: ">= 0"}
      - {type: stddev, column: qty, must_be: ">= 0"}
      - {type: sum, column: amount, must_be: "> -1000000000000000000000"}
      - {type: sum, column: qty, must_be: ">= 0"}
      - {type: sum, column: x, must_be: "> -1000000000000000000000"}
      - {type: min, column: amount, must_be: "> -1000000000000000000000"}
      - {type: max, column: amount, must_be: "< 1000000000000000000000"}
      - {type: min, column: x, must_be: "> -1000000000000000000000"}
      - {type: max, column: y, must_be: "< 1000000000000000000000"}
      - {type: min, column: qty, must_be: ">= 0"}
      - {type: avg, column: x, filter: "qty > 10", must_be: "> -1000000000"}
      - {type: unique, columns: [id, day]}
      - {type: distinct_count, column: day, must_be: "> 0"}
      - {type: duplicate_count, columns: [qty, day], must_be: ">= 0"}
      - {type: has_uniqueness, columns: [note, day], filter: "id > 2", fraction: 0, operator: ">="}
"""
"""Rules over every mergeable measure (a filtered one too); note has nulls (not_null
fails: samples), y has NaN (its max is NaN), amount is DECIMAL(38, 18); uniqueness,
duplicates and distinct counts of keys holding the partition column."""

FLOATING = {"avg", "stddev"}


def _config(tmp_path: Path, data: Path, incremental: bool) -> Path:
    which = "inc" if incremental else "full"
    spec = "    incremental: {by: day}\n" if incremental else ""
    path = tmp_path / f"{which}.yaml"
    path.write_text(
        f"metrics: {{path: {tmp_path / (which + '.jsonl')}}}\n"
        f"tables:\n  - name: t\n    source: {{path: {data}, format: parquet}}\n"
        f"{spec}    keys: [id, day]\n    rules:{RULES}"
    )
    return path


def _day(spark, data: Path, day: int, rows: int, seed: int = 0) -> None:
    """One day's partition: keys repeated across days (id = i), nulls, NaN, decimals."""
    query = f"""
        SELECT id,
               CASE WHEN id % 7 = 3 THEN NULL ELSE CAST(id * {day + seed} % 97 AS INT) END AS qty,
               CASE WHEN id % 11 = 5 THEN NULL
                    ELSE CAST(id AS DOUBLE) * 1.37 - {day} * 3.1 + {seed} END AS x,
               CASE WHEN id = {day} THEN CAST('NaN' AS DOUBLE) ELSE id / 3.0 END AS y,
               CAST(CAST(id AS DECIMAL(38, 18)) / 7 * {day + seed} - 12.000000000000000001
                    AS DECIMAL(38, 18)) AS amount,
               CASE WHEN id % 5 = 0 THEN NULL ELSE CONCAT('n', id % 13) END AS note
        FROM range({rows})"""
    target = data / f"day=2024-01-{day:02d}"
    spark.sql(query).coalesce(1).write.mode("overwrite").parquet(str(target))


def _results(result) -> dict[int, dict]:
    return {
        e["rule_index"]: e for e in (ev.to_dict() for ev in result.events) if e["event"] == "result"
    }


def _table(result) -> dict:
    (table,) = [t.to_dict() for t in result.tables]
    return table


def _same(inc: dict, full: dict) -> None:
    """An incremental run's result equals the full scan's."""
    where = f"rule {inc['rule_index']} {inc['rule']['type']}"
    assert (inc["severity"], inc["failed_count"], inc["row_count"]) == (
        full["severity"], full["failed_count"], full["row_count"]), where  # fmt: skip
    a, b = inc["metric_value"], full["metric_value"]
    if isinstance(b, float) and inc["rule"]["type"] in FLOATING | {"sum"} and b != 0:
        assert math.isclose(a, b, rel_tol=1e-12), (where, a, b)
    else:
        assert a == b, (where, a, b)
    assert inc["scope"] == "table" and inc["exact"] is True, where
    assert "scope" not in full


def _run(spark, server, config: Path, day: int, **options):
    before = server.sql_executions()
    result = assay.run(str(config), spark=spark, run_time=f"2024-02-{day:02d}T06:00:00Z",
                       **options)  # fmt: skip
    return result, server.sql_executions() - before


def _scanned(table: dict) -> list[str]:
    return [json.loads(k)[1] for k in table["incremental"]["scanned"]]


def test_every_change_scans_only_what_changed_and_equals_a_full_scan(spark, server, tmp_path):
    data = tmp_path / "data"
    inc, full = _config(tmp_path, data, True), _config(tmp_path, data, False)
    step = 0
    scans: dict[tuple, object] = {}  # the full scan's result per state of the files

    def check(
        expect_scanned: list[str], partitions: int, deleted: int = 0, plans: int | None = None
    ) -> dict:
        nonlocal step
        step += 1
        got, submitted = _run(spark, server, inc, step)
        files = tuple(sorted((str(f), f.stat().st_size, f.stat().st_mtime_ns)
                             for f in data.rglob("*") if f.is_file()))  # fmt: skip
        if files not in scans:  # the data changed since the last full scan
            scans[files] = _run(spark, server, full, step)[0]
        want = scans[files]
        table = _table(got)
        assert table["error"] is None and _table(want)["error"] is None
        assert sorted(_scanned(table)) == sorted(expect_scanned), step
        assert table["incremental"]["partitions"] == partitions
        assert len(table["incremental"]["deleted"]) == deleted
        # the fingerprint plan; the aggregate plan when a partition was scanned; the
        # detail plan sampling the failing not_null's new rows when any was scanned
        expected = plans if plans is not None else 3 if expect_scanned else 1
        assert submitted == table["spark_plans"] == expected, step
        mine, theirs = _results(got), _results(want)
        assert mine.keys() == theirs.keys()
        assert not [i for i, r in mine.items() if r["severity"] == "error"], step
        for event in [table, *mine.values()]:
            validate_event(event)  # scope, exact and the table's incremental in the schema
        for index in mine:
            _same(mine[index], theirs[index])
        samples = mine[2]["samples"] or []
        assert {s["day"] for s in samples} <= set(expect_scanned)  # the new data only
        return table

    for day in (2, 3, 4):  # days added one by one
        _day(spark, data, day, 60 + day)
        check([f"2024-01-{day:02d}"], day - 1)
    check([], 3)  # nothing changed: the fingerprints alone
    _day(spark, data, 1, 50)  # a late partition
    check(["2024-01-01"], 4)
    _day(spark, data, 3, 80, seed=5)  # a rewritten partition
    check(["2024-01-03"], 4)
    empty = data / "day=2024-01-05"  # an empty partition: a file without rows
    spark.sql("SELECT * FROM parquet.`{}` WHERE false".format(data / "day=2024-01-02")).write.mode(
        "overwrite"
    ).parquet(str(empty))
    # scanned once; no row fails there, but the not_null failed on the latest partition
    # before it: its samples were asked beside the aggregate (a detail plan finding none)
    check(["2024-01-05"], 5)
    check([], 5)  # then known by its files
    shutil.rmtree(data / "day=2024-01-02")  # a deleted partition
    check([], 4, deleted=1)
    # --full: every partition scanned, the states rebuilt; the next run merges them
    step += 1
    got, _ = _run(spark, server, inc, step, full=True)
    assert sorted(_scanned(_table(got))) == [f"2024-01-0{d}" for d in (1, 3, 4, 5)]
    check([], 4)


def test_the_states_are_in_the_store_and_assay_history_shows_them(spark, tmp_path):
    data = tmp_path / "data"
    _day(spark, data, 1, 20)
    inc = _config(tmp_path, data, True)
    assay.run(str(inc), spark=spark)
    rows = [json.loads(line) for line in (tmp_path / "inc.jsonl").read_text().splitlines()]
    states = [r for r in rows if r["measure"] == "state"]
    # a row per partition (its fingerprint) and one per rule and partition; a first run
    # stores every partition's states: a baseline marker
    assert len(states) == 2 + len(RULES.strip().splitlines())
    assert {r["columns"] for r in states} == {'["date","2024-01-01"]', "(baseline)"}
    assert all(r["state"] and r["value"] == 20.0 for r in states)
    frame = assay.history(metrics=str(tmp_path / "inc.jsonl"), spark=spark)
    assert frame.where("measure = 'state' AND state IS NOT NULL").count() == len(states)
    shown = subprocess.run(
        [sys.executable, "-m", "assay", "history", str(inc), "--measure", "state"],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    lines = [json.loads(line) for line in shown]
    assert len(lines) == len(states)
    (table_row,) = [line for line in lines if line["columns"] == '["date","2024-01-01"]'
                    and line["rule"] == "(table)"]  # fmt: skip
    assert "fingerprint" in json.loads(base64.b64decode(table_row["state"]))


def test_the_merged_stddev_is_sparks_on_the_whole_table(spark, tmp_path):
    """Chan's merge of (n, mean, M2) against Spark's own var_samp and stddev of the whole
    table, to 1e-12 relative."""
    from assay.planner.incremental import merged
    from assay.planner.measures import ColumnAgg

    data = tmp_path / "data"
    for day in range(1, 6):
        _day(spark, data, day, 40 * day, seed=day)
    rows = spark.sql(
        f"SELECT day, count(x) n, avg(x) mean, var_pop(x) * count(x) m2 FROM parquet.`{data}`"
        " GROUP BY day"
    ).collect()
    whole = spark.sql(f"SELECT stddev_samp(x) s, var_samp(x) v FROM parquet.`{data}`").collect()[0]
    value = merged(ColumnAgg("stddev", "x"), [[r.n, r.mean, r.m2] for r in rows])
    assert math.isclose(value, whole.s, rel_tol=1e-12)
    assert math.isclose(value * value, whole.v, rel_tol=1e-12)


def test_rules_that_do_not_merge_are_refused_at_their_line(spark, tmp_path):
    data = tmp_path / "data"
    _day(spark, data, 1, 10)
    config = tmp_path / "c.yaml"
    config.write_text(
        f"metrics: {{path: {tmp_path / 'm.jsonl'}}}\n"
        f"tables:\n  - source: {{path: {data}, format: parquet}}\n"
        "    incremental: {by: day}\n    rules:\n"
        "      - {type: not_null, column: id}\n"
        "      - {type: unique, column: id}\n"
        "      - {type: distinct_count, column: note, must_be: '> 0'}\n"
        "      - {type: median, column: x, must_be: '> 0'}\n"
        "      - {type: sql, query: 'SELECT count(*) = 0 FROM _validation_df WHERE id < 0'}\n"
    )
    with pytest.raises(ConfigErrors) as raised:
        assay.run(str(config), spark=spark)
    said = [(e.origin.path, e.message) for e in raised.value.errors]
    # rules[2], a distinct count of one column, is sketched (exact: false), not refused
    assert [p for p, _ in said] == [f"tables[0].rules[{i}]" for i in (1, 3, 4)]
    assert all("cannot be judged on an incremental table" in m for _, m in said)
    wrong = tmp_path / "w.yaml"
    mergeable = "".join(config.read_text().splitlines(keepends=True)[:6])  # not_null only
    wrong.write_text(mergeable.replace("by: day", "by: dya"))
    with pytest.raises(ConfigErrors) as raised:
        assay.run(str(wrong), spark=spark)
    (error,) = raised.value.errors
    assert "no column dya" in error.message and error.origin.path == "tables[0].incremental.by"


def test_an_incremental_table_needs_a_store(spark, tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(
        f"tables:\n  - source: {{path: {tmp_path}, format: parquet}}\n"
        "    incremental: {by: day}\n    rules:\n      - {type: not_null, column: id}\n"
    )
    with pytest.raises(ConfigErrors) as raised:
        assay.run(str(config), spark=spark)
    (error,) = raised.value.errors
    assert "metrics store" in error.message and error.origin.path == "tables[0].incremental"


def test_a_rule_of_scope_new_is_judged_on_the_new_partitions_alone(spark, tmp_path):
    data = tmp_path / "data"
    config = tmp_path / "c.yaml"
    config.write_text(
        f"metrics: {{path: {tmp_path / 'm.jsonl'}}}\n"
        f"tables:\n  - name: t\n    source: {{path: {data}, format: parquet}}\n"
        "    incremental: {by: day}\n    rules:\n"
        "      - {type: row_count, must_be: '> 0'}\n"
        "      - {type: row_count, scope: new, must_be: '> 0'}\n"
        "      - {type: sum, column: qty, scope: new, must_be: '>= 0'}\n"
    )
    _day(spark, data, 1, 30)
    first = _results(assay.run(str(config), spark=spark, run_time="2024-02-01T06:00:00Z"))
    _day(spark, data, 2, 20)
    second = _results(assay.run(str(config), spark=spark, run_time="2024-02-02T06:00:00Z"))
    third = _results(assay.run(str(config), spark=spark, run_time="2024-02-03T06:00:00Z"))
    assert [first[0]["metric_value"], first[1]["metric_value"]] == [30, 30]
    assert [second[0]["metric_value"], second[1]["metric_value"]] == [50, 20]
    assert (second[0]["scope"], second[1]["scope"], second[2]["scope"]) == ("table", "new", "new")
    day2 = spark.sql(f"SELECT sum(qty) FROM parquet.`{data}` WHERE day = '2024-01-02'")
    assert second[2]["metric_value"] == day2.collect()[0][0]
    # nothing new: the whole table passes, the new data has no row
    assert (third[0]["metric_value"], third[0]["passed"]) == (50, True)
    assert (third[1]["metric_value"], third[1]["passed"]) == (0, False)
    assert third[2]["metric_value"] is None


def test_scope_new_needs_an_incremental_table(spark, tmp_path):
    _day(spark, tmp_path / "data", 1, 5)
    config = tmp_path / "c.yaml"
    config.write_text(
        f"tables:\n  - source: {{path: {tmp_path / 'data'}, format: parquet}}\n    rules:\n"
        "      - {type: row_count, scope: new, must_be: '> 0'}\n"
    )
    with pytest.raises(ConfigErrors) as raised:
        assay.run(str(config), spark=spark)
    (error,) = raised.value.errors
    assert "not incremental" in error.message and error.origin.path.endswith("rules[0].scope")


def test_the_states_in_a_table_store(spark, tmp_path):
    """The states in a catalog table store: read by one plan, merged as a file's are."""
    table = "assay_test_incremental_states"
    spark.sql(f"DROP TABLE IF EXISTS {table}").collect()
    data = tmp_path / "data"
    config = tmp_path / "c.yaml"
    config.write_text(
        f"metrics: {{table: {table}}}\n"
        f"tables:\n  - name: t\n    source: {{path: {data}, format: parquet}}\n"
        "    incremental: {by: day}\n    rules:\n"
        "      - {type: row_count, must_be: '> 0'}\n"
        "      - {type: sum, column: amount, must_be: '> -1000000'}\n"
    )
    totals = []
    for day, rows in ((1, 30), (2, 20)):
        _day(spark, data, day, rows)
        result = assay.run(str(config), spark=spark, run_time=f"2024-02-0{day}T06:00:00Z")
        assert _scanned(_table(result)) == [f"2024-01-0{day}"]
        totals.append([r["metric_value"] for r in _results(result).values()])
    whole = spark.sql(f"SELECT count(*), sum(amount) FROM parquet.`{data}`").collect()[0]
    assert totals[1][0] == 50 and Decimal(str(totals[1][1])) == whole[1]
    stored = spark.sql(f"SELECT count(*) FROM {table} WHERE measure = 'state'").collect()[0][0]
    # run 1: its partition, its 2 rules' states and a baseline; run 2: its new partition's
    assert stored == (1 + 2 + 1) + (1 + 2)
    spark.sql(f"DROP TABLE IF EXISTS {table}").collect()


def test_a_catalog_table_is_fingerprinted_by_its_rows(spark, tmp_path):
    """A source without a file listing (a catalog table): each partition's rows counted
    and hashed (every row read), only the changed partitions aggregated."""
    table = "assay_test_incremental_catalog"
    spark.sql(f"DROP TABLE IF EXISTS {table}").collect()
    data = tmp_path / "data"
    _day(spark, data, 1, 30)
    spark.read.parquet(str(data)).write.partitionBy("day").saveAsTable(table)
    config = tmp_path / "c.yaml"
    rules = "      - {type: row_count, must_be: '> 0'}\n      - {type: avg, column: x, must_be: '> -1000'}\n"
    config.write_text(
        f"metrics: {{path: {tmp_path / 'm.jsonl'}}}\n"
        f"tables:\n  - name: t\n    source: {{table: {table}}}\n"
        f"    incremental: {{by: day}}\n    rules:\n{rules}"
    )
    first = assay.run(str(config), spark=spark, run_time="2024-02-01T06:00:00Z")
    _day(spark, data, 2, 20)
    spark.read.parquet(str(data)).where("day = '2024-01-02'").write.insertInto(table)
    second = assay.run(str(config), spark=spark, run_time="2024-02-02T06:00:00Z")
    assert _scanned(_table(first)) == ["2024-01-01"] and _scanned(_table(second)) == ["2024-01-02"]
    whole = spark.sql(f"SELECT count(*), avg(x) FROM {table}").collect()[0]
    values = [r["metric_value"] for r in _results(second).values()]
    assert values[0] == whole[0] and math.isclose(values[1], whole[1], rel_tol=1e-12)
    spark.sql(f"DROP TABLE IF EXISTS {table}").collect()


def test_a_distinct_count_across_partitions_is_sketched_and_says_so(spark, server, tmp_path):
    """A distinct count of a column other than the partition's (values repeat across
    partitions): each partition's HLL sketch stored, unioned on the client; the result is
    ``exact: false`` with its bounds, which hold the full scan's exact count."""
    data = tmp_path / "data"
    rules = (
        "      - {type: distinct_count, column: note, must_be: '> 0'}\n"
        "      - {type: distinct_count, column: qty, must_be: '> 0', filter: 'id > 3'}\n"
        "      - {type: distinct_count, column: amount, scope: new, must_be: '>= 0'}\n"
        "      - {type: row_count, must_be: '> 0'}\n"
    )
    configs = {}
    for name, spec in (("inc", "    incremental: {by: day}\n"), ("full", "")):
        configs[name] = tmp_path / f"{name}.yaml"
        configs[name].write_text(
            f"metrics: {{path: {tmp_path / (name + '.jsonl')}}}\n"
            f"tables:\n  - name: t\n    source: {{path: {data}, format: parquet}}\n"
            f"{spec}    rules:\n{rules if spec else rules.replace(' scope: new,', '')}"
        )
    for day, rows in ((1, 300), (2, 500), (3, 400)):
        _day(spark, data, day, rows, seed=day)
        got, _ = _run(spark, server, configs["inc"], day)
        want, _ = _run(spark, server, configs["full"], day)
        mine, theirs = _results(got), _results(want)
        assert _scanned(_table(got)) == [f"2024-01-0{day}"]
        for index in (0, 1):
            result = mine[index]
            validate_event(result)
            assert (result["scope"], result["exact"]) == ("table", False)
            bounds, exact = result["estimate"], theirs[index]["metric_value"]
            assert bounds["lower"] <= exact <= bounds["upper"], (day, index, bounds, exact)
            assert abs(result["metric_value"] - exact) <= 0.05 * exact
        new = mine[2]
        assert (new["scope"], new["exact"]) == ("new", False)
        day_only = spark.sql(
            f"SELECT count(DISTINCT amount) FROM parquet.`{data}` WHERE day = '2024-01-0{day}'"
        ).collect()[0][0]
        assert new["estimate"]["lower"] <= day_only <= new["estimate"]["upper"]
        assert (mine[3]["exact"], "estimate" not in mine[3]) == (True, True)


def test_a_distinct_count_of_two_columns_without_the_partition_is_refused(spark, tmp_path):
    data = tmp_path / "data"
    _day(spark, data, 1, 10)
    config = tmp_path / "c.yaml"
    config.write_text(
        f"metrics: {{path: {tmp_path / 'm.jsonl'}}}\n"
        f"tables:\n  - source: {{path: {data}, format: parquet}}\n"
        "    incremental: {by: day}\n    rules:\n"
        "      - {type: distinct_count, columns: [note, qty], must_be: '> 0'}\n"
    )
    with pytest.raises(ConfigErrors) as raised:
        assay.run(str(config), spark=spark)
    (error,) = raised.value.errors
    assert "may span partitions" in error.message


GROWTH_RULES = """
      - {type: row_count, must_be: "> 0"}
      - {type: range, name: qty_range, column: qty, min: 0, max: 1000}
      - {type: sum, column: amount, must_be: "> -1000000000"}
      - {type: avg, column: x, must_be: "> -1000000000"}
      - {type: stddev, column: x, must_be: ">= 0"}
      - {type: max, column: qty, must_be: "< 1000"}
"""
DAYS = 10
"""Enough runs for a store growing with every run's partitions (DAYS * (DAYS + 1) / 2
states per rule) to differ from one growing with the new ones (DAYS), and for both ways
of aggregating a key holding the partition column (a run scanning over 1/FEW of the
partitions, and at most that: executor/stages/incremental.py)."""


def _growth_config(path: Path, data: Path, store: str, rules: str = GROWTH_RULES) -> Path:
    spec = "    incremental: {by: day}\n" if "inc" in path.name else ""
    path.write_text(
        f"metrics: {store}\n"
        f"tables:\n  - name: t\n    source: {{path: {data}, format: parquet}}\n"
        f"{spec}    rules:{rules}"
    )
    return path


def _growth_days(spark, target: Path, days: int, rows: int, seed: int = 0) -> None:
    """``days`` daily partitions of ``rows`` rows each, written at once (hive layout)."""
    spark.sql(f"""
        SELECT CAST(id * ({seed} + 7) % 97 AS INT) AS qty,
               CASE WHEN id % 11 = 5 THEN NULL ELSE CAST(id AS DOUBLE) * 1.37 + {seed} END AS x,
               CAST(CAST(id AS DECIMAL(38, 18)) / 7 - {seed} AS DECIMAL(38, 18)) AS amount,
               date_format(date_add(DATE'2024-01-01', CAST(id % {days} AS INT)), 'yyyy-MM-dd')
                   AS day
        FROM range({days * rows})""").write.partitionBy("day").parquet(str(target))


def _state_rows(spark, store: str) -> list[dict]:
    """The state rows of the store (a file's lines, or a table's rows)."""
    if store.startswith("{path"):
        path = store.split(": ", 1)[1].rstrip("}")
        rows = [json.loads(line) for line in Path(path).read_text().splitlines()]
        return [r for r in rows if r["measure"] == "state"]
    table = store.split(": ", 1)[1].rstrip("}")
    got = spark.sql(f"SELECT rule, columns FROM {table} WHERE measure = 'state'").collect()
    return [r.asDict() for r in got]


@pytest.mark.parametrize("backend", ["file", "table"])
def test_each_run_stores_the_states_of_what_it_scanned_only(spark, tmp_path, backend):
    """DAYS runs, each adding a partition, store DAYS states per rule in all (not
    DAYS * (DAYS + 1) / 2), read back per partition across the runs; then a late, a
    rewritten and a deleted partition, and a rule changed under the same name (its
    digest): after each, every result equals a full scan's."""
    store_table = "assay_test_incremental_growth"
    spark.sql(f"DROP TABLE IF EXISTS {store_table}").collect()
    store = (
        f"{{path: {tmp_path / 'inc.jsonl'}}}" if backend == "file" else f"{{table: {store_table}}}"
    )
    staging, data = tmp_path / "staging", tmp_path / "data"
    _growth_days(spark, staging, DAYS, 20)
    data.mkdir()
    inc = _growth_config(tmp_path / "inc.yaml", data, store)
    full = _growth_config(tmp_path / "full.yaml", data, f"{{path: {tmp_path / 'full.jsonl'}}}")
    step = 0

    def check(expect: list[str], inc: Path = inc, full: Path = full) -> None:
        nonlocal step
        step += 1
        when = f"2024-03-01T00:{step // 60:02d}:{step % 60:02d}Z"
        got = assay.run(str(inc), spark=spark, run_time=when)
        assert sorted(_scanned(_table(got))) == sorted(expect), step
        if expect and step < DAYS:
            return  # the whole table compared after the growth and each change
        want = assay.run(str(full), spark=spark, run_time=when)
        mine, theirs = _results(got), _results(want)
        for index in mine:
            _same(mine[index], theirs[index])

    days = sorted(p.name for p in staging.iterdir() if p.name.startswith("day="))
    for name in days:
        shutil.move(str(staging / name), str(data / name))
        check([name[4:]])
    per_rule: dict[str, int] = {}
    for row in _state_rows(spark, store):
        per_rule[row["rule"]] = per_rule.get(row["rule"], 0) + 1
    assert per_rule.pop("(table)") == DAYS + 1  # a fingerprint per partition, the baseline
    assert len(per_rule) == len(GROWTH_RULES.strip().splitlines()), per_rule
    assert set(per_rule.values()) == {DAYS}, per_rule
    check([])  # nothing new: every partition's state merged across the DAYS runs
    late = tmp_path / "late"
    _growth_days(spark, late, 1, 15, seed=3)
    (late_day,) = [p for p in late.iterdir() if p.name.startswith("day=")]
    shutil.move(str(late_day), str(data / "day=2023-12-31"))
    check(["2023-12-31"])  # a late partition
    rewritten = tmp_path / "rewritten"
    _growth_days(spark, rewritten, 1, 30, seed=5)
    shutil.rmtree(data / days[3])
    shutil.move(str(next(rewritten.glob("day=*"))), str(data / days[3]))
    check([days[3][4:]])  # a rewritten partition
    shutil.rmtree(data / days[7])
    check([])  # a deleted partition
    check([])  # still gone: its states are not read back
    changed = GROWTH_RULES.replace("max: 1000}", "max: 50}")  # qty_range: same identity
    inc2 = _growth_config(tmp_path / "inc2.yaml", data, store, changed)
    full2 = _growth_config(tmp_path / "full2.yaml", data, f"{{path: {tmp_path / 'f2.jsonl'}}}",
                           changed)  # fmt: skip
    every = sorted(p.name[4:] for p in data.iterdir() if p.name.startswith("day="))
    check(every, inc2, full2)  # its stored states measure another range: all rescanned
    check([], inc2, full2)
    check([], inc2, full2)
    spark.sql(f"DROP TABLE IF EXISTS {store_table}").collect()


def test_explain_json_says_what_a_run_scans_and_merges(tmp_path):
    """``assay explain --format json``: the plan line of an incremental table holds its
    partition column, the plans, what a run scans and merges, and each measure's merge
    with the rules judged on it (no Spark)."""
    config = tmp_path / "c.yaml"
    config.write_text(
        f"metrics: {{path: {tmp_path / 'm.jsonl'}}}\n"
        f"tables:\n  - name: t\n    source: {{path: {tmp_path / 'data'}, format: parquet}}\n"
        "    incremental: {by: day}\n    rules:\n"
        "      - {type: avg, column: x, must_be: '> 0'}\n"
        "      - {type: distinct_count, column: note, must_be: '> 0'}\n"
        "      - {type: row_count, scope: new, must_be: '> 0'}\n"
    )
    shown = subprocess.run(
        [sys.executable, "-m", "assay", "explain", str(config), "--format", "json"],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    (plan,) = [json.loads(line) for line in shown if '"event":"plan"' in line.replace(" ", "")]
    validate_event(plan)
    said = plan["plan"]["incremental"]
    assert said["by"] == "day" and said["plans"]["fingerprint"] == 1
    assert "fingerprint" in said["scans"] and "newest stored state" in said["merges"]
    kinds = {m["measure"]: (m["partials"], m["exact"], m["rules"]) for m in said["measures"]}
    assert kinds["avg(x)"] == (["s", "n"], True, [0])
    assert [m for m in said["measures"] if not m["exact"]][0]["rules"] == [1]
    assert said["scope_new"] == [2]

"""A DataFrame handed to ``assay.validate`` is planned from what the server's optimized
plan says of it: split into column branches when it reads parquet or orc (as a parquet
path is), one branch when every branch would recompute it (a CSV, a join); and the split
gives exactly what the single branch gives, on data built to break it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from assay.api.suites import over_dataframe, rules_suite
from assay.emit.statistics import scan_facts
from assay.executor.prepare import planned
from assay.executor.run import run_suite
from assay.planner.cost import PlannerOptions

pytestmark = pytest.mark.spark

ROWS = [
    (1, 1.5, "ann", Decimal("1.10")),
    (2, float("nan"), "bob", None),
    (3, None, None, Decimal("-2.00")),
    (3, float("inf"), "ünï", Decimal("99999999.99")),
    (5, -1.0, "", Decimal("0.00")),
]
SCHEMA = "id long, x double, name string, price decimal(10,2)"
RULES: list[dict[str, Any]] = [
    {"type": "not_null", "column": "x"},
    {"type": "range", "column": "x", "min": 0, "max": 10},
    {"type": "not_null", "column": "name", "filter": "id > 1"},
    {"type": "regex", "column": "name", "pattern": "^[a-z]+$"},
    {"type": "avg", "column": "price", "must_be": "> 0"},
    {"type": "max", "column": "x", "must_be": "< 100"},
    {"type": "distinct_count", "column": "id", "must_be": "= 5"},
    {"type": "unique", "columns": ["id"]},
    {"type": "missing_percent", "column": "price", "must_be": "< 10%"},
    {"type": "row_count", "must_be": "between 1 and 10"},
]
# every table counts as large and a branch holds at most 3 outputs
SPLIT_SMALL = PlannerOptions(split_min_bytes=0, max_outputs=3)


@pytest.fixture(scope="module")
def frames(spark, tmp_path_factory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("facts")
    df = spark.createDataFrame(ROWS, SCHEMA)
    df.write.parquet(str(base / "p"))
    df.write.orc(str(base / "o"))
    df.select("id", "x", "name").write.option("header", True).csv(str(base / "c"))
    parquet = spark.read.parquet(str(base / "p"))
    cached = parquet.where("id >= 0").cache()  # only plans holding this filter read the cache
    yield {
        "parquet": parquet,
        "parquet filtered": parquet.where("id < 100").select("id", "x", "name", "price"),
        "orc": spark.read.orc(str(base / "o")),
        "sql over parquet": spark.sql(f"SELECT * FROM parquet.`{Path(base, 'p')}`"),
        "cached": cached,
        "csv": spark.read.option("header", True)
        .schema("id long, x double, name string")
        .csv(str(base / "c")),
        "join": parquet.join(spark.createDataFrame([(1,), (3,)], "id long"), "id"),
        "aggregate": parquet.groupBy("id").count(),
    }
    cached.unpersist()


@pytest.mark.parametrize(
    ("name", "columnar"),
    [("parquet", True), ("parquet filtered", True), ("orc", True), ("sql over parquet", True),
     ("cached", True), ("csv", False), ("join", False), ("aggregate", False)],
)  # fmt: skip
def test_the_server_says_whether_a_frame_prunes_columns(frames, name: str, columnar: bool) -> None:
    facts = scan_facts(frames[name])
    assert facts.columnar is columnar
    assert facts.size_bytes is not None and facts.size_bytes > 0


def _plan(spark, df, options: PlannerOptions):
    suite = over_dataframe(rules_suite(RULES, keys=["id"]), None, "f")
    schema = [(f.name, f.dataType.simpleString()) for f in df.schema.fields]
    plan, _ = planned(spark, suite.tables[0], df, schema, options)
    return plan


def _results(spark, df, options: PlannerOptions) -> list[tuple[Any, ...]]:
    suite = over_dataframe(rules_suite(RULES, keys=["id"]), None, "f")
    events: list[Any] = []
    run_suite(suite, spark, events.append, options=options, frames={"f": df})
    found = [e for e in events if type(e).__name__ == "RuleResult"]
    assert len(found) == len(RULES) and not [e for e in found if e.severity == "error"]
    return [(e.rule_index, e.passed, e.failed_count, e.row_count, str(e.metric_value))
            for e in sorted(found, key=lambda e: e.rule_index)]  # fmt: skip


def test_a_columnar_frame_is_split_and_answers_as_one_branch(spark, frames) -> None:
    parquet = frames["parquet"]
    split = _plan(spark, parquet, SPLIT_SMALL)
    assert len(split.aggregate.scans) > 2
    single = dataclasses.replace(SPLIT_SMALL, strategy="single")
    assert len(_plan(spark, parquet, single).aggregate.scans) == 1
    assert len(_plan(spark, frames["join"], SPLIT_SMALL).aggregate.scans) == 1
    expected = _results(spark, parquet, single)
    assert expected[0][1:3] == (False, 1)  # the null x: the data breaks what it should
    assert _results(spark, parquet, SPLIT_SMALL) == expected
    assert _results(spark, frames["sql over parquet"], SPLIT_SMALL) == expected

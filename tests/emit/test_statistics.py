"""Reading the optimizer's view of a source from ``explain("cost")`` text (pure): the
texts are Spark 4.3's, trimmed; the same reading of live plans is in
tests/integration/test_scan_facts.py."""

from __future__ import annotations

import pytest

from assay.emit.statistics import ScanFacts, read_plan


def explained(*optimized: str) -> str:
    return (
        "== Parsed Logical Plan ==\nwhatever, Statistics(sizeInBytes=8.0 EiB)\n\n"
        "== Optimized Logical Plan ==\n" + "\n".join(optimized) + "\n\n"
        "== Physical Plan ==\n*(1) ColumnarToRow\n"
    )


PARQUET = "Relation [l_orderkey#29L,l_quantity#33] parquet, Statistics(sizeInBytes=220.9 MiB)"


@pytest.mark.parametrize(
    ("lines", "columnar"),
    [
        ([PARQUET], True),
        (
            ["Relation spark_catalog.default.t1[a#93] parquet, Statistics(sizeInBytes=445.0 B)"],
            True,
        ),
        (["Relation [id#64L] orc, Statistics(sizeInBytes=476.0 B)"], True),
        (["Relation [_c0#83] csv, Statistics(sizeInBytes=20.0 B)"], False),
        (["Relation [id#91L] json, Statistics(sizeInBytes=90.0 B)"], False),
        (
            [
                "Project [l_quantity#50], Statistics(sizeInBytes=19.6 MiB)",
                "+- Filter (isnotnull(l_quantity#50) AND (l_quantity#50 > 3.00)), Statistics(sizeInBytes=220.9 MiB)",
                "   +- " + PARQUET,
            ],
            True,
        ),
        (
            [
                "Project [l_orderkey#124L], Statistics(sizeInBytes=3.5 GiB)",
                "+- Join Inner, (l_orderkey#124L = l_orderkey#143L), Statistics(sizeInBytes=3.5 GiB)",
                "   :- Filter isnotnull(l_orderkey#124L), Statistics(sizeInBytes=220.9 MiB)",
                "   :  +- " + PARQUET,
                "   +- LocalRelation [l_orderkey#143L], Statistics(sizeInBytes=16.0 B, rowCount=1)",
            ],
            False,  # every branch would repeat the join
        ),
        (
            [
                "Union false, false, Statistics(sizeInBytes=19.6 MiB)",
                ":- " + PARQUET,
                "+- Relation [id#162L] orc, Statistics(sizeInBytes=476.0 B)",
            ],
            True,
        ),
        (
            [
                "Aggregate [a#1], [a#1, count(1) AS n#2L], Statistics(sizeInBytes=1.0 MiB)",
                "+- " + PARQUET,
            ],
            False,
        ),
        (["LocalRelation [a#119, b#120], Statistics(sizeInBytes=32.0 B, rowCount=1)"], True),
        (
            [
                "Project [a#1]",
                "+- InMemoryRelation [a#1], StorageLevel(disk, memory, deserialized, 1 replicas)",
                "      +- *(1) ColumnarToRow",
                "         +- FileScan csv [a#1] Batched: false, Format: CSV",
            ],
            True,  # a cached frame is read from the cache, column by column
        ),
        (
            [
                "Join Inner, (a#1 = a#2)",
                ":- InMemoryRelation [a#1], StorageLevel(disk, memory, deserialized, 1 replicas)",
                ":     +- *(1) Scan ExistingRDD[a#1]",
                "+- " + PARQUET,
            ],
            False,
        ),
        (["RelationV2[a#1] local.db.t local.db.t, Statistics(sizeInBytes=1.0 KiB)"], None),
        (["Project [a#1]", "+- RelationV2[a#1] local.db.t local.db.t"], None),
        (["Project [a#1]", "+- Relation [a#1] csv", "+- RelationV2[a#1] local.db.t"], False),
    ],
)
def test_columnar_is_read_from_the_optimized_plan(lines: list[str], columnar: bool | None) -> None:
    assert read_plan(explained(*lines)).columnar is columnar


def test_size_is_the_largest_estimate_of_the_optimized_plan() -> None:
    facts = read_plan(explained("Project [a#1], Statistics(sizeInBytes=19.6 MiB)", "+- " + PARQUET))
    assert facts.size_bytes == int(220.9 * 2**20)
    # Spark's "unknown" (8 EiB) is no estimate; nothing readable is no fact at all
    assert read_plan(explained("Range (0, 10), Statistics(sizeInBytes=8.0 EiB)")).size_bytes is None
    assert read_plan("not a plan") == ScanFacts(None, None)

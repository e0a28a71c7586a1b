"""The length of a string column computed from its bytes where a run of one ASCII class
matches it (``Length.ascii_run``, :func:`assay.planner.regex_runs.lengths_by_bytes`) is
exactly Spark's ``length``, row by row, computed by Spark: on every ASCII character
alone, strings ending in each line terminator Java's ``$`` accepts (the three longer in
bytes than in characters among them), two terminators, one inside, non-ASCII characters
of two, three and four bytes, bytes that are not UTF-8, the empty string and null, for
every class-run pattern of tests/integration/test_class_runs.py. Through the executor, a
suite of length rules beside class-run regexes answers as with
``PlannerOptions(class_runs=False)``, its lengths computed by bytes."""

from __future__ import annotations

import dataclasses

import pytest

from assay.config import load_suite
from assay.executor.run import run_suite
from assay.planner.cost import DEFAULT_OPTIONS
from tests.helpers import Collect, write_config
from tests.integration.test_class_runs import RUN_PATTERNS, RUN_TRICKY, TERMINATORS

pytestmark = pytest.mark.spark

LENGTH_TRICKY = [
    *RUN_TRICKY,
    *(w + t for w in ("abc", "x" * 44, "Hello, world!") for t in TERMINATORS),
    *(t + "abc" for t in TERMINATORS),
    "abc\u2028\u2028", "abc\u0085\u0085", "\u0085", "\u2028", "\u2029", "abc\u00e9\n",
    "\U0001f600\n", "a\u0085b", "12345\u2029", "  ", " ", "a" * 1000, "a" * 1000 + "\u2029",
]  # fmt: skip
NOT_UTF8 = [b"\xc3", b"abc\xc3", b"abc\xe2\x80", b"\xff\xfe", b"abc\x85", b"abc\xe2\x80\xa8\xa8"]
"""Bytes Spark holds as a string without checking them (a cast of a binary value)."""


def test_lengths_by_bytes_answer_as_length_row_by_row(spark):
    from pyspark.sql.connect import functions as F

    from assay.emit.columns import column
    from assay.ir import Col
    from assay.ir.expr import Length

    rows = [(s, None) for s in LENGTH_TRICKY] + [(None, b) for b in NOT_UTF8]
    df = spark.createDataFrame(rows, "s string, b binary").select(
        F.coalesce(F.col("s"), F.col("b").cast("string")).alias("a")
    )
    outputs = []
    for n, pattern in enumerate(RUN_PATTERNS):
        by_bytes = column(Length(Col("a"), pattern))
        outputs.append(F.count_if(~F.length("a").eqNullSafe(by_bytes)).alias(f"d{n}"))
        outputs.append(F.count_if(F.col("a").rlike(pattern)).alias(f"r{n}"))
    row = df.agg(*outputs, F.count_if(F.col("a").isNull()).alias("nulls")).collect()[0]
    differing = {p: row[f"d{n}"] for n, p in enumerate(RUN_PATTERNS) if row[f"d{n}"]}
    assert differing == {}
    assert row["nulls"] == 1
    # the bytes were taken where the regex matched, values ending in each terminator among them
    matched = {p: row[f"r{n}"] for n, p in enumerate(RUN_PATTERNS)}
    assert matched["^[A-Za-z0-9 ,.;:!?'-]{1,44}$"] > 3 * len(TERMINATORS)


def _suite(tmp_path, data: str):
    rules = [
        "{type: regex, column: c, pattern: '^[a-z]{1,3}$'}",
        "{type: regex, column: c, pattern: '^[a-z]{2,}$'}",
        "{type: length, column: c, min: 1, max: 3}",
        "{type: length, column: c, min: 2}",
        "{type: length, column: c, max: 4, filter: 'id % 2 = 0'}",
        "{type: length, column: d, min: 1, max: 3}",
        "{type: regex, column: d, pattern: '^[a-z]+$'}",
        "{type: length, column: e, min: 1, max: 3}",
    ]
    body = "\n".join(f"      - {r}" for r in rules)
    text = f"tables:\n  - name: t\n    source: {{path: '{data}'}}\n    keys: [id]\n    rules:\n{body}\n"
    return load_suite([write_config(tmp_path, text)])


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("length_by_bytes") / "t.parquet")
    rows = [(i, s, s, s) for i, s in enumerate(LENGTH_TRICKY)]
    spark.createDataFrame(rows, "id long, c string, d string, e string").write.parquet(path)
    return path


def _answers(spark, suite, options) -> list[dict]:
    sink = Collect()
    run_suite(suite, spark, sink, options=options)
    keep = ("passed", "failed_count", "row_count", "samples", "error")
    return [{k: r.get(k) for k in keep} for r in sink.results]


def test_a_suite_of_lengths_beside_class_runs_answers_as_written(server, data, tmp_path):
    from assay.executor.prepare import planned, read_source
    from assay.ir.expr import Length, walk

    suite = _suite(tmp_path, data)
    plain = dataclasses.replace(DEFAULT_OPTIONS, class_runs=False)
    by_bytes = _answers(server.spark, suite, DEFAULT_OPTIONS)
    assert by_bytes == _answers(server.spark, suite, plain)
    assert not any(r["error"] for r in by_bytes)
    assert all(r["failed_count"] for r in by_bytes)

    (table,) = suite.tables
    read = read_source(server.spark, table)
    assert isinstance(read, tuple)
    plan, _ = planned(server.spark, table, *read, DEFAULT_OPTIONS)
    assert plan.aggregate is not None
    by_rule = {i: s.form for scan in plan.aggregate.scans for s in scan.slots for i in s.rules}
    runs = {i: {n.ascii_run for n in walk(by_rule[i].predicate) if isinstance(n, Length)}
            for i in (2, 3, 4, 5, 7)}  # fmt: skip
    # c's lengths read the run its regexes share, d's its lone `+` as written; e has no regex
    assert runs == {2: {"^[abcdefghijklmnopqrstuvwxyz]*$"}, 3: {"^[abcdefghijklmnopqrstuvwxyz]*$"},
                    4: {"^[abcdefghijklmnopqrstuvwxyz]*$"}, 5: {"^[a-z]+$"}, 7: {None}}  # fmt: skip

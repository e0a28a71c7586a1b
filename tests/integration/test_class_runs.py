"""Regexes that are a run of one ASCII class (``^[A-Za-z0-9 ,.]{1,44}$``, ``^\\d{5}$``),
answered from the unbounded run of the class and the value's bytes before a final line
terminator (:func:`assay.planner.regex_runs.run_by_bytes`), give exactly what RLIKE gives as
written, row by row, computed by Spark: on every ASCII character alone, strings ending
in each line terminator Java's ``$`` accepts (and in two of them, or one in the middle),
lengths one under, at and over each bound with and without a terminator, non-ASCII
characters (two, three and four bytes), the empty string and null. Through the executor,
a suite of such rules answers as with ``PlannerOptions(class_runs=False)``, its rules
sharing one regex per row. (A collated column, where Spark's regexes ignore case and
``k`` finds the Kelvin sign's three bytes, keeps its regexes as written:
tests/planner/test_regex.py.)"""

from __future__ import annotations

import dataclasses

import pytest

from assay.config import load_suite
from assay.executor.run import run_suite
from assay.planner.cost import DEFAULT_OPTIONS
from tests.helpers import Collect, write_config

pytestmark = pytest.mark.spark

TERMINATORS = ["\n", "\r\n", "\r", "\u0085", "\u2028", "\u2029"]
RUN_PATTERNS = [
    "^[A-Za-z0-9 ,.;:!?'-]{1,44}$", "^[a-z]{2,5}$", "^[a-z]+$", "^[a-z]*$", "^[a-z]?$",
    "^[a-z]{3}$", "^[a-z]{0}$", "^[a-z]{2,}$", r"^\d{5}$", r"^\d+$", r"^\w{1,3}$",
    "^[\t -~]{0,5}$", "^[ -~]+$", "^[\x01-\x09\x0b\x0c\x0e-\x7f]*$", "^[x]{44,45}$",
    "^[x]{45}$", "^[ka-c]{1,2}$", r"^[\-\.]{1,2}$",
]  # fmt: skip
RUN_TRICKY = [
    *(chr(c) for c in range(1, 0x80)),
    *(w + t for w in ("", "abc", "ab", "x" * 44, "12345", "a-b") for t in TERMINATORS),
    "abc\n\n", "abc\r\r\n", "abc\n\r", "abc\nx", "ab\rc", "\r\n\r\n", "abc\u0085\n",
    "abc", "abcd", "abcde", "abcdef", "ab", "a", "", None, "ABC", "aBc", "a b", "a1_",
    "12345", "1234", "123456", "x" * 43, "x" * 44, "x" * 45, "x" * 46, "x" * 45 + "\r\n",
    "\u00e9", "x\u00e9", "\u212a", "k\u212a", "\u0663", "\uff11", "\U0001f600", "x\U0001f600",
    "Hello, world!", "it's-a;test:yes?", "\t", "a\tb", "--", "-.", "k", "kc", "\x7f",
]  # fmt: skip


def test_runs_by_bytes_answer_as_rlike_row_by_row(spark):
    from pyspark.sql.connect import functions as F

    from assay.emit.columns import column
    from assay.ir import Col
    from assay.planner.regex_runs import run_by_bytes

    df = spark.createDataFrame([(s,) for s in RUN_TRICKY], "a string")
    outputs = []
    for n, pattern in enumerate(RUN_PATTERNS):
        form = run_by_bytes(Col("a"), pattern)
        assert form is not None, pattern
        as_written = F.col("a").rlike(pattern)
        outputs.append(F.count_if(as_written).alias(f"r{n}"))
        outputs.append(F.count_if(~as_written.eqNullSafe(column(form))).alias(f"d{n}"))
    row = df.agg(*outputs).collect()[0]
    differing = {p: row[f"d{n}"] for n, p in enumerate(RUN_PATTERNS) if row[f"d{n}"]}
    assert differing == {}
    matched = {p: row[f"r{n}"] for n, p in enumerate(RUN_PATTERNS)}
    # "abc" alone and followed by each terminator; not two terminators, nor "\n\r"
    assert matched["^[a-z]{3}$"] == 7
    assert min(matched.values()) > 0 and max(matched.values()) < len(RUN_TRICKY) - 1


def _suite(tmp_path, data: str):
    rules = [
        "{type: regex, column: c, pattern: '^[a-z]{1,3}$'}",
        "{type: regex, column: c, pattern: '^[a-z]{2,}$'}",
        "{type: regex, column: c, pattern: '^[a-z]+$'}",
        "{type: regex, column: c, pattern: '^[a-z]{1,3}$', filter: 'id % 2 = 0'}",
        "{type: length, column: c, min: 1, max: 3}",
        "{type: not_null, column: c}",
    ]
    body = "\n".join(f"      - {r}" for r in rules)
    text = f"tables:\n  - name: t\n    source: {{path: '{data}'}}\n    keys: [id]\n    rules:\n{body}\n"
    return load_suite([write_config(tmp_path, text)])


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("class_runs") / "t.parquet")
    rows = list(enumerate(RUN_TRICKY))
    spark.createDataFrame(rows, "id long, c string").write.parquet(path)
    return path


def _answers(spark, suite, options) -> list[dict]:
    sink = Collect()
    run_suite(suite, spark, sink, options=options)
    keep = ("passed", "failed_count", "row_count", "samples", "error")
    return [{k: r.get(k) for k in keep} for r in sink.results]


def test_a_suite_of_class_runs_answers_as_written(server, data, tmp_path):
    from assay.executor.prepare import planned, read_source
    from assay.ir.expr import Matches, walk

    suite = _suite(tmp_path, data)
    plain = dataclasses.replace(DEFAULT_OPTIONS, class_runs=False)
    runs = _answers(server.spark, suite, DEFAULT_OPTIONS)
    assert runs == _answers(server.spark, suite, plain)
    assert not any(r["error"] for r in runs)
    assert [r["passed"] for r in runs[:4]] == [False] * 4

    (table,) = suite.tables
    read = read_source(server.spark, table)
    assert isinstance(read, tuple)
    plan, _ = planned(server.spark, table, *read, DEFAULT_OPTIONS)
    assert plan.aggregate is not None
    by_rule = {i: s.form for scan in plan.aggregate.scans for s in scan.slots for i in s.rules}
    regexes = {i: {n.pattern for n in walk(by_rule[i].predicate) if isinstance(n, Matches)}
               for i in range(4)}  # fmt: skip
    # the four rules (one of them filtered) share one unbounded run of the class
    assert all(r == {"^[abcdefghijklmnopqrstuvwxyz]*$"} for r in regexes.values()), regexes

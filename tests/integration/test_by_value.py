"""Counts answered by value (a string column's rows grouped by value, each test run once
per distinct value: :mod:`assay.planner.values`) give exactly what the same rules give
in the scans (``PlannerOptions(by_value=False)``), computed by Spark on data built to
break it: values that differ only by a line terminator Java's ``$`` accepts, by case, by
Unicode normalization, by a trailing space; the empty string and null; a bound the data
breaks (an accepted_values rule failing on many distinct values); an empty table; a
collated column and a floating-point one, whose group-bys would merge values a test
tells apart (they keep their counts in the scans). Columns grouped together (their
combinations of values, :func:`assay.planner.values.joined`) give what each grouped
alone gives (``join_values=False``), distinct and duplicate counts included."""

from __future__ import annotations

import dataclasses

import pytest

from assay.config import load_suite
from assay.executor.run import run_suite
from assay.planner.cost import DEFAULT_OPTIONS
from tests.helpers import Collect, write_config

pytestmark = pytest.mark.spark

SPLIT = dataclasses.replace(DEFAULT_OPTIONS, strategy="split", max_outputs=4)
PLAIN = dataclasses.replace(SPLIT, by_value=False)
APART = dataclasses.replace(SPLIT, join_values=False)

# every value a test may tell apart from its neighbour, each on several rows
TRICKY = [
    None, "", "A", "a", "A\n", "A\r\n", "A\r", "A\u2028", "A\n\n", "AB", "AB ", " AB",
    "ABC", "\u00c9", "E\u0301", "\uff5a", "\U0001f642x", "R\u00c9G AIR", "x" * 40,
]  # fmt: skip
ROWS = [(i, TRICKY[(i * 7) % len(TRICKY)], (i % 5) - 2.0) for i in range(1, 400)]
ROWS += [(1000 + i, f"v{i}", -0.0 if i % 2 else 0.0) for i in range(300)]  # breaks the bound

RULES = [
    "{type: regex, column: c, pattern: '^[A-Z]+$'}",
    "{type: regex, column: c, pattern: '^[A-Z]{1,2}$'}",
    "{type: regex, column: c, pattern: '[a-z]'}",
    "{type: regex, column: c, pattern: '^\\p{L}+( \\p{Lu}+)?$'}",
    "{type: regex, column: c, pattern: '^(A|AB)$'}",
    "{type: accepted_values, column: c, values: [A, AB, ABC, '']}",
    "{type: accepted_values, column: c, values: [A, a]}",
    "{type: length, column: c, min: 1, max: 3}",
    "{type: not_null, column: c}",
    "{type: missing_percent, column: c, must_be: '< 5%'}",
    "{type: distinct_count, column: c, must_be: '<= 20'}",
    "{type: regex, column: c, pattern: '^A', filter: 'id % 3 = 0'}",
    "{type: expression, expression: \"c RLIKE '^[A-Z]'\"}",
    "{type: max, column: d, must_be: '<= 1'}",
    "{type: distinct_count, column: d, must_be: '<= 3'}",
    "{type: accepted_values, column: d, values: [0, 1, 2, -1, -2]}",
    "{type: not_null, column: l}",
    "{type: accepted_values, column: l, values: [a, ab]}",
    "{type: distinct_count, column: l, must_be: '<= 20'}",
]


def _config(tmp_path, source: str) -> object:
    body = "\n".join(f"      - {r}" for r in RULES)
    text = f"tables:\n  - name: t\n    source: {source}\n    keys: [id]\n    rules:\n{body}\n"
    return load_suite([write_config(tmp_path, text)])


def _answers(spark, suite, options) -> list[dict]:
    sink = Collect()
    run_suite(suite, spark, sink, options=options)
    keep = ("passed", "severity", "failed_count", "row_count", "metric_value", "samples", "error")
    return [{k: r.get(k) for k in keep} for r in sink.results]


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("by_value") / "t.parquet")
    spark.createDataFrame(ROWS, "id long, c string, d double").write.parquet(path)
    return path


def _source(data: str, where: str = "true") -> str:
    query = f"SELECT id, c, d, CAST(c AS STRING COLLATE UTF8_LCASE) AS l FROM parquet.`{data}`"
    return '{sql: "' + query + f' WHERE {where}"}}'


@pytest.mark.parametrize("where", ["true", "false", "id % 2 = 0"], ids=["all", "empty", "half"])
def test_counts_by_value_answer_as_the_scans(server, data, tmp_path, where):
    suite = _config(tmp_path, _source(data, where))
    by_value, plain = _answers(server.spark, suite, SPLIT), _answers(server.spark, suite, PLAIN)
    assert by_value == plain
    assert not any(r["error"] for r in plain), [r["error"] for r in plain if r["error"]]
    if where == "true":  # the data reaches every branch of every test
        assert {r["passed"] for r in plain} == {True, False}


def test_only_a_plain_string_column_is_answered_by_value(server, data, tmp_path):
    from assay.executor.prepare import planned, read_source

    suite = _config(tmp_path, _source(data))
    (table,) = suite.tables
    read = read_source(server.spark, table)
    assert isinstance(read, tuple)
    df, schema = read
    plan, _ = planned(server.spark, table, df, schema, SPLIT)
    assert plan.aggregate is not None
    (branch,) = plan.aggregate.values
    assert branch.columns == ("c",)
    moved = {i for s in branch.slots for i in s.rules}
    # the counts of c, its distinct count; not the filtered rule, the SQL text, d's max
    assert moved == set(range(11)), moved
    plain, _ = planned(server.spark, table, df, schema, PLAIN)
    assert plain.aggregate is not None and plain.aggregate.values == ()


def test_a_passing_table_is_still_one_plan(server, data, tmp_path):
    rules = [
        "{type: regex, column: c, pattern: '^.*$'}",
        "{type: accepted_values, column: c, values: [A, AB]}",
    ]
    text = (
        f"tables:\n  - name: t\n    source: {{path: '{data}'}}\n    filter: \"c IN ('A', 'AB')\"\n"
        "    rules:\n" + "\n".join(f"      - {r}" for r in rules) + "\n"
    )
    suite = load_suite([write_config(tmp_path, text)])
    before = server.sql_executions()
    sink = Collect()
    run_suite(suite, server.spark, sink, options=SPLIT)
    assert server.sql_executions() - before == 1
    assert [r["passed"] for r in sink.results] == [True, True]


# three string columns the suite bounds (2 x 3 x 4 values declared), each with nulls, the
# empty string and values differing by a terminator or a space; every combination is
# met, some values once (unique), the others on many rows; ``z`` breaks its bound
JOINT_ROWS = [
    (i, [None, "A", "A\n"][i % 3], [None, "", "x", "x "][i % 4], f"z{i % 5 if i < 200 else i}")
    for i in range(1, 260)
] + [(500, "B", "only", None), (501, None, None, "z0")]  # fmt: skip
JOINT_RULES = [
    "{type: accepted_values, column: a, values: [A, B]}",
    "{type: regex, column: a, pattern: '^[A-Z]$'}",
    "{type: distinct_count, column: a, must_be: '<= 2'}",
    "{type: duplicate_count, column: a, must_be: '= 0'}",
    "{type: accepted_values, column: b, values: ['', x, 'x ']}",
    "{type: regex, column: b, pattern: '^x$'}",
    "{type: length, column: b, min: 1, max: 1}",
    "{type: duplicate_percent, column: b, must_be: '< 50%'}",
    "{type: accepted_values, column: z, values: [z0, z1, z2, z3]}",
    "{type: regex, column: z, pattern: '^z[0-3]$'}",
    "{type: distinct_count, column: z, must_be: '<= 4'}",
    "{type: not_null, column: z}",
    "{type: distinct_count, column: b, must_be: '<= 4'}",
]


@pytest.fixture(scope="module")
def joint_data(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("by_value_joint") / "t.parquet")
    spark.createDataFrame(JOINT_ROWS, "id long, a string, b string, z string").write.parquet(path)
    return path


@pytest.mark.parametrize("where", ["true", "false", "id % 2 = 0"], ids=["all", "empty", "half"])
def test_columns_grouped_together_answer_as_grouped_alone(server, joint_data, tmp_path, where):
    from assay.executor.prepare import planned, read_source

    body = "\n".join(f"      - {r}" for r in JOINT_RULES)
    source = '{sql: "SELECT * FROM parquet.`' + joint_data + f'` WHERE {where}"}}'
    text = f"tables:\n  - name: t\n    source: {source}\n    keys: [id]\n    rules:\n{body}\n"
    suite = load_suite([write_config(tmp_path, text)])
    (table,) = suite.tables
    read = read_source(server.spark, table)
    assert isinstance(read, tuple)
    joint, _ = planned(server.spark, table, *read, SPLIT)
    apart, _ = planned(server.spark, table, *read, APART)
    assert joint.aggregate is not None and apart.aggregate is not None
    assert [v.columns for v in joint.aggregate.values] == [("a", "b", "z")]
    assert [v.columns for v in apart.aggregate.values] == [("a",), ("b",), ("z",)]
    together = _answers(server.spark, suite, SPLIT)
    assert together == _answers(server.spark, suite, APART) == _answers(server.spark, suite, PLAIN)
    assert not any(r["error"] for r in together), [r["error"] for r in together if r["error"]]
    if where == "true":
        assert {r["passed"] for r in together} == {True, False}
        metrics = [r["metric_value"] for r in together]
        a = [r[1] for r in JOINT_ROWS if r[1] is not None]
        z = {r[3] for r in JOINT_ROWS if r[3] is not None}
        shared = [v for v in a if a.count(v) > 1]  # rows sharing their value with another
        assert (metrics[2], metrics[3], metrics[10]) == (len(set(a)), len(shared), len(z))


@pytest.mark.parametrize("nulls", ["any", "none"])
def test_a_columns_group_statistics_over_combinations(server, joint_data, nulls):
    """Each column's groups, rows, rows in shared values and unique values, read from
    the combinations of three columns, are those of the column grouped alone (a null a
    value or not), on values met once, many times, and in one combination or several."""
    from assay.emit.spark import value_frame
    from assay.planner.measures import GroupStats
    from assay.planner.plan import Slot, ValueAggregate

    df = server.spark.read.parquet(joint_data)
    slots = tuple(Slot(f"g_{c}", GroupStats((c,), nulls), ()) for c in "abz")
    together = value_frame(df, ValueAggregate(("a", "b", "z"), slots)).collect()[0].asDict()
    alone: dict = {}
    for slot in slots:
        alone |= (
            value_frame(df, ValueAggregate(slot.measure.columns, (slot,))).collect()[0].asDict()
        )
    assert together == alone
    values = [r[1] for r in JOINT_ROWS if nulls == "none" or r[1] is not None]
    once = [v for v in set(values) if values.count(v) == 1]
    assert (alone["g_a_groups"], alone["g_a_rows"], alone["g_a_unique_rows"]) == (
        len(set(values)),
        len(values),
        len(once),
    )


# ``r`` has only cheap tests (membership, a regex of a finite language, which becomes one,
# a length, a null test): alone it stays in the scans; beside a column grouped by value it
# rides along (its bound of 3 keeps the combinations within the limit); ``m`` and ``d``
# are bounded too but collated and floating-point (a group-by would merge what their
# tests tell apart), ``w`` bounded by more values than the limit leaves
RIDER_ROWS = [
    (
        i,
        [None, "A", "A\n", "B"][i % 4],
        [None, "", "F", "F\n", "F\r\n", "O", "\u00c9", "E\u0301", "F\u2028", "O "][i % 10],
        ["F", "f", None][i % 3],
        [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, None][i % 6],
        f"w{i % 7}",
    )
    for i in range(1, 300)
]
RIDER_RULES = [
    "{type: regex, column: a, pattern: '^[A-Z]+$'}",
    "{type: accepted_values, column: a, values: [A, B]}",
    "{type: accepted_values, column: r, values: [F, O, '']}",
    "{type: accepted_values, column: r, values: [F, O]}",
    "{type: regex, column: r, pattern: '^(F|O)$'}",
    "{type: length, column: r, min: 1, max: 1}",
    "{type: not_null, column: r}",
    "{type: accepted_values, column: m, values: [F, O]}",
    "{type: accepted_values, column: d, values: [0, 1]}",
    "{type: accepted_values, column: w, values: [w0, w1, w2, w3, w4, w5]}",
]
RIDER_LIMIT = dataclasses.replace(SPLIT, value_max=20)


def test_a_column_with_cheap_tests_rides_along_a_grouped_one(server, spark, tmp_path):
    from assay.executor.prepare import planned, read_source

    path = str(tmp_path / "riders.parquet")
    schema = "id long, a string, r string, l string, d double, w string"
    spark.createDataFrame(RIDER_ROWS, schema).write.parquet(path)
    query = (
        f"SELECT id, a, r, CAST(l AS STRING COLLATE UTF8_LCASE) AS m, d, w FROM parquet.`{path}`"
    )
    body = "\n".join(f"      - {r}" for r in RIDER_RULES)
    text = f'tables:\n  - name: t\n    source: {{sql: "{query}"}}\n    keys: [id]\n    rules:\n{body}\n'
    suite = load_suite([write_config(tmp_path, text)])
    (table,) = suite.tables
    read = read_source(server.spark, table)
    assert isinstance(read, tuple)
    joint, _ = planned(server.spark, table, *read, RIDER_LIMIT)
    apart, _ = planned(
        server.spark, table, *read, dataclasses.replace(RIDER_LIMIT, join_values=False)
    )
    assert joint.aggregate is not None and apart.aggregate is not None
    assert [v.columns for v in joint.aggregate.values] == [("a", "r")]
    assert [v.columns for v in apart.aggregate.values] == [("a",)]
    ridden = _answers(server.spark, suite, RIDER_LIMIT)
    assert ridden == _answers(server.spark, suite, PLAIN)
    assert not any(r["error"] for r in ridden), [r["error"] for r in ridden if r["error"]]
    assert [r["passed"] for r in ridden][2:7] == [
        False
    ] * 5  # the rider's tests all fail on some rows

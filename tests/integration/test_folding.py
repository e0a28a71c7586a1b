"""Cost-shaped plans give the same answers as the plain ones, computed by Spark on real data:
SQL rules folded into the aggregate scan vs the same rules run as queries, uniqueness
shuffled by key vs Spark's default group-by, and samples ordered by key."""

from __future__ import annotations

import pytest

from assay.config import load_suite
from assay.errors import ConfigErrors
from assay.executor.run import run_suite
from tests.helpers import Collect, run_config, write_config

pytestmark = pytest.mark.spark

# b is null on every 7th row; a < b on rows where id % 5 == 0 (and b not null)
ROWS = [
    (i, i % 50, None if i % 7 == 0 else (i % 50) + (1 if i % 5 == 0 else -1), f"s{i % 3}")
    for i in range(1, 301)
]
A_LT_B = sum(1 for _, a, b, _ in ROWS if b is not None and a < b)


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("folding") / "t.parquet")
    spark.createDataFrame(ROWS, "id long, a int, b int, s string").write.parquet(path)
    return path


def write_parquet(spark, path, rows: list[tuple], schema: str) -> str:
    spark.createDataFrame(rows, schema).write.parquet(str(path))
    return str(path)


def config(path: str, rules: list[str]) -> str:
    body = "\n".join(f"      - {r}" for r in rules)
    return f"tables:\n  - name: t\n    source: {{path: '{path}'}}\n    keys: [id]\n    rules:\n{body}\n"


# Each folded rule next to the same question in a shape the folder leaves as a query.
PAIRS = [
    (
        "{type: sql, query: 'SELECT count(*) = 0 FROM _validation_df WHERE a < b'}",
        "{type: sql, query: 'SELECT count(*) = 0 FROM (SELECT * FROM _validation_df) x WHERE a < b'}",
    ),
    (
        "{type: sql, query: 'SELECT count(*) <= 100 FROM _validation_df WHERE a < b'}",
        "{type: sql, query: 'SELECT count(*) <= 100 FROM (SELECT * FROM _validation_df) x WHERE a < b'}",
    ),
    (
        "{type: sql, query: 'SELECT count(*) = 300 FROM _validation_df'}",
        "{type: sql, query: 'SELECT count(*) = 300 FROM (SELECT * FROM _validation_df) x'}",
    ),
    (
        "{type: sql, query: 'SELECT count(*) > 0 FROM _validation_df WHERE b IS NULL AND s = ''s1'''}",
        "{type: sql, query: 'SELECT count(*) > 0 FROM (SELECT * FROM _validation_df) x WHERE b IS NULL AND s = ''s1'''}",
    ),
    (
        "{type: custom_sql, failed_rows: 'SELECT * FROM _validation_df WHERE a < b'}",
        "{type: custom_sql, failed_rows: 'SELECT * FROM (SELECT * FROM _validation_df) x WHERE a < b'}",
    ),
]


def test_folded_sql_rules_answer_as_their_queries(server, data, tmp_path):
    folded = [f for f, _ in PAIRS]
    plain = [p for _, p in PAIRS]
    cfg = write_config(tmp_path, config(data, folded + plain))
    before = server.sql_executions()
    out = run_config(server.spark, cfg)
    assert server.sql_executions() - before == 1  # one aggregate plan, the queries joined in
    results = out.results
    n = len(PAIRS)
    for f, p in zip(results[:n], results[n:], strict=True):
        assert (f["severity"], f["failed_count"], f["message"]) == (
            p["severity"],
            p["failed_count"],
            p["message"],
        )
    assert [r["severity"] for r in results[:n]] == ["fail", "pass", "pass", "pass", "fail"]
    assert results[4]["failed_count"] == A_LT_B > 0


def test_plan_shows_which_rules_were_folded(data, tmp_path):
    from assay.planner import plan_table
    from assay.planner.render import render_plan

    suite = load_suite([write_config(tmp_path, config(data, [f for f, _ in PAIRS]))])
    plan = plan_table(suite.tables[0])
    assert [f.rule_index for f in plan.folded] == [0, 1, 2, 3, 4]
    assert plan.sql is None
    assert "rules[0], rules[1], rules[2], rules[3], rules[4]" in render_plan(plan)


def test_a_folded_condition_spark_rejects_is_reported_as_that_rules_error(spark, data, tmp_path):
    cfg = write_config(
        tmp_path,
        config(
            data,
            [
                "{type: sql, query: 'SELECT count(*) = 0 FROM _validation_df WHERE a < b'}",
                "{type: sql, query: 'SELECT count(*) = 0 FROM _validation_df WHERE no_such_column > 1'}",
            ],
        ),
    )
    with pytest.raises(ConfigErrors) as caught:
        run_suite(load_suite([cfg]), spark, Collect())
    [error] = caught.value.errors
    assert error.origin is not None and error.origin.path == "tables[0].rules[1]"
    assert "no_such_column" in str(error)


def test_uniqueness_shuffled_by_key_counts_exactly(spark, tmp_path):
    # 40 keys; key k appears (k % 4) + 1 times; a null key never counts
    rows = [(k, j) for k in range(40) for j in range(k % 4 + 1)] + [(None, 0), (None, 1)]
    path = str(tmp_path / "dups.parquet")
    spark.createDataFrame(rows, "k long, j int").write.parquet(path)
    cfg = write_config(
        tmp_path,
        "tables:\n  - name: d\n    source: {path: '"
        + path
        + "'}\n    keys: [k, j]\n    rules:\n      - {type: unique, column: k}\n",
    )
    out = run_config(spark, cfg)
    [result] = out.results
    duplicated_rows = sum(k % 4 + 1 for k in range(40) if k % 4 + 1 > 1)
    assert result["severity"] == "fail"
    assert result["failed_count"] == duplicated_rows == 90
    # samples: the first rows by key (k, j), the duplicated keys only
    assert result["samples"][:3] == [{"k": 1, "j": 0}, {"k": 1, "j": 1}, {"k": 2, "j": 0}]


def test_detail_per_rule_branches_sample_as_the_single_scan(spark, tmp_path):
    import dataclasses

    from assay.emit.detail import detail_frame
    from assay.emit.spark import source_frame
    from assay.planner import plan_detail, plan_table
    from assay.planner.cost import PlannerOptions

    # unique keys (samples are the same by both forms; ties are broken by the sampled
    # columns, which differ between them) and a null key
    rows = [(None if i == 37 else 1000 - i, i % 7, f"v{i % 11}") for i in range(400)]
    path = write_parquet(spark, tmp_path / "detail.parquet", rows, "id int, a int, s string")
    rules = [
        "{type: range, column: a, max: 4}",
        "{type: regex, column: s, pattern: '^v[0-5]$'}",
        "{type: unique, column: a}",
        "{type: not_null, column: id}",
    ]
    suite = load_suite([write_config(tmp_path, config(path, rules))])
    table = suite.tables[0]
    plan = plan_table(table)
    df = source_frame(spark, table.source, table.filter)
    failed = {0: 100, 1: 50, 2: 400, 3: 1}
    scan = plan_detail(plan, set(failed), ("id",), failed_rows=failed)
    options = PlannerOptions(detail_sort_rows=50, detail_rule_branches=2)
    mixed = plan_detail(plan, set(failed), ("id",), failed_rows=failed, options=options)
    options = PlannerOptions(detail_sort_rows=1)
    per_rule = plan_detail(plan, set(failed), ("id",), failed_rows=failed, options=options)
    assert scan is not None and mixed is not None and per_rule is not None
    assert scan.own_branch == ()
    # no key range to bound them: every rule over 50 rows has a branch of its own
    assert mixed.own_branch == (0, 1, 2)
    assert per_rule.own_branch == (0, 1, 2, 3)
    assert dataclasses.replace(per_rule, own_branch=()) == scan

    def samples(plan):
        got: dict[int, list[str]] = {}
        for row in detail_frame(df, plan).collect():
            got.setdefault(row["_assay_rule"], []).append(row["_assay_row"])
        return got

    by_scan, by_rule = samples(scan), samples(per_rule)
    assert by_scan == by_rule == samples(mixed)
    assert sorted(by_scan) == [0, 1, 2, 3]
    assert by_scan[3] == ['{"id":null}']
    # rule 0: a > 4, the first five by key (id ascending)
    bad = sorted((k, a) for k, a, _ in rows if a > 4 and k is not None)[:5]
    assert by_scan[0] == [f'{{"id":{k},"a":{a}}}' for k, a in bad]


LITERAL_PATTERNS = ["abc", "^abc", "abc$", "^abc$", "a.c", r"a\.c", "^", "$", "", "é", r"\$x"]
FINITE_PATTERNS = [
    "^[ANR]$", "^[ANR]{1,2}$", "^(F|O){1,1}$", "^(AIR|REG AIR)$", "(x|xy|zx)", "^(ab|b)",
    "(ab|b)$", "^a\r$", "a\r$", "^[a-c]?$", "^$", "[-.]x", "^(?:Y|N)$", "^[A-C]{2}$",
    "^a\\\\$", "^(a|)b?$",
    # top-level alternations: each alternative keeps its own anchors (`^A|B$` is
    # "starts with A or ends with B", not `^(A|B)$`)
    "^A|B$", "A|B$", "^A|B", "^AIR|RAIL$|^x", "^abc$|z", "^A$|^N$", "a|", "^F|O|^$",
]  # fmt: skip
TRICKY = [
    "abc", "xabc", "abcx", "abc\n", "abc\r\n", "abc\r", "abc\u0085", "abc\u2028", "abc\u2029",
    "abc\n\n", "abc\nx", "ABC", "", "a.c", "axc", "é", "$x", "x$x", "\nabc", None,
    "A", "N", "R", "AN", "RR", "X", "A\n", "N\u2028", "F", "O", "FO", "AIR", "REG AIR",
    "REG AIR\r\n", "AIR ", "xy", "zx", "z", "ab", "b", "bab", "a\r", "a\r\n", "a\r\r\n",
    "-x", ".x", "Y", "BC", "a\\", "a\\\n", "\n", "\r\n", "a", "c\r",
    "ABC", "xB", "zzz", "B\n", "xAB", "RAIL\r\n", "xRAIL", "AIRx",
]  # fmt: skip


def test_finite_regexes_answer_as_rlike(spark, tmp_path):
    """Every rewritten pattern (literal text, enum-like classes and alternations) counts
    exactly the rows RLIKE counts, on strings built to catch the `$` and line-terminator
    rules."""
    from pyspark.sql.connect import functions as F

    from assay.emit.columns import column
    from assay.ir import Col, Matches
    from assay.planner.regex import cheaper

    df = spark.createDataFrame([(s,) for s in TRICKY], "a string")
    outputs = []
    patterns = LITERAL_PATTERNS + FINITE_PATTERNS
    for n, pattern in enumerate(patterns):
        form = cheaper(Matches(Col("a"), pattern))
        assert isinstance(form, Matches) == (pattern == "a.c"), pattern  # the rest are rewritten
        outputs.append(F.count_if(F.col("a").rlike(pattern)).alias(f"r{n}"))
        outputs.append(F.count_if(column(form)).alias(f"c{n}"))
    row = df.agg(*outputs).collect()[0]
    for n, pattern in enumerate(patterns):
        assert row[f"c{n}"] == row[f"r{n}"], pattern
    assert row["r3"] == 7  # ^abc$: abc and abc + each of the six line terminators


CLASS_PATTERNS = [
    "^[A-Za-z0-9 ,.;:!?'-]{1,44}$", "[^a-c]", "^[^A-Z0-9_]+$", "[-a-c]", "[a-c-]x",
    r"[\]-a]", r"[\--/]", "[ -#]", "[é-ÿ]", "^[\t-\r]", "[\x00-\x1f]", "[\x7f-\xa0]+",
    "^[0-9a-fA-F]{8}-[0-9a-f]{4}$", "(?<=[a-c])[x-z]", "[a-c][x-z]|[0-1]$", r"\\[a-c]",
    "[^ -~]", "^[ -~]*$", "[^ -~\t]", "[a-cé-ë]{2}", "[\u0080-\u00ff\n ]",
    r"[\x00-\x1f]", r"[\u0041-\u0043]",  # escapes this rewrite does not read: as written
]  # fmt: skip
CLASS_TRICKY = [
    *(chr(c) for c in range(0x181)), "abc", "xyz", "ax", "a-x", "0123abcd-beef", "\\a",
    "\\[a", "deadBEEF-0a1b", "deadbeef-0a1b\n", "ab\u2028", "\U0001F600", "a\U0001F600",
    " ", "", None, "Hello, world!", "it's-a;test:yes?", "x" * 45, "x" * 44 + "\n",
]  # fmt: skip


def test_classes_as_one_bit_set_answer_as_rlike(spark):
    """Character classes written as the list of their members (one bit set in Java's
    engine) count exactly the rows RLIKE counts for the class as written, on every
    character up to U+0180 and strings around line terminators and surrogate pairs."""
    from pyspark.sql.connect import functions as F

    from assay.emit.columns import column
    from assay.ir import Col, Matches
    from assay.planner.regex import cheaper

    df = spark.createDataFrame([(s,) for s in CLASS_TRICKY], "a string")
    outputs = []
    kept = []
    for n, pattern in enumerate(CLASS_PATTERNS):
        form = cheaper(Matches(Col("a"), pattern))
        if form == Matches(Col("a"), pattern):
            kept.append(pattern)
        outputs.append(F.count_if(F.col("a").rlike(pattern)).alias(f"r{n}"))
        outputs.append(F.count_if(column(form)).alias(f"c{n}"))
    row = df.agg(*outputs).collect()[0]
    assert [row[f"c{n}"] for n in range(len(CLASS_PATTERNS))] == [
        row[f"r{n}"] for n in range(len(CLASS_PATTERNS))
    ]
    assert set(CLASS_PATTERNS[-2:]) <= set(kept)  # escapes this rewrite does not read
    rewritten = {"^[A-Za-z0-9 ,.;:!?'-]{1,44}$", "^[^A-Z0-9_]+$", "^[0-9a-fA-F]{8}-[0-9a-f]{4}$"}
    assert rewritten.isdisjoint(kept)
    assert row["r1"] > 300  # a negated class matches nearly every string


BRANCH_RULES = [
    "{type: not_null, column: b}",
    "{type: range, column: a, min: 1, max: 48}",
    "{type: range, column: b, min: 0}",
    "{type: accepted_values, column: s, values: [s0, s1]}",
    "{type: regex, column: s, pattern: '^s[0-9]+$'}",
    "{type: regex, column: s, pattern: '^s[01]$'}",
    "{type: avg, column: a, must_be: '<= 20'}",
    "{type: sum, column: b, must_be: '>= 1'}",
    "{type: max, column: id, must_be: '<= 299'}",
    "{type: min, column: b, must_be: '>= 0'}",
    "{type: unique, column: id}",
    "{type: sql, query: 'SELECT count(*) = 0 FROM _validation_df WHERE a < b'}",
    "{type: sql, query: 'SELECT count(DISTINCT s) <= 3 FROM _validation_df'}",
    "{type: row_count, min: 300, max: 300}",
    # rules joining columns (upper-case names in SQL too): the packing keeps their columns
    # in one branch where it can
    "{type: sql, query: 'SELECT count(*) = 0 FROM _validation_df WHERE A * B > 100'}",
    "{type: sql, query: 'SELECT max(A) < 2 * avg(ID) FROM _validation_df'}",
    "{type: not_null, columns: [s, b]}",
]


def _scrub(events: list[dict]) -> list[dict]:
    drop = {"run_id", "duration_ms", "elapsed_ms", "started_at", "finished_at", "spark_plans"}
    return [{k: v for k, v in e.items() if k not in drop} for e in events]


def test_scan_branches_answer_as_one_aggregate_and_stay_apart(spark, data, tmp_path):
    """Branches packed by column (each a scan of its own) give exactly the answers of one
    wide aggregate; during the run Spark's MergeSubplans rule is excluded (so Spark does
    not merge them back) and the session's setting is restored afterwards."""
    from assay.emit.spark import aggregate_frame, source_frame
    from assay.planner import plan_table
    from assay.planner.cost import MERGE_SUBPLANS_RULE, PlannerOptions

    suite = load_suite([write_config(tmp_path, config(data, BRANCH_RULES))])
    answers = []
    for options in (
        PlannerOptions(strategy="single"),
        PlannerOptions(strategy="split", max_outputs=3),
        PlannerOptions(strategy="split", max_outputs=2, pushdown=True),
    ):
        sink = Collect()
        run_suite(suite, spark, sink, options=options)
        answers.append(_scrub(sink.events))
    assert answers[0] == answers[1] == answers[2]
    results = [e for e in answers[0] if e["event"] == "result"]
    product = sum(1 for _, a, b, _ in ROWS if b is not None and a * b > 100)
    assert product > 0 and results[-3]["passed"] is False
    assert results[-2]["passed"] is (max(a for _, a, _, _ in ROWS) < 2 * 150.5)
    assert results[-1]["failed_count"] == sum(1 for _, _, b, _ in ROWS if b is None)
    assert [r["failed_count"] for r in results[:6]] == [
        sum(1 for _, _, b, _ in ROWS if b is None),
        sum(1 for _, a, _, _ in ROWS if not 1 <= a <= 48),
        sum(1 for _, _, b, _ in ROWS if b is not None and b < 0),
        sum(1 for *_, s in ROWS if s not in ("s0", "s1")),
        0,
        sum(1 for *_, s in ROWS if s not in ("s0", "s1")),
    ]
    assert spark.conf.get("spark.sql.optimizer.excludedRules", None) in (None, "")
    # a setting of the caller's own is kept during the run and put back as it was
    mine = "org.apache.spark.sql.catalyst.optimizer.CombineFilters"
    spark.conf.set("spark.sql.optimizer.excludedRules", mine)
    try:
        sink = Collect()
        run_suite(suite, spark, sink, options=PlannerOptions(strategy="split", max_outputs=3))
        assert _scrub(sink.events) == answers[0]
        assert spark.conf.get("spark.sql.optimizer.excludedRules") == mine
    finally:
        spark.conf.unset("spark.sql.optimizer.excludedRules")

    # while a branched run runs, Spark names generated classes without their stage's number
    # (executor.run.STABLE_CLASS_NAMES); an unbranched run leaves the session as it is; the
    # session's own setting is back after either
    from assay.executor.run import STABLE_CLASS_NAMES

    key, value = STABLE_CLASS_NAMES
    before = spark.conf.get(key, None)
    during: dict[str, list[str | None]] = {}
    for strategy in ("split", "single"):
        sink = Collect()

        def seen(event, sink=sink, strategy=strategy) -> None:
            if event.to_dict()["event"] == "result":
                during.setdefault(strategy, []).append(spark.conf.get(key, None))
            sink(event)

        run_suite(suite, spark, seen, options=PlannerOptions(strategy=strategy, max_outputs=3))
        assert _scrub(sink.events) == answers[0]
        assert spark.conf.get(key, None) == before
    assert set(during["split"]) == {value} and value not in during["single"]

    table = suite.tables[0]
    plan = plan_table(table, PlannerOptions(strategy="split", max_outputs=3, by_value=False))
    assert len(plan.aggregate.scans) >= 4
    frame = aggregate_frame(source_frame(spark, table.source, table.filter), plan.aggregate)
    spark.conf.set("spark.sql.optimizer.excludedRules", MERGE_SUBPLANS_RULE)
    try:
        physical = frame._explain_string(extended=False)  # noqa: SLF001
    finally:
        spark.conf.unset("spark.sql.optimizer.excludedRules")
    # every branch and the uniqueness group-by reads the table on its own
    assert physical.count("Scan parquet") == len(plan.aggregate.scans) + len(plan.aggregate.groups)


def test_key_bounded_detail_branches_sample_as_unbounded(spark, tmp_path):
    """Heavy failed rules sampled under a bound of the first key (from the aggregate's
    min and max) give the same samples as without the bound; a rule whose failures all
    sit at the top of the key range is sampled again without the bound (one more plan)."""
    from assay.planner.cost import PlannerOptions

    # id 1..2000 (null on row 7); `a` fails on every other row, `b` on the upper half
    rows = [(None if i == 7 else i, i % 2, i) for i in range(1, 2001)]
    path = write_parquet(spark, tmp_path / "bounded.parquet", rows, "id bigint, a int, b int")
    rules = [
        "{type: range, column: a, max: 0}",
        "{type: range, column: b, max: 1000}",
        "{type: not_null, column: id}",
    ]
    suite = load_suite([write_config(tmp_path, config(path, rules))])
    runs = {}
    for name, options in {
        "bounded": PlannerOptions(detail_sort_rows=50),
        "unbounded": PlannerOptions(detail_sort_rows=50, detail_bound_margin=10**9),
    }.items():
        sink = Collect()
        run_suite(suite, spark, sink, options=options)
        runs[name] = sink
    bounded, unbounded = runs["bounded"], runs["unbounded"]
    assert [r["samples"] for r in bounded.results] == [r["samples"] for r in unbounded.results]
    a, b, nulls = bounded.results
    # the null key sorts first, then the smallest odd ids
    assert a["samples"] == [{"id": None, "a": 1}] + [{"id": i, "a": 1} for i in (1, 3, 5, 9)]
    assert b["samples"] == [{"id": i, "b": i} for i in range(1001, 1006)]
    assert nulls["samples"] == [{"id": None}]
    # aggregate + detail, + the rule `b` again without its bound (its failures sit above it)
    [table] = [e for e in bounded.events if e["event"] == "table"]
    [plain] = [e for e in unbounded.events if e["event"] == "table"]
    assert (table["spark_plans"], plain["spark_plans"]) == (3, 2)


def test_every_heavy_rule_is_bounded_or_in_a_branch_of_its_own(spark, tmp_path):
    """The shared detail scan never sorts all the failing rows of a heavy rule: under a
    key bound it keeps about margin x N of them, and without a usable key range every
    heavy rule gets a branch of its own. Each form gives the samples of the plain one
    (everything in the shared scan, no bound), on rules failing evenly, only at the top
    of the key range, only at its bottom, and on a hash of the key."""
    from assay.planner.cost import PlannerOptions

    rows = [
        (None if i in (7, 1500) else i, i % 2, i, (i * 7919) % 13, f"s{i % 3}")
        for i in range(1, 3001)
    ]
    schema = "id bigint, a int, b int, h int, s string"
    path = write_parquet(spark, tmp_path / "heavy.parquet", rows, schema)
    rules = [
        "{type: range, column: a, max: 0}",
        "{type: range, column: b, max: 2500}",
        "{type: range, column: b, min: 400}",
        "{type: range, column: h, max: 3}",
        "{type: accepted_values, column: s, values: [s0]}",
        "{type: range, column: a, min: 1}",
        "{type: not_null, column: id}",
    ]
    suite = load_suite([write_config(tmp_path, config(path, rules))])
    forms = {
        "plain": PlannerOptions(detail_sort_rows=10**9),
        "bounded in the shared scan": PlannerOptions(detail_sort_rows=100, detail_rule_branches=0),
        "bounded, two own branches": PlannerOptions(detail_sort_rows=100, detail_rule_branches=2),
        "no bound: a branch each": PlannerOptions(
            detail_sort_rows=100, detail_rule_branches=0, detail_bound_margin=10**9
        ),
    }
    samples = {}
    for name, options in forms.items():
        sink = Collect()
        run_suite(suite, spark, sink, options=options)
        samples[name] = [r["samples"] for r in sink.results]
    for name in forms:
        assert samples[name] == samples["plain"], name
    assert samples["plain"][1] == [{"id": i, "b": i} for i in range(2501, 2506)]
    assert samples["plain"][2][0] == {"id": None, "b": 7}


def test_detail_plan_gives_every_unbounded_heavy_rule_its_own_branch():
    from assay.ir.expr import Col, IsNull
    from assay.planner.cost import PlannerOptions
    from assay.planner.lower import plan_detail
    from assay.planner.plan import DetailEntry, DetailPlan, TablePlan

    entries = tuple(DetailEntry(i, ("x",), predicate=IsNull(Col("x"))) for i in range(40))
    plan = TablePlan(None, None, None, DetailPlan(entries, (), 5), ())  # type: ignore[arg-type]
    failed = dict.fromkeys(range(40), 60000)
    # no keys: every heavy rule bounded by a row hash, all in the shared scan
    detail = plan_detail(plan, set(failed), (), failed_rows=failed, options=PlannerOptions())
    assert detail is not None and detail.hashed and len(detail.bounds) == 40
    assert detail.own_branch == ()  # one scan hashes each row once for all of them
    # sampled again without bounds: a branch each, however many
    again = plan_detail(plan, set(failed), (), failed_rows=failed, hash_bounds=False)
    assert again is not None and again.own_branch == tuple(range(40)) and not again.bounds
    keyed = plan_detail(
        plan,
        set(failed),
        ("x",),
        failed_rows=failed,
        options=PlannerOptions(),
        key_range=(0, 10**7),
    )
    assert keyed is not None and len(keyed.bounds) == 40 and len(keyed.own_branch) == 8


def test_without_keys_heavy_rules_sample_a_hash_slice_of_their_failing_rows(spark, tmp_path):
    """No keys: a heavy rule's samples are failing rows of the low end of a row hash's
    range (the same on every run); one that finds too few there is sampled again whole.
    Every sample is a failing row, N of them, and the light rule samples as before."""
    from assay.planner.cost import PlannerOptions

    rows = [(i, i % 3, f"v{i % 5}") for i in range(3000)]
    path = write_parquet(spark, tmp_path / "keyless.parquet", rows, "id int, a int, s string")
    rules = [
        "{type: range, column: a, max: 0}",  # 2,000 failing rows
        "{type: accepted_values, column: s, values: [v0, v1, v2, v3]}",  # 600
        "{type: range, column: id, max: 2994}",  # 5 failing: light
    ]
    suite = load_suite(
        [write_config(tmp_path, config(path, rules).replace("    keys: [id]\n", ""))]
    )
    runs = []
    for _ in range(2):
        sink = Collect()
        run_suite(suite, spark, sink, options=PlannerOptions(detail_sort_rows=100))
        runs.append(sink)
    first, second = ([r["samples"] for r in s.results] for s in runs)
    assert first == second  # deterministic
    heavy_a, heavy_s, light = first
    assert len(heavy_a) == len(heavy_s) == 5 == len({str(r) for r in heavy_a})
    assert all(r["a"] > 0 for r in heavy_a) and all(r["s"] == "v4" for r in heavy_s)
    assert sorted(r["id"] for r in light) == [2995, 2996, 2997, 2998, 2999]

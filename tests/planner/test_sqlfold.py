"""SQL rules that only count rows are folded into the aggregate scan; others stay queries."""

from __future__ import annotations

import pytest

from assay.ir import (
    Col,
    IsNull,
    Op,
    Origin,
    PathSource,
    RowCheck,
    Rule,
    SqlCheck,
    Table,
    UniqueCheck,
)
from assay.ir.expr import Sql
from assay.planner import plan_detail, plan_table
from assay.planner.cost import PlannerOptions, group_partitions
from assay.planner.measures import CountIf, RowCount, SqlAggregate
from assay.planner.render import render_plan
from assay.planner.sqlfold import RowCountQuery, aggregate_query, row_count_query

ORIGIN = Origin("t.yaml", "tables[0]")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("SELECT count(*) = 0 FROM _validation_df WHERE a < b", RowCountQuery("a < b", Op.EQ, 0)),
        (
            "select COUNT( 1 )<>3 from _VALIDATION_DF where x is null;",
            RowCountQuery("x is null", Op.NE, 3),
        ),
        ("SELECT count(*) >= 10 FROM _validation_df", RowCountQuery(None, Op.GE, 10)),
        (
            "SELECT count(*) == 0 FROM _validation_df WHERE s = 'a (b'",
            RowCountQuery("s = 'a (b'", Op.EQ, 0),
        ),
        (
            "SELECT count(*) < 5\n FROM _validation_df\n WHERE (a > 1)\n   AND b",
            RowCountQuery("(a > 1)\n   AND b", Op.LT, 5),
        ),
        (
            "SELECT count(DISTINCT a) <= 3 FROM _validation_df",
            RowCountQuery(None, Op.LE, 3, ("a",)),
        ),
        (
            "SELECT COUNT(distinct A, `b c`) = 2 FROM _validation_df WHERE x > 1",
            RowCountQuery("x > 1", Op.EQ, 2, ("A", "b c")),
        ),
    ],
)
def test_row_count_shapes_fold(query, expected):
    assert row_count_query(SqlCheck(query)) == expected


def test_failed_rows_select_star_folds_to_the_count():
    folded = row_count_query(SqlCheck("SELECT * FROM _validation_df WHERE qty < 0", "failed_rows"))
    assert folded == RowCountQuery("qty < 0")
    assert folded.value(7) == 7


@pytest.mark.parametrize(
    "query",
    [
        "SELECT count(*) = 0 FROM _validation_df WHERE a IN (SELECT b FROM other)",
        "SELECT count(*) = 0 FROM _validation_df WHERE a > 1 GROUP BY c",
        "SELECT count(*) = 0 FROM _validation_df WHERE a > 1 LIMIT 3",
        "SELECT count(*) = 0 FROM _validation_df WHERE a > 1 -- comment",
        "SELECT count(*) = 0 FROM _validation_df WHERE a > 1 /* x */",
        "SELECT count(*) = 0 FROM _validation_df WHERE _validation_df.a > 1",
        "SELECT count(*) = 0 FROM _validation_df t JOIN u ON t.a = u.a",
        "SELECT count(*) = 0 FROM _validation_df WHERE a > 1) OR (1 = 1",
        "SELECT count(*) = 0 FROM _validation_df WHERE s = 'open",
        "SELECT count(DISTINCT _validation_df.a) <= 3 FROM _validation_df",
        "SELECT count(DISTINCT a + 1) <= 3 FROM _validation_df",
        "SELECT count(DISTINCT lower(s)) <= 3 FROM _validation_df",
        "SELECT count(DISTINCT a) FILTER (WHERE b > 0) <= 3 FROM _validation_df",
        "SELECT count(a) <= 3 FROM _validation_df",
        "SELECT count(*) = 0 FROM other WHERE a > 1",
        "SELECT count(*) = 0 AS ok FROM _validation_df WHERE a > 1",
        "SELECT count(*) = 0 FROM _validation_df WHERE a > 1; SELECT 1",
        "SELECT count(*) = 0 FROM _validation_df WHERE sum(a) over (partition by b) > 1",
        "SELECT min(a) > 0 FROM _validation_df",
    ],
)
def test_other_shapes_stay_queries(query):
    assert row_count_query(SqlCheck(query)) is None


def test_failed_rows_with_a_projection_stays_a_query():
    # `SELECT count(*) ... WHERE` returns ONE row: as failed_rows it is not a row filter.
    assert (
        row_count_query(SqlCheck("SELECT count(*) FROM _validation_df WHERE a < 0", "failed_rows"))
        is None
    )
    assert (
        row_count_query(SqlCheck("SELECT a FROM _validation_df WHERE a < 0", "failed_rows")) is None
    )


@pytest.mark.parametrize(
    ("op", "bound", "count", "value"),
    [
        (Op.EQ, 0, 0, True),
        (Op.EQ, 0, 1, False),
        (Op.NE, 3, 3, False),
        (Op.LT, 5, 4, True),
        (Op.LE, 5, 5, True),
        (Op.GT, 5, 5, False),
        (Op.GE, 5, 5, True),
    ],
)
def test_value_is_the_comparison_the_query_made(op, bound, count, value):
    assert RowCountQuery("p", op, bound).value(count) is value


def _table(*rules: Rule) -> Table:
    return Table("t", PathSource("parquet", ("/data/t",)), rules, ORIGIN, keys=("id",))


def _rule(i: int, check) -> Rule:
    return Rule("sql", check, ORIGIN.child("rules").child(i))


def test_folded_rules_become_aggregate_slots_and_leave_the_sql_plan():
    plan = plan_table(
        _table(
            _rule(0, SqlCheck("SELECT count(*) = 0 FROM _validation_df WHERE a < b")),
            _rule(1, SqlCheck("SELECT min(a) > 0 FROM _validation_df WHERE b > 1")),
            _rule(2, SqlCheck("SELECT count(*) >= 1 FROM _validation_df")),
            _rule(3, RowCheck(IsNull(Col("a")))),
        )
    )
    assert [f.rule_index for f in plan.folded] == [0, 2]
    assert plan.folded[0].measure == CountIf(Sql("a < b"))
    assert plan.folded[1].measure == RowCount()
    assert plan.aggregate is not None
    assert plan.aggregate.slots[0].measure == RowCount() and 2 in plan.aggregate.slots[0].rules
    assert plan.sql is not None and [q.rule_index for q in plan.sql.queries] == [1]
    assert plan.base_plans == 1
    assert (
        "sql rules folded into the aggregate plan (they count rows or distinct values, or"
        " compare aggregates): rules[0], rules[2]" in render_plan(plan)
    )


def test_a_comparison_of_aggregates_folds_as_its_own_text():
    plan = plan_table(
        _table(
            _rule(0, SqlCheck("SELECT  max(a) <= 3 * min(b)  FROM _validation_df;")),
            _rule(1, SqlCheck("SELECT avg(a) FROM _validation_df")),
        )
    )
    assert [(f.rule_index, f.measure) for f in plan.folded] == [
        (0, SqlAggregate("max(a) <= 3 * min(b)"))
    ]
    assert plan.folded[0].answer(None) is None and plan.folded[0].answer(True) is True
    assert plan.sql is not None and [q.rule_index for q in plan.sql.queries] == [1]
    assert "max(a) <= 3 * min(b)" in render_plan(plan)


@pytest.mark.parametrize(
    "query",
    [
        "SELECT max(a) <= 3 FROM _validation_df WHERE b > 0",
        "SELECT max(a) FROM _validation_df",
        "SELECT max(a) <= 3 AS ok FROM _validation_df",
        "SELECT a <= 3 FROM _validation_df",
        "SELECT max(a) <= b FROM _validation_df",
        "SELECT count(DISTINCT a) <= max(b) FROM _validation_df",
        "SELECT percentile(a, 0.5) <= 3 FROM _validation_df",
        "SELECT approx_count_distinct(a) <= 3 FROM _validation_df",
        "SELECT stddev(a) <= 3 FROM _validation_df",
        "SELECT max(a) <= (SELECT 1) FROM _validation_df",
        "SELECT max(_validation_df.a) <= 3 FROM _validation_df",
        "SELECT max(max(a)) <= 3 FROM _validation_df",
        "SELECT max(a) OVER () <= 3 FROM _validation_df",
        "SELECT max(a) <= 3 FROM _validation_df GROUP BY b",
        "SELECT max(a) <= 3 FROM _validation_df -- why",
        "SELECT max(a) <= my_udf(1) FROM _validation_df",
    ],
)
def test_other_aggregate_shapes_stay_queries(query):
    assert aggregate_query(SqlCheck(query)) is None
    assert aggregate_query(SqlCheck(query.replace("SELECT", "SELECT", 1), "failed_rows")) is None


def test_unfold_keeps_a_rule_as_a_query():
    rules = (_rule(0, SqlCheck("SELECT count(*) = 0 FROM _validation_df WHERE nope(a)")),)
    plan = plan_table(_table(*rules), unfold={0})
    assert plan.folded == ()
    assert plan.sql is not None and [q.rule_index for q in plan.sql.queries] == [0]


def test_uniqueness_group_by_shuffles_by_key_sized_from_the_estimate():
    rules = (Rule("unique", UniqueCheck(("id", "n")), ORIGIN.child("rules").child(0)),)
    unknown = plan_table(_table(*rules))
    assert unknown.aggregate is not None
    group = unknown.aggregate.groups[0]
    assert group.by_key and group.partitions is None
    assert "sized from the table's size estimate at run time" in render_plan(unknown)
    sized = plan_table(_table(*rules), size_bytes=231_630_438)
    assert sized.aggregate is not None and sized.aggregate.groups[0].partitions == 14
    assert "shuffled by key into 14 partitions (no partial aggregation)" in render_plan(sized)


def test_group_partitions_are_bounded():
    options = PlannerOptions(max_group_partitions=50)
    assert group_partitions(None, options) is None
    assert group_partitions(0, options) == 1
    assert group_partitions(16 * 2**20 + 1, options) == 2
    assert group_partitions(10**15, options) == 50


def test_detail_order_is_keys_then_comparable_columns():
    rules = (
        Rule(
            "not_null", RowCheck(IsNull(Col("a"))), ORIGIN.child("rules").child(0), columns=("a",)
        ),
        Rule(
            "not_null", RowCheck(IsNull(Col("m"))), ORIGIN.child("rules").child(1), columns=("m",)
        ),
    )
    plan = plan_table(_table(*rules))
    detail = plan_detail(plan, {0, 1}, ("id",), comparable=lambda c: c != "m")
    assert detail is not None and detail.order == ("id", "a")

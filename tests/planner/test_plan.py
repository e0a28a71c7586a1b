"""The planner is a pure compiler: one aggregate per table, deduped measures, shallow plans."""

from __future__ import annotations

from decimal import Decimal

import pytest

from assay.ir import (
    Between,
    Col,
    ColumnMetric,
    Comparison,
    GroupMetric,
    IsNull,
    MetricCheck,
    Op,
    Origin,
    PathSource,
    RowCheck,
    RowCountMetric,
    Rule,
    SchemaCheck,
    SqlCheck,
    Table,
    UniqueCheck,
)
from assay.planner import plan_detail, plan_table
from assay.planner.measures import CountIf, GroupStats, RowCount
from assay.planner.render import render_plan
from tests.conftest import ROOT

ORIGIN = Origin("t.yaml", "tables[0]")


def rule(i: int, kind: str, check, columns=()) -> Rule:
    return Rule(kind, check, ORIGIN.child("rules").child(i), columns=tuple(columns))


def table(*rules: Rule, keys=("id",)) -> Table:
    return Table("t", PathSource("parquet", ("/data/t",)), tuple(rules), ORIGIN, keys=keys)


def test_one_aggregate_and_shared_measures():
    nulls = RowCheck(IsNull(Col("a")))
    plan = plan_table(
        table(
            rule(0, "not_null", nulls, ["a"]),
            rule(1, "not_null", nulls, ["a"]),
            rule(2, "row_count", MetricCheck(RowCountMetric(), Between(Decimal(1), None, ">= 1"))),
            rule(3, "unique", UniqueCheck(("id",)), ["id"]),
            rule(
                4,
                "distinct_count",
                MetricCheck(
                    GroupMetric(("id",), "distinct_count"), Comparison(Op.GT, Decimal(0), "> 0")
                ),
                ["id"],
            ),
        )
    )
    assert plan.aggregate is not None
    measures = [s.measure for s in plan.aggregate.slots]
    assert measures.count(RowCount()) == 1
    assert measures.count(CountIf(IsNull(Col("a")))) == 1
    assert measures.count(GroupStats(("id",))) == 1
    assert len(plan.aggregate.groups) == 1
    assert plan.base_plans == 1
    assert plan.slot_of(CountIf(IsNull(Col("a")))).rules == (0, 1)


def test_sql_rules_batch_into_one_plan_and_schema_needs_no_scan():
    plan = plan_table(
        table(
            rule(0, "sql", SqlCheck("SELECT true")),
            rule(1, "sql", SqlCheck("SELECT false")),
            rule(2, "schema", SchemaCheck(required=("a",))),
        )
    )
    assert plan.aggregate is None
    assert plan.sql is not None and [q.rule_index for q in plan.sql.queries] == [0, 1]
    assert plan.schema_rules == (2,)
    assert plan.base_plans == 1
    assert plan.detail is None


def test_detail_only_for_failed_row_rules():
    plan = plan_table(
        table(
            rule(0, "not_null", RowCheck(IsNull(Col("a"))), ["a"]),
            rule(1, "unique", UniqueCheck(("id",)), ["id"]),
            rule(
                2,
                "avg",
                MetricCheck(ColumnMetric("avg", "a"), Comparison(Op.GT, Decimal(0), "> 0")),
                ["a"],
            ),
        )
    )
    assert plan.detail is not None
    assert [e.rule_index for e in plan.detail.entries] == [0, 1]
    detail = plan_detail(plan, {1, 2}, ("id",))
    assert detail is not None and [e.rule_index for e in detail.entries] == [1]
    assert detail.entries[0].columns == ("id",)
    assert plan_detail(plan, {2}, ("id",)) is None


def test_a_fixed_order_is_the_same_whichever_rules_failed():
    """``ordered_by``: the order of every row rule's columns, kept as is by each part of
    the plan (``fixed_order``); without it, the failed rules' columns, narrowed by each
    part to its own rules'."""
    plan = plan_table(
        table(
            rule(0, "not_null", RowCheck(IsNull(Col("b"))), ["b"]),
            rule(1, "not_null", RowCheck(IsNull(Col("a"))), ["a"]),
            rule(2, "not_null", RowCheck(IsNull(Col("c"))), ["c"]),
        )
    )
    every = {0, 1, 2}
    alone = plan_detail(plan, {1}, ("id",), ordered_by=every)
    with_others = plan_detail(plan, {1, 2}, ("id",), ordered_by=every)
    assert alone is not None and with_others is not None
    assert alone.order == with_others.order == ("id", "b", "a", "c")
    assert alone.fixed_order and with_others.fixed_order
    narrowed = plan_detail(plan, {1}, ("id",))
    assert narrowed is not None and narrowed.order == ("id", "a") and not narrowed.fixed_order


def test_planning_is_deterministic_and_renders_stably():
    rules = [
        rule(i, "not_null", RowCheck(IsNull(Col(f"c{i % 7}"))), [f"c{i % 7}"]) for i in range(30)
    ]
    first, second = render_plan(plan_table(table(*rules))), render_plan(plan_table(table(*rules)))
    assert first == second
    assert "m000_rows" in first and "spark plans: 1 (+1 detail plan" in first
    # 30 rules over 7 columns: 7 distinct null counts + the row count.
    assert len(plan_table(table(*rules)).aggregate.slots) == 8


def test_thousand_rules_plan_quickly():
    rules = [rule(i, "not_null", RowCheck(IsNull(Col(f"c{i}"))), [f"c{i}"]) for i in range(1000)]
    plan = plan_table(table(*rules))
    assert len(plan.aggregate.slots) == 1001
    assert len(plan.detail.entries) == 1000


def test_split_strategy_groups_by_column_and_prunable_filters():
    from assay.ir import Compare, Lit, Op, any_of, is_true
    from assay.planner.cost import PlannerOptions

    rules = [
        rule(0, "not_null", RowCheck(IsNull(Col("a"))), ["a"]),
        rule(
            1,
            "range",
            RowCheck(
                is_true(any_of(Compare(Op.LT, Col("a"), Lit(0)), Compare(Op.GT, Col("a"), Lit(9))))
            ),
            ["a"],
        ),
        rule(
            2,
            "avg",
            MetricCheck(ColumnMetric("avg", "b"), Comparison(Op.GT, Decimal(0), "> 0")),
            ["b"],
        ),
        rule(
            3,
            "avg",
            MetricCheck(ColumnMetric("avg", "a"), Comparison(Op.GT, Decimal(0), "> 0")),
            ["a"],
        ),
    ]
    split = plan_table(table(*rules), PlannerOptions(strategy="split", pushdown=True))
    scans = split.aggregate.scans
    assert sum(len(s.slots) for s in scans) == 5
    filtered = [s for s in scans if s.where is not None]
    # the null test and the range on `a` share one branch filtered by their OR
    assert [len(s.slots) for s in filtered] == [2]
    single = plan_table(table(*rules))
    assert len(single.aggregate.scans) == 1 and len(single.aggregate.scans[0].slots) == 5


def test_split_packs_column_groups_into_bounded_branches():
    from assay.ir import Compare, Lit, Op
    from assay.planner.cost import PlannerOptions

    checks = [
        ("a", IsNull(Col("a"))),
        ("a", Compare(Op.LT, Col("a"), Lit(0))),
        ("b", IsNull(Col("b"))),
        ("b", Compare(Op.LT, Col("b"), Lit(0))),
        ("b", Compare(Op.GT, Col("b"), Lit(9))),
        ("c", IsNull(Col("c"))),
    ]
    rules = [rule(i, "row", RowCheck(p), [c]) for i, (c, p) in enumerate(checks)] + [
        rule(6, "avg", MetricCheck(ColumnMetric("avg", "c"), Comparison(Op.GT, Decimal(0), "> 0")),
             ["c"]),
    ]  # fmt: skip
    # 8 outputs: the row count rides with a's 2 rules; b has 3, c has 2 (null count, avg)
    packed = plan_table(table(*rules), PlannerOptions(strategy="split", max_outputs=3))
    columns = [
        sorted({c for s in scan.slots for c in columns_of_measure(s.measure)})
        for scan in packed.aggregate.scans
    ]
    assert [len(s.slots) for s in packed.aggregate.scans] == [3, 3, 2]
    assert columns == [["a"], ["b"], ["c"]]
    wide = plan_table(table(*rules), PlannerOptions(strategy="split", max_outputs=5))
    # whole column groups share a branch while they fit
    assert [len(s.slots) for s in wide.aggregate.scans] == [3, 5]
    assert all(s.where is None for s in wide.aggregate.scans)  # no pushdown by default


def test_split_reads_each_column_in_one_branch_where_rules_join_columns():
    """Rules reading two columns (a folded SQL rule, a null test of two columns) pull a
    column into a second branch unless the packing keeps their columns together."""
    from assay.ir import Compare, Lit, Op, Or
    from assay.planner.cost import PlannerOptions, _reads

    def ranges(i: int, column: str, n: int) -> list[Rule]:
        return [
            rule(i + k, "row", RowCheck(Compare(Op.GT, Col(column), Lit(k))), [column])
            for k in range(n)
        ]

    sql = "SELECT count(*) = 0 FROM _validation_df WHERE Price / qty > 2100"
    rules = [
        *ranges(0, "price", 3),
        *ranges(3, "flag", 3),
        *ranges(6, "qty", 2),
        rule(8, "sql", SqlCheck(sql)),
        *ranges(9, "note", 2),
        rule(11, "row", RowCheck(Or((IsNull(Col("flag")), IsNull(Col("note"))))), ["flag"]),
    ]
    # 12 rules and the row count: {price, qty} 6 outputs, {flag, note} 6
    plan = plan_table(table(*rules), PlannerOptions(strategy="split", max_outputs=7))
    reads = [{c for s in scan.slots for c in _reads(s.measure)} for scan in plan.aggregate.scans]
    assert sorted(len(s.slots) for s in plan.aggregate.scans) == [6, 7]
    assert sorted(map(sorted, reads)) == [["flag", "note"], ["price", "qty"]]
    # a component larger than a branch is cut, each column's slots kept together
    cut = plan_table(table(*rules), PlannerOptions(strategy="split", max_outputs=4))
    reads = [{c for s in scan.slots for c in _reads(s.measure)} for scan in cut.aggregate.scans]
    assert sum(len(r) for r in reads) <= 4 + 2  # price, qty, flag, note; two read twice


@pytest.mark.parametrize(("rules", "reads", "branches"), [(100, 12, 3), (300, 41, 9)])
def test_the_benchmark_suites_read_few_columns_twice(tmp_path, monkeypatch, rules, reads, branches):
    """The benchmark's suites over lineitem's 16 columns: at 100 rules each column is read
    by one branch (packed in rule order, 21 reads; the columns of the value branch,
    ``l_linestatus`` with them since it rides along, by none); at 300 rules, where null tests of
    two columns join every column to the keys, the moves and swaps after packing bring
    the reads from 58 to 41 (in rule order: 56)."""
    import yaml

    from assay.config import load_suite
    from assay.planner.cost import _reads

    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import suites

    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(suites.config("/data/lineitem.parquet", suites.suite(rules))))
    plan = plan_table(load_suite([str(path)]).tables[0], size_bytes=231_672_087, columnar=True)
    scans = plan.aggregate.scans
    assert len(scans) == branches and all(len(s.slots) <= 24 for s in scans)
    assert sum(len({c for s in scan.slots for c in _reads(s.measure)}) for scan in scans) == reads


def test_a_branch_whose_groups_all_move_away_is_dropped():
    from assay.ir import Compare, Lit, Op
    from assay.planner.packing import Packing
    from assay.planner.plan import Slot

    def slot(name: str, column: str) -> Slot:
        return Slot(name, CountIf(Compare(Op.GT, Col(column), Lit(0))), (0,))

    a1, a2, b1 = slot("m1", "a"), slot("m2", "a"), slot("m3", "b")

    def refined(branches: list[list[Slot]], size: int) -> list[list[Slot]]:
        packing = Packing({"m1": ("a",), "m2": ("a",), "m3": ("b",)}, size)
        packing.branches = branches
        packing.refine()
        return packing.branches

    assert refined([[a1], [a2, b1]], 4) == [[a2, b1, a1]]  # `a` read once, by the one left
    # no room for a move: a swap, each column read once
    assert refined([[a1], [a2, b1]], 2) == [[b1], [a2, a1]]


def columns_of_measure(measure) -> tuple[str, ...]:
    from assay.planner.cost import _columns

    return _columns(measure)


def test_heavy_failed_rules_get_detail_branches_of_their_own():
    from assay.planner.cost import PlannerOptions, own_branches

    options = PlannerOptions(detail_sort_rows=100, detail_rule_branches=2)
    assert own_branches({}, options) == ()
    assert own_branches({3: 99, 4: 5}, options) == ()
    # the two heaviest over the threshold, returned in rule order
    assert own_branches({1: 100, 2: 5000, 3: 400, 7: 300}, options) == (2, 3)


def test_key_bound_by_type():
    import datetime as dt

    from assay.planner.cost import PlannerOptions, key_bound

    options = PlannerOptions(detail_bound_margin=10)
    # 10 x 5 samples of 1,000 failing rows: the lowest 5% of the range
    assert key_bound(100, 300, 1000, 5, options) == 110
    assert key_bound(Decimal("0"), Decimal("10"), 1000, 5, options) == Decimal("0.5")
    assert key_bound(0.0, 1.0, 1000, 5, options) == 0.05
    assert key_bound(dt.date(2024, 1, 1), dt.date(2024, 12, 31), 1000, 5, options) == dt.date(
        2024, 1, 20
    )
    assert key_bound(0.0, float("inf"), 1000, 5, options) is None
    assert key_bound("a", "z", 1000, 5, options) is None  # strings: no point in between
    assert key_bound(None, None, 1000, 5, options) is None  # an empty table
    assert key_bound(1, 2, 99, 5, options) is None  # half the range or more: no bound


def test_a_dataframe_is_split_only_when_its_plan_prunes_columns():
    """A DataFrame or SQL source names no format: what the server's optimized plan says
    of it (``columnar``) decides, and a path source's own format when the plan is silent."""
    from assay.ir import DataFrameSource, SqlSource

    rules = [rule(i, "not_null", RowCheck(IsNull(Col(f"c{i}"))), [f"c{i}"]) for i in range(60)]
    big = 10 * 2**30

    def branches(source, size, columnar):
        planned = table(*rules)
        planned = Table("t", source, planned.rules, ORIGIN, keys=planned.keys)
        return len(plan_table(planned, size_bytes=size, columnar=columnar).aggregate.scans)

    for source in (DataFrameSource("f"), SqlSource("SELECT * FROM t")):
        assert branches(source, big, True) > 1
        assert branches(source, big, False) == 1
        assert branches(source, big, None) == 1  # unknown: read once
        assert branches(source, 2**20, True) == 1  # small: one branch costs less
    parquet, csv = PathSource("parquet", ("/p",)), PathSource("csv", ("/c",))
    assert branches(parquet, big, None) > 1 and branches(csv, big, None) == 1
    assert branches(parquet, big, False) == 1  # e.g. a catalog view joining two tables

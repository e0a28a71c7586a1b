"""The profile's plans, pure: statistics by family, branches shaped by cost, and what the
first plan's values send to a second one (and why)."""

from __future__ import annotations

from assay.ir.sources import PathSource
from assay.planner.measures import ColumnAgg, ExprAggregate, GroupStats, RowCount, kind_of
from assay.profiling.plan import ProfileOptions, family_of, plan_profile, render_profile
from assay.profiling.second import explain_second, second_plan

PARQUET = PathSource("parquet", ("/data/t.parquet",))
CSV = PathSource("csv", ("/data/t.csv",))
SCHEMA = [("id", "bigint"), ("s", "string"), ("d", "double"), ("amount", "decimal(10,2)"),
          ("flag", "boolean"), ("day", "date"), ("tags", "array<string>")]  # fmt: skip


def test_families_of_spark_types():
    found = {t: family_of(t) for _, t in SCHEMA}
    assert found == {"bigint": "integral", "string": "string", "double": "fractional",
                     "decimal(10,2)": "decimal", "boolean": "boolean", "date": "temporal",
                     "array<string>": "other"}  # fmt: skip


def test_object_aggregates_get_a_branch_of_their_own_and_a_big_table_is_split():
    plan = plan_profile(SCHEMA, PARQUET, ProfileOptions(frequencies="top_k"), size_bytes=10**9)
    *plain, apart = plan.aggregate.scans
    assert {kind_of(s.measure).apart(s.measure) for s in apart.slots} == {True}
    assert all(not kind_of(s.measure).apart(s.measure) for b in plain for s in b.slots)
    assert len(plain) > 1 and all(len(b.slots) <= 24 for b in plain)
    functions = {s.measure.function for s in apart.slots}  # type: ignore[union-attr]
    assert functions == {"approx_count_distinct", "percentile_approx", "approx_top_k"}


def test_frequencies_go_to_the_second_plan_when_numbers_need_it_anyway():
    assert plan_profile(SCHEMA, PARQUET).options.frequencies == "group_by"
    texts = plan_profile([("s", "string"), ("d", "date")], PARQUET)
    assert texts.options.frequencies == "top_k"  # one plan: no histogram to wait for


def test_a_csv_is_one_branch_besides_the_object_aggregates():
    plan = plan_profile(SCHEMA, CSV, size_bytes=10**9)
    assert len(plan.aggregate.scans) == 2


def test_floating_numbers_are_measured_without_nan():
    plan = plan_profile(SCHEMA, PARQUET, ProfileOptions(columns=("d",)))
    (column,) = plan.columns
    assert column.measure("max") == ColumnAgg("max", "d", column.measure("min").where)  # type: ignore[union-attr]
    assert column.measure("nan") is not None
    quantiles = column.measure("quantiles")
    assert isinstance(quantiles, ExprAggregate) and quantiles.where is not None


def test_exact_distinct_counts_are_group_bys_of_the_same_plan():
    plan = plan_profile(SCHEMA, PARQUET, ProfileOptions(exact_distinct=True))
    assert [g.columns for g in plan.aggregate.groups] == [(c,) for c, _ in SCHEMA[:-1]]
    assert "group-by id: exact distinct count" in render_profile(plan)


def values_of(plan, rows, **by_column):
    """Values of the first plan: every column complete, with the given (min, max,
    approximate distinct)."""
    found = {RowCount(): rows}
    for c in plan.columns:
        low, high, distinct = by_column.get(c.name, (None, None, 0))
        for stat, m in c.stats:
            found[m] = {"nulls": 0, "min": low, "max": high, "distinct_approx": distinct}.get(stat)
    return found


def test_the_second_plan_holds_histograms_and_candidate_keys_and_says_why():
    schema = [("id", "bigint"), ("line", "int"), ("x", "double"), ("s", "string")]
    plan = plan_profile(schema, PARQUET, ProfileOptions(frequencies="top_k", key_pairs=2))
    values = values_of(plan, 100, id=(1, 25, 25), line=(1, 4, 4), x=(0.5, float("inf"), 90),
                       s=("a", "b", 50))  # fmt: skip
    second = second_plan(plan, values)
    assert second is not None and second.histograms is not None
    assert [h.measure.column for h in second.histograms.columns] == ["id", "line"]  # x: inf
    # integers first (a smaller product with a string comes after), then the narrowest
    assert [g.columns for g in second.keys] == [("id", "line"), ("line", "s")]
    assert second.reasons[0].startswith("histograms of 2 numeric columns (id, line)")
    assert "candidate keys checked exactly (id, line; line, s)" in second.reasons[1]


def test_an_approximately_unique_column_is_checked_alone():
    plan = plan_profile([("k", "string"), ("v", "string")], PARQUET)
    second = second_plan(plan, values_of(plan, 1000, k=("a", "z", 960), v=("a", "b", 2)))
    assert second is not None and [g.columns for g in second.keys] == [("k",)]
    assert second.keys[0].slot.measure == GroupStats(("k",)) and second.keys[0].by_key


def test_no_second_plan_when_nothing_needs_one():
    plan = plan_profile([("s", "string")], PARQUET)
    assert second_plan(plan, values_of(plan, 0)) is None


def test_without_approx_top_k_the_frequency_tables_are_group_bys_of_the_second_plan():
    options = ProfileOptions(frequencies="group_by")
    plan = plan_profile([("s", "string"), ("t", "string")], PARQUET, options)
    assert not any(m.function == "approx_top_k" for c in plan.columns for _, m in c.stats
                   if isinstance(m, ExprAggregate))  # fmt: skip
    second = second_plan(plan, values_of(plan, 10, s=("a", "b", 2), t=("a", "z", 500)))
    assert second is not None and [f.column for f in second.frequencies] == ["s"]
    assert any("frequency tables" in line for line in explain_second(plan))

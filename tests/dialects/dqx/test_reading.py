"""Reading DQX checks files without Spark: detection, the mapping onto the IR (DQX's
readings of columns and limits), DQX's refusals and assay's, errors at their place.
What the checks compute is compared with DQX's own engine in test_oracle.py."""

from __future__ import annotations

import json

import pytest

from assay.dialects.dqx_results import dqx_view
from assay.ir.expr import Col, IsNull, Not, Sql, all_of, is_true
from assay.ir.metrics import CountMetric, RowCountMetric
from assay.ir.references import ForeignKeyCheck
from assay.ir.rules import MetricCheck, RowCheck, SqlCheck, UniqueCheck
from tests.dialects.helpers import errors, load, write


def checks_file(tmp_path, *checks, name="checks.yml"):
    return write(tmp_path, json.dumps(list(checks), indent=2), name)


def check(function, criticality="error", **arguments):
    return {"criticality": criticality, "check": {"function": function, "arguments": arguments}}


def rules(tmp_path, *checks, **options):
    options.setdefault("source", "data.parquet")
    return load(checks_file(tmp_path, *checks), **options).tables[0].rules


def failing(rule) -> str:
    assert isinstance(rule.check, RowCheck)
    coalesced = rule.check.failing
    assert coalesced == is_true(coalesced.items[0])  # type: ignore[union-attr]
    inner = coalesced.items[0]  # type: ignore[union-attr]
    assert isinstance(inner, Sql)
    return inner.text


def test_a_list_of_checks_is_detected_and_named_after_its_file(tmp_path):
    yaml = write(
        tmp_path,
        """\
        - criticality: warn
          check:
            function: is_not_null
            arguments:
              column: a
        """,
        "orders_checks.yml",
    )
    suite = load(yaml, source="db.orders")
    assert suite.dialects == ("dqx",)
    (rule,) = suite.tables[0].rules
    assert suite.tables[0].name == "orders_checks"
    assert (rule.kind, rule.name, rule.level, rule.columns) == (
        "dqx:is_not_null", "a_is_null", "warn", ("a",)
    )  # fmt: skip
    assert failing(rule) == "a IS NULL"


def test_a_run_needs_the_source(tmp_path):
    found = errors(checks_file(tmp_path, check("is_not_null", column="a")), for_run=True)
    assert "a DQX checks file checks the table given with --source" in found


def test_columns_are_names_or_expressions_as_dqx_reads_them(tmp_path):
    found = rules(
        tmp_path,
        check("is_not_null", column="Customer Name"),
        check("is_not_null", column="s.field1"),
        check("is_not_null", column="try_element_at(m, 'k')"),
        check("is_not_null", column="`a b`"),
    )
    assert [failing(r) for r in found] == [
        "`Customer Name` IS NULL",
        "s.field1 IS NULL",
        "(try_element_at(m, 'k')) IS NULL",
        "`a b` IS NULL",
    ]
    assert [r.columns for r in found] == [(), (), (), ("a b",)]
    assert [r.name for r in found] == [
        "customer_name_is_null", "s_field1_is_null", "try_element_at_m_k_is_null", "a_b_is_null"
    ]  # fmt: skip


def test_limits_are_read_as_dqx_get_limit_expr_reads_them(tmp_path):
    found = rules(
        tmp_path,
        check("is_not_less_than", column="n", limit=3),
        check("is_not_less_than", column="n", limit=2.5),
        check("is_not_less_than", column="n", limit="10"),
        check("is_not_less_than", column="d", limit="2025-01-01"),
        check("is_not_less_than", column="t", limit="2025-01-01 10:00:00"),
        check("is_not_less_than", column="n", limit="m * 2"),
        check("is_not_less_than", column="s", limit="'text'"),
    )
    assert [failing(r) for r in found] == [
        "n < 3",
        "n < CAST(2.5 AS DOUBLE)",
        "n < 10",
        "d < DATE'2025-01-01'",
        "t < TIMESTAMP'2025-01-01 10:00:00'",
        "n < (m * 2)",
        "s < 'text'",
    ]


def test_a_condition_holding_sql_the_user_wrote_is_analysed_before_any_scan(tmp_path):
    plain, column, bound = rules(
        tmp_path,
        check("is_not_null", column="a"),
        check("is_not_null", column="a + b"),
        check("is_not_less_than", column="a", limit="b * 2"),
    )
    assert "expression" not in dict(plain.params) and not plain.places
    assert dict(column.params)["expression"] == "(a + b) IS NULL"
    assert dict(bound.params)["expression"] == "a < (b * 2)"
    assert [name for name, _ in bound.places] == ["expression"]
    assert bound.place("expression").path.endswith("check.arguments")


def test_yaml_dates_are_dates(tmp_path):
    path = write(
        tmp_path,
        """\
        - check:
            function: is_in_range
            arguments: {column: d, min_limit: 2025-01-01, max_limit: 2025-02-24 01:00:00}
        """,
    )
    (rule,) = load(path, source="x.parquet").tables[0].rules
    assert failing(rule) == "(d < DATE'2025-01-01') OR (d > TIMESTAMP'2025-02-24 01:00:00')"
    assert rule.level == "error"


def test_null_handling_follows_dqx(tmp_path):
    found = rules(
        tmp_path,
        check("is_in_list", column="n", allowed=[1, 2]),
        check("is_not_null_and_is_in_list", column="n", allowed=[1, 2]),
        check("is_in_range", column="n", min_limit=1, max_limit=2, allow_nulls=False),
        check("sql_expression", expression="a > b"),
        check("sql_expression", expression="a > b", negate=True),
    )
    assert [failing(r) for r in found] == [
        "NOT (n IN (1, 2))",
        "n IS NULL OR NOT (n IN (1, 2))",
        "n IS NULL OR ((n < 1) OR (n > 2))",
        "(NOT (a > b))",
        "(a > b)",
    ]
    assert [r.name for r in found] == [
        "n_is_not_in_the_list", "n_is_null_or_is_not_in_the_list",
        "n_is_null_or_not_in_range", "not_a_b", "a_b",
    ]  # fmt: skip
    assert dict(found[3].params)["expression"] == "a > b"
    assert [name for name, _ in found[3].places] == ["expression"]


def test_for_each_column_and_the_first_argument_names(tmp_path):
    found = rules(
        tmp_path,
        {"check": {"function": "is_not_null", "for_each_column": ["a", "b"]}},
        {"check": {"function": "is_unique", "for_each_column": [["a"], ["a", "b"]]}},
        {"check": {"function": "value_is_in_list", "arguments": {"col_name": "c",
                                                                  "allowed": [1]}}},
        {"check": {"function": "is_not_null_and_not_empty",
                   "arguments": {"col_names": ["d", "e"], "trim_strings": True}}},
    )  # fmt: skip
    assert [r.name for r in found] == [
        "a_is_null", "b_is_null", "a_is_not_unique", "struct_a_b_is_not_unique",
        "c_is_not_in_the_list", "d_is_null_or_empty", "e_is_null_or_empty",
    ]  # fmt: skip
    assert failing(found[5]).startswith("trim(d) IS NULL")
    assert found[3].check == UniqueCheck(("a", "b"), nulls="any")


def test_the_filter_narrows_row_checks_and_enters_aggregates(tmp_path):
    row, aggregate, group = rules(
        tmp_path,
        {**check("is_not_null", column="a"), "filter": "b > 1"},
        {**check("is_aggr_not_less_than", column="a", aggr_type="sum", limit=1), "filter": "b > 1"},
        {**check("is_aggr_not_greater_than", column="*", group_by=["g"], limit=3), "filter": "b > 1"},
    )  # fmt: skip
    assert row.filter == Sql("b > 1") and [n for n, _ in row.places] == ["filter"]
    assert aggregate.filter is None
    assert aggregate.check == SqlCheck(
        "SELECT coalesce(sum(CASE WHEN (b > 1) THEN a END) < 1 AND "
        "count(CASE WHEN (b > 1) THEN 1 END) > 0, false) = false FROM _validation_df"
    )
    assert group.filter == Sql("b > 1")
    assert isinstance(group.check, MetricCheck) and group.check.group_by == ("g",)
    assert group.check.metric == RowCountMetric() and group.check.must.text == "<= 3"


def test_count_of_a_column_counts_its_values(tmp_path):
    whole, per_group = rules(
        tmp_path,
        check("is_aggr_equal", column="a", aggr_type="count", limit=3),
        check("is_aggr_equal", column="a", group_by=["g"], limit=3),
    )
    assert whole.check == SqlCheck(
        "SELECT coalesce(count(a) != 3 AND count(1) > 0, false) = false FROM _validation_df"
    )
    assert isinstance(per_group.check, MetricCheck)
    assert isinstance(per_group.check.metric, CountMetric)
    assert per_group.name == "a_count_group_by_g_not_equal_to_limit"


def test_foreign_key_reads_its_reference_from_an_input(tmp_path):
    (rule,) = rules(
        tmp_path,
        check("foreign_key", columns=["a"], ref_columns=["id"], ref_df_name="ref"),
        inputs={"ref": "db.ref"},
    )
    assert isinstance(rule.check, ForeignKeyCheck)
    assert rule.check.lookup.columns == ("a",)
    assert rule.check.lookup.reference.columns == ("id",)
    assert rule.name == "a_not_exists_in_ref_id"
    assert not rule.check.negate


def test_a_negated_foreign_key_fails_the_keys_found(tmp_path):
    (rule,) = rules(
        tmp_path,
        check("foreign_key", columns=["a", "b"], ref_columns=["x", "y"], ref_df_name="ref",
              negate=True),
        inputs={"ref": "db.ref"},
    )  # fmt: skip
    assert isinstance(rule.check, ForeignKeyCheck)
    assert rule.check.negate and rule.check.counted == "rows"
    assert rule.check.lookup.reference.columns == ("x", "y")
    assert rule.name == "struct_a_as_a_b_as_b_exists_in_ref_struct_x_as_a_y_as_b"
    assert dqx_view(rule, 3)["rows"] == 3
    assert dqx_view(rule, 3)["message"] == (
        "Value '{value}' in column 'struct(a AS a, b AS b)' found in reference column"
        " 'struct(x AS a, y AS b)'"
    )
    assert ("negate", True) in rule.params


def test_sql_query_runs_over_the_table(tmp_path):
    (rule,) = rules(
        tmp_path,
        {**check("sql_query", query="SELECT count(*) > 3 AS condition FROM {{ input_view }}"),
         "filter": "b > 1"},
    )  # fmt: skip
    view = "(SELECT * FROM _validation_df WHERE (b > 1))"
    assert rule.check == SqlCheck(
        f"SELECT coalesce(q.v AND t.n > 0, false) = false FROM (SELECT count(*) AS n FROM {view})"
        " AS t LEFT JOIN (SELECT q.`condition` AS v FROM (SELECT count(*) > 3 AS condition FROM "
        f"{view}) AS q) AS q ON true"
    )
    assert rule.name == "query_condition_violation"


def test_details_say_where_the_rows_land(tmp_path):
    row, warn, aggregate = rules(
        tmp_path,
        check("is_not_null", column="a"),
        check("is_not_null", "warn", column="b"),
        check("is_aggr_not_greater_than", column="*", limit=3),
    )
    assert dqx_view(row, 4) == {
        "name": "a_is_null", "function": "is_not_null", "criticality": "error",
        "column": "_errors", "rows": 4, "every_row_when_failing": False,
        "message": "Column 'a' value is null",
    }  # fmt: skip
    assert dqx_view(warn, 2)["column"] == "_warnings"
    assert dqx_view(aggregate, None)["rows"] is None
    assert dqx_view(aggregate, None)["every_row_when_failing"] is True


def test_the_checks_file_binds_to_a_native_table(tmp_path):
    checks_file(tmp_path, check("is_not_null", column="a"), name="c.yml")
    config = write(
        tmp_path,
        """\
        tables:
          - name: t
            source: {path: data.parquet}
            rules:
              - {type: row_count, min: 1}
            dqx: c.yml
        """,
        "config.yaml",
    )
    suite = load(config)
    assert [r.kind for r in suite.tables[0].rules] == ["row_count", "dqx:is_not_null"]


@pytest.mark.parametrize(
    ("item", "said"),
    [
        (check("has_no_aggr_outliers", column="a", time_column="t"),
         "DQX: function 'has_no_aggr_outliers' is not supported"),
        (check("has_no_outliers", column="a + 1"), "has_no_outliers reads a column"),
        (check("is_in_distribution", column="a", distribution={"x": 0.5}, distance=2),
         "'distance' must be between 0 and 1 (inclusive), got 2."),
        (check("is_in_distribution", column="a", distribution={"x": 0.7, "y": 0.7}, distance=0),
         "the sum of the distribution's shares must be at most 1"),
        (check("is_valid_country_code", column="a", code_format="alpha-4"),
         "Unsupported code_format for country code validation: 'alpha-4'. "
         "Supported: [alpha-2, alpha-3, numeric]."),
        (check("is_valid_currency_code", column="a", code_format=3),
         "'code_format' must be a string"),
        (check("is_valid_national_id", column="a", country="FR"),
         "Unsupported country code for national ID validation: 'FR'. Supported: [GB, IN, US]."),
        (check("is_ipv6_address_in_cidr", column="a", cidr_block="2001:db8::"),
         "DQX: CIDR block '2001:db8::' is not a valid IPv6 CIDR block."),
        (check("is_ipv6_address_in_cidr", column="a", cidr_block="10.0.0.0/8"),
         "is not a valid IPv6 CIDR block"),
        (check("has_valid_json_schema", column="a", schema="a INT,, b"),
         "DQX: Invalid schema string 'a INT,, b'"),
        (check("has_no_gaps_per_time_window", column="a", window_minutes=0),
         "window_minutes must be a positive integer"),
        (check("has_no_gaps_per_time_window", column="a", window_minutes=5, curr_timestamp="x"),
         "curr_timestamp can only be provided when trailing_gap is enabled"),
        (check("is_data_fresh_per_time_window", column="a", window_minutes=5,
               min_records_per_window=1, curr_timestamp="x"),
         "curr_timestamp is a Spark Column in DQX"),
        (check("is_data_fresh_per_time_window", column="a", window_minutes=5,
               min_records_per_window=0), "min_records_per_window must be a positive integer"),
        (check("compare_datasets", columns=["a"]), "use assay's comparisons"),
        (check("is_not_null", col="a"), "DQX: unexpected argument 'col' for function 'is_not_null'"),
        (check("is_not_null"), "DQX: function 'is_not_null' needs the argument 'column'"),
        (check("is_not_null", "fatal", column="a"), "Invalid 'criticality' value: 'fatal'"),
        (check("is_in_list", column="a", allowed=[]), "DQX: allowed list must not be empty"),
        (check("is_unique", columns=["a"], trim_strings=True), "is_unique with trim_strings"),
        (check("is_unique", columns=["a.b"]), "'a.b' is not a column name"),
        (check("is_aggr_not_greater_than", column="a", aggr_type="collect_list", limit=1),
         "aggr_type 'collect_list' is not supported"),
        (check("is_aggr_not_greater_than", column="a", aggr_type="percentile", limit=1),
         "'percentile' requires aggr_params with 'percentile' key"),
        (check("is_aggr_not_greater_than", column="a", aggr_type="sum", group_by=["g"], limit=1),
         "group_by with aggr_type 'sum' is not supported"),
        (check("is_equal_to", column="a", value=1, abs_tolerance=0.1),
         "DQX: abs_tolerance is not supported"),
        (check("foreign_key", columns=["a"], ref_columns=["b"], ref_df_name="r", null_safe=True),
         "foreign_key with null_safe is not supported"),
        (check("foreign_key", columns=["a"], ref_columns=["b"], ref_df_name="nowhere"),
         "the reference DataFrame 'nowhere' is not given"),
        (check("sql_query", query="SELECT 1 AS condition", merge_columns=["a"]),
         "sql_query with merge_columns is not supported"),
        (check("sql_query", query="SELECT * FROM {{ input_view }} JOIN {{ other }}"),
         "names a reference DataFrame"),
        (check("is_not_in_future", column="a", curr_timestamp="x"),
         "curr_timestamp is a Spark Column in DQX"),
        (check("is_ipv4_address_in_cidr", column="a", cidr_block="10.0.0.0/33"),
         "DQX: CIDR block '10.0.0.0/33' is not a valid IPv4 CIDR block."),
        ({**check("is_not_null", column="a"), "message_expr": "'x'"},
         "DQX: message_expr is not supported"),
    ],
)  # fmt: skip
def test_what_assay_does_not_run_as_dqx_does_is_an_error_at_its_place(tmp_path, item, said):
    found = errors(checks_file(tmp_path, check("is_not_null", column="ok"), item),
                   source="x.parquet", inputs={"r": "db.r"}, for_run=True)  # fmt: skip
    assert said in found
    assert "checks.yml:" in found and "[1]" in found


def test_row_filter_of_an_aggregate_keeps_the_rows_aggregated(tmp_path):
    # DQX aggregates the rows row_filter keeps, but flags every row: a count of no kept
    # row fails a table with rows; the check's filter replaces the argument
    argument, both, per_group, star = rules(
        tmp_path,
        check("is_aggr_not_less_than", column="*", limit=1, row_filter="id > 100"),
        {**check("is_aggr_not_less_than", column="*", limit=1, row_filter="id > 100"),
         "filter": "b > 1"},
        check("is_aggr_not_less_than", column="a", group_by=["k"], limit=1, row_filter="a > 1"),
        check("is_aggr_not_greater_than", column="*", group_by=["k"], limit=0, row_filter="b"),
    )  # fmt: skip
    kept = "count(CASE WHEN (id > 100) THEN 1 END)"
    assert argument.check == SqlCheck(
        f"SELECT coalesce({kept} < 1 AND count(1) > 0, false) = false FROM _validation_df"
    )
    assert argument.filter is None
    by_filter = "count(CASE WHEN (b > 1) THEN 1 END)"
    assert both.check == SqlCheck(
        f"SELECT coalesce({by_filter} < 1 AND {by_filter} > 0, false) = false FROM _validation_df"
    )
    assert isinstance(per_group.check, MetricCheck) and per_group.filter is None
    assert per_group.check.metric == CountMetric(
        all_of(is_true(Sql("a > 1")), Not(IsNull(Col("a"))))
    )
    assert per_group.check.group_by == ("k",)
    assert star.check.metric == CountMetric(is_true(Sql("b")))  # type: ignore[union-attr]


def test_row_filter_of_a_dataset_check_is_its_filter(tmp_path):
    unique, key = rules(
        tmp_path,
        check("is_unique", columns=["k"], row_filter="id < 6"),
        {**check("is_unique", columns=["k"], row_filter="id < 6"), "filter": "b > 1"},
    )
    assert unique.filter == Sql("id < 6")
    assert key.filter == Sql("b > 1")

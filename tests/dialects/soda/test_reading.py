"""SodaCL checks files read without Spark: detection, sources, Soda's threshold zones as
assay thresholds (percentages judged as Soda rounds them), and every refusal at its
line."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from assay.dialects import soda_thresholds as th
from assay.ir.metrics import (
    AggregateMetric,
    ColumnMetric,
    CountMetric,
    GroupMetric,
    RowCountMetric,
    SqlMetric,
)
from assay.ir.references import ForeignKeyCheck, Lookup, Reference
from assay.ir.rules import MetricCheck, SqlCheck, UniqueCheck
from assay.ir.suite import CatalogSource, PathSource
from assay.ir.values import Between
from tests.dialects.helpers import errors, load, write


def rules(tmp_path, text, **options):
    suite = load(write(tmp_path, text, "checks.yml"), **options)
    return suite.tables[0].rules


def test_detected_and_one_table_per_dataset(tmp_path):
    path = write(
        tmp_path,
        """
        filter orders [all]:
          where: "true"
        checks for orders:
          - row_count > 0
        checks for customers:
          - row_count > 0
        checks for orders [all]:
          - missing_count(email) = 0
        """,
        "checks.yml",
    )
    suite = load(path)
    assert [t.name for t in suite.tables] == ["orders", "customers"]
    assert [len(t.rules) for t in suite.tables] == [2, 1]
    assert suite.tables[0].source == CatalogSource("orders")


def test_sources_from_the_command_line(tmp_path):
    text = "checks for orders:\n  - row_count > 0\n"
    path = write(tmp_path, text, "checks.yml")
    named = load(path, source="orders=data/o.parquet").tables[0].source
    alone = load(path, source="data/o.parquet").tables[0].source
    table = load(path, inputs={"orders": "db.orders"}).tables[0].source
    assert isinstance(named, PathSource) and named.paths[0].endswith("data/o.parquet")
    assert alone == named
    assert table == CatalogSource("db.orders")


@pytest.mark.parametrize(
    ("written", "inside", "outside"),
    [
        ("> 0", [1, 5], [0, -1]),
        ("= 0", [0], [1, -0.5]),
        ("!= 3", [2, 4], [3]),
        ("between 1 and 5", [1, 5, 3], [0.99, 5.01]),
        ("between (1 and 5]", [5, 1.01], [1, 6]),
        ("not between 1 and 5", [0, 6], [1, 5]),
        ("<= 2.5", [2.5], [2.51]),
    ],
)
def test_an_inline_threshold_passes_what_it_says(written, inside, outside):
    fail = th.parse(written).inverse()
    must = th.passing(fail, written)
    for value in inside:
        assert must.holds(value) and not fail.is_bad(value)
    for value in outside:
        assert not must.holds(value) and fail.is_bad(value)


def test_a_percentage_is_judged_as_soda_rounds_it():
    # Soda: round(count * 100 / rows, 2) >= 16.67 passes for 2 of 12 rows (16.666...)
    must = th.passing(th.parse(">= 16.67").inverse(), ">= 16.67", rounded=True)
    assert must.holds(2 * 100 / 12)
    assert not must.holds(math.nextafter(16.665, 0))
    # and every double near a bound agrees with Soda's rule
    for bound in (">= 5", "< 5", "<= 0.01", "> 99.99", "between 1.5 and 2.5"):
        fail = th.parse(bound).inverse()
        must = th.passing(fail, bound, rounded=True)
        for centre in (0.005, 0.015, 1.495, 2.505, 4.995, 5.0, 99.985, 99.995):
            value = centre
            for _ in range(4):
                assert must.holds(value) == (not fail.is_bad(round(value, 2))), (bound, value)
                value = math.nextafter(value, 100)


def test_fail_and_warn_zones(tmp_path):
    (rule,) = rules(
        tmp_path,
        """
        checks for orders:
          - max(amount):
              fail: when > 10000
              warn: when between 5000 and 10000
        """,
    )
    check = rule.check
    assert isinstance(check, MetricCheck)
    assert check.must.holds(10000) and not check.must.holds(10000.5)
    assert check.warn is not None and check.warn.holds(4999) and not check.warn.holds(5000)
    assert rule.threshold == "fail when > 10000; warn when between 5000 and 10000"


def test_missing_and_invalid_are_counted_as_soda(tmp_path):
    missing, invalid = rules(
        tmp_path,
        """
        checks for orders:
          - missing_percent(email) < 5%:
              missing values: ["", N/A]
          - invalid_count(email) = 0:
              valid format: email
        """,
    )
    assert isinstance(missing.check, MetricCheck)
    assert missing.check.metric == CountMetric(missing.check.metric.counted, percent=True)  # type: ignore[union-attr]
    assert missing.check.must.value == Decimal("4.995")  # type: ignore[union-attr]
    assert "'email'" in repr(invalid.check) and "Matches" in repr(invalid.check)


def test_duplicate_count_counts_values(tmp_path):
    text = (
        "checks for orders:\n  - duplicate_count(id, code) < 3\n  - duplicate_count(id) > 2\n"
        "  - duplicate_percent(id) < 2\n"
    )
    unique, count, percent = rules(tmp_path, text)
    assert unique.check == UniqueCheck(
        ("id", "code"),
        tolerance=unique.check.tolerance,
        counted="values",
        nulls="any",  # type: ignore[union-attr]
    )
    assert unique.check.tolerance.value == 2  # type: ignore[union-attr]
    # any other zone, and the percentage (rounded as Soda rounds it): a metric of the groups
    assert count.check.metric == GroupMetric(("id",), "duplicated_values")  # type: ignore[union-attr]
    assert percent.check.metric == GroupMetric(("id",), "duplicated_values_percent")  # type: ignore[union-attr]
    assert percent.check.must.value == Decimal("1.995")  # type: ignore[union-attr]


def test_must_not_exist_counts_every_match(tmp_path):
    one, two = rules(
        tmp_path,
        """
        checks for orders:
          - values in (customer_id) must not exist in blocked (id)
          - values in (a, b) must not exist in blocked (x, y):
              name: pairs
        """,
    )
    blocked = CatalogSource("blocked")
    assert one.check == ForeignKeyCheck(
        Lookup(("customer_id",), Reference(blocked, ("id",))), negate=True, counted="matches"
    )
    assert two.check == ForeignKeyCheck(
        Lookup(("a", "b"), Reference(blocked, ("x", "y"))), negate=True, counted="matches"
    )
    assert two.columns == ("a", "b") and two.requires == (("a", "any"), ("b", "any"))
    assert ("check", "values in (customer_id) must not exist in blocked (id)") in one.params


def test_a_dataset_filter_is_every_check_filter(tmp_path):
    (rule,) = rules(
        tmp_path,
        """
        filter orders [daily]:
          where: day = '${DAY}'
        checks for orders [daily]:
          - row_count > 0:
              filter: amount > 0
        """,
        variables={"DAY": "2024-01-01"},
    )
    assert "day = '2024-01-01'" in repr(rule.filter) and "amount > 0" in repr(rule.filter)


def test_the_environment_wins_over_vars(tmp_path, monkeypatch):
    monkeypatch.setenv("LIMIT_ROWS", "7")
    (rule,) = rules(
        tmp_path, "checks for t:\n  - row_count < ${LIMIT_ROWS}\n", variables={"LIMIT_ROWS": "9"}
    )
    assert rule.check.must.value == 7  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("check", "said"),
    [
        ("- percentile(amount, 0.95) < 9", "Unsupported metric"),
        ("- stddev(amount) < 9", "Unsupported metric"),
        ("- s < 9:\n      t expression: AVG(a)", "must match exactly the metric name"),
        ("- s < 9:\n      s query: SELECT a, b FROM orders", "selects one column"),
        ("- s < 9:\n      s query: SELECT count(*) FROM other", "over its own dataset"),
        ("- s < 9:\n      filter: a > 1\n      s expression: AVG(a)", "does not apply it"),
        ("- s < 9:\n      failed rows query: SELECT 1", "sample rows only"),
        ("- s < 9:\n      s sql_file: s.sql", "'s sql_file' is not supported"),
        ("- row_count same as other in postgres", "one data source"),
        ("- row_count same as other [daily]", "filter not declared: [daily]"),
        ("- row_count same as other:\n      filter: a > 1", "invalid row count comparison"),
        ("- anomaly score for row_count < default", "not supported"),
        ("- duplicate_percent()", "invalid Soda check"),
        ("- invalid_count(email) = 0", "without a 'valid ...'"),
        ("- row_count > 0:\n      fail: when < 3", "ignores 'fail' and 'warn'"),
        ("- row_count", "no threshold"),
        ("- row_count > 1d", "duration"),
        ("- failed rows:\n      fail query: SELECT * FROM other", "over its own dataset"),
        ("- failed rows:\n      fail query: DROP TABLE orders", "one SELECT"),
        ("- values in (a, b) must exist in other (a, b)", "several columns"),
        ("- values in (a, b) must not exist in other (a)", "2 source columns and 1 target"),
        ("- valid_percent(a) > 50", "no valid_percent"),
        ("- freshness(ts, LATER) < 1d", "now variable"),
        ("- row_count < ${UNDEFINED_IN_TEST}", "undefined variable"),
        ("- invalid_count(email) = 0:\n      valid format: mail", "format 'mail'"),
        ("- row_count between 5 and 1", "lower bound"),
        ("- duplicate_count(id) = 0:\n      missing values: [x]", "does not apply it"),
    ],
)
def test_refused_at_its_line(tmp_path, check, said):
    path = write(tmp_path, f"checks for orders:\n  - row_count > 0\n  {check}\n", "checks.yml")
    message = errors(path)
    line = 4 if "\n" in check else 3  # a configuration key's error is at its own line
    assert said in message and f"checks.yml:{line} " in message, message


def test_unsupported_sections_are_errors(tmp_path):
    path = write(
        tmp_path,
        "checks for orders:\n  - row_count > 0\nfor each column C:\n  columns: [a]\n",
        "checks.yml",
    )
    assert "'for each column' sections" in errors(path)


def test_soda_outcome_of_no_value_and_nan(tmp_path):
    from assay.dialects.soda_results import soda_outcome, with_soda_numbers

    avg, percent = rules(
        tmp_path,
        "checks for t:\n  - avg(x) < 10\n  - missing_percent(x) < 5\n",
    )
    assert soda_outcome(avg, None, 0, None) is None  # Soda: not evaluated
    assert soda_outcome(avg, None, 3, float("nan")) == "pass"  # in no zone of Soda's
    assert soda_outcome(avg, None, 3, 12.5) == "fail"
    shown = with_soda_numbers({"a": 1}, percent, 1, 3, 100 / 3)
    assert shown == {"a": 1, "soda": {"outcome": "fail", "value": 33.33}}


def test_change_over_time_reads_the_store(tmp_path):
    last, avg = rules(
        tmp_path,
        """
        checks for orders:
          - change for row_count < 50
          - change avg last 7 for missing_count(email):
              missing values: [""]
              fail: when > 10
              warn: when > 2
        """,
    )
    assert last.over_time is not None and last.over_time.change is not None
    assert last.over_time.change.baseline.fn == "last"
    assert last.over_time.change.must.holds(49) and not last.over_time.change.must.holds(50)
    assert last.check.must == th.ANY_VALUE  # type: ignore[union-attr]
    change = avg.over_time.change  # type: ignore[union-attr]
    assert (change.baseline.fn, change.baseline.runs) == ("avg", 7)
    assert change.must.holds(10) and change.warn is not None and not change.warn.holds(3)
    assert avg.kind == "soda:missing_count"


def test_change_of_duplicates_and_lengths(tmp_path):
    text = "checks for orders:\n  - change for duplicate_count(id) < 2\n  - change for max_length(e) < 3\n"
    duplicates, longest = rules(tmp_path, text)
    assert duplicates.check.metric == GroupMetric(("id",), "duplicated_values")  # type: ignore[union-attr]
    assert longest.check.metric == AggregateMetric("max", "e", length=True)  # type: ignore[union-attr]
    assert duplicates.over_time is not None and longest.over_time is not None


@pytest.mark.parametrize(
    ("check", "said"),
    [
        ("change percent for row_count < 5", "percent"),
        ("change same day last week for row_count < 5", "same day last week"),
        ("change for missing_percent(x) < 5", "not supported"),
    ],
)
def test_change_refused(tmp_path, check, said):
    path = write(tmp_path, f"checks for orders:\n  - {check}\n", "checks.yml")
    assert said in errors(path)


def test_for_each_dataset(tmp_path):
    path = write(
        tmp_path,
        """
        for each dataset T:
          datasets: [orders, customers]
          checks:
            - row_count > 0
        checks for orders:
          - missing_count(email) = 0
        """,
        "checks.yml",
    )
    suite = load(path)
    assert [(t.name, len(t.rules)) for t in suite.tables] == [("orders", 2), ("customers", 1)]
    pattern = write(
        tmp_path,
        "for each dataset T:\n  datasets: [include cust%]\n  checks:\n    - row_count > 0\n",
        "p.yml",
    )
    assert "patterns" in errors(pattern)


def test_a_plain_source_is_the_one_dataset_of_the_file(tmp_path):
    one = write(
        tmp_path,
        "checks for orders:\n  - values in (c) must exist in customers (c)\n",
        "one.yml",
    )
    suite = load(one, source="data/o.parquet")
    reference = suite.tables[0].rules[0].check.lookup.reference  # type: ignore[union-attr]
    assert isinstance(suite.tables[0].source, PathSource)
    assert reference.source == CatalogSource("customers")
    two = write(
        tmp_path, "checks for a:\n  - row_count > 0\nchecks for b:\n  - row_count > 0\n", "two.yml"
    )
    assert "the file checks a, b" in errors(two, source="data/o.parquet")
    named = load(two, source="b=data/b.parquet")
    assert [type(t.source).__name__ for t in named.tables] == ["CatalogSource", "PathSource"]


def test_user_defined_metrics(tmp_path):
    # an expression is one more aggregate of the table's plan; a query runs as written,
    # its dataset read as the checked table, outside the section's partition
    expression, query, partitioned = rules(
        tmp_path,
        """
        filter orders [big]:
          where: amount > 50
        checks for orders:
          - avg_surface between 1 and 9:
              avg_surface expression: avg(size * distance)
          - big:
              big query: SELECT count(*) FROM orders o WHERE o.amount > ${LIMIT}
              warn: when > 5
              fail: when > 10
        checks for orders [big]:
          - everything = 0:
              everything query: SELECT count(*) FROM orders
        """,
        variables={"LIMIT": "100"},
    )
    assert expression.check == MetricCheck(
        SqlMetric("avg(size * distance)"), Between(Decimal(1), Decimal(9), "between 1 and 9")
    )
    assert expression.filter is None and expression.kind == "soda:avg_surface"
    assert isinstance(query.check, SqlCheck) and query.check.mode == "value"
    assert query.check.query == ("SELECT COUNT(*) FROM _validation_df AS o WHERE o.amount > 100")
    assert query.check.must.holds(10) and not query.check.must.holds(11)  # type: ignore[union-attr]
    assert query.check.warn.holds(5) and not query.check.warn.holds(6)  # type: ignore[union-attr]
    assert partitioned.filter is None
    assert partitioned.check.query == "SELECT COUNT(*) FROM _validation_df AS orders"  # type: ignore[union-attr]
    assert [p for p, _ in query.places] == ["query"]


def test_user_defined_expression_refused_in_a_partition(tmp_path):
    path = write(
        tmp_path,
        "filter orders [big]:\n  where: a > 1\nchecks for orders [big]:\n"
        "  - s < 9:\n      s expression: avg(a)\n  - row_count < 9:\n"
        "      row_count expression: count(*)\n",
        "checks.yml",
    )
    message = errors(path)
    assert "checks.yml:4 " in message and "partition [big] is not supported" in message
    assert "checks.yml:6 " in message and "Soda's own metric" in message


def test_a_query_value_judged_as_a_metric(tmp_path):
    from assay.judge.own import judge_sql

    (rule,) = rules(
        tmp_path,
        "checks for t:\n  - n between 1 and 5:\n      n query: SELECT max(a) FROM t\n",
    )
    assert judge_sql(rule, 1, Decimal("2.5")).severity == "pass"
    assert judge_sql(rule, 1, 7).severity == "fail"
    assert judge_sql(rule, 0, None).message == "the query returned no row; must be between 1 and 5"
    assert judge_sql(rule, 1, None).severity == "fail"
    assert judge_sql(rule, 1, "x").severity == "error"
    assert judge_sql(rule, 2, 3).severity == "error"


GROUP_BY = """checks for orders:
  - group by:
      query: {query}
      fields: [status]
      checks:
        - {check}:
            name: per status
"""
GOOD_QUERY = "SELECT status, avg(o.amount) AS a, count(*) AS n FROM orders o WHERE amount > 0 GROUP BY status"


def test_group_by_is_a_metric_per_group(tmp_path):
    check = "a > 5:\n            name: average\n        - n < 9"
    avg, rows = rules(tmp_path, GROUP_BY.format(query=GOOD_QUERY, check=check))
    assert avg.check.metric == ColumnMetric("avg", "amount")  # type: ignore[union-attr]
    assert avg.check.group_by == ("status",)  # type: ignore[union-attr]
    assert rows.check.metric == RowCountMetric() and rows.name == "per status"  # type: ignore[union-attr]
    assert avg.filter is not None and "amount > 0" in repr(avg.filter)


@pytest.mark.parametrize(
    ("query", "check", "line", "said"),
    [
        (
            GOOD_QUERY.replace("GROUP BY status", "GROUP BY status HAVING n > 1"),
            "a > 5",
            3,
            "HAVING",
        ),
        (GOOD_QUERY.replace("orders o", "orders o JOIN c ON o.id = c.id"), "a > 5", 3, "a join"),
        (GOOD_QUERY.replace("FROM orders", "FROM other"), "a > 5", 3, "not the dataset"),
        (GOOD_QUERY.replace("GROUP BY status", "GROUP BY status, code"), "a > 5", 3, "alone"),
        (GOOD_QUERY.replace("count(*)", "count(DISTINCT id)"), "n > 5", 3, "distinct"),
        (GOOD_QUERY.replace("avg(o.amount)", "avg(amount * 2)"), "a > 5", 3, "is not count(*)"),
        (GOOD_QUERY, "b > 5", 6, "not a column of the group by"),
        (GOOD_QUERY, "avg(a) > 5", 6, "'<column> <threshold>'"),
    ],
)
def test_group_by_refused_at_its_line(tmp_path, query, check, line, said):
    path = write(tmp_path, GROUP_BY.format(query=query, check=check), "checks.yml")
    message = errors(path)
    assert said in message and f"checks.yml:{line} " in message, message


def test_group_by_check_needs_a_name(tmp_path):
    text = GROUP_BY.format(query=GOOD_QUERY, check="a > 5").replace(
        "            name: per status\n", ""
    )
    message = errors(write(tmp_path, text.replace("- a > 5:", "- a > 5"), "checks.yml"))
    assert "needs a 'name'" in message and "checks.yml:6 " in message, message


def test_fail_query_and_lengths(tmp_path):
    text = """checks for orders:
  - failed rows:
      fail query: SELECT * FROM orders WHERE a < 0
  - failed rows:
      fail query: SELECT * FROM orders WHERE a < 0
      fail: when > 2
  - max_length(email) < 30
  - row_count same as other
"""
    rows, counted, longest, same = rules(tmp_path, text)
    assert rows.check == SqlCheck(
        "SELECT * FROM _validation_df AS orders WHERE a < 0", "failed_rows"
    )
    assert counted.check.mode == "value" and "count(*)" in counted.check.query  # type: ignore[union-attr]
    assert longest.check.metric == AggregateMetric("max", "email", length=True)  # type: ignore[union-attr]
    assert same.check.metric.reference.source == CatalogSource("other")  # type: ignore[union-attr]

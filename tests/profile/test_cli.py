"""``assay profile`` as users run it: JSON lines on stdout (valid events), the HTML page,
``--explain`` without a scan, and clean errors with their exit codes."""

from __future__ import annotations

import pytest

from tests.cli.test_cli import assert_clean_error, json_lines
from tests.helpers import assay_cli as assay

pytestmark = pytest.mark.spark

ORDERS = "examples/data/orders.parquet"


def test_profile_prints_a_line_per_column_then_the_table(server, tmp_path):
    page = tmp_path / "profile.html"
    proc = assay("profile", ORDERS, "--remote", server.url, "--html", str(page))
    assert proc.returncode == 0, proc.stderr
    *columns, table = json_lines(proc.stdout)
    assert [c["column"] for c in columns] == ["order_id", "customer_id", "email", "status",
                                              "quantity", "amount", "coupon", "ordered_on"]  # fmt: skip
    assert table["event"] == "profile_table" and table["row_count"] == 1000
    assert table["candidate_keys"] == [["order_id"]] and table["spark_plans"] <= 2
    html = page.read_text()
    assert "Profile of orders" in html and html.count('class="card"') == 8
    assert 'class="chart histogram"' in html and 'class="chart top"' in html


def test_a_sample_says_so_on_every_number(server):
    proc = assay("profile", ORDERS, "--remote", server.url, "--sample", "0.5",
                 "--columns", "status,amount")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    events = json_lines(proc.stdout)
    assert [e.get("column") for e in events] == ["status", "amount", None]
    assert all(e["sample"] == 0.5 for e in events) and events[-1]["row_count"] < 1000


def test_explain_says_which_plans_and_why_without_a_scan(server):
    before = server.sql_executions()
    proc = assay("profile", ORDERS, "--remote", server.url, "--explain")
    assert proc.returncode == 0, proc.stderr
    assert server.sql_executions() == before
    assert "plan 1, " in proc.stdout and "plan 2, only when plan 1 shows" in proc.stdout
    assert "histograms (10 equal-width bins)" in proc.stdout
    assert "frequency tables of the columns among" in proc.stdout


def test_a_csv_path_with_reader_options(server):
    proc = assay("profile", "examples/data/people.csv", "--option", "header=true",
                 "--option", "inferSchema=true", "--remote", server.url)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json_lines(proc.stdout)[-1]["source"].startswith("csv ")


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        ((ORDERS, "--columns", "nope"), 2, "--columns: the source has no column 'nope'"),
        ((ORDERS, "--sample", "2"), 2, "--sample must be a fraction in (0, 1]"),
        ((), 2, "give SOURCE (a table or a path) or --sql QUERY"),
        (("--sql", "SELEC 1"), 2, "<command line> --sql"),
        (("data/orders.xyz",), 2, "cannot tell the data format from its extension"),
        (("no_such_db.no_such_table",), 3, "<command line> SOURCE: table no_such_db"),
    ],
)
def test_bad_input_is_an_error_at_its_option(server, args, code, said):
    proc = assay("profile", *args, "--remote", server.url)
    assert_clean_error(proc, code, said)


def test_an_unreachable_server_is_exit_3():
    # a port nobody listens on refuses at once; pyspark retries that within a budget of
    # half the connect timeout (12 s of the default 30: the retry policy's own test)
    proc = assay(
        "profile", ORDERS, "--remote", "sc://localhost:1", env={"ASSAY_CONNECT_TIMEOUT": "4"}
    )
    assert_clean_error(proc, 3)

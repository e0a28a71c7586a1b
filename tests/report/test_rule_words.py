"""What a report calls a rule and what it says it measured, from a real run: a JUnit
test case is named by the rule's name, else its identity (``not_null(customer_id)``,
``expression {"expression":"amount > 0"}``), never by its bare type, and names stay unique
within a suite; a ``group_by`` rule's number is the count of failing groups and every
report says so (``0 of 4 groups fail``), never a bare ``measured 0``."""

from __future__ import annotations

import pytest

from assay.report.history import load_runs
from assay.report.junit import junit_xml
from assay.report.openlineage import assertion
from assay.report.render import render_html, render_markdown
from tests.conftest import ROOT
from tests.report.pages import dom, find, text
from tests.report.test_cli import assay
from tests.report.test_junit import read

pytestmark = pytest.mark.spark

CONFIG = f"""\
version: 1
tables:
  - name: orders
    source: {{path: {ROOT / "examples/data/orders.parquet"}}}
    keys: [order_id]
    rules:
      - {{type: expression, expression: "amount > 0"}}
      - {{type: sql, query: "SELECT count(*) = 0 FROM _validation_df WHERE amount <= 0"}}
      - {{type: row_count, min: 1}}
      - {{type: row_count, must_be: "> 0"}}
      - {{type: not_null, column: customer_id}}
      - {{type: not_null, column: customer_id, level: warn}}
      - {{type: sql, name: amounts are positive,
          query: "SELECT count(*) = 0 FROM _validation_df WHERE amount <= 0"}}
      - {{type: row_count, group_by: [status], must_be: "> 0"}}
      - {{type: avg, column: amount, group_by: status, must_be: "< 200"}}
"""


@pytest.fixture(scope="module")
def events(server, tmp_path_factory) -> list[dict]:
    tmp = tmp_path_factory.mktemp("words")
    config = tmp / "orders.yaml"
    config.write_text(CONFIG)
    done = assay("run", str(config), "--remote", server.url)
    assert done.returncode == 1, done.stderr
    saved = tmp / "run.jsonl"
    saved.write_text(done.stdout)
    [run] = load_runs([saved])
    return run


def results(events: list[dict]) -> list[dict]:
    return [e for e in events if e["event"] == "result"]


def test_junit_cases_are_named_by_name_else_identity_and_unique(events, tmp_path):
    [suite] = read(tmp_path, junit_xml(events))
    names = [case.name for case in suite]
    assert names == [
        'expression {"expression":"amount > 0"}',
        'sql {"query":"SELECT count(*) = 0 FROM _validation_df WHERE amount <= 0"}',
        'row_count {"min":1}',
        "row_count",
        "not_null(customer_id)",
        "not_null(customer_id) #2",
        "amounts are positive",
        'row_count {"group_by":["status"]}',
        'avg(amount) {"group_by":"status"}',
    ]
    assert len(set(names)) == len(names)


def test_a_group_by_rule_says_how_many_of_its_groups_fail(events, tmp_path):
    passing, failing = results(events)[-2:]
    groups = passing["details"]["groups"]
    assert (passing["metric_value"], groups) == (0, 4), passing
    said = f"0 of {groups} groups fail"
    failing_count = failing["details"]["failed_groups"]
    said_failing = f"{failing_count} of {failing['details']['groups']} groups fail"
    # JUnit: the case's output and the failure's text
    [suite] = read(tmp_path, junit_xml(events))
    cases = {c.name: c for c in suite}
    out = cases['row_count {"group_by":["status"]}'].system_out
    assert out.startswith(f"failed_groups: {said}\nrow_count: 1000\nlocation: "), out
    [failure] = cases['avg(amount) {"group_by":"status"}'].result
    assert f"failed_groups: {said_failing}\nrow_count: 1000\n" in failure.text
    # HTML: the measured column
    rows = find(dom(render_html(events)), "tr", "rule")
    measured = [text(find(r, "td", "measured")[0]) for r in rows]
    assert measured[-2:] == [said, said_failing]
    failed = [text(find(r, "td", "failed")[0]) for r in rows]
    assert failed[-2:] == ["0 groups", f"{failing_count} groups"]  # no percentage of the rows
    # Markdown (problems only): the failing one
    line = next(x for x in render_markdown(events).splitlines() if "| avg" in x)
    assert f"| {said_failing} |" in line
    # OpenLineage: the assertion's actual
    assert assertion(passing)["actual"] == said
    assert assertion(failing)["actual"] == said_failing

"""Comparisons in the HTML page and the Markdown summary, from saved runs (tests/report/data:
compare.yaml's table and two comparisons, an earlier run of it, the same data as a
spark-data-test job, and examples/compare/orders_copy.yaml): every count, column, check
and sample of the ``comparison`` lines on the page, the differing cells marked, the
trends of the comparison metrics, and the Markdown golden files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay.report.history import load_runs
from assay.report.render import render_html, render_markdown
from tests.report.pages import check_page, classes, dom, find, text
from tests.report.test_markdown import golden

DATA = Path(__file__).parent / "data"
MIXED = DATA / "compare.jsonl"
EARLIER = DATA / "compare-earlier.jsonl"
SDT = DATA / "compare-sdt.jsonl"
EXAMPLE = DATA / "orders-copy.jsonl"


def one(path: Path) -> list[dict[str, Any]]:
    [events] = load_runs([path])
    return events


def comparisons(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {e["comparison"]: e for e in events if e["event"] == "comparison"}


def section(root, name: str):
    [found] = [s for s in find(root, "section", "comparison") if s.get("data-comparison") == name]
    return found


def shown_counts(section) -> dict[str, Any]:
    """Every count cell of a comparison's section: its name and its exact value."""
    return {
        td.get("data-count"): json.loads(td.get("data-value"))
        for td in section.iter("td")
        if td.get("data-count")
    }


def expected_counts(event: dict[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for name, value in event["counts"].items():
        if isinstance(value, dict):
            flat.update({f"{name}({side})": v for side, v in value.items()})
        else:
            flat[name] = value
    return flat


def sample_table(section) -> tuple[list[str], list[dict[str, Any]]]:
    """The side-by-side sample table: its column names (second header row pairs them),
    and per row its kind, key and each column's (source, target) text and marks."""
    [table] = find(section, "table", "compared")
    head = [text(th) for th in find(table, "tr")[0].iter("th")]
    columns = [h for h in head if h not in ("row", "order_id")]
    rows = []
    for tr in find(table, "tbody")[0].iter("tr"):
        cells = list(tr.iter("td"))
        kind, key, values = text(cells[0]), text(cells[1]), cells[2:]
        pairs = {
            c: ((text(values[2 * i]), classes(values[2 * i])),
                (text(values[2 * i + 1]), classes(values[2 * i + 1])))
            for i, c in enumerate(columns)
        }  # fmt: skip
        rows.append({"kind": kind, "key": key, "cells": pairs})
    return columns, rows


# --- the newcomer's run: a config with only a comparison ---------------------------------


def test_a_run_of_only_a_comparison_shows_the_comparison():
    events = one(EXAMPLE)
    page = render_html(events)
    root = check_page(events, page)
    assert "No table ran" not in page and "0 tables" not in text(root)
    assert text(root.find(".//span[@id='n-comparisons']")) == "1 comparison: 1 fail"
    [event] = comparisons(events).values()
    found = section(root, "orders_copy")
    assert text(find(found, "span", "verdict")[0]) == "fail: fails the run"
    assert shown_counts(found) == expected_counts(event)
    assert shown_counts(found)["source_rows"] == 1000 and shown_counts(found)["target_rows"] == 999
    checks = {r.get("data-metric"): r for r in find(found, "tr", "check")}
    assert {m: r.get("data-severity") for m, r in checks.items()} == {
        "missing_in_target": "fail",
        "mismatch_percent(amount)": "pass",
        "duplicate_keys(source)": "pass",
    }
    _, rows = sample_table(found)
    [missing] = rows
    assert missing["kind"] == "missing in target" and missing["key"] == "18"
    assert missing["cells"]["email"][0][0] == "customer17.example.com"
    assert {target for _, (target, _) in missing["cells"].values()} == {"missing"}


def test_the_markdown_of_only_a_comparison_does_not_say_every_rule_passed():
    text_ = render_markdown(one(EXAMPLE))
    golden("orders-copy.md", text_)
    assert "Every rule passed" not in text_ and "| table |" not in text_
    assert (
        "| orders\\_copy | fail: fails the run | 1,000 | 999 | 999 | 99.9% | 0 | 1 | 0 |" in text_
    )
    assert "| `missing_in_target` | = 0 | 1 | fail: fails the run |" in text_


# --- a run with a table and comparisons ---------------------------------------------------


def test_a_mixed_run_shows_its_table_and_every_comparison():
    events = one(MIXED)
    root = check_page(events, render_html(events))
    assert [s.get("data-table") for s in find(root, "section", "table")] == ["orders"]
    assert [s.get("data-comparison") for s in find(root, "section", "comparison")] == [
        "orders_copy",
        "orders_self",
    ]  # config order
    assert text(root.find(".//span[@id='n-comparisons']")) == "2 comparisons: 1 pass 1 fail"
    for name, event in comparisons(events).items():
        found = section(root, name)
        assert found.get("data-severity") == event["severity"]
        assert shown_counts(found) == expected_counts(event)
        checks = find(found, "tr", "check")
        assert [r.get("data-metric") for r in checks] == [c["metric"] for c in event["checks"]]
        for row, check in zip(checks, event["checks"], strict=True):
            assert row.get("data-severity") == check["severity"]
            cells = {td.get("data-label"): td for td in row.iter("td")}
            assert json.loads(cells["value"].get("data-value")) == check["value"]
            assert text(cells["threshold"]) == check["threshold"]
    labels = [text(label) for label in find(root, "nav")[0].iter("label")]
    assert labels[2:] == ["all", "orders", "orders_copy", "orders_self"]


def test_columns_the_chart_of_mismatches_and_the_checks():
    events = one(MIXED)
    root = dom(render_html(events))
    found = section(root, "orders_copy")
    columns = {
        tr.get("data-column"): [text(td) for td in tr.iter("td")]
        for tr in find(found, "table", "columns-table")[0].iter("tr")
        if tr.get("data-column")
    }
    assert columns == {
        "customer": ["1", "0", "16.67%", ""],
        "amount": ["3", "1", "50%", "1.25"],
        "qty": ["0", "0", "0%", "0"],
    }
    [chart] = find(found, "svg", "columns")
    bars = [text(t) for bar in find(chart, "g", "bar") for t in find(bar, "text")]
    assert bars == [
        "customer", "1 (16.67%)", "amount", "3 (50%), 1 null vs value, max diff 1.25",
    ]  # fmt: skip
    [rows] = find(found, "svg", "rows")  # native counts: each side's rows add up
    assert [text(b.find("{*}title")) for b in find(rows, "g", "bar")] == [
        "source: 8 rows: 2 in a matched pair · 4 in a pair that differs · 2 in no pair",
        "target: 7 rows: 2 in a matched pair · 4 in a pair that differs · 1 in no pair",
    ]
    verdicts = [text(find(r, "span", "badge")[0]) for r in find(found, "tr", "check")]
    assert verdicts == ["fail: fails the run"] * 4
    passing = section(root, "orders_self")
    assert not find(passing, "svg", "columns") and "clean" in classes(passing)
    assert not find(passing, "table", "compared")  # nothing differs: no samples


def test_sample_rows_side_by_side_with_the_differing_cells_marked():
    events = one(MIXED)
    event = comparisons(events)["orders_copy"]
    columns, rows = sample_table(section(dom(render_html(events)), "orders_copy"))
    assert columns == ["customer", "amount", "qty"]
    differing = {(str(m["key"]["order_id"]), m["column"]) for m in event["samples"]["mismatched"]}
    marked = {
        (r["key"], c)
        for r in rows
        for c, ((_, s_cls), (_, t_cls)) in r["cells"].items()
        if "diff" in s_cls and "diff" in t_cls
    }
    assert (
        marked
        == differing
        == {("4", "customer"), ("3", "amount"), ("5", "amount"), ("6", "amount")}
    )
    one_side = {
        (r["key"], c) for r in rows for c, pair in r["cells"].items() if "diff" in pair[0][1]
    }
    assert one_side == marked  # never one side only
    by_key = {(r["kind"], r["key"]): r["cells"] for r in rows}
    assert by_key[("differs", "6")]["amount"][0][0] == "60.0"
    assert by_key[("differs", "6")]["amount"][1][0] == "61.25"
    assert by_key[("differs", "5")]["amount"][1] == ("null", {"diff", "null"})
    assert by_key[("differs", "3")]["customer"] == (("", {"absent"}), ("", {"absent"}))
    # the source has key 2 twice: a source row in no pair may be key 2's second row, whose
    # key the target has, so none is said to be missing in the target
    assert by_key[("no pair in target", "7")]["customer"] == (
        ("gus", set()),
        ("missing", {"absent"}),
    )
    assert by_key[("missing in source", "8")]["amount"] == (
        ("missing", {"absent"}),
        ("80.0", set()),
    )
    assert [r["kind"] for r in rows].count("no pair in target") == 2  # key 2's second row too
    assert "missing in target" not in [r["kind"] for r in rows]


def test_a_spark_data_test_job_shows_its_reports_and_no_rows_chart():
    events = one(SDT)
    root = check_page(events, render_html(events))
    [event] = comparisons(events).values()
    found = section(root, "orders")
    assert text(find(found, "span", "semantics")[0]) == "spark-data-test"
    assert shown_counts(found) == expected_counts(event)
    writes = [text(li) for li in find(found, "ul", "outputs")[0].iter("li")]
    assert len(writes) == 5 and all(w.endswith(": written") for w in writes)
    # its missing rows are keys and its pairs m·n: the sides' parts do not add up
    assert not find(found, "svg", "rows")


# --- trends ---------------------------------------------------------------------------------


def test_trends_of_comparison_metrics_over_earlier_runs():
    *history, current = load_runs([EARLIER, MIXED])
    root = dom(render_html(current, history))
    found = section(root, "orders_copy")
    trends = {
        svg.get("aria-label").split(":")[0]: [text(t) for t in find(svg, "text")]
        for svg in find(found, "svg", "trend")
    }
    assert trends["Trend of matched_percent"] == ["75%", "25%"]
    assert trends["Trend of unreconciled"] == ["3", "11"]
    assert trends["Trend of missing_in_target"] == ["1", "2"]
    assert trends["Trend of mismatch_percent(amount)"] == ["14.29%", "50%"]
    circles = [c for svg in find(found, "svg", "trend") for c in find(svg, "circle")]
    assert all(len(find(svg, "circle")) == 2 for svg in find(found, "svg", "trend"))
    assert "run 19e69474c626" in text(circles[0])  # the earlier run first
    text_ = render_markdown(current, history)
    golden("compare-trend.md", text_)
    assert (
        "| `matched_percent` | &gt; 50%; warn: = 100% | 25% | fail: fails the run | 75% → 25% |"
        in text_
    )


# --- what a reader tripped on ---------------------------------------------------------------


def test_the_verdict_is_said_once_and_badges_read():
    *history, current = load_runs([DATA / f"orders-2024-01-{d}.jsonl" for d in (29, 30)])
    page = render_html(current, history)
    root = dom(page)
    assert "passed: true" not in text(root) and "severity: pass" not in text(root)
    assert "met must_be" not in page
    warned = [r for r in find(root, "tr", "rule") if r.get("data-severity") == "warn"]
    assert [text(find(r, "span", "badge")[0]) for r in warned] == [
        "warn: passed, outside its warn threshold"
    ]


def test_numbers_are_rounded_on_the_page_and_exact_in_its_attributes():
    events = one(EARLIER)
    found = section(dom(render_html(events)), "orders_copy")
    [amount] = [
        tr
        for tr in find(found, "table", "columns-table")[0].iter("tr")
        if tr.get("data-column") == "amount"
    ]
    diff = [td for td in amount.iter("td") if "diff" in classes(td)][0]
    assert text(diff) == "0.1" and json.loads(diff.get("data-value")) == 0.10000000000000142
    [check] = [
        r for r in find(found, "tr", "check") if r.get("data-metric") == "mismatch_percent(amount)"
    ]
    value = [td for td in check.iter("td") if td.get("data-label") == "value"][0]
    assert text(value) == "14.29%" and json.loads(value.get("data-value")) == 14.285714285714286


def test_a_long_float_in_a_message_is_rounded_for_display():
    result = {
        "event": "result", "schema_version": 1, "run_id": "r", "table": "people", "rule_index": 0,
        "rule": {"type": "colstats", "name": None, "columns": ["age"], "code": None},
        "passed": True, "severity": "pass", "blocking": False, "waiver": None,
        "failed_count": None, "row_count": 7, "metric_value": None, "threshold": None,
        "message": "colstats(age): count 7, mean 4.857142857142857, min -1, max 10, "
                   "stdDev 17.17556403731767",
        "samples": None, "location": {"file": "p.yaml", "path": "tables[0].rules[0]", "line": 3},
        "elapsed_ms": 1,
        "details": {"count": 7, "mean": 4.857142857142857, "min": -1.0, "max": 10.0,
                    "stdDev": 17.17556403731767, "histogram": None},
    }  # fmt: skip
    root = dom(render_html([result]))
    [row] = find(root, "tr", "rule")
    shown = text(find(row, "div", "msg")[0])
    assert shown == "colstats(age): count 7, mean 4.85714, min -1, max 10, stdDev 17.1756"
    [details] = find(root, "div", "details")
    assert text(details) == "count 7 · mean 4.85714 · min -1 · max 10 · stdDev 17.1756"
    assert json.loads(details.get("data-value"))["stdDev"] == 17.17556403731767  # exact


def test_a_table_without_failing_rows_has_no_all_zero_chart():
    events = one(DATA / "orders.jsonl")
    root = dom(render_html(events))
    [customers] = [s for s in find(root, "section", "table") if s.get("data-table") == "customers"]
    assert not find(customers, "svg", "failing")
    [orders] = [s for s in find(root, "section", "table") if s.get("data-table") == "orders"]
    assert len(find(orders, "svg", "failing")) == 1  # a rule fails there: its chart stays


@pytest.mark.parametrize("path", [MIXED, EXAMPLE, SDT], ids=["mixed", "only-comparison", "sdt"])
def test_the_email_body_shows_comparisons_too(path):
    events = one(path)
    root = dom(render_html(events, email=True))
    assert not list(root.iter("script")) and not list(root.iter("input"))
    assert len(find(root, "section", "comparison")) == len(comparisons(events))


def test_a_comparison_spark_failed_on_shows_its_error():
    """After an error the line has no counts, schema, columns, checks or samples."""
    events = one(EXAMPLE)
    event = events[0]
    event.update(
        counts=None, schema=None, columns=[], checks=[], samples=None, passed=False,
        severity="error", blocking=False, error="cannot read its target: PATH_NOT_FOUND",
    )  # fmt: skip
    root = dom(render_html(events))
    found = section(root, "orders_copy")
    assert text(find(found, "div", "table-error")[0]) == event["error"]
    assert text(find(found, "span", "verdict")[0]) == "error: not evaluated"
    assert not shown_counts(found) and not find(found, "tr", "check")
    [bar] = find(find(root, "svg", "overview")[0], "g", "bar")
    assert text(bar.find("{*}title")) == "orders_copy: 1 error"
    markdown = render_markdown(events)
    assert "| orders\\_copy | error: not evaluated |  |" in markdown
    assert "**error**: cannot read its target: PATH\\_NOT\\_FOUND" in markdown


def test_the_schema_section_lists_columns_of_one_side_and_type_differences():
    events = one(MIXED)
    event = comparisons(events)["orders_copy"]
    event["schema"] = {
        "source_only": ["coupon"],
        "target_only": ["loaded_at"],
        "type_differences": [{"column": "qty", "source": "int", "target": "bigint"}],
    }
    [schema] = find(section(dom(render_html(events)), "orders_copy"), "ul", "schema")
    assert [text(li) for li in schema.iter("li")] == [
        "only in the source: coupon",
        "only in the target: loaded_at",
        "qty: int in the source, bigint in the target",
    ]

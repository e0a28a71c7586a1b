"""The HTML report, read back with a real HTML parser: every table and rule in config
order with the values of its JSON line, the charts, the samples, and nothing that could
load from outside the page."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.report.history import load_runs
from assay.report.render import render_html
from tests.report.conftest import EXAMPLES, NASTY
from tests.report.pages import check_page, classes, dom, find, sample_cells, samples_shown, text

DATA = Path(__file__).parent / "data"
HISTORY = [
    DATA / "orders-2024-01-29.jsonl",
    DATA / "orders-2024-01-30.jsonl",
    DATA / "orders.jsonl",
]


def check_samples(events, root) -> None:
    keys = {e["table"]: e.get("keys", []) for e in events if e["event"] == "table"}
    for section in find(root, "section", "table"):
        table = section.get("data-table")
        lines = {
            e["rule_index"]: e for e in events if e["event"] == "result" and e["table"] == table
        }
        shown = samples_shown(section)
        assert set(shown) == {i for i, e in lines.items() if e["samples"]}
        for index, (head, cells) in shown.items():
            want_head, want_cells = sample_cells(lines[index]["samples"], keys[table])
            assert head == want_head and cells == [
                [" ".join(c.split()) for c in r] for r in want_cells
            ]


@pytest.mark.spark
@pytest.mark.parametrize("example", list(EXAMPLES))
def test_every_example_renders_with_the_values_of_its_lines(example_events, example):
    events = example_events[example]
    root = check_page(events, render_html(events))
    check_samples(events, root)


@pytest.mark.spark
def test_a_table_with_every_rule_type(every_events):
    page = render_html(every_events)
    root = check_page(every_events, page)
    check_samples(every_events, root)
    [section] = find(root, "section", "table")
    rows = {int(r.get("data-rule-index")): r for r in find(section, "tr", "rule")}
    results = [e for e in every_events if e["event"] == "result"]
    assert len(rows) == len(results) >= 60
    assert len(find(section, "svg", "histogram")) == 2  # the two colstats rules
    states = {i: next(c for c in classes(r) if c.startswith("s-")) for i, r in rows.items()}
    for r in results:
        want = {"pass": "s-pass", "warn": "s-warn", "error": "s-error"}.get(r["severity"])
        if r["severity"] == "pass" and r["failed_count"]:
            want = "s-tolerated"
        elif r["severity"] == "fail":
            want = "s-fail" if r["blocking"] else "s-waived"
        assert states[r["rule_index"]] == want, r
    tolerated = [r for r in results if r["passed"] and r["failed_count"]]
    assert tolerated, "the accepted_values rule with a 50% tolerance"
    for r in tolerated:
        verdict = text(find(rows[r["rule_index"]], "span", "badge")[0])
        assert verdict.startswith("pass: ") and "tolerated" in verdict


@pytest.mark.spark
def test_markup_in_names_messages_and_samples_is_text(every_events):
    page = render_html(every_events)
    root = dom(page)
    scripts = list(root.iter("script"))
    assert len(scripts) == 1 and "alert" not in text(scripts[0])  # only the page's own
    assert "<script>alert" not in page
    assert (
        "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &#34;quoted&#34; &amp; ünïcødé ✓" in page
    )
    shown = [r for r in find(root, "tr", "rule") if NASTY in text(r)]
    assert len(shown) == 1  # the rule's name
    cells = [text(td) for td in root.iter("td")]
    assert NASTY in cells  # and the sample value, as a cell of its own


def test_trends_over_saved_runs():
    *history, current = load_runs(HISTORY)
    root = check_page(current, render_html(current, history))
    trends = find(root, "svg", "trend")
    rules = [e for e in current if e["event"] == "result"]
    assert len(trends) == len(rules)
    for svg in trends:
        assert len(find(svg, "circle")) == 3  # one dot per run, this one last
    [regex] = [r for r in find(root, "tr", "rule") if r.get("id") == "t0-r4"]
    titles = [text(c) for c in find(regex, "circle")]
    assert [t.split(": ")[-1] for t in titles] == ["0.9%", "0%", "0.3%"]  # oldest first
    # the sparkline says its values: the first run's at its start, this run's at its end
    [trend] = find(regex, "svg", "trend")
    assert [text(t) for t in find(trend, "text")] == ["0.9%", "0.3%"]


def test_the_email_body_has_no_filters_and_no_script():
    [current] = load_runs([HISTORY[-1]])
    root = dom(render_html(current, email=True))
    assert (
        not list(root.iter("script"))
        and not list(root.iter("input"))
        and not list(root.iter("nav"))
    )
    assert len(find(root, "section", "table")) == 2


def test_a_stream_cut_before_its_summary_still_renders():
    [current] = load_runs([HISTORY[-1]])
    cut = [e for e in current if e["event"] != "summary"]
    root = dom(render_html(cut))
    assert text(find(root, "span", "status")[0]) == "FAIL"
    assert "did not finish" in text(root.find(".//p[@id='exit-reason']"))


@pytest.mark.spark
def test_a_failing_row_rule_shows_the_bound_it_was_checked_against(example_events):
    """The reader of a failing range sees the bound beside the failing values."""
    events = example_events["native"]
    root = dom(render_html(events))
    [section] = [s for s in find(root, "section", "table") if s.get("data-table") == "orders"]
    shown = [
        text(td)
        for row in find(section, "tr", "rule")
        for td in row.iter("td")
        if td.get("data-label") == "threshold"
    ]
    assert "quantity between 1 and 20" in shown, shown

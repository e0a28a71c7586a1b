"""Rules judged over time in the reports: a run with no earlier run saved still gets a
trend from the earlier values its results carry, the band its history allowed is drawn
behind the last value, and the values judged anomalies are marked (data/monitoring.jsonl:
day 6 of tests/monitoring/scenario.py, whose row count dropped 40%)."""

from __future__ import annotations

from pathlib import Path

from assay.report.history import load_runs
from assay.report.model import build
from assay.report.render import render_html, render_markdown
from tests.report.pages import check_page, classes, dom, find

RUN = Path(__file__).parent / "data" / "monitoring.jsonl"


def events() -> list[dict]:
    [run] = load_runs([RUN])
    return run


def test_a_rule_judged_over_time_has_a_trend_from_its_baseline_with_its_band():
    rules = {r.name or r.type: r for r in build(events()).tables[0].rules}
    online = rules["rows_online"]
    assert [p.value for p in online.points] == [1000.0, 1010.0, 990.0, 1005.0, 1002.0, 600.0]
    assert [p.anomalous for p in online.points] == [False] * 5 + [True]
    assert online.trend_unit == ""  # the value it was judged by, not a failing percentage
    band = online.trend.bars[0]
    assert band.title == "allowed this run: 776.827 – 1225.97"
    # the failed count of a row rule, with the change's band (no lower bound)
    nulls = rules["not_null"]
    assert (nulls.trend_unit, [p.value for p in nulls.points]) == ("rows", [4, 4, 4, 3])
    assert nulls.trend.bars[0].title == "allowed this run: … – 9"


def test_the_page_draws_the_band_and_marks_the_anomaly():
    lines = events()
    page = render_html(lines)
    root = check_page(lines, page)
    bands = [r for r in find(root, "rect") if "band" in classes(r)]
    assert len(bands) == 4  # every rule of the run is judged over time
    marked = [c for c in find(root, "circle") if "anomaly" in classes(c)]
    assert len(marked) == 2  # day 6 under both online_normal rules
    assert all("(an anomaly)" in "".join(c.itertext()) for c in marked)
    assert dom(page) is not None


def test_the_markdown_summary_has_the_trend_column():
    summary = render_markdown(events())
    header = next(line for line in summary.splitlines() if line.startswith("| table | #"))
    assert header.endswith(" trend |")

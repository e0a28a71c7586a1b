"""A drift result's chart in the HTML page: both distributions, the table's and the
reference's share of every bin side by side, drawn from the event's
``details.drift.distribution`` alone (a real run's events), and the page still a valid,
self-contained document in a real browser."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay.report.charts_drift import distributions
from assay.report.render import render_html
from tests.helpers import run_config, validate_event, write_config
from tests.report import browser
from tests.report.pages import dom, find

TABLE = [1.0] * 30 + [2.0] * 50 + [3.0] * 20 + [9.0] * 10
REFERENCE = [1.0] * 10 + [2.0] * 10 + [3.0] * 60


@pytest.fixture(scope="module")
def events(spark, tmp_path_factory) -> list[dict]:
    base = tmp_path_factory.mktemp("drift_chart")
    paths = {}
    for name, values in (("t", TABLE), ("r", REFERENCE)):
        paths[name] = str(base / f"{name}.parquet")
        spark.createDataFrame([(v,) for v in values], "x double").coalesce(1).write.parquet(
            paths[name]
        )
    cats = str(base / "cats.parquet")
    spark.range(140).selectExpr("concat('c', cast(id % 70 as string)) AS c").write.parquet(cats)
    config = f"""
tables:
  - name: t
    source: {{path: "{paths["t"]}", format: parquet}}
    rules:
      - {{type: drift, column: x, method: psi, bins: 4,
         references: {{path: "{paths["r"]}", format: parquet}}}}
  - name: cats
    source: {{path: "{cats}", format: parquet}}
    rules:
      - {{type: drift, column: c, method: js, bins: values,
         references: {{path: "{cats}", format: parquet}}}}
"""
    return run_config(spark, write_config(base, config)).events


def _drift(events: list[dict], table: str) -> dict:
    (result,) = [e for e in events if e.get("event") == "result" and e.get("table") == table]
    validate_event(result)
    return result["details"]["drift"]


def test_every_bin_counted_in_the_event(events):
    drift = _drift(events, "t")
    bins = drift["distribution"]["bins"]
    assert len(bins) == 4 and drift["distribution"]["others"] is None
    assert sum(b["table"] for b in bins) == len(TABLE)
    assert sum(b["reference"] for b in bins) == len(REFERENCE)
    # numpy.histogram's bins over both sides' range [1, 9]: [1, 3), [3, 5), [5, 7), [7, 9]
    assert [b["table"] for b in bins] == [80, 20, 0, 10]
    assert [b["reference"] for b in bins] == [20, 60, 0, 0]


def test_many_categories_the_most_frequent_and_the_others(events):
    drift = _drift(events, "cats")
    found = drift["distribution"]
    assert len(found["bins"]) == 50
    assert found["others"]["bins"] == 20
    assert sum(b["table"] for b in found["bins"]) + found["others"]["table"] == 140


def test_the_page_draws_both_shares_of_each_bin(events):
    root = dom(render_html(events))
    (chart,) = [s for s in find(root, "svg", "drift") if "x" in (s.get("aria-label") or "")]
    assert chart.get("aria-label") == "Distributions of x"
    table = find(chart, "rect", "d-table")
    reference = find(chart, "rect", "d-ref")
    assert len(table) == len(reference) == 4 + 1  # a pair per bin, and the legend's
    titles = ["".join(t.itertext()) for g in find(chart, "g", "bar") for t in find(g, "title")]
    assert "[1, 3): table 72.73% (80), reference 25.00% (20)" in titles
    # heights relative to the largest share (the table's 80 of 110), both sides alike
    heights = [float(r.get("height")) for r in table[1:]]
    ref_heights = [float(r.get("height")) for r in reference[1:]]
    top = max(heights)
    assert heights[1] / top == pytest.approx(20 / 80, abs=1e-3)
    assert ref_heights[1] / top == pytest.approx((60 / 80) / (80 / 110), abs=1e-3)


def test_no_chart_without_a_side():
    assert distributions({"distribution": {"bins": [], "others": None}}) is None
    empty = {"bins": [{"bin": "a", "table": 3, "reference": 0}], "others": None}
    assert distributions({"distribution": empty}) is None
    assert distributions({"moved": []}) is None  # an event of an older assay


def test_the_page_in_a_browser(events, tmp_path):
    page = tmp_path / "drift.html"
    page.write_text(render_html(events))
    seen = browser.visit(tmp_path, page)
    assert seen.console == [], seen.console
    charts = find(dom(seen.dom), "svg", "drift")
    assert len(charts) == 2
    shot = browser.screenshot(tmp_path, page, Path(tmp_path) / "drift.png", 1000, 1200)
    assert shot.exists() and re.search(r"\.png$", str(shot))

"""The report in a real browser (headless Chromium): no console error (so no script
error, no blocked load, no request leaving the page), the DOM after its script ran, the
CSS filters hiding what they should, and screenshots kept as test artifacts (their paths
are printed: ``pytest -s``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.report.history import load_runs
from assay.report.render import render_html
from tests.report import browser
from tests.report.pages import dom, find, text

DATA = Path(__file__).parent / "data"
COMPARED = [DATA / "compare-earlier.jsonl", DATA / "compare.jsonl"]
"""A run with a table and two comparisons, and an earlier run of it (the trends)."""
HISTORY = [
    DATA / "orders-2024-01-29.jsonl",
    DATA / "orders-2024-01-30.jsonl",
    DATA / "orders.jsonl",
]

PROBE = """<script>
(function () {
  var rules = document.querySelectorAll("tr.rule");
  var shown = Array.prototype.filter.call(rules, function (r) { return r.offsetParent !== null; });
  var tables = Array.prototype.filter.call(document.querySelectorAll("section.table"),
    function (s) { return s.offsetParent !== null; });
  document.body.setAttribute("data-rules-shown", String(shown.length));
  document.body.setAttribute("data-tables-shown", String(tables.length));
  var units = Array.prototype.filter.call(document.querySelectorAll("section.unit"),
    function (s) { return s.offsetParent !== null; });
  document.body.setAttribute("data-units-shown",
    units.map(function (s) { return s.id; }).join(" "));
  var marked = document.querySelectorAll("table.compared td.diff");
  var seen = Array.prototype.filter.call(marked, function (c) {
    return getComputedStyle(c).backgroundColor !== getComputedStyle(document.body).backgroundColor;
  });
  document.body.setAttribute("data-diff-cells-coloured", seen.length + "/" + marked.length);
  document.body.setAttribute("data-overflow",
    String(document.documentElement.scrollWidth > document.documentElement.clientWidth));
})();
</script></body>"""


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    *history, current = load_runs(HISTORY)
    path = tmp_path_factory.mktemp("browser") / "report.html"
    path.write_text(render_html(current, history))
    return path


def probed(page: Path) -> Path:
    """A copy of the page with a probe that records what the browser shows (the page's
    own markup is unchanged)."""
    copy = page.with_name("probed-" + page.name)
    copy.write_text(page.read_text().replace("</body>", PROBE))
    return copy


def test_no_console_error_and_the_script_ran(page, tmp_path):
    seen = browser.visit(tmp_path, page)
    assert seen.console == [], seen.console
    root = dom(seen.dom)
    assert root.get("data-ready") == "true"
    assert len(find(root, "section", "table")) == 2


def test_a_page_that_loads_or_throws_is_caught(tmp_path):
    """The check above can fail: an error thrown and an image from outside both log."""
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<!DOCTYPE html><img src="https://example.com/x.png"><script>throw new Error("boom")</script>'
    )
    seen = browser.visit(tmp_path, bad)
    assert any("boom" in m for m in seen.console), seen.stderr[-2000:]


def test_the_filters_work_without_javascript_frameworks(page, tmp_path):
    rules = len(find(dom(page.read_text()), "tr", "rule"))
    everything = dom(browser.visit(tmp_path, probed(page)).dom).find("body")
    assert everything.get("data-rules-shown") == str(rules)
    problems = dom(browser.visit(tmp_path, probed(page), "#problems").dom).find("body")
    assert problems.get("data-rules-shown") == "2"  # the regex failure and the warning
    one = dom(browser.visit(tmp_path, probed(page), "#t1").dom).find("body")
    assert one.get("data-tables-shown") == "1"


def test_screenshots(page, tmp_path):
    wide = browser.screenshot(tmp_path, page, tmp_path / "report-wide.png")
    phone = browser.screenshot(tmp_path, page, tmp_path / "report-phone.png", 390, 1800)
    assert wide.exists() and phone.exists()


@pytest.mark.spark
def test_every_rule_type_in_the_browser(every_events, tmp_path):
    path = tmp_path / "every.html"
    path.write_text(render_html(every_events))
    seen = browser.visit(tmp_path, path)
    assert seen.console == [], seen.console
    root = dom(seen.dom)
    assert len(find(root, "tr", "rule")) == sum(e["event"] == "result" for e in every_events)
    assert not [s for s in root.iter("script") if "alert" in "".join(s.itertext())]
    browser.screenshot(tmp_path, path, tmp_path / "every.png", 1280, 4000)


# --- comparisons ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> Path:
    *history, current = load_runs(COMPARED)
    path = tmp_path_factory.mktemp("browser") / "mixed.html"
    path.write_text(render_html(current, history))
    return path


@pytest.fixture(scope="module")
def compared_only(tmp_path_factory) -> Path:
    [current] = load_runs([DATA / "orders-copy.jsonl"])
    path = tmp_path_factory.mktemp("browser") / "compared.html"
    path.write_text(render_html(current))
    return path


def shown(page: Path, tmp: Path, fragment: str = "", *size: str) -> dict[str, str]:
    """What the browser shows of the page (the probe's attributes on ``body``)."""
    done = browser.run(
        tmp, probed(page).as_uri() + fragment, "--dump-dom", "--virtual-time-budget=2000", *size
    )
    return dict(dom(done.stdout).find("body").attrib)


def test_a_comparison_report_in_the_browser(compared_only, tmp_path):
    seen = browser.visit(tmp_path, compared_only)
    assert seen.console == [], seen.console
    root = dom(seen.dom)
    [section] = find(root, "section", "comparison")
    assert text(root.find(".//span[@id='n-comparisons']")) == "1 comparison: 1 fail"
    assert find(section, "table", "compared") and not find(root, "section", "table")
    body = shown(compared_only, tmp_path)
    assert body["data-units-shown"] == "c0" and body["data-overflow"] == "false"
    browser.screenshot(tmp_path, compared_only, tmp_path / "compared-wide.png", 1280, 1800)


def test_a_mixed_run_in_the_browser_filters_tables_and_comparisons(mixed, tmp_path):
    seen = browser.visit(tmp_path, mixed)
    assert seen.console == [], seen.console
    everything = shown(mixed, tmp_path)
    assert everything["data-units-shown"] == "t0 c0 c1"
    assert everything["data-diff-cells-coloured"] == "8/8"  # 4 differing pairs, both sides
    assert shown(mixed, tmp_path, "#problems")["data-units-shown"] == "t0 c0"  # c1 passed
    assert shown(mixed, tmp_path, "#c1")["data-units-shown"] == "c1"
    assert shown(mixed, tmp_path, "#t0")["data-units-shown"] == "t0"


def test_a_mixed_run_on_a_phone(mixed, tmp_path):
    phone = shown(mixed, tmp_path, "", "--window-size=390,1800")
    assert phone["data-overflow"] == "false"  # wide tables scroll in their own box
    browser.screenshot(tmp_path, mixed, tmp_path / "mixed-phone.png", 390, 4000)
    browser.screenshot(tmp_path, mixed, tmp_path / "mixed-wide.png", 1280, 3000)

"""The page of a one-off ``assay compare`` (``assay report compared.jsonl --html``) and a
profile's page, in headless Chromium: what a user reads at 1400 px. Sample cells break
between words, the rows-per-side legend is whole, the run's server and command are
recorded, the exit reason names no internal place, extra rows of a duplicated key say
the key is duplicated (not missing), and the profile's top-value labels are legible."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.report import browser
from tests.report.pages import dom, find, text
from tests.report.test_cli import assay

pytestmark = pytest.mark.spark

DATA = Path(__file__).parent / "data" / "compare"

MEASURE = """<script>
window.addEventListener('load', () => {
  const found = {};
  // sample cells: does any break inside a word?
  const broken = [];
  for (const td of document.querySelectorAll('table.samples td, table.samples th')) {
    const range = document.createRange();
    range.selectNodeContents(td);
    const lines = new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top)));
    // a line may end at a space or after a hyphen or a slash, never inside a word
    const words = td.textContent.trim().split(/\\s+|(?<=[-\\/])/).filter(Boolean).length;
    if (lines.size > Math.max(words, 1)) broken.push(td.textContent.trim());
  }
  found.broken = broken;
  // legends and chart labels: inside their SVG?
  const cut = [];
  for (const svg of document.querySelectorAll('svg.chart')) {
    const box = svg.viewBox.baseVal;
    for (const t of svg.querySelectorAll('text')) {
      const b = t.getBBox();
      if (b.x < -0.5 || b.x + b.width > box.width + 0.5) cut.push(t.textContent);
    }
  }
  found.cut = cut;
  // the smallest font of a chart's text as drawn, in CSS pixels
  const sizes = [];
  for (const t of document.querySelectorAll('svg.chart text')) {
    const m = t.getScreenCTM();
    if (m) sizes.push(m.a * parseFloat(getComputedStyle(t).fontSize));
  }
  found.smallest = sizes.length ? Math.min(...sizes) : null;
  const pre = document.createElement('pre'); pre.id = 'measured';
  pre.textContent = JSON.stringify(found); document.body.appendChild(pre);
});
</script></body>"""


def measured(page: Path, tmp_path: Path, width: int = 1400) -> dict:
    """What the browser laid out at ``width`` px, and a screenshot beside the page."""
    probe = page.with_name("measured-" + page.name)
    probe.write_text(page.read_text().replace("</body>", MEASURE, 1))
    done = browser.run(
        tmp_path, probe.as_uri(), "--dump-dom", "--virtual-time-budget=2000",
        f"--window-size={width},1200",
    )  # fmt: skip
    browser.screenshot(tmp_path, page, page.with_suffix(f".{width}.png"), width, 2400)
    found = re.search(r'<pre id="measured">(.*?)</pre>', done.stdout, re.S)
    assert found, "the probe did not run"
    import html

    return json.loads(html.unescape(found.group(1)))


@pytest.fixture(scope="module")
def compared(server, tmp_path_factory) -> tuple[list[dict], Path]:
    """``assay compare`` of the source with its copy, as a user runs it; then its page."""
    tmp = tmp_path_factory.mktemp("compare_page")
    source, target = tmp / "source.csv", tmp / "target.csv"
    source.write_text((DATA / "src.csv").read_text() + "9,a customer with a long name,1.00,1\n")
    target.write_text((DATA / "tgt.csv").read_text() + "9,a customer with a longer name,1.00,1\n")
    done = assay(
        "compare", str(source), str(target), "--keys", "order_id",
        "--source-option", "header=true", "--source-option", "inferSchema=true",
        "--target-option", "header=true", "--target-option", "inferSchema=true",
        "--remote", server.url,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    lines = tmp / "compared.jsonl"
    lines.write_text(done.stdout)
    page = tmp / "compared.html"
    made = assay("report", str(lines), "--html", str(page))
    assert made.returncode == 0, made.stderr
    return [json.loads(line) for line in done.stdout.splitlines()], page


def test_the_run_of_assay_compare_records_its_server_and_command(compared):
    events, page = compared
    summary = events[-1]
    assert summary["server"].startswith("sc://localhost:")
    assert "(compare compare)" not in summary["exit_reason"]
    assert summary["exit_reason"] == "exit 1: 1 failed comparison fails the run (compare)"
    root = dom(page.read_text())
    shown = {text(dt): text(dd) for dt, dd in zip(find(root, "dt"), find(root, "dd"), strict=True)}
    assert "not recorded" not in shown.get("Spark server", "")
    assert "not recorded" not in shown.get("config files", ""), shown
    assert shown["config files"] == "none, the command line (assay compare)", shown


def test_an_extra_row_of_a_duplicated_key_is_not_missing_in_source(compared):
    _, page = compared
    root = dom(page.read_text())
    # order 2 is twice in the source and once in the target: its key is in both
    rows = {text(find(tr, "td", "key")[0]): text(find(tr, "td", "kind")[0])
            for tr in find(root, "tr") if find(tr, "td", "kind")}  # fmt: skip
    assert not rows["2"].startswith("missing"), rows  # the target has a row of key 2
    assert rows["8"] == "missing in source", rows  # the source has no order 8


@pytest.fixture(scope="module")
def wide(spark, server, tmp_path_factory) -> Path:
    """A comparison of 120,000 rows of nine columns, long words in them: its page."""
    tmp = tmp_path_factory.mktemp("compare_wide")
    columns = [
        "id AS order_id",
        "concat('customer number ', id, ' of the northern region') AS customer_name",
        "concat('customer', id, '@example-corporation.com') AS email",
        "concat('PRODUCT-ALPHA-', lpad(CAST(id % 1000 AS STRING), 6, '0'), '-XL') AS product_code",
        "concat('delivered_to_the_warehouse_dock_', id % 9) AS delivery_note",
        "CAST(id % 500 AS DOUBLE) / 4 AS amount",
        "CAST(id % 7 AS INT) AS qty",
    ]
    changed = [
        "id AS order_id",
        "IF(id % 997 = 1, concat('customer number ', id, ' of the southern region'),"
        " concat('customer number ', id, ' of the northern region')) AS customer_name",
        "IF(id % 991 = 2, concat('customer', id, '@other-example-corporation.com'),"
        " concat('customer', id, '@example-corporation.com')) AS email",
        "concat('PRODUCT-ALPHA-', lpad(CAST(id % 1000 AS STRING), 6, '0'), '-XL') AS product_code",
        "IF(id % 983 = 3, 'returned_to_the_sender_by_the_carrier',"
        " concat('delivered_to_the_warehouse_dock_', id % 9)) AS delivery_note",
        "CAST(id % 500 AS DOUBLE) / 4 + IF(id % 977 = 4, 0.5, 0) AS amount",
        "CAST(id % 7 AS INT) AS qty",
    ]
    source, target = tmp / "source.parquet", tmp / "target.parquet"
    spark.range(120_000).selectExpr(*columns).write.parquet(str(source))
    spark.range(5, 120_010).selectExpr(*changed).write.parquet(str(target))
    done = assay("compare", str(source), str(target), "--keys", "order_id", "--remote", server.url)
    assert done.returncode == 1, done.stderr
    lines, page = tmp / "wide.jsonl", tmp / "wide.html"
    lines.write_text(done.stdout)
    made = assay("report", str(lines), "--html", str(page))
    assert made.returncode == 0, made.stderr
    return page


def test_the_comparison_page_at_1400_px(wide, tmp_path):
    found = measured(wide, tmp_path)
    assert found["broken"] == [], "sample cells break inside a word"
    assert found["cut"] == [], "chart text cut off at its SVG's edge"


def test_the_profile_pages_labels_are_legible(server, tmp_path):
    page = tmp_path / "profile.html"
    done = assay(
        "profile", str(ROOT / "examples/data/orders.parquet"), "--html", str(page),
        "--remote", server.url,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = measured(page, tmp_path)
    assert found["smallest"] >= 9, found
    assert found["cut"] == [], found

"""Trends over several saved runs (``assay report run_*.jsonl``), as a user makes them:
real runs of ``assay run`` backfilled with ``--run-time`` into a metrics store, one JSON
lines file each. Every metric keeps its own unit (a row count is rows, an average its
value, a row rule's failures a percentage), the band a run's history allowed is drawn
on the trend as it is on a single run's, and a point says the run time it was stored
under. Read in headless Chromium too: the end labels fit the chart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.report.browser import visit
from tests.report.pages import dom, find
from tests.report.test_cli import assay

pytestmark = pytest.mark.spark

DAYS = (1000, 1010, 990, 1005, 600)
CONFIG = """\
version: 1
tables:
  - name: orders
    source: {path: "${data}"}
    rules:
      - {type: row_count, name: rows, anomaly: {strategy: online_normal,
         lower_deviation_factor: 1.5, upper_deviation_factor: 1.5}}
      - {type: avg, column: amount, name: average amount, must_be: "> 0"}
      - {type: not_null, column: id}
"""


def run_time(day: int) -> str:
    return f"2024-01-{day:02d}T06:00:00Z"


@pytest.fixture(scope="module")
def runs(spark, server, tmp_path_factory) -> list[Path]:
    """A run per day, each saved as its JSON lines; day 5 lost 40% of its rows."""
    tmp = tmp_path_factory.mktemp("trends")
    config = tmp / "orders.yaml"
    config.write_text(CONFIG)
    saved = []
    for day, rows in enumerate(DAYS, start=1):
        data = tmp / f"day{day}.parquet"
        spark.range(rows).selectExpr(
            "IF(id % 250 = 7, NULL, id) AS id", "1000 + id * 0.1 AS amount"
        ).write.parquet(str(data))
        done = assay(
            "run", str(config), "--remote", server.url, "--var", f"data={data}",
            "--metrics", str(tmp / "metrics.jsonl"), "--run-time", run_time(day),
        )  # fmt: skip
        assert done.returncode in (0, 1), done.stderr
        saved.append(tmp / f"run_{day}.jsonl")
        saved[-1].write_text(done.stdout)
    return saved


@pytest.fixture(scope="module")
def reports(runs) -> tuple[str, str, Path]:
    html, md = runs[0].parent / "trend.html", runs[0].parent / "trend.md"
    done = assay("report", *map(str, runs), "--html", str(html), "--markdown", str(md))
    assert done.returncode == 0, done.stderr
    return html.read_text(), md.read_text(), html


def trends(page: str) -> dict[str, object]:
    """Each rule row's trend SVG, by the rule's name (its type when unnamed)."""
    found = {}
    for row in find(dom(page), "tr", "rule"):
        [svg] = find(row, "svg", "trend")
        named = find(row, "span", "rule-name") or find(row, "span", "rule-type")
        found["".join(named[0].itertext()).strip()] = svg
    return found


def texts(svg, tag: str) -> list[str]:
    return [" ".join("".join(e.itertext()).split()) for e in find(svg, tag)]


def test_each_metric_trends_in_its_own_unit(reports):
    page, md, _ = reports
    rows = next(line for line in md.splitlines() if "row\\_count: rows" in line)
    assert rows.endswith("| 1000 → 1010 → 990 → 1005 → 600 |"), rows
    nulls = next(line for line in md.splitlines() if "| not\\_null |" in line)
    assert nulls.endswith("| 0.4% → 0.5% → 0.4% → 0.4% → 0.5% |"), nulls
    svgs = trends(page)
    assert texts(svgs["rows"], "text") == ["1000", "600"]
    assert texts(svgs["average amount"], "text") == ["1049.95", "1029.95"]
    assert texts(svgs["not_null"], "text") == ["0.4%", "0.5%"]


def test_the_band_and_the_run_time_are_on_the_trend(reports):
    page, _, _ = reports
    rows = trends(page)["rows"]
    bands = [r for r in find(rows, "rect") if "band" in (r.get("class") or "")]
    assert len(bands) == 1, "the trend over saved runs lost the band its history allowed"
    [band] = [t for t in texts(rows, "title") if t.startswith("allowed this run: ")]
    low, high = (float(v) for v in band.removeprefix("allowed this run: ").split(" – "))
    assert low < 990 and high > 1010
    dots = texts(rows, "circle")
    assert len(dots) == len(DAYS)
    for day, dot in enumerate(dots, start=1):
        assert f" 2024-01-{day:02d}T06:00:00" in dot, dot
    assert dots[-1].endswith("T06:00:00.000+00:00: 600 (an anomaly)"), dots[-1]


def test_the_end_labels_fit_their_chart_in_a_browser(reports, tmp_path):
    page, _, html = reports
    script = """<script>
window.addEventListener('load', () => {
  const out = [];
  for (const svg of document.querySelectorAll('svg.trend')) {
    const box = svg.viewBox.baseVal;
    for (const t of svg.querySelectorAll('text')) {
      const b = t.getBBox();
      out.push([t.textContent, b.x >= -0.5 && b.x + b.width <= box.width + 0.5]);
    }
  }
  const pre = document.createElement('pre'); pre.id = 'fit';
  pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
});
</script>"""
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", script + "</body>"))
    found = re.search(r'<pre id="fit">(.*?)</pre>', visit(tmp_path, probe).dom, re.S)
    assert found, "the probe did not run"
    import html as html_lib
    import json

    fits = json.loads(html_lib.unescape(found.group(1)))
    assert fits and all(ok for _, ok in fits), [t for t, ok in fits if not ok]

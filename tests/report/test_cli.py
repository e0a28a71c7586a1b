"""``assay report``: saved JSON lines to an HTML page and a Markdown summary; several runs
or a report table read back through Spark draw the trends."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from assay.report.history import load_runs
from assay.report.render import render_markdown
from tests.conftest import OPENLINEAGE_ENV, ROOT
from tests.helpers import assay_cli
from tests.report.conftest import run_events
from tests.report.pages import dom, find

DATA = Path(__file__).parent / "data"
HISTORY = [
    DATA / "orders-2024-01-29.jsonl",
    DATA / "orders-2024-01-30.jsonl",
    DATA / "orders.jsonl",
]


AMBIENT = (
    "SPARK_REMOTE",
    "GITHUB_ACTIONS",
    "GITHUB_STEP_SUMMARY",
    "ASSAY_GITHUB",
    *OPENLINEAGE_ENV,
)
"""Variables of the environment that change what assay does: the tests set their own."""


def assay(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The command as users run it, without the :data:`AMBIENT` variables (in this process
    when it opens no server: ``tests.helpers.assay_cli``)."""
    return assay_cli(*args, env=env, unset=AMBIENT)


def test_html_and_markdown_from_saved_lines(tmp_path):
    html, md = tmp_path / "out.html", tmp_path / "out.md"
    done = assay("report", str(HISTORY[-1]), "--html", str(html), "--markdown", str(md))
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    [current] = load_runs([HISTORY[-1]])
    assert md.read_text() == render_markdown(current)
    root = dom(html.read_text())
    assert len(find(root, "tr", "rule")) == sum(e["event"] == "result" for e in current)
    assert not find(root, "svg", "trend")


def test_several_runs_draw_trends_and_markdown_goes_to_stdout(tmp_path):
    html = tmp_path / "out.html"
    done = assay("report", *map(str, HISTORY), "--html", str(html), "--markdown", "-")
    assert done.returncode == 0, done.stderr
    assert "0.9% → 0% → 0.3%" in done.stdout
    assert len(find(dom(html.read_text()), "svg", "trend")) == 16
    alone = assay("report", str(HISTORY[-1]))
    assert alone.returncode == 0 and alone.stdout.startswith("## assay report: FAIL")


def test_a_json_report_document_reads_as_its_events(tmp_path):
    from assay.report.files import json_bytes

    [current] = load_runs([HISTORY[-1]])
    doc = tmp_path / "report.json"
    doc.write_bytes(json_bytes(current))
    done = assay("report", str(doc))
    assert done.returncode == 0 and done.stdout == render_markdown(current)


def test_a_file_that_is_not_events_is_a_usage_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    done = assay("report", str(bad))
    assert done.returncode == 2
    assert f"{bad}: line 1 is not JSON" in done.stderr
    assert assay("report", str(tmp_path / "missing.jsonl")).returncode == 2


@pytest.mark.spark
def test_history_read_back_through_spark_from_a_sparquet_report(server, tmp_path):
    """A sparquet report appended to by three runs: the third run's report draws the
    first two as its trend (its own rows in the table are not counted twice)."""
    config = json.loads((ROOT / "examples/sparquet/orders_validations.json").read_text())
    table = tmp_path / "report_table"
    config["validations"]["report"] = {"format": "parquet", "path": str(table), "mode": "append"}
    config["validations"].pop("outputs")
    config["validations"]["rules"] = [
        r for r in config["validations"]["rules"] if "output" not in r
    ]
    path = tmp_path / "orders_validations.json"
    path.write_text(json.dumps(config))
    source = str(ROOT / "examples/data/orders.parquet")
    runs = [run_events(server.spark, [path], source=source) for _ in range(3)]
    current = tmp_path / "current.jsonl"
    current.write_text("".join(json.dumps(e) + "\n" for e in runs[-1]))
    html = tmp_path / "out.html"
    done = assay(
        "report", str(current), "--history", str(table), "--remote", server.url, "--html", str(html)
    )
    assert done.returncode == 0, done.stderr
    root = dom(html.read_text())
    trends = find(root, "svg", "trend")
    assert len(trends) == len(config["validations"]["rules"])
    assert [len(find(t, "circle")) for t in trends] == [3] * len(trends)
    missing = assay(
        "report", str(current), "--history", str(tmp_path / "nothing"), "--remote", server.url
    )
    assert (
        missing.returncode in (2, 3)
        and "--history" in missing.stderr
        and "Traceback" not in missing.stderr
    )


def test_a_native_history_output_appends_every_run_and_draws_trends(server, tmp_path):
    """A native table's `history:` output: every rule's verdict per run with run_id, table,
    rule_index and location, written even when `on_failure: fail` holds the block's writes;
    `assay report --history` reads it back for the trends."""
    data = tmp_path / "t.parquet"
    server.spark.range(20).selectExpr("id", "IF(id = 3, NULL, id) AS a").write.parquet(str(data))
    table = tmp_path / "history"
    path = tmp_path / "checks.yaml"
    path.write_text(
        f"tables:\n  - name: t\n    source: {{path: '{data}'}}\n    keys: [id]\n"
        f"    history: {{format: parquet, path: '{table}', mode: append}}\n"
        "    rules:\n      - {type: not_null, column: a}\n      - {type: row_count, min: 1}\n"
        "    validations:\n      on_failure: fail\n"
        f"      report: {{format: parquet, path: '{tmp_path / 'held'}', mode: append}}\n"
        "      rules:\n        - {type: range, column: a, max: 10}\n"
    )
    runs = [run_events(server.spark, [path]) for _ in range(3)]
    outputs = next(e for e in runs[-1] if e["event"] == "table")["outputs"]
    assert {o["kind"]: o["written"] for o in outputs} == {"history": True, "report": False}
    rows = server.spark.read.parquet(str(table)).orderBy("run_id", "rule_index").collect()
    assert len(rows) == 9 and {r["run_id"] for r in rows} == {e["run_id"] for e, *_ in runs}
    first = [r.asDict() for r in rows if r["run_id"] == runs[0][0]["run_id"]]
    assert [(r["table"], r["rule_index"], r["rule_type"], r["passed"]) for r in first] == [
        ("t", 0, "not_null", False),
        ("t", 1, "row_count", True),
        ("t", 2, "range", False),
    ]
    assert first[0]["location"].endswith("tables[0].rules[0]") and first[0]["failed_count"] == 1
    current = tmp_path / "current.jsonl"
    current.write_text("".join(json.dumps(e) + "\n" for e in runs[-1]))
    html = tmp_path / "out.html"
    done = assay(
        "report", str(current), "--history", str(table), "--remote", server.url, "--html", str(html)
    )
    assert done.returncode == 0, done.stderr
    trends = find(dom(html.read_text()), "svg", "trend")
    assert [len(find(t, "circle")) for t in trends] == [3, 3, 3]


@pytest.mark.spark
def test_html_report_of_a_spark_data_test_job_shows_its_comparison(server, tmp_path):
    """`assay run JOB --htmlReport`: the page written after a spark-data-test job has its
    dataset's comparison with the values of its line, the differing cells marked."""
    from tests.report.test_comparisons import expected_counts, sample_table, section, shown_counts

    job = json.loads((DATA / "compare-sdt.json").read_text())
    for side in ("source_config", "target_config"):
        config = job["dataset_configs"][0][side]
        config["path"] = str(DATA / config["path"])
    job["output_config"]["output_dir"] = str(tmp_path / "out")
    path = tmp_path / "job.json"
    path.write_text(json.dumps(job))
    html = tmp_path / "report.html"
    done = assay("run", str(path), "--remote", server.url, "--htmlReport", str(html))
    assert done.returncode == 1, done.stderr  # the copy differs
    [event] = [e for e in map(json.loads, done.stdout.splitlines()) if e["event"] == "comparison"]
    found = section(dom(html.read_text()), "orders")
    assert found.get("data-severity") == "fail" and shown_counts(found) == expected_counts(event)
    _, rows = sample_table(found)
    marked = [c for r in rows for c, ((_, s), (_, t)) in r["cells"].items() if "diff" in s | t]
    assert len(marked) == len(event["samples"]["mismatched"]) == 3

"""The Markdown summary, against golden files (regenerate them with
``ASSAY_UPDATE_GOLDEN=1 python -m pytest tests/report/test_markdown.py`` and read the diff)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assay.report.history import load_runs
from assay.report.render import markdown_code, markdown_text, render_markdown
from tests.report.conftest import NASTY

HERE = Path(__file__).parent
DATA, GOLDEN = HERE / "data", HERE / "golden"
HISTORY = [
    DATA / "orders-2024-01-29.jsonl",
    DATA / "orders-2024-01-30.jsonl",
    DATA / "orders.jsonl",
]


def nasty_events() -> list[dict]:
    result = {
        "event": "result", "schema_version": 1, "run_id": "r1", "table": "t|<b>", "rule_index": 0,
        "rule": {"type": "sql", "name": NASTY, "columns": ["a|b", "c_d"], "code": None},
        "passed": False, "severity": "fail", "blocking": False, "waiver": "on_failure: warn",
        "failed_count": 2, "row_count": 8, "metric_value": None, "threshold": "< 5%",
        "message": "2 of 8 rows fail: *not* [a](javascript:x) `x`", "samples": [{"a|b": NASTY}],
        "location": {"file": "c|d.yaml", "path": "tables[0].rules[0]", "line": 3},
        "elapsed_ms": 5, "details": None,
    }  # fmt: skip
    table = {
        "event": "table", "schema_version": 1, "run_id": "r1", "table": "t|<b>", "passed": False,
        "row_count": 8, "rules": 1, "failed": 1, "warned": 0, "errors": 0, "blocking": 0,
        "spark_plans": 2, "error": "Spark said <no>", "elapsed_ms": 5, "source": "sql SELECT 1",
        "keys": [], "location": {"file": "c|d.yaml", "path": "tables[0]", "line": 1},
    }  # fmt: skip
    summary = {
        "event": "summary", "schema_version": 1, "run_id": "r1", "passed": False,
        "status": "FAIL", "exit_code": 0, "tables": 1, "rules": 1, "failed": 1, "warned": 0,
        "errors": 1, "blocking": 0, "spark_plans": 2, "failed_tables": ["t|<b>"],
        "exit_reason": "exit 0: no failed rule fails the run", "elapsed_ms": 5,
        "started_at": "2024-01-31T06:00:00+00:00", "server": "sc://h:1/;token=secret",
        "files": ["c|d.yaml"], "dialects": ["native"], "assay_version": "0.1.0",
    }  # fmt: skip
    return [result, table, summary]


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("ASSAY_UPDATE_GOLDEN") == "1":
        path.write_text(text)
    assert text == path.read_text(), f"{path} differs (ASSAY_UPDATE_GOLDEN=1 rewrites it)"


def test_one_run():
    [current] = load_runs([HISTORY[-1]])
    golden("orders.md", render_markdown(current))


def test_trends_over_three_runs():
    *history, current = load_runs(HISTORY)
    golden("orders-trend.md", render_markdown(current, history))


def test_markup_and_table_syntax_are_escaped():
    text = render_markdown(nasty_events())
    golden("escaping.md", text)
    assert "<script>" not in text and "<b>" not in text and "token=secret" not in text
    blocks: list[list[int]] = [[]]
    for line in text.splitlines():
        if line.startswith("|"):
            blocks[-1].append(line.replace("\\|", "").count("|"))  # unescaped pipes
        elif blocks[-1]:
            blocks.append([])
    assert all(len(set(b)) == 1 for b in blocks if b)  # every row keeps its columns


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("a|b", "a\\|b"),
        ("<script>", "&lt;script&gt;"),
        ("*x* _y_ [l](u) `c`", "\\*x\\* \\_y\\_ \\[l\\](u) \\`c\\`"),
        ("two\nlines", "two lines"),
        ("ünï ✓", "ünï ✓"),
    ],
)
def test_markdown_text(value, shown):
    assert markdown_text(value) == shown


def test_markdown_code_keeps_a_table_cell():
    assert markdown_code("f|g.yaml:3 `x`") == "`f\\|g.yaml:3 'x'`"

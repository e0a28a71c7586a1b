"""``assay compare`` and ``assay explain`` of comparisons, as users run them."""

from __future__ import annotations

import pytest

from tests.cli.test_cli import json_lines, json_lines_plain
from tests.helpers import assay_cli as assay

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def sides(spark, tmp_path_factory):
    base = tmp_path_factory.mktemp("cmpcli")
    src, tgt = str(base / "src.parquet"), str(base / "tgt.parquet")
    spark.createDataFrame([(1, 1.0), (2, 2.0), (3, 3.0)], "id int, v double").write.parquet(src)
    spark.createDataFrame([(1, 1.0), (2, 2.5), (4, 4.0)], "id int, v double").write.parquet(tgt)
    return src, tgt


def test_compare_exits_1_with_one_comparison_line_and_a_summary(server, sides):
    proc = assay("compare", *sides, "--keys", "id", "--remote", server.url)
    assert proc.returncode == 1, proc.stderr
    comparison, summary = json_lines(proc.stdout)
    assert comparison["counts"]["missing_in_target"] == 1
    assert comparison["columns"][0]["max_abs_diff"] == 0.5
    assert summary["exit_code"] == 1 and summary["comparisons"] == 1
    assert "failed comparison fails the run" in proc.stderr


def test_compare_with_checks_and_tolerance_exits_0(server, sides):
    proc = assay(
        "compare",
        *sides,
        "--keys",
        "id",
        "--tolerance",
        "0.5",
        "--check",
        "missing_in_target=<= 1",
        "--check",
        "missing_in_source=<= 1",
        "--remote",
        server.url,
    )
    assert proc.returncode == 0, proc.stderr
    comparison, _ = json_lines(proc.stdout)
    assert comparison["counts"]["mismatched"] == 0 and comparison["passed"]


def test_compare_usage_errors_exit_2(sides):
    proc = assay(
        "compare", *sides, "--keys", "id", "--check", "nope=0", "--remote", "sc://localhost:1"
    )
    assert proc.returncode == 2 and "unknown metric 'nope'" in proc.stderr


def test_explain_shows_the_comparison_plan(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("compare:\n  - {source: {table: a}, target: {table: b}, keys: [id]}\n")
    proc = assay("explain", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "comparison compare_0 (native)  spark plans: 1 (+1 for samples" in proc.stdout
    assert "full outer join on s.id <=> t.id" in proc.stdout
    assert "1 comparison, 1 Spark plans when the datasets match" in proc.stdout


def test_check_counts_comparisons(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("compare:\n  - {source: {table: a}, target: {table: b}, keys: [id]}\n")
    proc = assay("check", str(path))
    assert proc.returncode == 0, proc.stderr
    assert json_lines_plain(proc.stdout) == [
        {
            "event": "check",
            "schema_version": 1,
            "valid": True,
            "files": [str(path)],
            "tables": 0,
            "rules": 0,
            "comparisons": 1,
            "problems": [],
        }
    ]

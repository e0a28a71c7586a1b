"""The benchmark harness must keep working: ``benchmarks/run.py --quick`` on tiny data.

Runs the harness once (a subprocess on the session's Spark server)
and checks the JSON it writes. Nothing here asserts anything about time.
"""

from __future__ import annotations

import pytest

from tests.benchmarks.harness import benchmark_json, on_server

STRATEGIES = ("floor", "handwritten", "naive", "assay_api", "assay_cli")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def quick(server, tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("bench") / "quick.json"
    args = ["--quick", "--suites", "10", "--repeat", "1", "--warmup", "0", *on_server(server)]
    return benchmark_json("run.py", args, out, timeout=300)


def _rows(document: dict) -> dict[str, dict]:
    return {r["strategy"]: r for r in document["results"] if r["suite"] == 10}


def test_every_strategy_ran_without_error(quick: dict) -> None:
    rows = _rows(quick)
    assert set(rows) == set(STRATEGIES)
    for name, row in rows.items():
        assert "error" not in row, (name, row.get("error"))
        assert row["seconds"] > 0
        assert isinstance(row["sql_executions"], int) and row["sql_executions"] >= 1


def test_sql_executions_are_counted_from_the_ui(quick: dict) -> None:
    rows = _rows(quick)
    assert rows["floor"]["sql_executions"] == 1
    assert rows["naive"]["sql_executions"] == 10  # one action per rule
    assert rows["handwritten"]["sql_executions"] in (1, 2)  # + one spark.sql for SQL rules


def test_strategies_agree_on_which_rules_fail(quick: dict) -> None:
    expected = quick["suites"]["10"]["expected_failures"]
    assert expected, "the suite must fail on purpose so the detail plan runs"
    for name in STRATEGIES[1:]:
        assert _rows(quick)[name]["failed_rules"] == expected, name


def test_assay_reports_the_plans_the_server_ran(quick: dict) -> None:
    for name in ("assay_api", "assay_cli"):
        row = _rows(quick)[name]
        assert row["sql_executions"] == row["spark_plans"], name


def test_assay_runs_one_or_two_sql_executions_per_table(quick: dict) -> None:
    for name in ("assay_api", "assay_cli"):
        assert _rows(quick)[name]["sql_executions"] in (1, 2), name

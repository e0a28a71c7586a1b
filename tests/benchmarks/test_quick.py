"""The benchmark harness must keep working: ``benchmarks/run.py --quick`` on tiny data.

Runs the harness once (a subprocess on the session's Spark server)
and checks the JSON it writes. Nothing here asserts anything about time.
"""

from __future__ import annotations

import os

import pytest

from tests.benchmarks.harness import benchmark_json, on_server

STRATEGIES = ("floor", "handwritten", "naive", "assay_api", "assay_cli", "assay_cli_warm")
ASSAY = ("assay_api", "assay_cli", "assay_cli_warm")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def quick(server, tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("bench") / "quick.json"
    args = ["--quick", "--suites", "10", "--repeat", "1", "--warmup", "0",
            "--strategies", ",".join(STRATEGIES), *on_server(server)]  # fmt: skip
    # the warm client run.py starts for assay_cli_warm lives in a state directory of the
    # test's own (never a developer's warm client), and is stopped by run.py
    state = tmp_path_factory.mktemp("state")
    env = {**os.environ, "ASSAY_STATE_DIR": str(state)}
    document = benchmark_json("run.py", args, out, timeout=300, env=env)
    document["warm_client_log"] = (state / "client.log").read_text()
    return document


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
    for name in ASSAY:
        row = _rows(quick)[name]
        assert row["sql_executions"] == row["spark_plans"], name


def test_assay_runs_one_or_two_sql_executions_per_table(quick: dict) -> None:
    for name in ASSAY:
        assert _rows(quick)[name]["sql_executions"] in (1, 2), name


def test_assay_cli_warm_runs_through_the_warm_client_and_assay_cli_never(quick: dict) -> None:
    log = quick["warm_client_log"]
    forked = [line for line in log.splitlines() if ": assay run " in line]
    assert len(forked) == 1, log  # the one measured run (no warm-up)
    assert "refused" not in log and "stopped" in log, log

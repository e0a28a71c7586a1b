"""The product where users' data lives: a multi-process standalone cluster (driver,
executors and the client in separate JVMs/processes). Every example gives the same lines
as on the embedded server; plan counts hold; two runs at once do not interfere; a worker
killed mid-run is retried by Spark (same verdicts) or ends the run with exit 3 naming the
table, never a wrong verdict."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.conftest import ROOT
from tests.test_examples import documented, full_run, own_metrics

pytestmark = [pytest.mark.spark, pytest.mark.cluster]

RUNS = [c for c, _ in documented() if c.startswith("assay run ")]
STABLE = ("table", "rule_index", "rule", "passed", "severity", "blocking", "waiver",
          "failed_count", "row_count", "metric_value", "threshold", "message", "samples",
          "location", "details")  # fmt: skip


def _run(command: str, url: str, *extra: str, timeout: float = 600):
    env = {k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"}
    argv = [sys.executable, "-m", "assay", *shlex.split(command)[1:], "--remote", url, *extra]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)


def _lines(stdout: str) -> list[dict]:
    events = [json.loads(line) for line in stdout.splitlines()]
    results = [{k: e[k] for k in STABLE} for e in events if e["event"] == "result"]
    tables = [
        {k: e[k] for k in ("table", "row_count", "rules", "failed", "warned", "errors",
                           "blocking", "spark_plans", "error")}
        for e in events if e["event"] == "table"
    ]  # fmt: skip
    compared = [
        {k: v for k, v in e.items() if k not in ("run_id", "elapsed_ms")}
        for e in events
        if e["event"] == "comparison"
    ]
    key = lambda d: (d["table"], d.get("rule_index", -1))  # noqa: E731
    summary = {k: events[-1][k] for k in ("status", "exit_code", "failed", "errors", "blocking")}
    return [*sorted(results, key=key), *sorted(tables, key=key), *compared, summary]


@pytest.mark.parametrize("command", RUNS)
def test_every_example_answers_as_on_the_embedded_server(cluster, server, command, tmp_path):
    embedded = full_run(command, server.url, tmp_path / "embedded")
    # the client in this process (its start is not the point): the last to write outputs
    on_cluster = full_run(command, cluster.url, tmp_path / "cluster", here=True)
    assert on_cluster.returncode == embedded.returncode, on_cluster.stderr[-2000:]
    assert _lines(on_cluster.stdout) == _lines(embedded.stdout)


def test_outputs_are_written_by_the_cluster_and_complete(cluster, tmp_path):
    command = next(c for c in RUNS if "sparquet" in c)
    # the session's run of it on the cluster: the last to write these outputs (the
    # every-example test runs it after the embedded server's)
    done = full_run(command, cluster.url, tmp_path, here=True)
    assert done.returncode == 0, done.stderr[-2000:]
    table = next(json.loads(x) for x in done.stdout.splitlines() if '"event":"table"' in x)
    written = [o for o in table["outputs"] if o["written"]]
    assert written
    for output in written:
        target = ROOT / "build" / "dq" / os.path.basename(output["target"].rstrip("/"))
        assert (target / "_SUCCESS").is_file(), output  # a committed write, not a partial one


def test_plan_counts_hold_on_the_cluster(cluster, tmp_path):
    data = tmp_path / "t.parquet"
    cluster.spark.range(1000).selectExpr("id", "id % 7 AS a").write.parquet(str(data))
    path = tmp_path / "c.yaml"
    path.write_text(
        f"tables:\n  - name: ok\n    source: {{path: '{data}'}}\n    rules:\n"
        "      - {type: not_null, column: a}\n      - {type: row_count, min: 1}\n"
        f"  - name: bad\n    source: {{path: '{data}'}}\n    keys: [id]\n    rules:\n"
        "      - {type: range, column: a, max: 5}\n"
    )
    before = cluster.sql_executions()
    done = _run(f"assay run {path}", cluster.url, "--concurrency", "1")
    assert done.returncode == 1, done.stderr[-2000:]
    plans = {e["table"]: e["spark_plans"] for e in map(json.loads, done.stdout.splitlines())
             if e["event"] == "table"}  # fmt: skip
    assert plans == {"ok": 1, "bad": 2}
    assert cluster.sql_executions() - before == 3


def test_two_runs_at_once_answer_as_alone(cluster, tmp_path):
    command = next(c for c in RUNS if "orders.yaml" in c)
    alone = _lines(full_run(command, cluster.url, tmp_path, here=True).stdout)  # kept run
    env = {k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"}
    argv = [sys.executable, "-m", "assay", *shlex.split(command)[1:], "--remote", cluster.url]
    procs = [
        subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=ROOT, env=env)
        for _ in range(2)
    ]  # fmt: skip
    outs = [p.communicate(timeout=600)[0] for p in procs]
    assert [_lines(o) for o in outs] == [alone, alone]


def _scan_running(ui_url: str, tasks: int) -> bool:
    """Whether a stage of ``tasks`` tasks or more runs on both executors now (the Connect
    server's UI: its active stages)."""
    app = _ui_json(f"{ui_url}/api/v1/applications")[0]["id"]
    stages = _ui_json(f"{ui_url}/api/v1/applications/{app}/stages?status=active")
    return any(s["numTasks"] >= tasks and s["numActiveTasks"] >= 2 for s in stages)


def _ui_json(url: str):
    with urllib.request.urlopen(url, timeout=60) as r:
        return json.load(r)


def test_a_worker_killed_mid_run_is_retried_or_named(cluster, tmp_path):
    """A worker killed while the aggregate's scan runs a task on each executor (the UI
    says so): Spark retries its tasks on the other one and the answers are exact (known
    by construction: every sha2 is 64 hex digits, one id is above the bound), or the run
    names the table in one error line, exit 3."""
    rows, tasks = 4_000_000, 8
    path = tmp_path / "long.yaml"
    path.write_text(
        "tables:\n  - name: long\n"
        f'    source: {{sql: "SELECT id, sha2(cast(id AS string), 256) AS h FROM range(0, {rows}, 1, {tasks})"}}\n'
        "    rules:\n      - {type: regex, column: h, pattern: '^[0-9a-f]{64}$'}\n"
        f"      - {{type: range, column: id, max: {rows - 2}}}\n"
        "      - {type: row_count, min: 1}\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "assay", "run", str(path), "--remote", cluster.url],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env,
    )  # fmt: skip
    deadline = time.monotonic() + 300
    while not _scan_running(cluster.handle.ui_url, tasks):
        assert proc.poll() is None and time.monotonic() < deadline, "no scan seen running"
        time.sleep(0.1)
    victim = cluster.workers[0]
    os.killpg(victim.pid, signal.SIGKILL)  # the worker and the executor it started
    out, err = proc.communicate(timeout=900)
    lines = [json.loads(x) for x in out.splitlines()]
    if proc.returncode == 3:
        table = next(e for e in lines if e["event"] == "table")
        assert table["table"] == "long" and table["error"], err
        assert "long" in err
        return
    assert proc.returncode == 1, err[-2000:]
    results = [e for e in lines if e["event"] == "result"]
    assert [(r["passed"], r["failed_count"]) for r in results[:2]] == [(True, 0), (False, 1)]
    assert results[2]["metric_value"] == rows


def _thin_pythons() -> list[str]:
    found = [p for p in os.environ.get("ASSAY_THIN_PYTHONS", "").split(",") if p]
    if not found and os.environ.get("ASSAY_REQUIRE_VERSIONS") == "1":
        pytest.fail("ASSAY_THIN_PYTHONS is not set but ASSAY_REQUIRE_VERSIONS=1")
    return found


@pytest.mark.parametrize("thin", _thin_pythons() or [None], ids=lambda p: p or "none")
def test_the_thin_client_alone_answers_on_the_cluster(cluster, thin, tmp_path):
    """The install users run from an orchestrator: pyspark-client only, against the cluster."""
    if thin is None:
        pytest.skip("no thin-client install given (ASSAY_THIN_PYTHONS): .ci/run builds them")
    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_REMOTE", "PYTHONPATH")}
    for n, command in enumerate(RUNS):
        argv = [thin, "-m", "assay", *shlex.split(command)[1:], "--remote", cluster.url,
                *own_metrics(command, tmp_path, f"{n}-thin")]  # fmt: skip
        alone = subprocess.run(argv, capture_output=True, text=True, timeout=600, cwd=ROOT, env=env)
        full = full_run(command, cluster.url, tmp_path / f"{n}-full", here=True)
        assert alone.returncode == full.returncode, alone.stderr[-2000:]
        assert _lines(alone.stdout) == _lines(full.stdout), command


def _reference_rule(k: int) -> dict:
    """The k-th rule of the mixed suite over another source: an accepted-values rule, a
    foreign key (to a small reference, to a large one under a filter) or a row count
    match, all passing on the suite's 2,000 rows."""
    if k % 4 == 0:
        return {"type": "accepted_values", "column": "g", "values": [0, 1, 2, 3, 4]}
    if k % 4 == 1:
        reference = {"sql": "SELECT id % 7 AS k FROM range(50)", "columns": ["k"]}
        return {"type": "foreign_key", "column": "a", "references": reference}
    if k % 4 == 2:
        reference = {"sql": f"SELECT id AS k FROM range({k}, 4000)", "columns": ["k"]}
        return {
            "type": "foreign_key",
            "column": "id",
            "references": reference,
            "filter": f"id >= {k}",
        }
    reference = {"sql": f"SELECT * FROM range({1990 + k})"}
    return {"type": "row_count_match", "references": reference, "must_be": "between 99% and 101%"}


def _mixed_suite(failing: tuple[int, ...] = ()) -> list[dict]:
    """100 rules mixing per-rule filters, expressions, percentiles (exact and approximate),
    per-group metrics and references to other sources (foreign keys, row count matches)
    with the existing kinds; all passing, or the row-level rules at the indices
    ``failing`` fail (1: a filtered range; 17: a foreign key whose reference lacks two
    values)."""
    rules: list[dict] = []
    for k in range(10):
        where = f"g = {k % 5}"
        rules += [
            {"type": "not_null", "column": "a", "filter": where},
            {"type": "range", "column": "a", "min": 0, "max": 6, "filter": where},
            {"type": "expression", "expression": f"a + {k} >= {k}"},
            {"type": "percentile", "column": "id", "quantile": k / 10, "must_be": ">= 0"},
            {"type": "median", "column": "a", "accuracy": 10000, "must_be": "<= 6"},
            {"type": "row_count", "group_by": ["g"], "must_be": "> 100", "filter": f"a <> {k % 7}"},
            {"type": "missing_percent", "column": "s", "group_by": "g", "must_be": "< 50%"},
            _reference_rule(k),
            {"type": "unique", "column": "id", "filter": where},
            {"type": "avg", "column": "a", "must_be": "between 0 and 6", "filter": where},
        ]
    if 1 in failing:
        rules[1] = {"type": "range", "column": "a", "min": 0, "max": 5, "filter": "g = 0"}
    if 17 in failing:
        reference = {"sql": "SELECT id % 5 AS k FROM range(50)", "columns": ["k"]}
        rules[17] = {"type": "foreign_key", "column": "a", "references": reference}
    return rules


def _drift_and_sketches() -> list[dict]:
    """10 drift rules (against two referenced sources, numbers and categories, and two
    against the metrics store's history) and 10 sketch metrics, all passing on the
    mixed suite's data."""
    ref = {"sql": "SELECT id, id % 7 AS a, id % 5 AS g, IF(id % 4 = 0, NULL, 'x') AS s"
                  " FROM range(0, 3000, 3)"}  # fmt: skip
    other = {"sql": "SELECT id % 6 AS a, id % 4 AS g FROM range(500)"}
    last = {"history": "last"}
    drift = [("a", "psi", 7, ref), ("a", "ks", 10, ref), ("id", "wasserstein", 10, ref),
             ("id", "ks_p_value", 10, ref), ("g", "chi_square", "values", ref),
             ("s", "chi_square_p_value", "values", ref), ("a", "js", 3, other),
             ("g", "psi", "values", other), ("id", "ks", 10, last), ("a", "psi", 10, last)]  # fmt: skip
    rules = [
        {"type": "drift", "column": c, "method": m, "bins": b, "references": dict(r),
         "must_be": ">= 0"}
        for c, m, b, r in drift
    ]  # fmt: skip
    rules += [
        {"type": "approx_distinct_count", "column": "id", "must_be": "> 0"},
        {"type": "approx_distinct_count", "column": "s", "must_be": "> 0"},
        {"type": "correlation", "columns": ["id", "a"], "must_be": "> -2"},
        {"type": "correlation", "columns": ["a", "g"], "must_be": "> -2"},
        {"type": "compliance", "expression": "a <= 6", "must_be": ">= 0"},
        {"type": "compliance", "expression": "g < 5", "must_be": ">= 0"},
        {"type": "entropy", "column": "g", "must_be": ">= 0"},
        {"type": "entropy", "column": "a", "must_be": ">= 0"},
        {"type": "mutual_information", "columns": ["a", "g"], "must_be": ">= 0"},
        {"type": "count", "column": "s", "must_be": "> 0"},
    ]
    return rules


def test_drift_and_sketch_metrics_in_a_hundred_rules_are_two_plans(cluster, tmp_path):
    """80 rules of the mixed suite (every kind of it: its last 20 repeat them), 10 drift
    rules and 10 sketch metrics, two row-level rules failing: two plans on the cluster
    (the aggregate, one detail plan for a filtered range and a foreign key); the history
    in a file store (the first run: stored, passing). The same suite with every rule
    passing (one plan) ran here too: its aggregate is this one, and one plan without
    failures is test_plan_counts_hold_on_the_cluster's ``ok`` table."""
    import assay

    failing = (1, 17)
    df = cluster.spark.range(2000).selectExpr(
        "id", "id % 7 AS a", "id % 5 AS g", "IF(id % 3 = 0, NULL, 'x') AS s"
    )
    rules = _mixed_suite(failing)[:80] + _drift_and_sketches()
    assert len(rules) == 100
    assert {r["type"] for r in rules} >= {"foreign_key", "row_count_match", "expression"}
    before = cluster.sql_executions()
    result = assay.validate(df, rules, keys=["id"], name="t", metrics=str(tmp_path / "m.jsonl"))
    assert cluster.sql_executions() - before == 2
    bad = [r for r in result.results if not r.passed]
    assert [r.rule_index for r in bad] == list(failing), [(r.rule_index, r.message) for r in bad]
    drift = [r for r in result.results if r.rule_index in range(80, 90)]
    assert all(r.metric_value is not None for r in drift[:8]), drift  # against a source
    ranged, foreign = bad
    # a = id % 7 in g = id % 5 = 0: a = 6 fails max 5
    assert ranged.failed_count == sum(1 for i in range(0, 2000, 5) if i % 7 == 6)
    assert ranged.samples and {row["a"] for row in ranged.samples} == {6}
    # a = id % 7: the rows with a in (5, 6) have no referenced key (0..4)
    assert foreign.failed_count == sum(1 for i in range(2000) if i % 7 in (5, 6))
    assert foreign.samples and {row["a"] for row in foreign.samples} <= {5, 6}


def test_seven_days_through_a_table_store_on_the_cluster(cluster):
    """The table backend of the metrics store on the cluster: the seven days of
    tests/monitoring/scenario.py give the verdicts the file store gives, each run in a
    partition of its own."""
    from tests.monitoring.scenario import check_seven_days, seven_days

    table = "assay_cluster_metrics"
    cluster.spark.sql(f"DROP TABLE IF EXISTS {table}").collect()
    results = seven_days(cluster.spark, metrics_table=table)
    check_seven_days(results)
    runs = cluster.spark.sql(f"SELECT count(DISTINCT run_id) FROM {table}").collect()[0][0]
    assert runs == 7
    assert [r.summary.metrics["history_runs_read"] for r in results] == [0, 4, 7, 10, 12, 14, 16]

"""The warm server (``assay server``), against real Spark: started once for the session
(its state directory in a temporary directory), runs on it answer as on a cold server,
back to back and at once, leave nothing behind in it, and a stale record (the server
killed with SIGKILL, another assay version) is removed and the run starts cleanly.

Two JVMs besides the session's server: the warm server (shared with
test_warm_reaping.py, tests/executor/conftest.py), and the one ``--keep-server`` starts
after it was killed."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.executor.conftest import warm_env

pytestmark = pytest.mark.spark

ORDERS = ROOT / "examples" / "orders.yaml"
PEOPLE_JOB = ROOT / "examples" / "metorikku" / "people_job.yaml"
PEOPLE_METRIC = ROOT / "examples" / "metorikku" / "people_metric.yaml"
VARYING = ("run_id", "elapsed_ms", "started_at", "server")
"""Fields of an event that differ between two runs of one config."""


def _assay(state: Path, *args: str, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "-m", "assay", *args],
        capture_output=True, text=True, cwd=ROOT, env=env or warm_env(state), timeout=300,
    )  # fmt: skip


def _answers(stdout: str) -> list[dict]:
    """The run's events without the fields that differ between runs."""
    events = [json.loads(line) for line in stdout.splitlines()]
    return sorted(
        ({k: v for k, v in e.items() if k not in VARYING} for e in events),
        key=lambda e: json.dumps(e, sort_keys=True),
    )


@pytest.fixture(scope="module")
def warm(warm_server):
    """The session's warm server (tests/executor/conftest.py): its state directory and
    its record."""
    state, started = warm_server.running()
    line = json.loads(started)
    assert line["status"] == "started" and line["url"].endswith("token=***")
    return state, line


@pytest.fixture(scope="module")
def cold(server) -> dict[str, tuple[int, list[dict]]]:
    """Each config's exit code and answers on the session's (cold, separate) server."""
    found = {}
    for name, args in (("orders", [str(ORDERS)]), ("people", [str(PEOPLE_JOB)])):
        done = subprocess.run(
            [sys.executable, "-m", "assay", "run", "-q", *args, "--remote", server.url],
            capture_output=True, text=True, cwd=ROOT, timeout=300,
        )  # fmt: skip
        found[name] = (done.returncode, _answers(done.stdout))
    return found


def test_the_state_is_private_and_the_token_never_printed(warm):
    state, line = warm
    record = state / "server.json"
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    token = json.loads(record.read_text())["token"]
    status = _assay(state, "server", "status")
    assert status.returncode == 0
    assert json.loads(status.stdout)["pid"] == line["pid"]
    assert token not in status.stdout + status.stderr + json.dumps(line)


def test_runs_use_the_warm_server_and_answer_as_a_cold_one(warm, cold):
    state, line = warm
    for _ in range(2):  # back to back
        done = _assay(state, "run", str(ORDERS))
        assert "using the warm server" in done.stderr and str(line["pid"]) in done.stderr
        assert (done.returncode, _answers(done.stdout)) == cold["orders"]
    # both forked by the warm client `server start` started beside it
    assert line["client"]["pid"] > 0
    assert (state / "client.log").read_text().count(f": assay run {ORDERS}") >= 2


def test_concurrent_runs_answer_as_alone(warm, cold):
    state, _ = warm
    runs = [
        ("orders", [str(ORDERS), "--conf", "spark.sql.shuffle.partitions=3"]),
        ("people", [str(PEOPLE_JOB), "--conf", "spark.sql.session.timeZone=Asia/Tokyo"]),
        ("orders", [str(ORDERS)]),
        ("people", [str(PEOPLE_JOB)]),
    ]
    with ThreadPoolExecutor(len(runs)) as pool:
        done = list(pool.map(lambda r: _assay(state, "run", "-q", *r[1]), runs))
    for (name, _), result in zip(runs, done, strict=True):
        assert (result.returncode, _answers(result.stdout)) == cold[name], result.stderr


def test_a_run_leaves_nothing_behind(warm, monkeypatch):
    """Temp views, settings and cached data of a run are gone with its session: a config
    reading a view an earlier run created fails as on a cold server."""
    state, line = warm
    assert _assay(state, "run", "-q", str(PEOPLE_JOB), "--conf",
                  "spark.sql.shuffle.partitions=3").returncode == 1  # fmt: skip
    unbound = _assay(state, "run", "-q", str(PEOPLE_METRIC))
    assert unbound.returncode == 2 and "`people` cannot be found" in unbound.stderr
    from assay.executor.session.warm import open_warm, read_state

    monkeypatch.setenv("ASSAY_STATE_DIR", str(state))
    with open_warm(read_state(), 30) as handle:
        spark = handle.spark
        assert [t.name for t in spark.catalog.listTables() if t.isTemporary] == []
        assert spark.conf.get("spark.sql.shuffle.partitions") == "200"
        assert spark.conf.get("spark.sql.optimizer.excludedRules", "") in ("", None)
    ui = f"http://127.0.0.1:{line['ui_port']}/api/v1/applications"
    with urllib.request.urlopen(ui, timeout=30) as resp:
        app = json.load(resp)[0]["id"]
    with urllib.request.urlopen(f"{ui}/{app}/storage/rdd", timeout=30) as resp:
        assert json.load(resp) == []


def _compilations(ui_port: int) -> int:
    """How many classes the server's code generator has compiled (its metrics servlet)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/metrics/json", timeout=30) as resp:
        histograms = json.load(resp)["histograms"]
    return sum(v["count"] for k, v in histograms.items() if "CodeGenerator.compilationTime" in k)


def test_a_run_in_a_new_session_reuses_the_code_an_earlier_session_generated(warm, tmp_path):
    """Each command has a session of its own; their plans share the JVM's generated
    classes (with Spark's per-session class loaders the second run compiled them all
    anew: 43 of 43 for the orders example). A table and rules of this test's own, so the
    first run compiles its classes here whatever ran on the server before."""
    state, line = warm
    rows = ["id,code,amount", *(f"{i},K{i % 7}x,{i * 1.5}" for i in range(40)), "40,,-1.0"]
    (tmp_path / "codes.csv").write_text("\n".join(rows) + "\n")
    config = tmp_path / "codes.yaml"
    config.write_text(
        "version: 1\ntables:\n  - name: codes\n    source: {path: codes.csv, options: {header: 'true',"
        " inferSchema: 'true'}}\n    rules:\n      - {type: not_null, column: code}\n"
        "      - {type: regex, column: code, pattern: '^K[0-6x-z]{1,3}$'}\n"
        "      - {type: range, column: amount, min: 0}\n      - {type: unique, column: id}\n"
        "      - {type: avg, column: amount, must_be: '> 1'}\n"
    )
    counts = []
    for _ in range(2):
        before = _compilations(line["ui_port"])
        done = _assay(state, "run", str(config))
        assert done.returncode == 1 and "using the warm server" in done.stderr, done.stderr
        counts.append(_compilations(line["ui_port"]) - before)
    first, second = counts
    assert first >= 8 and second <= first // 4, counts


def test_a_setting_the_warm_server_cannot_take_falls_back(warm, monkeypatch, capsys):
    state, _ = warm
    monkeypatch.setenv("ASSAY_STATE_DIR", str(state))
    monkeypatch.delenv("ASSAY_NO_WARM_SERVER")
    from assay.executor.session import _on_warm_server

    assert _on_warm_server({"spark.sql.warehouse.dir": "/elsewhere"}, 30, False) is None
    assert "not using the warm server" in capsys.readouterr().err
    handle = _on_warm_server({"spark.sql.ansi.enabled": "false"}, 30, False)
    assert handle is not None and handle.warm_pid is not None
    handle.close()


def test_no_warm_server_env_and_remote_win(warm, server, monkeypatch):
    state, _ = warm
    done = _assay(state, "run", "--remote", server.url, str(ORDERS))
    assert "warm server" not in done.stderr and done.returncode == 1
    from assay.executor.session.warm import find_warm

    monkeypatch.setenv("ASSAY_STATE_DIR", str(state))
    assert find_warm() is None  # ASSAY_NO_WARM_SERVER=1 in this process (conftest)
    monkeypatch.delenv("ASSAY_NO_WARM_SERVER")
    assert find_warm() is not None


def test_a_killed_server_is_stale_and_keep_server_starts_a_new_one(warm, cold):
    """Last in the module: SIGKILL the warm server; the next run notes the stale record,
    removes it and runs cleanly (here with --keep-server, which starts a new one); a
    record of another assay version is stale too (and its server stopped)."""
    state, line = warm
    os.kill(line["pid"], signal.SIGKILL)
    deadline = time.monotonic() + 30
    while Path(f"/proc/{line['pid']}").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    done = _assay(state, "run", "--keep-server", str(ORDERS))
    assert "is stale" in done.stderr and "started a warm server" in done.stderr, done.stderr
    assert (done.returncode, _answers(done.stdout)) == cold["orders"]
    record = json.loads((state / "server.json").read_text())
    assert record["pid"] != line["pid"]
    again = _assay(state, "run", str(ORDERS))
    assert f"(pid {record['pid']})" in again.stderr
    (state / "server.json").write_text(json.dumps({**record, "assay_version": "0.0.0"}))
    status = _assay(state, "server", "status")
    assert status.returncode == 1 and "is stale" in status.stderr
    assert not (state / "server.json").exists()
    deadline = time.monotonic() + 30
    while Path(f"/proc/{record['pid']}").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not Path(f"/proc/{record['pid']}/cmdline").exists() or b"SparkConnectServer" not in (
        Path(f"/proc/{record['pid']}/cmdline").read_bytes()
    )

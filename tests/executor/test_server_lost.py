"""The Spark Connect server killed while a table runs: exit 3 within the bounded wait, and
one sentence per table saying what happened and where (no gRPC object dumps)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT
from tests.spark_ui import running_jobs, within

pytestmark = pytest.mark.slow


def test_a_server_killed_mid_run_is_one_sentence_per_table_and_exit_3(tmp_path):
    from assay.executor.session import open_session

    handle = open_session(server_conf={"spark.driver.memory": "1g"})
    try:
        path = tmp_path / "slow.yaml"
        # long enough to be running when the server is killed (minutes on 2 cores)
        path.write_text(
            "tables:\n  - name: slow\n"
            '    source: {sql: "SELECT id, sha2(cast(id AS string), 512) AS h FROM range(0, 20000000000)"}\n'
            "    rules:\n      - {type: regex, column: h, pattern: '^[0-9a-f]+z$'}\n"
        )
        env = {k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"}
        # the retries after the kill take at most half of it (ten seconds and more with
        # the default 30 s): what is tested is that they end and what is said then
        env["ASSAY_CONNECT_TIMEOUT"] = "4"
        report = tmp_path / "report.json"
        report.write_text('{"written": "by an earlier run"}')
        proc = subprocess.Popen(
            [sys.executable, "-m", "assay", "run", str(path), "--remote", handle.connect_url,
             "--progress", "--jsonReport", str(report)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env,
        )  # fmt: skip
        assert proc.stderr is not None
        seen = []
        for line in proc.stderr:  # wait until the aggregate plan is submitted
            seen.append(line)
            if "aggregate plan" in line:
                break
        assert handle.ui_url is not None
        assert within(60, lambda: bool(running_jobs(handle.ui_url))) is not None, seen
        assert handle.pid is not None
        os.kill(handle.pid, signal.SIGKILL)
        killed = time.monotonic()
        out, err = proc.communicate(timeout=120)
        waited = time.monotonic() - killed
    finally:
        handle.close()
    err = "".join(seen) + err
    assert proc.returncode == 3, err
    assert waited < 20, waited  # the bounded retry policy, not pyspark's ten minutes
    lines = [__import__("json").loads(line) for line in out.splitlines()]
    table = next(e for e in lines if e["event"] == "table")
    assert table["error"].startswith(
        f"the Spark Connect server at {handle.url} stopped answering during table "
        "slow's aggregate plan"
    ), table["error"]
    assert "Rendezvous" not in out and "StatusCode" not in out
    assert err.count("stopped answering") == 1, err  # once per table, on stderr too
    assert "Traceback" not in err
    # the report file is never left half-written: the earlier one, or this run's whole one
    written = __import__("json").loads(report.read_text())
    assert written == {"written": "by an earlier run"} or written["status"] == "ERROR"

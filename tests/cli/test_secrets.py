"""The values of variables, Spark settings and source options whose names look secret
(``password``, ``spark.hadoop.fs.s3a.secret.key``, ``api_key``...: assay.ir.secrets) are
never shown: not in the warm client's log, nor in the events, nor in the report files and
OpenLineage events made from them."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SECRETS = ("hunter2", "s3cr3tk3y", "apik3y")


def _assay(args: list[str], env: dict[str, str], cwd) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "assay", *args],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=300,
    )  # fmt: skip


def test_the_warm_client_log_shows_no_secret_value(tmp_path):
    state = tmp_path / "state"
    env = {**os.environ, "ASSAY_STATE_DIR": str(state), "PYTHONPATH": str(ROOT / "src")}
    env.pop("ASSAY_NO_WARM_CLIENT", None)
    start = "from assay.warm.client import start_client; start_client()"
    subprocess.run([sys.executable, "-c", start], env=env, cwd=ROOT, timeout=180, check=True)
    try:
        config = tmp_path / "c.yaml"
        config.write_text("tables: []\n")
        done = _assay(
            ["run", str(config), "--remote", "sc://localhost:1", "--var", "password=hunter2",
             "--conf", "spark.hadoop.fs.s3a.secret.key=s3cr3tk3y", "--vars", "day=1,api_key=apik3y"],
            env, tmp_path,
        )  # fmt: skip
    finally:
        stop = "from assay.warm.client import stop_client; stop_client()"
        subprocess.run([sys.executable, "-c", stop], env=env, cwd=ROOT, timeout=60, check=True)
    log = (state / "client.log").read_text()
    assert f"assay run {config}" in log, log  # the command ran in the warm client
    for secret in SECRETS:
        assert secret not in log + done.stdout + done.stderr
    assert "--var password=*** --conf spark.hadoop.fs.s3a.secret.key=***" in log
    assert "--vars day=1,api_key=***" in log


@pytest.mark.spark
def test_events_and_reports_show_no_secret_option(server, tmp_path):
    (tmp_path / "people.csv").write_text("id,name\n1,a\n2,b\n")
    (tmp_path / "c.yaml").write_text(
        "tables:\n  - name: people\n"
        "    source: {path: people.csv, format: csv,"
        " options: {header: 'true', password: hunter2, apiKey: apik3y}}\n"
        "    rules:\n      - {type: not_null, column: id}\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    files = ["r.json", "r.html", "r.xml", "lineage.jsonl"]
    done = _assay(
        ["run", "c.yaml", "--remote", server.url, "--jsonReport", files[0], "--htmlReport",
         files[1], "--junit", files[2], "--openlineage", files[3]],
        env, tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert 'people.csv header=true password=*** apiKey=***"' in done.stdout
    shown = done.stdout + done.stderr + "".join((tmp_path / f).read_text() for f in files)
    for secret in SECRETS:
        assert secret not in shown

"""Ctrl-C during a running plan ends the run at once: the session's operations are
interrupted (the plan stops on the server), the run exits 130 saying so; run from
scratch and through the warm client alike."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.spark

SLOW = (
    "tables:\n  - name: slow\n    source: {sql: 'SELECT id FROM range(0, 200000000000)'}\n"
    "    rules:\n      - {type: unique, column: id}\n"
)


@pytest.fixture(scope="module")
def warm_client(tmp_path_factory):
    state = tmp_path_factory.mktemp("interrupt-state")
    env = {**os.environ, "ASSAY_STATE_DIR": str(state), "PYTHONPATH": str(ROOT / "src")}
    env.pop("ASSAY_NO_WARM_CLIENT", None)
    start = "from assay.cli.warm_client import start_client; start_client()"
    subprocess.run([sys.executable, "-c", start], env=env, cwd=ROOT, timeout=180, check=True)
    yield env
    stop = "from assay.cli.warm_client import stop_client; stop_client()"
    subprocess.run([sys.executable, "-c", stop], env=env, cwd=ROOT, timeout=60, check=True)


@pytest.mark.parametrize("through", ["scratch", "warm_client"])
def test_ctrl_c_interrupts_the_running_plan_and_exits_130(server, tmp_path, through, request):
    config = tmp_path / "slow.yaml"
    config.write_text(SLOW)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    if through == "warm_client":
        env = request.getfixturevalue("warm_client")
    proc = subprocess.Popen(
        [sys.executable, "-m", "assay", "run", str(config), "--remote", server.url],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    for line in proc.stderr:  # the plan is submitted
        if "aggregate plan" in line:
            break
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    _, rest = proc.communicate(timeout=60)
    assert proc.returncode == 130, rest
    assert time.monotonic() - sent < 30
    assert "interrupted" in rest and "Traceback" not in rest
    deadline = time.monotonic() + 20  # and nothing of it runs on on the server
    while server.running_jobs() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert server.running_jobs() == []

"""A client of the warm server killed outright (SIGKILL: it can release nothing) leaves
no session nor running plan behind: the server closes the session of a client process
that is gone within seconds (executor/session/connect_driver.reap); a command killed
while its warm-client child runs has that child terminated, which releases its session
itself and still ends its stdout with a summary. Against a real warm server (one more
JVM, shared with test_warm_server.py: tests/executor/conftest.py), with a plan that
sleeps on the server."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from tests.cli.test_interrupt import SLEEPS
from tests.executor.conftest import SECRET, warm_env
from tests.spark_ui import open_sessions, running_jobs, within

pytestmark = pytest.mark.spark

REAPED_WITHIN = 15.0
"""Seconds the server is given (it looks every 2 s)."""


def _env(state, warm_client: bool) -> dict[str, str]:
    # the warm server's own environment: the warm client refuses a command whose
    # PYTHONPATH (part of the code's fingerprint) differs from the one it started with
    env = warm_env(state)
    if not warm_client:
        env["ASSAY_NO_WARM_CLIENT"] = "1"
    return env


@pytest.fixture(scope="module")
def warm(warm_server):
    """The session's warm server (and warm client, tests/executor/conftest.py): its
    state directory, its UI and its start line."""
    state, started = warm_server.running()
    ui = f"http://127.0.0.1:{json.loads(started)['ui_port']}"
    return state, ui, started


def _killed_while_running(state, ui: str, tmp_path, warm_client: bool):
    """``assay run`` of a sleeping plan on the warm server, SIGKILLed once it runs."""
    config = tmp_path / "sleeps.yaml"
    config.write_text(SLEEPS)
    before = open_sessions(ui)
    proc = subprocess.Popen(
        [sys.executable, "-m", "assay", "run", str(config)], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=_env(state, warm_client), cwd=tmp_path, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    for line in proc.stderr:
        if "aggregate plan" in line:
            break
    assert within(30, lambda: bool(running_jobs(ui))) is not None, "the plan never ran"
    assert len(open_sessions(ui)) == len(before) + 1
    proc.send_signal(signal.SIGKILL)
    killed = time.monotonic()
    proc.wait(timeout=10)
    return proc, before, killed


def _assert_released(ui: str, before: set[str], killed: float) -> float:
    assert within(REAPED_WITHIN, lambda: running_jobs(ui) == []) is not None
    assert within(REAPED_WITHIN, lambda: open_sessions(ui) == before) is not None
    return time.monotonic() - killed


def test_the_settings_shown_hide_secret_values(warm):
    state, _, started = warm
    status = subprocess.run(
        [sys.executable, "-m", "assay", "server", "status"],
        capture_output=True, text=True, env=_env(state, True), timeout=60,
    )  # fmt: skip
    for line in (started, status.stdout):
        assert SECRET not in line
        assert json.loads(line)["conf"]["spark.hadoop.fs.s3a.secret.key"] == "***"


def test_the_session_of_a_killed_client_is_closed_and_its_plan_stopped(warm, tmp_path):
    state, ui, _ = warm
    proc, before, killed = _killed_while_running(state, ui, tmp_path, warm_client=False)
    took = _assert_released(ui, before, killed)
    print(f"released {took:.1f} s after SIGKILL")  # shown with -s
    log = (state / "server.log").read_text()
    assert f"of process {proc.pid}, which is gone" in log


def test_a_killed_command_has_its_warm_client_child_release_the_session(warm, tmp_path):
    state, ui, _ = warm
    proc, before, killed = _killed_while_running(state, ui, tmp_path, warm_client=True)
    _assert_released(ui, before, killed)
    assert proc.stdout is not None
    lines = proc.stdout.read().splitlines()  # the child wrote on, through its own copy
    summary = json.loads(lines[-1])
    assert (summary["event"], summary["exit_code"], summary["stopped"]) == (
        "summary",
        143,
        "SIGTERM",
    )

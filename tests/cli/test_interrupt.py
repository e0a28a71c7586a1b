"""Ctrl-C (SIGINT) and a scheduler's SIGTERM during a running plan end the run at once:
the session's operations are interrupted (the plan stops on the server), the session is
released, stdout ends with the summary of what finished, and the run exits 130 or 143;
run from scratch and through the warm client alike, and when ``assay server stop``
stops the warm client under a running command."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT
from tests.spark_ui import open_sessions, running_jobs, within

pytestmark = pytest.mark.spark

SLEEPS = (
    "tables:\n  - name: sleeps\n"
    "    source: {sql: \"SELECT id, reflect('java.lang.Thread', 'sleep', CAST(600000 AS BIGINT))"
    ' AS s FROM range(1)"}\n'
    "    rules:\n      - {type: not_null, column: s}\n"
)
"""One table whose aggregate plan sleeps ten minutes on the server."""

RELEASED_WITHIN = 20.0
"""Seconds the server is given to have no running job and no session of the run left."""


def _start_client(state, grace: float | None = None) -> dict[str, str]:
    env = {**os.environ, "ASSAY_STATE_DIR": str(state), "PYTHONPATH": str(ROOT / "src")}
    if grace is not None:
        env["ASSAY_WARM_GRACE"] = str(grace)
    env.pop("ASSAY_NO_WARM_CLIENT", None)
    start = "from assay.warm.client import start_client; start_client()"
    subprocess.run([sys.executable, "-c", start], env=env, cwd=ROOT, timeout=180, check=True)
    return env


def _stop_client(env: dict[str, str]) -> None:
    stop = "from assay.warm.client import stop_client; stop_client()"
    subprocess.run([sys.executable, "-c", stop], env=env, cwd=ROOT, timeout=60, check=True)


@pytest.fixture(scope="module")
def warm_client(tmp_path_factory):
    env = _start_client(tmp_path_factory.mktemp("interrupt-state"))
    yield env
    _stop_client(env)


def _running(server, tmp_path, env) -> subprocess.Popen[str]:
    """``assay run`` of :data:`SLEEPS`, once its aggregate plan runs on the server."""
    config = tmp_path / "sleeps.yaml"
    config.write_text(SLEEPS)
    proc = subprocess.Popen(
        [sys.executable, "-m", "assay", "run", str(config), "--remote", server.url],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    for line in proc.stderr:  # the plan is submitted
        if "aggregate plan" in line:
            break
    assert within(30, lambda: bool(server.running_jobs())) is not None, "the plan never ran"
    return proc


def _assert_stopped(server, proc, sessions_before, code: int, name: str, said: str) -> None:
    sent = time.monotonic()
    out, rest = proc.communicate(timeout=60)
    assert proc.returncode == code, rest
    assert time.monotonic() - sent < 30
    assert said in rest and "Traceback" not in rest
    summary = json.loads(out.splitlines()[-1])
    assert summary["event"] == "summary", out
    assert (summary["exit_code"], summary["stopped"], summary["status"]) == (code, name, "ERROR")
    # the table the signal cut short is reported as an error: the plan was interrupted
    (table,) = [json.loads(line) for line in out.splitlines() if '"event":"table"' in line]
    assert table["error"] == "table sleeps's aggregate plan was interrupted: the run was stopped"
    assert (summary["tables"], summary["errors"]) == (1, 1)
    assert summary["exit_reason"] == f"exit {code}: {said} with 1 table or comparison reported"
    # and nothing of it runs on on the server, nor holds a session there
    assert within(RELEASED_WITHIN, lambda: running_jobs(server.ui_url) == []) is not None
    left = lambda: open_sessions(server.ui_url) == sessions_before  # noqa: E731
    assert within(RELEASED_WITHIN, left) is not None, open_sessions(server.ui_url)


SIGNALS = {
    "SIGINT": (signal.SIGINT, 130, "interrupted (SIGINT)"),
    "SIGTERM": (signal.SIGTERM, 143, "terminated (SIGTERM)"),
}


@pytest.mark.parametrize("through", ["scratch", "warm_client"])
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_interrupts_the_plan_releases_the_session_and_summarises(
    server, tmp_path, through, name, request
):
    sig, code, said = SIGNALS[name]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    if through == "warm_client":
        env = request.getfixturevalue("warm_client")
    before = open_sessions(server.ui_url)
    proc = _running(server, tmp_path, env)
    proc.send_signal(sig)
    _assert_stopped(server, proc, before, code, name, said)


def test_server_stop_terminates_a_running_command_which_summarises(server, tmp_path_factory):
    """``assay server stop`` stops the warm client: a command still running after its grace
    gets SIGTERM, and ends as a terminated run does."""
    # a grace of 1 s, not 10 (ASSAY_WARM_GRACE): the command is still running after it
    env = _start_client(tmp_path_factory.mktemp("stopped-state"), grace=1.0)
    before = open_sessions(server.ui_url)
    proc = _running(server, tmp_path_factory.mktemp("stopped"), env)
    _stop_client(env)
    _assert_stopped(server, proc, before, 143, "SIGTERM", "terminated (SIGTERM)")


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_while_connecting_still_ends_stdout_with_the_summary(tmp_path, name):
    """Stopped before any table (here: while the server is being reached, which takes
    seconds for a port nobody listens on), the run still ends stdout with its summary."""
    sig, code, said = SIGNALS[name]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = tmp_path / "sleeps.yaml"
    config.write_text(SLEEPS)
    proc = subprocess.Popen(
        [sys.executable, "-m", "assay", "run", str(config), "--remote", f"sc://localhost:{port}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )  # fmt: skip
    assert proc.stderr is not None
    for line in proc.stderr:
        if "connecting to Spark" in line:
            break
    time.sleep(1.0)
    proc.send_signal(sig)
    sent = time.monotonic()
    out, rest = proc.communicate(timeout=30)
    assert proc.returncode == code, rest
    # at once: the half-open session is closed without the release RPC pyspark would
    # otherwise retry at exit against the unreachable server (23 s)
    assert time.monotonic() - sent < 10
    assert said in rest and "Traceback" not in rest
    (summary,) = [json.loads(line) for line in out.splitlines()]
    assert (summary["event"], summary["exit_code"], summary["stopped"]) == ("summary", code, name)
    assert summary["exit_reason"] == f"exit {code}: {said} before any table was reported"


@pytest.mark.parametrize("through", ["scratch", "warm_client"])
def test_sigterm_as_the_plan_is_submitted_still_ends_the_run(server, tmp_path, through, request):
    """SIGTERM the moment the aggregate plan is submitted, its request still on its way to
    the server (not yet among the session's operations, so that the first interruption
    misses it), and through the warm client, where the signal may reach one of gRPC's
    threads rather than the one waiting for the plans: the run still stops, summarises and
    exits 143, instead of waiting for the plan to finish on the server."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    if through == "warm_client":
        env = request.getfixturevalue("warm_client")
    config = tmp_path / "sleeps.yaml"
    # one slice: a plan without a shuffle stage, whose job Spark itself submits late when
    # the stop comes while it plans the stage (docs/deployment.md, "Stopping a run")
    config.write_text(SLEEPS.replace("range(1)", "range(0, 1, 1, 1)"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "assay", "run", str(config), "--remote", server.url],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    for line in proc.stderr:
        if "aggregate plan" in line:
            break
    proc.send_signal(signal.SIGTERM)
    out, rest = proc.communicate(timeout=60)
    assert proc.returncode == 143, rest
    summary = json.loads(out.splitlines()[-1])
    assert (summary["event"], summary["stopped"]) == ("summary", "SIGTERM")
    assert within(RELEASED_WITHIN, lambda: running_jobs(server.ui_url) == []) is not None

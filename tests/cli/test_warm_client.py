"""The warm client (``assay.warm.client``), for real: started in a temporary state
directory, every ``assay`` command runs in a fork of it and answers exactly as the same
command run from scratch: its output, exit code, working directory, environment and
stdin; a signal reaches the command; a command killed outright takes its child with it;
code that is not the warm client's own is refused and runs from scratch."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.spark_ui import within

pytestmark = pytest.mark.spark

ORDERS = "examples/orders.yaml"
VARYING = ("run_id", "elapsed_ms", "started_at")


def _env(state: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ASSAY_NO_WARM_CLIENT", "SPARK_REMOTE")}
    env["ASSAY_STATE_DIR"] = str(state)
    env["PYTHONPATH"] = str(ROOT / "src")
    env.update(extra)
    return env


def _assay(state: Path, *args: str, stdin: str | None = None, **env: str):
    return subprocess.run(
        [sys.executable, "-m", "assay", *args], input=stdin, capture_output=True, text=True,
        cwd=ROOT, env=_env(state, **env), timeout=300,
    )  # fmt: skip


def _served(state: Path) -> list[str]:
    """The commands the warm client's log says it forked."""
    log = (state / "client.log").read_text()
    return [
        line.split(": assay ", 1)[1].rsplit("  (in ", 1)[0]
        for line in log.splitlines()
        if ": assay " in line
    ]


def _answers(stdout: str) -> list[dict]:
    events = [json.loads(line) for line in stdout.splitlines()]
    return [{k: v for k, v in e.items() if k not in VARYING} for e in events]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    """A warm client (no warm server: the runs name the session's server)."""
    state = tmp_path_factory.mktemp("client-state")
    started = subprocess.run(
        [sys.executable, "-c", "from assay.warm.client import start_client; print(start_client())"],
        capture_output=True, text=True, env=_env(state), cwd=ROOT, timeout=180,
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    yield state, int(started.stdout)
    subprocess.run(
        [sys.executable, "-c", "from assay.warm.client import stop_client; stop_client()"],
        env=_env(state), cwd=ROOT, timeout=60, check=True,
    )  # fmt: skip


def test_a_run_answers_as_one_from_scratch(client, server):
    state, _ = client
    forwarded = _assay(state, "run", ORDERS, "--remote", server.url)
    scratch = _assay(state, "run", ORDERS, "--remote", server.url, ASSAY_NO_WARM_CLIENT="1")
    assert _served(state)[-1] == f"run {ORDERS} --remote {server.url.split('token=')[0]}token=***"
    assert forwarded.returncode == scratch.returncode == 1  # the example has failing rules
    assert _answers(forwarded.stdout) == _answers(scratch.stdout)
    assert forwarded.stdout.count("\n") >= 18


def test_exit_codes_stderr_stdin_cwd_and_environment_are_the_commands(client, tmp_path):
    state, _ = client
    bad = _assay(state, "check", "examples/no_such.yaml")
    assert bad.returncode == 2 and "no_such.yaml" in bad.stderr and "Traceback" not in bad.stderr
    assert _served(state)[-1] == "check examples/no_such.yaml"
    # stdin: the config piped in, read as /dev/stdin
    from_stdin = _assay(state, "check", "/dev/stdin", stdin=(ROOT / ORDERS).read_text())
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert json.loads(from_stdin.stdout)["rules"] == 16
    # the environment: the command's own (a variable the warm client never had)
    config = tmp_path / "v.yaml"
    config.write_text(
        "vars: {m: {env: MIN_ROWS}}\ntables:\n  - name: t\n    source: {sql: 'SELECT 1 AS x'}\n"
        "    rules:\n      - {type: row_count, must_be: '> ${m}'}\n"
    )
    assert _assay(state, "check", str(config), MIN_ROWS="41").returncode == 0
    unset = _assay(state, "check", str(config))
    assert unset.returncode == 2 and "MIN_ROWS" in unset.stderr
    assert _served(state)[-3:] == ["check /dev/stdin", f"check {config}", f"check {config}"]


def test_help_names_the_command_as_a_user_types_it(client):
    state, _ = client
    script = Path(sys.executable).with_name("assay")  # the console script pip installed
    typed = subprocess.run(
        [sys.executable, str(script), "suggest", "--help"], capture_output=True, text=True, cwd=ROOT,
        env=_env(state), timeout=120,
    )  # fmt: skip
    assert _served(state)[-1] == "suggest --help"
    assert typed.returncode == 0 and typed.stdout.startswith("Usage: assay suggest "), typed.stdout
    # as `python -m assay`: the name that command gives itself, as from scratch
    forwarded = _assay(state, "suggest", "--help")
    scratch = _assay(state, "suggest", "--help", ASSAY_NO_WARM_CLIENT="1")
    assert forwarded.stdout.startswith("Usage: python -m assay suggest ")
    assert forwarded.stdout == scratch.stdout


def test_a_signal_reaches_the_command_and_a_killed_command_ends_its_child(client, server, tmp_path):
    """SIGTERM ends the command as it ends one run from scratch (its plan interrupted on the
    server, its summary printed, exit 143, no job of it left running); SIGKILL, which the
    command cannot pass on, ends its child through the warm client."""
    state, _ = client
    slow = tmp_path / "slow.yaml"
    slow.write_text(
        "tables:\n  - name: slow\n    source: {sql: 'SELECT id FROM range(0, 200000000000)'}\n"
        "    rules:\n      - {type: unique, column: id}\n"
    )
    for sig in (signal.SIGTERM, signal.SIGKILL):
        # a session id of the test's choosing: the plan a killed command leaves running on
        # the shared server is then interrupted from that session (else it would run on)
        url = f"{server.url};session_id={uuid.uuid4()}"
        proc = subprocess.Popen(
            [sys.executable, "-m", "assay", "run", str(slow), "--remote", url],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(state), cwd=ROOT,
        )  # fmt: skip
        child = _child_of(state, str(slow), len(_served(state)))
        # its plan runs on the server (a stop while Spark plans the query is another
        # matter: docs/deployment.md, "Stopping a run")
        assert within(60, lambda: bool(server.running_jobs())) is not None, "the plan never ran"
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=120)
        _gone(child)
        if sig == signal.SIGTERM:  # the run interrupts its plan and closes its session
            assert proc.returncode == 143, stderr
            assert json.loads(stdout.splitlines()[-1])["event"] == "summary"
            left = within(30, lambda: server.running_jobs() == [])
            assert left is not None, f"jobs {server.running_jobs()} still run"
        else:
            assert proc.returncode == -sig, stderr
            _interrupt_left_behind(server, url)


def _interrupt_left_behind(server, url: str) -> None:
    from pyspark.sql.connect.session import SparkSession

    orphan = SparkSession.builder.remote(url).create()
    deadline = time.monotonic() + 60
    while server.running_jobs() and time.monotonic() < deadline:
        orphan.interruptAll()
        time.sleep(0.5)
    assert server.running_jobs() == []


def _child_of(state: Path, config: str, served: int) -> int:
    """The pid of the child forked for the command after the ``served`` first ones."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        lines = [x for x in (state / "client.log").read_text().splitlines() if ": assay " in x]
        for line in lines[served:]:
            if f": assay run {config}" in line:
                return int(line.split("pid ", 1)[1].split(":", 1)[0])
        time.sleep(0.1)
    raise AssertionError("the warm client never forked the command")


def _gone(pid: int, wait: float = 30.0) -> None:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    raise AssertionError(f"the command's child {pid} still runs")


def test_other_code_is_refused_and_runs_from_scratch(client):
    state, pid = client
    before = len(_served(state))
    other = _assay(state, "check", ORDERS, PYTHONPATH=f"{ROOT / 'src'}{os.pathsep}{ROOT / 'tests'}")
    assert other.returncode == 0 and json.loads(other.stdout)["valid"] is True
    assert len(_served(state)) == before
    assert (
        "refused check examples/orders.yaml: started from other code"
        in (state / "client.log").read_text()
    )
    os.kill(pid, 0)  # and it still serves


def test_the_socket_and_its_directory_are_private(client):
    state, _ = client
    assert (state.stat().st_mode & 0o777) == 0o700
    assert (os.stat(state / "client.sock").st_mode & 0o777) == 0o600


PRELOADED = """
import contextlib, os, sys
from assay.warm.client import preload
preload()
before = set(sys.modules)
from assay.cli.app import command
for argv in (["check", "examples/orders.yaml"], ["explain", "examples/orders.yaml"],
             ["run", "examples/orders.yaml", "--remote", sys.argv[1]]):
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        with contextlib.suppress(SystemExit):
            command().main(args=argv, standalone_mode=False)
print(" ".join(sorted(set(sys.modules) - before)))
"""


@pytest.mark.spark
def test_the_warm_client_imported_what_commands_import(server):
    """Every module ``check``, ``explain`` and ``run`` import is imported by the warm
    client before its first command (its children would import it anew every time)."""
    done = subprocess.run(
        [sys.executable, "-c", PRELOADED, server.url], cwd=ROOT, capture_output=True,
        text=True, timeout=300, env={**os.environ, "ASSAY_NO_WARM_SERVER": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == []


def test_two_replies_in_one_segment_are_read_one_at_a_time():
    """A command that ends at once (``--help``) can have its pid and its exit arrive in one
    segment: each read takes its own line and leaves the next one on the socket."""
    import socket

    from assay.warm.client import _read_line

    ours, theirs = socket.socketpair()
    ours.settimeout(5.0)  # a reader that took the second line waits for a third: fail, not hang
    with ours, theirs:
        theirs.sendall(b'{"pid": 12345}\n{"exit": 0}\n{"sig')
        assert _read_line(ours) == {"pid": 12345}
        assert _read_line(ours) == {"exit": 0}
        theirs.sendall(b'nal": 15}\n')
        assert _read_line(ours) == {"signal": 15}
        theirs.close()
        assert _read_line(ours) is None

"""The versions pyproject.toml declares, proven: the thin client alone (pyspark-client, no
JVM) at the oldest and newest release declared, against this Spark's server; and this
client against a Spark Connect server of the oldest Spark declared. Each example gives the
same lines as with the full client on the embedded server.

The other installs come from the environment (``.ci/run`` builds them):
``ASSAY_THIN_PYTHONS`` (comma-separated pythons of virtualenvs with ``spark-assay[remote]``)
and ``ASSAY_SERVER_PYTHONS`` (pythons of virtualenvs with another full pyspark). Without
them these tests skip, unless ``ASSAY_REQUIRE_VERSIONS=1`` (CI), where they fail.
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cluster.test_cluster import _lines
from tests.conftest import ROOT
from tests.test_examples import documented, full_run, own_metrics

pytestmark = pytest.mark.spark

RUNS = [c for c, _ in documented() if c.startswith("assay run ")]
REQUIRED = os.environ.get("ASSAY_REQUIRE_VERSIONS") == "1"


def _pythons(variable: str) -> list[str]:
    found = [p for p in os.environ.get(variable, "").split(",") if p]
    if not found and REQUIRED:
        pytest.fail(f"{variable} is not set but ASSAY_REQUIRE_VERSIONS=1")
    return found


def _version(python: str, dist: str) -> str | None:
    code = (
        "import importlib.metadata as m, sys\n"
        f"try: print(m.version({dist!r}))\n"
        "except m.PackageNotFoundError: print('')\n"
    )
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip() or None


def _assay(python: str, command: str, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_REMOTE", "PYTHONPATH")}
    argv = [python, "-m", "assay", *shlex.split(command)[1:], *extra]
    return subprocess.run(argv, capture_output=True, text=True, timeout=600, cwd=ROOT, env=env)


def thin_pythons() -> list[str]:
    return _pythons("ASSAY_THIN_PYTHONS")


@pytest.fixture(params=thin_pythons() or [None], ids=lambda p: p or "none")
def thin(request) -> str:
    if request.param is None:
        pytest.skip("no thin-client install given (ASSAY_THIN_PYTHONS): .ci/run builds them")
    return request.param


def test_the_thin_install_has_the_client_only(thin):
    assert _version(thin, "pyspark") is None  # neither the JVM jars nor a second pyspark
    assert _version(thin, "pyspark-client") is not None
    assert _version(thin, "spark-assay") is not None


@pytest.mark.parametrize("command", RUNS)
def test_the_thin_client_answers_as_the_full_one(thin, server, command, tmp_path):
    full = full_run(command, server.url, tmp_path)
    alone = _assay(thin, command, "--remote", server.url, *own_metrics(command, tmp_path, "thin"))
    assert alone.returncode == full.returncode, alone.stderr[-2000:]
    assert _lines(alone.stdout) == _lines(full.stdout)


def test_the_thin_client_without_remote_says_what_to_do(thin):
    done = _assay(thin, "assay run examples/orders.yaml")
    assert done.returncode == 3
    (summary,) = [json.loads(line) for line in done.stdout.splitlines()]  # it stopped: says so
    assert (summary["event"], summary["exit_code"], summary["stopped"]) == ("summary", 3, "error")
    assert "--remote" in done.stderr and "Traceback" not in done.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module", params=_pythons("ASSAY_SERVER_PYTHONS") or [None])
def old_server(request, tmp_path_factory) -> Iterator[str]:
    """A Spark Connect server of another Spark (its own virtualenv's pyspark), on loopback."""
    python = request.param
    if python is None:
        pytest.skip("no other Spark given (ASSAY_SERVER_PYTHONS): .ci/run builds one")
    home = subprocess.run(
        [python, "-c", "import pyspark, os; print(os.path.dirname(pyspark.__file__))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    port = _free_port()
    log = tmp_path_factory.mktemp("old-server") / "server.log"
    env = {**os.environ, "SPARK_HOME": home, "SPARK_LOCAL_IP": "127.0.0.1"}
    env.pop("SPARK_REMOTE", None)
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(Path(home, "bin", "spark-submit")), "--class",
             "org.apache.spark.sql.connect.service.SparkConnectServer",
             "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
             "--conf", f"spark.connect.grpc.binding.port={port}",
             "--conf", f"spark.ui.port={_free_port()}", "--conf", "spark.driver.memory=1g",
             "--conf", "spark.sql.shuffle.partitions=4"],
            stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )  # fmt: skip
    url = f"sc://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the old Spark server did not start: {log}") from None
                time.sleep(1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_the_old_server_is_the_oldest_spark_declared(old_server):
    from assay.executor.session import open_session

    with open_session(old_server) as handle:
        assert handle.spark.version.startswith("4.0.")


@pytest.mark.parametrize("command", RUNS)
def test_every_example_answers_on_the_oldest_server_as_on_this_one(
    old_server, server, command, tmp_path
):
    here = full_run(command, server.url, tmp_path)
    old = _assay(
        sys.executable, command, "--remote", old_server, *own_metrics(command, tmp_path, "old")
    )
    assert old.returncode == here.returncode, old.stderr[-2000:]
    assert _lines(old.stdout) == _lines(here.stdout)


def test_split_plans_answer_alike_on_a_server_without_merge_subplans(old_server, tmp_path):
    """Spark 4.0 has no MergeSubplans rule: the executor's exclusion of it is harmless
    there, and a plan split into scan branches answers as the single-branch plan."""
    import dataclasses

    from assay.config import load_suite
    from assay.executor.run import run_suite
    from assay.executor.session import open_session
    from assay.planner.cost import DEFAULT_OPTIONS
    from tests.helpers import Collect

    path = tmp_path / "c.yaml"
    path.write_text(
        'tables:\n  - name: t\n    source: {sql: "SELECT id, id % 13 AS a, id % 7 AS b FROM range(5000)"}\n'
        "    keys: [id]\n    rules:\n"
        + "".join(
            f"      - {{type: range, column: {c}, max: {m}}}\n" for c in "ab" for m in (3, 6, 12)
        )
        + "      - {type: avg, column: a, must_be: '> 1'}\n      - {type: not_null, column: b}\n"
    )
    with open_session(old_server) as handle:
        got = {}
        for strategy in ("single", "split"):
            sink = Collect()
            options = dataclasses.replace(DEFAULT_OPTIONS, strategy=strategy, max_outputs=2)
            run_suite(load_suite([path]), handle.spark, sink, options=options)
            got[strategy] = [
                {k: r[k] for k in ("passed", "severity", "failed_count", "metric_value", "samples")}
                for r in sink.results
            ]
    assert got["single"] == got["split"]
    assert any(not r["passed"] for r in got["single"])


def test_the_thin_client_answers_on_the_oldest_server(thin, old_server):
    command = next(c for c in RUNS if "orders.yaml" in c)
    here = _assay(sys.executable, command, "--remote", old_server)
    alone = _assay(thin, command, "--remote", old_server)
    assert alone.returncode == here.returncode, alone.stderr[-2000:]
    assert _lines(alone.stdout) == _lines(here.stdout)
    json.loads(alone.stdout.splitlines()[-1])  # the summary line is whole


def test_drift_against_history_is_refused_on_the_oldest_server(old_server, tmp_path):
    """Spark 4.0 has no KLL sketches (``kll_sketch_agg_double`` is Spark 4.1's): a drift
    rule against history is refused at its line, naming the rule and the server's
    version, before any scan (the source raises an error when a row is read). The
    HyperLogLog sketch metric (``approx_distinct_count``: ``approx_count_distinct``) runs
    there (``hll_sketch_agg``, the incremental distinct count's, is Spark 3.5's too)."""
    path = tmp_path / "c.yaml"
    path.write_text(
        "tables:\n  - name: t\n"
        "    source: {sql: \"SELECT CAST(raise_error('scanned') AS DOUBLE) AS a FROM range(3)\"}\n"
        "    rules:\n      - {type: not_null, column: a}\n"
        "      - {type: drift, column: a, method: ks, references: {history: last}}\n"
    )
    done = _assay(
        sys.executable, f"assay run {path}", "--remote", old_server,
        "--metrics", str(tmp_path / "m.jsonl"),
    )  # fmt: skip
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"{path}:6" in done.stderr and "tables[0].rules[1]" in done.stderr, done.stderr
    assert "kll_sketch_agg_double" in done.stderr and "Spark 4.0." in done.stderr, done.stderr
    assert "scanned" not in done.stdout + done.stderr and "Traceback" not in done.stderr
    assert not [line for line in done.stdout.splitlines() if '"event":"result"' in line]
    hll = tmp_path / "hll.yaml"
    hll.write_text(
        'tables:\n  - name: t\n    source: {sql: "SELECT id FROM range(100)"}\n    rules:\n'
        "      - {type: approx_distinct_count, column: id, must_be: '> 90'}\n"
    )
    ran = _assay(sys.executable, f"assay run {hll}", "--remote", old_server)
    assert ran.returncode == 0, ran.stderr[-2000:]


def test_merged_drift_rules_answer_on_the_oldest_server_as_on_this_one(
    old_server, server, tmp_path
):
    """The drift rules against one referenced source, one branch (each side read once, its
    columns stacked by ``explode``, windows partitioned by column): Spark 4.0's answers
    are this Spark's."""
    path = tmp_path / "c.yaml"
    ref = '{sql: "SELECT id * 1.5 AS x, CAST(id % 4 AS STRING) AS c FROM range(300)"}'
    path.write_text(
        "tables:\n  - name: t\n"
        '    source: {sql: "SELECT id * 1.0 AS x, CAST(id % 5 AS STRING) AS c FROM range(400)"}\n'
        "    rules:\n"
        f"      - {{type: drift, column: x, method: psi, bins: 7, references: {ref}}}\n"
        f"      - {{type: drift, column: x, method: ks, references: {ref}}}\n"
        f"      - {{type: drift, column: x, method: wasserstein, references: {ref}, must_be: '>= 0'}}\n"
        f"      - {{type: drift, column: c, method: chi_square_p_value, references: {ref}}}\n"
    )
    here = _assay(sys.executable, f"assay run {path}", "--remote", server.url)
    old = _assay(sys.executable, f"assay run {path}", "--remote", old_server)
    assert old.returncode == here.returncode == 1, old.stderr[-2000:]
    assert _lines(old.stdout) == _lines(here.stdout)

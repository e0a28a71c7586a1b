"""A real multi-process Spark standalone cluster on loopback, started once for the cluster
tests: a master, two workers (separate JVMs, one core and a bounded heap each) and a
Spark Connect server whose master is that cluster. pyspark's wheel ships the jars and
``bin/spark-class``; nothing is downloaded. Logs stay under pytest's temporary directory
(their path is printed when a test fails)."""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from assay.executor.session.process import spawn


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


@dataclass
class Cluster:
    """The running cluster: the master's URL, its workers' processes, the Connect server."""

    master_url: str
    master_ui: str
    workers: list[subprocess.Popen] = field(default_factory=list)
    processes: list[subprocess.Popen] = field(default_factory=list)
    logs: Path = Path(".")
    handle: object = None

    @property
    def url(self) -> str:
        """The Connect server's URL (with its token): for ``--remote``."""
        return self.handle.connect_url  # type: ignore[attr-defined]

    @property
    def spark(self):
        return self.handle.spark  # type: ignore[attr-defined]

    def alive_workers(self) -> int:
        import json

        with urllib.request.urlopen(f"{self.master_ui}/json/", timeout=10) as r:
            state = json.load(r)
        return sum(1 for w in state["workers"] if w["state"] == "ALIVE")

    def sql_executions(self) -> int:
        import json

        ui = self.handle.ui_url  # type: ignore[attr-defined]
        with urllib.request.urlopen(f"{ui}/api/v1/applications", timeout=60) as r:
            app = json.load(r)[0]["id"]
        with urllib.request.urlopen(
            f"{ui}/api/v1/applications/{app}/sql?length=100000", timeout=60
        ) as r:
            return max((int(e["id"]) + 1 for e in json.load(r)), default=0)


def _spawn(argv: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen:
    """A cluster process tied to this one as the embedded server is (its own process
    group, SIGTERM when pytest dies): a killed test run leaves no master or worker."""
    return spawn(argv, env, str(log), tied=True)


def _wait(what: str, ready, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if ready():
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"the test cluster's {what} did not start within {timeout:.0f} s")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    # module scope: its five JVMs stop once the cluster tests are done, not at the end of
    # the whole suite (they would load the 2-core machine for every later test)
    from assay.executor.session import open_session, quiet_pyspark_logging
    from assay.executor.session.jvm import C1_ONLY

    logs = tmp_path_factory.mktemp("cluster-logs")
    home = _spark_home()
    env = {
        **{k: v for k, v in os.environ.items() if k != "SPARK_REMOTE"},
        "SPARK_HOME": str(home),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_WORKER_DIR": str(logs / "work"),
        "SPARK_NO_DAEMONIZE": "1",
    }
    jit = " ".join(C1_ONLY)
    env["SPARK_DAEMON_JAVA_OPTS"] = f"{env.get('SPARK_DAEMON_JAVA_OPTS', '')} {jit}".strip()
    port, ui = _free_port(), _free_port()
    master = f"spark://127.0.0.1:{port}"
    cls = str(home / "bin" / "spark-class")
    started = Cluster(master, f"http://127.0.0.1:{ui}", logs=logs)
    try:
        started.processes.append(
            _spawn(
                [cls, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                 "--port", str(port), "--webui-port", str(ui)],
                logs / "master.log", {**env, "SPARK_DAEMON_MEMORY": "512m"},
            )
        )  # fmt: skip
        _wait("master", lambda: urllib.request.urlopen(f"{started.master_ui}/json/", timeout=2))
        for n in range(2):
            worker = _spawn(
                [cls, "org.apache.spark.deploy.worker.Worker", master, "--host", "127.0.0.1",
                 "--cores", "1", "--memory", "1g", "--webui-port", str(_free_port()),
                 "--work-dir", str(logs / f"work{n}")],
                logs / f"worker{n}.log", {**env, "SPARK_DAEMON_MEMORY": "256m"},
            )  # fmt: skip
            started.workers.append(worker)
            started.processes.append(worker)
        quiet_pyspark_logging()  # the Connect server starts while the workers do
        started.handle = open_session(
            server_conf={
                "spark.master": master,
                "spark.driver.memory": "1g",
                "spark.executor.memory": "512m",
                "spark.executor.cores": "1",
                "spark.cores.max": "2",
                "spark.sql.shuffle.partitions": "4",
                "spark.sql.ui.retainedExecutions": "100000",
                "spark.task.maxFailures": "4",
                # the tests' tables are tiny: the quick compiler only, as on the
                # session's embedded server (tests/conftest.py)
                "spark.driver.extraJavaOptions": jit,
                "spark.executor.extraJavaOptions": jit,
            },
            connect_timeout=120,
            log_path=str(logs / "connect-server.log"),
        )
        _wait("workers", lambda: started.alive_workers() == 2)
        yield started
    finally:
        if started.handle is not None:
            started.handle.close()  # type: ignore[attr-defined]
        for proc in reversed(started.processes):
            if proc.poll() is None:
                proc.terminate()
        for proc in started.processes:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and "cluster" in item.fixturenames:
        cluster = item.funcargs.get("cluster")
        if cluster is not None:
            report.sections.append(("cluster logs", str(cluster.logs)))

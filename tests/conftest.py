"""Shared fixtures: ONE real embedded Spark Connect server for the whole test session."""

from __future__ import annotations

import json
import os
import signal
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import workers

ROOT = Path(__file__).resolve().parent.parent

# A developer's warm server (`assay server start`) must not serve the tests' runs, nor
# their `assay` subprocesses: each test says which server it uses. Nor its warm client
# (a command forked from it would run the developer's code as it was when it started).
os.environ["ASSAY_NO_WARM_SERVER"] = "1"
os.environ["ASSAY_NO_WARM_CLIENT"] = "1"

# A suite started in the background by a non-interactive shell (`bash .ci/run &`) inherits
# SIGINT ignored, and so would every `assay` the tests start: Python leaves an ignored
# SIGINT ignored, and the Ctrl-C tests' runs would go on computing on the shared server.
# A caught signal is reset to the default in a child, so catching it here gives them Ctrl-C.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


class SparkServer:
    """The session's server: a Connect session, its URL for CLI runs, and its UI."""

    def __init__(self, spark, url: str, ui_url: str | None) -> None:
        self.spark = spark
        self.url = url
        self.ui_url = ui_url
        self._app_id: str | None = None
        self._counted = 0

    def running_jobs(self) -> list[int]:
        """The ids of the Spark jobs running now (Spark UI REST API)."""
        self.sql_executions()  # finds the application id
        url = f"{self.ui_url}/api/v1/applications/{self._app_id}/jobs?status=running"
        with urllib.request.urlopen(url, timeout=60) as r:
            return [int(j["jobId"]) for j in json.load(r)]

    def sql_executions(self) -> int:
        """SQL executions the server has run so far (Spark UI REST API).

        Counted as the highest execution id + 1: ids are dense and increasing, so the
        count stays right even when the UI has dropped old executions (it keeps
        spark.sql.ui.retainedExecutions of them, 1000 by default). Only the executions
        after the last count are listed (``offset``), so the answer stays small however
        many plans the suite has run."""
        if self._app_id is None:
            with urllib.request.urlopen(f"{self.ui_url}/api/v1/applications", timeout=60) as r:
                self._app_id = json.load(r)[0]["id"]
        url = (
            f"{self.ui_url}/api/v1/applications/{self._app_id}/sql"
            f"?offset={self._counted}&length=1000000&details=false"
        )
        with urllib.request.urlopen(url, timeout=60) as r:
            self._counted = max((int(e["id"]) + 1 for e in json.load(r)), default=self._counted)
        return self._counted


@pytest.fixture(scope="session")
def server() -> Iterator[SparkServer]:
    from assay.executor.session import open_session, quiet_pyspark_logging

    quiet_pyspark_logging()
    os.environ.pop("SPARK_REMOTE", None)
    handle = open_session(server_conf=workers.server_conf())
    try:
        yield SparkServer(handle.spark, handle.connect_url, handle.ui_url)
    finally:
        handle.close()


@pytest.fixture(scope="session")
def spark(server: SparkServer):
    return server.spark


@pytest.fixture(autouse=True)
def _no_spark_remote(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests pass --remote explicitly; an inherited SPARK_REMOTE must not leak in."""
    monkeypatch.delenv("SPARK_REMOTE", raising=False)


OPENLINEAGE_ENV = (
    "OPENLINEAGE_URL",
    "OPENLINEAGE_ENDPOINT",
    "OPENLINEAGE_API_KEY",
    "OPENLINEAGE_NAMESPACE",
    "OPENLINEAGE_DISABLED",
)
"""The OpenLineage client's variables, which assay honours: a run would POST its events."""


@pytest.fixture(autouse=True)
def _no_openlineage_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine's OPENLINEAGE_URL must not send the tests' runs anywhere."""
    for name in OPENLINEAGE_ENV:
        monkeypatch.delenv(name, raising=False)


pytest_configure = workers.pytest_configure
pytest_collection_modifyitems = workers.pytest_collection_modifyitems

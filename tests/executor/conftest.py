"""ONE warm server (``assay server start``) for the warm-server modules of the session
(test_warm_reaping.py, then test_warm_server.py, whose last test kills it): a JVM and a
warm client start once, not once per module. Started with a secret setting, which the
reaping module checks is never shown."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.helpers import warm_state_dir

SECRET = "s3cr3tk3y"
"""The value of the secret setting the warm server is started with."""


def warm_env(state: Path) -> dict[str, str]:
    """The environment of a command using the warm server of ``state`` (and its warm
    client): this process's, without the conftest's opt-outs."""
    drop = ("ASSAY_NO_WARM_SERVER", "ASSAY_NO_WARM_CLIENT", "SPARK_REMOTE")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["ASSAY_STATE_DIR"] = str(state)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    return env


class WarmServer:
    """The session's warm server: its state directory, and its ``server start`` line."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self.started: str | None = None

    def _assay(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "assay", *args], capture_output=True, text=True, cwd=ROOT,
            env=warm_env(self.state), timeout=timeout,
        )  # fmt: skip

    def running(self) -> tuple[Path, str]:
        """The state directory and the start line of a running warm server: the one
        started earlier while it answers, else a new one (test_warm_server.py's last
        test kills it and removes its record)."""
        if self.started is None or self._assay("server", "status", timeout=60).returncode != 0:
            start = ("server", "start", "--memory", "1g",
                     "--conf", f"spark.hadoop.fs.s3a.secret.key={SECRET}")  # fmt: skip
            done = self._assay(*start)
            assert done.returncode == 0, done.stderr
            self.started = done.stdout
        return self.state, self.started

    def stop(self) -> None:
        self._assay("server", "stop", timeout=120)


@pytest.fixture(scope="session")
def warm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WarmServer]:
    shared = WarmServer(warm_state_dir(tmp_path_factory.mktemp("warm") / "state"))
    yield shared
    if shared.started is not None:
        shared.stop()

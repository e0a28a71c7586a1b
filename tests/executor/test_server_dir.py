"""The embedded server's private directory after a start that fails before the server
ran: removed (nothing left in the temporary directory); after a start whose server wrote
a log: kept, since the error names that log. No JVM starts here."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from assay.errors import ConfigError, EnvironmentFailure
from assay.executor.session import embedded


@pytest.fixture
def tmp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_a_refused_server_setting_leaves_no_directory(tmp_root: Path) -> None:
    conf = {"spark.connect.grpc.binding.port": "1"}
    with pytest.raises(ConfigError, match="chosen by assay"):
        embedded.open_embedded(5.0, conf, None)
    assert list(tmp_root.iterdir()) == []


def test_java_missing_leaves_no_directory(tmp_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_java(env: object = None) -> str:
        raise EnvironmentFailure("no Java was found")

    monkeypatch.setattr(embedded, "check_java", no_java)
    with pytest.raises(EnvironmentFailure):
        embedded.open_embedded(5.0, {}, None)
    assert list(tmp_root.iterdir()) == []


def test_a_server_that_wrote_its_log_keeps_it(
    tmp_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failed_start(conf: object, state: str, *args: object, **kwargs: object) -> None:
        Path(state, "server.log").write_text("ERROR the server could not start\n")
        raise embedded._startup_failure("exited", str(Path(state, "server.log")))

    monkeypatch.setattr(embedded, "start_server", failed_start)
    with pytest.raises(Exception, match="full log"):
        embedded.open_embedded(5.0, {}, None)
    (kept,) = tmp_root.iterdir()
    assert (kept / "server.log").read_text().startswith("ERROR")

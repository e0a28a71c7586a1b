"""Session opening against real Spark Connect servers (no Spark mocks).

The embedded tests start real JVMs (~5 s each); the whole file runs in well under a minute.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from assay.errors import ConfigError, EnvironmentFailure, SparkFailure
from assay.executor.session import (
    SparkHandle,
    bounded_retry_policy,
    default_driver_memory,
    java_version,
    open_session,
    parse_java_version,
    redact_text,
    redact_url,
    validate_remote_url,
)
from assay.executor.session.embedded import _stop_matters
from assay.ir.sources import PathSource


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie left for an absent reaper counts as dead)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


EXAMPLES = Path(__file__).parents[2] / "examples"


def _grpc_port(handle: SparkHandle) -> int:
    return int(handle.url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])


def _ui_answers(handle: SparkHandle) -> list[dict[str, object]]:
    assert handle.ui_url is not None
    with urllib.request.urlopen(handle.ui_url + "/api/v1/applications", timeout=10) as resp:
        return json.loads(resp.read())


@pytest.fixture(autouse=True)
def _no_spark_remote(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SPARK_REMOTE", raising=False)


# --------------------------------------------------------------------------- embedded server


def test_embedded_sessions_run_queries_on_their_own_ports_and_leave_nothing_behind(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """Two embedded sessions started at once, as two runs on one host would: each on its
    own ports, log and state directory; each answers; closing removes it all."""
    with ThreadPoolExecutor(2) as pool:
        # the first for a run of a few known bytes, the second for one of unknown size
        small = [PathSource("parquet", (str(EXAMPLES / "data" / "orders.parquet"),))]
        first, second = pool.map(lambda reads: open_session(inputs=reads), (small, None))
    pids = (first.pid, second.pid)
    with first, second:
        # a short run's JVM compiles with C1 only; one of unknown size keeps C2
        assert {"-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=240m"} <= set(
            _jvm_options(first)
        )
        assert not [o for o in _jvm_options(second) if "Tiered" in o]
        assert _grpc_port(first) != _grpc_port(second)
        assert first.ui_url != second.ui_url
        assert first.log_path != second.log_path
        assert first.spark.range(3).count() == 3
        assert second.spark.range(4).count() == 4
        assert len(_ui_answers(first)) == len(_ui_answers(second)) == 1
        handle = first
        assert handle.embedded and handle.pid is not None and _alive(handle.pid)
        assert handle.url.startswith("sc://localhost:") and handle.url.endswith(";token=***")
        # the server's heap is sized from this machine, not Spark's 1 GiB default
        assert handle.spark.conf.get("spark.driver.memory") == default_driver_memory()
        assert (
            _ui_answers(handle)[0]["name"]
            == "org.apache.spark.sql.connect.service.SparkConnectServer"
        )
        assert (
            handle.log_path is not None
            and "Spark Connect server started" in Path(handle.log_path).read_text()
        )
        # its log and warehouse in a directory of its own, not in the working directory
        assert handle.state_dir is not None and Path(handle.log_path).parent == Path(
            handle.state_dir
        )
        warehouse = handle.spark.conf.get("spark.sql.warehouse.dir")
        assert handle.state_dir in warehouse
        # Spark's scratch directories too: the server is killed at the end, not waited for
        assert handle.spark.range(10).repartition(2).groupBy("id").count().count() == 10
        scratch = Path(handle.state_dir, "tmp")
        assert {p.name.split("-")[0] for p in scratch.iterdir()} >= {"blockmgr", "spark"}
        assert handle.disposable and second.disposable
    assert not any(_alive(pid) for pid in pids if pid is not None)
    for done in (first, second):
        assert done.state_dir is not None and not Path(done.state_dir).exists()  # ended well
    first.close()  # idempotent
    assert capfd.readouterr().out == ""


def _jvm_options(handle: SparkHandle) -> list[str]:
    """The options the server's JVM runs with, as the operating system lists them."""
    assert handle.pid is not None
    args = Path(f"/proc/{handle.pid}/cmdline").read_bytes().decode().split("\0")
    assert any(a.endswith("java") for a in args[:1]), args[:1]
    return [a for a in args if a.startswith("-XX:")]


_CHILD = textwrap.dedent(
    """
    import sys, time
    from assay.executor.session import open_session
    handle = open_session()
    print(handle.pid, flush=True)
    if sys.argv[1] == "hang":
        time.sleep(600)
    """
)


def test_embedded_jvm_does_not_outlive_its_python_process() -> None:
    # "exit": interpreter exits without close() -> atexit; "hang" + SIGKILL -> PDEATHSIG.
    children = {
        mode: subprocess.Popen(
            [sys.executable, "-c", _CHILD, mode], stdout=subprocess.PIPE, text=True
        )
        for mode in ("exit", "hang")
    }
    jvms = {mode: int(child.stdout.readline()) for mode, child in children.items()}  # type: ignore[union-attr]
    children["hang"].send_signal(signal.SIGKILL)
    for child in children.values():
        child.wait(30)
    deadline = time.monotonic() + 15
    while any(_alive(pid) for pid in jvms.values()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert {mode: _alive(pid) for mode, pid in jvms.items()} == {"exit": False, "hang": False}


# --------------------------------------------------------------------------- remote failures


@pytest.mark.parametrize(
    ("conf", "env", "matters"),
    [
        ({}, {}, False),
        ({"spark.driver.memory": "2g", "spark.sql.shuffle.partitions": "4"}, {}, False),
        ({"spark.eventLog.enabled": "true"}, {}, True),  # its log is renamed at stop
        ({"spark.local.dir": "/data/scratch"}, {}, True),  # scratch outside its directory
        ({"spark.sql.catalogImplementation": "hive"}, {}, True),  # a Derby metastore's lock
        ({"spark.driver.extraJavaOptions": "-Djava.io.tmpdir=/data/t"}, {}, True),
        ({}, {"SPARK_LOCAL_DIRS": "/data/scratch"}, True),
        ({}, {"SPARK_CONF_DIR": "/etc/spark"}, True),  # spark-defaults.conf may set them
    ],
)
def test_a_server_is_killed_at_its_end_only_when_its_stop_writes_nothing_elsewhere(
    conf: dict[str, str], env: dict[str, str], matters: bool
) -> None:
    assert _stop_matters(conf, env) is matters


def test_default_driver_memory_is_a_quarter_of_the_machine_within_bounds() -> None:
    import os

    memory = default_driver_memory()
    assert memory is not None and memory.endswith("m")
    total_mib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    assert 1024 <= int(memory[:-1]) <= min(8192, max(1024, total_mib // 4))


def test_unreachable_remote_fails_fast_with_redacted_url() -> None:
    port = _free_port()
    start = time.monotonic()
    with pytest.raises(SparkFailure) as err:  # refused at once, retried for 2 s of the 4
        open_session(f"sc://127.0.0.1:{port}/;token=s3cr3t==", connect_timeout=4)
    assert time.monotonic() - start < 30
    assert "no answer within" not in str(err.value)  # the retries ended, not the watchdog
    assert f"sc://127.0.0.1:{port}/;token=***" in str(err.value)
    assert "s3cr3t" not in str(err.value)
    assert "check the host and port" in str(err.value)


def test_server_that_never_answers_is_cut_off_by_the_watchdog() -> None:
    with socket.socket() as silent:  # accepts TCP (kernel backlog) but never speaks HTTP/2
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        start = time.monotonic()
        with pytest.raises(SparkFailure, match="no answer within 3 s"):
            open_session(f"sc://127.0.0.1:{port}", connect_timeout=3)
        assert time.monotonic() - start < 8


def test_spark_remote_env_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARK_REMOTE", "http://example")
    with pytest.raises(ConfigError, match="must start with 'sc://'"):
        open_session()


@pytest.mark.spark
def test_conf_with_a_remote_sets_this_sessions_settings_only(server) -> None:
    key = "spark.sql.shuffle.partitions"
    with open_session(server.url, server_conf={key: "7"}) as handle:
        assert handle.spark.conf.get(key) == "7"
    assert server.spark.conf.get(key) == "4"  # the server's other sessions never see it


@pytest.mark.spark
def test_a_setting_a_running_server_cannot_take_is_a_config_error(server) -> None:
    with pytest.raises(ConfigError) as err:
        open_session(server.url, server_conf={"spark.executor.memory": "2g"})
    assert "spark.executor.memory" in str(err.value)
    assert "set them when the server starts" in str(err.value)


def test_server_that_dies_while_starting_reports_the_error_lines(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    with pytest.raises(SparkFailure) as err:
        open_session(server_conf={"spark.master": "bogus"}, log_path=str(log))
    message = str(err.value)
    assert "exited with code 1 while starting" in message and str(log) in message
    assert "Master must either be yarn or start with" in message
    assert len(message.splitlines()) < 25  # an excerpt, not the whole log


def test_reserved_server_conf_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="spark.connect.grpc.binding.port"):
        open_session(server_conf={"spark.connect.grpc.binding.port": "15002"})


# --------------------------------------------------------------------------- URL validation


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://x", "must start with 'sc://'"),
        ("local[*]", "must start with 'sc://'"),
        ("sc://", "has no host"),
        ("sc://:15002", "has no host"),
        ("sc://h:port", "invalid port"),
        ("sc://h:1/db", "no path"),
        ("sc://h:1/;token", "not key=value"),
    ],
)
def test_bad_urls_are_config_errors(url: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as err:
        open_session(url)
    assert err.value.exit_code == 2


def test_config_errors_never_show_the_token() -> None:
    for url in ("https://h/;token=s3cr3t", "sc://h:1/db;token=s3cr3t", "sc://h:x/;token=s3cr3t"):
        with pytest.raises(ConfigError) as err:
            open_session(url)
        assert "s3cr3t" not in str(err.value) and "token=***" in str(err.value)
    with pytest.raises(ConfigError) as err:  # pyspark's own error path (bad session_id)
        open_session("sc://h:1/;session_id=nope;token=s3cr3t")
    assert "s3cr3t" not in str(err.value) and "INVALID_SESSION_UUID_ID" in str(err.value)


def test_validate_remote_url_encodes_equals_in_values() -> None:
    assert validate_remote_url(" sc://h:1/;token=ab==;;x=1 ") == "sc://h:1/;token=ab%3D%3D;x=1"
    assert validate_remote_url("sc://h") == "sc://h/"


@pytest.mark.parametrize(
    ("url", "redacted"),
    [
        ("sc://h:1/;token=abc=;x=1", "sc://h:1/;token=***;x=1"),
        ("sc://h:1/;x=1;token=abc", "sc://h:1/;x=1;token=***"),
        ("sc://me:pw@h:1/;use_ssl=true", "sc://me:***@h:1/;use_ssl=true"),
        ("sc://h:15002", "sc://h:15002"),
    ],
)
def test_redact_url(url: str, redacted: str) -> None:
    assert redact_url(url) == redacted


def test_redact_text_hides_known_secrets_and_bearer_tokens() -> None:
    text = "failed for abc/def (abc%2Fdef) with Authorization: Bearer xyz"
    assert redact_text(text, ["abc/def"]) == "failed for *** (***) with Authorization: Bearer ***"


def test_retry_policy_fits_the_connect_timeout() -> None:
    policy = bounded_retry_policy(30)
    waits, wait = [], float(policy.initial_backoff)
    for _ in range(policy.max_retries or 0):
        waits.append(wait + (policy.jitter if wait >= policy.min_jitter_threshold else 0))
        wait = min(float(policy.max_backoff or wait), wait * policy.backoff_multiplier)
    assert 0 < sum(waits) <= 15_000
    assert policy.max_server_retry_delay == policy.max_backoff
    assert bounded_retry_policy(0).max_retries == 0


# --------------------------------------------------------------------------- Java


@pytest.mark.parametrize(
    ("output", "major"),
    [
        ('openjdk version "17.0.15" 2025-04-15\nOpenJDK Runtime Environment', 17),
        ('java version "1.8.0_392"\nJava(TM) SE Runtime Environment', 8),
        ('openjdk version "21" 2023-09-19', 21),
        ('Picked up JAVA_TOOL_OPTIONS: -Xss4m\nopenjdk version "11.0.2-ea" 2019-01-15', 11),
        ("no version here", None),
    ],
)
def test_parse_java_version(output: str, major: int | None) -> None:
    assert parse_java_version(output) == major


def test_java_version_of_the_installed_runtime() -> None:
    assert (java_version() or 0) >= 17
    assert java_version("/nonexistent/java") is None


def test_missing_java_is_an_environment_failure(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(EnvironmentFailure, match="Java was not found") as err:
        open_session()
    assert err.value.hint is not None and "JAVA_HOME" in err.value.hint
    assert err.value.exit_code == 3
    monkeypatch.delenv("JAVA_HOME")
    with pytest.raises(EnvironmentFailure, match="no 'java' on PATH"):
        open_session()


def test_old_java_is_an_environment_failure(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    java = tmp_path / "bin" / "java"
    java.parent.mkdir()
    java.write_text("#!/bin/sh\necho 'java version \"1.8.0_392\"' >&2\n")
    java.chmod(0o755)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(EnvironmentFailure, match="Java 8 was found.*needs Java 17"):
        open_session()

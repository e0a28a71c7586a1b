"""Supervising the embedded Spark Connect server: a ``spark-submit`` child bound to
127.0.0.1 on free ports, protected by a random token, logging to a file (never to our
stdout), started until ready or failed with the log's error lines."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from assay.errors import ConfigError, EnvironmentFailure, SparkFailure
from assay.executor.session import connect_driver
from assay.executor.session.client import connect, import_client
from assay.executor.session.handle import SparkHandle, local_handle
from assay.executor.session.java import check_java
from assay.executor.session.jvm import cds_options, jit_options
from assay.executor.session.process import forget, spawn, terminate
from assay.executor.session.redaction import redact_text
from assay.executor.session.state import port_open, pyspark_version

STARTUP_TIMEOUT = 120.0  # seconds for the embedded JVM to accept connections


PORT_ATTEMPTS = 3  # restarts when a picked port was taken before the JVM bound it


_READY_MARKER = "Spark Connect server started"


_CONNECT_SERVER = "org.apache.spark.sql.connect.service.SparkConnectServer"
_CONNECT_PLUGIN = "org.apache.spark.sql.connect.SparkConnectPlugin"


_UI_PORT_RE = re.compile(r"Successfully started service 'SparkUI' on port (\d+)")


_BIND_ERRORS = ("BindException", "Address already in use", "Failed to bind")


_ERROR_LINE_RE = re.compile(r"ERROR|FATAL|Exception|Error:|Caused by|error:")


_RESERVED_CONF = ("spark.connect.grpc.binding.port", "spark.connect.authenticate.token")


LISTING_THRESHOLD = "spark.sql.sources.parallelPartitionDiscovery.threshold"
LISTED_ON_THE_DRIVER = "1024"
"""The directories a file source's listing reads on the driver before Spark lists them by
a job (default 32): the embedded server's tasks run on the same machine, so the job only
adds its own cost. A table in 84 partition directories (TPC-H SF1 by month,
docs/incremental.md#what-it-costs) was listed by a job at each analysis of its source
and each file listing: an incremental run with nothing new took 1.85-3.01 s wall with
it, 0.78-1.34 s without (alternated in one process, load average 8-11). A server
setting given for the run wins."""


# Spark's default log4j config logs every task at INFO. Keep WARN, plus the two INFO
# loggers that announce readiness and the UI port.
_LOG4J2 = """\
rootLogger.level = warn
rootLogger.appenderRef.console.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
logger.connectserver.name = org.apache.spark.sql.connect.service.SparkConnectServer
logger.connectserver.level = info
logger.utils.name = org.apache.spark.util.Utils
logger.utils.level = info
"""


@dataclass(frozen=True)
class Started:
    """A server started and accepting connections: its process, ports, token and log."""

    proc: subprocess.Popen[bytes]
    grpc_port: int
    ui_port: int | None
    token: str
    log: str
    archive_part: str | None = None
    """Where it writes the class-data-sharing archive at exit (:mod:`.jvm`), if it does."""
    disposable: bool = False
    """Nothing of the server outlives it but what its directory holds (no archive to
    write, no event log or scratch directory elsewhere): its owner may SIGKILL it and
    remove the directory instead of waiting for Spark's shutdown hooks (~0.5 s)."""

    @property
    def url(self) -> str:
        """The URL with the token (``localhost``: pyspark uses no TLS with a token there)."""
        return f"sc://localhost:{self.grpc_port}/;token={self.token}"


def open_embedded(
    connect_timeout: float,
    server_conf: dict[str, str],
    log_path: str | None,
    input_bytes: int | None = None,
    *,
    many_sessions: bool = False,
) -> SparkHandle:
    """Start our own server on free local ports and connect to it with a fresh token
    (``input_bytes``: what the run reads, when known; :func:`.jvm.jit_options`;
    ``many_sessions``: sessions sharing generated code, as the warm server's do, for a
    caller that opens several, such as the benchmarks' command line runs)."""
    # One private directory per server for its log and warehouse: nothing is left in the
    # user's working directory, and the handle removes it when the run ends well.
    state = tempfile.mkdtemp(prefix="assay-server-")
    try:
        started = start_server(
            server_conf, state, log_path, tied=True, input_bytes=input_bytes,
            many_sessions=many_sessions,
        )  # fmt: skip
    except BaseException:
        _discard_unless_logged(state)
        raise
    try:
        spark = connect(started.url, [started.token], connect_timeout)
    except SparkFailure as exc:
        terminate(started.proc)
        forget(started.proc)
        raise SparkFailure(f"{exc.message} (server log: {started.log})", hint=exc.hint) from None
    return local_handle(
        spark,
        started.url,
        started.ui_port,
        embedded=True,
        log_path=started.log,
        state_dir=state,
        archive_part=started.archive_part,
        disposable=started.disposable,
        _proc=started.proc,
    )


def _discard_unless_logged(state: str) -> None:
    """Remove a server's directory after a failed start, unless the server wrote its log
    there (the error names that log: it stays for the user to read). A setting refused or
    Java missing leave nothing behind in the temporary directory."""
    log = os.path.join(state, "server.log")
    if not (os.path.exists(log) and os.path.getsize(log) > 0):
        shutil.rmtree(state, ignore_errors=True)


def start_server(
    server_conf: Mapping[str, str],
    state: str,
    log_path: str | None,
    *,
    tied: bool,
    many_sessions: bool = False,
    input_bytes: int | None = None,
) -> Started:
    """Start a Connect server whose log (unless ``log_path``) and warehouse are in
    ``state``, on free loopback ports with a fresh token, and wait until it is ready.
    ``tied``: the server stops when this process ends (the embedded one); a warm server
    is not. ``many_sessions`` (the warm server, a session per command): the Connect
    service runs as a plugin of :mod:`.connect_driver`'s context, whose sessions share
    the JVM's generated code. ``input_bytes``: what a tied server's one run reads, when
    known (a short run's JVM compiles with C1 only: :func:`.jvm.jit_options`)."""
    conf = dict(server_conf)
    reserved = sorted(k for k in conf if k in _RESERVED_CONF)
    if reserved:
        raise ConfigError(f"server setting {reserved[0]} is chosen by assay and cannot be set")
    env = _server_env(many_sessions)
    java = check_java(env)
    if "spark.driver.memory" not in conf and not env.get("SPARK_DRIVER_MEMORY"):
        memory = default_driver_memory()
        if memory:
            conf["spark.driver.memory"] = memory
    log = log_path or os.path.join(state, "server.log")
    conf.setdefault("spark.sql.warehouse.dir", os.path.join(state, "warehouse"))
    conf.setdefault(LISTING_THRESHOLD, LISTED_ON_THE_DRIVER)
    token = secrets.token_urlsafe(24)  # no '=' and no ';': safe in the URL as is
    env["SPARK_CONNECT_AUTHENTICATE_TOKEN"] = token  # via env: not visible in `ps`
    user_options = conf.get("spark.driver.extraJavaOptions", "")
    jvm_options, part = cds_options(java, pyspark_version(), user_options, eager=not tied)
    jvm_options += _scratch_options(state, user_options)
    if tied:
        jvm_options += jit_options(input_bytes, user_options)
    if jvm_options:
        conf["spark.driver.extraJavaOptions"] = " ".join([*jvm_options, user_options]).strip()
    proc, grpc_port, ui_port = _start_ready_server(env, conf, log, tied, many_sessions)
    disposable = tied and part is None and not _stop_matters(server_conf, env)
    return Started(proc, grpc_port, ui_port, token, log, part, disposable)


_STOP_WRITES = ("spark.eventLog.", "spark.local.dir", "spark.sql.catalogImplementation")
"""Server settings whose files a JVM's orderly stop finishes or removes outside its own
directory (an event log renamed from ``.inprogress``, scratch directories elsewhere, a
Derby metastore's lock): a server with one of them is stopped with SIGTERM and waited for."""


def _scratch_options(state: str, user_options: str) -> list[str]:
    """``java.io.tmpdir`` inside the server's own directory (unless the user chose one):
    Spark's scratch directories (block manager, artifacts, native libraries unpacked by
    snappy and netty) go with that directory, however the JVM ends."""
    if "java.io.tmpdir" in user_options:
        return []
    scratch = os.path.join(state, "tmp")
    os.makedirs(scratch, mode=0o700, exist_ok=True)
    return [f"-Djava.io.tmpdir={scratch}"]


def _stop_matters(server_conf: Mapping[str, str], env: Mapping[str, str]) -> bool:
    """Whether the JVM's own shutdown does something its owner cannot do after a SIGKILL
    (see ``_STOP_WRITES``; ``SPARK_LOCAL_DIRS`` or a user's ``java.io.tmpdir`` put scratch
    directories outside the server's directory; ``SPARK_CONF_DIR`` may hold a
    spark-defaults.conf setting any of them)."""
    if env.get("SPARK_LOCAL_DIRS") or env.get("SPARK_CONF_DIR"):
        return True
    if "java.io.tmpdir" in server_conf.get("spark.driver.extraJavaOptions", ""):
        return True
    return any(key.startswith(_STOP_WRITES) for key in server_conf)


def _start_ready_server(
    env: dict[str, str],
    server_conf: Mapping[str, str],
    log: str,
    tied: bool,
    many_sessions: bool,
) -> tuple[subprocess.Popen[bytes], int, int | None]:
    """Start the server and wait until it accepts connections; retry with new ports when
    one was taken in the meantime. Returns the process, gRPC port and UI port."""
    for attempt in range(1, PORT_ATTEMPTS + 1):
        grpc_port, ui_port = _free_ports(2)
        config = _log4j_config()
        try:
            command = _server_command(grpc_port, ui_port, config, server_conf, many_sessions)
            proc = spawn(command, env, log, tied=tied)
            try:
                with contextlib.suppress(ImportError):
                    import_client()  # while the JVM starts
                _wait_ready(proc, grpc_port, log, connect_driver.READY if many_sessions else None)
            except BaseException:
                terminate(proc)
                forget(proc)
                raise
        except _PortTaken:
            if attempt == PORT_ATTEMPTS:
                raise _startup_failure("could not bind its ports", log) from None
            continue
        finally:
            with contextlib.suppress(OSError):
                os.unlink(config)  # read once at JVM start
        return proc, grpc_port, _ui_port(log, ui_port)
    raise AssertionError("unreachable")


class _PortTaken(Exception):
    """The JVM exited because a port we picked was taken before it bound it."""


def default_driver_memory() -> str | None:
    """The embedded server's heap: a quarter of the memory this process may use (the
    machine's, or its cgroup's limit when lower), between 1 GiB and 8 GiB.

    Spark's own default (1 GiB) leaves a local-mode server, which is driver and executor
    at once, collecting garbage most of the time on real tables: TPC-H SF1 with 100 rules
    took 14.6 s with 1 GiB and 10.9 s with 4 GiB (benchmarks/README.md). ``--conf
    spark.driver.memory=...`` or ``SPARK_DRIVER_MEMORY`` overrides it.
    """
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        return None
    with contextlib.suppress(OSError, ValueError):
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit.isdigit():
            total = min(total, int(limit))
    mib = min(8 * 1024, max(1024, total // 4 // 2**20))
    return f"{mib}m"


def _spark_home() -> str:
    """The directory of the installed pyspark package, which must contain spark-submit."""
    import importlib.util

    spec = importlib.util.find_spec("pyspark")
    if spec is None:  # what importing it would say (the CLI names both installs then)
        raise ModuleNotFoundError("No module named 'pyspark'", name="pyspark")
    home = Path(spec.origin).parent if spec.origin else None
    if home is None or not (home / "bin" / "spark-submit").is_file():
        raise EnvironmentFailure(
            "the installed pyspark has no bin/spark-submit, so no embedded server can be started",
            hint="install the full 'pyspark' package (not 'pyspark-client'), or pass --remote sc://...",
        )
    return str(home)


def _server_env(many_sessions: bool = False) -> dict[str, str]:
    """The child's environment: ours, plus SPARK_HOME, PYSPARK_PYTHON and a loopback-only
    SPARK_LOCAL_IP (the UI, driver and block manager then bind to 127.0.0.1 only); for
    the Python driver of ``many_sessions``, without what would make pyspark a Connect
    client there."""
    env = dict(os.environ)
    if many_sessions:
        for name in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED", "SPARK_LOCAL_REMOTE"):
            env.pop(name, None)
    env["SPARK_HOME"] = _spark_home()
    env["PYSPARK_PYTHON"] = sys.executable
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    return env


def _server_command(
    grpc_port: int,
    ui_port: int,
    log4j_path: str,
    server_conf: Mapping[str, str],
    many_sessions: bool = False,
) -> list[str]:
    """The spark-submit argv for a Connect server on the given ports: Spark's
    ``SparkConnectServer``, or with ``many_sessions`` the Connect plugin in the context of
    :mod:`.connect_driver` with sessions sharing the JVM's class loader (a user's own
    ``spark.sql.artifact.isolation.enabled`` wins; their ``spark.plugins`` are kept)."""
    java_opts = f"-Dlog4j2.configurationFile={log4j_path}"
    shared = {"spark.sql.artifact.isolation.enabled": "false"} if many_sessions else {}
    conf = {
        "spark.connect.grpc.binding.address": "127.0.0.1",
        "spark.connect.grpc.binding.port": str(grpc_port),
        "spark.ui.port": str(ui_port),
        "spark.ui.showConsoleProgress": "false",
        **shared,
        **server_conf,
    }
    conf["spark.driver.extraJavaOptions"] = " ".join(
        filter(None, [java_opts, server_conf.get("spark.driver.extraJavaOptions", "")])
    )
    if many_sessions:
        plugins = [_CONNECT_PLUGIN, *filter(None, [server_conf.get("spark.plugins")])]
        conf["spark.plugins"] = ",".join(plugins)
    submit = str(Path(_spark_home(), "bin", "spark-submit"))
    argv = [submit] if many_sessions else [submit, "--class", _CONNECT_SERVER]
    argv += ["--master", server_conf.get("spark.master", "local[*]")]
    for key, value in conf.items():
        argv += ["--conf", f"{key}={value}"]
    if many_sessions:
        argv.append(str(connect_driver.__file__))
    return argv


def _wait_ready(
    proc: subprocess.Popen[bytes], port: int, log: str, marker: str | None = None
) -> None:
    """Block until the server logs readiness or accepts TCP on ``port`` (with ``marker``:
    until it logs that line; a plugin's port opens before its context is whole); raise
    ``_PortTaken`` or ``SparkFailure`` if it exits, ``SparkFailure`` after STARTUP_TIMEOUT."""
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while True:
        if marker is not None:
            if marker in _read_log(log):
                return
        elif _READY_MARKER in _read_log(log) or port_open(port):
            return
        if proc.poll() is not None:
            text = _read_log(log)
            if any(marker in text for marker in _BIND_ERRORS):
                raise _PortTaken
            raise _startup_failure(f"exited with code {proc.returncode} while starting", log)
        if time.monotonic() > deadline:
            raise _startup_failure(f"did not start within {STARTUP_TIMEOUT:g} s", log)
        time.sleep(0.1)


def _startup_failure(why: str, log: str) -> SparkFailure:
    """A ``SparkFailure`` quoting the log's last error-looking lines (not the whole log)."""
    lines = [line.rstrip() for line in _read_log(log).splitlines()]
    errors = [line for line in lines if _ERROR_LINE_RE.search(line)][-20:] or lines[-5:]
    excerpt = "".join(f"\n    {redact_text(line)}" for line in errors)
    return SparkFailure(
        f"the embedded Spark Connect server {why} (full log: {log}){excerpt}",
        hint="the server log has the full error; check the server settings, "
        "or use --remote sc://... to run on an existing Spark Connect server",
    )


def _ui_port(log: str, chosen: int) -> int:
    """The port the Spark UI really bound (Spark moves on when ``chosen`` is taken)."""
    match = _UI_PORT_RE.search(_read_log(log))
    return int(match.group(1)) if match else chosen


def _read_log(log: str) -> str:
    """The log's text so far ('' when unreadable)."""
    try:
        return Path(log).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _free_ports(count: int) -> list[int]:
    """``count`` distinct ports that were free on 127.0.0.1 a moment ago."""
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):  # held open together, so the kernel hands out distinct ports
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sockets.append(sock)
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    except OSError as exc:
        raise EnvironmentFailure(f"no free local port for the Spark server: {exc}") from None
    finally:
        for sock in sockets:
            sock.close()


def _log4j_config() -> str:
    """A fresh private log4j2 properties file (deleted by the caller once the JVM has read it)."""
    fd, path = tempfile.mkstemp(prefix="assay-", suffix="-log4j2.properties")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(_LOG4J2)
    return path

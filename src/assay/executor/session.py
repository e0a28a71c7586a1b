"""Open a Spark Connect session: our own embedded server, or a remote ``sc://`` URL.

Only the Spark Connect client is used here (no SparkContext, no py4j). What this module
guarantees:

- The embedded server is a ``spark-submit`` child process bound to 127.0.0.1 on free ports,
  protected by a random token, logging to a file (never to our stdout), and it does not
  outlive this process (``PR_SET_PDEATHSIG`` on Linux, an ``atexit`` hook, ``close()``).
- A dead or unreachable server fails within about ``connect_timeout`` seconds, not after
  pyspark's default 10-minute retry loop.
- No message raised from here contains a connection token or a URL password.

pyspark is imported lazily, so importing this module stays cheap.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import itertools
import logging
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from assay.errors import ConfigError, EnvironmentFailure, SparkFailure

if TYPE_CHECKING:
    from pyspark.sql.connect.client.retries import RetryPolicy
    from pyspark.sql.connect.session import SparkSession

T = TypeVar("T")

MIN_JAVA = 17
STARTUP_TIMEOUT = 120.0  # seconds for the embedded JVM to accept connections
STOP_TIMEOUT = 10.0  # seconds between SIGTERM and SIGKILL
RELEASE_TIMEOUT = 5.0  # seconds for the ReleaseSession RPC in close()
PORT_ATTEMPTS = 3  # restarts when a picked port was taken before the JVM bound it

_READY_MARKER = "Spark Connect server started"
_UI_PORT_RE = re.compile(r"Successfully started service 'SparkUI' on port (\d+)")
_BIND_ERRORS = ("BindException", "Address already in use", "Failed to bind")
_ERROR_LINE_RE = re.compile(r"ERROR|FATAL|Exception|Error:|Caused by|error:")
_JAVA_VERSION_RE = re.compile(r'version\s+"(\d+)(?:\.(\d+))?')
_TOKEN_RE = re.compile(r"(?i)(token=)[^;&\s'\"]*")
_USERINFO_RE = re.compile(r"(://[^/@:\s;'\"]*):[^/@\s'\"]*@")
_BEARER_RE = re.compile(r"(?i)(bearer\s+)[^\s'\"]+")
_RESERVED_CONF = ("spark.connect.grpc.binding.port", "spark.connect.authenticate.token")
_URL_HINT = "use the form sc://host:port or sc://host:port/;token=...;use_ssl=true"
_JAVA_HINT = (
    "install a Java 17+ runtime (e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME"
)
_PR_SET_PDEATHSIG = 1

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

_LIVE: dict[int, subprocess.Popen[bytes]] = {}
_LIVE_LOCK = threading.Lock()
_LOG_NUMBERS = itertools.count(1)


# --------------------------------------------------------------------------- handle


@dataclass
class SparkHandle:
    """An open Connect session, plus the embedded server process when we started one.

    ``url`` is redacted and safe to print. ``close()`` is idempotent and bounded: it
    releases the server-side session (at most ``RELEASE_TIMEOUT`` s), closes the channel
    and, for the embedded server, stops the JVM (SIGTERM, ``STOP_TIMEOUT`` s, SIGKILL).
    """

    spark: SparkSession
    url: str
    ui_url: str | None
    embedded: bool
    log_path: str | None = None
    connect_url: str = field(default="", repr=False)
    """The unredacted URL (may hold a token): for child processes, never for printing."""
    _proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    _closed: bool = field(default=False, repr=False)

    @property
    def pid(self) -> int | None:
        """Process id of the embedded server (``None`` for a remote server)."""
        return self._proc.pid if self._proc is not None else None

    def close(self) -> None:
        """Stop the session and, for the embedded server, the JVM. Never raises."""
        if self._closed:
            return
        self._closed = True
        server_alive = self._proc is None or self._proc.poll() is None
        try:
            _stop_session(self.spark, release=server_alive)
        finally:
            if self._proc is not None:
                _terminate(self._proc)
                _forget(self._proc)

    def __enter__(self) -> SparkHandle:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


# --------------------------------------------------------------------------- public API


def open_session(
    remote: str | None = None,
    *,
    connect_timeout: float = 30.0,
    server_conf: Mapping[str, str] | None = None,
    log_path: str | None = None,
) -> SparkHandle:
    """Connect to ``remote`` (or ``$SPARK_REMOTE``), or start an embedded server.

    Raises ``ConfigError`` for a malformed URL or misused ``server_conf``,
    ``EnvironmentFailure`` when Java is missing or too old, and ``SparkFailure`` when the
    server cannot be started or reached within the time limits. The returned session has
    a bounded retry policy installed and answered one RPC.

    Call it from a thread that lives as long as the handle (normally the main thread): on
    Linux the embedded JVM receives SIGTERM when the *thread* that started it exits.
    """
    _filter_retry_warnings()
    target = remote if remote is not None else (os.environ.get("SPARK_REMOTE") or None)
    if target is None:
        return _open_embedded(connect_timeout, dict(server_conf or {}), log_path)
    if server_conf:
        raise ConfigError(
            f"server settings only apply to the embedded Spark server, but a remote is set: "
            f"{redact_url(target)}",
            hint="drop the server settings, or unset --remote / SPARK_REMOTE",
        )
    return _open_remote(target, connect_timeout)


def redact_url(url: str) -> str:
    """``url`` with the ``token=`` value and any ``user:password@`` password replaced by ``***``.

    >>> redact_url("sc://h:1/;token=abc=;x=1")
    'sc://h:1/;token=***;x=1'
    >>> redact_url("sc://me:pw@h:1")
    'sc://me:***@h:1'
    """
    return redact_text(url)


def redact_text(text: str, secrets_: Iterable[str] = ()) -> str:
    """``text`` with every value in ``secrets_`` (and its URL-quoted form), every
    ``token=...`` value, URL password and bearer token replaced by ``***``."""
    for secret in secrets_:
        if secret:
            text = text.replace(secret, "***").replace(urllib.parse.quote(secret, safe=""), "***")
    text = _TOKEN_RE.sub(r"\1***", text)
    text = _USERINFO_RE.sub(r"\1:***@", text)
    return _BEARER_RE.sub(r"\1***", text)


def parse_java_version(output: str) -> int | None:
    """The major version in ``java -version`` output: ``1.8.0_392`` -> 8, ``17.0.15`` -> 17."""
    match = _JAVA_VERSION_RE.search(output)
    if match is None:
        return None
    major = int(match.group(1))
    if major == 1 and match.group(2) is not None:
        return int(match.group(2))
    return major


def java_version(java: str | None = None) -> int | None:
    """The major version of ``java`` (default: the one Spark would use), or ``None`` when it
    cannot be run or its output is not understood."""
    if java is None:
        try:
            java = find_java()
        except EnvironmentFailure:
            return None
    try:
        done = subprocess.run(
            [java, "-version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return parse_java_version(done.stderr + "\n" + done.stdout)


def find_java(env: Mapping[str, str] | None = None) -> str:
    """The ``java`` executable spark-submit will run: ``$JAVA_HOME/bin/java`` when JAVA_HOME
    is set (as spark-class does, with no PATH fallback), else ``java`` on PATH."""
    env = os.environ if env is None else env
    java_home = env.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home, "bin", "java")
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
        raise EnvironmentFailure(
            f"Java was not found: JAVA_HOME is set to '{java_home}' but it has no bin/java",
            hint=_JAVA_HINT,
        )
    found = shutil.which("java", path=env.get("PATH", os.defpath))
    if found is None:
        raise EnvironmentFailure(
            "Java was not found (JAVA_HOME is unset and there is no 'java' on PATH); "
            "the embedded Spark server needs it",
            hint=_JAVA_HINT,
        )
    return found


def check_java(env: Mapping[str, str] | None = None) -> str:
    """``find_java`` plus a version check; raises ``EnvironmentFailure`` below Java 17.
    An unreadable version is let through (Spark will say what is wrong)."""
    java = find_java(env)
    version = java_version(java)
    if version is not None and version < MIN_JAVA:
        raise EnvironmentFailure(
            f"Java {version} was found at {java}, but Spark 4 needs Java {MIN_JAVA} or newer",
            hint=_JAVA_HINT,
        )
    return java


def quiet_pyspark_logging() -> None:
    """Silence pyspark's Python loggers (JSON error logs on stderr), its ``[RETRIES_EXCEEDED]``
    warning and gRPC's native log lines (``GRPC_VERBOSITY=ERROR`` unless set; it only takes
    effect when this runs before anything imports grpc). assay reports errors itself.
    ``SPARK_CONNECT_LOG_LEVEL`` still enables the Connect client logger for debugging."""
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    from pyspark.logger import PySparkLogger

    _filter_retry_warnings()
    for name in ("DataFrameQueryContextLogger", "SQLQueryContextLogger", "PySparkLogger"):
        PySparkLogger.getLogger(name).disabled = True  # created as PySparkLogger on purpose
    import pyspark.sql.connect.logging  # noqa: F401 - registers the Connect logger

    keep = "pyspark.sql.connect.logging" if os.environ.get("SPARK_CONNECT_LOG_LEVEL") else None
    for name, logger in list(logging.root.manager.loggerDict.items()):
        if name.startswith("pyspark") and name != keep and isinstance(logger, logging.Logger):
            logger.disabled = True


def bounded_retry_policy(total_seconds: float) -> RetryPolicy:
    """A pyspark ``DefaultPolicy`` (same retryable errors) whose backoffs, jitter included,
    add up to at most half of ``total_seconds``; the other half is left for the attempts."""
    from pyspark.sql.connect.client.retries import DefaultPolicy

    initial, multiplier, cap, jitter, jitter_from = 100, 2.0, 5000, 200, 1000
    budget = max(total_seconds, 0.0) * 1000 / 2
    retries, wait, spent = 0, float(initial), 0.0
    while spent + wait + (jitter if wait >= jitter_from else 0) <= budget:
        spent += wait + (jitter if wait >= jitter_from else 0)
        retries += 1
        wait = min(float(cap), wait * multiplier)
    return DefaultPolicy(
        max_retries=retries,
        initial_backoff=initial,
        max_backoff=cap,
        backoff_multiplier=multiplier,
        jitter=jitter,
        min_jitter_threshold=jitter_from,
        recognize_server_retry_delay=True,
        max_server_retry_delay=cap,
    )


# --------------------------------------------------------------------------- remote


def _open_remote(url: str, connect_timeout: float) -> SparkHandle:
    """Validate ``url`` and connect to it."""
    normalised = validate_remote_url(url)
    spark = _connect(normalised, _url_secrets(normalised), connect_timeout)
    return SparkHandle(
        spark=spark, url=redact_url(normalised), ui_url=None, embedded=False, connect_url=normalised
    )


def validate_remote_url(url: str) -> str:
    """``url`` checked and normalised for pyspark, or ``ConfigError`` quoting it redacted.

    Normalising only percent-encodes ``=`` inside parameter values (base64 tokens), which
    pyspark 4.x would otherwise reject while echoing the token.
    """
    url = url.strip()
    shown = redact_url(url)
    if not url.startswith("sc://"):
        hint = _URL_HINT
        if url.startswith("local"):
            hint = "omit --remote and unset SPARK_REMOTE to use the embedded local server"
        raise ConfigError(f"the Spark Connect URL must start with 'sc://': '{shown}'", hint=hint)
    parsed = urllib.parse.urlparse("http" + url[2:])
    try:
        parsed.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        raise ConfigError(
            f"the Spark Connect URL has an invalid port: '{shown}'", hint=_URL_HINT
        ) from None
    if not parsed.hostname or ";" in parsed.netloc:
        raise ConfigError(f"the Spark Connect URL has no host: '{shown}'", hint=_URL_HINT)
    if parsed.path not in ("", "/") or parsed.query or parsed.fragment:
        raise ConfigError(
            f"the Spark Connect URL must have no path or query: '{shown}'",
            hint="parameters go after '/;', e.g. sc://host:15002/;use_ssl=true",
        )
    params = _normalise_params(parsed.params, shown)
    return f"sc://{parsed.netloc}/" + "".join(f";{p}" for p in params)


def _normalise_params(params: str, shown: str) -> list[str]:
    """``key=value`` parts of the URL parameters, empty parts dropped, ``=`` in values encoded."""
    out = []
    for part in params.split(";"):
        if not part:
            continue
        key, sep, value = part.partition("=")
        if not sep or not key:
            raise ConfigError(
                f"parameter '{redact_text(key)}' of the Spark Connect URL is not "
                f"key=value: '{shown}'",
                hint=_URL_HINT,
            )
        out.append(f"{key}={value.replace('=', '%3D')}")
    return out


def _url_secrets(url: str) -> list[str]:
    """Token values that could appear in pyspark's messages for ``url``."""
    found = [urllib.parse.unquote(m.group(0)[6:]) for m in re.finditer(r"token=[^;]*", url)]
    env_token = os.environ.get("SPARK_CONNECT_AUTHENTICATE_TOKEN")
    return [s for s in [*found, env_token] if s]


def _remote_hint(url: str) -> str:
    """What to check when ``url`` cannot be reached."""
    hint = "check the host and port, that the server is running, and any token"
    host = urllib.parse.urlparse("http" + url[2:]).hostname
    if "token=" in url and "use_ssl=" not in url and host != "localhost":
        hint += "; note that a token turns TLS on for any host except 'localhost'"
    return hint


# --------------------------------------------------------------------------- connecting


def _connect(url: str, secrets_: list[str], connect_timeout: float) -> SparkSession:
    """A new (not cached) session for ``url`` with a bounded retry policy, verified by one
    RPC that must answer within ``connect_timeout`` seconds."""
    from pyspark.sql.connect.session import SparkSession

    shown = redact_text(url, secrets_)
    try:
        spark = SparkSession.builder.remote(url).create()
    except Exception as exc:  # noqa: BLE001 - pyspark URL errors are PySparkValueError
        raise ConfigError(
            f"invalid Spark Connect URL '{shown}': {_short_reason(exc, secrets_)}", hint=_URL_HINT
        ) from None
    spark.client.set_retry_policies([bounded_retry_policy(connect_timeout)])
    try:
        _call_with_timeout(lambda: spark.version, connect_timeout, "assay-connect-check")
    except Exception as exc:  # noqa: BLE001 - any failure here means "cannot reach"
        _stop_session(spark, release=False)
        raise SparkFailure(
            f"cannot reach Spark Connect at {shown}: {_short_reason(exc, secrets_)}",
            hint=_remote_hint(url),
        ) from None
    return spark


def _call_with_timeout(fn: Callable[[], T], timeout: float, name: str) -> T:
    """``fn()`` run in a daemon thread; ``TimeoutError`` if it has not returned after
    ``timeout`` seconds (the thread is then abandoned)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller below
            box["error"] = exc

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise TimeoutError(f"no answer within {timeout:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


def _short_reason(exc: BaseException, secrets_: Iterable[str]) -> str:
    """One redacted line out of a gRPC/pyspark error: ``STATUS: details`` when present."""
    text = str(exc)
    status = re.search(r"status = StatusCode\.(\w+)", text)
    details = re.search(r'details = "([^"]*)"', text)
    if status is not None:
        reason = f"{status.group(1)}: {details.group(1)}" if details else status.group(1)
    else:
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        reason = lines[0] if lines else type(exc).__name__
    return redact_text(reason[:300], secrets_)


def _stop_session(spark: SparkSession, *, release: bool) -> None:
    """Release the server-side session (bounded) and close the channel. Never raises."""
    if release:
        with contextlib.suppress(Exception):
            _call_with_timeout(spark.client.release_session, RELEASE_TIMEOUT, "assay-release")
    spark.release_session_on_close = False  # released above, or the server is gone
    with contextlib.suppress(Exception):
        spark.stop()


def _filter_retry_warnings() -> None:
    """Hide pyspark's ``[RETRIES_EXCEEDED]`` warning: the error that follows says more."""
    warnings.filterwarnings("ignore", message=r"\[RETRIES_EXCEEDED\]")


# --------------------------------------------------------------------------- embedded


def _open_embedded(
    connect_timeout: float, server_conf: dict[str, str], log_path: str | None
) -> SparkHandle:
    """Start our own server on free local ports and connect to it with a fresh token."""
    reserved = sorted(k for k in server_conf if k in _RESERVED_CONF)
    if reserved:
        raise ConfigError(f"server setting {reserved[0]} is chosen by assay and cannot be set")
    env = _server_env()
    check_java(env)
    if "spark.driver.memory" not in server_conf and not env.get("SPARK_DRIVER_MEMORY"):
        memory = default_driver_memory()
        if memory:
            server_conf = {**server_conf, "spark.driver.memory": memory}
    log = log_path or _default_log_path()
    token = secrets.token_urlsafe(24)  # no '=' and no ';': safe in the URL as is
    env["SPARK_CONNECT_AUTHENTICATE_TOKEN"] = token  # via env: not visible in `ps`
    proc, grpc_port, ui_port = _start_ready_server(env, server_conf, log)
    url = f"sc://localhost:{grpc_port}/;token={token}"  # 'localhost': no TLS with a token
    try:
        spark = _connect(url, [token], connect_timeout)
    except SparkFailure as exc:
        _terminate(proc)
        _forget(proc)
        raise SparkFailure(f"{exc.message} (server log: {log})", hint=exc.hint) from None
    return SparkHandle(
        spark=spark,
        url=redact_url(url),
        ui_url=f"http://127.0.0.1:{ui_port}",
        embedded=True,
        log_path=log,
        connect_url=url,
        _proc=proc,
    )


def _start_ready_server(
    env: dict[str, str], server_conf: Mapping[str, str], log: str
) -> tuple[subprocess.Popen[bytes], int, int]:
    """Start the server and wait until it accepts connections; retry with new ports when
    one was taken in the meantime. Returns the process, gRPC port and UI port."""
    for attempt in range(1, PORT_ATTEMPTS + 1):
        grpc_port, ui_port = _free_ports(2)
        config = _log4j_config()
        try:
            proc = _spawn(_server_command(grpc_port, ui_port, config, server_conf), env, log)
            try:
                _wait_ready(proc, grpc_port, log)
            except BaseException:
                _terminate(proc)
                _forget(proc)
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
    home = Path(spec.origin).parent if spec is not None and spec.origin else None
    if home is None or not (home / "bin" / "spark-submit").is_file():
        raise EnvironmentFailure(
            "the installed pyspark has no bin/spark-submit, so no embedded server can be started",
            hint="install the full 'pyspark' package (not 'pyspark-client'), or pass --remote sc://...",
        )
    return str(home)


def _server_env() -> dict[str, str]:
    """The child's environment: ours, plus SPARK_HOME, PYSPARK_PYTHON and a loopback-only
    SPARK_LOCAL_IP (the UI, driver and block manager then bind to 127.0.0.1 only)."""
    env = dict(os.environ)
    env["SPARK_HOME"] = _spark_home()
    env["PYSPARK_PYTHON"] = sys.executable
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    return env


def _server_command(
    grpc_port: int, ui_port: int, log4j_path: str, server_conf: Mapping[str, str]
) -> list[str]:
    """The spark-submit argv for a Connect server on the given ports."""
    java_opts = f"-Dlog4j2.configurationFile={log4j_path}"
    conf = {
        "spark.connect.grpc.binding.address": "127.0.0.1",
        "spark.connect.grpc.binding.port": str(grpc_port),
        "spark.ui.port": str(ui_port),
        "spark.ui.showConsoleProgress": "false",
        **server_conf,
    }
    conf["spark.driver.extraJavaOptions"] = " ".join(
        filter(None, [java_opts, server_conf.get("spark.driver.extraJavaOptions", "")])
    )
    submit = str(Path(_spark_home(), "bin", "spark-submit"))
    argv = [submit, "--class", "org.apache.spark.sql.connect.service.SparkConnectServer"]
    argv += ["--master", server_conf.get("spark.master", "local[*]")]
    for key, value in conf.items():
        argv += ["--conf", f"{key}={value}"]
    return argv


def _spawn(argv: list[str], env: dict[str, str], log: str) -> subprocess.Popen[bytes]:
    """Start ``argv`` in its own process group with stdout+stderr to ``log`` (truncated,
    mode 0600, symlinks refused), tied to our lifetime."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(log, flags, 0o600)
    except OSError as exc:
        raise EnvironmentFailure(
            f"cannot write the Spark server log {log}: {exc.strerror}"
        ) from None
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=fd,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
            preexec_fn=_die_with_parent_fn(),  # noqa: PLW1509 - only async-signal-safe work
        )
    except OSError as exc:
        raise EnvironmentFailure(f"cannot start spark-submit: {exc}") from None
    finally:
        os.close(fd)
    _remember(proc)
    return proc


def _die_with_parent_fn() -> Callable[[], None] | None:
    """A ``preexec_fn`` that asks Linux to SIGTERM the child when we die (kept across the
    ``exec`` chain spark-submit -> spark-class -> java).

    ``None`` off Linux, and off the main thread: Linux signals the child when the *thread*
    that forked it exits, which for a worker thread is long before the process ends. The
    atexit hook and ``close()`` still apply then.
    """
    if (
        not sys.platform.startswith("linux")
        or threading.current_thread() is not threading.main_thread()
    ):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl  # resolved before fork
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != parent:  # we died before prctl took effect
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


def _wait_ready(proc: subprocess.Popen[bytes], port: int, log: str) -> None:
    """Block until the server logs readiness or accepts TCP on ``port``; raise
    ``_PortTaken`` or ``SparkFailure`` if it exits, ``SparkFailure`` after STARTUP_TIMEOUT."""
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while True:
        if _READY_MARKER in _read_log(log) or _port_open(port):
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


def _port_open(port: int) -> bool:
    """Whether something accepts TCP connections on 127.0.0.1:``port``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


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


def _default_log_path() -> str:
    """``<tmp>/assay-<pid>-server.log``; later servers of this process get ``-server-N.log``."""
    number = next(_LOG_NUMBERS)
    suffix = "" if number == 1 else f"-{number}"
    return os.path.join(tempfile.gettempdir(), f"assay-{os.getpid()}-server{suffix}.log")


def _log4j_config() -> str:
    """A fresh private log4j2 properties file (deleted by the caller once the JVM has read it)."""
    fd, path = tempfile.mkstemp(prefix="assay-", suffix="-log4j2.properties")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(_LOG4J2)
    return path


# --------------------------------------------------------------------------- process lifetime


def _terminate(proc: subprocess.Popen[bytes], timeout: float = STOP_TIMEOUT) -> None:
    """Stop ``proc``'s process group: SIGTERM, wait ``timeout`` s, then SIGKILL."""
    if proc.poll() is not None:
        return
    _signal_group(proc, signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        _signal_group(proc, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5)


def _signal_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    """Send ``sig`` to the group ``proc`` leads (start_new_session made pgid == pid)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def _remember(proc: subprocess.Popen[bytes]) -> None:
    """Track ``proc`` so the atexit hook can stop it."""
    with _LIVE_LOCK:
        _LIVE[proc.pid] = proc


def _forget(proc: subprocess.Popen[bytes]) -> None:
    with _LIVE_LOCK:
        _LIVE.pop(proc.pid, None)


@atexit.register
def _stop_all_servers() -> None:
    """At interpreter exit: SIGTERM every live embedded server at once, then wait (bounded)."""
    with _LIVE_LOCK:
        procs = list(_LIVE.values())
        _LIVE.clear()
    for proc in procs:
        if proc.poll() is None:
            _signal_group(proc, signal.SIGTERM)
    for proc in procs:
        _terminate(proc)

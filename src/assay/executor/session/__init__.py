"""Open a Spark Connect session: our own embedded server, or a remote ``sc://`` URL.

Only the Spark Connect client is used here (no SparkContext, no py4j). What this package
guarantees:

- The embedded server is a ``spark-submit`` child process bound to 127.0.0.1 on free ports,
  protected by a random token, logging to a file (never to our stdout), and it does not
  outlive this process (``PR_SET_PDEATHSIG`` on Linux, an ``atexit`` hook, ``close()``).
- A dead or unreachable server fails within about ``connect_timeout`` seconds, not after
  pyspark's default 10-minute retry loop.
- No message raised from here contains a connection token or a URL password.

The pieces: :mod:`.handle` (the open session), :mod:`.redaction`, :mod:`.java` (finding
Java), :mod:`.client` (pyspark's logging, retries, connecting), :mod:`.remote` (``sc://``
URLs), :mod:`.embedded` (supervising our own server) and :mod:`.process` (its lifetime).
pyspark is imported lazily, so importing this package stays cheap.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from assay.errors import ConfigError, SparkFailure
from assay.executor.deadline import DEFAULT_CONNECT_TIMEOUT
from assay.executor.local_inputs import local_bytes
from assay.executor.session.client import (
    RELEASE_TIMEOUT,
    bounded_retry_policy,
    filter_retry_warnings,
    quiet_pyspark_logging,
)
from assay.executor.session.embedded import (
    PORT_ATTEMPTS,
    STARTUP_TIMEOUT,
    default_driver_memory,
    open_embedded,
)
from assay.executor.session.handle import SparkHandle
from assay.executor.session.java import (
    MIN_JAVA,
    check_java,
    find_java,
    java_version,
    parse_java_version,
)
from assay.executor.session.jvm import SHORT_RUN_BYTES, jit_options
from assay.executor.session.process import STOP_TIMEOUT
from assay.executor.session.redaction import redact_text, redact_url
from assay.executor.session.remote import open_remote, validate_remote_url
from assay.executor.session.warm import (
    Note,
    find_warm,
    open_warm,
    start_warm,
    stderr_note,
)
from assay.ir.sources import Source

__all__ = [
    "MIN_JAVA",
    "PORT_ATTEMPTS",
    "RELEASE_TIMEOUT",
    "STARTUP_TIMEOUT",
    "STOP_TIMEOUT",
    "SparkHandle",
    "bounded_retry_policy",
    "check_java",
    "default_driver_memory",
    "find_java",
    "java_version",
    "open_session",
    "parse_java_version",
    "quiet_pyspark_logging",
    "redact_text",
    "redact_url",
    "set_session_conf",
    "validate_remote_url",
]


def open_session(
    remote: str | None = None,
    *,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    server_conf: Mapping[str, str] | None = None,
    log_path: str | None = None,
    keep_server: bool = False,
    progress: Note | None = None,
    inputs: Iterable[Source] | None = None,
) -> SparkHandle:
    """Connect to ``remote`` (or ``$SPARK_REMOTE``), else to the running warm server
    (:mod:`.warm`; ``keep_server``: start one first if none runs), else start an embedded
    server.

    ``server_conf``: the embedded (or newly started warm) server's settings; with a remote
    or a running warm server, settings of this session (:func:`set_session_conf`; on a
    warm server that cannot take them, an embedded server is started instead, with a
    note). ``progress`` gets a line saying which server is used. ``inputs``: the
    sources the run reads, when known (an embedded server for a run over a few local
    megabytes compiles with C1 only: :func:`.jvm.jit_options`).

    Raises ``ConfigError`` for a malformed URL or a setting the server cannot take,
    ``EnvironmentFailure`` when Java is missing or too old, and ``SparkFailure`` when the
    server cannot be started or reached within the time limits. The returned session has
    a bounded retry policy installed and answered one RPC.

    Call it from a thread that lives as long as the handle (normally the main thread): on
    Linux the embedded JVM receives SIGTERM when the *thread* that started it exits.
    """
    filter_retry_warnings()
    say = progress or (lambda line: None)
    target = remote if remote is not None else (os.environ.get("SPARK_REMOTE") or None)
    if target is None:
        conf = dict(server_conf or {})
        handle = _on_warm_server(conf, connect_timeout, keep_server)
        if handle is not None:
            say(f"assay: using the warm server {handle.url} (pid {handle.warm_pid})")
            return handle
        input_bytes = None if inputs is None else local_bytes(inputs, SHORT_RUN_BYTES)
        short = jit_options(input_bytes, conf.get("spark.driver.extraJavaOptions", ""))
        say(f"assay: starting Spark{' for a short run (C1 compiler only)' if short else ''}")
        return open_embedded(connect_timeout, conf, log_path, input_bytes)
    say("assay: connecting to Spark")
    handle = open_remote(target, connect_timeout)
    if server_conf:
        try:
            set_session_conf(handle, server_conf)
        except BaseException:
            handle.close()
            raise
    return handle


def _on_warm_server(
    conf: dict[str, str], connect_timeout: float, keep_server: bool
) -> SparkHandle | None:
    """A new session on the warm server (started first with ``keep_server``), with the
    settings ``conf`` sets beyond the server's own; None when there is none to use."""
    if keep_server:  # asked for by name: it wins over ASSAY_NO_WARM_SERVER
        server, started = start_warm(conf, stderr_note)
        if started:
            stderr_note(
                f"assay: started a warm server (pid {server.pid}, log {server.log}); "
                "later runs use it; `assay server stop` stops it"
            )
    else:
        found = find_warm(stderr_note)
        if found is None:
            return None
        server = found
    try:
        handle = open_warm(server, connect_timeout)
    except SparkFailure as exc:
        stderr_note(f"assay: the warm server did not answer ({exc.message}); starting Spark")
        return None
    pending = {k: v for k, v in conf.items() if server.conf.get(k) != v}
    try:
        set_session_conf(handle, pending)
    except ConfigError as exc:
        handle.close()
        stderr_note(f"assay: not using the warm server: {exc.message}")
        return None
    return handle


def set_session_conf(handle: SparkHandle, conf: Mapping[str, str]) -> None:
    """Set ``conf`` on the remote session (``--conf`` with ``--remote``). They are the
    session's own: they end with it (``handle.close()`` releases the server-side session),
    so the server's other sessions never see them. A setting the running server cannot take
    (a static or core one: executor memory, the master...) is a ``ConfigError`` naming it.
    """
    from assay.executor.spark_errors import spark_message

    refused: list[str] = []
    for key, value in conf.items():
        try:
            handle.spark.conf.set(key, value)
        except Exception as exc:  # noqa: BLE001 - reported below with Spark's reason
            reason = spark_message(exc).split("\n")[0].split(" SQLSTATE")[0]
            refused.append(f"{key} ({reason})")
    if refused:
        raise ConfigError(
            "--conf settings a running Spark Connect server cannot take: " + "; ".join(refused),
            hint="set them when the server starts (spark-submit --conf, spark-defaults.conf); "
            "with --remote only session settings (spark.sql.*) apply",
        )

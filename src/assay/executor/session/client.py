"""The pyspark Connect client as assay drives it: quiet logs, a bounded retry policy,
connecting with a deadline (one RPC must answer), and stopping a session without hanging.

pyspark is imported lazily, so importing this module stays cheap.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import os
import re
import sys
import threading
import urllib.parse
import warnings
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from assay.errors import ConfigError, SparkFailure
from assay.executor.session.redaction import redact_text

if TYPE_CHECKING:
    from pyspark.sql.connect.client.retries import RetryPolicy
    from pyspark.sql.connect.session import SparkSession

T = TypeVar("T")


RELEASE_TIMEOUT = 5.0  # seconds for the ReleaseSession RPC in close()


CONNECT_TIMEOUT_ENV = "ASSAY_CONNECT_TIMEOUT"
"""Seconds, when set: the connect timeout of every session assay opens, in place of the
caller's (the command line's 30 s, the API's ``connect_timeout``). It also bounds the
retries of every later call (:func:`bounded_retry_policy`), so it says how soon a lost
server is reported. The tests set it low for unreachable and killed servers."""


URL_HINT = "use the form sc://host:port or sc://host:port/;token=...;use_ssl=true"


_QUIET = {"asked": False}
"""Whether :func:`quiet_pyspark_logging` was called (it then applies on import)."""


def quiet_pyspark_logging() -> None:
    """Silence pyspark's Python loggers (JSON error logs on stderr), its ``[RETRIES_EXCEEDED]``
    warning and gRPC's native log lines (``GRPC_VERBOSITY=ERROR`` unless set; it only takes
    effect when this runs before anything imports grpc). assay reports errors itself.
    ``SPARK_CONNECT_LOG_LEVEL`` still enables the Connect client logger for debugging.

    Called before pyspark is imported, it costs nothing and takes effect when the client
    is imported (:func:`import_client`): the CLI calls it first, and imports the client
    while the embedded server's JVM starts."""
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    filter_retry_warnings()
    _QUIET["asked"] = True
    if "pyspark.sql.connect.session" in sys.modules:
        _silence()


def import_client() -> None:
    """Import pyspark's Connect client (pandas, pyarrow, gRPC: about a second the first
    time), quieted when :func:`quiet_pyspark_logging` asked for it."""
    import pyspark.sql.connect.session  # noqa: F401 - the import is the point

    if _QUIET["asked"]:
        _silence()


def _silence() -> None:
    from pyspark.logger import PySparkLogger

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
    settings: dict[str, object] = {
        "max_retries": retries,
        "initial_backoff": initial,
        "max_backoff": cap,
        "backoff_multiplier": multiplier,
        "jitter": jitter,
        "min_jitter_threshold": jitter_from,
        # pyspark-client >= 4.1 only: honour the server's own retry delay, bounded
        "recognize_server_retry_delay": True,
        "max_server_retry_delay": cap,
    }
    known = inspect.signature(DefaultPolicy.__init__).parameters
    return DefaultPolicy(**{k: v for k, v in settings.items() if k in known})  # type: ignore[arg-type]


def filter_retry_warnings() -> None:
    """Hide pyspark's ``[RETRIES_EXCEEDED]`` warning: the error that follows says more."""
    warnings.filterwarnings("ignore", message=r"\[RETRIES_EXCEEDED\]")


def connect(url: str, secrets_: list[str], connect_timeout: float) -> SparkSession:
    """A new (not cached) session for ``url`` with a bounded retry policy, verified by one
    RPC that must answer within ``connect_timeout`` seconds."""
    connect_timeout = configured_connect_timeout(connect_timeout)
    import_client()
    from pyspark.sql.connect.session import SparkSession

    shown = redact_text(url, secrets_)
    try:
        spark = SparkSession.builder.remote(url).create()
    except Exception as exc:  # noqa: BLE001 - pyspark URL errors are PySparkValueError
        raise ConfigError(
            f"invalid Spark Connect URL '{shown}': {_short_reason(exc, secrets_)}", hint=URL_HINT
        ) from None
    spark.client.set_retry_policies([bounded_retry_policy(connect_timeout)])
    try:
        _call_with_timeout(lambda: spark.version, connect_timeout, "assay-connect-check")
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM: no release RPC retried at exit
        stop_session(spark, release=False)
        raise
    except Exception as exc:  # noqa: BLE001 - any failure here means "cannot reach"
        stop_session(spark, release=False)
        raise SparkFailure(
            f"cannot reach Spark Connect at {shown}: {_short_reason(exc, secrets_)}",
            hint=_remote_hint(url),
        ) from None
    return spark


def configured_connect_timeout(given: float) -> float:
    """``$ASSAY_CONNECT_TIMEOUT`` when set (a number of seconds > 0), else ``given``."""
    text = os.environ.get(CONNECT_TIMEOUT_ENV, "").strip()
    if not text:
        return given
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not seconds > 0 or seconds == float("inf"):
        raise ConfigError(f"{CONNECT_TIMEOUT_ENV} must be a number of seconds > 0, not '{text}'")
    return seconds


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


def stop_session(spark: SparkSession, *, release: bool) -> None:
    """Release the server-side session (bounded) and close the channel. Never raises."""
    if release:
        with contextlib.suppress(Exception):
            _call_with_timeout(spark.client.release_session, RELEASE_TIMEOUT, "assay-release")
    spark.release_session_on_close = False  # released above, or the server is gone
    with contextlib.suppress(Exception):
        spark.stop()


def _remote_hint(url: str) -> str:
    """What to check when ``url`` cannot be reached."""
    hint = "check the host and port, that the server is running, and any token"
    host = urllib.parse.urlparse("http" + url[2:]).hostname
    if "token=" in url and "use_ssl=" not in url and host != "localhost":
        hint += "; note that a token turns TLS on for any host except 'localhost'"
    return hint

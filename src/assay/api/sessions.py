"""``assay.session()``: a Spark Connect session for Python callers, on assay's embedded
local server (or on a server given by its URL), stopped with the server behind it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql.connect.session import SparkSession


def session(
    remote: str | None = None,
    *,
    conf: Mapping[str, str] | None = None,
    connect_timeout: float = 30.0,
) -> SparkSession:
    """A Spark Connect ``SparkSession``: on an embedded local server started for it (what
    ``assay run`` starts without ``--remote``), or on ``remote`` (``sc://host:15002``;
    ``$SPARK_REMOTE`` when set and no ``remote`` is given).

    ``conf`` are the embedded server's settings (``--conf``: ``spark.driver.memory``...),
    or with a remote the session's own (``spark.sql.*``). Use it as a context manager:
    leaving the block stops the session and the embedded server (``stop()`` does the
    same); a session still open when the interpreter exits is stopped then. Every session
    of one call is its own: two calls start two servers.

    Raises:
        ConfigError: a malformed URL, or a setting the server cannot take.
        EnvironmentFailure: Java is missing or too old (for the embedded server).
        SparkFailure: the server cannot be started or reached within the time limits.
    """
    from assay.executor.session.owned import owned_session

    return owned_session(remote, conf=conf, connect_timeout=connect_timeout)

"""A Spark Connect session handed to a Python caller: ``assay.session()``.

The caller gets pyspark's own ``SparkSession`` (the Connect one), so everything that takes
a session takes it. What makes it assay's is its lifetime: ``stop()``, and leaving a
``with`` block, also stop the embedded server behind it (and remove its directory), and a
session still open when the interpreter exits is closed then (before the process hook of
:mod:`.process` would only kill the server). For that its class is a subclass of the
session's own, made once per pyspark class, with ``stop``, ``__enter__`` and ``__exit__``
(Connect sessions are context managers only from pyspark 4.3).
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from assay.executor.deadline import DEFAULT_CONNECT_TIMEOUT
from assay.executor.session.handle import SparkHandle

if TYPE_CHECKING:
    from pyspark.sql.connect.session import SparkSession

HANDLE = "_server_handle"
"""Where a session keeps the handle of its server (in its instance ``__dict__``)."""


def owned_session(
    remote: str | None = None,
    *,
    conf: Mapping[str, str] | None = None,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
) -> SparkSession:
    """A session on an embedded server started for it (``conf``: the server's settings),
    or on ``remote`` (or ``$SPARK_REMOTE``; ``conf``: settings of the session); stopping
    it stops what was started for it.

    Raises as :func:`assay.executor.session.open_session`.
    """
    from assay.executor.session import open_session

    handle = open_session(remote, connect_timeout=connect_timeout, server_conf=conf)
    return tie(handle)


def tie(handle: SparkHandle) -> SparkSession:
    """``handle``'s session, made to close ``handle`` when it stops (or at exit)."""
    spark = handle.spark
    spark.__class__ = closing_class(type(spark))
    spark.__dict__[HANDLE] = handle
    # the session's own stop, not the handle's close: that path also closes pyspark's
    # client, whose exit hook would otherwise call the stopped server (its ML cache
    # cleanup) and wait out the retry policy, 12 s of the default 30 s connect timeout
    atexit.register(spark.stop)
    return spark


_CLASSES: dict[type, type] = {}
_CLASSES_LOCK = threading.Lock()


def closing_class(base: type) -> type:
    """``base`` (pyspark's Connect ``SparkSession``) with a ``stop`` that also closes the
    session's handle, and the context-manager methods calling it (made once per class)."""
    with _CLASSES_LOCK:
        if base not in _CLASSES:
            _CLASSES[base] = _subclass(base)
        return _CLASSES[base]


def _subclass(base: Any) -> type:

    def stop(self: Any) -> None:
        _release(self, keep_log=False)

    def __enter__(self: Any) -> Any:  # noqa: N807 - the protocol's name
        return self

    def __exit__(self: Any, kind: type[BaseException] | None, *rest: object) -> None:  # noqa: N807
        _release(self, keep_log=kind is not None)

    def _release(self: Any, keep_log: bool) -> None:
        handle = self.__dict__.pop(HANDLE, None)
        if handle is None:  # stopped already, or being stopped by the handle itself
            base.stop(self)
            return
        atexit.unregister(self.stop)
        handle.close(keep_log=keep_log)  # releases the session, stops an embedded server

    members: dict[str, Any] = {"stop": stop, "__enter__": __enter__, "__exit__": __exit__}
    members.update(__module__=base.__module__, __qualname__=base.__qualname__, __doc__=base.__doc__)
    return type(base.__name__, (base,), members)

"""A bound on how long one Spark plan may run: past it, the plan is interrupted on the
server (Spark Connect's operation tags) and the table reports a timeout (exit 3).

A plan that never returns (a server stuck on a lock, a pool exhausted) would otherwise
hold a run forever; the bound turns that into an error naming the table and the plan.
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql.connect.session import SparkSession

DEFAULT_PLAN_TIMEOUT = 2 * 3600.0
"""Seconds one Spark plan may run by default (``--plan-timeout``)."""

DEFAULT_CONNECT_TIMEOUT = 30.0
"""Seconds a Spark Connect server is given to answer its first call (retries included)."""


class PlanTimeout(Exception):
    """A plan ran past its bound and was interrupted."""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            f"did not finish within {_duration(seconds)} and was interrupted"
            " (--plan-timeout sets the bound)"
        )
        self.seconds = seconds


class Interrupted(Exception):  # noqa: N818 - what happened, as PlanTimeout says
    """The run was interrupted (Ctrl-C): no plan of its session may start or go on."""

    def __init__(self) -> None:
        super().__init__("interrupted")


_STOPPED: set[object] = set()
"""The sessions whose run was interrupted (by :func:`stop`) until :func:`resume`."""


def _key(spark: SparkSession) -> object:
    return getattr(spark, "session_id", None) or id(spark)


def stop(spark: SparkSession) -> None:
    """Interrupt every running operation of ``spark``'s session, and refuse its next
    plans (a table would otherwise go on with its next plan)."""
    _STOPPED.add(_key(spark))
    with contextlib.suppress(Exception):
        spark.interruptAll()


def resume(spark: SparkSession) -> None:
    """Let ``spark``'s session run plans again (a new run in the same process)."""
    _STOPPED.discard(_key(spark))


@contextmanager
def deadline(spark: SparkSession, seconds: float | None) -> Iterator[None]:
    """Run the block's Spark operations under a tag interrupted after ``seconds`` (no
    bound when None or 0). Tags are per thread, so concurrent tables bound their own.
    Raises :class:`Interrupted` in a session :func:`stop` interrupted."""
    if _key(spark) in _STOPPED:
        raise Interrupted
    if not seconds:
        try:
            yield
        except Exception as exc:
            if _key(spark) in _STOPPED:
                raise Interrupted from exc
            raise
        return
    tag = f"assay-{uuid.uuid4().hex[:12]}"
    spark.addTag(tag)
    fired = threading.Event()

    def interrupt() -> None:
        fired.set()
        with contextlib.suppress(Exception):  # the operation may have just ended
            spark.interruptTag(tag)

    timer = threading.Timer(seconds, interrupt)
    timer.daemon = True
    timer.start()
    try:
        yield
    except Exception as exc:
        if _key(spark) in _STOPPED:
            raise Interrupted from exc
        if fired.is_set():
            raise PlanTimeout(seconds) from exc
        raise
    finally:
        timer.cancel()
        spark.removeTag(tag)


def _duration(seconds: float) -> str:
    """
    >>> _duration(7200), _duration(90), _duration(1.5)
    ('2h', '90s', '1.5s')
    """
    for unit, size in (("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"

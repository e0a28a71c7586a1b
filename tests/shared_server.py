"""ONE embedded Spark Connect server for all the workers of ``pytest -n N`` (pytest-xdist).

The suite's time is mostly waiting: on the 2-core machine a serial run kept the cores 58%
busy (system-wide CPU over its wall time), a Python process uses one core at most, and many
tests wait on the server or on a process of their own. Workers fill those gaps, but each
would start its own server JVM (6 GiB, ~6 s, a C1 warm-up) for the same tiny tables. So the
controller starts one server before the workers start, and each worker connects to it with a
Connect session of its own (temporary views and session settings stay per worker).

Two things the workers would otherwise share are kept apart:

- **Tests that read the server's global state** (the Spark UI's SQL executions and running
  jobs) or write its catalog (tables, databases) run alone on it: each test using the
  server holds a shared lock on a file from its setup to its teardown, and turns it into an
  exclusive one when it first reads the UI (:func:`exclusive_now`, called by the
  ``server`` fixture's UI methods: what it counts from then on is its own), or from the
  start when its module writes the catalog (:data:`EXCLUSIVE`) or it is marked
  ``@pytest.mark.exclusive``.
- **Fixtures shared across modules** (the report tests' session runs, the warm server)
  keep their modules on one worker (``--dist loadgroup`` groups, set here), so they are
  computed once; every other module is a group of its own, so a module's fixtures are
  never built twice.

Without ``-n`` nothing changes: the session fixture starts its own server as before.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SERVER_CONF = {
    "spark.sql.shuffle.partitions": "4",
    "spark.sql.ui.retainedExecutions": "100000",
}
"""The test server's settings (with the C1-only JIT below: the tests' tables are tiny, so
a short run's embedded server gets C1 only, executor/session/jvm.py; the report and
integration tests ran 130 s with it against 165 s with C2)."""

_ENV = "ASSAY_TEST_SHARED_SERVER"
"""The file where the controller wrote the shared server's address (workers inherit it)."""

EXCLUSIVE = re.compile(
    r"saveAsTable|insertInto|GlobalTempView|spark_catalog"
    r"|CREATE\s+(?:OR\s+REPLACE\s+)?(?:TABLE|DATABASE|SCHEMA)",
    re.IGNORECASE,
)
"""What in a test module's source makes its tests run alone on the shared server: writing
the server's catalog (tables, databases), which every session sees."""

SHARED_FIXTURES = {
    "example_events": "report-runs",
    "every_events": "report-runs",
    "warm_server": "warm-server",
}
"""Session fixtures used by several modules: the modules using one run on one worker."""


def server_conf() -> dict[str, str]:
    from assay.executor.session.jvm import C1_ONLY

    return {**SERVER_CONF, "spark.driver.extraJavaOptions": " ".join(C1_ONLY)}


@dataclass(frozen=True)
class Address:
    url: str
    ui_url: str | None


def address() -> Address | None:
    """The shared server's address, in a worker of ``pytest -n``; else None."""
    path = os.environ.get(_ENV)
    if not path or not os.path.exists(path):
        return None
    data = json.loads(Path(path).read_text())
    return Address(data["url"], data["ui_url"])


def _workers(config: pytest.Config) -> bool:
    """Whether this process is the controller of xdist workers."""
    if hasattr(config, "workerinput"):
        return False
    return bool(getattr(config.option, "numprocesses", 0)) and config.option.dist != "no"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "exclusive: runs alone on the server shared by pytest -n workers"
    )
    if getattr(config.option, "numprocesses", 0) and config.option.dist in ("no", "load"):
        config.option.dist = "loadgroup"
        config.option.loadscopereorder = False  # the order of _scheduled, not the counts


def pytest_sessionstart(session: pytest.Session) -> None:
    """The controller starts the server, in its main thread (the JVM is tied to it and
    dies with it), before xdist starts the workers (its own hook runs last)."""
    config = session.config
    if not _workers(config) or "not spark" in (config.option.markexpr or ""):
        return
    from assay.executor.session import open_session, quiet_pyspark_logging

    quiet_pyspark_logging()
    os.environ.pop("SPARK_REMOTE", None)
    handle = open_session(server_conf=server_conf())
    config.stash[_HANDLE] = handle
    target = Path(tempfile.mkdtemp(prefix="assay-test-server-"), "address.json")
    target.write_text(json.dumps({"url": handle.connect_url, "ui_url": handle.ui_url}))
    os.environ[_ENV] = str(target)


_HANDLE = pytest.StashKey[object]()


def pytest_sessionfinish(session: pytest.Session) -> None:
    handle = session.config.stash.get(_HANDLE, None)
    if handle is None:
        return
    handle.close()  # type: ignore[attr-defined]
    path = Path(os.environ.pop(_ENV))
    for stale in path.parent.iterdir():
        stale.unlink()
    path.parent.rmdir()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each module a group of its own, or the group of the shared fixture it uses; the
    groups in :func:`_scheduled` order (every worker sorts alike: xdist checks that the
    workers collected the same tests in the same order)."""
    if config.option.dist != "loadgroup" or not hasattr(config, "workerinput"):
        return
    groups: dict[str, list[pytest.Item]] = {}
    for item in items:
        marker = item.get_closest_marker("xdist_group")
        if marker is None:
            group = next(
                (g for name, g in SHARED_FIXTURES.items() if name in item.fixturenames),
                item.nodeid.split("::", 1)[0],
            )
            item.add_marker(pytest.mark.xdist_group(group))
        else:
            group = marker.args[0] if marker.args else marker.kwargs.get("name", "default")
        groups.setdefault(group, []).append(item)
    items[:] = [item for group in _scheduled(groups) for item in groups[group]]


def _scheduled(groups: dict[str, list[pytest.Item]]) -> list[str]:
    """The groups longest first, as far as it can be told without timing them (a worker
    idles while the other runs the last group): those starting JVMs of their own (marked
    ``slow`` or ``cluster``), then those using the server, then the rest, each by its
    number of tests. The cheap Spark-free tests come last and fill the gaps."""

    def rank(group: str) -> tuple[int, int]:
        members = groups[group]
        own_jvm = any(
            i.get_closest_marker("slow") or i.get_closest_marker("cluster") for i in members
        )
        served = any("server" in getattr(i, "fixturenames", ()) for i in members)
        return (0 if own_jvm else 1 if served else 2, -len(members))

    return sorted(groups, key=rank)


@functools.cache
def _module_exclusive(path: str) -> bool:
    return bool(EXCLUSIVE.search(Path(path).read_text(errors="replace")))


def _lock_mode(item: pytest.Item) -> int | None:
    if address() is None or "server" not in getattr(item, "fixturenames", ()):
        return None
    if item.get_closest_marker("exclusive") or _module_exclusive(str(item.path)):
        return fcntl.LOCK_EX
    return fcntl.LOCK_SH


@functools.cache
def _lock_fd() -> int:
    return os.open(Path(os.environ[_ENV]).with_name("server.lock"), os.O_RDWR | os.O_CREAT, 0o600)


_held: list[int] = []
"""The lock mode the running test holds (none, or one)."""


def exclusive_now() -> None:
    """From now to its teardown, the running test is alone on the shared server (no other
    worker's test runs on it): before reading the server's global state."""
    if _held == [fcntl.LOCK_SH]:
        fcntl.flock(_lock_fd(), fcntl.LOCK_EX)  # Linux releases the shared lock first
        _held[0] = fcntl.LOCK_EX


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """A test using the shared server holds its lock from setup to teardown."""
    mode = _lock_mode(item)
    if mode is None:
        yield
        return
    fcntl.flock(_lock_fd(), mode)
    _held.append(mode)
    try:
        yield
    finally:
        _held.clear()
        fcntl.flock(_lock_fd(), fcntl.LOCK_UN)

"""The suite on pytest-xdist workers (``pytest -n 2``): the test server's settings, and
which worker runs what, in which order.

The suite's time was mostly waiting: on the 2-core machine a serial run at 45f49e8 kept
the cores 70% busy (system-wide CPU over its wall time): a Python process uses one core at
most, and many tests wait on the server or on a process of their own. Each worker is a
pytest process of its own and starts its own server when a test needs it (the session
fixture, ``tests/conftest.py``), with a smaller heap: the tests' tables are tiny.

One server shared by the workers was tried first (the controller starting it, each worker a
Connect session of its own): the tests that count the server's SQL executions or read its
running jobs (about a third of those using it) must then run alone on it, and holding them
apart (a file lock, shared or exclusive) left one worker waiting most of the time: the
suite took longer than serially.

- Each module runs on one worker (its fixtures are built once); the modules using a session
  fixture shared across modules run on one worker together (the report tests' runs, the
  warm server), so that fixture is built once too; so do the modules reading the kept
  documented runs (the examples, the cluster: :data:`SHARED_MODULES`).
- The groups go longest first as far as markers tell (a worker idles while the other runs
  the last group): those starting JVMs of their own (``slow``, ``cluster``), then those
  using the server, then the rest, each by its number of tests. The Spark-free tests come
  last and fill the gaps.

Without ``-n`` nothing changes.
"""

from __future__ import annotations

import os

import pytest

SERVER_CONF = {
    "spark.sql.shuffle.partitions": "4",
    "spark.sql.ui.retainedExecutions": "100000",
}
"""The test server's settings (with the C1-only JIT below: the tests' tables are tiny, so
a short run's embedded server gets C1 only, executor/session/jvm.py; the report and
integration tests ran 130 s with it against 165 s with C2)."""

WORKER_HEAP = "3g"
"""A worker's server heap (``spark.driver.memory``) unless ``SPARK_DRIVER_MEMORY`` says
otherwise: two servers beside the cluster's JVMs and the tests' own within 24 GiB."""

SHARED_FIXTURES = {
    "example_events": "example-runs",
    "every_events": "example-runs",
    "warm_server": "warm-server",
}
"""Session fixtures used by several modules: the modules using one run on one worker."""

SHARED_MODULES = {
    "tests/test_examples.py": "example-runs",
    "tests/cluster/test_cluster.py": "example-runs",
}
"""Modules sharing a worker's kept results that are no fixture: the documented runs on
the session's server (``tests.test_examples.full_run``, kept per process), which the
documented-exit test checks, the report's example pages read and the cluster compares
its runs with (13 runs of ``python -m assay`` on the server, about 50 CPU s, computed
again on a second worker)."""


def server_conf() -> dict[str, str]:
    """The session server's settings; on an xdist worker, with a smaller heap."""
    from assay.executor.session.jvm import C1_ONLY

    conf = {**SERVER_CONF, "spark.driver.extraJavaOptions": " ".join(C1_ONLY)}
    if os.environ.get("PYTEST_XDIST_WORKER") and not os.environ.get("SPARK_DRIVER_MEMORY"):
        conf["spark.driver.memory"] = WORKER_HEAP
    return conf


def pytest_configure(config: pytest.Config) -> None:
    """``-n`` without ``--dist``: the controller schedules by groups, in the order the
    workers' collections give them, and the workers name each test's group (xdist sets a
    worker's ``loadgroup`` from the ``--dist`` given on the command line only)."""
    worker = getattr(config, "workerinput", None)
    if worker is not None:
        if not _dist_given(worker.get("mainargv", ())):
            config.option.loadgroup = True
        return
    if getattr(config.option, "numprocesses", 0) and not _dist_given(config.invocation_params.args):
        config.option.dist = "loadgroup"
        config.option.loadscopereorder = False  # the order of _scheduled, not the counts


def _dist_given(args) -> bool:
    return any(str(a) == "-d" or str(a).startswith("--dist") for a in args)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each module a group of its own, or the group of the shared fixture it uses; the
    groups in :func:`_scheduled` order (every worker sorts alike: xdist checks that the
    workers collected the same tests in the same order)."""
    if not hasattr(config, "workerinput") or not config.getvalue("loadgroup"):
        return
    groups: dict[str, list[pytest.Item]] = {}
    for item in items:
        marker = item.get_closest_marker("xdist_group")
        if marker is None:
            module = item.nodeid.split("::", 1)[0]
            group = SHARED_MODULES.get(module) or next(
                (g for name, g in SHARED_FIXTURES.items() if name in item.fixturenames),
                module,
            )
            item.add_marker(pytest.mark.xdist_group(group))
        else:
            group = marker.args[0] if marker.args else marker.kwargs.get("name", "default")
        groups.setdefault(group, []).append(item)
    items[:] = [item for group in _scheduled(groups) for item in groups[group]]


def _scheduled(groups: dict[str, list[pytest.Item]]) -> list[str]:
    """The groups longest first, as far as it can be told without timing them."""

    def rank(group: str) -> tuple[int, int]:
        members = groups[group]
        own_jvm = any(
            i.get_closest_marker("slow") or i.get_closest_marker("cluster") for i in members
        )
        served = any("server" in getattr(i, "fixturenames", ()) for i in members)
        return (0 if own_jvm else 1 if served else 2, -len(members))

    return sorted(groups, key=rank)

"""Event lists for the report tests: every example run for real against the session's
server, and one table carrying every rule type (some failing, some with names that are
markup), as `assay run` would print them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import Collect, write_config
from tests.integration.test_catalogue_fused import COLUMNS, EVERY, ROWS, config

EXAMPLES = {
    "native": "assay run examples/orders.yaml",
    "data_validator": "assay run examples/data_validator/people.yaml",
    "metorikku_job": "assay run examples/metorikku/people_job.yaml",
    "metorikku_metric": "assay run examples/metorikku/people_metric.yaml"
    " --input people=examples/data/people.parquet",
    "sparquet": "assay run examples/sparquet/orders_validations.json"
    " --source examples/data/orders.parquet",
}
"""Documented runs (examples/README.md) whose printed lines the report tests render."""

NASTY = "<script>alert('x')</script> \"quoted\" & ünïcødé ✓"
"""A rule name and a sample value that must be shown as text."""

FAILING = [
    "{type: range, column: qty, min: 1, max: 5, name: 'qty 1..5'}",
    "{type: avg, column: amount, must_be: '< 3', warn: '< 1'}",
    "{type: not_null, column: name, level: warn}",
    "{type: accepted_values, column: status, values: [a], tolerance: '50%'}",
]


def run_events(spark, paths: list[Path], **options: Any) -> list[dict[str, Any]]:
    from assay.config import load_suite
    from assay.dialects.base import LoadOptions
    from assay.executor.run import run_suite

    sink = Collect()
    suite = load_suite(paths, options=LoadOptions(for_run=True, **options))
    run_suite(suite, spark, sink, server="the Spark Connect server at sc://localhost:15002")
    return sink.events


@pytest.fixture(scope="session")
def example_events(server, tmp_path_factory) -> dict[str, list[dict[str, Any]]]:
    """The lines each example's documented run printed: the session's run of it
    (``tests.test_examples.full_run``, which the documented-exit test checks)."""
    from tests.test_examples import documented, full_run

    runs = {command for command, _ in documented()}
    tmp = tmp_path_factory.mktemp("report_examples")
    events = {}
    for name, command in EXAMPLES.items():
        assert command in runs, command
        done = full_run(command, server.url, tmp / name)
        assert "Traceback" not in done.stderr, done.stderr[-3000:]
        events[name] = [json.loads(line) for line in done.stdout.splitlines()]
    return events


@pytest.fixture(scope="session")
def every_events(spark, tmp_path_factory) -> list[dict[str, Any]]:
    """One table with every rule type and alias, four rules failing in different ways
    (blocking, a metric's warn, a warn-level failure, failures within a tolerance), and a
    rule whose name and a sample value are markup."""
    tmp = tmp_path_factory.mktemp("report_every")
    data = str(tmp / "every.parquet")
    rows = [*ROWS, (6, 0.0, 11, None, NASTY, None, "c", None)]
    spark.createDataFrame(rows, COLUMNS).write.parquet(data)
    nasty = NASTY.replace("'", "''")
    rules = [
        *EVERY,
        *FAILING,
        f"{{type: regex, column: name, pattern: '^[a-z]+$', name: '{nasty}'}}",
    ]
    path = write_config(tmp, config(data, rules))
    return run_events(spark, [path])

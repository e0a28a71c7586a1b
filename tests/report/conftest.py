"""Event lists for the report tests: every example run for real against the session's
server, and one table carrying every rule type (some failing, some with names that are
markup), as `assay run` would print them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.helpers import Collect, write_config
from tests.integration.test_catalogue_fused import COLUMNS, EVERY, ROWS, config

EXAMPLES = {
    "native": ("examples/orders.yaml", {}),
    "data_validator": ("examples/data_validator/people.yaml", {}),
    "metorikku_job": ("examples/metorikku/people_job.yaml", {}),
    "metorikku_metric": (
        "examples/metorikku/people_metric.yaml",
        {"inputs": {"people": str(ROOT / "examples/data/people.parquet")}},
    ),
    "sparquet": (
        "examples/sparquet/orders_validations.json",
        {"source": str(ROOT / "examples/data/orders.parquet")},
    ),
}

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
def example_events(spark) -> dict[str, list[dict[str, Any]]]:
    return {name: run_events(spark, [ROOT / path], **o) for name, (path, o) in EXAMPLES.items()}


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

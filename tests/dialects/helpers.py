"""Shared helpers of the dialect tests: load with options, run in-process, compare results."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from assay.config import load_suite
from assay.dialects.base import LoadOptions
from assay.errors import ConfigErrors
from tests.conftest import ROOT
from tests.helpers import Collect

DATA = ROOT / "examples" / "data"
IGNORED = {"location", "run_id", "elapsed_ms"}


def people() -> list[dict[str, Any]]:
    """The example people rows (examples/make_data.py), for expectations computed in Python."""
    return pq.read_table(DATA / "people.parquet").to_pylist()


def write(tmp_path: Path, text: str, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def load(paths, **options):
    variables = options.pop("variables", None)
    dialect = options.pop("dialect", None)
    return load_suite(
        [paths] if isinstance(paths, (str, Path)) else paths,
        variables=variables,
        dialect=dialect,
        options=LoadOptions(**options),
    )


def errors(paths, **options) -> str:
    try:
        load(paths, **options)
    except ConfigErrors as e:
        return str(e)
    raise AssertionError("expected config errors")


def run(spark, suite) -> Collect:
    from assay.executor.run import run_suite

    sink = Collect()
    run_suite(suite, spark, sink)
    return sink


def comparable(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Result dicts without the fields that depend on where and when they ran, and with
    only the text of what a rule expects (its parameters are in each format's words)."""
    found = [{k: v for k, v in r.items() if k not in IGNORED} for r in results]
    for r in found:
        if isinstance(r.get("expect"), dict):
            r["expect"] = r["expect"]["text"]
    return found

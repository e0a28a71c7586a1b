"""Test helpers: write a config, run it against the session's server, collect events."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

SCHEMA = json.loads(
    (Path(__file__).resolve().parent.parent / "src/assay/schema/events.schema.json").read_text()
)


class Collect:
    """A sink keeping every event as the dict the CLI would print."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def __call__(self, event: Any) -> None:
        self.events.append(event.to_dict())

    @property
    def results(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["event"] == "result"]

    def result(self, table: str, index: int) -> dict[str, Any]:
        return next(e for e in self.results if e["table"] == table and e["rule_index"] == index)

    @property
    def summary(self) -> dict[str, Any]:
        return self.events[-1]

    def tables(self) -> dict[str, dict[str, Any]]:
        return {e["table"]: e for e in self.events if e["event"] == "table"}


def write_config(tmp_path: Path, text: str, name: str = "checks.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def run_config(spark, path: Path, **variables: str) -> Collect:
    from assay.config import load_suite
    from assay.executor.run import run_suite

    sink = Collect()
    run_suite(load_suite([path], variables=variables), spark, sink)
    return sink


def validate_event(event: dict[str, Any]) -> None:
    import jsonschema

    jsonschema.validate(event, SCHEMA)


def assert_case(
    got: dict[str, Any], severity: str, failed: int | None, value: Any, rows: int
) -> None:
    """One result against its expected severity, failed count, metric value and row count
    (the expectations of the catalogue tables), and the event schema."""
    import pytest

    validate_event(got)
    assert got["severity"] == severity, got["message"]
    assert got["failed_count"] == failed, got["message"]
    if value is None:
        assert got["metric_value"] is None
    else:
        assert got["metric_value"] == pytest.approx(float(value), rel=1e-12)
    assert got["row_count"] == rows
    assert got["passed"] == (severity in ("pass", "warn"))

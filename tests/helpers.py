"""Test helpers: write a config, run it against the session's server, collect events."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "src/assay/schema/events.schema.json").read_text())

SPARKLESS = ("check", "explain", "convert", "report")
"""Commands that open no Spark session (nor start an embedded server); ``report`` but with
``--history`` (a report table read through Spark)."""


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


def warm_state_dir(path: Path) -> Path:
    """A state directory (``ASSAY_STATE_DIR``) for a warm server of a test's own, whose
    ``cds/`` is this user's: the server starts from the class-data archive the other
    servers use (executor/session/jvm.py), and does not spend its stop writing one
    (200 MB, 16 s) into a directory thrown away after the test."""
    from assay.executor.session.state import private_dir

    shared = private_dir() / "cds"
    shared.mkdir(mode=0o700, exist_ok=True)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    (path / "cds").symlink_to(shared, target_is_directory=True)
    return path


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


@functools.cache
def _event_validator() -> Any:
    """The events schema's validator, its schema checked against the metaschema once:
    ``jsonschema.validate`` checks it on every call (0.15 s of a call's 0.15 s)."""
    import jsonschema

    cls = jsonschema.validators.validator_for(SCHEMA)
    cls.check_schema(SCHEMA)
    return cls(SCHEMA)


def validate_event(event: dict[str, Any]) -> None:
    """Raise as ``jsonschema.validate(event, SCHEMA)`` does: the best-matching error."""
    import jsonschema

    error = jsonschema.exceptions.best_match(_event_validator().iter_errors(event))
    if error is not None:
        raise error


def expected_passed(case: str, severity: str) -> bool:
    """Whether a catalogue case's rule passed: its condition held, which a warning says
    only for a metric's own ``warn`` threshold (a failed rule at ``level: warn`` did not)."""
    return severity == "pass" or (severity == "warn" and "level: warn" not in case)


def assert_case(
    got: dict[str, Any],
    severity: str,
    failed: int | None,
    value: Any,
    rows: int,
    passed: bool | None = None,
) -> None:
    """One result against its expected severity, failed count, metric value, row count
    and ``passed`` (default: ``severity == "pass"``) (the expectations of the catalogue
    tables), and the event schema."""
    import pytest

    validate_event(got)
    assert got["severity"] == severity, got["message"]
    assert got["failed_count"] == failed, got["message"]
    if value is None:
        assert got["metric_value"] is None
    else:
        assert got["metric_value"] == pytest.approx(float(value), rel=1e-12)
    assert got["row_count"] == rows
    assert got["passed"] == (severity == "pass" if passed is None else passed), got["message"]


def assay_cli(
    *args: str,
    cwd: Path | str = ROOT,
    env: dict[str, str] | None = None,
    unset: Iterable[str] = (),
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """``python -m assay ARGS`` with ``env`` added to this environment (less ``unset`` and
    ``SPARK_REMOTE``), in ``cwd``: its exit code, stdout and stderr. It runs in this process
    (``click.testing.CliRunner``: the interpreter's start and pyspark's imports, 1-2 s a
    command, are paid once) when it opens no server of its own: a command of
    :data:`SPARKLESS` or one given ``--remote``; else as a subprocess. An exception escaping
    the command is what the interpreter would do with it: its traceback on stderr, exit 1."""
    command = next((a for a in args if not a.startswith("-")), "")
    sparkless = command in SPARKLESS and not (command == "report" and "--history" in args)
    if not sparkless and "--remote" not in args:
        environ = {k: v for k, v in os.environ.items() if k not in {*unset, "SPARK_REMOTE"}}
        return subprocess.run(
            [sys.executable, "-m", "assay", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd,
            env={**environ, **(env or {})},
        )
    import traceback

    from click.testing import CliRunner

    from assay.cli.app import command as cli

    changes: dict[str, str | None] = dict.fromkeys((*unset, "SPARK_REMOTE"))
    with contextlib.chdir(cwd):
        done = CliRunner().invoke(cli(), list(args), env={**changes, **(env or {})})
    stderr = done.stderr
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        stderr += "".join(traceback.format_exception(done.exception))
    return subprocess.CompletedProcess(
        [sys.executable, "-m", "assay", *args], done.exit_code, done.stdout, stderr
    )

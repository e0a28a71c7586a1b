"""The command line's parse with typer's coercions deferred (assay.cli.coercion) gives
what typer's own gives, values and errors alike, and a plain run's parse builds no
pydantic adapter."""

from __future__ import annotations

import subprocess
import sys

import pytest
import typer

from assay.cli.app import app
from assay.cli.coercion import defer_coercions
from tests.conftest import ROOT

LINES = [
    ["run", "a.yaml"],
    ["run", "a.yaml", "b.json", "--no-progress", "--debug"],
    ["run", "a.yaml", "--concurrency", "8", "--sample-size", "3", "--plan-timeout", "5m"],
    ["run", "a.yaml", "--concurrency", "0"],
    ["run", "a.yaml", "--concurrency", "x"],
    ["run", "a.yaml", "--concurrency", "99999999"],
    ["run", "a.yaml", "--sample-size", "-1"],
    ["run", "a.yaml", "--sample-size", "2.5"],
    ["run", "a.yaml", "--var", "a=1", "--var", "b=2", "--conf", "k=v", "--order", "config"],
    ["run", "a.yaml", "--json-report", "out.json", "--tag", "t=1", "--remote", "sc://h:1"],
    ["run"],
    ["check", "a.yaml", "--vars", "v.yaml"],
    ["explain", "a.yaml", "--format", "json", "--passes"],
    ["report", "r.jsonl", "--html", "r.html", "--history-format", "csv"],
    ["compare", "--help"],
    ["profile", "--help"],
    ["history", "--help"],
]


def _parsed(command: typer.core.TyperGroup, line: list[str]) -> object:
    """A command line's parameters as click parsed them, or its error's message."""
    try:
        sub = command.commands[line[0]]
        return sub.make_context(line[0], line[1:], resilient_parsing=False).params
    except typer.Exit as exit_:  # --help
        return ("exit", exit_.exit_code)
    except Exception as error:  # noqa: BLE001 - click's usage errors: compared
        return ("error", type(error).__name__, error.format_message())  # type: ignore[attr-defined]


@pytest.mark.parametrize("line", LINES, ids=" ".join)
def test_a_deferred_parse_is_typers_own(line, capsys):
    own = _parsed(typer.main.get_command(app), line)
    deferred = _parsed(defer_coercions(typer.main.get_command(app)), line)
    assert deferred == own
    assert repr(deferred) == repr(own)  # the same types (Path, int, tuple)


def test_a_plain_run_parses_without_pydantic():
    code = (
        "import sys\n"
        "from assay.cli.app import command\n"
        "run = command().commands['run']\n"
        "run.make_context('run', ['a.yaml', '--no-progress'])\n"
        "print('pydantic' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert done.stdout.strip() == "False", done.stderr

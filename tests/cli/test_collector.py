"""The garbage collector paused while a command starts (assay.cli.collector): paused by
the entry point, resumed, with what the start built frozen, by the run's first event or
after the longest pause."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

import pytest

from assay.cli import collector
from assay.cli.console import RunStream
from tests.conftest import ROOT


@pytest.fixture
def paused(monkeypatch):
    """A pause in this process, undone whatever the test does."""
    monkeypatch.setitem(collector._PAUSED, "timer", None)  # noqa: SLF001
    try:
        yield
    finally:
        timer = collector._PAUSED["timer"]  # noqa: SLF001
        if timer is not None:
            timer.cancel()
        gc.enable()
        gc.unfreeze()


def test_the_first_event_resumes_the_collector_and_freezes_the_start(paused, capsys):
    from assay.report.events import RunSummary

    collector.pause()
    assert not gc.isenabled()
    RunStream(debug=False)(
        RunSummary(run_id="r", tables=0, rules=0, failed=0, warned=0, errors=0,
                   spark_plans=0, elapsed_ms=1, exit_code=0)
    )  # fmt: skip
    assert gc.isenabled() and gc.get_freeze_count() > 0
    assert '"event":"summary"' in capsys.readouterr().out.replace(" ", "")


def test_the_pause_ends_by_itself(paused, monkeypatch):
    monkeypatch.setattr(collector, "PAUSE_SECONDS", 0.01)
    collector.pause()
    collector._PAUSED["timer"].join(5)  # noqa: SLF001
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_caller_stays_off(paused):
    gc.disable()
    collector.pause()
    collector.resume()
    assert not gc.isenabled() and collector._PAUSED["timer"] is None  # noqa: SLF001


def test_the_command_line_pauses_it_from_its_start():
    """``assay --version``: the entry point paused the collector before the command."""
    code = (
        "import gc, sys; sys.argv = ['assay', '--version']\n"
        "from assay.cli import entry, app\n"
        "app._exit = lambda code: (print('enabled', gc.isenabled()), sys.exit(code))\n"
        "entry.main()\n"
    )
    env = dict(os.environ, ASSAY_NO_WARM_CLIENT="1")
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
        timeout=60,
    )  # fmt: skip
    assert "assay " in done.stdout and "enabled False" in done.stdout, done.stderr

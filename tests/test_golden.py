"""``assay explain`` of every example and of a suite with one rule of every type, compared
with golden files under tests/golden/ (no Spark: explain only plans).

The commands are the ones examples/README.md documents (``assay run X ...`` explained as
``assay explain X ...``), plus ``assay explain tests/golden/every_rule.yaml``. They run from
the repository's root; the root's absolute path in the output is written ``<repo>``, so the
files are the same on every machine.

When a plan changes on purpose, rewrite the files and read the diff::

    ASSAY_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py
    git diff tests/golden/
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.test_examples import documented

GOLDEN = ROOT / "tests" / "golden"
UPDATE = os.environ.get("ASSAY_UPDATE_GOLDEN") == "1"


def cases() -> list[tuple[str, list[str]]]:
    """(golden file stem, explain arguments)."""
    found = []
    for command, _ in documented():
        argv = shlex.split(command)
        if argv[:2] != ["assay", "run"]:
            continue
        stem = re.sub(r"[^A-Za-z0-9]+", "_", Path(argv[2]).with_suffix("").as_posix())
        found.append((stem, ["explain", *argv[2:]]))
    found.append(("every_rule", ["explain", "tests/golden/every_rule.yaml"]))
    return found


def explain(args: list[str], monkeypatch: pytest.MonkeyPatch) -> str:
    """The command's stdout (and stderr, after a marker), run in this process: explain
    needs no server, and a subprocess per case would cost seconds."""
    from typer.testing import CliRunner

    from assay.cli.app import app

    monkeypatch.chdir(ROOT)
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, (done.stderr, done.exception)
    text = f"$ assay {shlex.join(args)}\n{done.stdout}"
    if done.stderr:
        text += "--- stderr\n" + done.stderr
    return text.replace(str(ROOT), "<repo>")


@pytest.mark.parametrize(("stem", "args"), cases(), ids=[s for s, _ in cases()])
def test_explain_matches_the_golden_file(monkeypatch, stem, args):
    path = GOLDEN / f"{stem}.txt"
    got = explain(args, monkeypatch)
    if UPDATE:
        path.write_text(got, encoding="utf-8")
        return
    assert path.exists(), f"no {path.name}: run ASSAY_UPDATE_GOLDEN=1 python -m pytest {__file__}"
    want = path.read_text(encoding="utf-8")
    assert got == want, (
        f"assay {shlex.join(args)} differs from tests/golden/{path.name}; if the change is "
        "meant, run ASSAY_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py and review "
        "git diff tests/golden/"
    )


def test_every_golden_file_has_a_case():
    stems = {s for s, _ in cases()}
    assert {p.stem for p in GOLDEN.glob("*.txt")} <= stems


def test_the_golden_files_are_machine_independent():
    for path in GOLDEN.glob("*.txt"):
        text = path.read_text(encoding="utf-8")
        assert str(ROOT) not in text and "/home/" not in text and "/tmp/" not in text, path

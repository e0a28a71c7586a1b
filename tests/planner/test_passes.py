"""The planner's passes are named once (assay.planner.passes), each with a test that
exists, and `assay explain --passes` prints them in order."""

from __future__ import annotations

import json
import subprocess
import sys

from assay.planner.passes import PASSES, describe
from tests.conftest import ROOT


def test_every_pass_names_a_function_and_a_test_that_exist():
    assert len({p.name for p in PASSES}) == len(PASSES)
    for p in PASSES:
        assert (ROOT / p.test).is_file(), p
        assert p.where.startswith("assay.planner."), p


def test_explain_prints_the_passes_in_order():
    args = [sys.executable, "-m", "assay", "explain", "examples/orders.yaml", "--passes"]
    text = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    assert text.stdout.startswith(describe())
    places = [text.stdout.index(f"{n}. {p.name}") for n, p in enumerate(PASSES, 1)]
    assert places == sorted(places)
    done = subprocess.run(
        [*args, "--format", "json"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    first = json.loads(done.stdout.splitlines()[0])
    assert first["event"] == "passes"
    assert [p["name"] for p in first["passes"]] == [p.name for p in PASSES]
    assert {p["name"]: p["option"] for p in first["passes"]}["sql folding"] == "fold_sql"

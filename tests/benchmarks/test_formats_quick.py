"""The formats benchmark must keep working: ``benchmarks/formats.py`` on tiny data, assay's
side only (the engines' virtualenv is not part of CI).

Runs the harness once (a subprocess on the session's Spark server) on the 10-rule suite
and checks the JSON it writes. Nothing here asserts anything about time.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.benchmarks.harness import benchmark_json, on_server

FORMATS = ("gx", "soda", "dqx", "odcs")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def document(server, tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("formats")
    args = ["--scale", "0.01", "--rules", "10", "--repeat", "1", "--warmup", "0", "--no-engine"]
    args += ["--files", str(out / "files"), *on_server(server)]
    return benchmark_json("formats.py", args, out / "formats.json", timeout=300)


def _rows(document: dict) -> dict[str, dict]:
    return {row["format"]: row for row in document["formats"]}


def test_every_format_ran_through_assay(document: dict) -> None:
    rows = _rows(document)
    assert set(rows) == set(FORMATS)
    for name, row in rows.items():
        assert Path(row["file"]).is_file() and Path(row["passing_file"]).is_file(), name
        assert "error" not in row["assay"], (name, row["assay"].get("error"))
        assert row["assay"]["seconds"] > 0
        assert row["assay"]["rule_errors"] == [], name


def test_the_engines_are_skipped_and_said_so(document: dict) -> None:
    assert "skipped" in document["engines"]
    for row in document["formats"]:
        assert "skipped" in row["engine"] and row["engine_over_assay"] is None


def test_assay_finds_the_failing_rules_each_format_expresses(document: dict) -> None:
    reference = document["reference_failures"]
    assert reference, "the suite must fail on purpose so the detail plan runs"
    for name, row in _rows(document).items():
        assert row["rules_expressed"] == len(row["expressed"]) > 0
        assert row["expected_failures"] == [i for i in reference if i in row["expressed"]]
        assert row["assay"]["failed_rules"] == row["expected_failures"], name
        assert row["assay"]["verdicts_match_expected"] is True, name
        assert row["assay_passing"]["failed_rules"] == [], name


def test_a_passing_suite_is_one_spark_plan_and_a_failing_one_two(document: dict) -> None:
    for name, row in _rows(document).items():
        assert row["assay_passing"]["spark_plans"] == 1, name
        assert row["assay_passing"]["sql_executions"] == 1, name
        assert row["assay"]["spark_plans"] == 2, name
        assert row["assay"]["sql_executions"] == 2, name


STALE = """import json, sys
sys.path.insert(0, "benchmarks/peers")
import formats_files as ff, suites
for key, entry in json.loads(ff.RECORDED.read_text()).items():
    now = ff.recording_key(entry["format"], suites.suite(entry["cases"]), entry["rules"])
    if now != key:
        print(entry["format"], entry["cases"], entry["rules"])
"""


def test_the_recorded_gx_and_dqx_files_are_current() -> None:
    """The GX and DQX files ``formats.py`` writes from ``benchmarks/peers/
    formats_recorded.json`` (not importing the tools) are recorded under the tools'
    versions and the writing code now installed and checked out; a stale entry is
    written by the tool again (slower), and re-recorded with ``rm benchmarks/peers/
    formats_recorded.json; ASSAY_RECORD_FORMATS=1 python -m pytest
    tests/benchmarks/test_formats_quick.py``."""
    import subprocess
    import sys

    from tests.benchmarks.harness import ROOT

    done = subprocess.run(
        [sys.executable, "-c", STALE], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout == "", "stale recordings (format, suite, rules):\n" + done.stdout

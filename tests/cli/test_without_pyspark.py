"""With neither Spark flavour installed, `assay check` and `assay explain` work (no Spark
needed) and `assay run` says what to install, exit 3, no traceback."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

# pyspark made unimportable: what an install without the [embedded] or [remote] extra has
LAUNCH = (
    "import sys; sys.modules['pyspark'] = None; "
    "from assay.cli.app import main; sys.argv = ['assay', *sys.argv[1:]]; main()"
)


def assay_without_pyspark(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", LAUNCH, *args],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize("command", ["check", "explain"])
def test_check_and_explain_need_no_spark_at_all(command):
    done = assay_without_pyspark(command, "examples/orders.yaml")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_run_says_which_flavour_to_install():
    done = assay_without_pyspark("run", "examples/orders.yaml")
    assert done.returncode == 3
    (summary,) = [json.loads(line) for line in done.stdout.splitlines()]  # it stopped: says so
    assert (summary["event"], summary["exit_code"], summary["stopped"]) == ("summary", 3, "error")
    assert "spark-assay[embedded]" in done.stderr and "spark-assay[remote]" in done.stderr
    assert "Traceback" not in done.stderr


def test_check_refuses_what_run_refuses_before_spark():
    """A sparquet file without --source: run refuses it (exit 2) before Spark starts, so
    check does too; with --source both accept it; explain shows it over a placeholder."""
    example = "examples/sparquet/orders_validations.json"
    missing = assay_without_pyspark("check", example)
    assert missing.returncode == 2 and "--source" in missing.stderr
    given = assay_without_pyspark("check", example, "--source", "examples/data/orders.parquet")
    assert given.returncode == 0, given.stderr
    assert assay_without_pyspark("explain", example).returncode == 0

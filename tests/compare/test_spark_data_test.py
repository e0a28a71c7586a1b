"""spark-data-test configs run unchanged: assay writes the same four reports with the same
values as spark-data-test 0.1.2 itself (run here as a differential oracle on the same
Spark Connect server), in one aggregate plan per dataset plus its writes.

The oracle runs on Spark Connect once ``SPARK_CONNECT_MODE_ENABLED`` is set (its
``pyspark.sql.functions`` calls then build Connect columns). Its reports (each one's
schema and sorted rows) are recorded in ``spark_data_test_oracle.json`` beside this file,
keyed by the datasets, the job, the versions and the code that runs it
(tests/dialects/recorded.py, docs/testing.md): it runs live only when one of those
changed. Without the package a live oracle test skips, unless ``ASSAY_REQUIRE_ORACLES=1``
(CI installs it: .ci/run).
"""

from __future__ import annotations

import json
import os
from decimal import Decimal
from pathlib import Path

import pytest

from assay.api.comparing import run_comparison_job
from assay.config import load_suite
from assay.executor.run import run_suite
from tests.dialects import recorded
from tests.helpers import validate_event

REPORTS = ("overall_test_report", "col_lvl_test_report", "row_lvl_test_report")
RECORDING = Path(__file__).with_name("spark_data_test_oracle.json")


def oracle():
    try:
        from spark_data_test.jobs import comparison_job
    except ImportError:
        if os.environ.get("ASSAY_REQUIRE_ORACLES") == "1":
            raise
        pytest.skip(
            "spark-data-test is not installed (pip install --no-deps spark-data-test==0.1.2 dacite)"
        )
    return comparison_job


# Each dataset: (name, schema, source rows, target rows, params beyond name and keys).
DATASETS = {
    # Duplicated key, null keys on both sides, a null against a number, a value within
    # the tolerance, a case difference, a row on each side only.
    "quirks": (
        "id int, name string, val double",
        [
            (1, "a", 1.0),
            (2, "b", 2.0),
            (2, "b", 2.0),
            (3, "c", None),
            (4, "d", 4.0),
            (None, "n", 1.0),
        ],
        [(1, "a", 1.05), (2, "B", 2.0), (3, "c", 3.0), (5, "e", 5.0), (None, "n", 1.0)],
        {"test_params": {"difference_tolerance": 0.1}},
    ),
    # decimal(12,2) is not in its numeric types: compared exactly despite the tolerance;
    # decimal(10,0) is; a composite key; nulls swapped between columns (same checksum).
    "decimals": (
        "k1 string, k2 int, amount decimal(12,2), whole decimal(10,0), a string, b string",
        [
            ("x", 1, Decimal("1.00"), Decimal(5), "p", None),
            ("x", 2, Decimal("2.00"), Decimal(7), None, "q"),
            ("y", 1, Decimal("3.00"), Decimal(9), "r", "s"),
        ],
        [
            ("x", 1, Decimal("1.01"), Decimal(5), "p", None),
            ("x", 2, Decimal("2.00"), Decimal(8), "q", None),
            ("y", 1, Decimal("3.00"), Decimal(9), "r", "s"),
        ],
        {"test_params": {"difference_tolerance": 2}},
    ),
    # Duplicates on both sides of one key (4 pairs), one pair within tolerance only.
    "dupes": (
        "id long, v float",
        [(1, 1.0), (1, 1.5), (2, 2.0), (3, 3.0)],
        [(1, 1.0), (1, 9.0), (2, 2.5), (3, 3.0)],
        {"test_params": {"difference_tolerance": 0.5}},
    ),
    # A key of two pairs within tolerance (of four): its pairs all matched, and its
    # duplicate count is its pairs after spark-data-test's join with those two, less one.
    "tolerated": (
        "id long, v double",
        [(1, 1.0), (1, 1.04), (2, 2.0)],
        [(1, 1.05), (1, 1.5), (2, 2.0)],
        {"test_params": {"difference_tolerance": 0.1}},
    ),
    # Identical data: PASSED.
    "same": (
        "id int, s string",
        [(1, "a"), (2, "b")],
        [(1, "a"), (2, "b")],
        {},
    ),
}
KEYS = {"quirks": ["id"], "decimals": ["k1", "k2"], "dupes": ["id"], "tolerated": ["id"],
        "same": ["id"]}  # fmt: skip


def _configs(base: Path, names) -> list[dict]:
    """The job's dataset configs of ``names``, their sides under ``base``."""
    return [
        {
            "params": {"dataset_name": name, "primary_keys": KEYS[name], **DATASETS[name][3]},
            "source_config": {"path": str(base / f"{name}_src"), "file_format": "parquet"},
            "target_config": {"path": str(base / f"{name}_tgt")},
        }
        for name in names
    ]


def _write_inputs(spark, base: Path, names) -> list[dict]:
    for name in names:
        schema, src, tgt, _ = DATASETS[name]
        for side, rows in (("src", src), ("tgt", tgt)):
            spark.createDataFrame(rows, schema).write.mode("overwrite").parquet(
                str(base / f"{name}_{side}")
            )
    return _configs(base, names)


def _read(spark, path: str, fmt: str = "parquet", options: dict | None = None) -> list:
    df = spark.read.format(fmt).options(**(options or {})).load(path)
    rows = [json.dumps(r.asDict(recursive=True), sort_keys=True, default=str) for r in df.collect()]
    return [df.schema.simpleString(), sorted(rows)]


def _reports(spark, base: str, fmt: str = "parquet", options: dict | None = None) -> dict:
    found = {name: _read(spark, f"{base}/{name}", fmt, options) for name in REPORTS}
    unmatched = Path(base) / "unmatched_rows"
    for path in sorted(unmatched.glob("*/*")) if unmatched.exists() else ():
        found[str(path.relative_to(base))] = _read(spark, str(path), fmt, options)
    return found


def _job(configs, out: Path, **output) -> dict:
    return {
        "job_name": "job",
        "dataset_configs": configs,
        "output_config": {"output_dir": str(out), **output},
    }


@pytest.fixture
def connect_mode(monkeypatch):
    monkeypatch.setenv("SPARK_CONNECT_MODE_ENABLED", "1")


# The oracle's cases: (names, output settings; None: the job from DataFrames).
JSON_OUTPUT = {"output_file_format": "json", "spark_options": {"ignoreNullFields": "false"}}
CASES = {
    "job same": (["same"], {}),
    "job decimals": (["decimals"], {}),
    "job quirks dupes tolerated same": (["quirks", "dupes", "tolerated", "same"], {}),
    "json quirks": (["quirks"], JSON_OUTPUT),
    "dfs quirks": (["quirks"], None),
}


def _versions() -> dict[str, str | None]:
    """The oracle's versions; an engine not installed keys no recording (it runs live,
    and skips)."""
    try:
        return recorded.versions("spark-data-test", "pyspark", "pyarrow")
    except Exception:  # noqa: BLE001 - importlib.metadata.PackageNotFoundError
        return {"spark-data-test": None}


def _inputs(case: str) -> dict:
    """What the case's reports depend on: the datasets as written, the job (its paths under
    a placeholder), the versions, the code that writes, runs and reads."""
    names, output = CASES[case]
    return {
        "datasets": {name: [repr(DATASETS[name]), KEYS[name]] for name in names},
        "job": _job(_configs(Path("<tmp>"), names), Path("<tmp>/theirs"), **(output or {})),
        "from_dfs": output is None,
        "versions": _versions(),
        "code": recorded.sources(_configs, _write_inputs, _read, _reports, _job, _theirs),
    }


def _theirs(spark, tmp_path: Path, case: str) -> dict:
    """spark-data-test's reports of ``case``: recorded, or from a live run of its job over
    the inputs under ``tmp_path`` (written already)."""
    names, output = CASES[case]

    def live() -> dict:
        job = oracle()
        if output is None:
            schema, src, tgt, extra = DATASETS[names[0]]
            params = {"dataset_name": names[0], "primary_keys": KEYS[names[0]], **extra}
            s, t = spark.createDataFrame(src, schema), spark.createDataFrame(tgt, schema)
            out = {"output_dir": str(tmp_path / "theirs")}
            job.run_comparison_job_from_dfs(spark, "job", s, t, params, out)
        else:
            configs = _configs(tmp_path, names)
            job.run_comparison_job(spark, _job(configs, tmp_path / "theirs", **output))
        fmt = output.get("output_file_format", "parquet") if output else "parquet"
        return _reports(spark, str(tmp_path / "theirs" / "job"), fmt)

    return recorded.answers(RECORDING, case, _inputs(case), live)


def test_recording_is_current():
    """No Spark: a stale recording (the oracle then ran live) fails here."""
    cases = {case: _inputs(case) for case in CASES}
    recorded.assert_current(RECORDING, cases, "spark-data-test", "tests/compare")


# Datasets of one key column in one job (the overall report written on the last one;
# exit 1), the composite key alone (spark-data-test cannot union its row-level report
# with another key's), and a job whose only dataset passes (exit 0); a job of one failing
# dataset is compared with the oracle by test_output_format_options_and_partitions. Each
# dataset's reports are its own, so the job of three compares what three jobs of one did.
@pytest.mark.spark
@pytest.mark.parametrize("case", ["job same", "job decimals", "job quirks dupes tolerated same"])
def test_same_reports_as_spark_data_test(spark, tmp_path, connect_mode, case):
    configs = _write_inputs(spark, tmp_path, CASES[case][0])
    theirs = _theirs(spark, tmp_path, case)
    config = tmp_path / "job.json"
    config.write_text(json.dumps(_job(configs, tmp_path / "ours")))
    events = []
    summary = run_suite(load_suite([config]), spark, events.append)
    ours = _reports(spark, str(tmp_path / "ours" / "job"))
    assert ours == theirs
    for event in events:
        validate_event(json.loads(json.dumps(event.to_dict(), default=str)))
    statuses = [json.loads(r)["test_status"] for r in theirs["overall_test_report"][1]]
    assert summary.exit_code == (0 if set(statuses) == {"PASSED"} else 1)


@pytest.mark.spark
def test_output_format_options_and_partitions(spark, tmp_path, connect_mode):
    configs = _write_inputs(spark, tmp_path, ["quirks"])
    # Its write asks the RDD for the partition count, which Spark Connect has not: the
    # oracle runs without no_of_partitions; assay's files are compared by content.
    # JSON: CSV cannot hold its overall report's maps (spark-data-test fails the same way).
    theirs = _theirs(spark, tmp_path, "json quirks")
    results = run_comparison_job(
        spark, _job(configs, tmp_path / "ours", no_of_partitions=2, **JSON_OUTPUT)
    )
    assert _reports(spark, str(tmp_path / "ours" / "job"), "json") == theirs
    assert len(list((tmp_path / "ours" / "job" / "row_lvl_test_report").glob("part-*"))) == 2
    assert results[0].counts["matched"] == 1


@pytest.mark.spark
def test_plans_one_aggregate_then_samples_and_one_write_each(server, spark, tmp_path):
    configs = _write_inputs(spark, tmp_path, ["quirks", "same"])
    config = tmp_path / "job.json"
    config.write_text(json.dumps(_job(configs, tmp_path / "ours")))
    suite = load_suite([config])
    before = server.sql_executions()
    events = []
    run_suite(suite, spark, events.append)
    quirks, same = (e for e in events if hasattr(e, "comparison"))
    # quirks: aggregate + samples + unmatched_rows/quirks/name; same: its aggregate, and
    # the job's three reports (counted on the job's last dataset).
    assert quirks.spark_plans == 3 and same.spark_plans == 1 + 3
    assert server.sql_executions() - before == 7
    assert [o["kind"] for o in quirks.outputs][-1] == "unmatched_rows"
    # Scans per plan: both sides once per dataset in its aggregate, the samples and the
    # unmatched rows (over the differing keys), and in the row-level report (one group-by
    # of the pairs, not a second join over the differing keys: it scanned 8 then); the
    # column and overall reports are local rows.
    assert sorted(_scans(server, before)) == [0, 0, 2, 2, 2, 2, 4]


def _scans(server, since: int) -> list[int]:
    """The file scans of each SQL execution after the first ``since`` (the UI's plan
    graph, adaptive execution's final plan)."""
    import urllib.request

    server.sql_executions()  # finds the application id
    url = (
        f"{server.ui_url}/api/v1/applications/{server._app_id}/sql"
        f"?offset={since}&length=1000&details=true&planDescription=false"
    )
    with urllib.request.urlopen(url, timeout=60) as r:
        executions = json.load(r)
    return [sum(n["nodeName"].startswith("Scan ") for n in e["nodes"]) for e in executions]


@pytest.mark.spark
def test_run_comparison_job_from_dfs(spark, tmp_path, connect_mode):
    schema, src, tgt, extra = DATASETS["quirks"]
    params = {"dataset_name": "quirks", "primary_keys": ["id"], **extra}
    s, t = spark.createDataFrame(src, schema), spark.createDataFrame(tgt, schema)
    theirs = _theirs(spark, tmp_path, "dfs quirks")
    from assay.api.comparing import run_comparison_job_from_dfs

    result = run_comparison_job_from_dfs(
        spark, "job", s, t, params, {"output_dir": str(tmp_path / "ours")}
    )
    assert _reports(spark, str(tmp_path / "ours" / "job")) == theirs
    assert result.counts["missing_in_target"] == 2  # key 4 and the null key, as its report says


@pytest.mark.spark
def test_difference_margin_is_read_as_the_tolerance(spark, tmp_path):
    """Its README's name: spark-data-test 0.1.2 itself ignores it (tolerance 0)."""
    configs = _write_inputs(spark, tmp_path, ["quirks"])
    configs[0]["params"]["test_params"] = {"difference_margin": 0.1}
    (result,) = run_comparison_job(spark, _job(configs, tmp_path / "ours"))
    assert result.counts["matched"] == 1  # key 1: 1.0 vs 1.05 within 0.1

"""spark-data-test's four outputs of one job, written by the server: the overall and
column reports from the values the comparisons' aggregates already brought back (tiny
frames), the row-level report and the unmatched rows computed from the joined pairs.
One write (one Spark plan) each."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pyspark.sql.connect.session import SparkSession

from assay.emit import compare as emit
from assay.emit import sdt_reports as reports
from assay.emit.columns import balanced
from assay.executor.prepared_comparison import PreparedComparison
from assay.executor.staging import Staging
from assay.ir.compare import SdtReports

PASSED, FAILED = "PASSED", "FAILED"


def overall_row(p: PreparedComparison) -> dict[str, Any]:
    """One dataset's ``overall_test_report`` row."""
    t = p.totals
    assert t is not None
    empty = t["source_rows"] + t["target_rows"] == 0
    matched = t["matched"]
    passed = t["source_rows"] == matched and t["target_rows"] == matched
    return {
        "dataset_name": p.comparison.name,
        "count": {"source": t["source_rows"], "target": t["target_rows"]},
        "matched_count": matched,
        "duplicate_count": dict(t["duplicate_keys"]),
        # Summed over an empty row-level report, spark-data-test's counts are null.
        "missing_rows": {
            "source": None if empty else t["missing_in_source"],
            "target": None if empty else t["missing_in_target"],
        },
        "test_status": PASSED if passed else FAILED,
    }


def column_rows(p: PreparedComparison) -> list[dict[str, Any]]:
    """One dataset's ``col_lvl_test_report`` rows: unmatched count per non-key column."""
    return [
        {
            "dataset_name": p.comparison.name,
            "column_name": c["column"],
            "unmatched_rows_count": c["mismatched"],
        }
        for c in p.columns
    ]


def job_writes(
    spark: SparkSession,
    job: SdtReports,
    members: Sequence[PreparedComparison],
    note: Callable[[str], None] = lambda line: None,
) -> list[dict[str, Any]]:
    """Write the job's reports, all or none where the client can move them into place
    (:mod:`assay.executor.staging`); one ``{kind, target, written, dataset}`` per write
    (``dataset`` None for the three reports every dataset of the job shares)."""
    with Staging(spark) as staging:
        written = _writes(spark, job, members, note, staging)
        staging.commit()
    return written


def _writes(
    spark: SparkSession,
    job: SdtReports,
    members: Sequence[PreparedComparison],
    note: Callable[[str], None],
    staging: Staging,
) -> list[dict[str, Any]]:
    opts = dict(job.options)

    def save(df: Any, path: str, order: str | None) -> None:
        note(f"assay: writing {path}")
        place = staging.place(path, job.format, "overwrite")
        reports.write(df, place, job.format, opts, job.partitions, order)

    written: list[dict[str, Any]] = []
    for p in members:
        assert p.pairs is not None
        pairs = p.pairs
        if p.differing_keys is not None:  # known: only the differing keys' rows are joined
            pairs = emit.joined(
                *emit.restricted(spark, p.source, p.target, p.plan, p.differing_keys), p.plan
            )
        for c, found in zip(p.plan.columns, p.columns, strict=True):
            if found["mismatched"]:
                path = f"{job.base}/unmatched_rows/{p.comparison.name}/{c.name}"
                save(reports.sdt_unmatched_rows(pairs, p.plan, c), path, None)
                written.append(_entry("unmatched_rows", path, p.comparison.name))
    columns = reports.local_frame(
        spark, [r for p in members for r in column_rows(p)], reports.COLUMN_SCHEMA
    )
    save(columns, f"{job.base}/col_lvl_test_report", "dataset_name")
    written.append(_entry("col_lvl_test_report", f"{job.base}/col_lvl_test_report", None))
    rows = [reports.sdt_row_level(p.pairs, p.plan, p.comparison.name) for p in members]  # type: ignore[arg-type]
    # spark-data-test unions the datasets' reports by position, as here, and sorts them
    # by dataset: with one dataset that sort changes nothing but funnels every row through
    # one task, so it is left out.
    by_dataset = "dataset_name" if len(members) > 1 else None
    save(balanced(rows, lambda a, b: a.union(b)), f"{job.base}/row_lvl_test_report", by_dataset)
    written.append(_entry("row_lvl_test_report", f"{job.base}/row_lvl_test_report", None))
    overall = reports.local_frame(spark, [overall_row(p) for p in members], reports.OVERALL_SCHEMA)
    save(overall, f"{job.base}/overall_test_report", "dataset_name")
    written.append(_entry("overall_test_report", f"{job.base}/overall_test_report", None))
    return written


def _entry(kind: str, target: str, dataset: str | None) -> dict[str, Any]:
    return {"kind": kind, "target": target, "written": True, "dataset": dataset}

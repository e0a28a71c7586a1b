"""The comparison benchmark: reconcile TPC-H lineitem with a perturbed copy, every way,
side by side, on one Spark Connect server.

    python benchmarks/compare.py                 # SF1, warm-up + median of 3 (~25 min)
    python benchmarks/compare.py --quick         # SF0.01, one run each (a smoke run, < 3 min)
    python benchmarks/compare.py --strategies assay_api,naive

datacompy runs when it is importable: run this script with the Python of
``benchmarks/.venv-compare`` (see benchmarks/README.md), or install ``datacompy==1.1.0``
next to assay. spark-data-test runs when ``spark_data_test`` 0.1.2 is importable
(``pip install --no-deps spark-data-test==0.1.2 dacite``). A strategy that cannot run is
recorded with its error; the run goes on.

Both sides are derived deterministically from lineitem by a hash of the key
(``pmod(xxhash64(l_orderkey, l_linenumber), 1000000)``) and written once, by Spark, to
``benchmarks/data/sf<scale>/compare/{source,target}.parquet``: 0.01% of keys missing on
each side, 0.1% of target rows with one changed value (price, quantity, ship mode or
comment), a few values nulled on each side, a few keys duplicated on each side.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run as bench  # noqa: E402
from cpu import CpuMeter  # noqa: E402
from sparkui import SparkUI  # noqa: E402
from strategies import cli_env, timed  # noqa: E402

KEYS = ("l_orderkey", "l_linenumber")
SAMPLE_SIZE = 10  # datacompy's report shows 10 sample rows by default
BUCKETS = 1_000_000
HASH = f"pmod(xxhash64(l_orderkey, l_linenumber), {BUCKETS})"
# Hash buckets (out of 1,000,000) of each perturbation.
MISSING_IN_TARGET = (0, 100)  # 0.01%: dropped from the target
MISSING_IN_SOURCE = (100, 200)  # 0.01%: dropped from the source
CHANGED = (1_000, 2_000)  # 0.1%: one value changed in the target
SOURCE_NULLS = (3_000, 3_030)  # l_tax null in the source only
TARGET_NULLS = (3_030, 3_060)  # l_receiptdate null in the target only
SOURCE_DUPLICATES = (4_000, 4_010)  # rows repeated in the source
TARGET_DUPLICATES = (4_010, 4_020)  # rows repeated in the target


def _in(bounds: tuple[int, int]) -> str:
    return f"({HASH} >= {bounds[0]} AND {HASH} < {bounds[1]})"


def perturbation_sql(side: str, lineitem: str) -> str:
    """The SQL that derives one side from lineitem (pure: the same rows every time)."""
    table = "parquet.`" + lineitem.replace("`", "``") + "`"
    if side == "source":
        columns = ", ".join(
            f"CASE WHEN {_in(SOURCE_NULLS)} THEN NULL ELSE l_tax END AS l_tax" if c == "l_tax" else c
            for c in LINEITEM_COLUMNS
        )
        base = f"SELECT {columns} FROM {table} WHERE NOT {_in(MISSING_IN_SOURCE)}"
        dupes = f"SELECT {columns} FROM {table} WHERE {_in(SOURCE_DUPLICATES)}"
    else:
        changed = _in(CHANGED)
        which = f"pmod({HASH}, 4)"
        edits = {
            "l_extendedprice": f"CASE WHEN {changed} AND {which} = 0 "
                               "THEN l_extendedprice + 0.01 ELSE l_extendedprice END",
            "l_quantity": f"CASE WHEN {changed} AND {which} = 1 THEN l_quantity + 1 ELSE l_quantity END",
            "l_shipmode": f"CASE WHEN {changed} AND {which} = 2 THEN 'TELEPORT' ELSE l_shipmode END",
            "l_comment": f"CASE WHEN {changed} AND {which} = 3 THEN concat(l_comment, '!') "
                         "ELSE l_comment END",
            "l_receiptdate": f"CASE WHEN {_in(TARGET_NULLS)} THEN NULL ELSE l_receiptdate END",
        }
        columns = ", ".join(
            f"CAST({edits[c]} AS {LINEITEM_TYPES[c]}) AS {c}" if c in edits else c
            for c in LINEITEM_COLUMNS
        )
        base = f"SELECT {columns} FROM {table} WHERE NOT {_in(MISSING_IN_TARGET)}"
        dupes = f"SELECT {columns} FROM {table} WHERE {_in(TARGET_DUPLICATES)}"
    return f"{base} UNION ALL {dupes}"


LINEITEM_COLUMNS = (
    "l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity", "l_extendedprice",
    "l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate", "l_commitdate",
    "l_receiptdate", "l_shipinstruct", "l_shipmode", "l_comment",
)
LINEITEM_TYPES = {"l_extendedprice": "decimal(15,2)", "l_quantity": "decimal(15,2)",
                  "l_shipmode": "string", "l_comment": "string", "l_receiptdate": "date"}
DATE_COLUMNS = ("l_shipdate", "l_commitdate", "l_receiptdate")
COMPARED = tuple(c for c in LINEITEM_COLUMNS if c not in KEYS)


def ensure_pair(spark: Any, lineitem: Path) -> tuple[str, str]:
    """``compare/source.parquet`` and ``compare/target.parquet`` next to lineitem, written
    once by Spark (a marker file records the perturbation they were made with)."""
    directory = lineitem.parent / "compare"
    marker = directory / "perturbation.sql"
    recipe = perturbation_sql("source", str(lineitem)) + ";\n" + perturbation_sql("target", str(lineitem))
    paths = directory / "source.parquet", directory / "target.parquet"
    if marker.is_file() and marker.read_text() == recipe and all(p.is_dir() for p in paths):
        return str(paths[0]), str(paths[1])
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    for side, path in zip(("source", "target"), paths):
        bench.log(f"writing the {side} side to {path}")
        spark.sql(perturbation_sql(side, str(lineitem))).write.parquet(str(path))
    marker.write_text(recipe)
    return str(paths[0]), str(paths[1])


# --- strategies ---------------------------------------------------------------------------


@dataclass
class Context:
    spark: Any
    source: str  # parquet directories
    target: str
    connect_url: str | None
    work: Path  # scratch directory for report outputs
    timeout: float = 1800.0

    def frames(self) -> tuple[Any, Any]:
        return self.spark.read.parquet(self.source), self.spark.read.parquet(self.target)

    def job(self, out: Path) -> dict[str, Any]:
        """The same comparison as a spark-data-test job writing its four reports."""
        return {
            "job_name": "lineitem",
            "dataset_configs": [{
                "params": {"dataset_name": "lineitem", "primary_keys": list(KEYS)},
                "source_config": {"path": self.source, "file_format": "parquet"},
                "target_config": {"path": self.target, "file_format": "parquet"},
            }],
            "output_config": {"output_dir": str(out), "output_file_format": "parquet"},
        }


@dataclass
class Outcome:
    counts: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    # Work done after the clock stops (reading written reports back to check them).
    after: Callable[[], dict[str, Any]] | None = None


def _native_counts(counts: dict[str, Any], columns: Any) -> dict[str, Any]:
    return {
        "source_rows": counts["source_rows"], "target_rows": counts["target_rows"],
        "compared": counts["compared"], "matched": counts["matched"],
        "missing_in_target": counts["missing_in_target"],
        "missing_in_source": counts["missing_in_source"],
        "duplicate_keys": dict(counts["duplicate_keys"]),
        "mismatched_by_column": {c["column"]: c["mismatched"] for c in columns if c["mismatched"]},
    }


def assay_api(ctx: Context) -> Outcome:
    """``assay.compare(source_df, target_df, keys=...)``: counts and samples."""
    import assay

    source, target = ctx.frames()
    result = assay.compare(source, target, keys=list(KEYS), sample_size=SAMPLE_SIZE)
    sampled = sum(len(v) for v in (result.samples or {}).values())
    return Outcome(_native_counts(result.counts, result.columns),
                   {"spark_plans": result.spark_plans, "sample_rows": sampled})


def assay_matching(ctx: Context) -> Outcome:
    """``assay.compare`` of the source with itself (nothing differs: no samples plan)."""
    import assay

    source = ctx.spark.read.parquet(ctx.source)
    result = assay.compare(source, ctx.spark.read.parquet(ctx.source), keys=list(KEYS),
                           sample_size=SAMPLE_SIZE)
    return Outcome(_native_counts(result.counts, result.columns),
                   {"spark_plans": result.spark_plans, "passed": result.passed})


def assay_cli(ctx: Context) -> Outcome:
    """``assay compare SOURCE TARGET --keys ...`` as a subprocess."""
    if not ctx.connect_url:
        raise RuntimeError("no sc:// URL for the CLI")
    cmd = [sys.executable, "-m", "assay", "compare", ctx.source, ctx.target,
           "--keys", ",".join(KEYS), "--source-format", "parquet", "--target-format", "parquet",
           "--sample-size", str(SAMPLE_SIZE)]
    done = subprocess.run(cmd, env=cli_env(ctx.connect_url), capture_output=True, text=True,
                          timeout=ctx.timeout)
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    found = [e for e in events if e.get("event") == "comparison"]
    if done.returncode not in (0, 1) or not found:
        raise RuntimeError(f"assay compare exited {done.returncode}: {done.stderr[-800:]}")
    event = found[0]
    return Outcome(_native_counts(event["counts"], event["columns"]),
                   {"spark_plans": event["spark_plans"], "exit_code": done.returncode})


def naive(ctx: Context) -> Outcome:
    """One Spark action per count, and per sample, written by hand: the same numbers as
    ``assay.compare`` (null-safe keys, null equals null)."""
    from pyspark.sql.connect import functions as F

    source, target = ctx.frames()
    s, t = source.alias("s"), target.alias("t")
    on = [F.col(f"s.{k}").eqNullSafe(F.col(f"t.{k}")) for k in KEYS]
    joined = s.join(t, on, "inner")
    counts: dict[str, Any] = {"source_rows": source.count(), "target_rows": target.count()}
    counts["compared"] = joined.count()
    equal = [F.col(f"s.{c}").eqNullSafe(F.col(f"t.{c}")) for c in COMPARED]
    all_equal = equal[0]
    for e in equal[1:]:
        all_equal = all_equal & e
    counts["matched"] = joined.filter(all_equal).count()
    only_source = s.join(t, on, "left_anti")
    only_target = t.join(s, [F.col(f"t.{k}").eqNullSafe(F.col(f"s.{k}")) for k in KEYS], "left_anti")
    counts["missing_in_target"] = only_source.count()
    counts["missing_in_source"] = only_target.count()
    counts["duplicate_keys"] = {
        side: frame.groupBy(*KEYS).count().filter(F.col("count") > 1).count()
        for side, frame in (("source", source), ("target", target))
    }
    mismatched = {}
    samples = 0
    for c, e in zip(COMPARED, equal):
        n = joined.filter(~e).count()
        if n:
            mismatched[c] = n
            samples += len(joined.filter(~e).select(*(F.col(f"s.{k}") for k in KEYS),
                                                    F.col(f"s.{c}"), F.col(f"t.{c}"))
                           .orderBy(*(F.col(f"s.{k}") for k in KEYS)).limit(SAMPLE_SIZE).collect())
    counts["mismatched_by_column"] = mismatched
    for frame in (only_source, only_target):
        samples += len(frame.orderBy(*KEYS).limit(SAMPLE_SIZE).collect())
    return Outcome(counts, {"sample_rows": samples})


def datacompy(ctx: Context) -> Outcome:
    """datacompy's ``SparkSQLCompare`` producing its text report (counts, column
    statistics, 10 sample rows each), with its defaults (``cache_intermediates=True``)."""
    import datacompy as dc
    from pyspark.sql.connect import functions as F

    # datacompy 1.1.0 cannot compare a date column on Spark 4: its max_diff runs
    # TRY_CAST(date AS DOUBLE), which Spark 4 refuses (DATATYPE_MISMATCH) whatever
    # spark.sql.ansi.enabled says. It gets the three date columns as ISO strings.
    source, target = (
        frame.select(*(F.col(c).cast("string").alias(c) if c in DATE_COLUMNS else F.col(c)
                       for c in frame.columns))
        for frame in ctx.frames()
    )
    compare = dc.SparkSQLCompare(ctx.spark, source, target, join_columns=list(KEYS),
                                 df1_name="source", df2_name="target")
    report = compare.report(sample_count=SAMPLE_SIZE)
    counts = _datacompy_counts(report)
    try:
        compare.intersect_rows.unpersist()
    except Exception:  # noqa: BLE001 - best effort: frees the server's cache between runs
        pass
    return Outcome(counts, {"version": dc.__version__, "report_chars": len(report),
                            "report_head": report[:3000]})


def _datacompy_counts(report: str) -> dict[str, Any]:
    """The counts datacompy's report prints (its own words; numbers with thousands
    separators), and its per-column unequal counts."""
    number = r"([\d,]+)"
    wanted = {
        "source_rows": rf"\nsource\s+\d+\s+{number}",
        "target_rows": rf"\ntarget\s+\d+\s+{number}",
        "compared": rf"Number of rows in common:\s+{number}",
        "missing_in_source": rf"Number of rows in target but not in source:\s+{number}",
        "missing_in_target": rf"Number of rows in source but not in target:\s+{number}",
        "mismatched": rf"Number of rows with some compared columns unequal:\s+{number}",
        "matched": rf"Number of rows with all compared columns equal:\s+{number}",
    }
    counts: dict[str, Any] = {}
    for name, pattern in wanted.items():
        found = re.search(pattern, report)
        counts[name] = int(found.group(1).replace(",", "")) if found else None
    table = report.split("Columns with Unequal Values or Types", 1)[-1].split("Sample Rows", 1)[0]
    counts["mismatched_by_column"] = {
        m.group(1): int(m.group(2).replace(",", ""))
        for m in re.finditer(r"^(\w+)\s+\S+\s+\S+\s+([\d,]+)\s", table, re.M)
    }
    return counts


def spark_data_test(ctx: Context) -> Outcome:
    """spark-data-test 0.1.2's ``run_comparison_job``: its four reports, as parquet."""
    from spark_data_test.jobs import comparison_job

    out = Path(tempfile.mkdtemp(prefix="sdt-", dir=ctx.work))
    comparison_job.run_comparison_job(ctx.spark, ctx.job(out))
    return Outcome(extra={"output_dir": str(out)},
                   after=lambda: _reports_back(ctx, out))


def assay_sdt_api(ctx: Context) -> Outcome:
    """``assay.run_comparison_job(spark, config)``: the same four reports."""
    import assay

    out = Path(tempfile.mkdtemp(prefix="assay-sdt-", dir=ctx.work))
    (result,) = assay.run_comparison_job(ctx.spark, ctx.job(out))
    return Outcome(_native_counts(result.counts, result.columns),
                   {"spark_plans": result.spark_plans, "output_dir": str(out)},
                   after=lambda: _reports_back(ctx, out))


def assay_sdt_cli(ctx: Context) -> Outcome:
    """``assay run job.json``: the spark-data-test config file, unchanged."""
    if not ctx.connect_url:
        raise RuntimeError("no sc:// URL for the CLI")
    out = Path(tempfile.mkdtemp(prefix="assay-sdt-cli-", dir=ctx.work))
    config = out / "job.json"
    config.write_text(json.dumps(ctx.job(out / "reports")))
    cmd = [sys.executable, "-m", "assay", "run", str(config), "--no-progress"]
    done = subprocess.run(cmd, env=cli_env(ctx.connect_url), capture_output=True, text=True,
                          timeout=ctx.timeout)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"assay run exited {done.returncode}: {done.stderr[-800:]}")
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    (event,) = [e for e in events if e.get("event") == "comparison"]
    return Outcome(_native_counts(event["counts"], event["columns"]),
                   {"spark_plans": event["spark_plans"], "exit_code": done.returncode},
                   after=lambda: _reports_back(ctx, out / "reports"))


def _reports_back(ctx: Context, out: Path) -> dict[str, Any]:
    """The written reports, read back (after the clock): the overall report's row, the
    column report as a mapping, row counts of the row report and of each unmatched_rows
    output."""
    base = out / "lineitem"
    read = ctx.spark.read.parquet
    (overall,) = read(str(base / "overall_test_report")).collect()
    columns = {r["column_name"]: r["unmatched_rows_count"]
               for r in read(str(base / "col_lvl_test_report")).collect()}
    row_report = read(str(base / "row_lvl_test_report"))
    unmatched = {p.name: read(str(p)).count()
                 for p in sorted((base / "unmatched_rows" / "lineitem").glob("*"))}
    return {"overall": json.loads(json.dumps(overall.asDict(recursive=True), default=str)),
            "col_lvl": columns,
            "row_lvl_rows": row_report.count(),
            "row_lvl_not_matched": row_report.filter("NOT all_rows_matched").count(),
            "unmatched_rows": unmatched}


STRATEGIES: dict[str, Callable[[Context], Outcome]] = {
    "assay_api": assay_api,
    "assay_cli": assay_cli,
    "naive": naive,
    "datacompy": datacompy,
    "assay_sdt_api": assay_sdt_api,
    "assay_sdt_cli": assay_sdt_cli,
    "spark_data_test": spark_data_test,
    "assay_matching": assay_matching,
}
DEFAULT_STRATEGIES = tuple(n for n in STRATEGIES if n != "assay_sdt_cli")
WARMUP_STRATEGIES = ("assay_api", "naive", "assay_matching")
GROUPS = {  # which strategies produce the same report (ratios are taken within a group)
    "counts + samples": ("assay_api", "assay_cli", "naive", "datacompy"),
    "spark-data-test's four reports": ("assay_sdt_api", "assay_sdt_cli", "spark_data_test"),
    "a matching pair": ("assay_matching",),
}


# --- measuring ----------------------------------------------------------------------------


WAIT_IDLE = 0.0


def measure_once(name: str, ctx: Context, ui: SparkUI | None, meter: CpuMeter) -> dict[str, Any]:
    """One run of one strategy (timed as every benchmark run, ``run.measured``), then its
    written reports read back, after the clock."""
    # spark-data-test caches its frames and never unpersists them; the server's cache
    # manager is shared by every session, so a later run would find the previous run's
    # join already computed (143 s cold, 21 s on its cached frames). Every run starts
    # with an empty cache, outside the clock.
    ctx.spark.catalog.clearCache()
    record, outcome = bench.measured(lambda: STRATEGIES[name](ctx), ctx.spark, ctx.timeout, ui,
                                     meter, WAIT_IDLE)
    if outcome is not None:
        record.update(counts=outcome.counts, **outcome.extra)
        if outcome.after is not None:
            try:
                record["reports"] = outcome.after()
            except Exception as exc:  # noqa: BLE001
                record["reports_error"] = f"{type(exc).__name__}: {exc}"[:600]
    return record


def bench_all(ctx: Context, ui: SparkUI | None, meter: CpuMeter, names: list[str], repeat: int,
              warmup: int, warm: set[str] | None = None) -> list[dict[str, Any]]:
    """Warm-up rounds (of the ``warm`` strategies; None: all), then ``repeat`` rounds each
    running every strategy once (interleaved, so drift spreads over all of them)."""
    runs: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
    broken: dict[str, dict[str, Any]] = {}
    for w in range(warmup):
        for n in [n for n in names if warm is None or n in warm]:
            bench.log(f"warm-up {w + 1}: {n}")
            rec = measure_once(n, ctx, ui, meter)
            _show(n, rec, f"warm-up {w + 1}")
            if "error" in rec:
                broken[n] = rec
    for r in range(repeat):
        for n in names:
            if n in broken:
                continue
            rec = measure_once(n, ctx, ui, meter)
            _show(n, rec, f"run {r + 1}/{repeat}")
            runs[n].append(rec)
            if "error" in rec:
                broken[n] = rec
    return [_summarise(n, runs[n], broken.get(n)) for n in names]


def _show(name: str, rec: dict[str, Any], label: str) -> None:
    shown = f"{rec['seconds']:.2f} s" if "seconds" in rec else f"ERROR {rec['error'][:300]}"
    bench.log(f"{label} {name}: {shown}, {rec.get('sql_executions')} SQL executions, "
              f"other processes {rec.get('other_cores')} cores")


def _summarise(name: str, runs: list[dict[str, Any]], error: dict[str, Any] | None) -> dict[str, Any]:
    ok = [r for r in runs if "seconds" in r]
    row: dict[str, Any] = {"strategy": name, "what": (STRATEGIES[name].__doc__ or "").split("\n")[0]}
    if not ok:
        row.update(error=(error or {}).get("error", "no run"),
                   traceback=(error or {}).get("traceback"))
        return row
    last = ok[-1]
    row.update(
        seconds=round(statistics.median(r["seconds"] for r in ok), 3),
        runs=[r["seconds"] for r in ok],
        sql_executions=last.get("sql_executions"),
        sql_executions_runs=[r.get("sql_executions") for r in ok],
        server_seconds=round(statistics.median(r.get("server_seconds") or 0 for r in ok), 3),
        other_cores_runs=[r.get("other_cores") for r in ok],
        counts=last.get("counts"),
    )
    for key in ("spark_plans", "sample_rows", "reports", "reports_error", "version",
                "report_head", "exit_code", "passed"):
        if key in last:
            row[key] = last[key]
    if error is not None:
        row["error"] = error["error"]
    return row


def agreement(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Do the strategies that compute the same numbers agree? assay's native counts
    against the hand-written ones (the same semantics); assay's spark-data-test reports
    against spark-data-test's own; datacompy's row counts where its semantics are the
    same (rows per side, rows missing on each side)."""
    by = {r["strategy"]: r for r in rows if "seconds" in r}
    out: dict[str, Any] = {}
    ref = by.get("assay_api", {}).get("counts")
    for other in ("assay_cli", "naive", "assay_sdt_api", "assay_sdt_cli"):
        if ref and by.get(other, {}).get("counts") and other in ("assay_cli", "naive"):
            out[f"{other}_counts_equal_assay_api"] = by[other]["counts"] == ref
    theirs = by.get("spark_data_test", {}).get("reports")
    for ours in ("assay_sdt_api", "assay_sdt_cli"):
        mine = by.get(ours, {}).get("reports")
        if theirs and mine:
            out[f"{ours}_reports_equal_spark_data_test"] = mine == theirs
    dc = by.get("datacompy", {}).get("counts")
    if ref and dc:
        out["datacompy_counts"] = dc
        # Its rows per side and per-column unequal counts have assay's meaning; it pairs
        # duplicated keys' rows in order (assay: every pair), so its missing and matched
        # counts differ where keys are duplicated.
        out["datacompy_rows_and_columns_equal_assay_api"] = all(
            dc.get(k) == ref.get(k) for k in ("source_rows", "target_rows", "mismatched_by_column"))
    return out


def add_ratios(rows: list[dict[str, Any]]) -> None:
    """Per group: each strategy's time over the fastest other-than-assay strategy of the
    group (``x fastest peer``) and over assay's API (``x assay``)."""
    by = {r["strategy"]: r for r in rows}
    for members in GROUPS.values():
        present = [by[m] for m in members if m in by and by[m].get("seconds")]
        peers = [r["seconds"] for r in present if not r["strategy"].startswith("assay")]
        mine = next((r["seconds"] for r in present if r["strategy"].startswith("assay")), None)
        for r in present:
            r["ratio_fastest_peer"] = round(r["seconds"] / min(peers), 2) if peers else None
            r["ratio_assay"] = round(r["seconds"] / mine, 2) if mine else None


def format_table(rows: list[dict[str, Any]]) -> str:
    head = ("report", "strategy", "seconds", "x fastest peer", "x assay", "SQL execs",
            "server s", "other cores", "note")
    lines = [head]
    group_of = {m: g for g, ms in GROUPS.items() for m in ms}
    for r in rows:
        note = ""
        if r.get("error"):
            note = "ERROR " + r["error"][:80]
        elif "spark_plans" in r:
            note = f"assay counted {r['spark_plans']} plans"
        lines.append((
            group_of.get(r["strategy"], "-"), r["strategy"],
            f"{r['seconds']:.2f}" if r.get("seconds") is not None else "-",
            f"{r['ratio_fastest_peer']:.2f}" if r.get("ratio_fastest_peer") else "-",
            f"{r['ratio_assay']:.2f}" if r.get("ratio_assay") else "-",
            str(r.get("sql_executions", "-")),
            f"{r['server_seconds']:.2f}" if r.get("server_seconds") is not None else "-",
            bench._max_text(r.get("other_cores_runs")),
            note,
        ))
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    out = []
    for k, line in enumerate(lines):
        out.append("  ".join(cell.ljust(widths[i]) if i in (0, 1, 8) else cell.rjust(widths[i])
                             for i, cell in enumerate(line)).rstrip())
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


# --- main ---------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=None, help="TPC-H scale factor (default 1)")
    ap.add_argument("--repeat", type=int, default=None, help="measured runs (median; default 3)")
    ap.add_argument("--warmup", type=int, default=None,
                    help="unmeasured runs first, after two warm-up scans (default 1; 0: neither)")
    ap.add_argument("--strategies", default=",".join(DEFAULT_STRATEGIES),
                    help=f"subset of {','.join(STRATEGIES)} (default: all but assay_sdt_cli)")
    ap.add_argument("--warmup-strategies", default=",".join(WARMUP_STRATEGIES),
                    help="what the warm-up rounds run ('all': every measured strategy); the "
                         "default warms the JVM's scan, shuffle, join and aggregate code "
                         "that every strategy runs, in a few minutes instead of a whole round")
    ap.add_argument("--quick", action="store_true",
                    help=f"scale {bench.QUICK_SCALE}, one measured run, no warm-up (a smoke run)")
    ap.add_argument("--out", type=Path, default=bench.RESULTS_DIR / "compare.json")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per strategy run")
    ap.add_argument("--conf", action="append", default=[], type=bench._assignment,
                    help="extra Spark conf KEY=VALUE for the embedded server (repeatable)")
    ap.add_argument("--wait-idle", type=float, default=0.0, metavar="SECONDS",
                    help="before each run, wait up to SECONDS until other processes use "
                         "< 0.3 cores (for shared machines; default off)")
    ap.add_argument("--remote", default=None, help="an existing sc:// server")
    ap.add_argument("--ui-url", default=None, help="Spark UI of --remote")
    args = ap.parse_args(argv)
    if args.scale is None:
        args.scale = bench.QUICK_SCALE if args.quick else 1.0
    if args.repeat is None:
        args.repeat = 1 if args.quick else 3
    if args.warmup is None:
        args.warmup = 0 if args.quick else 1
    args.retry_noisy = 0
    args.names = [s.strip() for s in args.strategies.split(",") if s.strip()]
    unknown = set(args.names) - set(STRATEGIES)
    if unknown:
        ap.error(f"unknown strategies: {', '.join(sorted(unknown))}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    source = bench.snapshot_source()
    # pyspark's own functions (which spark-data-test calls) build Spark Connect columns
    # only when this is set; assay needs nothing of it.
    os.environ.setdefault("SPARK_CONNECT_MODE_ENABLED", "1")
    from assay.executor.session import open_session, quiet_pyspark_logging

    quiet_pyspark_logging()
    lineitem = bench.ensure_data(args.scale)
    document: dict[str, Any] = {"benchmark": "assay-compare", "version": 1, "assay_source": source,
                                "environment": bench.environment(args.scale, lineitem, args)}
    conf = {**bench.SERVER_CONF, **dict(args.conf)}
    start = time.perf_counter()
    handle = open_session(args.remote, server_conf=None if args.remote else conf)
    work = Path(tempfile.mkdtemp(prefix="assay-compare-bench-"))
    try:
        spark = handle.spark
        ui_url = args.ui_url or handle.ui_url
        ui = SparkUI(ui_url) if ui_url else None
        url = args.remote or getattr(handle, "connect_url", None)
        document["environment"].update(spark=spark.version, ui_url=ui_url)
        src, tgt = ensure_pair(spark, lineitem)
        document["data"] = {"source": src, "target": tgt, "keys": list(KEYS),
                            "perturbation": {"source": perturbation_sql("source", str(lineitem)),
                                             "target": perturbation_sql("target", str(lineitem))}}
        bench.log(f"Spark {spark.version} up; UI {ui_url}; comparing {src} with {tgt}")
        ctx = Context(spark, src, tgt, url, work, args.timeout)
        for _ in range(2 if args.warmup else 0):  # a fresh JVM's first queries pay its JIT
            seconds, _ = timed(lambda: [f.count() for f in ctx.frames()])
            bench.log(f"global warm-up scan: {seconds:.2f} s")
        meter = CpuMeter(getattr(handle, "pid", None))
        global WAIT_IDLE
        WAIT_IDLE = args.wait_idle
        warm = None if args.warmup_strategies == "all" else set(args.warmup_strategies.split(","))
        document["warmup_strategies"] = sorted(warm) if warm is not None else "all"
        rows = bench_all(ctx, ui, meter, args.names, args.repeat, args.warmup, warm)
        add_ratios(rows)
        document["results"] = rows
        document["agreement"] = agreement(rows)
    finally:
        handle.close()
        shutil.rmtree(work, ignore_errors=True)
    document["elapsed_seconds"] = round(time.perf_counter() - start, 1)
    bench.write_json(args.out, document)
    print(format_table(rows))
    print()
    print(json.dumps(document["agreement"], indent=2))
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

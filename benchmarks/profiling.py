"""The profile benchmark: ``assay profile`` of TPC-H lineitem next to assay's 100-rule run
and Deequ's column profiler (its three passes, as hand-written Spark), side by side on
one server.

    python benchmarks/profiling.py                  # SF1, one warm-up, median of 3
    python benchmarks/profiling.py --scale 0.01     # a smoke run (a minute or two)

Cases (each: ``--warmup`` runs, then the median of ``--repeat``; seconds, the CPU other
processes used meanwhile, and the SQL executions the server ran, read from the Spark UI):

- ``assay_100_rules``: the 100-rule suite of ``benchmarks/run.py`` through the Python API;
- ``assay_profile``: ``assay profile`` of the same parquet file (the executor the command
  runs), every column;
- ``deequ_3_passes``: what Deequ's ``ColumnProfiler.profile`` submits, written by hand
  (Deequ needs a JVM client, which Spark Connect is not): pass 1 completeness,
  ``approx_count_distinct``, the type detection of strings (its three regexes) and their
  min and max lengths, with the row count; pass 2, over the numeric columns cast to long or
  double, min, max, range, the interquartile range (Spark's exact ``percentile``), mean,
  population standard deviation and variance, skewness, kurtosis, sum and the count of
  zeros; pass 3, the value counts of every string, boolean or (non-decimal) number column
  with at most 120 approximate distinct values (Deequ's ``countByKey`` over
  ``(column, value)`` pairs: here an ``explode`` and a group-by). Passes 2 and 3 read the
  values pass 1 measured, so each is its own Spark plan.

Printed: the table, the ratios ``profile / 100 rules`` (target: at most 1.5x) and
``deequ / profile``, the profile's Spark plans (target: at most 2); written to
``benchmarks/results/profile-<scale>.json``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import suites as suites_mod  # noqa: E402
from cpu import CpuMeter  # noqa: E402
from run import RESULTS_DIR, SERVER_CONF, ensure_data, environment, log, measured, write_json  # noqa: E402
from sparkui import SparkUI  # noqa: E402
from strategies import Context, assay_api  # noqa: E402

# Deequ's type detection (analyzers/catalyst/StatefulDataType.scala)
FRACTIONAL = r"^(-|\+)? ?\d+((\.\d+)|((?:\.\d+)?[Ee][-+]?\d+))$"
INTEGRAL = r"^(-|\+)? ?\d+$"
BOOLEAN = r"^(true|false)$"
CARDINALITY = 120  # ColumnProfiler.DEFAULT_CARDINALITY_THRESHOLD
NUMBERS = ("tinyint", "smallint", "int", "bigint", "float", "double")


def assay_profile(spark: Any, data: str) -> dict[str, Any]:
    """``assay profile <data>``: the executor the command runs."""
    from assay.executor.profile import profile, read
    from assay.ir.origin import Origin
    from assay.ir.sources import PathSource

    profiled = read(spark, "lineitem", PathSource("parquet", (data,)), Origin("bench", "SOURCE"))
    table = profile(spark, profiled).events[-1]
    return {"spark_plans": table["spark_plans"], "why": table["plans"],
            "candidate_keys": table["candidate_keys"]}  # fmt: skip


def deequ_passes(spark: Any, data: str) -> dict[str, Any]:
    """Deequ's three profiling passes, as its analyzers compute them."""
    from pyspark.sql.connect import functions as F

    df = spark.read.parquet(data)
    types = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    strings = [c for c, t in types.items() if t == "string"]
    first = [F.count(F.lit(1)).alias("size")]
    for c in types:
        first += [F.count(F.col(c)).alias(f"{c}__n"), F.approx_count_distinct(c).alias(f"{c}__d")]
    for c in strings:
        value = F.col(c)
        first += [F.count_if(value.rlike(p)).alias(f"{c}__{k}")
                  for k, p in (("f", FRACTIONAL), ("i", INTEGRAL), ("b", BOOLEAN))]  # fmt: skip
        length = F.length(F.coalesce(value, F.lit("")))  # NullBehavior.EmptyString
        first += [F.min(length).alias(f"{c}__minlen"), F.max(length).alias(f"{c}__maxlen")]
    one = df.agg(*first).collect()[0]
    numeric = [c for c, t in types.items() if t in NUMBERS or t.startswith("decimal")]
    second = []
    for c in numeric:
        x = F.col(c).cast("long" if types[c] in NUMBERS[:4] else "double")
        second += [F.min(x), F.max(x), F.max(x) - F.min(x),
                   F.call_function("percentile", x.cast("double"), F.lit(0.25)),
                   F.call_function("percentile", x.cast("double"), F.lit(0.75)),
                   F.avg(x), F.stddev_pop(x), F.var_pop(x), F.skewness(x), F.kurtosis(x),
                   F.sum(x), F.count_if(x == 0)]  # fmt: skip
    df.agg(*second).collect()
    low = [c for c, t in types.items() if (t in NUMBERS or t in ("string", "boolean"))
           and one[f"{c}__d"] <= CARDINALITY]  # fmt: skip
    pairs = F.explode(F.array(*(F.struct(F.lit(c).alias("column"),
                                         F.col(c).cast("string").alias("value")) for c in low)))
    counts = df.select(pairs.alias("p")).groupBy("p.column", "p.value").count().collect()
    return {"spark_plans": 3, "histogram_columns": low, "histogram_values": len(counts)}


def hundred_rules(ctx: Context) -> dict[str, Any]:
    outcome = assay_api(ctx)
    return {"spark_plans": outcome.extra["spark_plans"], "failed": outcome.failed}


def bench(name: str, call: Any, spark: Any, ui: SparkUI | None, meter: CpuMeter,
          args: argparse.Namespace) -> dict[str, Any]:  # fmt: skip
    runs: list[dict[str, Any]] = []
    for i in range(args.warmup + args.repeat):
        record, value = measured(call, spark, args.timeout, ui, meter)
        if value is not None:
            record.update(value)
        log(f"{name} {'warm-up' if i < args.warmup else 'run'}: {record.get('seconds')} s, "
            f"{record.get('sql_executions')} SQL executions {record.get('error', '')}")
        if i >= args.warmup:
            runs.append(record)
    seconds = [r["seconds"] for r in runs if "seconds" in r]
    return {"case": name, "median_seconds": statistics.median(seconds) if seconds else None,
            "runs": runs}  # fmt: skip


def table(rows: list[dict[str, Any]]) -> str:
    by = {r["case"]: r["median_seconds"] for r in rows}
    lines = ["| case | median s | SQL executions | vs assay_100_rules | vs assay_profile |",
             "|---|---:|---:|---:|---:|"]  # fmt: skip
    for r in rows:
        s = r["median_seconds"]
        plans = sorted({x.get("sql_executions") for x in r["runs"]} - {None})
        ratio = [f"{s / by[k]:.2f}x" if s and by.get(k) else "" for k in
                 ("assay_100_rules", "assay_profile")]  # fmt: skip
        lines.append(f"| {r['case']} | {s if s is None else f'{s:.2f}'} | "
                     f"{', '.join(map(str, plans))} | {ratio[0]} | {ratio[1]} |")
    return "\n".join(lines)


def targets(rows: list[dict[str, Any]]) -> str:
    """The issue's bars: the profile within 1.5x of the 100-rule run, in at most 2 plans
    (the SQL executions the Spark UI counted)."""
    by = {r["case"]: r for r in rows}
    if "assay_profile" not in by or "assay_100_rules" not in by:
        return ""
    profile, rules = by["assay_profile"], by["assay_100_rules"]
    plans = max((r.get("sql_executions") or 0 for r in profile["runs"]), default=0)
    ratio = (profile["median_seconds"] or 0) / (rules["median_seconds"] or 1)
    said = {True: "met", False: "NOT met"}
    return (f"\nprofile / 100 rules: {ratio:.2f}x (target <= 1.5x: {said[ratio <= 1.5]}); "
            f"profile plans: {plans} (target <= 2: {said[plans <= 2]})")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="TPC-H scale factor (default 1)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=1800.0)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--cases", default="assay_100_rules,assay_profile,deequ_3_passes",
                    help="which cases to run, comma-separated (default: all three)")
    args = ap.parse_args(argv)
    args.out = args.out or RESULTS_DIR / f"profile-sf{args.scale:g}.json"
    args.wait_idle, args.retry_noisy, args.conf = 0.0, 0, []
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from assay.executor.session import open_session, quiet_pyspark_logging

    quiet_pyspark_logging()
    data = ensure_data(args.scale)
    document: dict[str, Any] = {"benchmark": "profile",
                                "environment": environment(args.scale, data, args)}  # fmt: skip
    handle = open_session(server_conf=SERVER_CONF)
    try:
        spark = handle.spark
        ui = SparkUI(handle.ui_url) if handle.ui_url else None
        meter = CpuMeter(getattr(handle, "pid", None))
        suite = suites_mod.write_suite(args.out.parent / "suites", str(data), 100)
        ctx = Context(spark, str(data), suites_mod.suite(100), suite, None, args.timeout)
        cases = {
            "assay_100_rules": lambda: hundred_rules(ctx),
            "assay_profile": lambda: assay_profile(spark, str(data)),
            "deequ_3_passes": lambda: deequ_passes(spark, str(data)),
        }
        wanted = args.cases.split(",")
        rows = [bench(name, call, spark, ui, meter, args) for name, call in cases.items()
                if name in wanted]  # fmt: skip
    finally:
        handle.close()
    document["results"] = rows
    write_json(args.out, document)
    print(table(rows))
    print(targets(rows))
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

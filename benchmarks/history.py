"""What watching over time costs: the one history read of a run against a metrics store of
100,000 rows, for both backends, side by side in one run on one embedded server.

    python benchmarks/history.py                       # 100,000 stored rows, median of 5
    python benchmarks/history.py --rows 1000000 --repeat 3

The store holds ``--rows`` rows: ``--runs`` earlier runs of a table whose rules are the
benchmark's rules and ``--others`` rules no run of it reads (the rest of a shared store).
Timed (median of ``--repeat``, after one warm-up):

- ``read``: the history read alone (what ``assay run`` does once, before any table):
  one pass over the file, or one Spark plan over the table store;
- ``run``: ``assay.validate`` of the 10 rules judged over time on a small frame, with the
  store (read, judge, append) and without (``plain``); ``added`` is the difference.

The table store's read is one Spark plan (tests/integration/test_monitoring.py counts it).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

RULES: list[dict[str, Any]] = [
    {"type": "row_count", "name": f"rows {k}", "anomaly": {"strategy": "online_normal"}}
    for k in range(5)
] + [
    {"type": "not_null", "column": "id", "name": f"ids {k}",
     "change": {"vs": "avg of last 7", "must_be": "< 50%"}}
    for k in range(5)
]  # fmt: skip


def stored_rows(runs: int, others: int, start: dt.datetime) -> list[dict[str, Any]]:
    """The store's rows: per run, a row per benchmark rule and per other rule."""
    names = [r["name"] for r in RULES] + [f"other {k}" for k in range(others)]
    rows = []
    for run in range(runs):
        at = start + dt.timedelta(days=run)
        for name in names:
            measure = "failed_count" if name.startswith("ids") else "metric_value"
            value = float(1000 + run % 7)
            rows.append({"run_time": at, "table": "bench", "rule": name, "rule_type": "x",
                         "columns": "", "measure": measure, "value": value, "severity": "pass",
                         "server": None, "tags": {}, "run_id": f"r{run:06d}"})  # fmt: skip
    return rows


def median_seconds(action, repeat: int) -> float:
    action()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--others", type=int, default=90, help="rules of the store no run reads")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    import assay
    from assay.api.suites import rules_suite
    from assay.executor.metrics import append, read_history
    from assay.ir.monitoring import MetricsStore, Monitoring
    from assay.monitoring.series import wanted

    per_run = len(RULES) + args.others
    runs = max(args.rows // per_run, 1)
    start = dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc)
    rows = stored_rows(runs, args.others, start)
    now = start + dt.timedelta(days=runs + 1)
    spark = assay.session()
    results: dict[str, Any] = {"rows": len(rows), "runs": runs, "rules_read": len(RULES)}
    with tempfile.TemporaryDirectory() as tmp:
        file_store = MetricsStore("file", str(Path(tmp) / "metrics.jsonl"))
        table_store = MetricsStore("table", "assay_bench_metrics")
        spark.sql("DROP TABLE IF EXISTS assay_bench_metrics").collect()
        append(None, file_store, rows)
        for chunk in range(0, len(rows), 20_000):
            append(spark, table_store, rows[chunk : chunk + 20_000])
        tables = rules_suite(RULES, name="bench").tables
        for name, store in (("file", file_store), ("table", table_store)):
            want = wanted(tables, Monitoring(store), "now", now)
            found = read_history(spark if name == "table" else None, store, want)
            assert sum(len(p) for p in found.values()) == 5 * min(runs, 100) + 5 * min(runs, 7)
            results[f"read {name}"] = median_seconds(
                lambda s=store, w=want: read_history(spark if s.kind == "table" else None, s, w),
                args.repeat,
            )
        frame = spark.range(1000)
        plain = median_seconds(lambda: assay.validate(frame, RULES, name="bench"), args.repeat)
        results["run plain"] = plain
        for name, keyword in (("file", {"metrics": file_store.location}),
                              ("table", {"metrics_table": table_store.location})):  # fmt: skip
            results[f"run {name}"] = median_seconds(
                lambda k=keyword: assay.validate(frame, RULES, name="bench", **k), args.repeat
            )
    print(json.dumps(results, indent=2))
    said = f"{len(rows):,} rows ({runs} runs), {len(RULES)} rules read"
    print(f"\nstore of {said}, median of {args.repeat}")
    print(f"{'':24}{'file':>10}{'table':>10}")
    print(f"{'history read':24}{results['read file']:>9.3f}s{results['read table']:>9.3f}s")
    print(f"{'run, with the store':24}{results['run file']:>9.3f}s{results['run table']:>9.3f}s")
    print(f"{'run, no store':24}{plain:>9.3f}s{plain:>9.3f}s")
    print(f"{'added by the store':24}{results['run file'] - plain:>9.3f}s"
          f"{results['run table'] - plain:>9.3f}s")  # fmt: skip


if __name__ == "__main__":
    main()

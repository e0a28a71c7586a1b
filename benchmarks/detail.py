"""Samples and SQL rules at scale: what the detail plan and the SQL plan cost next to
the table's aggregate plan, on one embedded server, side by side in one run.

    python benchmarks/detail.py                 # 2,000,000 rows, 40 heavy rules, 200 SQL rules
    python benchmarks/detail.py --rows 200000   # smaller

Cases (each: one warm-up, then the median of ``--repeat`` runs, seconds):

- ``aggregate``: 40 range rules, each failing on 5-45% of the rows, samples off
  (``sample_size: 0``): the aggregate plan alone.
- ``samples, keyed``: the same rules with samples (5 per rule) and ``keys: [id]``: the
  aggregate plan, then the detail plan (every heavy rule under a bound of ``id``).
- ``samples, no keys``: the same without keys (each heavy rule a branch of its own).
- ``sql x200``: 200 SQL rules that do not fold (``SELECT max(c) < N FROM _validation_df``)
  on the same table, one union plan.

Printed: the seconds of each case and the ratio of the detail plan (samples minus
aggregate) to the aggregate; the target is at most 2x.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

RULES = 40


def make_table(spark, rows: int, path: Path) -> None:
    columns = ", ".join(f"CAST(pmod(xxhash64(id, {k}), 1000) AS INT) AS c{k}" for k in range(RULES))
    spark.sql(f"SELECT id, {columns} FROM range({rows})").write.mode("overwrite").parquet(str(path))


def rules(sql: int = 0) -> list[dict]:
    if sql:
        return [
            {"type": "sql", "query": f"SELECT max(c{k % RULES}) < {k} FROM _validation_df"}
            for k in range(sql)
        ]
    # rule k fails where c_k >= 950 - 10k: 5% .. 44% of the rows, every one over 50,000 at 2M
    return [{"type": "range", "column": f"c{k}", "max": 949 - 10 * k} for k in range(RULES)]


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sql-rules", type=int, default=200, help="0: no SQL case")
    args = parser.parse_args()

    import assay
    from assay.executor.session import open_session, quiet_pyspark_logging

    quiet_pyspark_logging()
    handle = open_session()
    spark = handle.spark
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "wide.parquet"
            make_table(spark, args.rows, path)
            df = spark.read.parquet(str(path))
            cases = {
                "aggregate": lambda: assay.validate(df, rules(), keys=["id"], sample_size=0),
                "samples, keyed": lambda: assay.validate(df, rules(), keys=["id"]),
                "samples, no keys": lambda: assay.validate(df, rules()),
            }
            if args.sql_rules:
                sql = rules(args.sql_rules)
                cases[f"sql x{args.sql_rules}"] = lambda: assay.validate(df, sql)
            check = cases["samples, keyed"]()
            heavy = [r.failed_count for r in check.results]
            assert all(len(r.samples or ()) == 5 for r in check.results), "samples missing"
            print(
                f"{args.rows:,} rows, {RULES} rules failing on {min(heavy):,}..{max(heavy):,} rows"
            )
            medians = {}
            for name, case in cases.items():
                case()  # warm-up
                runs = [timed(case) for _ in range(args.repeat)]
                medians[name] = statistics.median(runs)
                shown = " / ".join(f"{r:.2f}" for r in runs)
                print(f"{name:<20} {medians[name]:8.2f} s   ({shown})", flush=True)
            base = medians["aggregate"]
            for name in ("samples, keyed", "samples, no keys"):
                detail = medians[name] - base
                ratio = detail / base
                print(f"detail plan, {name[9:]:<8} {detail:8.2f} s = {ratio:.2f}x the aggregate")
    finally:
        handle.close()


if __name__ == "__main__":
    main()

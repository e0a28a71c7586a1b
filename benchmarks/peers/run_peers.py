"""Run peer data-quality libraries on the benchmark's rules, over Spark Connect.

Started by ``benchmarks/run.py --peers`` with the Python of ``benchmarks/.venv-peers``
(see ``benchmarks/requirements-peers.txt``); connects to ``$SPARK_REMOTE`` (the same
server as the rest of the benchmark). Each adapter translates the rules the peer can
express with its own rule types and records the rest as not expressible; each run is
timed like the other strategies (warm-up, then the median of ``--repeat``) and its
failing rules are compared with the rules expected to fail.

Peers that cannot run on Spark Connect without network access are recorded with the
reason (``UNAVAILABLE``), never silently dropped.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import suites as suites_mod  # noqa: E402
from sparkui import SparkUI  # noqa: E402

Adapter = Callable[[Any, Any, list[suites_mod.Case]], tuple[list[int], list[int]]]
"""(spark, df, cases) -> (expressed rule indexes, failed rule indexes) after one run."""


# --- cuallee ---------------------------------------------------------------------------------


def cuallee_plan(cases: list[suites_mod.Case]) -> tuple[list[int], dict[int, str]]:
    """Which rules cuallee can express, and why the others cannot be."""
    expressed, missing = [], {}
    for i, c in enumerate(cases):
        t = c.type
        if t in ("not_null", "range", "accepted_values", "regex", "length", "unique"):
            expressed.append(i)
        elif t in ("avg", "sum", "min", "max", "distinct_count"):
            missing[i] = "has_mean/has_sum/has_min/has_max/has_cardinality test equality, not bounds"
        elif t == "missing_count":
            missing[i] = "no count-of-nulls bound (is_complete takes a pass-rate)"
        elif t == "missing_percent":
            missing[i] = "no percentage-of-nulls bound"
        elif t == "row_count":
            missing[i] = "no row-count bound"
        elif t == "sql":
            missing[i] = "no SQL-query rule"
        else:
            missing[i] = f"no equivalent of {t}"
    return expressed, missing


def run_cuallee(spark: Any, df: Any, cases: list[suites_mod.Case]) -> tuple[list[int], list[int]]:
    from cuallee import Check, CheckLevel

    check = Check(CheckLevel.ERROR, "assay-benchmark")
    expressed, _ = cuallee_plan(cases)
    for i in expressed:
        y = cases[i].yaml
        t = y["type"]
        if t == "not_null":
            if "column" in y:
                check.is_complete(y["column"])
            else:
                check.are_complete(list(y["columns"]))
        elif t == "range":
            low, high = y.get("min"), y.get("max")
            low, high = (_iso(low), _iso(high))
            if low is not None and high is not None:
                check.is_between(y["column"], (low, high))
            elif low is not None:
                check.is_greater_or_equal_than(y["column"], low)
            else:
                check.is_less_or_equal_than(y["column"], high)
        elif t == "accepted_values":
            check.is_contained_in(y["column"], tuple(y["values"]))
        elif t == "regex":
            check.has_pattern(y["column"], y["pattern"])
        elif t == "length":
            col = y["column"]
            check.satisfies(col, f"length({col}) BETWEEN {y.get('min', 0)} AND {y.get('max', 2**31 - 1)}")
        elif t == "unique":
            cols = y.get("columns") or [y["column"]]
            if len(cols) == 1:
                check.is_unique(cols[0])
            else:
                check.are_unique(tuple(cols))
    if len(check.rules) != len(expressed):
        raise RuntimeError(f"cuallee kept {len(check.rules)} of {len(expressed)} rules (duplicates?)")
    rows = check.validate(df).select("id", "status").collect()
    status = {int(r["id"]): r["status"] for r in rows}
    failed = [expressed[k - 1] for k, s in sorted(status.items()) if s != "PASS"]
    return expressed, failed


def _iso(value: Any) -> Any:
    return value.isoformat() if isinstance(value, dt.date) else value


# --- sparkdq ---------------------------------------------------------------------------------


def sparkdq_plan(cases: list[suites_mod.Case]) -> tuple[list[int], dict[int, str]]:
    expressed, missing = [], {}
    for i, c in enumerate(cases):
        t = c.type
        y = c.yaml
        if t in ("not_null", "accepted_values", "regex", "unique", "row_count"):
            expressed.append(i)
        elif t == "range":
            expressed.append(i)
        elif t == "length":
            if y.get("min", 1) >= 1:
                expressed.append(i)
            else:
                missing[i] = "string-length checks need a minimum length > 0"
        elif t in ("avg", "sum", "min", "max", "distinct_count", "missing_count", "missing_percent"):
            missing[i] = "no aggregate-metric bound for this statistic"
        elif t == "sql":
            missing[i] = "no SQL-query rule"
        else:
            missing[i] = f"no equivalent of {t}"
    return expressed, missing


def run_sparkdq(spark: Any, df: Any, cases: list[suites_mod.Case]) -> tuple[list[int], list[int]]:
    from pyspark.sql import functions as F
    from sparkdq.engine import BatchDQEngine
    from sparkdq.management import CheckSet

    expressed, _ = sparkdq_plan(cases)
    configs = []
    for i in expressed:
        y = cases[i].yaml
        t = y["type"]
        cid = f"r{i}"
        if t == "not_null":
            configs.append({"check": "null-check", "check-id": cid,
                            "columns": [y["column"]] if "column" in y else list(y["columns"])})
        elif t == "range":
            low, high = y.get("min"), y.get("max")
            if isinstance(low, dt.date) or isinstance(high, dt.date):
                configs.append({"check": "date-between-check", "check-id": cid, "columns": [y["column"]],
                                "min-value": _iso(low), "max-value": _iso(high),
                                "inclusive": [True, True]})
            elif high is None:
                configs.append({"check": "numeric-min-check", "check-id": cid, "columns": [y["column"]],
                                "min-value": low, "inclusive": True})
            else:
                configs.append({"check": "numeric-between-check", "check-id": cid,
                                "columns": [y["column"]], "min-value": low, "max-value": high,
                                "inclusive": [True, True]})
        elif t == "accepted_values":
            configs.append({"check": "is-contained-in-check", "check-id": cid,
                            "allowed-values": {y["column"]: list(y["values"])}})
        elif t == "regex":
            configs.append({"check": "regex-match-check", "check-id": cid, "column": y["column"],
                            "pattern": y["pattern"], "treat-null-as-failure": True})
        elif t == "length":
            configs.append({"check": "string-length-between-check", "check-id": cid,
                            "column": y["column"], "min-length": y.get("min", 1),
                            "max-length": y.get("max", 2**31 - 1)})
        elif t == "unique":
            configs.append({"check": "unique-rows-check", "check-id": cid,
                            "subset-columns": y.get("columns") or [y["column"]]})
        elif t == "row_count":
            configs.append({"check": "row-count-between-check", "check-id": cid,
                            "min-count": y.get("min", 0), "max-count": y.get("max", 2**62)})
    checks = CheckSet()
    checks.add_checks_from_dicts(configs)
    result = BatchDQEngine(checks).run_batch(df)
    # sparkdq annotates rows (one boolean column per row check) and evaluates aggregate
    # checks eagerly; per-rule verdicts need one more aggregate over the annotated rows.
    row_ids = [c["check-id"] for c in configs if c["check-id"] in result.df.columns]
    failed_ids: set[str] = set()
    if row_ids:
        counts = result.df.agg(*(F.count_if(F.col(k)).alias(k) for k in row_ids)).first().asDict()
        failed_ids |= {k for k, v in counts.items() if v}
    failed_ids |= {a.check_id for a in result.aggregate_results if not a.passed}
    failed = sorted(int(k[1:]) for k in failed_ids)
    return expressed, failed


# --- peers that were not run -------------------------------------------------------------------

UNAVAILABLE = {
    "great-expectations": (
        "no adapter yet (not attempted within the peers time box); issue 5 reports a run on "
        "the planning machine: 48.3 s, 120 SQL executions at 100 rules"),
    "soda-core-spark-df": (
        "no adapter yet (not attempted within the peers time box); issue 5 reports a "
        "metrics-only run: 33.5 s, 34 SQL executions at 100 rules"),
    "databricks-labs-dqx": (
        "no adapter yet (not attempted within the peers time box); issue 5 reports 90.8 s, "
        "1 SQL execution but 244 schema round trips at 100 rules"),
}

PEERS: dict[str, tuple[Adapter, Callable[[list[suites_mod.Case]], tuple[list[int], dict[int, str]]]]] = {
    "cuallee": (run_cuallee, cuallee_plan),
    "sparkdq": (run_sparkdq, sparkdq_plan),
}


def version_of(package: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--rules", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--ui-url", default=None)
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(os.environ["SPARK_REMOTE"]).getOrCreate()
    ui = SparkUI(args.ui_url) if args.ui_url else None
    cases = suites_mod.suite(args.rules)
    expected = sorted(i for i, c in enumerate(cases) if c.expect_fail)
    results: list[dict[str, Any]] = []
    for name in [p for p in args.peers.split(",") if p]:
        adapter, plan = PEERS[name]
        expressed, missing = plan(cases)
        row: dict[str, Any] = {"peer": name, "version": version_of(name),
                               "expressed": len(expressed), "not_expressed": {
                                   str(i): why for i, why in missing.items()}}
        times, execs, server = [], [], []
        try:
            for k in range(args.warmup + args.repeat):
                df = spark.read.parquet(args.data)
                mark = ui.mark() if ui else None
                start = time.perf_counter()
                _, failed = adapter(spark, df, cases)
                seconds = time.perf_counter() - start
                ex = ui.since(mark) if ui and mark is not None else None
                sys.stderr.write(f"[peers] {name} run {k + 1}: {seconds:.2f} s, "
                                 f"{ex.count if ex else '?'} SQL executions\n")
                if k >= args.warmup:
                    times.append(seconds)
                    execs.append(ex.count if ex else None)
                    server.append(ex.server_seconds if ex else None)
            row.update(seconds=round(statistics.median(times), 3), runs=[round(t, 3) for t in times],
                       sql_executions=execs[-1], server_seconds=server[-1], failed_rules=failed,
                       verdicts_match_expected=failed == [i for i in expected if i in expressed])
        except Exception as exc:  # noqa: BLE001 - a peer that fails is recorded
            row.update(error=f"{type(exc).__name__}: {' '.join(str(exc).split())[:500]}",
                       traceback=traceback.format_exc()[-2000:])
            sys.stderr.write(f"[peers] {name} failed: {row['error']}\n")
        results.append(row)
    for name, why in UNAVAILABLE.items():
        results.append({"peer": name, "version": version_of(name), "error": why})
    Path(args.out).write_text(json.dumps({"rules": args.rules, "expected_failures": expected,
                                          "results": results}, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What an incremental table costs (docs/incremental.md): TPC-H lineitem in one partition
per ship month (hive layout, ~84 partitions at any scale), the 100-rule suite, three runs
side by side on one server:

    python benchmarks/incremental.py                   # SF1, median of 3
    python benchmarks/incremental.py --scale 0.01 --repeat 1 --warmup 0   # smoke

- ``full``: the suite without ``incremental`` over every partition (the full scan);
- ``first``: the first incremental run (an empty store: every partition scanned, the
  states built), over every partition but the one held out;
- ``one new``: the held-out partition added, an incremental run from the states the first
  run stored (the store restored before each repeat): one partition scanned, merged;
- ``nothing new``: one more run, nothing changed (the fingerprints alone).

Each is timed (``assay.run``, median of ``--repeat`` after ``--warmup`` unmeasured runs
of the same kind, so that each kind's plans are compiled before it is measured) with the
Spark UI's count of SQL executions and the bytes the run's stages read (``inputBytes`` of
the stages of its executions' jobs, from the UI's REST API), the client's requests by
kind (analyses and executions, counted as they pass), and the ratios to the full scan
printed. The partition held out is the newest month holding at
least the median month's rows (the last months of lineitem are its tail, a few rows).

The suite is benchmarks/suites.py's 100 rules with the 6 an incremental table refuses
written as the rules that measure the same (both sides run these 100): the ``sql``
invariants ``count(*) = 0 ... WHERE c`` as ``expression: coalesce(NOT (c), true)``,
``count(DISTINCT l_returnflag) <= n`` as a ``distinct_count`` (sketched: ``exact: false``),
``max(l_linenumber) <= n`` as a ``max``; ``unique(l_orderkey, l_linenumber)`` with the
partition column in its key. Every result of ``one new`` is checked against the full
scan's (``agree``; a sketched distinct count within its bounds).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run as bench  # noqa: E402
import suites as suites_mod  # noqa: E402
from sparkui import SparkUI  # noqa: E402

BY = "ship_month"
_COUNT_WHERE = re.compile(r"SELECT count\(\*\) = 0 FROM _validation_df WHERE (.+)$", re.S)
_DISTINCT = re.compile(r"SELECT count\(DISTINCT (\w+)\) <= (\d+) FROM _validation_df$")
_MAX = re.compile(r"SELECT max\((\w+)\) <= (\d+) FROM _validation_df$")


def mergeable(rule: dict[str, Any]) -> dict[str, Any]:
    """The rule as an incremental table takes it (the same measure): see the docstring."""
    if rule["type"] == "unique":
        columns = rule.get("columns") or [rule["column"]]
        return {"type": "unique", "columns": [*columns, BY]}
    if rule["type"] != "sql":
        return dict(rule)
    query, name = rule["query"], rule["name"]
    if found := _COUNT_WHERE.match(query):
        return {"type": "expression", "name": name,
                "expression": f"coalesce(NOT ({found[1]}), true)"}  # fmt: skip
    if found := _DISTINCT.match(query):
        return {"type": "distinct_count", "name": name, "column": found[1],
                "must_be": f"<= {found[2]}"}  # fmt: skip
    if found := _MAX.match(query):
        return {"type": "max", "name": name, "column": found[1], "must_be": f"<= {found[2]}"}
    raise ValueError(f"no mergeable form of the sql rule {query!r}")


def write_configs(directory: Path, data: Path, rules: int) -> dict[str, Path]:
    """The suite's two configs over ``data``: ``full`` and ``inc`` (incremental by month),
    each with a metrics store of its own."""
    written = [mergeable(dict(c.yaml)) for c in suites_mod.suite(rules)]
    out = {}
    for name in ("full", "inc"):
        table: dict[str, Any] = {"name": suites_mod.TABLE,
                                 "source": {"path": str(data), "format": "parquet"}}  # fmt: skip
        if name == "inc":
            table["incremental"] = {"by": BY}
        table["rules"] = written
        document = {"version": 1, "metrics": {"path": str(directory / f"{name}.jsonl")},
                    "tables": [table]}  # fmt: skip
        out[name] = directory / f"{name}.yaml"
        out[name].write_text(suites_mod.dump(document), encoding="utf-8")
    return out


def ensure_partitioned(spark: Any, scale: float) -> Path:
    """``benchmarks/data/sf<scale>/lineitem_by_month/``: lineitem by ship month (hive
    layout, one file per month), written once from ``ensure_data``'s file."""
    source = bench.ensure_data(scale).resolve()
    target = source.parent / "lineitem_by_month"
    for aside in source.parent.glob(f".{BY}=*.held"):  # a run stopped with it held out
        os.replace(aside, target / aside.name[1:].removesuffix(".held"))
    if (target / "_SUCCESS").is_file():
        return target
    from pyspark.sql.connect import functions as F

    bench.log(f"writing {target} (lineitem by {BY}) ...")
    frame = spark.read.parquet(str(source))
    frame = frame.withColumn(BY, F.date_format(F.col("l_shipdate"), "yyyy-MM"))
    frame.repartition(BY).write.mode("overwrite").partitionBy(BY).parquet(str(target))
    return target


def held_out(spark: Any, data: Path) -> tuple[str, int, int]:
    """The partition the benchmark adds: the newest month holding at least the median
    month's rows; its rows and the table's."""
    rows = {r[0]: int(r[1]) for r in
            spark.read.parquet(str(data)).groupBy(BY).count().collect()}  # fmt: skip
    middle = statistics.median(rows.values())
    month = max(m for m, n in rows.items() if n >= middle)
    return month, rows[month], sum(rows.values())


class Bytes:
    """The bytes a run's stages read, from the Spark UI's REST API: the jobs of the SQL
    executions after a mark, their stages' ``inputBytes`` (every attempt)."""

    def __init__(self, ui: SparkUI) -> None:
        self.ui = ui

    def _get(self, path: str) -> Any:
        url = f"{self.ui.base}/api/v1/applications/{self.ui.app_id}{path}"
        with urllib.request.urlopen(url, timeout=self.ui.timeout) as response:
            return json.load(response)

    def since(self, mark: int) -> int:
        executions = [e for e in self.ui.executions() if int(e["id"]) > mark]
        jobs = {int(j) for e in executions for key in ("successJobIds", "failedJobIds",
                                                       "runningJobIds") for j in e.get(key, [])}
        stages = {int(s) for job in self._get("/jobs") if int(job["jobId"]) in jobs
                  for s in job.get("stageIds", [])}  # fmt: skip
        return sum(int(s.get("inputBytes") or 0) for s in self._get("/stages")
                   if int(s["stageId"]) in stages)  # fmt: skip


class Requests:
    """The client's analysis and execution requests (by kind), counted as they pass: how
    many round trips a run makes before and around its plans."""

    def __init__(self) -> None:
        from collections import Counter

        from pyspark.sql.connect.client import core

        self.seen: Counter[str] = Counter()
        analyze = core.SparkConnectClient._analyze
        execute = core.SparkConnectClient._execute_and_fetch_as_iterator
        seen = self.seen

        def counted_analyze(client: Any, method: str, **kwargs: Any) -> Any:
            seen[f"analyze:{method}"] += 1
            return analyze(client, method, **kwargs)

        def counted_execute(client: Any, *args: Any, **kwargs: Any) -> Any:
            seen["execute"] += 1
            return execute(client, *args, **kwargs)

        core.SparkConnectClient._analyze = counted_analyze  # type: ignore[method-assign]
        core.SparkConnectClient._execute_and_fetch_as_iterator = counted_execute  # type: ignore[method-assign]


REQUESTS: Requests | None = None


def timed_run(spark: Any, config: Path, ui: SparkUI | None, **options: Any) -> dict[str, Any]:
    """One ``assay.run``: seconds, SQL executions and bytes read, the client's requests
    by kind, its table line and results."""
    import assay

    global REQUESTS
    REQUESTS = REQUESTS or Requests()
    REQUESTS.seen.clear()
    mark = ui.mark() if ui else -1
    start = time.perf_counter()
    result = assay.run(str(config), spark=spark, **options)
    seconds = time.perf_counter() - start
    said: dict[str, Any] = {"seconds": round(seconds, 3), "requests": dict(REQUESTS.seen)}
    if ui is not None:
        executions = ui.since(mark)
        said["sql_executions"] = executions.count
        said["server_seconds"] = executions.server_seconds  # the executions' own durations
        said["bytes_read"] = Bytes(ui).since(mark)
    events = [e.to_dict() for e in result.events]
    (table,) = [t.to_dict() for t in result.tables]
    said["table"] = {k: table.get(k) for k in ("spark_plans", "row_count", "error", "incremental")}
    said["results"] = [e for e in events if e["event"] == "result"]
    return said


def agree(mine: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> list[str]:
    """The rules whose incremental result differs from the full scan's (a sketched
    distinct count: the full scan's count outside its bounds)."""
    differ = []
    for a, b in zip(mine, theirs, strict=True):
        x, y = a.get("metric_value"), b.get("metric_value")
        if a.get("exact") is False:
            bounds = a.get("estimate") or {}
            same = bounds.get("lower", -math.inf) <= (y or 0) <= bounds.get("upper", math.inf)
        elif isinstance(x, float) or isinstance(y, float):
            same = x is not None and y is not None and math.isclose(x, y, rel_tol=1e-9)
        else:
            same = x == y
        if not same or (a["severity"], a.get("failed_count")) != (
            b["severity"], b.get("failed_count")
        ):  # fmt: skip
            differ.append(f"rules[{a['rule_index']}] {a['rule']['type']}: {x!r} vs {y!r}")
    return differ


def median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    def mid(key: str) -> Any:
        values = [r[key] for r in runs if r.get(key) is not None]
        return statistics.median(values) if values else None

    return {"seconds": mid("seconds"), "bytes_read": mid("bytes_read"),
            "sql_executions": mid("sql_executions"), "server_seconds": mid("server_seconds"),
            "runs": [r["seconds"] for r in runs],
            "requests": runs[-1].get("requests") if runs else None,
            "scanned": len(((runs[-1]["table"].get("incremental") or {}).get("scanned")) or [])
            if runs else None}  # fmt: skip


def measure(spark: Any, data: Path, month: str, configs: dict[str, Path], ui: SparkUI | None,
            args: argparse.Namespace) -> dict[str, Any]:  # fmt: skip
    """The four runs (see the module's docstring), the held-out month moved out of the
    table for the first incremental runs and back after."""
    part, aside = data / f"{BY}={month}", data.parent / f".{BY}={month}.held"
    inc_store, base = Path(str(configs["inc"]).replace(".yaml", ".jsonl")), configs["inc"].parent
    found: dict[str, list[dict[str, Any]]] = {"full": [], "first": [], "one new": []}
    # every kind of run gets the same unmeasured warm-up (its plans compiled once, as the
    # full scan's are by its warm-up): a kind measured cold in its first round only would
    # carry that compile in its median's neighbourhood and the others not
    os.replace(part, aside)
    try:
        for i in range(args.warmup + args.repeat):
            inc_store.unlink(missing_ok=True)
            said = timed_run(spark, configs["inc"], ui)
            if i >= args.warmup:
                found["first"].append(said)
        shutil.copyfile(inc_store, base / "states.jsonl")
    finally:
        os.replace(aside, part)
    for i in range(args.warmup + args.repeat):
        said = timed_run(spark, configs["full"], ui)
        if i >= args.warmup:
            found["full"].append(said)
    for i in range(args.warmup + args.repeat):
        shutil.copyfile(base / "states.jsonl", inc_store)
        said = timed_run(spark, configs["inc"], ui)
        if i >= args.warmup:
            found["one new"].append(said)
    nothing = timed_run(spark, configs["inc"], ui)
    last = found["one new"][-1]
    return {
        "runs": {name: median_of(runs) for name, runs in found.items()}
        | {"nothing new": median_of([nothing])},
        "scanned_one_new": last["table"]["incremental"]["scanned"],
        "differ": agree(last["results"], found["full"][-1]["results"]),
        "errors": [r["table"]["error"] for runs in found.values() for r in runs
                   if r["table"]["error"]],  # fmt: skip
    }


def format_table(document: dict[str, Any]) -> str:
    runs = document["runs"]
    full = runs["full"]
    lines = [f"{'run':<14}{'seconds':>10}{'x full':>8}{'bytes read':>16}{'x full':>8}"
             f"{'SQL exec':>10}{'in SQL s':>10}{'scanned':>9}"]  # fmt: skip
    for name in ("full", "first", "one new", "nothing new"):
        row = runs[name]
        ratio = row["seconds"] / full["seconds"] if full["seconds"] else math.nan
        b = row["bytes_read"]
        b_ratio = b / full["bytes_read"] if b is not None and full["bytes_read"] else math.nan
        scanned = "all" if name == "full" else str(row["scanned"])
        lines.append(f"{name:<14}{row['seconds']:>10.2f}{ratio:>8.3f}"
                     f"{b if b is not None else '-':>16}{b_ratio:>8.3f}"
                     f"{row['sql_executions'] if row['sql_executions'] is not None else '-':>10}"
                     f"{row['server_seconds'] if row['server_seconds'] is not None else '-':>10}"
                     f"{scanned:>9}")  # fmt: skip
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="TPC-H scale factor (default 1)")
    ap.add_argument("--rules", type=int, default=100, help="the suite's size (default 100)")
    ap.add_argument("--repeat", type=int, default=3, help="measured runs of each (median)")
    ap.add_argument("--warmup", type=int, default=1, help="unmeasured runs of each kind first")
    ap.add_argument("--out", type=Path, default=bench.RESULTS_DIR / "incremental.json")
    ap.add_argument("--work", type=Path, default=None,
                    help="where the configs and stores are written (default: a temp dir)")
    ap.add_argument("--remote", default=None, help="an existing sc:// server")
    ap.add_argument("--ui-url", default=None, help="Spark UI of --remote")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    import tempfile

    args = parse_args(argv)
    from assay.executor.session import open_session, quiet_pyspark_logging

    quiet_pyspark_logging()
    handle = open_session(args.remote, server_conf=None if args.remote else bench.SERVER_CONF)
    document: dict[str, Any] = {"benchmark": "incremental", "version": 1, "scale": args.scale,
                                "rules": args.rules, "repeat": args.repeat}  # fmt: skip
    try:
        spark = handle.spark
        ui_url = args.ui_url or handle.ui_url
        ui = SparkUI(ui_url, timeout=60.0) if ui_url else None
        data = ensure_partitioned(spark, args.scale)
        month, rows, total = held_out(spark, data)
        partitions = sum(1 for p in data.iterdir() if p.name.startswith(f"{BY}="))
        document.update(spark=spark.version, data=str(data), partitions=partitions,
                        held_out={"partition": month, "rows": rows, "table_rows": total})
        bench.log(f"{partitions} partitions, {total} rows; adding {month} ({rows} rows)")
        with tempfile.TemporaryDirectory(prefix="assay-incremental-") as tmp:
            work = args.work or Path(tmp)
            work.mkdir(parents=True, exist_ok=True)
            configs = write_configs(work, data, args.rules)
            document.update(measure(spark, data, month, configs, ui, args))
    finally:
        handle.close()
    bench.write_json(args.out, document)
    print(format_table(document))
    said = document["held_out"]
    print(f"\n{document['partitions']} partitions by {BY}, {said['table_rows']} rows; the new"
          f" partition {said['partition']}: {said['rows']} rows; median of {args.repeat}")
    for name, row in document["runs"].items():
        print(f"{name}: requests {row.get('requests')}")
    print(f"results differing from the full scan's: {document['differ'] or 'none'}")
    print(f"wrote {args.out}")
    return 1 if document["differ"] or document["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())

"""The benchmark's extras: planner compile time, client peak RSS, time to the first JSON
line, explain dumps and the peer libraries. Each returns plain data for the JSON file."""

from __future__ import annotations

import contextlib

import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import suites as suites_mod
from sparkui import SparkUI
from strategies import Context, assay_command, cli_env

HERE = Path(__file__).resolve().parent


# --- planner compile time (no Spark) -------------------------------------------------------


def compile_times(counts: list[int], repeat: int = 5) -> dict[str, Any]:
    """Per rule count: ``load_suite`` of the YAML, ``plan_table`` of its table,
    ``render_plan`` (``assay explain``) and building the aggregate's Spark columns."""
    from assay.config import load_suite
    from assay.planner import plan_table
    from assay.planner.render import render_plan

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="assay-bench-") as tmp:
        for n in counts:
            path = Path(tmp) / f"suite_{n}.yaml"
            path.write_text(suites_mod.dump(suites_mod.config("/nonexistent/lineitem.parquet",
                                                              suites_mod.suite(n))))
            load = [_time(lambda: load_suite([path])) for _ in range(3)]
            table = load_suite([path]).tables[0]
            plans = [_time(lambda: plan_table(table)) for _ in range(repeat)]
            plan = plan_table(table)
            render = [_time(lambda: render_plan(plan)) for _ in range(3)]
            columns = [_time(lambda: _emit_columns(plan)) for _ in range(3)]
            aggregate = plan.aggregate
            out[str(n)] = {
                "rules": len(table.rules),
                "plan_seconds": _median(plans),
                "plan_seconds_first": round(plans[0], 4),
                "load_suite_seconds": _median(load),
                "render_seconds": _median(render),
                "emit_columns_seconds": _median(columns),
                "scan_outputs": sum(len(s.slots) for s in aggregate.scans) if aggregate else 0,
                "group_bys": len(aggregate.groups) if aggregate else 0,
                "sql_queries": len(plan.sql.queries) if plan.sql else 0,
            }
    return out


def _emit_columns(plan: Any) -> int:
    """Build the aggregate's Spark Connect columns (client-side only, no session)."""
    from assay.emit import spark as emit

    if plan.aggregate is None:
        return 0
    return sum(len(emit.measure_columns(s.name, s.measure)) for scan in plan.aggregate.scans
               for s in scan.slots)


def _time(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 4)


def format_compile(data: dict[str, Any]) -> str:
    lines = ["rules   plan_table   load_suite   render   emit columns   scan outputs  group-bys  sql"]
    for n, d in data.items():
        lines.append(f"{n:>5}  {d['plan_seconds']:>9.4f} s  {d['load_suite_seconds']:>9.3f} s"
                     f"  {d['render_seconds']:>6.3f} s  {d['emit_columns_seconds']:>10.3f} s"
                     f"  {d['scan_outputs']:>12}  {d['group_bys']:>9}  {d['sql_queries']:>3}")
    return "\n".join(lines)


# --- explain dumps ----------------------------------------------------------------------------


def explain(ctx: Context, directory: Path) -> dict[str, Any]:
    """``explain('formatted')`` and ``explain('codegen')`` of assay's aggregate plan and of the
    hand-written aggregate, written to ``directory``; returns a short summary of each."""
    from assay.config import load_suite
    from assay.emit import spark as emit
    from assay.planner import plan_table

    directory.mkdir(parents=True, exist_ok=True)
    plan = plan_table(load_suite([ctx.yaml_path]).tables[0])
    df = ctx.frame()
    frames = {}
    if plan.aggregate is not None:
        frames["assay_aggregate"] = emit.aggregate_frame(df, plan.aggregate)
    aggregated = [(i, c) for i, c in enumerate(ctx.cases) if c.agg is not None]
    frames["handwritten"] = df.agg(*(c.agg().alias(f"r{i}") for i, c in aggregated))
    n = len(ctx.cases)
    summary: dict[str, Any] = {}
    for name, frame in frames.items():
        try:
            formatted = frame._explain_string("formatted")  # noqa: SLF001 - returns the text
            codegen = _codegen_without_aqe(ctx.spark, frame)
        except Exception as exc:  # noqa: BLE001
            summary[name] = {"error": str(exc)[:300]}
            continue
        (directory / f"suite_{n}_{name}.formatted.txt").write_text(formatted)
        (directory / f"suite_{n}_{name}.codegen.txt").write_text(codegen)
        tree = formatted.split("\n\n", 1)[0]
        found = re.search(r"Found (\d+) WholeStageCodegen subtrees", codegen)
        summary[name] = {
            "parquet_scans": len(re.findall(r"Scan parquet", tree)),
            "whole_stage_subtrees": int(found.group(1)) if found else None,
            "codegen_chars": len(codegen),
            # bytecode size of the largest generated method per subtree (the JVM does not
            # JIT-compile methods over 8,000 bytes unless told to)
            "max_method_code_size": [int(x) for x in re.findall(r"maxMethodCodeSize:(\d+)", codegen)],
            "files": str(directory / f"suite_{n}_{name}.*.txt"),
        }
    return summary


def _codegen_without_aqe(spark: Any, frame: Any) -> str:
    """``explain('codegen')`` with adaptive execution off for the call (with it on, the
    plan is not final before it runs and no generated code is shown)."""
    key = "spark.sql.adaptive.enabled"
    before = spark.conf.get(key)
    spark.conf.set(key, "false")
    try:
        return frame._explain_string("codegen")  # noqa: SLF001
    finally:
        spark.conf.set(key, before)


# --- time to the first JSON line (10 tables, CLI) ----------------------------------------------


def first_line(ctx: Context, data: Path, ui: SparkUI | None, tables: int = 10,
               rules: int = 10) -> dict[str, Any]:
    """``assay run`` over a config of ``tables`` tables (the ``rules``-rule suite over a
    tenth of lineitem each): when each stdout line arrives, relative to the spawn."""
    if not ctx.connect_url:
        raise RuntimeError("no connection URL for the CLI")
    cases = suites_mod.suite(rules)
    doc = {"version": 1, "tables": [
        suites_mod.table(str(data), cases, name=f"lineitem_{k}", filter_=f"l_orderkey % {tables} = {k}")
        for k in range(tables)]}
    path = ctx.yaml_path / f"first_line_{tables}_tables.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(suites_mod.dump(doc))
    startup = _time(lambda: subprocess.run([sys.executable, "-m", "assay", "--version"],
                                           capture_output=True, check=False))
    mark = ui.mark() if ui else None
    start = time.perf_counter()
    proc = subprocess.Popen(assay_command([path]), env=cli_env(ctx.connect_url),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    arrivals: list[tuple[float, dict[str, Any]]] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.strip():
            arrivals.append((time.perf_counter() - start, json.loads(line)))
    code = proc.wait()
    total = time.perf_counter() - start
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    tables_at = [round(t, 2) for t, e in arrivals if e.get("event") == "table"]
    out: dict[str, Any] = {
        "config": str(path),
        "tables": tables,
        "rules_per_table": rules,
        "exit_code": code,
        "cli_startup_seconds": round(startup, 2),
        "first_line_seconds": round(arrivals[0][0], 2) if arrivals else None,
        "table_lines_seconds": tables_at,
        "summary_seconds": round(arrivals[-1][0], 2) if arrivals else None,
        "total_seconds": round(total, 2),
        "lines": len(arrivals),
    }
    if code not in (0, 1):
        out["error"] = stderr.strip().splitlines()[-3:]
    if ui is not None and mark is not None:
        out["sql_executions"] = ui.since(mark).count
    return out


def format_first_line(d: dict[str, Any]) -> str:
    if "first_line_seconds" not in d:
        return f"first line: {d.get('error')}"
    return (f"first JSON line of a {d['tables']}-table config via the CLI: "
            f"{d['first_line_seconds']} s (CLI start-up alone {d['cli_startup_seconds']} s); "
            f"table lines at {d['table_lines_seconds']}; all done {d['total_seconds']} s; "
            f"{d.get('sql_executions')} SQL executions")


# --- client peak RSS -----------------------------------------------------------------------------


def rss(ctx: Context, args: Any, ensure_data: Any) -> dict[str, Any]:
    """Peak RSS of a separate ``assay`` client process (``ru_maxrss`` of that process only)
    running the ``--rss-rules`` suite at each of ``--rss-scales``, against our server."""
    if not ctx.connect_url:
        raise RuntimeError("no connection URL for the client process")
    out: dict[str, Any] = {"rules": args.rss_rules, "scales": {}}
    for scale in [float(s) for s in args.rss_scales.split(",")]:
        data = ensure_data(scale)
        directory = ctx.yaml_path / f"rss_sf{scale:g}"
        yaml_path = suites_mod.write_suite(directory, str(data), args.rss_rules)
        done = subprocess.run(
            [sys.executable, str(HERE / "run.py"), "--rss-child", str(yaml_path)],
            env=cli_env(ctx.connect_url), capture_output=True, timeout=args.timeout * 2,
            check=False,
        )
        lines = [ln for ln in done.stdout.decode().splitlines() if ln.startswith("{")]
        if done.returncode != 0 or not lines:
            out["scales"][f"{scale:g}"] = {
                "error": done.stderr.decode(errors="replace").strip().splitlines()[-3:]}
            continue
        out["scales"][f"{scale:g}"] = json.loads(lines[-1])
    values = [v.get("peak_rss_mb") for v in out["scales"].values() if "peak_rss_mb" in v]
    if len(values) >= 2 and values[0]:
        out["growth"] = round(values[-1] / values[0] - 1, 3)
    return out


def rss_child(yaml_path: str) -> int:
    """In the child: connect to $SPARK_REMOTE, run the suite, print peak RSS as JSON."""
    from assay.config import load_suite
    from assay.executor.run import run_suite
    from assay.executor.session import open_session, quiet_pyspark_logging

    quiet_pyspark_logging()
    events = [0]
    start = time.perf_counter()
    with open_session(os.environ.get("SPARK_REMOTE")) as handle:
        connected = _maxrss_mb()
        summary = run_suite(load_suite([yaml_path]), handle.spark,
                            lambda e: events.__setitem__(0, events[0] + 1))
    print(json.dumps({
        "peak_rss_mb": _maxrss_mb(),
        "rss_after_connect_mb": connected,
        "seconds": round(time.perf_counter() - start, 2),
        "spark_plans": summary.spark_plans,
        "events": events[0],
        "failed": summary.failed,
    }))
    return 0


def _maxrss_mb() -> float:
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return round(kb / 1024, 1)


def format_rss(d: dict[str, Any]) -> str:
    if "scales" not in d:
        return f"client RSS: {d.get('error')}"
    parts = [f"SF{s}: {v.get('peak_rss_mb', v.get('error'))} MB peak "
             f"({v.get('seconds')} s, {v.get('spark_plans')} plans)" for s, v in d["scales"].items()]
    growth = f"; growth {d['growth'] * 100:.1f}%" if "growth" in d else ""
    return f"client peak RSS, {d['rules']} rules: " + "; ".join(parts) + growth


# --- peers -----------------------------------------------------------------------------------------


def peers(ctx: Context, args: Any, data: Path, ui: SparkUI | None) -> dict[str, Any]:
    """Run ``benchmarks/peers/run_peers.py`` with the peers' Python against our server."""
    python = args.peers_python or str(HERE / ".venv-peers" / "bin" / "python")
    if not Path(python).exists():
        return {"error": f"no Python with the peers at {python}; see benchmarks/README.md "
                         "(python -m venv --system-site-packages benchmarks/.venv-peers && "
                         "benchmarks/.venv-peers/bin/pip install -r benchmarks/requirements-peers.txt)"}
    if not ctx.connect_url:
        raise RuntimeError("no connection URL for the peers")
    out_path = ctx.yaml_path / "peers_latest.json"
    cmd = [python, str(HERE / "peers" / "run_peers.py"), "--data", str(data),
           "--rules", str(args.peers_suite), "--repeat", str(args.repeat), "--out", str(out_path)]
    if args.ui_url or (ui is not None):
        cmd += ["--ui-url", ui.base if ui else args.ui_url]
    done = subprocess.run(cmd, env=cli_env(ctx.connect_url), capture_output=True,
                          timeout=args.timeout * 6, check=False)
    sys.stderr.write(done.stderr.decode(errors="replace")[-4000:])
    if not out_path.is_file():
        return {"error": f"peers runner exited {done.returncode}",
                "stderr": done.stderr.decode(errors="replace").strip().splitlines()[-5:]}
    return json.loads(out_path.read_text())


def format_peers(d: dict[str, Any]) -> str:
    if "results" not in d:
        return f"peers: {d.get('error')}"
    lines = [f"peers on the {d.get('rules')}-rule suite:"]
    for r in d["results"]:
        if r.get("seconds") is not None:
            lines.append(f"  {r['peer']:<24} {r['seconds']:>8.2f} s  {r.get('sql_executions')} SQL "
                         f"executions, {r.get('expressed')}/{d.get('rules')} rules expressed")
        else:
            lines.append(f"  {r['peer']:<24} could not run: {r.get('error')}")
    return "\n".join(lines)


# --- where assay's time goes ---------------------------------------------------------------------


def breakdown(ctx: Context, ui: SparkUI | None, repeat: int = 2) -> dict[str, Any]:
    """Time the parts of assay's work for one suite separately (median of ``repeat`` after
    one warm-up each): the scan aggregate, it without regex rules and with only them, it
    with whole-stage codegen off, each group-by, the SQL plan and the detail plan.

    Uses planner/emit internals of the measured assay version; a part that does not fit
    that version is recorded as an error.
    """
    import dataclasses

    from assay.config import load_suite
    from assay.emit import detail as emit_detail
    from assay.emit import spark as emit
    from assay.planner import plan_detail, plan_table

    table = load_suite([ctx.yaml_path]).tables[0]
    df = ctx.frame()
    try:  # planned as the executor plans it: from the server's view of the source
        from assay.emit.statistics import scan_facts

        facts = scan_facts(df)
        plan = plan_table(table, size_bytes=facts.size_bytes, columnar=facts.columnar)
    except (ImportError, AttributeError, TypeError):  # an older assay
        plan = plan_table(table)
    parts: dict[str, Callable[[], Any]] = {}
    agg = plan.aggregate
    if agg is not None:
        for k, scan in enumerate(agg.scans):
            parts[f"scan_aggregate[{k}] ({len(scan.slots)} outputs)"] = (
                lambda s=scan: emit.scan_frame(df, s).collect())
            regex = tuple(s for s in scan.slots if "Matches(" in repr(s.measure))
            rest = tuple(s for s in scan.slots if s not in regex)
            if regex:
                parts[f"scan_aggregate[{k}] regex rules only ({len(regex)})"] = (
                    lambda s=dataclasses.replace(scan, slots=regex): emit.scan_frame(df, s).collect())
                parts[f"scan_aggregate[{k}] without regex rules ({len(rest)})"] = (
                    lambda s=dataclasses.replace(scan, slots=rest): emit.scan_frame(df, s).collect())
            parts[f"scan_aggregate[{k}] with spark.sql.codegen.wholeStage=false"] = (
                lambda s=scan: _with_conf(ctx.spark, "spark.sql.codegen.wholeStage", "false",
                                          lambda: emit.scan_frame(df, s).collect()))
        for g in agg.groups:
            parts[f"group_by({', '.join(g.columns)})"] = (
                lambda g=g: emit.group_frame(df, g).collect())
        for v in getattr(agg, "values", ()):
            columns = ", ".join(getattr(v, "columns", None) or (v.column,))  # older: one column
            parts[f"by value of ({columns}) ({len(v.slots)} outputs)"] = (
                lambda v=v: emit.value_frame(df, v).collect())
        parts["whole aggregate plan (as assay submits it)"] = (
            lambda: emit.aggregate_frame(df, agg).collect())
    if plan.sql is not None:
        text = emit.sql_text(plan.sql, ctx.source_sql)
        parts[f"sql plan ({len(plan.sql.queries)} queries)"] = lambda: ctx.spark.sql(text).collect()
    failing = {i for i, c in enumerate(ctx.cases) if c.expect_fail and table.rules[i].is_row_level}
    detail = plan_detail(plan, failing, table.keys) if failing else None
    if detail is not None:
        parts[f"detail plan ({len(detail.entries)} failing row-level rules; one shared scan, "
              "without the executor's cost shaping)"] = (
            lambda: emit_detail.detail_frame(df, detail).collect())
    out: dict[str, Any] = {}
    try:  # as the executor runs it: Spark's MergeSubplans kept from re-merging the branches
        from assay.executor.run import optimizer_rule_excluded
        from assay.planner.cost import MERGE_SUBPLANS_RULE

        apart = optimizer_rule_excluded(
            ctx.spark, MERGE_SUBPLANS_RULE, agg is not None and len(agg.scans) > 1
        )
    except ImportError:  # an older assay
        apart = contextlib.nullcontext()
    with apart:
        for name, fn in parts.items():
            try:
                fn()  # warm-up
                times = [_time(fn) for _ in range(repeat)]
                out[name] = round(statistics.median(times), 2)
            except Exception as exc:  # noqa: BLE001
                out[name] = f"error: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
    return out


def _with_conf(spark: Any, key: str, value: str, fn: Callable[[], Any]) -> Any:
    before = spark.conf.get(key)
    spark.conf.set(key, value)
    try:
        return fn()
    finally:
        spark.conf.set(key, before)


def format_breakdown(data: dict[str, Any]) -> str:
    lines = []
    for suite, parts in data.items():
        lines.append(f"where assay's time goes, {suite} rules (seconds, each part alone):")
        for name, value in parts.items():
            lines.append(f"  {value!s:>8}  {name}")
    return "\n".join(lines)

"""The assay benchmark: the same rule suites run every way, side by side, on one server.

    python benchmarks/run.py                      # SF1, suites 10,50,100,300, median of 3
    python benchmarks/run.py --quick              # tiny data, CI smoke run (< 2 minutes)
    python benchmarks/run.py --compile-only       # planner compile time, no Spark
    python benchmarks/run.py --suites 100 --rss --first-line --peers

Strategies (see benchmarks/README.md): floor, handwritten, naive, assay_api, assay_cli.
For every suite x strategy: one warm-up run, then ``--repeat`` measured runs; the median
seconds, ratios to the floor and to assay (API), and the SQL executions the server ran
(read from the Spark UI REST API) go to a printed table and a JSON file.

A strategy that fails is recorded as an error; the run goes on.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import suites as suites_mod  # noqa: E402
from cpu import CpuMeter  # noqa: E402
from sparkui import SparkUI  # noqa: E402
from strategies import DEFAULT_STRATEGIES, DESCRIPTIONS, STRATEGIES, Context, timed  # noqa: E402

DATA_DIR = HERE / "data"
RESULTS_DIR = HERE / "results"
QUICK_SCALE = 0.01
SERVER_CONF = {
    # the UI keeps 1,000 executions by default; naive runs submit more than that
    "spark.ui.retainedExecutions": "100000",
    "spark.sql.ui.retainedExecutions": "100000",
}


def log(message: str) -> None:
    stamp = time.strftime("%H:%M:%S")
    sys.stderr.write(f"[bench {stamp}] {message}\n")
    sys.stderr.flush()


# --- data ---------------------------------------------------------------------------------


def _start_warm_client() -> int | None:
    """A warm client (docs/deployment.md) for ``assay_cli_warm``, from this Python and
    these files; the pid of the one started, None when one was running already (used as
    it is, and left running)."""
    from assay.warm.client import client_pid, start_client, supported

    if not supported():
        raise SystemExit("assay_cli_warm: the warm client needs Unix sockets and fork")
    if client_pid() is not None:
        log("assay_cli_warm: using the warm client already running")
        return None
    pid = start_client()
    log(f"warm client up (pid {pid}) for assay_cli_warm")
    return pid


def scale_name(scale: float) -> str:
    return f"sf{scale:g}"


def tpchgen() -> list[str]:
    """The tpchgen-cli executable (PyPI ``tpchgen-cli``), next to this Python or on PATH."""
    here = Path(sys.executable).parent / "tpchgen-cli"
    found = str(here) if here.is_file() else shutil.which("tpchgen-cli")
    if not found:
        raise SystemExit("tpchgen-cli is not installed: pip install tpchgen-cli")
    return [found]


def ensure_data(scale: float) -> Path:
    """``benchmarks/data/sf<scale>/lineitem.parquet``, generated once (one parquet file)."""
    target = DATA_DIR / scale_name(scale) / "lineitem.parquet"
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    log(f"generating TPC-H lineitem at scale {scale:g} with tpchgen-cli ...")
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".gen-") as tmp:
        cmd = [*tpchgen(), "parquet", "-s", f"{scale:g}", "--tables", "lineitem",
               "--output-dir", tmp, "--quiet"]
        start = time.perf_counter()
        subprocess.run(cmd, check=True)
        os.replace(Path(tmp) / "lineitem.parquet", target)
    log(f"generated {target} ({target.stat().st_size / 1e6:.0f} MB) in "
        f"{time.perf_counter() - start:.0f} s")
    return target


def parquet_rows(path: Path) -> int | None:
    try:
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(path).metadata.num_rows)
    except Exception:  # noqa: BLE001 - informative only
        return None


# --- the session --------------------------------------------------------------------------


def connect_url(handle: Any) -> tuple[str | None, str]:
    """The unredacted ``sc://`` URL of the handle's server, and where it came from.

    ``SparkHandle.url`` is redacted; until the handle exposes the real URL, rebuild it
    from the Connect client (endpoint + token).
    """
    for attr in ("connect_url", "unredacted_url", "raw_url"):
        value = getattr(handle, attr, None)
        if value:
            return str(value), f"handle.{attr}"
    try:
        client = handle.spark.client
        endpoint = client._builder.endpoint  # noqa: SLF001 - no public accessor
        token = client._builder.token  # noqa: SLF001
        url = f"sc://{endpoint}/" + (f";token={token}" if token else "")
        return url, "rebuilt from spark.client (SparkHandle has no unredacted URL attribute)"
    except Exception as exc:  # noqa: BLE001
        return None, f"unavailable: {exc}"


class Interrupter:
    """Interrupt every query of the session after ``seconds`` (a stuck strategy)."""

    def __init__(self, spark: Any, seconds: float) -> None:
        self.timer = threading.Timer(seconds, self._fire, args=(spark,))
        self.timer.daemon = True
        self.fired = False

    def _fire(self, spark: Any) -> None:
        self.fired = True
        try:
            spark.interruptAll()
        except Exception:  # noqa: BLE001
            pass

    def __enter__(self) -> Interrupter:
        self.timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.timer.cancel()


# --- measuring ----------------------------------------------------------------------------


METER = CpuMeter(None)
WAIT_IDLE = 0.0
RETRY_NOISY = 0
NOISY_CORES = 0.5  # other processes' average cores above which a run counts as noisy


def measured(call: Any, spark: Any, timeout: float, ui: SparkUI | None, meter: CpuMeter,
             wait_idle: float = 0.0) -> tuple[dict[str, Any], Any]:
    """One timed call and what it returned: ``seconds``, the CPU other processes used
    meanwhile (``other_cores``) and the SQL executions the server ran; or the ``error``
    (a call stuck past ``timeout`` is interrupted)."""
    record: dict[str, Any] = {}
    if wait_idle > 0:
        waited = meter.wait_idle(wait_idle)
        if waited:
            record["waited_for_idle_seconds"] = waited
    mark = ui.mark() if ui else None
    value = None
    try:
        with Interrupter(spark, timeout) as stopper:
            before = meter.snapshot()
            seconds, value = timed(call)
            record["other_cores"] = meter.other_cores(before, meter.snapshot())
        record["seconds"] = round(seconds, 3)
    except Exception as exc:  # noqa: BLE001 - recorded, the benchmark goes on
        message = " ".join(str(exc).split())[:600]
        if "stopper" in locals() and stopper.fired:
            message = f"interrupted after {timeout:g} s: {message}"
        record.update(error=f"{type(exc).__name__}: {message}",
                      traceback=traceback.format_exc(limit=8)[-2500:])
    if ui is not None and mark is not None:
        try:
            ex = ui.since(mark)
            record.update(sql_executions=ex.count, sql_root_executions=ex.roots,
                          server_seconds=ex.server_seconds, failed_executions=ex.failed)
        except Exception as exc:  # noqa: BLE001
            record.update(sql_executions=None, ui_error=str(exc)[:300])
    return record, value


def measure_once(name: str, ctx: Context, ui: SparkUI | None) -> dict[str, Any]:
    """One run of one strategy: seconds, SQL executions, outcome (or the error)."""
    record, outcome = measured(lambda: STRATEGIES[name](ctx), ctx.spark, ctx.timeout, ui, METER,
                               WAIT_IDLE)
    if outcome is not None:
        record.update(failed=outcome.failed, **outcome.extra)
    return record


def bench_suite(n: int, ctx: Context, ui: SparkUI | None, strategies: list[str], repeat: int,
                warmup: int) -> list[dict[str, Any]]:
    """Warm-up, then ``repeat`` rounds; each round runs every strategy once (interleaved,
    so drift on a shared machine spreads over all strategies)."""
    runs: dict[str, list[dict[str, Any]]] = {s: [] for s in strategies}
    broken: dict[str, dict[str, Any]] = {}
    codegen: dict[str, Any] = {}
    for w in range(warmup):
        for s in strategies:
            if s in broken:
                continue
            log(f"suite {n}: warm-up {w + 1} {s}")
            rec = measure_once(s, ctx, ui)
            if "error" in rec:
                log(f"suite {n}: {s} failed in warm-up: {rec['error'][:200]}")
                broken[s] = rec
            if ui is not None:  # diagnostics: biggest generated method so far (bytes)
                sizes = ui.codegen_metrics().get("generatedMethodSize") or {}
                codegen[s] = sizes.get("max")
    for r in range(repeat):
        for s in strategies:
            if s in broken:
                continue
            rec = measure_once(s, ctx, ui)
            for attempt in range(RETRY_NOISY):
                if "error" in rec or (rec.get("other_cores") or 0) < NOISY_CORES:
                    break
                log(f"suite {n}: {s} shared the CPU with other processes "
                    f"({rec['other_cores']} cores, {rec['seconds']:.2f} s); measuring again")
                again = measure_once(s, ctx, ui)
                again["noisy_retries"] = attempt + 1
                if "error" in again or (again.get("other_cores") or 0) <= rec["other_cores"]:
                    rec = again
            runs[s].append(rec)
            shown = f"{rec['seconds']:.2f} s" if "seconds" in rec else f"ERROR {rec['error'][:160]}"
            log(f"suite {n}: run {r + 1}/{repeat} {s}: {shown}, "
                f"{rec.get('sql_executions')} SQL executions, "
                f"other processes {rec.get('other_cores')} cores")
            if "error" in rec:
                broken[s] = rec
    expected = [i for i, c in enumerate(ctx.cases) if c.expect_fail]
    rows = [_summarise(n, s, runs[s], broken.get(s)) for s in strategies]
    for row in rows:
        if row.get("failed_rules") is not None:
            row["verdicts_match_expected"] = row["failed_rules"] == expected
        if codegen.get(row["strategy"]) is not None:
            row["codegen_method_max_bytes_seen"] = codegen[row["strategy"]]
    return rows


def _summarise(n: int, strategy: str, runs: list[dict[str, Any]], error: dict[str, Any] | None,
               ) -> dict[str, Any]:
    ok = [r for r in runs if "seconds" in r]
    row: dict[str, Any] = {"suite": n, "strategy": strategy}
    if error is not None and not ok:
        row.update(error=error["error"], traceback=error.get("traceback"),
                   sql_executions=error.get("sql_executions"))
        return row
    seconds = [r["seconds"] for r in ok]
    execs = [r.get("sql_executions") for r in ok]
    row.update(
        seconds=round(statistics.median(seconds), 3),
        runs=seconds,
        sql_executions=execs[-1],
        sql_executions_runs=execs,
        sql_root_executions=ok[-1].get("sql_root_executions"),
        server_seconds=round(statistics.median(r.get("server_seconds") or 0 for r in ok), 3),
        failed_rules=ok[-1].get("failed"),
        other_cores_runs=[r.get("other_cores") for r in ok],
    )
    for key in ("spark_plans", "exit_code", "rule_errors", "first_error"):
        if key in ok[-1]:
            row[key] = ok[-1][key]
    if error is not None:
        row["error"] = error["error"]
    return row


def add_ratios(rows: list[dict[str, Any]]) -> None:
    """``ratio_floor`` and ``ratio_assay`` (to assay through the API), per suite; and
    whether each strategy's failing rules match the hand-written aggregate's."""
    by_suite: dict[int, dict[str, dict[str, Any]]] = {}
    for row in rows:
        by_suite.setdefault(row["suite"], {})[row["strategy"]] = row
    for table in by_suite.values():
        floor = table.get("floor", {}).get("seconds")
        assay = table.get("assay_api", {}).get("seconds")
        reference = table.get("handwritten", {}).get("failed_rules")
        for row in table.values():
            sec = row.get("seconds")
            row["ratio_floor"] = round(sec / floor, 2) if sec and floor else None
            row["ratio_assay"] = round(sec / assay, 2) if sec and assay else None
            failed = row.get("failed_rules")
            if failed is not None and reference is not None and row["strategy"] != "handwritten":
                row["verdicts_match_handwritten"] = failed == reference


# --- output -------------------------------------------------------------------------------


def format_table(rows: list[dict[str, Any]]) -> str:
    head = ("rules", "strategy", "seconds", "x floor", "x assay", "SQL execs", "server s",
            "other cores", "note")
    lines = [head]
    for r in rows:
        note = ""
        if r.get("error"):
            note = "ERROR " + r["error"][:70]
        elif r.get("verdicts_match_handwritten") is False:
            note = "verdicts differ from handwritten"
        elif r.get("verdicts_match_expected") is False:
            note = "failing rules differ from the expected ones"
        elif "spark_plans" in r:
            note = f"assay counted {r['spark_plans']} plans"
        lines.append((
            str(r["suite"]), r["strategy"],
            f"{r['seconds']:.2f}" if r.get("seconds") is not None else "-",
            f"{r['ratio_floor']:.2f}" if r.get("ratio_floor") else "-",
            f"{r['ratio_assay']:.2f}" if r.get("ratio_assay") else "-",
            str(r.get("sql_executions", "-")),
            f"{r['server_seconds']:.2f}" if r.get("server_seconds") is not None else "-",
            _max_text(r.get("other_cores_runs")),
            note,
        ))
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    out = []
    for k, line in enumerate(lines):
        out.append("  ".join(cell.ljust(widths[i]) if i in (1, 8) else cell.rjust(widths[i])
                             for i, cell in enumerate(line)).rstrip())
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def _max_text(values: list[float | None] | None) -> str:
    known = [v for v in values or [] if v is not None]
    return f"{max(known):.2f}" if known else "-"


def write_json(path: Path, document: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(document, indent=2, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def environment(scale: float, data: Path | None, args: argparse.Namespace) -> dict[str, Any]:
    import pyspark

    return {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "scale": scale,
        "data": str(data) if data else None,
        "rows": parquet_rows(data) if data else None,
        "file_mb": round(data.stat().st_size / 1e6, 1) if data else None,
        "pyspark": pyspark.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "repeat": args.repeat,
        "warmup": args.warmup,
        "wait_idle": args.wait_idle,
        "retry_noisy": args.retry_noisy,
        "loadavg_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "server_conf": {**SERVER_CONF, **dict(args.conf)},
        "shared_sessions": bool(getattr(args, "shared_sessions", False)),
    }


# --- main ---------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=None, help="TPC-H scale factor (default 1)")
    ap.add_argument("--suites", default=None, help="rule counts, comma-separated (default 10,50,100,300)")
    ap.add_argument("--repeat", type=int, default=3, help="measured runs per strategy (median)")
    ap.add_argument("--warmup", type=int, default=1,
                    help="unmeasured runs per strategy first, after two warm-up scans (0: "
                         "neither)")
    ap.add_argument("--strategies", default=",".join(DEFAULT_STRATEGIES),
                    help=f"subset of {','.join(STRATEGIES)} (default: all but assay_cli_warm, "
                         "which starts a warm client for its runs and stops it after)")
    ap.add_argument("--quick", action="store_true",
                    help=f"tiny data (scale {QUICK_SCALE}) and suites 10,50 unless given; for CI")
    ap.add_argument("--out", type=Path, default=RESULTS_DIR / "latest.json")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per strategy run")
    ap.add_argument("--wait-idle", type=float, default=0.0, metavar="SECONDS",
                    help="before each run, wait up to SECONDS until other processes use "
                         "< 0.3 cores (for shared machines; default off)")
    ap.add_argument("--retry-noisy", type=int, default=0, metavar="N",
                    help="measure a run again (up to N times) when other processes used "
                         f">= {0.5} cores during it; the quietest run is kept")
    ap.add_argument("--conf", action="append", default=[], type=_assignment,
                    help="extra Spark conf KEY=VALUE for the embedded server (repeatable)")
    ap.add_argument("--remote", default=None,
                    help="use this sc:// server instead of an embedded one (no SQL counts "
                         "unless --ui-url is given)")
    ap.add_argument("--ui-url", default=None, help="Spark UI of --remote")
    ap.add_argument("--shared-sessions", action="store_true",
                    help="the embedded server's Connect sessions share generated code, as "
                         "the warm server's do: each assay_cli run is a new session, which "
                         "otherwise compiles its plans' classes anew (README, Start-up)")
    ap.add_argument("--compile-only", action="store_true",
                    help="only the planner compile time for 1,000 and 10,000 rules (no Spark)")
    ap.add_argument("--compile-rules", default="1000,10000")
    ap.add_argument("--rss", action="store_true",
                    help="client peak RSS of an assay run at SF1 and SF10 (generates SF10)")
    ap.add_argument("--rss-scales", default="1,10")
    ap.add_argument("--rss-rules", type=int, default=10)
    ap.add_argument("--first-line", action="store_true",
                    help="time to the first JSON line of a 10-table config through the CLI")
    ap.add_argument("--startup", action="store_true",
                    help="start-up only: cold and warm start, import times (benchmarks/startup.py)")
    ap.add_argument("--baseline-src", default=None, metavar="DIR",
                    help="--startup: an older src/assay to time cold runs against")
    ap.add_argument("--peers", action="store_true",
                    help="also run the peer libraries (benchmarks/requirements-peers.txt)")
    ap.add_argument("--peers-python", default=None,
                    help="Python with the peers installed (default: benchmarks/.venv-peers)")
    ap.add_argument("--peers-suite", type=int, default=100)
    ap.add_argument("--breakdown", action="store_true",
                    help="also time the parts of assay's plan separately (scan aggregate, "
                         "regex rules, group-bys, SQL plan, detail plan)")
    ap.add_argument("--explain", action="store_true",
                    help="write explain('formatted') of assay's and the hand-written plans")
    ap.add_argument("--assay-src", type=Path, default=None, metavar="DIR",
                    help="measure the assay package in DIR (e.g. an older checkout's "
                         "src/assay) instead of the installed one")
    ap.add_argument("--rss-child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.scale is None:
        args.scale = QUICK_SCALE if args.quick else 1.0
    if args.suites is None:
        args.suites = "10,50" if args.quick else ",".join(map(str, suites_mod.SUITE_SIZES))
    args.suite_sizes = [int(x) for x in str(args.suites).split(",") if x.strip()]
    args.strategy_names = [s.strip() for s in args.strategies.split(",") if s.strip()]
    unknown = set(args.strategy_names) - set(STRATEGIES)
    if unknown:
        ap.error(f"unknown strategies: {', '.join(sorted(unknown))}")
    return args


def _assignment(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def snapshot_source(directory: Path | None = None) -> dict[str, Any]:
    """Copy the ``assay`` package to a private directory and import it from there, for this
    process and (via ``PYTHONPATH``) every ``assay`` subprocess: a run measures one version
    of the code even while the working tree changes. Returns where and a fingerprint."""
    import hashlib
    import importlib.util

    if directory is None:
        spec = importlib.util.find_spec("assay")
        if spec is None or not spec.submodule_search_locations:
            return {"error": "assay is not importable"}
        source = Path(list(spec.submodule_search_locations)[0])
    else:
        source = directory.resolve()
        if not (source / "__init__.py").is_file():
            raise SystemExit(f"--assay-src {directory}: not an assay package directory")
    target = Path(tempfile.mkdtemp(prefix="assay-bench-src-")) / "assay"
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    compile_bytecode(target)
    digest = hashlib.sha256()
    for path in sorted(target.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(target)).encode())
            digest.update(path.read_bytes())
    import atexit

    atexit.register(shutil.rmtree, target.parent, ignore_errors=True)
    sys.path.insert(0, str(target.parent))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(target.parent), *filter(None, [os.environ.get("PYTHONPATH")])])
    return {"copied_from": str(source), "snapshot": str(target), "sha256": digest.hexdigest()[:16]}


def compile_bytecode(package: Path) -> None:
    """Compile a snapshot's modules as ``pip install`` does: a process importing them then
    reads bytecode, whatever ``PYTHONDONTWRITEBYTECODE`` says (set in some sandboxes, it
    made every CLI process compile assay's ~130 modules anew: ~0.1 s of each command)."""
    import compileall

    compileall.compile_dir(str(package), quiet=1)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    source = snapshot_source(args.assay_src) if not args.rss_child else None
    import extras

    if args.rss_child:
        return extras.rss_child(args.rss_child)
    document: dict[str, Any] = {"benchmark": "assay", "version": 1, "assay_source": source}
    if args.compile_only:
        document["environment"] = environment(args.scale, None, args)
        document["compile"] = extras.compile_times([int(x) for x in args.compile_rules.split(",")])
        write_json(args.out, document)
        print(extras.format_compile(document["compile"]))
        return 0

    from assay.executor.session import open_session, quiet_pyspark_logging

    quiet_pyspark_logging()
    if args.startup:
        return _startup(args, document)
    data = ensure_data(args.scale)
    document["environment"] = environment(args.scale, data, args)
    document["strategies"] = DESCRIPTIONS
    suite_dir = args.out.parent / "suites"
    rows: list[dict[str, Any]] = []
    document["results"] = rows
    start = time.perf_counter()
    log(f"starting Spark (data: {data}, {document['environment']['rows']} rows)")
    conf = {**SERVER_CONF, **dict(args.conf)}
    if args.shared_sessions and not args.remote:
        from assay.executor.deadline import DEFAULT_CONNECT_TIMEOUT
        from assay.executor.session.embedded import open_embedded

        handle = open_embedded(DEFAULT_CONNECT_TIMEOUT, conf, None, many_sessions=True)
    else:
        handle = open_session(args.remote, server_conf=None if args.remote else conf)
    warm_client = None
    try:
        if "assay_cli_warm" in args.strategy_names:
            warm_client = _start_warm_client()
        spark = handle.spark
        ui_url = args.ui_url or handle.ui_url
        ui = SparkUI(ui_url) if ui_url else None
        url, how = (args.remote, "--remote") if args.remote else connect_url(handle)
        document["environment"].update(spark=spark.version, ui_url=ui_url,
                                       connect_url_source=how,
                                       server_log=getattr(handle, "log_path", None))
        log(f"Spark {spark.version} up; UI {ui_url}; CLI URL {how}")
        global METER, WAIT_IDLE, RETRY_NOISY
        METER = CpuMeter(getattr(handle, "pid", None))
        WAIT_IDLE, RETRY_NOISY = args.wait_idle, args.retry_noisy
        base = Context(spark, str(data), [], suite_dir, url, args.timeout)
        if args.warmup:  # --warmup 0: no warm-up at all (the smoke tests time nothing)
            _global_warmup(base)
        document["suites"] = {}
        for n in args.suite_sizes:
            cases = suites_mod.suite(n)
            yaml_path = suites_mod.write_suite(suite_dir, str(data), n)
            document["suites"][str(n)] = {
                "yaml": str(yaml_path),
                "kinds": suites_mod.describe(cases),
                "expected_failures": [i for i, c in enumerate(cases) if c.expect_fail],
            }
            ctx = Context(spark, str(data), cases, yaml_path, url, args.timeout)
            if args.explain:
                document["suites"][str(n)]["explain"] = extras.explain(ctx, args.out.parent / "explain")
            rows.extend(bench_suite(n, ctx, ui, args.strategy_names, args.repeat, args.warmup))
            if args.breakdown:
                log(f"suite {n}: timing the parts of assay's plan separately")
                document.setdefault("breakdown", {})[str(n)] = _guard(
                    lambda: extras.breakdown(ctx, ui))
            if ui is not None:
                document["codegen_metrics"] = ui.codegen_metrics()
            add_ratios(rows)
            write_json(args.out, document)
        if args.first_line:
            document["first_line"] = _guard(lambda: extras.first_line(base, data, ui))
            write_json(args.out, document)
        if args.peers:
            document["peers"] = _guard(lambda: extras.peers(base, args, data, ui))
            write_json(args.out, document)
        if args.rss:
            document["rss"] = _guard(lambda: extras.rss(base, args, ensure_data))
            write_json(args.out, document)
    finally:
        if warm_client is not None:
            from assay.warm.client import stop_client

            stop_client()
        handle.close()
    document["elapsed_seconds"] = round(time.perf_counter() - start, 1)
    add_ratios(rows)
    write_json(args.out, document)
    print(format_table(rows))
    for key, fmt in (("breakdown", extras.format_breakdown),
                     ("first_line", extras.format_first_line), ("rss", extras.format_rss),
                     ("peers", extras.format_peers)):
        if key in document:
            print()
            print(fmt(document[key]))
    print(f"\nwrote {args.out}")
    return 0


def _startup(args: argparse.Namespace, document: dict[str, Any]) -> int:
    """``--startup``: cold and warm starts and import times, nothing else (startup.py)."""
    import startup

    data = ensure_data(args.scale)
    document["environment"] = environment(args.scale, data, args)
    baseline = _snapshot_baseline(args.baseline_src) if args.baseline_src else None
    document["baseline_src"] = baseline
    document["startup"] = startup.startup(data, baseline and baseline["path"], args.repeat, log)
    write_json(args.out, document)
    print(startup.format_startup(document["startup"]))
    print(f"\nwrote {args.out}")
    return 0


def _snapshot_baseline(directory: str) -> dict[str, Any]:
    """A private copy of the baseline's ``assay`` package (its parent goes first on the
    subprocesses' PYTHONPATH), so it too stays one version during the run."""
    source = Path(directory).resolve()
    if not (source / "__init__.py").is_file():
        raise SystemExit(f"--baseline-src {directory}: not an assay package directory")
    target = Path(tempfile.mkdtemp(prefix="assay-bench-base-")) / "assay"
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    compile_bytecode(target)
    return {"copied_from": str(source), "path": str(target.parent)}


def _global_warmup(ctx: Context) -> None:
    """Two floor scans: the first query of a fresh JVM pays class loading and JIT."""
    for _ in range(2):
        seconds, _ = timed(lambda: STRATEGIES["floor"](ctx))
        log(f"global warm-up scan: {seconds:.2f} s")


def _guard(fn: Any) -> Any:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - an extra that fails is recorded
        log(f"extra failed: {type(exc).__name__}: {exc}")
        return {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-2000:]}


if __name__ == "__main__":
    sys.exit(main())

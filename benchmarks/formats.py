"""Each foreign format's 100-rule suite through assay, beside the format's own engine.

    python benchmarks/formats.py                          # SF1, median of 3, every format
    python benchmarks/formats.py --scale 0.01 --repeat 1 --warmup 0 --no-engine   # smoke

For each format (gx, soda, dqx, odcs) the benchmark's rules (benchmarks/suites.py) are
written as that format's own file (benchmarks/peers/formats_files.py) into
``--files`` (default benchmarks/results/formats/): the suite (its rules built to fail
included) and a passing one (the same rules less those failing on the data). Then, on one
Spark Connect server and interleaved round by round:

- assay runs the file as a user would from Python (``assay.run(FILE, spark=...,
  source=PATH)``): seconds, its Spark plans (the summary), the SQL executions the server
  ran (Spark UI), and the rules that failed;
- the format's own engine runs the same file (GX, Soda, DQX, datacontract-cli, in
  benchmarks/.venv-peers, through benchmarks/peers/run_formats.py, a process started once):
  seconds (timed in that process), SQL executions, failed rules.

Both must find exactly the rules failing on the data (the hand-written aggregate of
run.py, computed once) among those the file holds. The table and ``--out`` (JSON) give
per format: rules expressed, assay s, assay Spark plans (passing / failing suite), SQL
executions, engine s, engine SQL executions, engine / assay.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "peers"))

import run as bench  # noqa: E402
import suites as suites_mod  # noqa: E402
from cpu import CpuMeter, _process_cpu  # noqa: E402
from sparkui import SparkUI  # noqa: E402

FILES_DIR = bench.RESULTS_DIR / "formats"
PEERS_PYTHON = HERE / ".venv-peers" / "bin" / "python"


def log(message: str) -> None:
    sys.stderr.write(f"[formats {time.strftime('%H:%M:%S')}] {message}\n")
    sys.stderr.flush()


# --- the engines, in the peers' Python ---------------------------------------------------------


class Engines:
    """benchmarks/peers/run_formats.py in the peers' Python: one request at a time."""

    def __init__(self, python: str, connect_url: str, timeout: float, log_path: Path) -> None:
        self.log_path = log_path
        with open(log_path, "w", encoding="utf-8") as stderr:  # the child keeps its own copy
            self.proc = subprocess.Popen(
                [python, str(HERE / "peers" / "run_formats.py")], env=_env(connect_url),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, text=True,
                bufsize=1)
        self.timeout = timeout
        self.ready = self._read(600.0)
        if not self.ready.get("ready"):
            raise RuntimeError(f"the engines' process did not start: {self.ready}")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return self._read(self.timeout)

    def _read(self, timeout: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        got: list[str] = []
        reader = threading.Thread(target=lambda: got.append(self.proc.stdout.readline()),  # type: ignore[union-attr]
                                  daemon=True)
        reader.start()
        reader.join(timeout)
        if not got:
            self.close()
            raise RuntimeError(f"no answer from the engines within {timeout:g} s (stopped)")
        if not got[0]:
            raise RuntimeError(f"the engines' process exited ({self.proc.poll()}); see "
                               f"{self.log_path}")
        return json.loads(got[0])

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _env(connect_url: str) -> dict[str, str]:
    env = dict(os.environ, SPARK_REMOTE=connect_url)
    env.pop("SPARK_CONNECT_AUTHENTICATE_TOKEN", None)
    return env


# --- one format -------------------------------------------------------------------------------


class Format:
    """A format's files (failing and passing suites), and assay's reading of its results."""

    def __init__(self, name: str, cases: list[suites_mod.Case], reference: list[int],
                 data: Path, directory: Path) -> None:
        import formats_files as ff

        self.name = name
        self.expressed, self.not_expressed = ff.plan(name, cases)
        n, ext = len(cases), ff.EXTENSIONS[name]
        self.failing = ff.write(name, cases, self.expressed, directory / f"{name}_{n}.{ext}", data)
        passing = [i for i in self.expressed if i not in reference]
        self.passing = ff.write(name, cases, passing, directory / f"{name}_{n}_passing.{ext}", data)
        self.expected = [i for i in reference if i in self.expressed]
        self.engine = ff.ENGINES[name]

    def assay_failed(self, written: Any, result: Any) -> dict[str, Any]:
        """The rules assay found failing, from its results (by position in the file, or
        by datacontract-cli's key in ``details.odcs``)."""
        results = list(result.results)
        errors = [f"{r.rule_type}: {r.message}"[:300] for r in results if r.severity == "error"]
        out: dict[str, Any] = {"spark_plans": result.summary.spark_plans,
                               "exit_code": result.exit_code, "rule_errors": errors}
        if written.keys:
            failed, unmapped = set(), []
            for r in results:
                key = ((r.details or {}).get("odcs") or {}).get("key")
                if not r.passed:
                    if key in written.keys:
                        failed.add(written.keys[key])
                    else:
                        unmapped.append(key or r.rule_type)
            seen = {((r.details or {}).get("odcs") or {}).get("key") for r in results}
            out.update(failed=sorted(failed), unmapped_failures=unmapped,
                       keys_not_run=sorted(set(written.keys) - seen))
        else:
            if len(results) != len(written.entries):
                raise RuntimeError(f"assay ran {len(results)} rules of the file's "
                                   f"{len(written.entries)} checks")
            out["failed"] = sorted({written.entries[r.rule_index] for r in results if not r.passed})
        return out


def run_assay(spark: Any, written: Any, data: Path, fmt: Format) -> dict[str, Any]:
    import assay

    result = assay.run(str(written.path), spark=spark, source=str(data))
    return fmt.assay_failed(written, result)


# --- measuring ----------------------------------------------------------------------------------


def measure(call: Any, ui: SparkUI | None, meter: CpuMeter, wait_idle: float,
            helper_pid: int | None = None) -> dict[str, Any]:
    """One timed call: seconds, other processes' cores (the engines' process is not
    'other'), SQL executions; or the error."""
    record: dict[str, Any] = {}
    if wait_idle > 0:
        waited = meter.wait_idle(wait_idle)
        if waited:
            record["waited_for_idle_seconds"] = waited
    mark = None
    try:
        mark = ui.mark() if ui else None
    except Exception as exc:  # noqa: BLE001 - a busy server's UI: the run is still timed
        record["ui_error"] = str(exc)[:300]
    try:
        before, helper = meter.snapshot(), _process_cpu(helper_pid)
        start = time.perf_counter()
        value = call()
        seconds = time.perf_counter() - start
        after = meter.snapshot()
        other = meter.other_cores(before, after)
        if other is not None and helper_pid is not None:
            other = round(max(0.0, other - (_process_cpu(helper_pid) - helper) / seconds), 2)
        # the engines time their own run (no IPC): their "seconds" replaces the wall time
        record.update(seconds=round(seconds, 3), wall_seconds=round(seconds, 3),
                      other_cores=other)
        if "error" in value:
            record.update(error=value["error"], traceback=value.get("traceback"))
        else:
            record.update(value)
    except Exception as exc:  # noqa: BLE001 - recorded, the benchmark goes on
        record.update(error=f"{type(exc).__name__}: {' '.join(str(exc).split())[:600]}",
                      traceback=traceback.format_exc(limit=8)[-2500:])
    if ui is not None and mark is not None:
        try:
            ex = ui.since(mark)
            record.update(sql_executions=ex.count, server_seconds=ex.server_seconds)
        except Exception as exc:  # noqa: BLE001
            record.update(sql_executions=None, ui_error=str(exc)[:300])
    return record


def rounds(formats: list[Format], spark: Any, engines: Engines | None, data: Path,
           ui: SparkUI | None, meter: CpuMeter, args: argparse.Namespace,
           ) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Warm-ups, then ``--repeat`` rounds, each running every format through assay and
    through its engine (interleaved); the passing suites once, after the warm-ups."""
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {
        f.name: {"assay": [], "engine": [], "assay_passing": []} for f in formats}
    broken: set[tuple[str, str]] = set()
    for k in range(args.warmup + args.repeat):
        warm = k < args.warmup
        if k == args.warmup:
            for f in formats:
                rec = measure(lambda f=f: run_assay(spark, f.passing, data, f), ui, meter,
                              args.wait_idle)
                runs[f.name]["assay_passing"].append(rec)
                _show(f.name, "assay (passing suite)", k, rec)
        for f in formats:
            sides = [("assay", lambda f=f: run_assay(spark, f.failing, data, f), None)]
            if engines is not None:
                request = {"format": f.name, "file": str(f.failing.path), "data": str(data),
                           "keys": f.failing.keys, "table": suites_mod.TABLE}
                sides.append(("engine", lambda r=request: engines.ask(r), engines.pid))
            for side, call, helper in sides:
                if (f.name, side) in broken:
                    continue
                rec = measure(call, ui, meter, args.wait_idle, helper)
                rec["warmup"] = warm
                runs[f.name][side].append(rec)
                _show(f.name, side, k, rec)
                if "error" in rec:
                    broken.add((f.name, side))
    return runs


def _show(name: str, side: str, k: int, rec: dict[str, Any]) -> None:
    shown = f"{rec['seconds']:.2f} s" if "error" not in rec else f"ERROR {rec['error'][:200]}"
    log(f"{name}: run {k + 1} {side}: {shown}, {rec.get('sql_executions')} SQL executions, "
        f"failed {rec.get('failed', rec.get('failed_rules'))}, "
        f"other processes {rec.get('other_cores')} cores")


# --- summary ------------------------------------------------------------------------------------


def summarise(f: Format, runs: dict[str, list[dict[str, Any]]], cases: list[suites_mod.Case],
              engine_note: str | None) -> dict[str, Any]:
    expected_built = [i for i, c in enumerate(cases) if c.expect_fail and i in f.expressed]
    row: dict[str, Any] = {
        "format": f.name, "engine": f.engine, "rules_expressed": len(f.expressed),
        "expressed": f.expressed,
        "not_expressed": {str(i): why for i, why in f.not_expressed.items()},
        "file": str(f.failing.path), "passing_file": str(f.passing.path),
        "checks_in_file": f.failing.checks, "checks_in_passing_file": f.passing.checks,
        "expected_failures": f.expected, "built_to_fail": expected_built,
    }
    for side in ("assay", "engine", "assay_passing"):
        row[side] = _side(runs[side], f.expected)
    if engine_note:
        row["engine"] = {"skipped": engine_note, "name": f.engine}
    else:
        row["engine"] = {"name": f.engine, **row["engine"]}
    a, e = row["assay"].get("seconds"), row["engine"].get("seconds")
    row["engine_over_assay"] = round(e / a, 2) if a and e else None
    return row


def _side(records: list[dict[str, Any]], expected: list[int]) -> dict[str, Any]:
    measured = [r for r in records if not r.get("warmup") and "seconds" in r and "error" not in r]
    errors = [r for r in records if "error" in r]
    if not measured:
        return {"error": errors[0]["error"], "traceback": errors[0].get("traceback")} if errors else {}
    last = measured[-1]
    out = {
        "seconds": round(statistics.median(r["seconds"] for r in measured), 3),
        "runs": [r["seconds"] for r in measured],
        "sql_executions": last.get("sql_executions"),
        "sql_executions_runs": [r.get("sql_executions") for r in measured],
        "server_seconds": last.get("server_seconds"),
        "other_cores_runs": [r.get("other_cores") for r in measured],
        "failed_rules": last.get("failed") if "failed" in last else last.get("failed_rules"),
    }
    for key in ("spark_plans", "exit_code", "rule_errors", "unmapped_failures", "keys_not_run",
                "checks", "run_result"):
        if key in last:
            out[key] = last[key]
    out["verdicts_match_expected"] = out["failed_rules"] == expected
    if errors:
        out["error"] = errors[0]["error"]
    return out


def format_table(rows: list[dict[str, Any]]) -> str:
    head = ("format", "rules", "assay s", "assay plans (pass/fail)", "SQL execs", "engine",
            "engine s", "engine SQL execs", "engine/assay", "note")
    lines = [head]
    for r in rows:
        a, e, p = r["assay"], r["engine"], r["assay_passing"]
        notes = []
        for side, d in (("assay", a), ("engine", e)):
            if d.get("error"):
                notes.append(f"{side} ERROR {d['error'][:60]}")
            elif d.get("verdicts_match_expected") is False:
                notes.append(f"{side}: failing rules differ")
        if e.get("skipped"):
            notes.append("engine skipped")
        lines.append((
            r["format"], str(r["rules_expressed"]), _num(a.get("seconds")),
            f"{p.get('spark_plans', '-')} / {a.get('spark_plans', '-')}",
            str(a.get("sql_executions", "-")), e["name"], _num(e.get("seconds")),
            str(e.get("sql_executions", "-")),
            f"{r['engine_over_assay']:.2f}" if r.get("engine_over_assay") else "-",
            "; ".join(notes)))
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    out = []
    for k, line in enumerate(lines):
        out.append("  ".join(c.ljust(widths[i]) if i in (0, 5, 9) else c.rjust(widths[i])
                             for i, c in enumerate(line)).rstrip())
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def _num(x: float | None) -> str:
    return f"{x:.2f}" if x is not None else "-"


# --- main ---------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="TPC-H scale factor (default 1)")
    ap.add_argument("--rules", type=int, default=100, help="the suite's size (default 100)")
    ap.add_argument("--formats", default="gx,soda,dqx,odcs")
    ap.add_argument("--repeat", type=int, default=3, help="measured rounds (median)")
    ap.add_argument("--warmup", type=int, default=1, help="unmeasured rounds first")
    ap.add_argument("--out", type=Path, default=bench.RESULTS_DIR / "formats.json")
    ap.add_argument("--files", type=Path, default=FILES_DIR, help="where the files are written")
    ap.add_argument("--no-engine", action="store_true", help="assay's side only")
    ap.add_argument("--peers-python", default=str(PEERS_PYTHON),
                    help="Python with the engines (default benchmarks/.venv-peers)")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per engine run")
    ap.add_argument("--wait-idle", type=float, default=0.0, metavar="SECONDS",
                    help="before each run, wait up to SECONDS until other processes use "
                         "< 0.3 cores")
    ap.add_argument("--conf", action="append", default=[], type=bench._assignment,  # noqa: SLF001
                    help="extra Spark conf KEY=VALUE for the embedded server (repeatable)")
    ap.add_argument("--assay-src", type=Path, default=None, metavar="DIR",
                    help="measure the assay package in DIR (e.g. `git archive`'s src/assay) "
                         "instead of the installed one")
    ap.add_argument("--remote", default=None, help="an existing sc:// server")
    ap.add_argument("--ui-url", default=None, help="Spark UI of --remote")
    args = ap.parse_args(argv)
    args.retry_noisy = 0
    args.format_names = [f.strip() for f in args.formats.split(",") if f.strip()]
    unknown = set(args.format_names) - {"gx", "soda", "dqx", "odcs"}
    if unknown:
        ap.error(f"unknown formats: {', '.join(sorted(unknown))}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    source = bench.snapshot_source(args.assay_src)
    from assay.executor.session import open_session, quiet_pyspark_logging

    quiet_pyspark_logging()
    data = bench.ensure_data(args.scale).resolve()
    args.files.mkdir(parents=True, exist_ok=True)
    document: dict[str, Any] = {"benchmark": "formats", "version": 1, "assay_source": source,
                                "environment": bench.environment(args.scale, data, args),
                                "rules": args.rules}
    conf = {**bench.SERVER_CONF, **dict(args.conf)}
    start = time.perf_counter()
    handle = open_session(args.remote, server_conf=None if args.remote else conf)
    engines = None
    try:
        spark = handle.spark
        ui_url = args.ui_url or handle.ui_url
        ui = SparkUI(ui_url, timeout=60.0) if ui_url else None  # a loaded server answers late
        url = args.remote or bench.connect_url(handle)[0]
        meter = CpuMeter(getattr(handle, "pid", None))
        document["environment"].update(spark=spark.version, ui_url=ui_url)
        cases = suites_mod.suite(args.rules)
        reference = _reference(spark, data, cases, url)
        document.update(reference_failures=reference,
                        built_to_fail=[i for i, c in enumerate(cases) if c.expect_fail])
        formats = [Format(n, cases, reference, data, args.files) for n in args.format_names]
        engines, document["engines"] = _engines(args, url)
        runs = rounds(formats, spark, engines, data, ui, meter, args)
        note = None if engines else document["engines"]["skipped"]
        document["formats"] = [summarise(f, runs[f.name], cases, note) for f in formats]
        document["runs"] = runs
    finally:
        if engines is not None:
            engines.close()
        handle.close()
    document["elapsed_seconds"] = round(time.perf_counter() - start, 1)
    bench.write_json(args.out, document)
    print(format_table(document["formats"]))
    print(f"\nwrote {args.out} (files in {args.files})")
    return 0


def _reference(spark: Any, data: Path, cases: list[suites_mod.Case], url: str | None) -> list[int]:
    """The rules failing on this data, from run.py's hand-written aggregate."""
    from strategies import Context, handwritten

    ctx = Context(spark, str(data), cases, Path("unused.yaml"), url)
    failed = handwritten(ctx).failed
    log(f"rules failing on the data (hand-written aggregate): {failed}")
    return list(failed or [])


def _engines(args: argparse.Namespace, url: str | None) -> tuple[Engines | None, dict[str, Any]]:
    if args.no_engine:
        return None, {"skipped": "--no-engine: assay's side only"}
    if not Path(args.peers_python).exists():
        return None, {"skipped": f"no Python with the engines at {args.peers_python} (see "
                                 "benchmarks/README.md, Peers): assay's side only"}
    if not url:
        return None, {"skipped": "no connection URL for the engines' process"}
    log("starting the engines' process (benchmarks/peers/run_formats.py)")
    engines = Engines(args.peers_python, url, args.timeout, args.files / "engines.log")
    return engines, {"python": args.peers_python, "versions": engines.ready.get("versions"),
                     "log": str(args.files / "engines.log")}


if __name__ == "__main__":
    sys.exit(main())

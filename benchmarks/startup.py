"""``run.py --startup``: what a user waits for before and around the checks themselves.

Side by side, in one run (every variant interleaved, round by round):

- ``imports``: ``assay --help``, ``check`` and ``explain`` wall times, the import time
  of ``assay --help`` (``-X importtime``) and of the Connect client with and without
  IPython, and whether pandas / pyarrow / grpc are imported by it;
- ``cold``: ``assay run examples/orders.yaml`` on a new embedded server: the baseline code
  (``--baseline-src``, e.g. main's ``src/assay``), this code without the class-data-sharing
  archive (``ASSAY_CDS=0``), this code keeping C2 (``-XX:TieredStopAtLevel=4``: what a
  short run's JVM had before it got C1 only) and this code as it is; wall and CPU seconds
  (the client and its server JVM: ``RUSAGE_CHILDREN``);
- ``warm``: ``assay server start``, then the same run repeated on it; the 10-table
  config's first JSON line against its first plan's end (the Spark UI's completion time);
  the 10-rule suite through ``assay run --remote`` (a subprocess) against the Python API
  (in this process), both on the warm server.

Everything runs with its own state directory (``ASSAY_STATE_DIR``: the archive, the warm
server), so the user's are never touched.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
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
from strategies import Context, assay_api, assay_cli

ROOT = Path(__file__).resolve().parent.parent
ORDERS = ROOT / "examples" / "orders.yaml"


def _env(state: Path, src: str | None = None, **extra: str) -> dict[str, str]:
    dropped = ("SPARK_REMOTE", "ASSAY_NO_WARM_SERVER", "ASSAY_NO_WARM_CLIENT", "ASSAY_CDS")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env["ASSAY_STATE_DIR"] = str(state)
    if src is not None:  # the baseline: its package first on the path
        env["PYTHONPATH"] = src
    env.update(extra)
    return env


def _assay(args: list[str], env: dict[str, str], timeout: float = 900) -> dict[str, Any]:
    """One ``assay`` subprocess: wall and CPU seconds (itself and the processes it waited
    for: its embedded server's JVM), exit code, stderr's tail."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "assay", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=timeout, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"seconds": round(wall, 3), "cpu_seconds": round(cpu, 2), "exit_code": done.returncode,
            "stdout": done.stdout, "stderr_tail": done.stderr.strip().splitlines()[-3:]}


def _median(runs: list[dict[str, Any]], key: str = "seconds") -> float | None:
    values = [r[key] for r in runs if r.get(key) is not None]
    return round(statistics.median(values), 3) if values else None


def _rounds(variants: dict[str, Callable[[], dict[str, Any]]], repeat: int,
            log: Callable[[str], None]) -> dict[str, Any]:
    """Every variant once per round, ``repeat`` rounds; medians per variant."""
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in variants}
    for round_ in range(repeat):
        for name, fn in variants.items():
            result = fn()
            result.pop("stdout", None)
            runs[name].append(result)
            log(f"startup round {round_ + 1} {name}: {result['seconds']:.2f} s "
                f"(cpu {result.get('cpu_seconds')} s, exit {result.get('exit_code')})")
    return {name: {"seconds": _median(r), "cpu_seconds": _median(r, "cpu_seconds"), "runs": r}
            for name, r in runs.items()}


# --- imports ----------------------------------------------------------------------------------


def _import_ms(code: list[str], env: dict[str, str]) -> tuple[float, set[str]]:
    """Total import time (ms, the sum of ``-X importtime``'s self times) and the modules."""
    done = subprocess.run([sys.executable, "-X", "importtime", *code], capture_output=True,
                          text=True, env=env, cwd=ROOT, check=False)
    total, names = 0, set()
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
        if match:
            total += int(match.group(1))
            names.add(match.group(2))
    return round(total / 1000, 1), names


def imports(state: Path, repeat: int, log: Callable[[str], None]) -> dict[str, Any]:
    env = _env(state)
    timed = _rounds({
        "help": lambda: _assay(["--help"], env),
        "check": lambda: _assay(["check", str(ORDERS)], env),
        "explain": lambda: _assay(["explain", str(ORDERS)], env),
    }, repeat, log)
    client = "import pyspark.sql.connect.session"
    blocked = "import sys; sys.modules['IPython'] = None; " + client
    help_ms = statistics.median(_import_ms(["-m", "assay", "--help"], env)[0]
                                for _ in range(repeat))
    with_ipython = statistics.median(_import_ms(["-c", client], env)[0] for _ in range(repeat))
    without = statistics.median(_import_ms(["-c", blocked], env)[0] for _ in range(repeat))
    names_without = _import_ms(["-c", blocked], env)[1]
    return {
        **{k: {"seconds": v["seconds"]} for k, v in timed.items()},
        "help_import_ms": help_ms,
        "connect_client_import_ms": with_ipython,
        "connect_client_import_ms_without_ipython": without,
        "connect_client_imports": {m: m in names_without
                                   for m in ("pandas", "pyarrow", "grpc", "numpy", "IPython")},
    }


# --- cold starts ------------------------------------------------------------------------------


def cold(state: Path, baseline: str | None, repeat: int,
         log: Callable[[str], None]) -> dict[str, Any]:
    """Cold embedded runs side by side; the archive built first by one unmeasured run
    (its time recorded: the one-off cost of the first run on a machine)."""
    args = ["run", "--no-progress", str(ORDERS)]
    env = _env(state, ASSAY_NO_WARM_SERVER="1")
    first = _assay(args, env)  # a first cold start only notes that it happened
    build = _assay(args, env)  # the second writes the archive as its server exits
    for done in (first, build):
        done.pop("stdout", None)
    log(f"startup: first run {first['seconds']:.2f} s; second (writes the class-data "
        f"archive) {build['seconds']:.2f} s")
    c2 = ["--conf", "spark.driver.extraJavaOptions=-XX:TieredStopAtLevel=4"]
    variants = {
        "no_cds": lambda: _assay(args, {**env, "ASSAY_CDS": "0"}),
        "c2": lambda: _assay([*args, *c2], env),  # the JIT a short run no longer gets
        "current": lambda: _assay(args, env),
    }
    if baseline:
        variants = {"baseline": lambda: _assay(args, _env(state, baseline)), **variants}
    out = _rounds(variants, repeat, log)
    out["first_run"] = first
    out["run_writing_archive"] = build
    ref = out.get("baseline", out["no_cds"])["seconds"]
    for name in variants:
        out[name]["x_baseline"] = round(out[name]["seconds"] / ref, 3) if ref else None
    return out


# --- the warm server --------------------------------------------------------------------------


def warm(state: Path, data: Path, repeat: int, log: Callable[[str], None]) -> dict[str, Any]:
    env = _env(state)
    started = _assay(["server", "start"], env)
    if started["exit_code"] != 0:
        raise RuntimeError(f"assay server start failed: {started['stderr_tail']}")
    out: dict[str, Any] = {"server_start_seconds": started["seconds"]}
    try:
        args = ["run", "--no-progress", str(ORDERS)]
        first = _assay(args, env)
        out["first_run_seconds"] = first["seconds"]
        log(f"startup: first run on the new warm server: {first['seconds']:.2f} s")
        scratch = {**env, "ASSAY_NO_WARM_CLIENT": "1"}
        repeated = _rounds({"warm": lambda: _assay(args, env),
                            "from_scratch": lambda: _assay(args, scratch)}, repeat, log)
        out["repeated_run"] = repeated["warm"]
        out["repeated_run_without_warm_client"] = repeated["from_scratch"]
        out["first_line"] = first_line(state, data, env)
        out["remote_cli_vs_api"] = remote_cli_vs_api(state, data, repeat, log)
    finally:
        _assay(["server", "stop"], env)
    return out


def _record(state: Path) -> dict[str, Any]:
    return json.loads((state / "server.json").read_text())


def first_line(state: Path, data: Path, env: dict[str, str]) -> dict[str, Any]:
    """The 10-table config (10 rules each, a tenth of lineitem each) on the warm server:
    when its first JSON line came, against when its first Spark plan ended."""
    cases = suites_mod.suite(10)
    doc = {"version": 1, "tables": [
        suites_mod.table(str(data), cases, name=f"lineitem_{k}", filter_=f"l_orderkey % 10 = {k}")
        for k in range(10)]}
    path = Path(tempfile.mkdtemp(prefix="assay-startup-")) / "ten_tables.yaml"
    path.write_text(suites_mod.dump(doc))
    ui = SparkUI(f"http://127.0.0.1:{_record(state)['ui_port']}")
    mark = ui.mark()
    start_epoch, start = time.time(), time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "assay", "run", "--no-progress", str(path)],
                            env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    arrivals = [time.perf_counter() - start for line in proc.stdout if line.strip()]
    code = proc.wait()
    ends = sorted(_epoch(e["submissionTime"]) + e["duration"] / 1000 - start_epoch
                  for e in ui.executions()
                  if int(e["id"]) > mark and e.get("status") == "COMPLETED")
    first_plan = ends[0] if ends else None
    return {
        "exit_code": code, "lines": len(arrivals),
        "first_line_seconds": round(arrivals[0], 2) if arrivals else None,
        "first_plan_end_seconds": round(first_plan, 2) if first_plan is not None else None,
        "first_line_after_first_plan": (round(arrivals[0] - first_plan, 2)
                                        if arrivals and first_plan is not None else None),
        "total_seconds": round(arrivals[-1], 2) if arrivals else None,
        "plans": len(ends),
    }


def _epoch(ui_time: str) -> float:
    """The UI's ``2026-12-02T16:00:00.123GMT`` as epoch seconds."""
    import calendar

    stamp, millis = ui_time.replace("GMT", "").split(".")
    return calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%S")) + int(millis) / 1000


def remote_cli_vs_api(state: Path, data: Path, repeat: int,
                      log: Callable[[str], None]) -> dict[str, Any]:
    """The 10-rule suite on the warm server: ``assay run`` with ``SPARK_REMOTE`` (a new
    process) against ``run_suite`` on this process's open session, interleaved."""
    from assay.executor.session.warm import WarmServer, open_warm

    os.environ["ASSAY_STATE_DIR"] = str(state)
    server = WarmServer(**_record(state))
    directory = Path(tempfile.mkdtemp(prefix="assay-startup-"))
    yaml_path = suites_mod.write_suite(directory, str(data), 10)
    with open_warm(server, 30) as handle:
        ctx = Context(handle.spark, str(data), suites_mod.suite(10), yaml_path, server.url)
        assay_api(ctx)  # this process's imports and first session round trip

        def timed(fn: Callable[[Context], Any]) -> Callable[[], dict[str, Any]]:
            def run() -> dict[str, Any]:
                start = time.perf_counter()
                fn(ctx)
                return {"seconds": round(time.perf_counter() - start, 3)}
            return run

        def from_scratch(c: Context) -> Any:  # the CLI without the warm client
            os.environ["ASSAY_NO_WARM_CLIENT"] = "1"
            try:
                return assay_cli(c)
            finally:
                del os.environ["ASSAY_NO_WARM_CLIENT"]

        out = _rounds({"api": timed(assay_api), "cli": timed(assay_cli),
                       "cli_from_scratch": timed(from_scratch)}, repeat, log)
    shutil.rmtree(directory, ignore_errors=True)
    api = out["api"]["seconds"]
    for name in ("cli", "cli_from_scratch"):
        seconds = out[name]["seconds"]
        out[f"{name}_x_api"] = round(seconds / api, 3) if api and seconds else None
    return out


# --- the whole mode ---------------------------------------------------------------------------


def startup(data: Path, baseline: str | None, repeat: int,
            log: Callable[[str], None]) -> dict[str, Any]:
    state = Path(tempfile.mkdtemp(prefix="assay-startup-state-"))
    try:
        return {
            "state_dir": str(state),
            "imports": imports(state, repeat, log),
            "cold": cold(state, baseline, repeat, log),
            "warm": warm(state, data, repeat, log),
        }
    finally:
        shutil.rmtree(state, ignore_errors=True)


def format_startup(d: dict[str, Any]) -> str:
    imp, cold_, w = d["imports"], d["cold"], d["warm"]
    lines = [
        "start-up (median seconds; cpu: the client and its server JVM)",
        f"  assay --help {imp['help']['seconds']} s (imports {imp['help_import_ms']} ms), "
        f"check {imp['check']['seconds']} s, explain {imp['explain']['seconds']} s",
        f"  Connect client import {imp['connect_client_import_ms']} ms, without IPython "
        f"{imp['connect_client_import_ms_without_ipython']} ms; "
        f"imports {imp['connect_client_imports']}",
    ]
    for name in ("baseline", "no_cds", "c2", "current"):
        if name in cold_:
            v = cold_[name]
            lines.append(f"  cold {name:<8} {v['seconds']:>7.2f} s  cpu {v['cpu_seconds']:>6.2f} s"
                         f"  x baseline {v['x_baseline']}")
    lines.append(f"  cold: first run {cold_['first_run']['seconds']} s, the run writing the "
                 f"archive {cold_['run_writing_archive']['seconds']} s")
    lines.append(f"  warm: server start {w['server_start_seconds']} s, first run "
                 f"{w['first_run_seconds']} s, repeated run {w['repeated_run']['seconds']} s "
                 f"(without the warm client "
                 f"{w['repeated_run_without_warm_client']['seconds']} s)")
    fl = w["first_line"]
    lines.append(f"  10 tables on the warm server: first line {fl['first_line_seconds']} s, "
                 f"first plan ended {fl['first_plan_end_seconds']} s "
                 f"(+{fl['first_line_after_first_plan']} s), all {fl['total_seconds']} s")
    rc = w["remote_cli_vs_api"]
    lines.append(f"  10 rules: CLI --remote {rc['cli']['seconds']} s vs API "
                 f"{rc['api']['seconds']} s = {rc['cli_x_api']} x (without the warm client "
                 f"{rc['cli_from_scratch']['seconds']} s = {rc['cli_from_scratch_x_api']} x)")
    return "\n".join(lines)

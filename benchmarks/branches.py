"""Where the fused aggregate's time goes, per branch: the table's aggregate plan as a run
submits it, then each of its branches alone, through the same emitter.

    python benchmarks/branches.py                          # SF1, the 100-rule suite
    python benchmarks/branches.py --suite 300 --repeat 5
    python benchmarks/branches.py --scale 0.01 --repeat 1  # a smoke run
    python benchmarks/branches.py --suite 300 --runs 6 --new-sessions  # whole runs, code compiled

The plan is the executor's (``executor.prepare``: the server's size estimate, the first
key's range, the folded SQL rules as the run folds them); each part is
``emit.aggregate_frame`` of the whole plan or of a plan of one branch, run with Spark's
``MergeSubplans`` excluded as a run excludes it. Per part: the rules it answers, the
columns it reads, its wall time and the **JVM's CPU time** (user + system of the server's
process, every thread, read from ``/proc/<pid>/stat`` before and after), min and median of
``--repeat`` after ``--warmup``; and, with ``--jfr`` (the default when ``jcmd`` and ``jfr``
are on the PATH), the JVM's own profile of the part: a Flight Recorder recording
(``jcmd <pid> JFR.start settings=profile``) over ``--jfr-runs`` more runs, its
``jdk.ExecutionSample`` events of the executor threads counted by top frame (self) and by
every method on the stack (inclusive). CPU time is far less disturbed by other processes
than wall time, which is what makes this usable on a shared machine; the floor (one
``count`` per column) is measured the same way for scale.

Writes ``benchmarks/results/branches-<scale>-<suite>.json`` (or ``--out``) and prints a
table. The server's pid is the embedded server's, or, with ``--remote``, the process
listening on the URL's port (this machine only; without it, no CPU time and no JFR).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import suites as suites_mod  # noqa: E402
from cpu import _CLK, _process_cpu  # noqa: E402
from run import RESULTS_DIR, SERVER_CONF, ensure_data, log, write_json  # noqa: E402

TASK_THREADS = ("Executor task ",)
"""The threads whose samples count: Spark's task threads ("launch" or "idle" worker: JFR keeps
the name a thread had when first seen). The rest, planning and code generation on the
Connect thread among them, is counted by thread in `threads`."""


# --- the server's JVM ---------------------------------------------------------------------


def jvm_pid(handle: Any, remote: str | None) -> int | None:
    """The server JVM's pid: the embedded server's (or its java child), else the process
    listening on the remote URL's port on this machine."""
    pid = getattr(handle, "pid", None)
    if pid is not None:
        return (
            pid
            if _comm(pid) == "java"
            else next((c for c in _children(pid) if _comm(c) == "java"), pid)
        )
    if remote:
        port = urlparse(remote.replace("sc://", "http://", 1)).port
        return _listener(port) if port else None
    return None


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _children(pid: int) -> list[int]:
    try:
        return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _listener(port: int) -> int | None:
    """The pid holding the socket listening on ``port`` (``/proc/net/tcp``, state 0A)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if f[3] == "0A" and int(f[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{f[9]}]")
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if any(os.readlink(fd) in inodes for fd in (proc / "fd").iterdir()):
                return int(proc.name)
        except OSError:
            continue
    return None


def jvm_cpu(pid: int | None) -> float | None:
    return _process_cpu(pid) if pid is not None else None


_THREAD_KINDS = (
    ("tasks", ("Executor task",)),
    ("gc", ("GC Thread", "G1 ", "GC ")),
    ("jit", ("C1 Compiler", "C2 Compiler")),
)
"""Thread name prefixes (``/proc/<pid>/task/<tid>/comm``, 15 characters) by kind; the rest
is ``other``."""


def thread_cpu(pid: int | None) -> dict[str, float]:
    """The server JVM's CPU seconds so far by kind of thread (:data:`_THREAD_KINDS`): the
    task threads', the garbage collector's, the JIT compilers' and the rest. A thread that
    ended is counted nowhere (a task thread ends when idle for a minute): compare the
    kinds' sum with :func:`jvm_cpu` over the same span."""
    found = {kind: 0.0 for kind, _ in _THREAD_KINDS} | {"other": 0.0}
    if pid is None:
        return found
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        kind = next((k for k, names in _THREAD_KINDS if name.startswith(names)), "other")
        found[kind] += (int(fields[11]) + int(fields[12])) / _CLK
    return found


def rounds(
    calls: dict[str, Any], pid: int | None, repeat: int
) -> dict[str, dict[str, list[float]]]:
    """Each call in ``repeat`` alternating rounds: its wall and JVM CPU seconds per round."""
    runs: dict[str, dict[str, list[float]]] = {k: {"wall": [], "jvm_cpu": []} for k in calls}
    for _ in range(repeat):
        for k, call in calls.items():
            c0, t0, k0 = jvm_cpu(pid), time.perf_counter(), thread_cpu(pid)
            call()
            t1, c1, k1 = time.perf_counter(), jvm_cpu(pid), thread_cpu(pid)
            runs[k]["wall"].append(round(t1 - t0, 3))
            if c0 is not None and c1 is not None:
                runs[k]["jvm_cpu"].append(round(c1 - c0, 2))
                for kind in k0:
                    runs[k].setdefault(kind, []).append(round(k1[kind] - k0[kind], 2))
    return runs


# --- the parts ----------------------------------------------------------------------------


def parts(
    spark: Any, yaml_path: Path, data: str, args: argparse.Namespace | None = None
) -> tuple[list[dict[str, Any]], Any]:
    """The floor, the whole aggregate plan and each branch alone: name, what it answers
    and reads, and the call that runs it; and the prepared table's plan (planned with
    ``args.off`` and ``args.planner`` when given, as :func:`side_by_side`'s first form)."""
    from pyspark.sql.connect import functions as F

    from assay.config import load_suite
    from assay.emit import spark as emit
    from assay.executor.prepare import prepare
    from assay.planner.cost import _reads
    from assay.planner.plan import AggregatePlan
    from assay.planner.render import render_branch

    table = load_suite([yaml_path]).tables[0]
    with _changed(args) as options:
        prepared = prepare(spark, table, options)
    if not hasattr(prepared, "planned"):
        raise SystemExit(f"the suite does not prepare: {prepared}")
    plan, df = prepared.planned.plan, prepared.df
    refs = prepared.refs or None
    agg = plan.aggregate
    assert agg is not None, "the suite has no aggregate plan"
    floor_df = spark.read.parquet(data)
    out = [
        _part(
            "floor (one count per column)",
            "floor",
            (),
            tuple(floor_df.columns),
            [],
            lambda: floor_df.agg(*(F.count(F.col(c)) for c in floor_df.columns)),
        )
    ]
    every = sorted({i for s in agg.slots for i in s.rules})
    out.append(
        _part(
            "whole aggregate plan",
            "whole",
            tuple(every),
            _branch_columns(agg.branches, _reads),
            [],
            lambda: emit.aggregate_frame(df, agg, refs),
        )
    )
    for k, branch in enumerate(agg.branches):
        alone = AggregatePlan((branch,))
        rules = tuple(sorted({i for s in branch.slots for i in s.rules}))
        text = render_branch(branch, plan.key_range)
        out.append(
            _part(
                f"branch {k}: {text[0].strip()}",
                type(branch).__name__,
                rules,
                _branch_columns((branch,), _reads),
                text[1:],
                lambda a=alone: emit.aggregate_frame(df, a, refs),
            )
        )
    for p in out:
        p["rule_types"] = dict(collections.Counter(table.rules[i].kind for i in p["rules"]))
    return out, plan


def _part(name: str, kind: str, rules: tuple[int, ...], columns: tuple[str, ...],
          lines: list[str], frame: Any) -> dict[str, Any]:  # fmt: skip
    return {"name": name, "kind": kind, "rules": list(rules), "columns": sorted(columns),
            "outputs": [ln.strip() for ln in lines], "frame": frame,
            "call": lambda: frame().collect()}  # fmt: skip


def method_sizes(spark: Any, frame: Any) -> list[int]:
    """The largest generated method of each whole-stage codegen subtree of ``frame``, in
    bytes of bytecode (``explain("codegen")``, adaptive execution off for the call: with
    it on the plan is not final before it runs); the JVM's JIT leaves a method of over
    8,000 bytes to the interpreter (``-XX:+DontCompileHugeMethods``, its default)."""
    key = "spark.sql.adaptive.enabled"
    before = spark.conf.get(key)
    spark.conf.set(key, "false")
    try:
        text = frame._explain_string("codegen")  # noqa: SLF001
    finally:
        spark.conf.set(key, before)
    return [int(x) for x in re.findall(r"maxMethodCodeSize:(\d+)", text)]


def _branch_columns(branches: Any, reads: Any) -> tuple[str, ...]:
    found: set[str] = set()
    for b in branches:
        found.update(c.lower() for c in getattr(b, "columns", ()))
        for s in b.slots:
            found.update(reads(s.form))
    return tuple(sorted(found))


# --- measuring ----------------------------------------------------------------------------


def measure(call: Any, pid: int | None, warmup: int, repeat: int) -> dict[str, Any]:
    """``warmup`` unmeasured runs, then ``repeat`` runs: wall and JVM CPU seconds."""
    for _ in range(warmup):
        call()
    walls, cpus = [], []
    for _ in range(repeat):
        c0, t0 = jvm_cpu(pid), time.perf_counter()
        call()
        t1, c1 = time.perf_counter(), jvm_cpu(pid)
        walls.append(round(t1 - t0, 3))
        if c0 is not None and c1 is not None:
            cpus.append(round(c1 - c0, 2))
    return {"wall": _stats(walls), "jvm_cpu": _stats(cpus) if cpus else None}


def _stats(values: list[float]) -> dict[str, Any]:
    return {"min": min(values), "median": round(statistics.median(values), 3), "runs": values}


class Recorder:
    """Java Flight Recorder on the server's JVM, one recording per part."""

    def __init__(self, pid: int, directory: Path) -> None:
        self.pid, self.directory = pid, directory

    @staticmethod
    def available() -> bool:
        return bool(shutil.which("jcmd") and shutil.which("jfr"))

    def profile(self, call: Any, runs: int, top: int, tag: str) -> dict[str, Any]:
        path = self.directory / f"{tag}.jfr"
        name = f"assay-branches-{tag}"
        self._jcmd("JFR.start", f"name={name}", "settings=profile", f"filename={path}")
        try:
            for _ in range(runs):
                call()
        finally:
            self._jcmd("JFR.stop", f"name={name}")
        return samples(path, top)

    def _jcmd(self, *words: str) -> None:
        done = subprocess.run(["jcmd", str(self.pid), *words], capture_output=True, text=True,
                              timeout=120, check=False)  # fmt: skip
        if done.returncode != 0 or "error" in done.stdout.lower():
            raise RuntimeError(
                f"jcmd {' '.join(words)}: {done.stdout.strip()} {done.stderr.strip()}"
            )


def samples(path: Path, top: int, depth: int = 64) -> dict[str, Any]:
    """The task threads' execution samples of a recording: top frames by self count and by
    inclusive count (each method once per sample), as shares of the samples."""
    done = subprocess.run(["jfr", "print", "--json", "--events", "jdk.ExecutionSample",
                           "--stack-depth", str(depth), str(path)],
                          capture_output=True, text=True, timeout=600, check=True)  # fmt: skip
    events = json.loads(done.stdout)["recording"]["events"]
    own: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    threads: collections.Counter[str] = collections.Counter()
    n = 0
    for event in events:
        values = event["values"]
        thread = (values.get("sampledThread") or {}).get("javaName") or ""
        threads[re.sub(r"[0-9a-f-]{8,}|\d+", "#", thread)] += 1
        if not thread.startswith(TASK_THREADS):
            continue
        frames = [_frame(f) for f in (values.get("stackTrace") or {}).get("frames", [])]
        if not frames:
            continue
        n += 1
        own[frames[0]] += 1
        inclusive.update(set(frames))
    share = (lambda c: round(c / n, 3)) if n else (lambda c: 0.0)
    return {"samples": n, "threads": dict(threads.most_common(8)),
            "self": [[f, c, share(c)] for f, c in own.most_common(top)],
            "inclusive": [[f, c, share(c)] for f, c in inclusive.most_common(top * 3)
                          if not _plumbing(f)][:top]}  # fmt: skip


def _frame(frame: dict[str, Any]) -> str:
    method = frame.get("method") or {}
    kind = ((method.get("type") or {}).get("name") or "?").replace("/", ".")
    return f"{kind}.{method.get('name', '?')}"


def _plumbing(frame: str) -> bool:
    """Frames on every task's stack (threads, the executor, the task runner)."""
    return frame.startswith(
        (
            "java.lang.Thread.",
            "java.util.concurrent.",
            "org.apache.spark.executor.",
            "org.apache.spark.scheduler.",
            "org.apache.spark.util.Utils",
            "org.apache.spark.rdd.",
            "org.apache.spark.TaskContext",
            "scala.",
            "org.apache.spark.shuffle.ShuffleWriteProcessor",
        )
    )


def whole_runs(
    handle: Any, yaml_path: Path, args: argparse.Namespace, pid: int | None, ui: str | None
) -> dict[str, Any]:
    """``--runs N``: the suite run whole (``assay.run``, samples included) N times, each in
    the script's one session or, with ``--new-sessions``, in a session of its own as every
    command has (``--session`` settings set in each). Per run: wall, the JVM's CPU by kind
    of thread, and the **classes Spark compiled** (the count of the driver's
    ``CodeGenerator.compilationTime`` histogram, the metrics servlet of the server's UI,
    before and after): a run whose generated code Spark's cache still holds compiles
    none, and its code is already JIT-compiled."""
    from pyspark.sql.connect.session import SparkSession

    import assay

    def compiled() -> int | None:
        if not ui:
            return None
        try:
            with urllib.request.urlopen(ui.rstrip("/") + "/metrics/json/", timeout=30) as r:
                found = json.load(r).get("histograms") or {}
        except Exception:  # noqa: BLE001 - diagnostics only
            return None
        return sum(int(h.get("count") or 0) for k, h in found.items()
                   if k.endswith("CodeGenerator.compilationTime"))  # fmt: skip

    settings = [_pair(p) for p in args.session or []]
    out: dict[str, Any] = {"new_sessions": args.new_sessions, "session": args.session or [],
                           "shared_sessions": bool(args.shared_sessions), "runs": []}  # fmt: skip
    for k in range(args.runs):
        spark = handle.spark
        if args.new_sessions:
            spark = SparkSession.builder.remote(handle.connect_url or args.remote).create()
        for key, value in settings:
            spark.conf.set(key, value)
        n0, c0, k0, t0 = compiled(), jvm_cpu(pid), thread_cpu(pid), time.perf_counter()
        result = assay.run(str(yaml_path), spark=spark)
        t1, c1, k1, n1 = time.perf_counter(), jvm_cpu(pid), thread_cpu(pid), compiled()
        if args.new_sessions:
            spark.stop()
        count = None if n0 is None or n1 is None else n1 - n0
        row: dict[str, Any] = {
            "wall": round(t1 - t0, 3), "exit_code": result.exit_code, "classes_compiled": count
        }  # fmt: skip
        if c0 is not None and c1 is not None:
            row["jvm_cpu"] = round(c1 - c0, 2)
            row.update({kind: round(k1[kind] - k0[kind], 2) for kind in k0})
        out["runs"].append(row)
        log(f"run {k + 1}/{args.runs}: {row}")
    return out


# --- the run ------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> dict[str, Any]:
    from assay.executor.run import optimizer_rule_excluded
    from assay.executor.session import open_session, quiet_pyspark_logging
    from assay.planner.cost import MERGE_SUBPLANS_RULE

    quiet_pyspark_logging()
    data = ensure_data(args.scale)
    work = Path(tempfile.mkdtemp(prefix="assay-branches-"))
    yaml_path = suites_mod.write_suite(work, str(data), args.suite)
    server_conf = {**SERVER_CONF, **dict(_pair(p) for p in args.server_conf or [])}
    if args.shared_sessions and not args.remote:
        from assay.executor.deadline import DEFAULT_CONNECT_TIMEOUT
        from assay.executor.session.embedded import open_embedded

        handle = open_embedded(DEFAULT_CONNECT_TIMEOUT, server_conf, None, many_sessions=True)
    else:
        handle = open_session(args.remote, server_conf=None if args.remote else server_conf)
    document: dict[str, Any] = {
        "benchmark": "branches",
        "scale": args.scale,
        "suite": args.suite,
        "server_conf": args.server_conf or [],
        "data": str(data),
        "repeat": args.repeat,
        "warmup": args.warmup,
    }
    try:
        spark = handle.spark
        pid = jvm_pid(handle, args.remote)
        document.update(spark=spark.version, jvm_pid=pid, clock_ticks=_CLK)
        recorder = Recorder(pid, work) if args.jfr and pid and Recorder.available() else None
        document["jfr"] = recorder is not None
        if args.expr or args.agg:
            document["expressions"] = expressions(spark, str(data), args, pid)
            return document
        if args.runs:
            ui = args.ui_url or handle.ui_url
            document["runs"] = whole_runs(handle, yaml_path, args, pid, ui)
            return document
        if (args.off or args.planner or args.session) and not args.parts:
            document["side_by_side"] = side_by_side(spark, yaml_path, args, pid)
            return document
        found, plan = parts(spark, yaml_path, str(data), args)
        document["planned_with"] = [
            *([f"off {args.off}"] if args.off else []),
            *(args.planner or []),
        ]
        document["key_range"] = plan.key_range
        with optimizer_rule_excluded(spark, MERGE_SUBPLANS_RULE, len(plan.aggregate.scans) > 1):
            if args.fused:
                document["fused"] = fused(found, pid, args.warmup, args.repeat)
                return document
            for k, part in enumerate(found):
                call, frame = part.pop("call"), part.pop("frame")
                part["method_sizes"] = method_sizes(spark, frame())
                log(f"{part['name']}: measuring")
                part.update(measure(call, pid, args.warmup, args.repeat))
                if recorder is not None:
                    part["jfr"] = recorder.profile(call, args.jfr_runs, args.top, f"part{k}")
        document["parts"] = found
    finally:
        handle.close()
        shutil.rmtree(work, ignore_errors=True)
    return document


def fused(found: list[dict[str, Any]], pid: int | None, warmup: int, repeat: int) -> Any:
    """``--fused``: the whole plan, and its branches run one after another (each its own
    plan), in alternating rounds in one JVM after ``warmup`` rounds: whether the fused
    plan costs more than its parts, and in which threads (tasks, the collector, the JIT,
    the rest: :func:`thread_cpu`)."""
    whole = next(p["call"] for p in found if p["kind"] == "whole")
    apart = [p["call"] for p in found if p["kind"] not in ("whole", "floor")]
    calls = {"fused": whole, "apart": lambda: [call() for call in apart]}
    for _ in range(warmup):
        for call in calls.values():
            call()
    out = rounds(calls, pid, repeat)
    for k, runs in out.items():
        log(f"{k}: " + ", ".join(f"{kind} {values}" for kind, values in runs.items()))
    return out


def expressions(spark: Any, data: str, args: argparse.Namespace, pid: int | None) -> list[Any]:
    """``--expr`` and ``--agg``: each form over the data, alone, in alternating rounds (one
    warm-up round, then ``--repeat``): the forms of one test side by side in one JVM. An
    ``--expr`` form is ``count_if(<expr>)``; an ``--agg`` form is the aggregates it lists
    (SQL, separated by ``;;``) in one ``df.agg``. Each form with its answer (``count``: the
    count, or the aggregates' values as text), which must agree between equivalent forms."""
    from pyspark.sql.connect import functions as F

    df = spark.read.parquet(data)
    forms = [(e, [F.count_if(F.expr(e))]) for e in args.expr or []]
    forms += [(a, [F.expr(p) for p in a.split(";;")]) for a in args.agg or []]
    calls = [lambda c=c: list(df.agg(*c).collect()[0]) for _, c in forms]
    out: list[dict[str, Any]] = [{"expr": e} for e, _ in forms]
    for k, call in enumerate(calls):
        answer = call()  # warm-up
        out[k]["count"] = answer[0] if k < len(args.expr or []) else [str(v) for v in answer]
    for k, measured in rounds(dict(enumerate(calls)), pid, args.repeat).items():
        out[k].update(measured)
    for row in out:
        log(
            f"{row['expr']}: answer {row['count']}, wall min {min(row['wall'])} s, "
            f"JVM CPU min {min(row['jvm_cpu'], default=None)} s {row['jvm_cpu']}"
        )
    return out


def side_by_side(spark: Any, yaml_path: Path, args: argparse.Namespace, pid: int | None) -> Any:
    """Two forms of the whole aggregate plan run in alternating rounds in one JVM (one
    warm-up each, then ``--repeat``); their answers must be equal, output by output.

    The first form is planned with ``--off FUNCTION`` (a dotted path, e.g.
    ``assay.planner.values.ridden``: that planner function turned into one returning its
    first argument unchanged, the step off) and ``--planner KEY=VALUE`` (fields of
    ``PlannerOptions``), and run with ``--session KEY=VALUE`` (Spark SQL confs set around
    each of its runs, then unset): ``off`` (with ``--off``) or ``with``; the second as a
    run plans it now: ``on`` or ``as is``."""
    from assay.config import load_suite
    from assay.emit import spark as emit
    from assay.executor.prepare import prepare
    from assay.executor.run import optimizer_rule_excluded
    from assay.planner.cost import MERGE_SUBPLANS_RULE

    table = load_suite([yaml_path]).tables[0]
    changed = "off" if args.off else "with"
    with _changed(args) as options:
        first = prepare(spark, table, options)
    forms = {changed: first, "on" if args.off else "as is": prepare(spark, table)}
    conf = {changed: dict(_pair(p) for p in args.session or [])}
    what = " ".join([*([args.off] if args.off else []), *(args.planner or []),
                     *(f"conf {c}" for c in args.session or [])])  # fmt: skip
    calls = {k: _with_conf(spark, conf.get(k, {}), lambda p=p: emit.aggregate_frame(
                 p.df, p.planned.plan.aggregate, p.refs or None).collect()[0].asDict())
             for k, p in forms.items()}  # fmt: skip
    out: dict[str, Any] = {"function": what, "rounds": args.repeat, "forms": list(forms)}
    with optimizer_rule_excluded(spark, MERGE_SUBPLANS_RULE, True):
        sizes = {k: _with_conf(spark, conf.get(k, {}), lambda p=p: method_sizes(spark, (
                     emit.aggregate_frame(p.df, p.planned.plan.aggregate, p.refs or None))))()
                 for k, p in forms.items()}  # fmt: skip
        answers = {k: call() for k, call in calls.items()}  # warm-up
        first, second = (answers[k] for k in forms)
        shared = sorted(set(first) & set(second))
        out["answers_equal"] = all(first[c] == second[c] for c in shared)
        out["outputs_compared"] = len(shared)
        runs = rounds(calls, pid, args.repeat)
    for k, p in forms.items():
        branches = p.planned.plan.aggregate.branches
        out[k] = {**runs[k], "branches": [type(b).__name__ for b in branches],
                  "outputs": [len(b.slots) for b in branches],
                  "method_sizes": sizes[k]}  # fmt: skip
        log(f"{what} {k}: JVM CPU {runs[k]['jvm_cpu']}, wall {runs[k]['wall']}")
    return out


@contextlib.contextmanager
def _changed(args: argparse.Namespace | None) -> Iterator[Any]:
    """The planner options of ``args.planner`` (the defaults without), with the planner
    function ``args.off`` returning its first argument while the block plans."""
    import importlib
    from unittest import mock

    from assay.planner.cost import DEFAULT_OPTIONS

    options = replace_options(DEFAULT_OPTIONS, (args.planner if args else None) or [])
    if args is None or not args.off:
        yield options
        return
    importlib.import_module(args.off.rsplit(".", 1)[0])
    with mock.patch(args.off, lambda first, *_, **__: first):
        yield options


def _pair(text: str) -> tuple[str, str]:
    key, _, value = text.partition("=")
    if not key or not _:
        raise SystemExit(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value.strip()


def replace_options(options: Any, pairs: list[str]) -> Any:
    """``PlannerOptions`` with the ``KEY=VALUE`` fields replaced (each value read as the
    field's current type: an int, a bool or a string)."""
    import dataclasses

    changes: dict[str, Any] = {}
    for key, value in map(_pair, pairs):
        current = getattr(options, key)
        if isinstance(current, bool):
            changes[key] = value.lower() in ("1", "true", "yes", "on")
        else:
            changes[key] = type(current)(value)
    return dataclasses.replace(options, **changes)


def _with_conf(spark: Any, conf: dict[str, str], call: Any) -> Any:
    """``call`` run with the session's SQL ``conf`` set, each unset (back to its value
    before) afterwards."""
    if not conf:
        return call

    def run() -> Any:
        before = {k: spark.conf.get(k, None) for k in conf}
        for k, v in conf.items():
            spark.conf.set(k, v)
        try:
            return call()
        finally:
            for k, v in before.items():
                spark.conf.unset(k) if v is None else spark.conf.set(k, v)

    return run


def format_table(document: dict[str, Any]) -> str:
    if "runs" in document:
        d = document["runs"]
        how = "each in a session of its own" if d["new_sessions"] else "in one session"
        server = " (a server without per-session class loaders)" if d["shared_sessions"] else ""
        settings = f", settings {', '.join(d['session'])}" if d["session"] else ""
        lines = [
            f"{document['suite']} rules at SF{document['scale']:g}, whole runs {how}"
            f"{server}{settings}",
            f"{'run':>4} {'wall s':>7} {'JVM cpu s':>9} {'JIT s':>6} {'compiled':>8}",
        ]
        for k, r in enumerate(d["runs"], 1):
            lines.append(f"{k:>4} {r['wall']:>7} {r.get('jvm_cpu', '-')!s:>9} "
                         f"{r.get('jit', '-')!s:>6} {r['classes_compiled']!s:>8}")  # fmt: skip
        return "\n".join(lines)
    if "fused" in document:
        return "\n".join(
            f"{k:>6}: "
            + ", ".join(f"{kind} min {min(v, default='-')} {v}" for kind, v in r.items())
            for k, r in document["fused"].items()
        )
    if "side_by_side" in document:
        d = document["side_by_side"]
        forms = d.get("forms", ["off", "on"])
        return "\n".join(
            [f"{d['function']} {' / '.join(forms)}, {d['rounds']} alternating rounds; answers "
             f"equal: {d['answers_equal']} ({d['outputs_compared']} outputs)"]
            + [f"  {k:>5}: JVM CPU min {min(d[k]['jvm_cpu'], default='-')} s {d[k]['jvm_cpu']}, "
               f"wall min {min(d[k]['wall'])} s, {len(d[k]['branches'])} branches, outputs "
               f"{d[k].get('outputs')}, largest methods {d[k].get('method_sizes')}"
               for k in forms]
        )  # fmt: skip
    if "expressions" in document:
        return "\n".join(
            f"{min(r['wall']):>7} {min(r['jvm_cpu'], default='-')!s:>9}  "
            f"answer {r['count']}  {r['expr']}"
            for r in document["expressions"]
        )
    lines = [
        f"{document['suite']} rules at SF{document['scale']:g}: each part alone "
        f"(min of {document['repeat']}; JVM CPU = the server's user+system seconds)",
        f"{'wall s':>7} {'JVM cpu s':>9}  part",
    ]
    for p in document["parts"]:
        cpu = p["jvm_cpu"]["min"] if p.get("jvm_cpu") else "-"
        lines.append(f"{p['wall']['min']:>7} {cpu!s:>9}  {p['name']}")
        sizes = p.get("method_sizes")
        if sizes:
            lines.append(f"{'':>19}largest generated method per codegen stage: {sizes} bytes")
        lines.append(
            f"{'':>19}rules {len(p['rules'])} {p['rule_types']}; reads {', '.join(p['columns'])}"
        )
        profile = p.get("jfr")
        if profile and profile["samples"]:
            top = "; ".join(
                f"{f.rsplit('.', 2)[-2]}.{f.rsplit('.', 1)[-1]} {s:.0%}"
                for f, _, s in profile["self"][:6]
            )
            lines.append(f"{'':>19}JFR {profile['samples']} samples, self: {top}")
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument(
        "--suite", type=int, default=100, help="the N-rule suite of benchmarks/suites.py"
    )
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--jfr", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--jfr-runs", type=int, default=2, help="runs of each part under the recorder")
    ap.add_argument("--top", type=int, default=15, help="frames listed per part")
    ap.add_argument("--remote", help="sc:// URL of a running server (default: an embedded one)")
    ap.add_argument(
        "--ui-url", help="the server's UI (with --remote and --runs: the classes compiled)"
    )
    ap.add_argument(
        "--expr",
        action="append",
        help="instead of the plan: count_if(EXPR) over the data, each given form side by side",
    )
    ap.add_argument(
        "--agg",
        action="append",
        help="instead of the plan: the aggregates AGG1;;AGG2 (SQL) in one df.agg, each given "
        "form side by side (with --expr forms too)",
    )
    ap.add_argument(
        "--off",
        help="instead of the parts: the whole plan with this planner function (dotted path) "
        "returning its first argument, and as it is, side by side",
    )
    ap.add_argument(
        "--planner",
        action="append",
        help="instead of the parts: the whole plan as planned now and planned with this "
        "PlannerOptions field (KEY=VALUE, repeatable), side by side",
    )
    ap.add_argument(
        "--session",
        action="append",
        help="with --planner (or alone): a Spark SQL conf KEY=VALUE set around the second "
        "form's runs; with --runs: set in each run's session before it (repeatable)",
    )
    ap.add_argument(
        "--parts",
        action="store_true",
        help="with --off/--planner: profile each part of the plan so planned (not side by side)",
    )
    ap.add_argument(
        "--server-conf",
        action="append",
        help="a setting KEY=VALUE of the embedded server (its start: static settings such "
        "as spark.sql.codegen.cache.maxEntries)",
    )
    ap.add_argument(
        "--fused",
        action="store_true",
        help="instead of the parts: the whole plan and its branches one after another, "
        "side by side, with the JVM's CPU by kind of thread",
    )
    ap.add_argument(
        "--runs",
        type=int,
        default=0,
        help="instead of the parts: the suite run whole (assay.run) this many times, with "
        "the classes Spark compiled for each run",
    )
    ap.add_argument(
        "--new-sessions",
        action="store_true",
        help="with --runs: each run in a session of its own, as each command has",
    )
    ap.add_argument(
        "--shared-sessions",
        action="store_true",
        help="the embedded server as the warm server runs it: no class loader per session",
    )
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    if args.out is None:
        args.out = RESULTS_DIR / f"branches-sf{args.scale:g}-{args.suite}.json"
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    document = run(args)
    write_json(args.out, document)
    print(format_table(document))
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

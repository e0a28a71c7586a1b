"""The ways of running the same checks that the benchmark compares.

Each strategy takes a :class:`Context` and returns an :class:`Outcome`: which rules failed
(so strategies can be checked against each other) plus strategy-specific facts. Timing
and SQL-execution counting happen around the call, in ``run.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from suites import COLUMNS, Case


@dataclass
class Context:
    spark: Any  # pyspark.sql.connect.session.SparkSession
    data_path: str  # the lineitem parquet file
    cases: list[Case]
    yaml_path: Path  # the same rules as a native assay config
    connect_url: str | None  # unredacted sc:// URL of the same server (for the CLI)
    timeout: float = 1800.0

    @property
    def source_sql(self) -> str:
        """The table as SQL, for ``WITH _validation_df AS (...)``."""
        return "SELECT * FROM parquet.`" + self.data_path.replace("`", "``") + "`"

    def frame(self) -> Any:
        return self.spark.read.parquet(self.data_path)


@dataclass
class Outcome:
    failed: list[int] | None = None  # rule indexes that failed (None: not applicable)
    extra: dict[str, Any] = field(default_factory=dict)


# --- 1. the floor ------------------------------------------------------------------------


def floor(ctx: Context) -> Outcome:
    """One aggregate touching each column once: what reading the data costs."""
    from pyspark.sql.connect import functions as F

    ctx.frame().agg(*(F.count(F.col(c)) for c in COLUMNS)).collect()
    return Outcome()


# --- 2. the hand-written single aggregate -------------------------------------------------


def handwritten(ctx: Context) -> Outcome:
    """One ``df.agg`` with one aggregate per rule (``count_if(bad)``, ``count(DISTINCT)``
    for uniqueness, metrics as they are) plus one ``spark.sql`` holding every SQL rule."""
    df = ctx.frame()
    aggregated = [(i, c) for i, c in enumerate(ctx.cases) if c.agg is not None]
    values: dict[int, Any] = {}
    if aggregated:
        row = df.agg(*(c.agg().alias(f"r{i}") for i, c in aggregated)).collect()[0]
        values.update({i: row[f"r{i}"] for i, _ in aggregated})
    sql_cases = [(i, c) for i, c in enumerate(ctx.cases) if c.kind == "sql"]
    if sql_cases:
        items = ", ".join(f"({c.query}) AS s{i}" for i, c in sql_cases)
        row = ctx.spark.sql(f"WITH _validation_df AS ({ctx.source_sql}) SELECT {items}").collect()[0]
        values.update({i: row[f"s{i}"] for i, _ in sql_cases})
    return Outcome(failed=_failed(ctx.cases, values))


# --- 3. naive: one action per rule --------------------------------------------------------


def naive(ctx: Context) -> Outcome:
    """One Spark action per rule: ``filter(bad).count()``, ``agg(metric)``, ``spark.sql``."""
    df = ctx.frame()
    values = {i: c.naive(df, ctx.spark, ctx.source_sql) for i, c in enumerate(ctx.cases)}
    return Outcome(failed=_failed(ctx.cases, values))


def _failed(cases: list[Case], values: dict[int, Any]) -> list[int]:
    return sorted(i for i, c in enumerate(cases) if not c.ok(values[i]))


# --- 4. assay through the Python API ------------------------------------------------------


def assay_api(ctx: Context) -> Outcome:
    """``load_suite`` + ``run_suite`` on the already-open session."""
    from assay.config import load_suite
    from assay.executor.run import run_suite

    events: list[Any] = []
    suite = load_suite([ctx.yaml_path])
    summary = run_suite(suite, ctx.spark, events.append)
    failed = sorted(e.rule_index for e in events if type(e).__name__ == "RuleResult" and not e.passed)
    errors = [e for e in events if type(e).__name__ == "RuleResult" and e.severity == "error"]
    return Outcome(failed=failed, extra={
        "spark_plans": summary.spark_plans,
        "exit_code": summary.exit_code,
        "rule_errors": len(errors),
        "first_error": errors[0].message if errors else None,
    })


# --- 5. assay through the CLI -------------------------------------------------------------


def assay_command(yaml_paths: list[Path]) -> list[str]:
    return [sys.executable, "-m", "assay", "run", *map(str, yaml_paths), "--no-progress"]


def cli_env(connect_url: str, warm: bool = False) -> dict[str, str]:
    """The environment of an ``assay`` subprocess talking to our server: ``SPARK_REMOTE``
    is what ``--remote`` reads, and keeps the token out of the process list. Not
    ``warm``: the command runs from scratch even when a warm client runs on the machine
    (``ASSAY_NO_WARM_CLIENT``), so that ``assay_cli`` always pays its imports."""
    env = dict(os.environ)
    env["SPARK_REMOTE"] = connect_url
    env.pop("SPARK_CONNECT_AUTHENTICATE_TOKEN", None)
    if warm:
        env.pop("ASSAY_NO_WARM_CLIENT", None)
    else:
        env["ASSAY_NO_WARM_CLIENT"] = "1"
    return env


def assay_cli(ctx: Context, warm: bool = False) -> Outcome:
    """``assay run suite.yaml --remote <url>`` as a subprocess (JSON lines on stdout);
    ``warm``: forwarded to the warm client run.py started (:func:`assay_cli_warm`)."""
    import orjson

    if not ctx.connect_url:
        raise RuntimeError("no connection URL for the CLI (the session handle hides the token)")
    done = subprocess.run(
        assay_command([ctx.yaml_path]), env=cli_env(ctx.connect_url, warm), capture_output=True,
        timeout=ctx.timeout, check=False,
    )
    if done.returncode not in (0, 1):
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-5:]
        raise RuntimeError(f"assay run exited {done.returncode}: " + " | ".join(tail))
    lines = [orjson.loads(line) for line in done.stdout.splitlines() if line.strip()]
    results = [e for e in lines if e.get("event") == "result"]
    summary = next((e for e in lines if e.get("event") == "summary"), {})
    return Outcome(
        failed=sorted(e["rule_index"] for e in results if not e["passed"]),
        extra={"spark_plans": summary.get("spark_plans"), "exit_code": done.returncode},
    )


def assay_cli_warm(ctx: Context) -> Outcome:
    """``assay_cli`` with a warm client on the machine (``assay server start`` starts one;
    run.py starts it alone, beside its own server, when this strategy is asked for): the
    same fresh ``assay run`` process, forwarded to a fork of a process that has its
    imports done (docs/deployment.md, "The warm client"). The server is the same stock
    Connect server, each run a new session of it."""
    return assay_cli(ctx, warm=True)


STRATEGIES: dict[str, Callable[[Context], Outcome]] = {
    "floor": floor,
    "handwritten": handwritten,
    "naive": naive,
    "assay_api": assay_api,
    "assay_cli": assay_cli,
    "assay_cli_warm": assay_cli_warm,
}
"""Strategy name -> function, in the order they run and are printed."""

DEFAULT_STRATEGIES = tuple(name for name in STRATEGIES if name != "assay_cli_warm")
"""What run.py runs unless told: not the warm client, which it would start (and stop)."""

DESCRIPTIONS = {
    "floor": "one aggregate touching each column once (reading the data)",
    "handwritten": "one hand-written df.agg with every rule (+1 spark.sql for SQL rules)",
    "naive": "one Spark action per rule",
    "assay_api": "assay: load_suite + run_suite on the open session",
    "assay_cli": "assay run suite.yaml --remote <same server> (subprocess)",
    "assay_cli_warm": "assay_cli forwarded to a warm client (its imports done)",
}


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value

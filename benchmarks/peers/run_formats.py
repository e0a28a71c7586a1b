"""Run a format's file through its own engine, on request (the engine side of
``benchmarks/formats.py``).

Started once by ``formats.py`` with the Python of ``benchmarks/.venv-peers``; connects to
``$SPARK_REMOTE`` (the server assay runs on) and answers one JSON line per request line on
stdin, so its runs interleave with assay's and are timed in-process (no Python start-up or
imports in the time):

    {"format": "gx", "file": ".../gx_100.json", "data": ".../lineitem.parquet", "keys": {}}
    -> {"seconds": 12.3, "failed_rules": [5, 27], ...} or {"error": "..."}

Each engine reads the file as its users do: GX's suite JSON as expectation configurations,
Soda's checks file as SodaCL text, DQX's checks file through ``apply_checks_by_metadata``,
the contract through datacontract-cli's ``DataContract(...).test()`` on the session's
Spark (its ``dataframe`` server: the view ``lineitem``). The runs themselves are the peers
adapters' (``run_peers.gx_validate``, ``soda_scan``, ``dqx_failed``). Whatever an engine
prints goes to stderr; stdout carries the answers only.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import run_peers  # noqa: E402


def run_gx(spark: Any, df: Any, path: Path, request: dict[str, Any]) -> dict[str, Any]:
    from great_expectations.expectations.expectation_configuration import ExpectationConfiguration

    suite = json.loads(path.read_text())
    expectations = [ExpectationConfiguration(type=e["type"], kwargs=e["kwargs"],
                                              meta=e.get("meta")).to_domain_obj()
                    for e in suite["expectations"]]
    return {"failed_rules": run_peers.gx_validate(spark, df, expectations)}


def run_soda(spark: Any, df: Any, path: Path, request: dict[str, Any]) -> dict[str, Any]:
    import yaml

    text = path.read_text()
    count = sum(len(checks) for checks in yaml.safe_load(text).values())
    return {"failed_rules": run_peers.soda_scan(spark, df, text, count)}


def run_dqx(spark: Any, df: Any, path: Path, request: dict[str, Any]) -> dict[str, Any]:
    import yaml
    from databricks.labs.dqx.engine import DQEngine

    checks = yaml.safe_load(path.read_text())
    engine = DQEngine(run_peers._dqx_workspace_client(), spark=spark)  # noqa: SLF001
    return {"failed_rules": run_peers.dqx_failed(engine.apply_checks_by_metadata(df, checks))}


def run_odcs(spark: Any, df: Any, path: Path, request: dict[str, Any]) -> dict[str, Any]:
    """``datacontract test`` on the contract's ``spark`` server (a Spark session's view)."""
    from datacontract.data_contract import DataContract

    df.createOrReplaceTempView(request.get("table", "lineitem"))
    run = DataContract(data_contract_file=str(path), server="spark", spark=spark).test()
    keys: dict[str, int] = request["keys"]
    failed, unmapped, seen = set(), [], set()
    for check in run.checks:
        result = str(getattr(check.result, "value", check.result))
        seen.add(check.key)
        if result == "passed":
            continue
        if check.key in keys:
            failed.add(keys[check.key])
        else:  # a check of the contract's own (types, presence) or of the run (lint)
            unmapped.append({"key": check.key, "result": result, "reason": str(check.reason)[:300]})
    return {"failed_rules": sorted(failed), "unmapped_failures": unmapped,
            "keys_not_run": sorted(set(keys) - seen), "checks": len(run.checks),
            "run_result": str(getattr(run.result, "value", run.result))}


ENGINES = {"gx": run_gx, "soda": run_soda, "dqx": run_dqx, "odcs": run_odcs}


def versions() -> dict[str, str | None]:
    from importlib import metadata

    out: dict[str, str | None] = {}
    for name in ("great-expectations", "soda-core-spark-df", "databricks-labs-dqx",
                 "datacontract-cli", "ibis-framework", "pyspark"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def answer(spark: Any, request: dict[str, Any]) -> dict[str, Any]:
    try:
        df = spark.read.parquet(request["data"])
        start = time.perf_counter()
        reply = ENGINES[request["format"]](spark, df, Path(request["file"]), request)
        reply["seconds"] = round(time.perf_counter() - start, 3)
        if request["format"] == "gx":
            df.unpersist()
        return reply
    except Exception as exc:  # noqa: BLE001 - an engine that fails is recorded
        return {"error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:600]}",
                "traceback": traceback.format_exc()[-2000:]}


def main() -> int:
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # the engines' prints and progress bars go to stderr
    sys.stdout = sys.stderr
    os.environ.update(run_peers.PEER_ENV)
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(os.environ["SPARK_REMOTE"]).getOrCreate()
    answers.write(json.dumps({"ready": True, "versions": versions()}) + "\n")
    answers.flush()
    for line in sys.stdin:
        if line.strip():
            answers.write(json.dumps(answer(spark, json.loads(line)), default=str) + "\n")
            answers.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""First runs of drift against history, many tables at once, against Spark's subquery pool.

A first run (no stored count yet) sets the sketches' sampling rate from exact counts in a
scalar subquery (emit/drift.sketch_frame). Spark runs a query's scalar subqueries on a
pool of 16 threads (``spark.sql.subquery.maxThreadThreshold``, static); a subquery whose
own plan holds a subquery waits on that pool from inside it. Here 17 tables (one more than
the pool's threads) run their first run at once, each read through a SQL source that holds
a scalar subquery of its own (so each counting subquery nests one): every table finishes,
every result is judged. (Later runs take the rate from the stored counts, no subquery:
tests/integration/test_drift_history_rate.py.)"""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

import numpy as np
import pytest
import yaml

import assay
from tests.monitoring.scenario import run_time

pytestmark = pytest.mark.spark

TABLES = 17
ROWS = 300


def _config(spark, root: Path) -> Path:
    rows = np.random.default_rng(7).normal(0, 1, (TABLES * ROWS, 2))
    data = root / "data.parquet"  # one write: the tables are its partitions
    frame = [(i // ROWS, float(x), float(y)) for i, (x, y) in enumerate(rows)]
    spark.createDataFrame(frame, "t int, x double, y double").write.partitionBy("t").parquet(
        str(data)
    )
    tables = []
    for i in range(TABLES):
        source = f"parquet.`{data}/t={i}`"
        nested = f"SELECT * FROM {source} WHERE x > (SELECT min(x) - 1 FROM {source})"
        rules = [{"type": "drift", "column": c, "method": "ks", "references": {"history": "last"}}
                 for c in ("x", "y")]  # fmt: skip
        tables.append({"name": f"t{i}", "source": {"sql": nested}, "rules": rules})
    config = root / "pool.yaml"
    config.write_text(yaml.safe_dump({"version": 1, "tables": tables}))
    return config


def _subqueries(server, since: int) -> list[int]:
    """Per SQL execution since ``since``: the scalar subqueries its physical plan runs."""
    server.sql_executions()  # the application id
    url = (f"{server.ui_url}/api/v1/applications/{server._app_id}/sql"  # noqa: SLF001
           f"?offset={since}&length=1000&details=true&planDescription=true")  # fmt: skip
    with urllib.request.urlopen(url, timeout=60) as r:
        plans = [e.get("planDescription", "") for e in json.load(r)]
    return sorted(len(set(re.findall(r"Subquery subquery#(\d+)", p))) for p in plans)


def test_seventeen_first_runs_at_once_all_finish(server, spark, tmp_path):
    config = _config(spark, tmp_path)
    before = server.sql_executions()
    found = assay.run(config, spark=spark, metrics=str(tmp_path / "m.jsonl"), run_time=run_time(1),
                      concurrency=TABLES, plan_timeout=300)  # fmt: skip
    results = [e.to_dict() for e in found.events if e.to_dict().get("event") == "result"]
    assert len(results) == 2 * TABLES and found.passed, [r["message"] for r in results]
    first = "no distribution stored by an earlier run"
    assert all(first in r["message"] for r in results), {r["message"] for r in results}
    # each table's plan runs its counting subquery, which holds the source's own: at
    # least 17 x 2 subqueries at once on the pool's 16 threads
    subqueries = _subqueries(server, before)
    assert sum(n >= 2 for n in subqueries) >= TABLES, subqueries

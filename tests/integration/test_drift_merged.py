"""``drift`` rules against one referenced source share one branch of the table's
aggregate plan: every drifting column of the table and of the reference stacked as
(column, value) rows from ONE read of each, grouped by (column, value), the windows
partitioned by column, the rules' outputs read apart after.

The merged form is held against the same rules one at a time (each its own branch, as
before the merge, by a filter of its own that keeps every row), on data built to break it: columns of different types
(double, decimal(38,18), int read as a number and as categories, a string), different
bins per rule, NULL, NaN and infinities, a range wider than a double, a reference
column of another name and type, an all-null reference column, an empty reference, the
same column twice with two methods, two references and a filter. Every result (value,
severity, ``details.drift``) is equal (the Wasserstein distance, a sum of doubles in
Spark, within 1e-13 relative: the order of the sum differs). The merged table's plan is one SQL execution in
which each parquet source is scanned once (the physical plan, from the Spark UI)."""

from __future__ import annotations

import json
import math
import urllib.request
from typing import Any

import pytest

from tests.helpers import run_config, write_config

pytestmark = pytest.mark.spark

ROWS = 400


def _table_rows(rng: Any) -> list[tuple]:
    rows = []
    for n in range(ROWS):
        d = rng.normal(0, 1)
        special = {3: None, 7: math.nan, 11: math.inf, 13: -math.inf, 17: -0.0, 19: 0.0}
        d = special.get(n, d)
        wide = 1e308 if n == 5 else -1e308 if n == 6 else rng.normal(5, 2)
        dec = None if n == 9 else f"{rng.normal(100, 10):.12f}"
        rows.append((d, dec, n % 7 if n != 8 else None, "abcde"[n % 5] if n % 31 else None, wide))
    return rows


def _reference_rows(rng: Any) -> list[tuple]:
    rows = []
    for n in range(ROWS // 2):
        d = rng.normal(0.3, 1.2) if n != 4 else math.nan
        rows.append(
            (d, f"{rng.normal(103, 12):.12f}", n % 9, "abcdf"[n % 5], rng.normal(5, 2),
             rng.lognormal(0, 1), None)
        )  # fmt: skip
    return rows


@pytest.fixture(scope="module")
def sources(spark, tmp_path_factory) -> dict[str, str]:
    import numpy as np

    base = tmp_path_factory.mktemp("drift_merged")
    rng = np.random.default_rng(11)
    table = spark.createDataFrame(
        _table_rows(rng), "d double, dec string, i int, s string, wide double"
    ).selectExpr("d", "CAST(dec AS DECIMAL(38,18)) AS dec", "i", "s", "wide")
    reference = spark.createDataFrame(
        _reference_rows(rng),
        "d double, dec string, i bigint, s string, wide double, other double, e double",
    ).selectExpr("d", "CAST(dec AS DECIMAL(38,18)) AS dec", "i", "s", "wide", "other", "e")
    paths = {"table": str(base / "table.parquet"), "ref": str(base / "ref.parquet")}
    table.coalesce(1).write.parquet(paths["table"])
    reference.coalesce(1).write.parquet(paths["ref"])
    return paths


def _rules(paths: dict[str, str]) -> list[dict[str, Any]]:
    ref = {"path": paths["ref"], "format": "parquet"}
    other = {"sql": f"SELECT d * 2 AS d, s FROM parquet.`{paths['ref']}` WHERE i % 2 = 0"}
    empty = {"sql": f"SELECT d, s FROM parquet.`{paths['ref']}` WHERE false"}

    def rule(column: str, method: str, bins: Any, references: dict, **more: Any) -> dict:
        return {"type": "drift", "column": column, "method": method, "bins": bins,
                "references": dict(references), "must_be": ">= 0", **more}  # fmt: skip

    return [
        rule("d", "psi", 10, ref),
        rule("d", "ks", 10, ref),  # the same column, another method (sorted)
        rule("d", "wasserstein", 4, ref),
        rule("d", "js", 3, ref),
        rule("d", "kl", 1, ref),
        rule("dec", "kl", 5, ref),
        rule("dec", "ks_p_value", 10, ref),
        rule("i", "psi", 7, ref),  # int as a number (the reference's bigint)
        rule("i", "chi_square_p_value", "values", ref),  # and as categories
        rule("s", "chi_square", "values", ref),
        rule("s", "psi", "values", ref),
        rule("wide", "ks", 10, ref),  # a range wider than a double: no bins
        rule("wide", "psi", 10, ref),
        rule("wide", "wasserstein", 10, ref),
        rule("d", "psi", 6, {**ref, "column": "other"}),  # another referenced column
        rule("d", "ks", 10, {**ref, "column": "e"}),  # an all-null one
        rule("d", "psi", 10, ref, filter="i > 2"),  # a filter: a branch of its own
        rule("s", "js", "values", ref, filter="i > 2"),
        rule("d", "ks", 10, other),  # a second reference
        rule("s", "js", "values", other),
        rule("d", "psi", 10, empty),  # an empty reference
        rule("s", "chi_square", "values", empty),
    ]


def _last_plan(server: Any) -> str:
    """The physical plan of the server's last SQL execution (Spark UI)."""
    server.sql_executions()
    app = server._app_id
    url = f"{server.ui_url}/api/v1/applications/{app}/sql?offset={server._counted - 1}&length=1"
    url += "&details=true&planDescription=true"
    with urllib.request.urlopen(url, timeout=60) as r:
        (execution,) = json.load(r)
    return execution["planDescription"]


def test_merged_equals_one_rule_at_a_time(server, spark, sources, tmp_path):
    import yaml

    rules = _rules(sources)
    source = {"path": sources["table"], "format": "parquet"}
    merged = {"tables": [{"name": "merged", "source": source, "rules": rules}]}
    before = server.sql_executions()
    events = run_config(spark, write_config(tmp_path, yaml.safe_dump(merged))).events
    assert server.sql_executions() - before == 1
    plan = _last_plan(server)
    # the table: its scan aggregate, then once per reference and filter (the reference
    # unfiltered, filtered, `other`, `empty`); the reference once per branch reading it
    # (`empty` is no scan: Spark drops a read under WHERE false): 23 and 20 one at a time
    scans = {k: plan.count(f"InMemoryFileIndex [file:{p}]") for k, p in sources.items()}
    assert scans == {"table": 1 + 4, "ref": 3}, plan
    # one rule at a time: each its own branch, by a filter of its own keeping every row
    # (one plan: cheaper than a table per rule, the same single-rule branch)
    alone = [dict(r, filter=f"{r.get('filter') or 'true'} AND coalesce(i, 0) > -{n + 1}")
             for n, r in enumerate(rules)]  # fmt: skip
    config = {"tables": [{"name": "alone", "source": source, "rules": alone}]}
    singles = run_config(spark, write_config(tmp_path, yaml.safe_dump(config), "alone.yaml"))
    assert server.sql_executions() - before == 2
    scans = {
        k: _last_plan(server).count(f"InMemoryFileIndex [file:{p}]") for k, p in sources.items()
    }
    assert scans == {"table": 1 + len(rules), "ref": len(rules) - 2}
    got = [e for e in events if e.get("event") == "result"]
    one = [e for e in singles.events if e.get("event") == "result"]
    assert len(got) == len(rules) == len(one)
    for rule, result, single in zip(rules, got, one, strict=True):
        # the Wasserstein distance is a sum of doubles in Spark: its order may differ
        tol = 1e-13 if rule["method"] == "wasserstein" else 0.0
        for key in ("metric_value", "severity", "passed", "details"):
            assert _same(result.get(key), single.get(key), tol), (rule, key, result, single)
    values = [r["metric_value"] for r in got]
    assert sum(v is None for v in values) >= 4  # the empty sides and the wide bins
    assert sum(v is not None and v > 0 for v in values) >= 12


def _same(a: Any, b: Any, tol: float) -> bool:
    """Equal (numbers within ``tol`` relative), NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=tol) or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k], tol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y, tol) for x, y in zip(a, b, strict=True))
    return a == b

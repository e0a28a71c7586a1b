"""``drift``: a column's distribution against a referenced source's, in the table's one
aggregate plan.

Every method's number equals scipy's (and numpy.histogram's bins, Soda's PSI formula)
computed in Python on the same samples (tests/differential/drift_oracle.py), to 1e-12
relative: normal, shifted, skewed and tied samples, NULLs, NaN and infinities left out
and counted, categories new and missing on either side, an empty side (no value). Then
known distributions over 20 seeds: a shifted normal flagged by every method at its
default threshold, the same distribution resampled flagged at most at the documented
false-positive rate. Each run is one Spark plan (counted by the Spark UI)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.differential.drift_oracle import drift_value
from tests.helpers import run_config, validate_event, write_config

pytestmark = pytest.mark.spark

ROWS = 600
METHODS = ("psi", "js", "kl", "ks", "ks_p_value", "wasserstein", "chi_square", "chi_square_p_value")


def _samples() -> dict[str, tuple[list, list]]:
    rng = np.random.default_rng(7)
    normal = rng.normal(0, 1, ROWS).tolist()
    tied = rng.integers(0, 5, ROWS).astype(float).tolist()
    special = [*rng.normal(0, 1, ROWS - 9).tolist(), None, None, math.nan, math.inf, -math.inf,
               None, math.nan, 0.0, -0.0]  # fmt: skip
    return {
        "normal": (normal, rng.normal(0, 1, ROWS // 2).tolist()),
        "shifted": (normal, rng.normal(0.4, 1.2, ROWS).tolist()),
        "skewed": (rng.lognormal(0, 1, ROWS).tolist(), rng.lognormal(0.2, 0.8, ROWS).tolist()),
        "tied": (tied, rng.integers(0, 6, ROWS // 3).astype(float).tolist()),
        "special": (special, [*rng.normal(0.1, 1, ROWS // 2).tolist(), None, math.nan]),
        "empty": (normal, [None] * 10),
        # a range wider than a double (1e308 - -1e308): no bins, yet KS and Wasserstein
        # compare every finite value (numpy.histogram refuses the bins, scipy does not)
        "overflow": (
            [*rng.normal(0, 1, ROWS - 3).tolist(), -1e308, 1e308, 5e-324],
            [*rng.normal(0, 1, ROWS // 2).tolist(), -1e308, math.inf],
        ),
    }


CATEGORIES = (
    ["a"] * 300 + ["b"] * 200 + ["c"] * 99 + [None],
    ["a"] * 100 + ["b"] * 150 + ["d"] * 50 + [None] * 5,  # c missing, d new
)


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> dict[str, str]:
    import pandas as pd

    base = tmp_path_factory.mktemp("drift")
    paths = {}
    for side in (0, 1):
        columns = {k: pd.Series(v[side], dtype="float64") for k, v in _samples().items()}
        columns["cat"] = pd.Series(CATEGORIES[side], dtype="object")
        frame = pd.DataFrame(columns)  # shorter columns padded with nulls (left out)
        path = str(base / f"side{side}.parquet")
        spark.createDataFrame(frame).coalesce(1).write.parquet(path)
        paths[side] = path
    return paths


def _rules(columns: list[str], methods: tuple[str, ...], bins: object, ref: str) -> list[dict]:
    return [
        {"type": "drift", "column": c, "method": m, "bins": b, "references": {"path": ref,
         "format": "parquet"}, "must_be": ">= 0"}
        for c in columns for m in methods for b in ([bins] if not isinstance(bins, list) else bins)
        if not (b == "values" and m in ("ks", "ks_p_value", "wasserstein"))
    ]  # fmt: skip


def test_every_method_equals_scipy(spark, server, data, tmp_path):
    import yaml

    numeric = list(_samples())
    rules = _rules(numeric, METHODS, [1, 4, 10], data[1]) + _rules(
        ["cat"], METHODS, "values", data[1]
    )
    config = {"tables": [{"name": "t", "source": {"path": data[0], "format": "parquet"},
                          "rules": rules}]}  # fmt: skip
    path = write_config(tmp_path, yaml.safe_dump(config))
    before = server.sql_executions()
    events = run_config(spark, path).events
    assert server.sql_executions() - before == 1  # every rule in the table's one plan
    results = [e for e in events if e.get("event") == "result"]
    assert len(results) == len(rules)
    samples = {**_samples(), "cat": CATEGORIES}
    worst = 0.0
    for rule, got in zip(rules, results, strict=True):
        validate_event(got)
        table, reference = samples[rule["column"]]
        expected = drift_value(rule, table, reference)
        value = got["metric_value"]
        if expected is None:  # an empty side: no value, the rule fails
            assert value is None and got["severity"] == "fail", (rule, got)
            continue
        assert value is not None, (rule, got)
        error = abs(value - expected) / max(abs(expected), 1e-300)
        if expected == 0:
            error = abs(value)
        worst = max(worst, error)
        assert error <= 1e-12, (rule, value, expected)
        drift = got["details"]["drift"]
        assert drift["method"] == rule["method"]
    print(f"worst relative difference from scipy over {len(rules)} rules: {worst:.3g}")


def test_counts_left_out(spark, data, tmp_path):
    path = write_config(
        tmp_path,
        f"""
        tables:
          - name: t
            source: {{path: {data[0]}, format: parquet}}
            rules:
              - {{type: drift, column: special, method: ks,
                  references: {{path: {data[1]}, format: parquet}}}}
              - {{type: drift, column: cat, method: chi_square_p_value,
                  references: {{path: {data[1]}, format: parquet}}}}
        """,
    )
    ks, chi = (e for e in run_config(spark, path).events if e.get("event") == "result")
    table = ks["details"]["drift"]["table"]
    # 9 specials: 3 nulls, 2 NaN (nulls once through pandas), 2 infinities left out
    assert (table["null"] + table["nan"], table["infinite"]) == (5, 2)
    assert table["compared"] == ROWS - 9 + 2
    cat = chi["details"]["drift"]
    assert cat["table"] == {"compared": 599, "null": ROWS - 599, "nan": 0, "infinite": 0}
    moved = {m["bin"] for m in cat["moved"]}
    assert {"c", "d"} <= moved


SEEDS = 20
FALSE_POSITIVES = 3
"""Same-distribution samples flagged at a default threshold, at most, over 20 seeds
(a test at p 0.05 is expected to flag one in 20)."""
MOVED_SEEDS = 5
"""Shifted samples, every one flagged: half a standard deviation over 2,000 rows is far
past every method's threshold (KS: 0.2 against 0.043 at p 0.05), so a few seeds catch a
method that misses it; the false positives need the 20 (one plan of 125 rules, not 200)."""


def test_shift_flagged_and_resampling_not(spark, tmp_path):
    import pandas as pd
    import yaml

    ours, same, moved = {}, {}, {}
    for seed in range(SEEDS):
        rng = np.random.default_rng(1000 + seed)
        ours[f"s{seed}"] = rng.normal(10, 2, 2000)
        same[f"s{seed}"] = rng.normal(10, 2, 2000)
        moved[f"s{seed}"] = rng.normal(11, 2, 2000)  # half a standard deviation
    paths = {}
    for name, columns in (("ours", ours), ("same", same), ("moved", moved)):
        paths[name] = str(tmp_path / f"{name}.parquet")
        spark.createDataFrame(pd.DataFrame(columns)).coalesce(1).write.parquet(paths[name])
    methods = ("psi", "js", "kl", "ks", "ks_p_value")
    rules = [
        {"type": "drift", "column": c, "method": m, "references": {"path": paths[side],
         "format": "parquet"}, "name": f"{side} {m}"}
        for side, seeds in (("same", SEEDS), ("moved", MOVED_SEEDS))
        for c in list(ours)[:seeds] for m in methods
    ]  # fmt: skip
    config = {"tables": [{"name": "t", "source": {"path": paths["ours"], "format": "parquet"},
                          "rules": rules}]}  # fmt: skip
    results = [
        e
        for e in run_config(spark, write_config(tmp_path, yaml.safe_dump(config))).events
        if e.get("event") == "result"
    ]
    flagged: dict[str, int] = {}
    for rule, got in zip(rules, results, strict=True):
        flagged[rule["name"]] = flagged.get(rule["name"], 0) + (got["severity"] != "pass")
    print(f"flagged of {SEEDS} and {MOVED_SEEDS} seeds:", flagged)
    for m in methods:
        assert flagged[f"moved {m}"] == MOVED_SEEDS, (m, flagged)
        assert flagged[f"same {m}"] <= FALSE_POSITIVES, (m, flagged)

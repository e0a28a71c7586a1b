"""One table carrying every rule type (and the aliases users reach for): it runs with
exactly the Spark plans `assay explain` predicts, counted by the server's UI REST API, and
every result equals the same rule run alone."""

from __future__ import annotations

import datetime as dt
import json
import time
from decimal import Decimal

import pytest

from assay.dialects.catalogue import RULES
from tests.helpers import assay_cli, run_config, validate_event, write_config

pytestmark = pytest.mark.spark

ROWS = [
    (1, 1.5, 3, Decimal("1.10"), "ann", "ann@x.com", "a", dt.date(2024, 1, 1)),
    (2, 2.5, 0, Decimal("2.20"), "bob", "bob@x.com", "b", dt.date(2024, 1, 2)),
    (3, 4.0, 7, Decimal("0.30"), "cy", "cy@x.org", "a", dt.date(2024, 1, 3)),
    (4, 0.5, 10, Decimal("5.00"), "dee", "dee@x.net", "b", dt.date(2024, 1, 4)),
    (5, 9.0, 5, Decimal("3.33"), "eve", "eve@x.io", "a", dt.date(2024, 1, 5)),
]
COLUMNS = (
    "id long, amount double, qty int, price decimal(10,2), name string, email string,"
    " status string, day date"
)

EVERY = [example for spec in RULES.values() if not spec.custom for example in spec.examples]
"""The catalogue's examples: every rule type and alias, on one table (that it holds
every one is checked without Spark: tests/test_catalogue_coverage.py)."""


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("every") / "every.parquet")
    spark.createDataFrame(ROWS, COLUMNS).write.parquet(path)
    return path


def config(path: str, rules: list[str]) -> str:
    body = "\n".join(f"      - {r}" for r in rules)
    source = f'{{path: "{path}"}}'
    store = "metrics: {path: metrics.jsonl}\n"  # schema_change is judged against a store's
    return f"{store}tables:\n  - name: every\n    source: {source}\n    keys: [id]\n    rules:\n{body}\n"


def explain(path) -> dict:
    proc = assay_cli("explain", str(path), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[0])


@pytest.fixture(scope="module")
def fused(server, data, tmp_path_factory):
    cfg = write_config(tmp_path_factory.mktemp("everyfused"), config(data, EVERY))
    predicted = explain(cfg)
    before, started = server.sql_executions(), time.monotonic()
    out = run_config(server.spark, cfg)
    return out, predicted, server.sql_executions() - before, started


def test_runs_with_the_plans_explain_predicts(fused):
    out, predicted, executed, _ = fused
    assert predicted["spark_plans"] == 2  # aggregate (with the SQL rules), histogram
    assert "histogram (2 columns in one plan" in predicted["text"]
    assert len(predicted["plan"]["histogram"]["columns"]) == 2
    # Both SQL rules only count rows: folded into the aggregate scan, no query left.
    assert "sql rules folded into the aggregate plan" in predicted["text"]
    assert "sql (" not in predicted["text"]
    assert predicted["plan"]["folded_sql"] and predicted["plan"]["sql"] is None
    assert executed == predicted["spark_plans"]
    assert out.tables()["every"]["spark_plans"] == executed
    assert [r["severity"] for r in out.results] == ["pass"] * len(EVERY), [
        (r["rule_index"], r["message"]) for r in out.results if r["severity"] != "pass"
    ]
    for r in out.results:
        validate_event(r)


def test_every_result_equals_the_rule_run_alone(spark, data, fused, tmp_path):
    together = fused[0]
    for index, rule in enumerate(EVERY):
        alone = run_config(spark, write_config(tmp_path, config(data, [rule]), f"r{index}.yaml"))
        mine, theirs = alone.result("every", 0), together.result("every", index)
        for key in ("severity", "failed_count", "samples", "details", "threshold"):
            assert mine[key] == theirs[key], (rule, key)
        # the rule as reported; its store identity tells equal rules of one table apart
        # by order (``#2``), so it is the same only up to that suffix
        mine_rule, their_rule = dict(mine["rule"]), dict(theirs["rule"])
        assert their_rule.pop("id").startswith(mine_rule.pop("id")), rule
        assert mine_rule == their_rule, rule
        if "freshness" in rule:  # measured against the clock: later by at most the time since
            apart = time.monotonic() - fused[3] + 5
            assert -5 <= mine["metric_value"] - theirs["metric_value"] <= apart, rule
        else:
            assert (mine["metric_value"], mine["message"]) == (
                theirs["metric_value"],
                theirs["message"],
            ), rule
        assert mine["row_count"] == (None if "schema" in rule else theirs["row_count"])

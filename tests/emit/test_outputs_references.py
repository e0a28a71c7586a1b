"""A foreign key's failing rows as the dialects' writes take them (``failed_rows``, the
valid/invalid split): the keyed rows without a match among the referenced keys (with one,
when negated), each row once though a referenced key repeats; never every keyed row."""

from __future__ import annotations

import json

import pytest

from assay.api.suites import load
from assay.emit import outputs
from tests.helpers import write_config

pytestmark = pytest.mark.spark

ORDERS = [(1, 10), (2, 11), (3, None), (4, 99), (5, 98), (6, 12), (7, 99), (8, 10)]
CUSTOMERS = [(10,), (10,), (11,), (12,), (None,), (13,)]


@pytest.fixture(scope="module")
def frames(spark, tmp_path_factory):
    base = tmp_path_factory.mktemp("fk_outputs")
    paths = {}
    for name, rows, ddl in (
        ("orders", ORDERS, "id long, customer_id int"),
        ("customers", CUSTOMERS, "id long"),
    ):
        paths[name] = str(base / f"{name}.parquet")
        spark.createDataFrame(rows, ddl).coalesce(1).write.parquet(paths[name])
    return base, paths


def _rules(frames, negate: bool):
    base, paths = frames
    ref = {"path": paths["customers"], "columns": ["id"]}
    rules = [
        {"type": "foreign_key", "column": "customer_id", "negate": negate, "references": ref},
        {"type": "range", "column": "id", "max": 6},
    ]
    table = {"name": "orders", "source": {"path": paths["orders"]}, "rules": rules}
    cfg = write_config(base, json.dumps({"tables": [table]}), f"fk_{negate}.yaml")
    return load(str(cfg), for_run=False).tables[0].rules


@pytest.mark.parametrize(("negate", "failing"), [(False, [4, 5, 7]), (True, [1, 2, 6, 8])])
def test_a_foreign_keys_failing_rows_are_its_unmatched_rows(spark, frames, negate, failing):
    fk, _ = _rules(frames, negate)
    df = spark.read.parquet(frames[1]["orders"])
    rows = outputs.failing_rows(df, ["id", "customer_id"], fk).collect()
    assert sorted(r.id for r in rows) == failing
    assert rows[0].asDict().keys() == {"id", "customer_id"}


@pytest.mark.parametrize(("negate", "invalid"), [(False, [4, 5, 7, 8]), (True, [1, 2, 6, 7, 8])])
def test_the_split_takes_a_foreign_key_as_its_failing_rows(spark, frames, negate, invalid):
    rules = _rules(frames, negate)
    df = spark.read.parquet(frames[1]["orders"])
    valid, bad = outputs.split_rows(df, ["id", "customer_id"], rules)
    assert sorted(r.id for r in bad.collect()) == invalid
    assert sorted(r.id for r in valid.collect()) == sorted(set(range(1, 9)) - set(invalid))

"""The shipped dialect examples load (no Spark; the data-validator one is run by
tests/dialects/data_validator, the others' shapes by their dialect tests)."""

from __future__ import annotations

from tests.conftest import ROOT
from tests.dialects.helpers import load

EXAMPLES = ROOT / "examples"


def test_the_dialect_examples_load():
    dv = load(EXAMPLES / "data_validator" / "people.yaml")
    assert dv.dialects == ("data-validator",) and len(dv.tables) == 3
    assert [d.name for d in dv.deferred] == ["MIN_AGE"] and dv.unresolved_rules == 1
    job = load(EXAMPLES / "metorikku" / "people_job.yaml")
    assert [v.name for v in job.views] == ["people", "adults", "by_dept"]
    assert [t.name for t in job.tables] == ["adults", "by_dept"]
    metric = load(EXAMPLES / "metorikku" / "people_metric.yaml", inputs={"people": "db.people"})
    assert [t.rules for t in metric.tables] == [t.rules for t in job.tables]
    sparquet = load(EXAMPLES / "sparquet" / "orders_validations.json", source="db.orders")
    (table,) = sparquet.tables
    assert table.name == "orders" and len(table.rules) == 9 and len(table.outputs) == 3

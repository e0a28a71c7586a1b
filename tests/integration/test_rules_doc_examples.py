"""The YAML examples of docs/rules.md run: every block is a list of rules, validated on a
table holding the columns they name, with no rule in error (a doc example that stops
running fails here)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
import yaml

import assay
from tests.conftest import ROOT

pytestmark = pytest.mark.spark

BLOCKS = re.findall(r"```yaml\n(.*?)```", (ROOT / "docs" / "rules.md").read_text(), re.S)

T = dt.datetime(2024, 1, 2, 10)
ROWS = [
    (1, "shipped", T, T - dt.timedelta(days=1), "a@x.fr", "FR", dt.date(2024, 1, 1)),
    (2, "open", None, T, None, "FR", dt.date(2024, 1, 1)),
    (3, "shipped", T - dt.timedelta(days=3), T, "c@x.de", "DE", dt.date(2024, 1, 2)),
]
COLUMNS = (
    "id long, status string, shipped_at timestamp, ordered_at timestamp, email string,"
    " country string, day date"
)


def test_the_doc_has_examples():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("block", range(len(BLOCKS)))
def test_a_doc_example_runs(spark, block):
    rules = yaml.safe_load(BLOCKS[block])
    result = assay.validate(spark.createDataFrame(ROWS, COLUMNS), rules, keys=["id"])
    errors = [(r.rule_type, r.message) for r in result.results if r.severity == "error"]
    assert not errors
    assert len(result.results) == len(rules)

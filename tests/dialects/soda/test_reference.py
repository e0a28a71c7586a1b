"""Soda's ``values in (...) must not exist in other (...)`` on the tricky tables
(fixtures/make_data.py), run on Spark. soda-core runs only on classic pyspark, so these
counts are not in oracle.json: they are worked out by hand from Soda's own query
(``execution/query/reference_query.py``, soda-core 3.5.6): ``SOURCE LEFT JOIN TARGET`` on
the keys, counting the joined rows where a source key column is not null and its target
column is not null. A source row is counted once per target row equal to it; a row with a
NULL key column matches nothing; the check fails when the count is above 0."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.dialects.helpers import load, run, write
from tests.dialects.soda.fixtures.make_data import write as write_data
from tests.helpers import validate_event

pytestmark = pytest.mark.spark

CHECKS = """\
filter tricky [big]:
  where: amount > 50

checks for tricky:
  - values in (id) must not exist in ref (id):
      name: ids in ref
  - values in (id) must not exist in tricky (id):
      name: ids in themselves
  - values in (id, code) must not exist in tricky (id, code):
      name: ids and codes in themselves
  - values in (id) must not exist in empty (id):
      name: ids in empty
  - values in (id) must exist in ref (id):
      name: ids not in ref

checks for tricky [big]:
  - values in (id) must not exist in ref (id):
      name: big ids in ref
"""

EXPECTED: dict[str, tuple[str, int, list[Any]]] = {
    # ids 1, 2, 3, 3, 9, 10, 11 are among ref's (1, 2, 3, 9, 10, 11, NULL), once each
    "ids in ref": ("fail", 7, [1, 2, 3, 3, 9, 10, 11]),
    # each row once per row of its id: 1 + 1 + 2*2 (3) + 3*3 (5) + 1 + 1 + 1 + 1 = 19
    "ids in themselves": ("fail", 19, [1, 2, 3, 3, 5, 5, 5, 9, 10, 11, 12]),
    # (5, XY99) twice: 2*2; every other pair with no NULL once; (5, NULL), (NULL, ZZ00) none
    "ids and codes in themselves": ("fail", 12, [1, 2, 3, 3, 5, 5, 9, 10, 11, 12]),
    "ids in empty": ("pass", 0, []),
    # 5 (three rows) and 12 are not in ref; the NULL id passes
    "ids not in ref": ("fail", 4, [5, 5, 5, 12]),
    # amount > 50: ids 5, NULL, 9, 10, 11, 12; 9, 10, 11 are in ref
    "big ids in ref": ("fail", 3, [9, 10, 11]),
}
"""Check name -> (Soda's outcome, Soda's value: the check's count, the failing rows' ids)."""
SAMPLE_SIZE = 5
"""The table's default sample size: the samples are that many of the failing rows."""


@pytest.fixture(scope="module")
def results(spark, tmp_path_factory) -> dict[str, dict[str, Any]]:
    base: Path = tmp_path_factory.mktemp("soda_ref")
    paths = write_data(base)
    checks = write(base, CHECKS, "checks.yml")
    inputs = {name: str(path) for name, path in paths.items()}
    suite = load(checks, inputs=inputs, for_run=True)
    return {r["rule"]["name"]: r for r in run(spark, suite).results}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_soda_outcome_and_value(results, name):
    outcome, value, ids = EXPECTED[name]
    result = results[name]
    validate_event(result)
    assert result["details"]["soda"] == {"outcome": outcome, "value": value}
    assert result["severity"] == outcome
    assert result["failed_count"] == value
    sampled = [s["id"] for s in result["samples"] or ()]  # none when the check passes
    assert len(sampled) == min(SAMPLE_SIZE, len(ids))
    assert not Counter(sampled) - Counter(ids)  # the failing rows, each once


def test_the_matches_are_counted_and_the_rows_sampled(results):
    result = results["ids in themselves"]
    assert "19 of 12 rows' keys matched" in result["message"]
    assert result["expect"]["text"].startswith("id not found in ")

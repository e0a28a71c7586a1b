"""datacontract-cli's own results of the fixture contracts on the tricky tables
(fixtures/oracle.json, recorded by running datacontract-cli 1.2.8 on DuckDB:
fixtures/oracle.py) against assay's run of the same contracts on Spark Connect: an ODCS
v3.2.0 contract (fixtures/contract.yaml) and a datacontract.com 1.2.1 one
(fixtures/dcs_contract.yaml). Every check's result and number must be datacontract-cli's
(docs/dialects.md, "Data contracts")."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.dialects.helpers import load, run
from tests.dialects.odcs.fixtures.make_data import write
from tests.helpers import SCHEMA

FIXTURES = Path(__file__).parent / "fixtures"
ORACLE: dict[str, dict[str, dict[str, Any]]] = json.loads((FIXTURES / "oracle.json").read_text())[
    "contracts"
]
CASES = sorted((contract, key) for contract, checks in ORACLE.items() for key in checks)
RESULTS = {"passed": "pass", "warning": "warn", "failed": "fail"}
WORDS = {"pass": "passed", "warn": "warning", "fail": "failed"}

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def results(spark, tmp_path_factory) -> dict[str, dict[str, dict[str, Any]]]:
    directory = tmp_path_factory.mktemp("odcs")
    write(directory)
    found = {}
    for contract in ORACLE:
        shutil.copy(FIXTURES / contract, directory / contract)
        suite = load(directory / contract, for_run=True)
        ran = run(spark, suite).results
        found[contract] = {r["details"]["odcs"]["key"]: r for r in ran}
    return found


def ours(contract: str, key: str, mine: dict[str, Any]) -> str:
    """The key of assay's rule that answers datacontract-cli's check ``key``: the same,
    but for the checks datacontract-cli splits in two: a column's presence and its type
    (which it does not check in parquet files: a warning), and an exclusive bound (a
    bound, and the bound's value refused)."""
    model, _, rest = key.partition("__")
    field, _, kind = rest.rpartition("__")
    if kind in ("field_is_present", "field_type"):
        return f"{model}__{field}__field_type"
    split = f"{model}__{field}__field_not_equal" in ORACLE[contract]
    if split and kind in ("field_minimum", "field_maximum", "field_not_equal"):
        for side in ("minimum", "maximum"):
            if f"{model}__{field}__field_exclusive_{side}" in mine:
                return f"{model}__{field}__field_exclusive_{side}"
    return key


def _expected(contract: str, key: str, mine: str) -> str:
    """datacontract-cli's verdict; its type check (a warning on parquet) is assay's
    presence and type check, judged from the schema (the tables have the declared types);
    a check it splits fails when either half fails."""
    checks = ORACLE[contract]
    if checks[key]["type"] == "field_type":
        return "pass"
    if mine != key and "__field_exclusive_" in mine:
        model, field = key.split("__")[:2]
        side = "minimum" if mine.endswith("minimum") else "maximum"
        halves = (f"{model}__{field}__field_{side}", f"{model}__{field}__field_not_equal")
        return "fail" if any(checks[h]["result"] == "failed" for h in halves) else "pass"
    return RESULTS[checks[key]["result"]]


def test_every_check_ran(results):
    import jsonschema

    validator = jsonschema.Draft202012Validator(SCHEMA)  # one, for 167 results
    for contract, checks in ORACLE.items():
        mine = results[contract]
        assert {ours(contract, key, mine) for key in checks} == set(mine)
        for result in mine.values():
            validator.validate(result)


@pytest.mark.parametrize(("contract", "key"), CASES, ids=[f"{c}:{k}" for c, k in CASES])
def test_datacontract_cli_result(results, contract, key):
    mine = ours(contract, key, results[contract])
    result = results[contract][mine]
    assert result["severity"] == _expected(contract, key, mine), result["message"]
    assert result["details"]["odcs"]["result"] == WORDS[result["severity"]]


@pytest.mark.parametrize(("contract", "key"), CASES, ids=[f"{c}:{k}" for c, k in CASES])
def test_datacontract_cli_number(results, contract, key):
    oracle = ORACLE[contract][key]
    mine = ours(contract, key, results[contract])
    if oracle["value"] is None or mine != key:
        return  # nothing measured, or a check split in two: its numbers are the halves'
    measured = results[contract][mine]["details"]["odcs"]["measured"]
    if oracle["type"].endswith("quality_sql"):
        assert measured is None  # a SQL check's answer is its boolean query's
        return
    assert measured is not None
    assert math.isclose(measured, oracle["value"], abs_tol=1e-6), (measured, oracle["value"])

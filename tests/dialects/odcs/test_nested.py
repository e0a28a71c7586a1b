"""A data contract's nested properties (an object's ``properties``, an array's
``items``) against datacontract-cli's own results: fixtures/nested_oracle.json, recorded
by running datacontract-cli 1.2.8 (DuckDB, a local parquet server) on the tricky nested
data of fixtures/nested_data.py (NULL parents and children, NULL elements, empty
arrays, repeated items, unicode) with fixtures/nested_contract.yaml and its
datacontract.com twin, fixtures/dcs_nested_contract.yaml (``fields``, ``items``). Every check's
result and number must be datacontract-cli's (docs/dialects.md, "Data contracts");
what it does not check is refused at its place."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest

from assay.errors import ConfigErrors
from tests.dialects.helpers import errors, load, run, write
from tests.dialects.odcs.fixtures.nested_data import write as write_data

FIXTURES = Path(__file__).parent / "fixtures"
ORACLES: dict[str, dict[str, dict[str, Any]]] = json.loads(
    (FIXTURES / "nested_oracle.json").read_text()
)["contracts"]
RESULTS = {"passed": "pass", "warning": "warn", "failed": "fail"}


def ours(key: str, mine: dict[str, Any]) -> str:
    """assay's rule answering datacontract-cli's check ``key``: presence and type are
    one schema check (``field_type``), an exclusive bound one check."""
    model, _, rest = key.partition("__")
    field, _, kind = rest.rpartition("__")
    if kind in ("field_is_present", "field_type") and f"{model}__{field}__field_type" in mine:
        return f"{model}__{field}__field_type"
    for side in ("minimum", "maximum"):
        exclusive = f"{model}__{field}__field_exclusive_{side}"
        if kind in (f"field_{side}", "field_not_equal") and exclusive in mine:
            return exclusive
    return key


def expected(oracle: dict[str, dict[str, Any]], key: str, mine: str) -> str:
    """datacontract-cli's verdict; its type check (a warning on parquet files) is assay's
    schema check, which passes (the data has the declared types); an exclusive bound
    fails when either of datacontract-cli's halves fails."""
    if oracle[key]["type"] in ("field_type", "field_is_present"):
        return "pass"
    if "__field_exclusive_" in mine:
        model, field = key.split("__")[:2]
        side = "minimum" if mine.endswith("minimum") else "maximum"
        halves = (f"{model}__{field}__field_{side}", f"{model}__{field}__field_not_equal")
        return "fail" if any(oracle[h]["result"] == "failed" for h in halves) else "pass"
    return RESULTS[oracle[key]["result"]]


@pytest.fixture(scope="module")
def results(spark, tmp_path_factory) -> dict[str, dict[str, dict[str, Any]]]:
    directory = tmp_path_factory.mktemp("nested")
    write_data(directory)
    found = {}
    for contract in ORACLES:
        shutil.copy(FIXTURES / contract, directory / contract)
        suite = load(directory / contract, for_run=True)
        found[contract] = {r["details"]["odcs"]["key"]: r for r in run(spark, suite).results}
    return found


@pytest.mark.spark
@pytest.mark.parametrize("contract", list(ORACLES))
def test_every_check_agrees(results, contract):
    oracle, mine_all = ORACLES[contract], results[contract]
    assert {ours(key, mine_all) for key in oracle} == set(mine_all)
    wrong = {}
    for key, answer in oracle.items():
        mine = ours(key, mine_all)
        result = mine_all[mine]
        if result["severity"] != expected(oracle, key, mine):
            wrong[key] = (result["severity"], answer["result"], result["message"])
        measured = result["details"]["odcs"]["measured"]
        numbered = answer["value"] is not None and mine == key
        if numbered and (measured is None or not math.isclose(measured, answer["value"])):
            wrong[key] = (measured, answer["value"])
    assert not wrong, wrong
    assert len(oracle) == {"nested_contract.yaml": 108, "dcs_nested_contract.yaml": 102}[contract]


@pytest.mark.spark
def test_a_missing_nested_field_fails_its_type_check(spark, tmp_path):
    write_data(tmp_path)
    path = write(tmp_path, CONTRACT.format(extra="- {name: nickname, logicalType: string}"))
    suite = load(path, for_run=True, inputs={"nested": str(tmp_path / "nested.parquet")})
    found = {r["details"]["odcs"]["key"]: r for r in run(spark, suite).results}
    typed = found["nested__customer.nickname__field_type"]
    assert typed["severity"] == "fail"
    assert "missing column customer.nickname" in typed["message"]


@pytest.mark.spark
def test_a_row_check_of_a_missing_nested_field_is_an_error_before_any_scan(spark, tmp_path):
    write_data(tmp_path)
    extra = "- {name: nickname, logicalType: string, required: true}"
    path = write(tmp_path, CONTRACT.format(extra=extra))
    suite = load(path, for_run=True, inputs={"nested": str(tmp_path / "nested.parquet")})
    with pytest.raises(ConfigErrors, match=r"column 'customer.nickname' does not exist") as raised:
        run(spark, suite)
    assert "c.yaml:12 schema[0].properties[0].properties[0].required: " in str(raised.value)


CONTRACT = """\
apiVersion: v3.2.0
kind: DataContract
id: c
version: 1.0.0
status: active
schema:
  - name: nested
    properties:
      - name: customer
        logicalType: object
        properties:
          {extra}
"""


@pytest.mark.parametrize(
    ("extra", "place", "said"),
    [
        ("- {name: n, logicalType: string, quality: [{metric: nullValues, mustBe: 0}]}",
         "schema[0].properties[0].properties[0].quality", "nested property's quality"),
        ("- {name: m, logicalType: map, map: {key: {logicalType: string}, value: {logicalType: string}}}",
         "schema[0].properties[0].properties[0].map", "keys and values of a map"),
        ("- {name: a, logicalType: array, items: {logicalType: array, items: {logicalType: string}}}",
         "schema[0].properties[0].properties[0].items.items", "items of an array's items"),
        ("- {name: s, logicalType: string, properties: [{name: x}]}",
         "schema[0].properties[0].properties[0].properties", "not a key ODCS v3.2.0 defines"),
        ("- {name: s, logicalType: string, items: {logicalType: string}}",
         "schema[0].properties[0].properties[0].items", "not a key ODCS v3.2.0 defines"),
        ("- {name: s, logicalType: string, logicalTypeOptions: {format: date}}",
         "schema[0].properties[0].properties[0].logicalTypeOptions.format", "format 'date'"),
    ],
)  # fmt: skip
def test_what_datacontract_cli_does_not_check_is_refused_at_its_place(tmp_path, extra, place, said):
    said_errors = errors(write(tmp_path, CONTRACT.format(extra=extra)))
    assert f"{place}:" in said_errors and said in said_errors, said_errors

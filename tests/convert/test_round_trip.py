"""``assay convert``: every example and dialect fixture that loads converts to a native
config that loads to the same IR (apart from origins) and explains to the same plans, or
is refused at its place with the reason; no Spark."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from assay.api.explaining import explain_tables
from assay.conversion import convert_files
from assay.conversion.rules import stripped
from assay.dialects.base import LoadOptions
from assay.dialects.load import load_suite
from assay.errors import ConfigErrors
from assay.ir.suite import Suite, Table
from tests.dialects.great_expectations.fixtures import cases, expectations

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
ORDERS = str(EX / "data" / "orders.parquet")
CUSTOMERS = str(EX / "data" / "customers.parquet")
SODA = ROOT / "tests" / "dialects" / "soda" / "fixtures"

CONVERTED: dict[str, tuple[list[Path], dict[str, Any], dict[str, str] | None]] = {
    "native": ([EX / "orders.yaml"], {}, None),
    "native-over-time": ([EX / "monitoring" / "orders_daily.yaml"], {}, None),
    "native-binding-gx": ([EX / "great_expectations" / "orders.yaml"], {}, None),
    "gx-suite": ([EX / "great_expectations" / "orders_suite.json"], {"source": ORDERS}, None),
    "native-binding-soda": (
        [EX / "soda" / "orders.yaml"],
        {"inputs": {"customers": CUSTOMERS}},
        None,
    ),
    "soda": (
        [EX / "soda" / "checks.yml"],
        {"source": f"orders={ORDERS}", "inputs": {"customers": CUSTOMERS}},
        None,
    ),
    "dqx": ([EX / "dqx" / "checks.yml"], {"source": ORDERS}, None),
    "sparquet": ([EX / "sparquet" / "orders_validations.json"], {"source": ORDERS}, None),
    "data-validator": ([EX / "data_validator" / "people.yaml"], {}, {"MIN_AGE": "18"}),
    "soda-oracle-fixture": (
        [SODA / "checks.yml"],
        {
            "inputs": {
                "tricky": ORDERS,
                "twin": ORDERS,
                "empty": ORDERS,
                "ref": CUSTOMERS,
                "customers": CUSTOMERS,
                "raw_customers": CUSTOMERS,
            }
        },
        None,
    ),
    "sparquet-reference": (
        [ROOT / "tests" / "dialects" / "sparquet" / "reference_example.json"],
        {"source": ORDERS},
        None,
    ),
    "sparquet-quarantine": (
        [ROOT / "tests" / "dialects" / "sparquet" / "quarantine_example.json"],
        {"source": ORDERS},
        None,
    ),
    "data-validator-local": (
        [ROOT / "tests" / "dialects" / "data_validator" / "local_validators.yaml"],
        {},
        None,
    ),
}

README_VARS = {"JAVA_DIR": "/opt/java", "TODAY": "2024-01-01"}
REFUSED: dict[str, tuple[list[Path], dict[str, Any], list[str]]] = {
    "data-validator-readme": (
        [ROOT / "tests" / "dialects" / "data_validator" / "readme_example.yaml"],
        {"allow_shell": True},
        ["readme_example.yaml:24 vars[3].sql: cannot be converted: the sql variable 'MAX_AGE'",
         "readme_example.yaml:27 outputs[0]: cannot be converted: a report the client writes",
         "readme_example.yaml:30 outputs[1]: cannot be converted",
         "readme_example.yaml:33 email: cannot be converted"],
    ),
    "metorikku-job": (
        [EX / "metorikku" / "people_job.yaml"],
        {},
        ["people_job.yaml:7 inputs.people: cannot be converted: the view 'people'",
         "people_metric.yaml:7 steps[0]: cannot be converted: the view 'adults'"],
    ),
    "metorikku-reference": (
        [ROOT / "tests" / "dialects" / "metorikku" / "reference_example.yaml"],
        {},
        ["reference_example.yaml:3 steps[0]: cannot be converted: the view 'df1'"],
    ),
    "comparison": (
        [EX / "compare" / "orders_copy.yaml"],
        {},
        ["orders_copy.yaml:6 compare[0]: cannot be converted: dataset comparisons"],
    ),
}  # fmt: skip


def comparable(table: Table) -> Table:
    """What a converted table must keep: everything but origins and ``key_count`` (which
    columns identify a sample row, noted in the converted file)."""
    size = table.sample_size if table.detail else 0
    return stripped(
        dataclasses.replace(table, key_count=None, sample_size=size, detail=True, places=())
    )


def explained(suite: Suite) -> list[str]:
    """Each table's explain text without its first line (the table's origin)."""
    return ["\n".join(t.text.splitlines()[1:]) for t in explain_tables(suite)]


def round_trip(paths: list[Path], options: dict[str, Any], variables: Any, out: Path) -> str:
    load = LoadOptions(**options)
    original = load_suite(paths, variables=variables, options=load)
    text = convert_files(paths, variables=variables, options=load, out=out)
    out.write_text(text)
    back = load_suite([out])
    assert [comparable(t) for t in back.tables] == [comparable(t) for t in original.tables]
    for a, b in zip(original.tables, back.tables, strict=True):
        assert [dict(r.params) for r in a.rules] == [dict(r.params) for r in b.rules]
    assert explained(back) == explained(original)
    assert stripped(back.monitoring) == stripped(original.monitoring)
    return text


@pytest.mark.parametrize("case", sorted(CONVERTED))
def test_converts_to_the_same_ir_and_plans(case: str, tmp_path: Path) -> None:
    paths, options, variables = CONVERTED[case]
    text = round_trip(paths, options, variables, tmp_path / "converted.yaml")
    assert text.startswith("# Converted by assay ")
    assert text == convert_files(
        paths, variables=variables, options=LoadOptions(**options), out=tmp_path / "converted.yaml"
    )  # deterministic


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_at_the_original_place(case: str) -> None:
    paths, options, said = REFUSED[case]
    with pytest.raises(ConfigErrors) as caught:
        convert_files(paths, options=LoadOptions(**options), variables=README_VARS)
    shown = "\n".join(str(e) for e in caught.value.errors)
    for fragment in said:
        assert fragment in shown


def test_every_great_expectations_fixture_case_that_loads_converts(tmp_path: Path) -> None:
    """Each case of GX's own fixtures (its kwargs), one suite per expectation."""
    converted = loaded = 0
    for name in expectations():
        items = [c for c in cases(name) if not c.error]
        loads = []
        for i, case in enumerate(items):
            one = tmp_path / f"{name}_{i}.json"
            one.write_text(json.dumps({"name": "s", "expectations": [
                {"type": case.expectation, "kwargs": case.kwargs}]}))  # fmt: skip
            try:
                load_suite([one], options=LoadOptions(source=ORDERS))
            except ConfigErrors:
                continue
            loads.append({"type": case.expectation, "kwargs": case.kwargs})
        if not loads:
            continue
        suite = tmp_path / f"{name}.json"
        suite.write_text(json.dumps({"name": name, "expectations": loads}))
        round_trip([suite], {"source": ORDERS}, None, tmp_path / f"{name}.yaml")
        converted += len(loads)
        loaded += len(loads)
    assert converted == loaded > 150


def test_a_dollar_in_a_value_stays_a_dollar(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(
        "vars: {x: '1'}\n"
        "tables:\n"
        "  - source: {table: t}\n"
        "    rules:\n"
        "      - {type: regex, column: c, pattern: '^a$$x$$'}\n"
        "      - {type: sql, query: 'SELECT count(*) = $x FROM _validation_df'}\n"
    )
    text = round_trip([config], {}, None, tmp_path / "out.yaml")
    assert "^a$$x$$" in text and "= 1 FROM" in text


def test_a_rule_no_native_type_says_is_written_in_its_dialect(tmp_path: Path) -> None:
    paths, options, variables = CONVERTED["data-validator"]
    text = round_trip(paths, options, variables, tmp_path / "out.yaml")
    # data-validator's threshold arithmetic is its own: the check stays in its words
    assert "- data_validator: {type: nullCheck, column: name, threshold: '1'}" in text
    # a check whose meaning a native type has is written as that type
    assert "- {type: negative_check, column: balance}" in text
    assert "# examples/data_validator/people.yaml:28 tables[0].checks[2]:" in text or (
        "people.yaml:28 tables[0].checks[2]" in text
    )

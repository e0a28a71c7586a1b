"""The docs' YAML examples of the native format fit the generated JSON Schema, as an
editor pointed at it reads them: every whole config, and every list of rules as the rules
of a table. (The configs under examples/ are checked by ``test_schema.py``.) A block
holding ``[...]`` is an excerpt, not a config."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
import yaml

from assay.schema import generate
from tests.conftest import ROOT

jsonschema = pytest.importorskip("jsonschema")

BLOCK = re.compile(r"```ya?ml\n(.*?)```", re.S)


def _is_rules(value: object) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(r, dict) and "type" in r for r in value)
    )


def examples() -> list[tuple[str, object]]:
    """Each native example of docs/*.md: a whole config, or a list of rules in a table."""
    found = []
    for doc in sorted((ROOT / "docs").glob("*.md")):
        for i, block in enumerate(BLOCK.findall(doc.read_text(encoding="utf-8"))):
            if "[...]" in block:
                continue
            value = yaml.safe_load(block)
            if _is_rules(value):
                value = {"tables": [{"source": {"table": "t"}, "rules": value}]}
            if isinstance(value, dict) and ("tables" in value or "compare" in value):
                found.append((f"{doc.name}-{i}", value))
    return found


def _json_like(value: object) -> object:
    """A YAML value as the JSON an editor validates (dates as ISO strings)."""
    return json.loads(
        json.dumps(value, default=lambda v: v.isoformat() if isinstance(v, dt.date) else v)
    )


@pytest.fixture(scope="module")
def validator():
    return jsonschema.Draft202012Validator(json.loads(generate.PATH.read_text(encoding="utf-8")))


def test_the_docs_examples_are_found():
    names = {name.rsplit("-", 1)[0] for name, _ in examples()}
    assert {"config.md", "rules.md", "monitoring.md", "compare.md", "dialects.md"} <= names


@pytest.mark.parametrize(("name", "value"), examples(), ids=[n for n, _ in examples()])
def test_a_docs_example_fits_the_schema(validator, name, value):
    assert [e.message for e in validator.iter_errors(_json_like(value))] == []


def test_every_reference_of_the_schema_names_one_of_its_definitions():
    schema = json.loads(generate.PATH.read_text(encoding="utf-8"))
    refs: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            refs.extend([value["$ref"]] if "$ref" in value else [])
            for child in value.values():
                walk(child)
        elif isinstance(value, list):
            for child in value:
                walk(child)

    walk(schema)
    assert {r.removeprefix("#/$defs/") for r in refs} <= set(schema["$defs"])
    assert all(r.startswith("#/$defs/") for r in refs)


def test_a_block_many_rule_types_share_is_defined_once():
    text = generate.PATH.read_text(encoding="utf-8")
    schema = json.loads(text)
    for key in ("anomaly", "change", "filter", "group_by", "must_be", "warn"):
        assert key in schema["$defs"], key
    assert text.count("Deequ's anomaly detection strategies") == 1
    assert schema["$defs"]["rule_not_null"]["properties"]["anomaly"] == {"$ref": "#/$defs/anomaly"}

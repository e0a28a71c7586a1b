"""The native JSON Schema (src/assay/schema/native.schema.json): generated from the rule
catalogue, accepted by every good config, and refusing bad ones where assay does.

The file is written by ``python -m assay.schema.generate``; editing it by hand fails
:func:`test_the_committed_schema_is_the_generated_one`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.config import read_document
from assay.dialects import detect
from assay.schema import generate
from tests.config.test_native import _json_like

jsonschema = pytest.importorskip("jsonschema")

HERE = Path(__file__).parent
ROOT = HERE.parents[1]


@pytest.fixture(scope="module")
def validator():
    return jsonschema.Draft202012Validator(json.loads(generate.PATH.read_text()))


def errors(validator, doc) -> list:
    return sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))


def test_the_committed_schema_is_the_generated_one():
    assert generate.PATH.read_text(encoding="utf-8") == generate.text(), (
        f"{generate.PATH.relative_to(ROOT)} is out of date with the rule catalogue: "
        f"run {generate.COMMAND}"
    )


def test_the_check_mode_agrees(capsys):
    assert generate.main(["--check"]) == 0


def test_the_docs_rule_tables_are_the_generated_ones():
    from assay.schema import rule_tables

    assert rule_tables.stale() == [], (
        f"the docs' rule tables are out of date: run {generate.COMMAND}"
    )


def test_a_rule_type_is_documented_by_its_declaration_alone(monkeypatch):
    """Each table row comes from the type's RuleDoc: change it, and the docs, the schema's
    description and the check mode all follow (or fail)."""
    import dataclasses

    from assay.dialects.catalogue import RULES
    from assay.schema import rule_schemas, rule_tables

    spec = RULES["regex"]
    assert spec.doc is not None
    doc = dataclasses.replace(spec.doc, fails="the value is not a palindrome")
    changed = dataclasses.replace(spec, doc=doc)
    monkeypatch.setitem(RULES, "regex", changed)
    monkeypatch.setitem(generate.RULES, "regex", changed)  # its copy without plugins' types
    assert "| `regex` | | `column`, `pattern`; `tolerance` | the value is not a palindrome |" in (
        rule_tables.table("all")
    )
    assert "`regex` | `column`, `pattern`; `tolerance` | the value is not a palindrome" in (
        rule_tables.table("row")
    )
    assert rule_schemas.description("regex").startswith("Fails when the value is not a palindrome.")
    assert {p.name for p in rule_tables.stale()} == {"rules.md", "config.md"}
    assert generate.main(["--check"]) == 1


def native_configs() -> list[Path]:
    """Every native config of the repository: examples, good configs, golden suites."""
    candidates = [
        *(ROOT / "examples").rglob("*.yaml"),
        *(ROOT / "examples").rglob("*.json"),
        *(HERE / "good").iterdir(),
        *(ROOT / "tests" / "golden").glob("*.yaml"),
    ]
    return sorted(p for p in candidates if detect(read_document(p)) == "native")


def test_the_native_configs_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in native_configs()}
    assert {"examples/orders.yaml", "tests/config/good/every_rule.yaml"} <= names


@pytest.mark.parametrize("path", native_configs(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_native_config_matches_the_schema(validator, path):
    assert [e.message for e in errors(validator, _json_like(read_document(path)))] == []


REFUSED = [
    ("anomaly_unknown_parameter.yaml", "tables/0/rules/0/anomaly"),
    ("anomaly_unknown_strategy.yaml", "tables/0/rules/0/anomaly"),
    ("change_bad_baseline.yaml", "tables/0/rules/0/change/vs"),
    ("metrics_store_both.yaml", "metrics"),
    ("column_and_columns.yaml", "tables/0/rules/0"),
    ("duplicate_columns.yaml", "tables/0/rules/0/columns"),
    ("empty_column_name.yaml", "tables/0/rules/0/column"),
    ("empty_pattern.yaml", "tables/0/rules/0/pattern"),
    ("empty_rules.yaml", "tables/0/rules"),
    ("empty_schema.yaml", "tables/0/rules/0"),
    ("empty_tables.yaml", "tables"),
    ("empty_values.yaml", "tables/0/rules/0/values"),
    ("invalid_unknown_format.yaml", "tables/0/rules/0/valid_format"),
    ("json_root_list.json", ""),
    ("json_unknown_key.json", "tables/0/rules/0"),
    ("length_float.yaml", "tables/0/rules/0/max"),
    ("length_negative.yaml", "tables/0/rules/0/min"),
    ("level_invalid.yaml", "tables/0/rules/0/level"),
    ("missing_column.yaml", "tables/0/rules/0"),
    ("missing_column_or_columns.yaml", "tables/0/rules/0"),
    ("missing_env_name.yaml", "vars/x"),
    ("missing_must_be.yaml", "tables/0/rules/0"),
    ("missing_query.yaml", "tables/0/rules/0"),
    ("missing_rules.yaml", "tables/0"),
    ("missing_source.yaml", "tables/0"),
    ("missing_type.yaml", "tables/0/rules/0"),
    ("range_no_bounds.yaml", "tables/0/rules/0"),
    ("root_list.yaml", ""),
    ("root_no_tables.yaml", ""),
    ("root_null.yaml", ""),
    ("root_scalar.yaml", ""),
    ("row_count_both_forms.yaml", "tables/0/rules/0"),
    ("row_count_nothing.yaml", "tables/0/rules/0"),
    ("source_format_without_path.yaml", "tables/0/source"),
    ("source_none.yaml", "tables/0/source"),
    ("source_two_kinds.yaml", "tables/0/source"),
    ("table_name_invalid.yaml", "tables/0/name"),
    ("table_not_mapping.yaml", "tables/0"),
    ("targets_code_beside.yaml", "tables/0/rules/0"),
    ("targets_with_type.yaml", "tables/0/rules/0/targets/1"),
    ("tolerance_bool.yaml", "tables/0/rules/0/tolerance"),
    ("type_column_list.yaml", "tables/0/rules/0/column"),
    ("type_columns_string.yaml", "tables/0/rules/0/columns"),
    ("type_filter_list.yaml", "tables/0/filter"),
    ("type_inclusive_string.yaml", "tables/0/rules/0/inclusive"),
    ("type_keys_string.yaml", "tables/0/keys"),
    ("type_options_list.yaml", "tables/0/source/options"),
    ("type_rule_string.yaml", "tables/0/rules/0"),
    ("type_sample_size_range.yaml", "sample_size"),
    ("type_sample_size_string.yaml", "sample_size"),
    ("type_source_string.yaml", "tables/0/source"),
    ("type_tables_mapping.yaml", "tables"),
    ("type_threshold_bool.yaml", "tables/0/rules/0/must_be"),
    ("type_values_scalar.yaml", "tables/0/rules/0/values"),
    ("type_var_list.yaml", "vars/x"),
    ("unknown_option_in_var.yaml", "vars/day"),
    ("unknown_rule_key.yaml", "tables/0/rules/0"),
    ("unknown_rule_key_no_match.yaml", "tables/0/rules/0"),
    ("unknown_rule_key_threshold.yaml", "tables/0/rules/0"),
    ("unknown_rule_type.yaml", "tables/0/rules/0/type"),
    ("unknown_rule_type_far.yaml", "tables/0/rules/0/type"),
    ("unknown_source_key.yaml", "tables/0/source"),
    ("unknown_table_key.yaml", "tables/0"),
    ("unknown_top_key.yaml", ""),
    ("unknown_var_key.yaml", "vars/region"),
    ("values_null.yaml", "tables/0/rules/0/values/1"),
    ("variable_bad_name.yaml", "vars"),
    ("variable_null.yaml", "vars/x"),
    ("version_2.yaml", "version"),
    ("yaml11_code_number.yaml", "tables/0/rules/0/code"),
    ("yaml11_level_no.yaml", "tables/0/rules/0/level"),
    ("yaml11_octal_column.yaml", "tables/0/rules/0/column"),
]
"""(bad config, where the schema's first error is): mistakes a schema can see."""

BEYOND_A_SCHEMA = {
    "anomaly_bad_parameter.yaml",
    "change_per_group.yaml",
    "duplicate_default_names.yaml",
    "duplicate_table_names.yaml",
    "json_float_sample_size.json",
    "length_min_gt_max.yaml",
    "range_min_gt_max.yaml",
    "range_min_gt_max_dates.yaml",
    "range_mixed_kinds.yaml",
    "schema_bad_type.yaml",
    "schema_required_and_forbidden.yaml",
    "source_mixed_extensions.yaml",
    "source_unknown_extension.yaml",
    "threshold_reversed_between.yaml",
    "threshold_typo.yaml",
    "threshold_unit.yaml",
    "tolerance_negative.yaml",
    "tolerance_over_100_percent.yaml",
    "tolerance_text.yaml",
    "type_min_string.yaml",
    "variable_bad_reference.yaml",
    "variable_in_vars_not_expanded.yaml",
    "variable_missing_env.yaml",
    "variable_unknown.yaml",
    "yaml11_date_filter.yaml",
}
"""Bad configs only assay refuses: duplicate names across tables, values out of order,
threshold and tolerance text, file extensions, variables, a float sample size (JSON
Schema counts 2.0 as an integer)."""


def test_every_bad_config_is_classified():
    bad = {p.name for p in (HERE / "bad").iterdir() if p.suffix != ".expect"}
    readable = {n for n in bad if _readable(HERE / "bad" / n)}
    assert readable == {n for n, _ in REFUSED} | BEYOND_A_SCHEMA


def _readable(path: Path) -> bool:
    try:
        read_document(path)
    except Exception:  # noqa: BLE001 - YAML/JSON syntax errors never reach a schema
        return False
    return True


@pytest.mark.parametrize(("name", "where"), REFUSED, ids=[n for n, _ in REFUSED])
def test_the_schema_refuses_bad_configs_where_assay_does(validator, name, where):
    found = errors(validator, _json_like(read_document(HERE / "bad" / name)))
    assert found
    best = jsonschema.exceptions.best_match(found)
    assert "/".join(str(p) for p in best.absolute_path) == where, best.message


@pytest.mark.parametrize("name", sorted(BEYOND_A_SCHEMA))
def test_the_schema_accepts_what_only_assay_refuses(validator, name):
    # when the schema learns to refuse one of these, move it to REFUSED
    assert errors(validator, _json_like(read_document(HERE / "bad" / name))) == []


def _rules(*rules: dict) -> dict:
    return {"tables": [{"source": {"table": "t"}, "rules": list(rules)}]}


@pytest.mark.parametrize(
    ("rule", "where"),
    [
        ({"type": "range", "targets": [{"colum": "a", "min": 1}]}, "targets/0"),
        ({"type": "range", "targets": [{"column": "a", "min": "x", "pattern": "p"}]}, "targets/0"),
        ({"type": "range", "colum": "a", "targets": [{"column": "a", "min": 1}]}, ""),
        ({"type": "range", "targets": []}, "targets"),
        ({"type": "has_size", "size": 3, "operator": "=~"}, "operator"),
        ({"type": "string_length_check", "column": "a", "min_length": "3"}, "min_length"),
    ],
    ids=["target-typo", "target-foreign-key", "shared-typo", "no-targets", "operator", "length"],
)
def test_rules_with_targets_are_checked_key_by_key(validator, rule, where):
    found = errors(validator, _rules(rule))
    assert found
    path = "/".join(str(p) for p in jsonschema.exceptions.best_match(found).absolute_path)
    assert path == "/".join(filter(None, ["tables/0/rules/0", where]))


@pytest.mark.parametrize(
    "rule",
    [
        {"type": "range", "min": 1, "targets": [{"column": "a"}, {"column": "b", "max": 9}]},
        {"type": "string_length_check", "column": "a", "min_length": "`n", "max_length": -1},
        {"type": "rowCount", "min_num_rows": 1},
        {"type": "isComplete", "column": "a", "level": "warn", "code": "C1"},
    ],
    ids=["targets", "length-column-bound", "alias", "common-keys"],
)
def test_the_schema_accepts_what_assay_accepts(validator, rule, tmp_path):
    from assay.config import load_suite

    doc = _rules(rule)
    path = tmp_path / "c.json"
    path.write_text(json.dumps(doc))
    assert load_suite([path]).tables
    assert errors(validator, doc) == []


def test_a_rule_key_without_a_kind_stops_the_generation(monkeypatch):
    import dataclasses

    from assay.dialects.catalogue import RULES

    spec = RULES["regex"]
    changed = dataclasses.replace(spec, keys=spec.keys | {"flags"})
    monkeypatch.setitem(generate.RULES, "regex", changed)
    with pytest.raises(SystemExit, match="rule regex: no value kind for flags"):
        generate.schema()

"""The native format -> IR: every rule type, tables, sources, variables, files (no Spark)."""

from __future__ import annotations

import datetime as dt
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest

from assay.config import load_suite, read_document
from assay.config.node import Node
from assay.dialects import DIALECTS, detect
from assay.dialects import native as native_module
from assay.dialects.catalogue import ALIASES, RULES
from assay.dialects.rule_spec import COMMON_KEYS
from assay.errors import ConfigErrors
from assay.ir import (
    ZERO_TOLERANCE,
    AggregateMetric,
    Between,
    CatalogSource,
    Coalesce,
    Col,
    ColumnMetric,
    Compare,
    Comparison,
    CountMetric,
    GroupMetric,
    InSet,
    IsNaN,
    IsNull,
    Length,
    Lit,
    Matches,
    MetricCheck,
    Not,
    Op,
    Or,
    Origin,
    PathSource,
    RowCheck,
    RowCountMetric,
    SchemaCheck,
    Sql,
    SqlCheck,
    SqlSource,
    Tolerance,
    UniqueCheck,
    any_of,
    is_true,
)
from assay.ir.monitoring import SchemaChangeCheck
from tests.config.test_catalogue import REFERENCE_ALIASES, REFERENCE_TYPES

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
SCHEMA = ROOT / "src" / "assay" / "schema" / "native.schema.json"


def write(tmp_path: Path, text: str, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def load(tmp_path: Path, text: str, **kwargs):
    return load_suite([write(tmp_path, text)], **kwargs)


def one_rule(tmp_path: Path, rule: str):
    suite = load(tmp_path, f"tables:\n  - source: {{table: t}}\n    rules:\n      - {rule}\n")
    return suite.tables[0].rules[0]


# --- every rule type ----------------------------------------------------------------------

A = Col("a")
GT0 = Comparison(Op.GT, Decimal(0), "> 0")

RULE_CASES = [
    ("{type: not_null, column: a}", "not_null", RowCheck(IsNull(A)), ("a",), "any"),
    (
        "{type: not_null, columns: [a, b]}",
        "not_null",
        RowCheck(Or((IsNull(A), IsNull(Col("b"))))),
        ("a", "b"),
        "any",
    ),
    (
        "{type: unique, columns: [a, b], tolerance: 3}",
        "unique",
        UniqueCheck(("a", "b"), Tolerance("absolute", Decimal(3), "3")),
        ("a", "b"),
        "any",
    ),
    (
        "{type: range, column: a, min: 1, max: 2.5}",
        "range",
        RowCheck(is_true(any_of(Compare(Op.LT, A, Lit(1)), Compare(Op.GT, A, Lit(2.5))))),
        ("a",),
        "numeric",
    ),
    (
        "{type: range, column: a, max: 9, inclusive: false}",
        "range",
        RowCheck(is_true(Compare(Op.GE, A, Lit(9)))),
        ("a",),
        "numeric",
    ),
    (
        "{type: range, column: a, min: 2024-01-01, max: '2024-12-31'}",
        "range",
        RowCheck(
            is_true(
                any_of(
                    Compare(Op.LT, A, Lit(dt.date(2024, 1, 1))),
                    Compare(Op.GT, A, Lit(dt.date(2024, 12, 31))),
                )
            )
        ),
        ("a",),
        "temporal",
    ),
    (
        "{type: range, column: a, min: '2024-01-01T10:00:00'}",
        "range",
        RowCheck(is_true(Compare(Op.LT, A, Lit(dt.datetime(2024, 1, 1, 10))))),
        ("a",),
        "temporal",
    ),
    (
        "{type: regex, column: a, pattern: '^x$'}",
        "regex",
        RowCheck(any_of(IsNull(A), Not(Matches(A, "^x$")))),
        ("a",),
        "string",
    ),
    (
        "{type: accepted_values, column: a, values: [x, 1, x]}",
        "accepted_values",
        RowCheck(is_true(Not(InSet(A, ("x", 1))))),
        ("a",),
        "any",
    ),
    (
        "{type: in_set, column: a, values: [x]}",
        "accepted_values",
        RowCheck(is_true(Not(InSet(A, ("x",))))),
        ("a",),
        "any",
    ),
    (
        "{type: length, column: a, min: 2, max: 3}",
        "length",
        RowCheck(
            is_true(any_of(Compare(Op.LT, Length(A), Lit(2)), Compare(Op.GT, Length(A), Lit(3))))
        ),
        ("a",),
        "string",
    ),
    (
        "{type: string_length, column: a, max: 3}",
        "length",
        RowCheck(is_true(Compare(Op.GT, Length(A), Lit(3)))),
        ("a",),
        "string",
    ),
    (
        "{type: row_count, must_be: '> 0'}",
        "row_count",
        MetricCheck(RowCountMetric(), GT0),
        (),
        None,
    ),
    (
        "{type: row_count, min: 1, max: 5000000}",
        "row_count",
        MetricCheck(
            RowCountMetric(), Between(Decimal(1), Decimal(5000000), "between 1 and 5000000")
        ),
        (),
        None,
    ),
    (
        "{type: row_count, max: 5}",
        "row_count",
        MetricCheck(RowCountMetric(), Between(Decimal(0), Decimal(5), "between 0 and 5")),
        (),
        None,
    ),
    (
        "{type: min, column: a, must_be: '> 0'}",
        "min",
        MetricCheck(ColumnMetric("min", "a"), GT0),
        ("a",),
        "numeric",
    ),
    (
        "{type: max, column: a, must_be: '> 0'}",
        "max",
        MetricCheck(ColumnMetric("max", "a"), GT0),
        ("a",),
        "numeric",
    ),
    (
        "{type: avg, column: a, must_be: '> 0'}",
        "avg",
        MetricCheck(ColumnMetric("avg", "a"), GT0),
        ("a",),
        "numeric",
    ),
    (
        "{type: mean, column: a, must_be: '> 0'}",
        "avg",
        MetricCheck(ColumnMetric("avg", "a"), GT0),
        ("a",),
        "numeric",
    ),
    (
        "{type: sum, column: a, must_be: '> 0'}",
        "sum",
        MetricCheck(ColumnMetric("sum", "a"), GT0),
        ("a",),
        "numeric",
    ),
    (
        "{type: stddev, column: a, must_be: '> 0'}",
        "stddev",
        MetricCheck(ColumnMetric("stddev", "a"), GT0),
        ("a",),
        "numeric",
    ),
    (
        "{type: percentile, column: a, quantile: 0.95, must_be: '> 0'}",
        "percentile",
        MetricCheck(AggregateMetric("percentile", "a", (Decimal("0.95"),)), GT0),
        ("a",),
        "numeric",
    ),
    (
        "{type: median, column: a, must_be: '> 0'}",
        "median",
        MetricCheck(AggregateMetric("percentile", "a", (Decimal("0.5"),)), GT0),
        ("a",),
        "numeric",
    ),
    (
        "{type: median, column: a, accuracy: 100, must_be: '> 0'}",
        "median",
        MetricCheck(
            AggregateMetric(
                "percentile_approx",
                "a",
                (Decimal("0.5"), 100),
                Not(IsNaN(A)),
                "double",
            ),
            GT0,
        ),
        ("a",),
        "numeric",
    ),
    (
        "{type: expression, expression: 'a >= b'}",
        "expression",
        RowCheck(Not(Coalesce((Sql("a >= b"), Lit(False))))),
        (),
        None,
    ),
    (
        "{type: missing_count, column: a, must_be: '> 0'}",
        "missing_count",
        MetricCheck(CountMetric(IsNull(A)), GT0),
        ("a",),
        "any",
    ),
    (
        "{type: missing_percent, column: a, missing_values: ['', N/A], must_be: '> 0'}",
        "missing_percent",
        MetricCheck(
            CountMetric(is_true(any_of(IsNull(A), InSet(A, ("", "N/A")))), percent=True), GT0
        ),
        ("a",),
        "any",
    ),
    (
        "{type: duplicate_count, columns: [a, b], must_be: '> 0'}",
        "duplicate_count",
        MetricCheck(GroupMetric(("a", "b"), "duplicate_count"), GT0),
        ("a", "b"),
        "any",
    ),
    (
        "{type: distinct_count, column: a, must_be: '> 0'}",
        "distinct_count",
        MetricCheck(GroupMetric(("a",), "distinct_count"), GT0),
        ("a",),
        "any",
    ),
    (
        "{type: schema, required_columns: [a], forbidden_columns: [b], column_types: {a: LONG}}",
        "schema",
        SchemaCheck(("a",), ("b",), (("a", "bigint"),)),
        ("a", "b"),
        None,
    ),
    ("{type: sql, query: 'SELECT true'}", "sql", SqlCheck("SELECT true", "boolean"), (), None),
    (
        "{type: schema_change, warn_when: [added], order: index}",
        "schema_change",
        SchemaChangeCheck(("removed", "retyped", "reordered"), ("added",), "index"),
        (),
        None,
    ),
]


@pytest.mark.parametrize(
    ("rule", "kind", "check", "columns", "family"),
    RULE_CASES,
    ids=[f"{i}-{c[1]}" for i, c in enumerate(RULE_CASES)],
)
def test_rule_types_compile_to_the_documented_ir(tmp_path, rule, kind, check, columns, family):
    built = one_rule(tmp_path, rule)
    assert built.kind == kind
    assert built.check == check
    assert built.columns == columns
    assert built.requires == (tuple((c, family) for c in columns) if family else ())


def test_every_rule_type_and_alias_has_a_case():
    """A rule type is declared once (assay.dialects.catalogue) and the docs are generated
    from it; what each type compiles to is pinned by a case here (the core types) or in
    tests/config/test_catalogue.py (the rest of the reference catalogue)."""
    covered = {re.search(r"type: (\w+)", case[0]).group(1) for case in RULE_CASES}
    assert covered | REFERENCE_TYPES | REFERENCE_ALIASES == set(RULES) | set(ALIASES)


def test_null_semantics_of_row_rules(tmp_path):
    """Nulls fail not_null and regex; range, accepted_values and length wrap in is_true."""
    for rule in (
        "{type: range, column: a, min: 1}",
        "{type: in_set, column: a, values: [x]}",
        "{type: length, column: a, min: 1}",
    ):
        assert isinstance(one_rule(tmp_path, rule).check.failing, Coalesce)
    failing = one_rule(tmp_path, "{type: regex, column: a, pattern: x}").check.failing
    assert IsNull(A) in failing.items


@pytest.mark.parametrize(
    ("types", "expected"),
    [
        (
            "{a: integer, b: Short, c: byte, d: real, e: bool, f: str, g: varchar}",
            ("int", "smallint", "tinyint", "float", "boolean", "string", "string"),
        ),
        (
            "{a: 'decimal(10, 2)', b: 'NUMERIC(3)', c: decimal, d: 'varchar(20)', e: 'char(2)'}",
            ("decimal", "decimal", "decimal", "string", "string"),
        ),
        (
            "{a: 'array<string>', b: 'map<string, int>', c: timestamp_ntz, d: date}",
            ("array<string>", "map<string,int>", "timestamp_ntz", "date"),
        ),
    ],
)
def test_schema_type_names_are_normalised(tmp_path, types, expected):
    check = one_rule(tmp_path, f"{{type: schema, column_types: {types}}}").check
    assert tuple(t for _, t in check.types) == expected


def test_common_rule_keys_and_display_params(tmp_path):
    rule = one_rule(
        tmp_path,
        "{type: in_set, column: a, values: [x, y], name: 'ok status', "
        "level: warn, code: S1, tolerance: 0.25}",
    )
    assert (rule.kind, rule.name, rule.level, rule.code) == (
        "accepted_values",
        "ok status",
        "warn",
        "S1",
    )
    assert rule.threshold == "0.25"
    assert rule.check.tolerance == Tolerance("fraction", Decimal("0.25"), "0.25")
    assert rule.params == (("column", "a"), ("values", ("x", "y")), ("tolerance", 0.25))
    assert rule.origin.path == "tables[0].rules[0]"


def test_defaults_of_a_rule(tmp_path):
    rule = one_rule(tmp_path, "{type: not_null, column: a}")
    assert (rule.name, rule.level, rule.code, rule.threshold) == (None, "error", None, None)
    assert rule.check.tolerance == ZERO_TOLERANCE


def test_threshold_text_is_must_be_plus_warn(tmp_path):
    rule = one_rule(tmp_path, "{type: avg, column: a, must_be: between 1 and 2, warn: 0}")
    assert rule.threshold == "between 1 and 2; warn: 0"
    assert rule.check.warn == Comparison(Op.EQ, Decimal(0), "0")
    assert one_rule(tmp_path, "{type: row_count, min: 3}").threshold == ">= 3"


def test_rule_origins_carry_file_path_and_line(tmp_path):
    path = write(
        tmp_path,
        "tables:\n  - source: {table: t}\n    rules:\n"
        "      - {type: not_null, column: a}\n\n"
        "      - type: unique\n        column: a\n",
    )
    rules = load_suite([path]).tables[0].rules
    assert [r.origin for r in rules] == [
        Origin(str(path), "tables[0].rules[0]", 4),
        Origin(str(path), "tables[0].rules[1]", 6),
    ]


def test_merge_keys_share_rule_defaults():
    suite = load_suite([HERE / "good" / "anchors.yaml"])
    first, second = suite.tables[0].rules
    assert (first.level, first.code) == ("warn", "SOFT")
    assert (second.level, second.code) == ("error", "SOFT")


# --- tables and sources --------------------------------------------------------------------


def test_table_fields_and_sample_size_defaults(tmp_path):
    suite = load(
        tmp_path,
        """
sample_size: 7
tables:
  - source: {table: db.orders}
    filter: "a > 1"
    keys: [id, line]
    rules: [{type: not_null, column: a}]
  - source: {sql: SELECT 1}
    sample_size: 0
    rules: [{type: not_null, column: a}]
""",
    )
    first, second = suite.tables
    assert (first.name, first.source, first.filter, first.keys, first.sample_size) == (
        "db.orders",
        CatalogSource("db.orders"),
        "a > 1",
        ("id", "line"),
        7,
    )
    assert (second.name, second.source, second.sample_size) == ("query_1", SqlSource("SELECT 1"), 0)
    assert first.origin.path == "tables[0]" and first.origin.line == 4


def test_default_sample_size_is_five(tmp_path):
    suite = load(
        tmp_path, "tables:\n  - source: {table: t}\n    rules: [{type: not_null, column: a}]"
    )
    assert suite.tables[0].sample_size == 5


@pytest.mark.parametrize(
    ("source", "name"),
    [
        ("{path: data/orders.parquet}", "orders"),
        ("{path: 'data/events.csv.gz'}", "events"),
        ("{path: 'data/dir/', format: delta}", "dir"),
        ("{path: 'data/*.parquet'}", "table_0"),
        ("{table: '`my db`.`t 1`'}", "my_db_._t_1"),
        ("{sql: SELECT 1}", "query_0"),
    ],
)
def test_default_table_names(tmp_path, source, name):
    suite = load(
        tmp_path, f"tables:\n  - source: {source}\n    rules: [{{type: not_null, column: a}}]"
    )
    assert suite.tables[0].name == name


def test_path_sources_resolve_against_the_config_directory():
    path = HERE / "good" / "sources.json"
    first, second, third = load_suite([path]).tables
    data = (HERE / "good" / "data").resolve()
    assert first.source == PathSource(
        "csv", (str(data / "a.csv.gz"), str(data / "b.csv")), (("header", "true"), ("sep", ";"))
    )
    assert second.source == PathSource("delta", ("s3a://lake/events/day=2024-01-01/",))
    assert third.source == SqlSource("SELECT * FROM raw WHERE day = '2024-01-01'")
    assert (first.name, second.name, third.name) == ("a", "day_2024-01-01", "query_2")


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        ("x.parquet", "parquet"),
        ("x.CSV", "csv"),
        ("x.jsonl", "json"),
        ("x.ndjson", "json"),
        ("x.orc", "orc"),
        ("x.avro", "avro"),
        ("x.txt.bz2", "text"),
        ("x.json.gz", "json"),
    ],
)
def test_format_from_extension(tmp_path, path, fmt):
    suite = load(
        tmp_path,
        f"tables:\n  - source: {{path: {path}}}\n    rules: [{{type: not_null, column: a}}]",
    )
    assert suite.tables[0].source.format == fmt


@pytest.mark.parametrize(
    "uri",
    [
        "s3://b/k.parquet",
        "hdfs://nn/x.parquet",
        "file:/tmp/x.parquet",
        "abfss://c@a.dfs.core.windows.net/x.parquet",
    ],
)
def test_uris_are_kept_as_written(tmp_path, uri):
    suite = load(
        tmp_path,
        f"tables:\n  - source: {{path: '{uri}'}}\n    rules: [{{type: not_null, column: a}}]",
    )
    assert suite.tables[0].source.paths == (uri,)


def test_absolute_paths_stay(tmp_path):
    suite = load(
        tmp_path,
        "tables:\n  - source: {path: /data/x.orc, format: ORC}\n"
        "    rules: [{type: not_null, column: a}]",
    )
    assert suite.tables[0].source == PathSource("orc", ("/data/x.orc",))


# --- variables ----------------------------------------------------------------------------

VARS_CONFIG = """
vars:
  env: prod
  n: 012
  flag: yes
  region: {env: ASSAY_TEST_REGION, default: eu}
tables:
  - name: t_$env
    source: {sql: "SELECT * FROM ${env}_orders WHERE n = $n AND f = $flag AND r = '$region'"}
    filter: "$$price > 0"
    keys: ["${env}_id"]
    rules:
      - {type: regex, column: "c_$env", pattern: "^[0-9]+$"}
      - {type: avg, column: a, must_be: "> $n"}
"""


def test_variables_are_substituted_in_every_string_under_tables(tmp_path, monkeypatch):
    monkeypatch.delenv("ASSAY_TEST_REGION", raising=False)
    table = load(tmp_path, VARS_CONFIG).tables[0]
    assert table.name == "t_prod"
    assert table.source == SqlSource(
        "SELECT * FROM prod_orders WHERE n = 012 AND f = true AND r = 'eu'"
    )
    assert table.filter == "$price > 0"
    assert table.keys == ("prod_id",)
    regex, avg = table.rules
    assert regex.columns == ("c_prod",) and regex.check.failing.items[1].item.pattern == "^[0-9]+$"
    assert avg.check.must == Comparison(Op.GT, Decimal(12), "> 012")


def test_environment_variables_and_overrides(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_TEST_REGION", "us")
    table = load(tmp_path, VARS_CONFIG, variables={"env": "dev", "extra": "x"}).tables[0]
    assert table.name == "t_dev"
    assert "r = 'us'" in table.source.query


def test_an_overridden_env_variable_does_not_need_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("ASSAY_TEST_UNSET_9", raising=False)
    suite = load(
        tmp_path,
        "vars:\n  r: {env: ASSAY_TEST_UNSET_9}\ntables:\n"
        "  - source: {sql: select '$r'}\n"
        "    rules: [{type: not_null, column: a}]",
        variables={"r": "x"},
    )
    assert suite.tables[0].source.query == "select 'x'"


@pytest.mark.parametrize(
    "value",
    [
        "it's",
        'say "hi"',
        "# not a comment",
        "a & b",
        "[x]",
        "k: v",
        "line1\nline2",
        "${other}",
        "$other",
        "{}",
    ],
)
def test_values_are_inserted_literally_never_re_parsed_or_re_expanded(tmp_path, value):
    suite = load(
        tmp_path,
        "vars:\n  other: NO\ntables:\n  - source: {sql: '[$v]'}\n"
        "    rules: [{type: not_null, column: a}]",
        variables={"v": value},
    )
    assert suite.tables[0].source.query == f"[{value}]"


def test_mapping_keys_are_not_substituted(tmp_path):
    rule = one_rule(tmp_path, "{type: schema, column_types: {$x: int}}")
    assert rule.check.types == (("$x", "int"),)


def test_vars_values_are_not_substituted(tmp_path):
    suite = load(
        tmp_path,
        "vars:\n  a: $$b\ntables:\n  - source: {sql: '$a'}\n"
        "    rules: [{type: not_null, column: a}]",
    )
    assert suite.tables[0].source.query == "$$b"


# --- files, suites and dialects ------------------------------------------------------------


def test_several_files_make_one_suite_in_order(tmp_path):
    one = write(
        tmp_path,
        "tables:\n  - source: {sql: s}\n    rules: [{type: not_null, column: a}]",
        "one.yaml",
    )
    two = write(
        tmp_path,
        '{"tables": [{"source": {"sql": "s"}, "rules": [{"type": "not_null", "column": "a"}]}]}',
        "two.json",
    )
    suite = load_suite([one, str(two)])
    assert [t.name for t in suite.tables] == ["query_0", "query_1"]
    assert suite.files == (str(one), str(two))
    assert suite.tables[1].origin.file == str(two)


def test_detect_recognises_native_by_shape():
    assert detect(read_document(HERE / "good" / "every_rule.yaml")) == "native"
    assert list(DIALECTS) == [
        "native",
        "data-validator",
        "metorikku",
        "sparquet",
        "spark-data-test",
        "great-expectations",
        "sodacl",
        "dqx",
        "odcs",
    ]


def test_forced_dialect(tmp_path):
    path = write(
        tmp_path, "tables:\n  - source: {sql: s}\n    rules: [{type: not_null, column: a}]"
    )
    assert len(load_suite([path], dialect="native").tables) == 1
    with pytest.raises(ConfigErrors, match=r"unknown dialect 'natve' \(did you mean 'native'\?\)"):
        load_suite([path], dialect="natve")


def test_every_good_example_loads():
    for path in sorted((HERE / "good").iterdir()):
        assert load_suite([path]).tables, path


# --- the JSON Schema ------------------------------------------------------------------------


def schema() -> dict:
    return json.loads(SCHEMA.read_text())


def test_the_schema_lists_every_rule_type_and_key_the_code_accepts():
    defs = schema()["$defs"]
    assert set(defs["rule"]["properties"]["type"]["enum"]) == set(RULES) | set(ALIASES)
    for kind, spec in RULES.items():
        assert set(defs[f"rule_{kind}"]["properties"]) == COMMON_KEYS | spec.keys, kind
    assert set(schema()["properties"]) == native_module.TOP_KEYS
    assert set(defs["table"]["properties"]) == native_module.TABLE_KEYS
    assert set(defs["source"]["properties"]) == native_module.SOURCE_KEYS
    assert set(defs["var"]["oneOf"][1]["properties"]) == native_module.VAR_KEYS


def _json_like(node: Node) -> object:
    value = node.value
    if isinstance(value, dict):
        return {k: _json_like(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_like(v) for v in value]
    return value.isoformat() if isinstance(value, dt.date) else value


def doc_examples() -> list[tuple[str, str]]:
    """Every ```yaml block of docs/config.md; a block starting with '- ' is a rule list."""
    text = (ROOT / "docs" / "config.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    return [(f"docs-{i}", b) for i, b in enumerate(blocks)]


@pytest.mark.parametrize(("name", "text"), doc_examples())
def test_docs_examples_load(tmp_path, monkeypatch, name, text):
    monkeypatch.delenv("RUN_DAY", raising=False)
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    assert load(tmp_path, text).tables


def examples() -> list[Path]:
    return sorted((HERE / "good").iterdir())


@pytest.mark.parametrize("path", examples(), ids=lambda p: p.name)
def test_good_examples_match_the_schema(path):
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(schema())
    errors = [e.message for e in validator.iter_errors(_json_like(read_document(path)))]
    assert errors == []


@pytest.mark.parametrize(("name", "text"), doc_examples())
def test_docs_examples_match_the_schema(tmp_path, name, text):
    jsonschema = pytest.importorskip("jsonschema")
    doc = read_document(write(tmp_path, text))
    errors = [
        e.message for e in jsonschema.Draft202012Validator(schema()).iter_errors(_json_like(doc))
    ]
    assert errors == []


def test_the_schema_is_valid_draft_2020_12():
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(schema())


@pytest.mark.parametrize(
    "bad",
    [
        "unknown_rule_key.yaml",
        "unknown_table_key.yaml",
        "type_columns_string.yaml",
        "range_no_bounds.yaml",
        "empty_rules.yaml",
        "source_two_kinds.yaml",
        "unknown_rule_type.yaml",
        "row_count_both_forms.yaml",
    ],
)
def test_the_schema_also_rejects_structural_mistakes(bad):
    jsonschema = pytest.importorskip("jsonschema")
    doc = _json_like(read_document(HERE / "bad" / bad))
    assert list(jsonschema.Draft202012Validator(schema()).iter_errors(doc))

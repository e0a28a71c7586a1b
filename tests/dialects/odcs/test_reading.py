"""Data contracts read without Spark (docs/dialects.md, "Data contracts"): detection, the
JSON Schema first and its errors at their lines, what each construct becomes, where the
data is, details.odcs, and every refusal at its place."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.config.document import read_document
from assay.dialects import registry
from assay.ir.metrics import CountMetric, RowCountMetric
from assay.ir.references import ForeignKeyCheck, Lookup, Reference
from assay.ir.rules import MetricCheck, RowCheck, SchemaCheck, SqlCheck, UniqueCheck
from assay.ir.suite import CatalogSource, PathSource
from tests.conftest import ROOT
from tests.dialects.helpers import errors, load, write

FIXTURES = Path(__file__).parent / "fixtures"

HEAD = """\
apiVersion: v3.1.0
kind: DataContract
id: c
version: 1.0.0
status: active
"""


def contract(tmp_path: Path, body: str, head: str = HEAD) -> Path:
    return write(tmp_path, head + body, "contract.yaml")


def table_rules(tmp_path: Path, body: str, **options):
    suite = load(contract(tmp_path, body), **options)
    return {t.name: t for t in suite.tables}


def odcs(rule) -> dict:
    return dict(dict(rule.params)["odcs"])


@pytest.mark.parametrize(
    "path",
    [
        FIXTURES / "contract.yaml",
        FIXTURES / "dcs_contract.yaml",
        ROOT / "examples/odcs/orders.odcs.yaml",
        ROOT / "examples/odcs/orders.dcs.yaml",
    ],
)
def test_contracts_are_detected(path):
    assert registry.detect(read_document(path)) == "odcs"


def test_other_files_are_not_contracts():
    assert registry.detect(read_document(ROOT / "examples/soda/checks.yml")) == "sodacl"
    assert registry.detect(read_document(ROOT / "examples/orders.yaml")) == "native"


def test_the_fixture_contract_reads_as_one_table_per_schema_object():
    suite = load(FIXTURES / "contract.yaml")
    assert [t.name for t in suite.tables] == ["tricky", "empty"]
    tricky = suite.tables[0]
    assert tricky.source == PathSource("parquet", (str(FIXTURES / "tricky.parquet"),))
    assert tricky.keys == ("id",)
    assert len(tricky.rules) == 40  # 37 and its 3 relationships
    kinds = {r.kind for r in tricky.rules}
    assert {"odcs:type", "odcs:primaryKey", "odcs:required", "odcs:enum", "odcs:pattern",
            "odcs:nullValues", "odcs:sql", "odcs:rowCount"} <= kinds  # fmt: skip


def test_the_schema_is_checked_first_and_its_errors_name_lines(tmp_path):
    text = errors(
        contract(
            tmp_path,
            """\
schema:
  - name: t
    bogus: 1
    properties:
      - name: a
        logicalType: strin
    quality:
      - metric: rowCount
        mustBe: 1
        mustBeGreaterThan: 0
""",
        )
    )
    assert "contract.yaml:8 schema[0].bogus: ODCS v3.1.0: 'bogus' is not a key" in text
    assert (
        "contract.yaml:11 schema[0].properties[0].logicalType: ODCS v3.1.0: 'strin' is not one of"
        in text
    )
    assert "contract.yaml:13 schema[0].quality[0]" in text


def test_an_unknown_api_version_is_refused(tmp_path):
    body = "schema: []\n"
    text = errors(contract(tmp_path, body, HEAD.replace("v3.1.0", "v2.2.2")))
    assert "apiVersion: ODCS apiVersion 'v2.2.2' is not supported" in text


def test_properties_become_rules(tmp_path):
    tables = table_rules(
        tmp_path,
        """\
schema:
  - name: t
    properties:
      - name: a
        physicalName: col_a
        logicalType: string
        required: true
        unique: true
        logicalTypeOptions: {minLength: 2, maxLength: 5, pattern: "^x", format: email}
      - name: b
        logicalType: integer
        logicalTypeOptions: {minimum: 0, exclusiveMaximum: 9, format: u8}
      - {name: k1, logicalType: integer, primaryKey: true, primaryKeyPosition: 2}
      - {name: k2, logicalType: string, primaryKey: true, primaryKeyPosition: 1}
""",
    )
    rules = tables["t"].rules
    by = {(odcs(r)["property"], odcs(r)["check"]): r for r in rules}
    assert isinstance(by["a", "field_type"].check, SchemaCheck)
    assert by["a", "field_type"].check.types == (("col_a", "string|varchar(*)|char(*)"),)
    assert by["a", "field_required"].check == RowCheck(by["a", "field_required"].check.failing)
    assert isinstance(by["a", "field_unique"].check, UniqueCheck)
    assert by["a", "field_unique"].check.counted == "values"
    for check in ("field_min_length", "field_max_length", "field_regex", "field_format"):
        assert isinstance(by["a", check].check, RowCheck), check
    assert {("b", "field_minimum"), ("b", "field_exclusive_maximum"), ("b", "field_format")} <= set(
        by
    )
    key = by[None, "primary_key_unique"]
    assert key.columns == ("k2", "k1") and tables["t"].keys == ("k2", "k1")
    assert odcs(by["a", "field_required"])["key"] == "t__col_a__field_required"


def test_quality_entries_become_rules(tmp_path):
    tables = table_rules(
        tmp_path,
        """\
schema:
  - name: t
    properties:
      - name: a
        logicalType: string
        quality:
          - {metric: nullValues, mustBeLessThan: 5, unit: percent}
          - {metric: missingValues, arguments: {missingValues: ["", "n/a"]}, mustBe: 0}
          - {metric: invalidValues, arguments: {validValues: [x, y]}, mustBeLessOrEqualTo: 3}
          - {metric: duplicateValues, mustBeLessThan: 2, severity: warning}
          - {type: sql, query: "SELECT COUNT(*) FROM {object} WHERE {property} = ''", mustBe: 0}
          - {type: text, description: only words}
    quality:
      - {metric: rowCount, mustBeBetween: [1, 10]}
      - {metric: duplicateValues, arguments: {properties: [a]}, mustBe: 0}
""",
    )
    rules = tables["t"].rules
    checks = [odcs(r)["check"] for r in rules[1:]]
    assert checks == [
        "field_null_values", "field_missing_values", "field_invalid_values",
        "field_duplicate_values", "field_quality_sql", "row_count", "model_duplicate_values",
    ]  # fmt: skip
    null = rules[1].check
    assert isinstance(null, MetricCheck) and isinstance(null.metric, CountMetric)
    assert null.metric.percent and null.must.text == "< 5%"
    assert rules[4].level == "warn" and rules[4].check.tolerance.value == 1
    sql = rules[5].check
    assert isinstance(sql, SqlCheck)
    assert sql.query == "SELECT COUNT(*) = 0 FROM _validation_df WHERE `a` = ''"
    row_count = rules[6].check
    assert (
        isinstance(row_count.metric, RowCountMetric) and row_count.must.text == "between 1 and 10"
    )
    assert odcs(rules[6]) | {"threshold": None} == {
        "schema": "t", "property": None, "quality": 0, "check": "row_count", "key": "t__row_count",
        "metric": "rowCount", "threshold": None, "unit": "rows",
    }  # fmt: skip


def test_custom_engines_are_read_by_their_dialects(tmp_path):
    tables = table_rules(
        tmp_path,
        """\
schema:
  - name: t
    properties:
      - {name: a, logicalType: string}
    quality:
      - type: custom
        engine: soda
        implementation: |
          checks for t:
            - row_count > 0
            - missing_count(a) = 0
      - type: custom
        engine: greatExpectations
        implementation:
          expectations:
            - type: expect_column_values_to_not_be_null
              kwargs: {column: a}
      - type: custom
        engine: dqx
        severity: info
        implementation: |
          - check: {function: is_not_null, arguments: {column: a}}
""",
    )
    rules = tables["t"].rules[1:]
    assert [r.kind for r in rules] == [
        "soda:row_count", "soda:missing_count", "expect_column_values_to_not_be_null",
        "dqx:is_not_null",
    ]  # fmt: skip
    assert [odcs(r)["check"] for r in rules] == [
        "quality_custom_soda", "quality_custom_soda", "quality_custom_great_expectations",
        "quality_custom_dqx",
    ]  # fmt: skip
    assert rules[-1].level == "warn"
    assert rules[0].origin.line == 15 and rules[1].origin.line == 16  # inside the block


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("    properties:\n      - {name: a, logicalType: string, quality: [{metric: rowCount, mustBe: 1}]}\n",
         "metric rowCount is only supported at schema level"),
        ("    quality: [{metric: nullValues, mustBe: 0}]\n",
         "metric nullValues is only supported at property level"),
        ("    quality: [{metric: rowCount, mustBe: 1, unit: percent}]\n", "'unit: percent' with rowCount"),
        ("    properties:\n      - {name: a, logicalType: string, quality: [{metric: duplicateValues, mustBeGreaterThan: 1}]}\n",
         "assay judges duplicated values by an upper bound only"),
        ("    properties:\n      - {name: a, logicalType: string, quality: [{metric: invalidValues, mustBe: 0}]}\n",
         "metric invalidValues needs a validValues or a pattern argument"),
        ("    quality: [{type: custom, engine: montecarlo, implementation: x}]\n",
         "custom engine 'montecarlo' is not supported"),
        ("    quality: [{type: sql, query: 'SELECT COUNT(*) FROM {object} WHERE {property} > 0', mustBe: 0}]\n",
         "'{property}' in a schema-level query"),
        ("    quality: [{type: sql, query: 'SELECT ${NOPE}', mustBe: 0}]\n", "undefined variable ${NOPE}"),
        ("    properties:\n      - {name: a, logicalType: string, logicalTypeOptions: {format: isbn}}\n",
         "format 'isbn' is not supported"),
        ("    properties:\n      - {name: a, logicalType: array, items: {logicalType: array, items: {logicalType: string}}}\n",
         "the items of an array's items are not checked"),
        ("    properties:\n      - {name: a, logicalType: string, relationships: [{to: u.a}]}\n",
         "the relationship from a to u.a cannot be checked: the contract has no schema u"),
        ("    properties:\n      - {name: a, logicalType: string, relationships: [{to: t.b}]}\n",
         "cannot be checked: t has no property b"),
        ("    properties:\n      - {name: a, logicalType: string}\n    relationships:\n"
         "      - {from: [t.a, t.a], to: [t.a]}\n", "its from and to lists differ in length"),
        ("    properties:\n      - {name: a, physicalType: geography}\n",
         "physicalType 'geography' is not a type assay can check"),
    ],
)  # fmt: skip
def test_refused_at_their_place(tmp_path, body, said):
    text = errors(contract(tmp_path, "schema:\n  - name: t\n" + body))
    assert said in text
    assert "contract.yaml:" in text


def test_where_the_data_is(tmp_path):
    body = """\
servers:
  - {server: s, type: local, path: "data/{model}.csv", format: csv}
schema:
  - {name: t, physicalName: t_v1}
  - {name: u}
"""
    suite = load(contract(tmp_path, body))
    assert suite.tables[0].source == PathSource(
        "csv", (str(tmp_path / "data/t.csv"),), (("header", "true"),)
    )
    given = load(contract(tmp_path, body), source="t=db.orders", inputs={"u": "x.parquet"})
    assert given.tables[0].source == CatalogSource("db.orders")
    assert given.tables[1].source == PathSource("parquet", (str(Path("x.parquet").resolve()),))
    databricks = body.replace(
        '{server: s, type: local, path: "data/{model}.csv", format: csv}',
        "{server: s, type: databricks, catalog: main, schema: sales, host: h}",
    )
    assert load(contract(tmp_path, databricks)).tables[0].source == CatalogSource("main.sales.t_v1")
    postgres = body.replace(
        '{server: s, type: local, path: "data/{model}.csv", format: csv}',
        "{server: s, type: postgres, host: h, port: 5432, database: d, schema: p}",
    )
    assert "server type 'postgres': assay reads the data through Spark" in errors(
        contract(tmp_path, postgres)
    )
    assert load(contract(tmp_path, "schema:\n  - {name: t}\n")).tables[0].source == CatalogSource(
        "t"
    )


def test_datacontract_com_contracts(tmp_path):
    suite = load(FIXTURES / "dcs_contract.yaml")
    tricky = suite.tables[0]
    checks = {(odcs(r)["property"], odcs(r)["check"]) for r in tricky.rules}
    assert {("id", "field_required"), ("id", "field_unique"), ("qty", "field_primary_key_unique"),
            ("qty", "field_exclusive_minimum"), ("status", "field_enum"),
            ("email", "field_quality_sql")} <= checks  # fmt: skip
    old = write(
        tmp_path,
        """\
dataContractSpecification: 0.9.3
id: x
info: {title: x, version: 1.0.0}
models:
  orders:
    fields:
      id: {type: long, references: customers.id}
""",
    )
    said = errors(old)  # a foreign key, as datacontract-cli imports it: here, to no model
    assert "the relationship from id to customers.id cannot be checked" in said
    assert "c.yaml:7 models.orders.fields.id.references" in said


def test_a_datacontract_com_sodacl_block_goes_to_its_model(tmp_path):
    path = write(
        tmp_path,
        """\
dataContractSpecification: 0.9.3
id: x
info: {title: x, version: 1.0.0}
models:
  orders:
    fields:
      id: {type: long}
quality:
  type: SodaCL
  specification:
    checks for orders:
      - row_count > 0
""",
    )
    (table,) = load(path).tables
    assert [r.kind for r in table.rules] == ["odcs:type", "soda:row_count"]


def test_the_server_named_on_the_command_line(tmp_path):
    # datacontract-cli's --server: the server of that name, else the first
    body = """\
servers:
  - {server: dev, type: local, path: "dev/{model}.parquet", format: parquet}
  - {server: prod, type: databricks, catalog: main, schema: sales, host: h}
schema:
  - {name: t}
"""
    path = contract(tmp_path, body)
    assert load(path).tables[0].source == PathSource("parquet", (str(tmp_path / "dev/t.parquet"),))
    assert load(path, server="prod").tables[0].source == CatalogSource("main.sales.t")
    said = errors(path, server="qa")
    assert "--server qa: the contract has no such server (its servers: 'dev', 'prod')" in said
    assert "contract.yaml:6 servers" in said
    assert "its servers: none" in errors(contract(tmp_path, "schema:\n  - {name: t}\n"), server="x")
    dcs = write(
        tmp_path,
        """\
dataContractSpecification: 1.1.0
id: x
info: {title: x, version: 1.0.0}
servers:
  dev: {type: local, path: "dev/{model}.parquet", format: parquet}
  prod: {type: databricks, catalog: main, schema: sales, host: h}
models:
  orders:
    fields:
      id: {type: long}
""",
        "dcs.yaml",
    )
    assert load(dcs, server="prod").tables[0].source == CatalogSource("main.sales.orders")
    assert "its servers: 'dev', 'prod'" in errors(dcs, server="qa")


def test_relationships_are_foreign_keys(tmp_path):
    # datacontract-cli's field_relationships: rows whose key columns are all non-null and
    # match no row of the referenced schema object's data
    body = """\
servers:
  - {server: s, type: local, path: "{model}.parquet", format: parquet}
schema:
  - name: orders
    physicalName: orders_v1
    properties:
      - {name: id, logicalType: integer}
      - name: customer
        physicalName: customer_id
        logicalType: integer
        relationships: [{to: customers.id}]
      - {name: region, logicalType: string}
    relationships:
      - {from: [orders.customer, orders.region], to: [customers.id, customers.region]}
  - name: customers
    properties:
      - {name: id, logicalType: integer}
      - {name: region, logicalType: string}
"""
    orders = table_rules(tmp_path, body, inputs={"customers": "db.customers"})["orders"]
    one, two = [r for r in orders.rules if r.kind == "odcs:relationship"]
    assert one.check == ForeignKeyCheck(
        Lookup(("customer_id",), Reference(CatalogSource("db.customers"), ("id",)))
    )
    assert odcs(one)["key"] == "orders_v1__customer_id__customers__id__field_relationships"
    assert two.check.lookup == Lookup(  # type: ignore[union-attr]
        ("customer_id", "region"),
        Reference(CatalogSource("db.customers"), ("id", "region")),
    )
    assert one.name == "customer_id has no values missing from customers (id)"
    assert [r.origin.line for r in (one, two)] == [16, 19]

"""Soda's checks of a dataset's shape and keys, each with Soda's semantics (soda-core 3.x,
``execution/check/schema_check.py``, ``reference_check.py``): ``schema`` (required,
forbidden and typed columns), ``values in ... must (not) exist in`` another dataset, and
``row_count same as`` another dataset (``row_count_comparison_check.py``).
"""

from __future__ import annotations

import dataclasses
import re
from decimal import Decimal

from assay.config.node import Node, unknown_message
from assay.dialects.soda_rule import Dataset, Entry, column_name, rule_of
from assay.ir.expr import Sql
from assay.ir.monitoring import SCHEMA_CHANGES, SchemaChange, SchemaChangeCheck
from assay.ir.references import ForeignKeyCheck, Lookup, Reference, RowCountMatchMetric
from assay.ir.rules import MetricCheck, Rule, SchemaCheck
from assay.ir.sources import CatalogSource, PathSource, Source, SqlSource
from assay.ir.values import Comparison, Op

_REFERENCE = re.compile(
    r"^values in (?:\((?P<many>[^)]*)\)|(?P<one>[^ ]+)) must (?P<neg>not )?exist in "
    r"(?P<target>[^ ]+) (?:\((?P<tmany>[^)]*)\)|(?P<tone>[^ ]+))$"
)

_SAME_AS = re.compile(
    r"^row_count same as (?P<other>[^ \[\]]+)(?: \[(?P<part>[^\]]+)\])?(?: in (?P<source>\S+))?$"
)


def row_count_same_as(got: Entry, dataset: Dataset) -> Rule:
    """``row_count same as other``: the dataset's rows (of its section's partition) minus
    the other dataset's, which must be 0 (Soda's value: the difference). assay measures
    the rows as a percentage of the other's (``RowCountMatchMetric``), 100 when they are
    as many; an empty other dataset has no percentage, and fails."""
    found = _SAME_AS.match(got.text)
    if found is None:
        raise got.node.error(f"invalid row count comparison '{got.text}'")
    if found.group("source"):
        raise got.node.error(
            f"'in {found.group('source')}': assay compares datasets of one data source",
            hint="give the other dataset's data with --input NAME=SOURCE",
        )
    if got.config is not None:
        for key, value in got.config.as_mapping().items():
            if key not in ("name", "attributes", "identity"):
                raise value.error(f"invalid row count comparison configuration '{key}'")
    name = dataset.resolve(got.node, found.group("other"))
    other = dataset.source_of(got.node, name)
    if found.group("part"):
        other = _partition_of(got, other, name, found.group("part"), dataset)
    metric = RowCountMatchMetric(Reference(other))
    check = MetricCheck(metric, Comparison(Op.EQ, Decimal(100), "= 100 (as many rows)"))
    return rule_of(got, "row_count_same_as", check, (), dataset, threshold="= 0")


def _partition_of(got: Entry, other: Source, name: str, part: str, dataset: Dataset) -> Source:
    """The rows of ``other`` its partition filter ``[part]`` keeps, as a query: of a
    catalog table, or of a file Spark SQL reads by its format (``parquet.`path```)."""
    where = dataset.filters.get((name, part))
    if where is None:
        raise got.node.error(
            f"filter not declared: [{part}]",
            hint=f"declare it in a section 'filter {name} [{part}]:' with 'where:'",
        )
    assert isinstance(where, Sql)
    if isinstance(other, CatalogSource):
        return SqlSource(f"SELECT * FROM {other.table} WHERE {where.text}")
    plain = isinstance(other, PathSource) and len(other.paths) == 1 and not other.options
    if plain and other.format in ("parquet", "orc", "json"):  # type: ignore[union-attr]
        path = other.paths[0].replace("`", "``")  # type: ignore[union-attr]
        return SqlSource(f"SELECT * FROM {other.format}.`{path}` WHERE {where.text}")  # type: ignore[union-attr]
    raise got.node.error(
        f"the partition [{part}] of {name}: assay filters a catalog table or a parquet, ORC "
        "or JSON file only"
    )


def schema(got: Entry, dataset: Dataset) -> Rule:
    """Soda's schema check: ``fail``/``warn`` with ``when required column missing``,
    ``when forbidden column present`` and ``when wrong column type`` (names compared as
    written)."""
    if got.config is None:
        raise got.node.error("a schema check needs 'fail' or 'warn' validations")
    levels = {}
    for key, value in got.config.as_mapping().items():
        if key in ("fail", "warn"):
            levels[key] = value
        elif key not in ("name", "attributes"):
            raise value.error(f"invalid schema check configuration '{key}'")
    if any(_CHANGES in (v.value or {}) for v in levels.values() if isinstance(v.value, dict)):
        return _schema_changes(got, levels, dataset)
    if len(levels) != 1:
        raise got.node.error(
            "a schema check with both 'fail' and 'warn' is not supported: write two schema checks"
            if levels
            else "a schema check needs 'fail' or 'warn' validations"
        )
    ((level, node),) = levels.items()
    required: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    types: tuple[tuple[str, str], ...] = ()
    for key, value in node.as_mapping(f"the {level} validations (a mapping)").items():
        if key == "when required column missing":
            required = tuple(
                column_name(i.as_str("a column name")) for i in value.as_list("a list")
            )
        elif key == "when forbidden column present":
            forbidden = tuple(
                column_name(i.as_str("a column name")) for i in value.as_list("a list")
            )
            if any(any(ch in c for ch in "%*") for c in forbidden):
                raise value.error("forbidden column patterns (% or *) are not supported")
        elif key == "when wrong column type":
            mapping = value.as_mapping("a mapping of column to type")
            types = tuple((column_name(c), _type(t)) for c, t in mapping.items())
        else:
            raise value.error(
                f"schema validation '{key}' is not supported",
                hint="assay runs 'when required column missing', 'when forbidden column "
                "present' and 'when wrong column type'",
            )
    check = SchemaCheck(required=required, forbidden=forbidden, types=types, case_sensitive=True)
    rule = rule_of(got, "schema", check, (), dataset)
    if level == "warn":
        rule = dataclasses.replace(rule, level="warn")
    return rule


_CHANGES = "when schema changes"
_SODA_CHANGES: dict[str, SchemaChange] = {
    "column add": "added",
    "column delete": "removed",
    "column type change": "retyped",
    "column index change": "reordered",
}


def _schema_changes(got: Entry, levels: dict[str, Node], dataset: Dataset) -> Rule:
    """``fail``/``warn``: ``when schema changes: any`` or a list of Soda's changes, judged
    against the last run's schema in assay's metrics store (``schema_change``; Soda's
    ``column index change`` is a column at another index: ``order: index``)."""
    kinds: dict[str, tuple[SchemaChange, ...]] = {"fail": (), "warn": ()}
    for level, node in levels.items():
        for key, value in node.as_mapping(f"the {level} validations (a mapping)").items():
            if key != _CHANGES:
                raise value.error(
                    f"'{key}' beside 'when schema changes' in one schema check is not supported",
                    hint="write two schema checks: one with 'when schema changes', one with"
                    f" '{key}'",
                )
            if value.value == "any":
                kinds[level] = SCHEMA_CHANGES
                continue
            said = [i.as_str("a change") for i in value.as_list("'any' or a list of changes")]
            for item, text in zip(value.as_list(), said, strict=True):
                if text not in _SODA_CHANGES:
                    raise item.error(unknown_message("schema change", text, _SODA_CHANGES))
            kinds[level] = tuple(k for k in SCHEMA_CHANGES if k in {_SODA_CHANGES[s] for s in said})
    warn = tuple(k for k in kinds["warn"] if k not in kinds["fail"])  # Soda judges fail first
    check = SchemaChangeCheck(kinds["fail"], warn, order="index")
    return rule_of(got, "schema", check, (), dataset)


SODA_TYPE_ALIASES = {
    "character varying": "string",
    "varchar": "string",
    "text": "string",
    "integer": "int",
    "decimal": "double",
    "timestamptz": "timestamp",
}
"""The expected types Soda's ``spark_df`` data source also accepts for another Spark type
(``SCHEMA_CHECK_TYPES_MAPPING``: a ``double`` column passes ``decimal``)."""


def _type(node: Node) -> str:
    """An expected column type, lowercased as Soda compares it; Soda's aliases refused."""
    written = node.as_str("a type").strip().lower()
    if written in SODA_TYPE_ALIASES:
        raise node.error(
            f"type '{written}': Soda on Spark also accepts a {SODA_TYPE_ALIASES[written]} "
            "column for it, which assay does not",
            hint="write the column's Spark type name (string, int, bigint, double, "
            "decimal(10,2), timestamp...)",
        )
    return written


def reference(got: Entry, dataset: Dataset) -> Rule:
    """Soda's reference check (``reference_query.py``): ``SOURCE LEFT JOIN TARGET`` on
    the keys, counting the joined rows where a source key column is not null and its
    target column null (``must exist in``: the rows without a match), or not null (``must
    not exist in``: each match of a row, as many as the target rows equal to it)."""
    found = _REFERENCE.match(got.text)
    if found is None:
        raise got.node.error(f"invalid reference check '{got.text}'")
    negate = bool(found.group("neg"))
    sources = (found.group("many") or found.group("one") or "").split(",")
    targets = (found.group("tmany") or found.group("tone") or "").split(",")
    names = tuple(column_name(s.strip()) for s in sources)
    target_names = tuple(column_name(t.strip()) for t in targets)
    if len(names) != len(target_names):
        raise got.node.error(
            f"the check has {len(names)} source columns and {len(target_names)} target "
            "columns: Soda joins them in order"
        )
    if not negate and len(names) != 1:
        # a matched row has no null key column, so 'must not exist in' agrees either way
        raise got.node.error(
            "a reference check of several columns is not supported: Soda counts a row with "
            "some null key columns as missing, assay's foreign key passes it"
        )
    if got.config is not None:
        for key, value in got.config.as_mapping().items():
            if key not in ("name", "attributes", "samples limit"):
                raise value.error(f"invalid reference check configuration '{key}'")
    target = dataset.source_of(got.node, found.group("target"))
    lookup = Lookup(names, Reference(target, target_names))
    check = ForeignKeyCheck(lookup, negate=negate, counted="matches" if negate else "rows")
    return rule_of(got, "reference", check, names, dataset, tuple((n, "any") for n in names))

"""The catalogue's rule types that read a second source (``references``): a foreign key
and a row count compared with another source's (their declarations and builders).

The referenced side is written as a table's ``source`` is (``table``, ``path`` with
``format`` and ``options``, or ``sql``: :func:`assay.dialects.sources.table_source`),
with the referenced key ``columns`` beside it for a foreign key.
"""

# ruff: noqa: E501 - the declarations' documentation is prose, one string per table cell

from __future__ import annotations

import os

from assay.config.node import Node
from assay.dialects import params as p
from assay.dialects import sources
from assay.dialects.native_rules import METRIC_KEYS, metric_rule
from assay.dialects.rule_spec import (
    ONE_OR_MORE_COLUMNS,
    ROW_KEYS,
    Built,
    RuleDoc,
    RuleSpec,
    ref,
    required,
)
from assay.ir.references import ForeignKeyCheck, Lookup, Reference, RowCountMatchMetric

REFERENCE_COLUMNS = frozenset({"column", "columns"})
"""The keys of a reference besides its source's: the referenced key columns."""


def referenced(rule: Node, keyed: bool) -> Reference:
    """The rule's ``references``: a source, with its key columns when ``keyed``."""
    node = rule.require("references")
    base = os.path.dirname(os.path.abspath(node.origin.file))
    extra = REFERENCE_COLUMNS if keyed else frozenset()
    source = sources.table_source(node, base, extra)
    if not keyed:
        return Reference(source)
    if node.get("column") is None and node.get("columns") is None:
        raise node.error(
            "missing required key 'columns' (the referenced key columns, matched in order"
            " with the rule's)"
        )
    return Reference(source, p.columns(node))


def build_foreign_key(rule: Node) -> Built:
    """Rows whose non-null key has no match among the referenced source's keys fail
    (with ``negate: true``, those whose key has one)."""
    columns = p.columns(rule)
    reference = referenced(rule, keyed=True)
    if len(reference.columns) != len(columns):
        raise rule.require("references").error(
            f"the rule has {len(columns)} key columns ({', '.join(columns)}) and its reference"
            f" {len(reference.columns)} ({', '.join(reference.columns)}): they are matched in order"
        )
    tolerance, text = p.tolerance(rule)
    negate = rule.get("negate")
    negated = negate is not None and negate.as_bool()
    check = ForeignKeyCheck(Lookup(columns, reference), tolerance, negate=negated)
    return Built(check, columns, tuple((c, "any") for c in columns), text)


def build_row_count_match(rule: Node) -> Built:
    """The table's rows as a percentage of the referenced source's, judged."""
    return metric_rule(rule, RowCountMatchMetric(referenced(rule, keyed=False)), (), "any")


_SQL_REFERENCE = "SELECT * FROM VALUES ('a', 1), ('b', 2), ('b', 2), (NULL, 3) AS t(code, n)"
"""The examples' referenced side (over the sample table's ``status``): duplicates and a
null among the keys."""
_SQL_BLOCKED = "SELECT * FROM VALUES ('x'), ('y'), (NULL) AS t(code)"
"""A negated example's referenced side: no status of the sample table is among them."""

REFERENCE_RULES: dict[str, RuleSpec] = {
    "foreign_key": RuleSpec(
        build_foreign_key,
        ROW_KEYS | ONE_OR_MORE_COLUMNS | {"references", "negate"},
        examples=(
            f'{{type: foreign_key, column: status, references: {{sql: "{_SQL_REFERENCE}", columns: [code]}}}}',
            f'{{type: foreign_key, columns: [status], filter: "id > 2", references: {{sql: "{_SQL_REFERENCE}", column: code}}}}',
            f'{{type: foreign_key, column: status, negate: true, references: {{sql: "{_SQL_BLOCKED}", columns: [code]}}}}',
        ),
        doc=RuleDoc(
            params="`column` or `columns`; `references`: a source (`table`, `path` + `format` + `options`, or `sql`) and its key `columns`, matched in order; `negate`; `tolerance`",
            fails="the row's key (all its columns not null) equals no row of the referenced source's keys (DQX `foreign_key`, DQDL `ReferentialIntegrity`, Soda reference checks); with `negate: true`, equals one (DQX `foreign_key` with `negate`, Soda `must not exist in`)",
            nulls="pass (a row with a null in any key column, as an SQL foreign key, negated or not); null referenced keys match nothing",
            columns="any, of one kind with its referenced column's: numbers, strings, dates and timestamps, booleans (compared by Spark's `=`; other pairs refused before any scan)",
            plan="agg (an anti join against the referenced distinct keys, negated a semi join: a branch of the aggregate plan)",
        ),
        values={
            "references": ref(
                "reference",
                description="The referenced source and its key columns, matched in order with the rule's.",
            ),
            "negate": {
                "type": "boolean",
                "default": False,
                "description": "The keys must NOT be found in the referenced source: a row whose key is found fails.",
            },
        },
        requires=(required("references"),),
    ),
    "row_count_match": RuleSpec(
        build_row_count_match,
        (METRIC_KEYS - {"group_by"}) | {"references"},
        examples=(
            '{type: row_count_match, references: {sql: "SELECT * FROM range(5)"}, must_be: "between 99% and 101%"}',
        ),
        doc=RuleDoc(
            params="`references`: a source (`table`, `path` + `format` + `options`, or `sql`); `must_be`/`warn`",
            fails="the table's row count as a percentage of the referenced source's, `100 * rows / referenced rows`, is outside the threshold (DQDL `RowCountMatch`); an empty referenced source gives no value: the rule fails",
            nulls="—",
            columns="—",
            plan="agg (the referenced rows counted in a branch of the aggregate plan)",
        ),
        values={
            "references": ref("source", description="The referenced source whose rows are counted.")
        },
        requires=(required("references"),),
    ),
}

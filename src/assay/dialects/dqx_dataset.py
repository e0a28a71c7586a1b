"""DQX's dataset-level check functions that map onto assay's key checks and SQL rules:
``is_unique`` (a uniqueness check), ``foreign_key`` (a lookup in the referenced keys) and
``sql_query`` (a SQL rule of the table's plan), each with DQX's semantics
(databricks-labs-dqx 0.17, ``check_funcs.py``).
"""

from __future__ import annotations

import re

from assay.config.node import Node
from assay.dialects.dqx_args import Args, Function, Mapped, normalize, quote, takes, target
from assay.ir.references import ForeignKeyCheck, Lookup, Reference
from assay.ir.rules import SqlCheck, UniqueCheck
from assay.ir.suite import CatalogSource, Source

VIEW = "_validation_df"
"""The checked table (the rows of the check's filter) as a SQL rule's query names it."""


def plain_columns(node: Node, *, keep_repeats: bool = False) -> tuple[str, ...]:
    """Column names only (DQX's ``F.col`` of each): a dotted path or an expression is
    refused, as assay's key checks read named columns."""
    items = node.as_list("a list of column names")
    if not items:
        raise node.error("DQX: columns must not be empty")
    names: list[str] = []
    for item in items:
        t = target(item)
        if t.column is None:
            raise item.error(
                f"DQX: '{t.shown}' is not a column name",
                hint="assay checks keys of named columns; a struct field or an expression "
                "is not supported here",
            )
        names.append(t.column)
    return tuple(names) if keep_repeats else tuple(dict.fromkeys(names))


def _is_unique(a: Args) -> Mapped:
    names = plain_columns(a.require("columns"))
    if a.flag("trim_strings"):
        raise a.require("trim_strings").error(
            "DQX: is_unique with trim_strings is not supported",
            hint="remove trim_strings, or check trim(column) with an expression column",
        )
    nulls_distinct = a.flag("nulls_distinct", default=True)
    check = UniqueCheck(names, nulls="any" if nulls_distinct else "none")
    shown = names[0] if len(names) == 1 else f"struct({', '.join(names)})"
    message = f"Value '{{value}}' in column '{shown}' is not unique, found {{count}} duplicates"
    return Mapped(check, names, f"{normalize(shown)}_is_not_unique", message, row_level=False)


def _foreign_key(a: Args) -> Mapped:
    """DQX's ``foreign_key``: a row whose key (no column null) has no match among the
    referenced keys fails (with ``negate``, one that has a match: a NULL key still
    passes); ``ref_df_name`` is read from ``--input NAME=...``, ``ref_table`` is a
    catalog table."""
    node = a.get("null_safe")
    if node is not None and node.value is not False:
        raise node.error(
            "DQX: foreign_key with null_safe is not supported",
            hint="assay matches keys as SQL does: a null never matches",
        )
    columns = plain_columns(a.require("columns"), keep_repeats=True)
    refs = plain_columns(a.require("ref_columns"), keep_repeats=True)
    if len(columns) != len(refs):
        raise a.require("ref_columns").error(
            "DQX: The number of columns to check against the reference columns must be equal."
        )
    frame, table = a.get("ref_df_name"), a.get("ref_table")
    if (frame is None) == (table is None):
        raise a.node.error(
            "DQX: give one of ref_df_name and ref_table",
            hint="ref_df_name names data given with --input NAME=path; ref_table a table",
        )
    if frame is not None:
        if a.frames is None:
            raise frame.error("DQX: ref_df_name is not read here")
        source: Source = a.frames(frame)
    else:
        assert table is not None
        source = CatalogSource(table.as_str("a table name"))
    negate = a.flag("negate")
    check = ForeignKeyCheck(Lookup(columns, Reference(source, refs)), negate=negate)
    if len(columns) == 1:
        shown, ref_shown = columns[0], refs[0]
    else:
        shown = "struct(" + ", ".join(f"{c} AS {c}" for c in columns) + ")"
        pairs = zip(refs, columns, strict=True)
        ref_shown = "struct(" + ", ".join(f"{r} AS {c}" for r, c in pairs) + ")"
    op, said = ("exists_in", "found") if negate else ("not_exists_in", "not found")
    name = f"{normalize(shown)}_{op}_ref_{normalize(ref_shown)}"
    message = f"Value '{{value}}' in column '{shown}' {said} in reference column '{ref_shown}'"
    return Mapped(check, tuple(dict.fromkeys(columns)), name, message, row_level=True)


_PLACEHOLDER = re.compile(r"\{\{[^}]*\}\}")


def _sql_query(a: Args) -> Mapped:
    """DQX's dataset-level ``sql_query`` (no ``merge_columns``): its query runs over the
    table (the rows of the check's filter) and returns at most one row; when its
    condition column is TRUE (FALSE with ``negate``) DQX flags every row, NULL or no row
    passes, several rows fail the run. Run as a SQL rule of the table's plan."""
    merge = a.get("merge_columns")
    if merge is not None and merge.as_list("a list of columns"):
        raise merge.error(
            "DQX: sql_query with merge_columns is not supported",
            hint="assay runs the dataset-level form (one row: every row passes or fails)",
        )
    query = a.require("query").as_str("a SQL query")
    condition = a.get("condition_column")
    column = condition.as_str("a column name") if condition is not None else "condition"
    placeholder = a.get("input_placeholder")
    view_name = placeholder.as_str("a name") if placeholder is not None else "input_view"
    view = VIEW if a.row_filter is None else f"(SELECT * FROM {VIEW} WHERE ({a.row_filter}))"

    def resolve(found: re.Match[str]) -> str:
        key = found.group(0).strip("{} \t")
        if key != view_name:
            raise a.require("query").error(
                f"DQX: the placeholder {found.group(0)} names a reference DataFrame",
                hint="assay runs queries over the checked table ({{" + view_name + "}}) only",
            )
        return view

    resolved = _PLACEHOLDER.sub(resolve, query)
    negate = a.flag("negate")
    value = f"{'NOT ' if negate else ''}q.{quote(column)}"
    # the table's rows (of the filter) left-joined with the query's: no row of the query
    # passes (its value NULL), no row of the table too (DQX has no row to flag); several
    # rows of the query are several rows of this one, an error of the rule. A join, not
    # scalar subqueries: those put their plans in the task of the plan's last stage
    text = (
        f"SELECT coalesce(q.v AND t.n > 0, false) = false"
        f" FROM (SELECT count(*) AS n FROM {view}) AS t"
        f" LEFT JOIN (SELECT {value} AS v FROM ({resolved}) AS q) AS q ON true"
    )
    name_node = a.get("name")
    name = name_node.as_str("a name") if name_node is not None else f"query_{column}_violation"
    msg = a.get("msg")
    said = "Value is matching query" if negate else "Value is not matching query"
    message = msg.as_str("a message") if msg is not None else f"{said}: '{query}'"
    return Mapped(SqlCheck(text), (), name, message, row_level=False)


FUNCTIONS: dict[str, Function] = {
    "is_unique": Function(
        _is_unique, takes("columns", "nulls_distinct", "row_filter", "trim_strings")
    ),
    "foreign_key": Function(
        _foreign_key,
        takes(
            "columns",
            "ref_columns",
            "ref_df_name",
            "ref_table",
            "negate",
            "row_filter",
            "null_safe",
            "broadcast_ref",
        ),
    ),  # fmt: skip
    "sql_query": Function(
        _sql_query,
        takes(
            "query",
            "merge_columns",
            "msg",
            "name",
            "negate",
            "condition_column",
            "input_placeholder",
            "row_filter",
        ),
    ),  # fmt: skip
}
"""The dataset-level functions on keys and queries, by DQX's name."""

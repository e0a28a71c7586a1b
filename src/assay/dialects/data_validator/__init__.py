"""target/data-validator YAML -> IR tables (docs/dialects.md, "data-validator").

The file's global settings become table settings (``numKeyCols`` -> ``Table.key_count``,
``numErrorsToReport`` -> ``sample_size``, ``detailedErrors`` -> ``detail``); each check is
renamed to its native rule type and built by the native catalogue
(:mod:`assay.dialects.catalogue`), so the semantics are defined once. Variables follow
data-validator's own substitution (``$name`` / ``${name}``, no escape), done once on the
parsed strings; ``sql`` and ``shell`` variables are deferred to the run
(:class:`~assay.ir.outputs.DeferredVariable`).
"""

from __future__ import annotations

from functools import partial

from assay.config.node import Node
from assay.dialects.base import Context, Dialect
from assay.dialects.data_validator.checks import CHECKS, build_check
from assay.dialects.data_validator.reports import read_email, read_outputs
from assay.dialects.data_validator.tables import SOURCE_KEYS, read_settings, read_table
from assay.dialects.data_validator.variables import read_variables, resolve_deferred
from assay.ir.suite import Table

NAME = "data-validator"
TOP_KEYS = frozenset(
    {"numKeyCols", "numErrorsToReport", "detailedErrors", "email", "vars", "outputs", "tables"}
)
REQUIRED_TOP = ("numKeyCols", "numErrorsToReport", "detailedErrors", "tables")


def matches(doc: Node) -> bool:
    """A mapping whose ``tables`` entries have ``checks`` and a data-validator source key,
    or with one of data-validator's global settings."""
    if not isinstance(doc.value, dict) or "tables" not in doc.value:
        return False
    if any(k in doc.value for k in REQUIRED_TOP[:3]):
        return True
    tables = doc.value["tables"].value
    if not isinstance(tables, list):
        return False
    entries = [t.value for t in tables if isinstance(t.value, dict)]
    return any("checks" in e and any(k in e for k in SOURCE_KEYS) for e in entries)


def build(doc: Node, ctx: Context) -> tuple[Table, ...]:
    """The tables of a data-validator file; errors go to ``ctx.errors``."""
    mapping = doc.as_mapping("a data-validator config (a mapping with 'tables')")
    ctx.attempt(doc.check_keys, TOP_KEYS)
    for key in REQUIRED_TOP:
        if key not in mapping:
            ctx.errors.append(
                doc.error(
                    f"missing required key '{key}'",
                    hint="data-validator requires numKeyCols, numErrorsToReport, "
                    "detailedErrors and tables",
                )
            )
    settings = read_settings(doc, ctx)
    variables = read_variables(doc, ctx)
    read_outputs(doc, ctx, variables)
    email = doc.get("email")
    if email is not None and not variables.touches_failed(email):  # else: that error says why
        report = ctx.attempt(read_email, email, variables)
        if report is not None:
            ctx.reports.append(report)
    tables_node = doc.get("tables")
    if tables_node is None:
        return ()
    items = ctx.attempt(partial(tables_node.as_list, non_empty=True), "a list of tables") or []
    tables: list[Table] = []
    used: set[str] = set()
    for i, item in enumerate(items):
        table = read_table(item, ctx.table_offset + i, ctx, settings, variables, used)
        if table is not None:
            tables.append(table)
    return tuple(tables)


DIALECT = Dialect(
    name=NAME,
    shape=(
        "a data-validator config (numKeyCols, numErrorsToReport, detailedErrors, and "
        "'tables' whose entries have 'checks' and db + table, orcFile, parquetFile or format)"
    ),
    matches=matches,
    build=build,
)

__all__ = ["CHECKS", "DIALECT", "build_check", "resolve_deferred"]

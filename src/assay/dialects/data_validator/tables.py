"""data-validator's tables: the global settings, a table's source (db + table, orcFile,
parquetFile or a format), key columns, condition, and its name."""

from __future__ import annotations

import re

from assay.config.node import Node
from assay.dialects import sources
from assay.dialects.base import Context
from assay.dialects.data_validator.checks import read_checks
from assay.dialects.data_validator.variables import Variables
from assay.grammar import substitute
from assay.ir.suite import CatalogSource, PathSource, Source, Table

SOURCE_KEYS = ("db", "table", "orcFile", "parquetFile", "format", "options", "loadData")


TABLE_KEYS = frozenset({*SOURCE_KEYS, "keyColumns", "condition", "checks"})


MAX_ERRORS_TO_REPORT = 1000


class Settings:
    def __init__(self, key_count: int | None, sample_size: int | None, detail: bool | None):
        self.key_count = key_count
        self.sample_size = 5 if sample_size is None else sample_size
        self.detail = True if detail is None else detail


def read_settings(doc: Node, ctx: Context) -> Settings:
    """The file's global settings (errors go to ``ctx.errors``)."""
    return Settings(
        key_count=ctx.attempt(int_setting, doc, "numKeyCols", 0, None),
        sample_size=ctx.attempt(int_setting, doc, "numErrorsToReport", 0, MAX_ERRORS_TO_REPORT),
        detail=ctx.attempt(bool_setting, doc, "detailedErrors"),
    )


def int_setting(doc: Node, key: str, minimum: int, maximum: int | None) -> int | None:
    node = doc.get(key)
    return None if node is None else node.as_int("an integer", minimum=minimum, maximum=maximum)


def bool_setting(doc: Node, key: str) -> bool | None:
    node = doc.get(key)
    return None if node is None else node.as_bool()


def read_table(
    node: Node,
    position: int,
    ctx: Context,
    settings: Settings,
    variables: Variables,
    used: set[str],
) -> Table | None:
    before = len(ctx.errors)
    if ctx.attempt(node.as_mapping, "a table (a mapping with a source and 'checks')") is None:
        return None
    ctx.attempt(node.check_keys, TABLE_KEYS)
    source = ctx.attempt(_source, node, ctx, variables)
    keys_node, cond_node = node.get("keyColumns"), node.get("condition")
    keys = ctx.attempt(_keys, keys_node, variables) if keys_node is not None else ()
    condition = (
        ctx.attempt(variables.text, cond_node, "a SQL condition") if cond_node is not None else None
    )
    rules = read_checks(node, ctx, variables)
    if len(ctx.errors) > before or source is None:
        return None
    name = _unique_name(_name(source, position), used)
    return Table(
        name=name,
        source=source,
        rules=rules,
        origin=node.origin,
        filter=condition,
        keys=keys or (),
        key_count=None if keys else settings.key_count,
        sample_size=settings.sample_size,
        detail=settings.detail,
        places=node.places(
            {
                "source": next((k for k in SOURCE_KINDS if node.get(k) is not None), None),
                "filter": "condition",
                "keys": "keyColumns",
            }
        ),
    )


SOURCE_KINDS = ("db", "orcFile", "parquetFile", "format")
"""The keys that say where a table's rows come from (one of them)."""


def _keys(node: Node, variables: Variables) -> tuple[str, ...]:
    names: list[str] = []
    for item in node.as_list("a list of key column names", non_empty=True):
        name = variables.text(item, "a column name")
        if name in names:
            raise item.error(f"duplicate key column '{name}'")
        names.append(name)
    return tuple(names)


def _source(node: Node, ctx: Context, variables: Variables) -> Source:
    mapping = node.as_mapping()
    kinds = [k for k in SOURCE_KINDS if k in mapping]
    if "table" in mapping and "db" not in mapping:
        raise node.require("table").error("'table' needs 'db' (a Hive table is db + table)")
    if len(kinds) != 1:
        got = " and ".join(f"'{k}'" for k in kinds) if kinds else "none"
        raise node.error(
            f"a table needs exactly one source: db + table, orcFile, parquetFile or format "
            f"(+ options, loadData); got {got}"
        )
    kind = kinds[0]
    for key in ("options", "loadData"):
        if key in mapping and kind != "format":
            raise mapping[key].error(f"'{key}' applies only with 'format'")
    if kind == "db":
        db = variables.text(node.require("db"), "a database name")
        table = variables.text(node.require("table"), "a table name")
        return CatalogSource(f"{db}.{table}")
    if kind in ("orcFile", "parquetFile"):
        path = variables.text(node.require(kind), "a file path")
        return PathSource(
            "orc" if kind == "orcFile" else "parquet", (sources.resolve(path, ctx.base_dir),)
        )
    fmt = variables.text(node.require("format"), "a Spark data source format").strip().lower()
    options: list[tuple[str, str]] = []
    options_node = node.get("options")
    if options_node is not None:
        for key, value in options_node.as_mapping("a mapping of reader option to value").items():
            text = sources.scalar_text(value, "an option value (a string, number or boolean)")
            options.append((key, substitute(text, variables.values, value.origin, escapes=False)))
    paths: list[str] = []
    load_node = node.get("loadData")
    if load_node is not None:
        items = (
            load_node.as_list("a list of paths")
            if isinstance(load_node.value, list)
            else [load_node]
        )
        for item in items:
            path = variables.text(item, "a path")
            paths.append(
                sources.resolve(path, ctx.base_dir)
                if fmt in set(sources.FORMATS.values())
                else path
            )
    return PathSource(fmt, tuple(paths), tuple(options))


def _name(source: Source, position: int) -> str:
    if isinstance(source, CatalogSource):
        derived = source.table
    elif isinstance(source, PathSource) and source.paths:
        derived = sources.stem(source.paths[0])
    else:
        derived = f"{source.format}_{position}"  # type: ignore[union-attr]
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", derived).strip("_.") or f"table_{position}"


def _unique_name(name: str, used: set[str]) -> str:
    """data-validator tables have no names: the same source checked twice (say, with two
    conditions) gets ``name``, ``name_2``..."""
    candidate, n = name, 1
    while candidate in used:
        n += 1
        candidate = f"{name}_{n}"
    used.add(candidate)
    return candidate

"""A data contract's schema objects -> tables (docs/dialects.md, "Data contracts"):
each schema object's properties' constraints (:mod:`assay.dialects.odcs_properties`) and
quality entries (:mod:`assay.dialects.odcs_quality`) are its rules, planned as one
aggregate plan. Its data is the ``--input``/``--source`` given for it (as for a SodaCL
dataset), else what the contract's server says (the one ``--server`` names, else the first:
a path with a format, or a catalog table), else the catalog table of its physical name.
"""

from __future__ import annotations

import re

from assay.config.node import Node
from assay.dialects import sources
from assay.dialects.base import Context
from assay.dialects.odcs_properties import Property, composite_key, property_rules, read_property
from assay.dialects.odcs_quality import quality_rules
from assay.dialects.odcs_relationships import SourceOf, relationship_rules
from assay.dialects.odcs_rules import Scope
from assay.errors import ConfigError
from assay.ir.rules import Rule
from assay.ir.suite import CatalogSource, PathSource, Source, Table

OBJECT_DESCRIPTIVE = frozenset(
    {"id", "description", "businessName", "dataGranularityDescription", "tags",
     "authoritativeDefinitions", "customProperties", "physicalType", "deprecated",
     "synonyms", "context"}
)  # fmt: skip
"""Keys of a schema object that describe it: read and ignored."""
FILE_SERVERS = frozenset({"local", "s3", "gcs", "azure"})
CATALOG_SERVERS = frozenset({"databricks", "hive", "glue", "iceberg", "custom"})
_TABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def chosen_server(doc: Node, named: list[tuple[str, Node]], ctx: Context) -> Node | None:
    """The server whose data is checked: the one ``--server NAME`` names (an error listing
    the contract's servers when none is), else the first (datacontract-cli's default)."""
    wanted = ctx.options.server
    if wanted is None:
        return named[0][1] if named else None
    for name, server in named:
        if name == wanted:
            return server
    where = doc.get("servers") or doc
    said = ", ".join(repr(name) for name, _ in named) if named else "none"
    raise where.error(
        f"--server {wanted}: the contract has no such server (its servers: {said})",
        hint="name one of the contract's servers, or leave --server out for the first",
    )


def contract_tables(objects: list[Node], server: Node | None, ctx: Context) -> tuple[Table, ...]:
    """The tables of a contract's schema objects (errors to ``ctx.errors``)."""
    names = [_name(o) for o in objects]
    tables = []
    alone = len(names) == 1

    def source_of(target: Node) -> Source:
        name = target.require("name").as_str("a schema object name")
        physical_node = target.get("physicalName")
        physical = physical_node.as_str("a table name") if physical_node is not None else name
        return table_source(target, name, physical, server, ctx, alone)

    for obj in objects:
        built = ctx.attempt(schema_table, obj, server, ctx, alone, (objects, source_of))
        if built is not None:
            tables.append(built)
    return tuple(tables)


def _name(obj: Node) -> str | None:
    if isinstance(obj.value, dict) and "name" in obj.value:
        found = obj.value["name"].value
        return found if isinstance(found, str) else None
    return None


def schema_table(
    obj: Node,
    server: Node | None,
    ctx: Context,
    alone: bool,
    contract: tuple[list[Node], SourceOf],
) -> Table | None:
    """A schema object's table: its rules (its relationships' foreign keys reading the
    ``contract``'s other schema objects' data), and where its data is."""
    obj.as_mapping("a schema object (a mapping with 'name')")
    for key in obj.as_mapping():
        if key not in {"name", "physicalName", "properties", "quality", "logicalType",
                       "relationships"} | OBJECT_DESCRIPTIVE:  # fmt: skip
            raise obj.require(key).error(f"schema object key '{key}' is not supported")
    kind = obj.get("logicalType")
    if kind is not None and kind.value not in (None, "object"):
        raise kind.error(f"a schema object of logicalType '{kind.value}' is not checked")
    name = obj.require("name").as_str("a schema object name")
    physical_node = obj.get("physicalName")
    physical = physical_node.as_str("a table name") if physical_node is not None else name
    before = len(ctx.errors)
    rules, keys = _rules(obj, name, ctx)
    rules += ctx.attempt(relationship_rules, obj, *contract) or []
    source = ctx.attempt(table_source, obj, name, physical, server, ctx, alone)
    if len(ctx.errors) > before or source is None:
        return None
    table_name = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_.") or "schema"
    return Table(
        name=table_name,
        source=source,
        rules=tuple(rules),
        origin=obj.origin,
        keys=keys,
    )


def _rules(obj: Node, name: str, ctx: Context) -> tuple[list[Rule], tuple[str, ...]]:
    """The schema object's rules, and its primary key's columns (its rows' keys)."""
    props_node = obj.get("properties")
    items = props_node.as_list("a list of properties") if props_node is not None else []
    props = [p for p in (ctx.attempt(read_property, item, name) for item in items) if p]
    primary: list[Property] = [p for p in props if p.primary is not None]
    rules: list[Rule] = []
    for prop in props:
        rules += property_rules(prop, len(primary) > 1, ctx)
    if len(primary) > 1:
        rules.append(composite_key(primary, primary[0].node.require("primaryKey"), name))
    quality = obj.get("quality")
    if quality is not None and quality.value is not None:
        rules += quality_rules(quality, Scope(name), ctx)
    primary.sort(key=lambda p: p.primary or 0)
    return rules, tuple(p.scope.column for p in primary if p.scope.column is not None)


def _given(name: str, ctx: Context, alone: bool) -> tuple[str, str] | None:
    """The data given on the command line for a schema object: ``--input name=...``,
    ``--source name=...``, or ``--source ...`` for a contract of one schema object."""
    if name in ctx.options.inputs:
        return ctx.options.inputs[name], f"--input {name}"
    text = ctx.options.source
    if text is None:
        return None
    bound, sep, target = text.partition("=")
    if sep and _TABLE_NAME.fullmatch(bound.strip()):
        return (target, f"--source {name}") if bound.strip() == name else None
    return (text, "--source") if alone else None


def table_source(
    obj: Node, name: str, physical: str, server: Node | None, ctx: Context, alone: bool
) -> Source:
    """Where a schema object's data is."""
    given = _given(name, ctx, alone)
    if given is not None:
        try:
            kind, fmt, target = sources.source_of(*given)
        except ConfigError as e:
            raise ConfigError(e.message, origin=obj.origin, hint=e.hint) from None
        return CatalogSource(target) if kind == "table" else PathSource(fmt or "", (target,))
    if server is None:
        return CatalogSource(physical)
    return server_source(server, name, physical, ctx)


def server_source(server: Node, name: str, physical: str, ctx: Context) -> Source:
    """A schema object's data on a server: files (``local``, ``s3``, ``gcs``, ``azure``:
    ``path`` or ``location``, ``{model}`` the object's name, and ``format``) or a
    catalog table (``databricks`` and the other Spark catalogs: ``catalog.schema.table``)."""
    kind_node = server.require("type")
    kind = kind_node.as_str("a server type")
    if kind in FILE_SERVERS:
        where = server.get("path") or server.get("location")
        if where is None:
            raise server.error(f"a {kind} server needs 'path' (or 'location')")
        path = where.as_str("a path").replace("{model}", name)
        fmt_node = server.get("format")
        fmt = fmt_node.as_str("a file format").lower() if fmt_node is not None else None
        if fmt is None:
            fmt = sources.FORMATS.get(sources.extension(path))
        if fmt is None:
            raise where.error(
                f"cannot tell the format of '{path}'", hint="add 'format' to the server"
            )
        options: tuple[tuple[str, str], ...] = ()
        if fmt == "csv":
            delimiter = server.get("delimiter")
            sep = (("sep", delimiter.as_str("a delimiter")),) if delimiter is not None else ()
            options = (("header", "true"), *sep)
        return PathSource(fmt, (sources.resolve(path, ctx.base_dir),), options)
    if kind in CATALOG_SERVERS:
        parts = [server.get(k) for k in ("catalog", "schema")]
        prefix = [p.as_str("a name") for p in parts if p is not None and p.value is not None]
        return CatalogSource(".".join((*prefix, physical)))
    raise kind_node.error(
        f"server type '{kind}': assay reads the data through Spark",
        hint=f"give the data with --source {name}=path/or/table (or --input {name}=...)",
    )

"""What every dialect needs to read a data source or a sink: file formats, paths, options.

Shared by the front ends (native, data-validator, Metorikku, sparquet ``validations``), so
that a path, a URI, a file extension or a reader option means the same in each of them.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import PurePosixPath

from assay.config.node import Node
from assay.dialects.base import LoadOptions
from assay.errors import ConfigError
from assay.ir.sources import CatalogSource, PathSource, Source, SqlSource

FORMATS = {
    ".parquet": "parquet",
    ".csv": "csv",
    ".json": "json",
    ".jsonl": "json",
    ".ndjson": "json",
    ".orc": "orc",
    ".avro": "avro",
    ".txt": "text",
}
"""File extension -> Spark format, for ``path`` sources without ``format``."""
COMPRESSED = frozenset({".gz", ".bz2", ".zst", ".lz4", ".snappy", ".deflate", ".xz"})
"""Extensions of compression codecs: the format is the extension before them."""
URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:")
"""A URI scheme (``s3:``, ``file:``, ``hdfs:``...): such a path is kept as written."""
TABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*){0,2}")
"""A catalog table name: ``table``, ``db.table`` or ``catalog.db.table``."""


def is_uri(path: str) -> bool:
    """Whether ``path`` starts with a URI scheme."""
    return URI.match(path) is not None


def resolve(path: str, base_dir: str | os.PathLike[str]) -> str:
    """URIs (``s3://``, ``file:``...) as written; other paths absolute, relative ones
    against ``base_dir`` (the config file's directory)."""
    if is_uri(path):
        return path
    return os.path.normpath(os.path.join(base_dir, path))


def extension(path: str) -> str:
    """The lower-case extension that tells the format (``data.csv.gz`` -> ``.csv``)."""
    name = PurePosixPath(path.rstrip("/")).name.lower()
    while PurePosixPath(name).suffix in COMPRESSED:
        name = PurePosixPath(name).stem
    return PurePosixPath(name).suffix


def stem(path: str) -> str:
    """The file name without its format and compression extensions (a table name)."""
    name = PurePosixPath(path.rstrip("/")).name
    while PurePosixPath(name).suffix.lower() in FORMATS.keys() | COMPRESSED:
        name = PurePosixPath(name).stem
    return name


def scalar_text(node: Node, what: str) -> str:
    """A scalar as text: strings as they are, booleans ``true``/``false``, other scalars
    as written in YAML (``012`` stays ``012``)."""
    value = node.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, (dict, list)):
        raise node.type_error(what)
    if node.text is not None:
        return node.text
    return value.isoformat() if isinstance(value, dt.date) else str(value)


def reader_options(node: Node | None) -> tuple[tuple[str, str], ...]:
    """A mapping of reader (or writer) option to value, the values as text."""
    if node is None:
        return ()
    mapping = node.as_mapping("a mapping of reader option to value")
    return tuple(
        (key, scalar_text(value, "an option value (a string, number or boolean)"))
        for key, value in mapping.items()
    )


def source_of(text: str, what: str) -> tuple[str, str | None, str]:
    """A ``--source``/``--input`` value: ``("table", None, name)`` for a catalog table,
    ``("path", format, absolute path)`` for a path (it has a ``/``, a URI scheme or a
    known file extension).

    Raises:
        ConfigError: a path whose format cannot be told from its extension.
    """
    text = text.strip()
    if not text:
        raise ConfigError(f"{what} is empty")
    ext = extension(text)
    if "/" in text or is_uri(text) or ext in FORMATS:
        if ext not in FORMATS:
            raise ConfigError(
                f"{what} '{text}': cannot tell the data format from the file extension",
                hint="name a file with a known extension (.parquet, .csv, .json, .orc, "
                ".avro), or describe the input in a wrapper file with its format",
            )
        path = text if is_uri(text) else os.path.abspath(text)
        return "path", FORMATS[ext], path
    if not TABLE_NAME.fullmatch(text):
        raise ConfigError(f"{what} '{text}' is neither a path nor a table name (db.table)")
    return "table", None, text


PLACEHOLDER = "<--source>"
"""The table of a file checking the ``--source`` table, loaded without one (``explain``)."""


def named_source(text: str, what: str, node: Node) -> Source:
    """The source a ``--source``/``--input`` value names (:func:`source_of`); its error
    at ``node``, the place that needs it."""
    try:
        kind, fmt, target = source_of(text, what)
    except ConfigError as e:
        raise ConfigError(e.message, origin=node.origin, hint=e.hint) from None
    return CatalogSource(target) if kind == "table" else PathSource(fmt or "", (target,))


def command_line_source(doc: Node, options: LoadOptions, needed: str, hint: str) -> Source:
    """The table ``--source`` names, for a file that checks the table it is given (a
    sparquet validations file, a DQX checks file, a Great Expectations suite): without
    ``--source``, :data:`PLACEHOLDER` when loaded only (``explain``), and an error at
    ``doc`` saying ``needed`` (with ``hint``) when it is to run."""
    if options.source is None:
        if options.for_run:
            raise doc.error(needed, hint=hint)
        return CatalogSource(PLACEHOLDER)
    return named_source(options.source, "--source", doc)


SOURCE_KEYS = frozenset({"table", "path", "sql", "format", "options"})
"""The keys of a native source (a table's ``source``, a rule's ``references``)."""


def table_source(
    node: Node, base_dir: str | os.PathLike[str], extra: frozenset[str] = frozenset()
) -> Source:
    """A native source mapping: exactly one of ``table``, ``path`` (+ ``format``,
    ``options``) or ``sql``; relative paths against ``base_dir``. ``extra``: other keys
    the mapping may hold (a reference's ``columns``), read by the caller."""
    node.as_mapping("a source (a mapping with 'table', 'path' or 'sql')")
    node.check_keys(SOURCE_KEYS | extra)
    given = [k for k in ("table", "path", "sql") if node.get(k) is not None]
    if len(given) != 1:
        got = " and ".join(f"'{k}'" for k in given) if given else "none"
        raise node.error(f"a source needs exactly one of 'table', 'path' or 'sql', got {got}")
    for key in ("format", "options"):
        if given[0] != "path" and node.get(key) is not None:
            raise node.require(key).error(f"'{key}' applies only to a 'path' source")
    if given[0] == "table":
        return CatalogSource(node.require("table").as_str("a table name"))
    if given[0] == "sql":
        return SqlSource(node.require("sql").as_str("a SQL query"))
    return _path_source(node, base_dir)


def _path_source(node: Node, base_dir: str | os.PathLike[str]) -> PathSource:
    path_node = node.require("path")
    if isinstance(path_node.value, list):
        items = path_node.as_list("a list of paths", non_empty=True)
        written = [item.as_str("a path") for item in items]
    else:
        written = [path_node.as_str("a path (or a list of paths)")]
    paths = tuple(resolve(path, base_dir) for path in written)
    format_node = node.get("format")
    if format_node is not None:
        fmt = format_node.as_str("a Spark data source format such as 'parquet'").strip().lower()
    else:
        fmt = _format_of(written, path_node)
    return PathSource(fmt, paths, reader_options(node.get("options")))


def _format_of(paths: list[str], node: Node) -> str:
    formats = {FORMATS.get(extension(path)) for path in paths}
    if len(formats) == 1 and None not in formats:
        return formats.pop()  # type: ignore[return-value]
    known = ", ".join(sorted(set(FORMATS.values())))
    raise node.error(
        f"cannot tell the data format from the file extension of '{paths[0]}'"
        if len(formats) == 1
        else "the paths have different file extensions",
        hint=f"add 'format:' to the source ({known}, or any Spark data source)",
    )

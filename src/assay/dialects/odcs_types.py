"""A property's declared type as the Spark types its column may have (docs/dialects.md,
"Data contracts"): the expected text of a schema check, alternatives separated by ``|``
and ``*`` a wildcard (``tinyint|smallint|int|bigint|decimal(*,0)``).

``logicalType`` is a family (ODCS's logical types); ``physicalType`` is the column's
Spark type when it names one (``bigint``, ``decimal(10,2)``, ``array<string>``; the
usual aliases ``integer``, ``long``, ``short``, ``byte``, ``bool``, ``real`` read as
Spark's), else the family of its kind as datacontract-cli's ``normalize_type_name``
tells it (``VARCHAR(2)`` and ``text`` are strings, ``NUMBER(10)`` a number).
"""

from __future__ import annotations

import re

from assay.config.node import Node

FAMILIES = {
    "string": "string|varchar(*)|char(*)",
    "integer": "tinyint|smallint|int|bigint|decimal(*,0)",
    "number": "tinyint|smallint|int|bigint|float|double|decimal*",
    "boolean": "boolean",
    "date": "date",
    "timestamp": "timestamp|timestamp_ntz",
    "time": "time*",
    "object": "struct<*>|map<*>",
    "array": "array<*>",
    "map": "map<*>",
}
"""ODCS's logical types -> the Spark types of a column holding them (``integer`` is an
integral type, ``number`` any number; an ``object`` is a struct or a map)."""
SPARK_TYPES = frozenset(
    {"tinyint", "smallint", "int", "bigint", "float", "double", "decimal", "boolean",
     "string", "binary", "date", "timestamp", "timestamp_ntz", "timestamp_ltz"}
)  # fmt: skip
ALIASES = {
    "integer": "int",
    "long": "bigint",
    "short": "smallint",
    "byte": "tinyint",
    "bool": "boolean",
    "real": "float",
    "bytes": "binary",
    "timestamp_ltz": "timestamp",
}
_DECIMAL = re.compile(r"(?:decimal|numeric|dec)\((\d+),(\d+)\)")
_COMPLEX = re.compile(r"(?:array|map|struct)<.*>")
_KINDS = {
    "string": {"varchar", "varchar2", "char", "character", "charactervarying", "nvarchar",
               "nvarchar2", "nchar", "text", "string", "str", "clob", "nclob", "uuid", "enum"},
    "integer": {"int", "integer", "bigint", "smallint", "tinyint", "long", "short", "int2",
                "int4", "int8", "serial", "bigserial", "smallserial", "int64", "int32",
                "int16", "byteint"},
    "number": {"decimal", "numeric", "dec", "float", "double", "doubleprecision", "real",
               "float4", "float8", "float32", "float64", "binary_float", "binary_double",
               "number"},
    "boolean": {"bool", "boolean", "bit", "logical"},
    "timestamp": {"timestamp", "timestamptz", "timestampwithouttimezone",
                  "timestampwithtimezone", "timestamp_tz", "timestamp_ntz", "timestamp_ltz",
                  "datetime", "datetime2", "smalldatetime"},
    "date": {"date"},
    "time": {"time", "timewithouttimezone", "timewithtimezone"},
    "object": {"struct", "record", "object", "row"},
    "array": {"array", "list"},
    "map": {"map"},
}  # fmt: skip


def logical(node: Node) -> str:
    """The Spark types of a ``logicalType``.

    Raises:
        ConfigError: a logical type assay cannot check (``vector``).
    """
    name = node.as_str("a logical type")
    if name not in FAMILIES:
        raise node.error(
            f"logicalType '{name}' is not supported",
            hint="assay checks " + ", ".join(FAMILIES),
        )
    return FAMILIES[name]


def physical(node: Node) -> str:
    """The Spark types of a ``physicalType``.

    Raises:
        ConfigError: a type that is neither Spark's nor of a kind datacontract-cli knows.
    """
    written = node.as_str("a physical type")
    text = re.sub(r"\s+", "", written.lower())
    text = ALIASES.get(text, text)
    if text in SPARK_TYPES:
        return "decimal*" if text == "decimal" else text
    found = _DECIMAL.fullmatch(text)
    if found:
        return f"decimal({found.group(1)},{found.group(2)})"
    if _COMPLEX.fullmatch(text):
        return text
    kind = re.sub(r"<.*>", "", re.sub(r"\(.*\)", "", text))
    for family, names in _KINDS.items():
        if kind in names:
            return FAMILIES[family]
    raise node.error(
        f"physicalType '{written}' is not a type assay can check",
        hint="write a Spark type (bigint, decimal(10,2), array<string>...) or a logicalType",
    )


def family(written: str) -> str | None:
    """The family (``object``, ``array``, ``string``...) a logical or physical type names,
    None for one it does not name (datacontract-cli's ``normalize_type_name``).

    >>> family("array<string>"), family("object"), family("VARCHAR(2)"), family("vector")
    ('array', 'object', 'string', None)
    """
    text = re.sub(r"\s+", "", written.lower())
    kind = re.sub(r"<.*>", "", re.sub(r"\(.*\)", "", ALIASES.get(text, text)))
    return next((family for family, names in _KINDS.items() if kind in names), None)

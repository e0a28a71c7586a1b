"""DQX's ``has_valid_json_schema`` (databricks-labs-dqx 0.17, ``check_funcs.py``): a JSON
string conforms when it is JSON, Spark's ``from_json`` reads it with the schema without
a corrupt record (Spark's coercions allowed, extra keys ignored), and every ``NOT NULL``
field is present and not null (a struct field's own fields only when the struct is
present or itself ``NOT NULL``, 11 levels deep at most). A NULL value passes.

The schema is DQX's DDL string (``id INT NOT NULL, tags ARRAY<STRING>`` or
``struct<id:int not null>``): its fields and their nullability are read here, the types
as written, and Spark parses the schema given to ``from_json`` when it analyses the
plan, before any scan.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assay.config.node import Node
from assay.dialects.dqx_args import Args, Function, Mapped, quote, row, sql_string, takes


@dataclass(frozen=True, slots=True)
class Field:
    """A field of the schema: its name, its type as written (``STRUCT<...>`` rebuilt from
    its fields), whether it may be NULL, and its fields when it is a struct."""

    name: str
    type: str
    nullable: bool
    fields: tuple[Field, ...] | None = None


_NAME = re.compile(r"\s*(`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_]*)\s*:?\s*")
_NOT_NULL = re.compile(r"\s*NOT\s+NULL\b", re.IGNORECASE)
_COMMENT = re.compile(r"\s*COMMENT\s+'(?:[^'\\]|\\.)*'", re.IGNORECASE)
_STRUCT = re.compile(r"\s*STRUCT\s*<", re.IGNORECASE)


class _Bad(ValueError):
    pass


def _ends_type(text: str, i: int) -> bool:
    return bool(_NOT_NULL.match(text, i) or _COMMENT.match(text, i))


def _type_end(text: str, at: int) -> int:
    """Where the type starting at ``at`` ends: at a ``,`` or ``>`` outside brackets, or at
    `` NOT NULL``/`` COMMENT``."""
    depth, i = 0, at
    while i < len(text):
        c = text[i]
        if c in "<(":
            depth += 1
        elif c in ">)":
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0 and (
            c == "," or (i > at and text[i - 1].isspace() and _ends_type(text, i))
        ):
            return i
        i += 1
    if depth:
        raise _Bad("unbalanced brackets")
    return i


def _fields(text: str, at: int, closing: str) -> tuple[tuple[Field, ...], int]:
    """The fields from ``at`` up to ``closing`` (``>`` or the end), and where it ends."""
    found: list[Field] = []
    while True:
        name_match = _NAME.match(text, at)
        if name_match is None:
            raise _Bad(f"a field name expected at {at}")
        name = name_match.group(1)
        name = name[1:-1].replace("``", "`") if name.startswith("`") else name
        at = name_match.end()
        struct = _STRUCT.match(text, at)
        if struct is not None:
            children, at = _fields(text, struct.end(), ">")
            at += 1
            kind = "STRUCT<" + ", ".join(f"{quote(f.name)}: {f.type}" for f in children) + ">"
        else:
            end = _type_end(text, at)
            kind, children, at = text[at:end].strip(), None, end
            if not kind:
                raise _Bad(f"a type expected for {name}")
        nullable = True
        if (not_null := _NOT_NULL.match(text, at)) is not None:
            nullable, at = False, not_null.end()
        if (comment := _COMMENT.match(text, at)) is not None:
            at = comment.end()
        found.append(Field(name, kind, nullable, children))
        while at < len(text) and text[at].isspace():
            at += 1
        if at < len(text) and text[at] == ",":
            at += 1
            continue
        if (closing == ">" and at < len(text) and text[at] == ">") or (
            closing == "" and at == len(text)
        ):
            return tuple(found), at
        raise _Bad(f"unexpected text at {at}: {text[at : at + 20]!r}")


def parse_schema(text: str) -> tuple[Field, ...]:
    """The fields of a DDL schema (``a INT, b STRING`` or ``struct<a:int>``)."""
    whole = _STRUCT.match(text)
    if whole is not None and text.rstrip().endswith(">"):
        fields, at = _fields(text, whole.end(), ">")
        if text[at + 1 :].strip():
            raise _Bad("text after the struct")
        return fields
    return _fields(text.strip(), 0, "")[0]


def _simple(fields: tuple[Field, ...]) -> str:
    """The schema as Spark's ``simpleString`` shows it (close: types lower-cased)."""
    parts = []
    for f in fields:
        kind = _simple(f.fields) if f.fields is not None else re.sub(r"\s+", "", f.type).lower()
        parts.append(f"{f.name}:{kind}")
    return "struct<" + ",".join(parts) + ">"


def presence(fields: tuple[Field, ...], parent: str, depth: int = 0) -> list[str]:
    """DQX's ``_generate_field_presence_checks``: each NOT NULL field is not NULL; a
    struct's own checks hold when the struct is NULL if it may be."""
    if depth > 10:
        return []
    checks: list[str] = []
    for f in fields:
        ref = f"{parent}.{quote(f.name)}"
        if not f.nullable:
            checks.append(f"{ref} IS NOT NULL")
        if f.fields is not None:
            inner = presence(f.fields, ref, depth + 1)
            if f.nullable:
                inner = [f"({ref} IS NULL OR {c})" for c in inner]
            checks.extend(inner)
    return checks


_CORRUPT = "_assay_corrupt_record"


def _schema(a: Args) -> tuple[str, tuple[Field, ...]]:
    node: Node = a.require("schema")
    if not isinstance(node.value, str):
        raise node.error("DQX: 'input_schema' must be str or StructType")
    text: str = node.value
    try:
        fields = parse_schema(text)
    except _Bad as e:
        raise node.error(f"DQX: Invalid schema string '{text}'. Error: {e}") from None
    if any(f.name == _CORRUPT for f in fields):
        raise node.error(f"DQX: the field name {_CORRUPT} is assay's own")
    return text, fields


def _has_valid_json_schema(a: Args) -> Mapped:
    _, fields = _schema(a)
    t = a.target()
    ddl = ", ".join(f"{quote(f.name)} {f.type}" for f in fields) + f", {_CORRUPT} STRING"
    options = f"map('columnNameOfCorruptRecord', '{_CORRUPT}')"
    parsed = f"from_json({t.sql}, {sql_string(ddl)}, {options})"
    valid = f"CASE WHEN {t.sql} IS NOT NULL THEN try_parse_json({t.sql}) IS NOT NULL END"
    checks = ", ".join(f"coalesce({c}, false)" for c in presence(fields, "p"))
    missing = f"array_contains(array({checks}), false)" if checks else "false"
    conforming = f"(NOT coalesce(NOT ({valid}), false)) AND p.{_CORRUPT} IS NULL AND NOT {missing}"
    holds = f"element_at(transform(array({parsed}), p -> {conforming}), 1)"
    message = (f"Value '{{value}}' in Column '{t.shown}' does not conform to expected JSON "
               f"schema: {_simple(fields)}")  # fmt: skip
    condition = f"NOT ({holds} OR {t.sql} IS NULL)"
    return row(condition, (t,), f"{t.norm}_has_invalid_json_schema", message)


FUNCTIONS: dict[str, Function] = {
    "has_valid_json_schema": Function(_has_valid_json_schema, takes("column", "schema")),
}
"""The JSON schema function, by DQX's name."""

"""The type at a nested path of a table's schema (``customer.address.city``, an array's
elements ``items[]``, their fields ``items[].sku``), read from a top-level column's
Spark type string (``struct<...>``, ``array<...>``): a data contract's nested properties
(docs/dialects.md, "Data contracts") are checked there without a scan."""

from __future__ import annotations

import re
from collections.abc import Callable

_PART = re.compile(r"^(.*?)((?:\[\])*)$")


def is_nested(path: str) -> bool:
    """Whether ``path`` steps into a column (``a.b``, ``a[]``)."""
    return "." in path or path.endswith("[]")


def type_at(types: dict[str, str], path: str, name: Callable[[str], str] = str.lower) -> str | None:
    """The Spark type string at ``path`` (``types``: a column's ``name``-normalised name
    -> its type string), None when a step does not exist (a field the struct lacks, an
    array step on a type that is no array).

    >>> type_at({"c": "struct<a:array<struct<b:int>>>"}, "c.a[].b")
    'int'
    >>> type_at({"c": "struct<a:int>"}, "c.b") is None, type_at({"c": "int"}, "c[]") is None
    (True, True)
    """
    current: str | None = None
    for index, part in enumerate(path.split(".")):
        field, hops = _PART.match(part).groups()  # type: ignore[union-attr]
        if index == 0:
            current = types.get(name(field))
        elif current is not None:
            current = _field(current, field, name)
        for _ in range(len(hops) // 2):
            if current is None or not current.startswith("array<"):
                return None
            current = current[len("array<") : -1]
        if current is None:
            return None
    return current


def _field(struct: str, field: str, name: Callable[[str], str]) -> str | None:
    if not (struct.startswith("struct<") and struct.endswith(">")):
        return None
    for item in _split(struct[len("struct<") : -1]):
        key, _, kind = item.partition(":")
        if name(key) == name(field):
            return kind
    return None


def _split(text: str) -> list[str]:
    """A struct's fields at its top level (commas inside ``<>``/``()`` kept)."""
    items, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "<(":
            depth += 1
        elif char in ">)":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    if text:
        items.append(text[start:])
    return items

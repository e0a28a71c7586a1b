"""The converted config's text: YAML with a header and a comment above each rule, keys in
a fixed order, every ``$`` of a value written ``$$`` (the native format substitutes
variables in every value under ``tables``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import yaml

from assay.conversion.tables import Commented, TableOut


def escaped(value: Any) -> Any:
    """``value`` with ``$`` written ``$$`` in every string value (keys are never
    substituted)."""
    if isinstance(value, str):
        return value.replace("$", "$$")
    if isinstance(value, dict):
        return {k: escaped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [escaped(v) for v in value]
    return value


def _dumped(value: Any, flow: bool | None = None) -> list[str]:
    text = yaml.safe_dump(
        escaped(value), sort_keys=False, allow_unicode=True, width=100, default_flow_style=flow
    )
    return text.rstrip("\n").split("\n")


def _mapping(mapping: dict[str, Any]) -> list[str]:
    """A mapping in block style, each value in flow style when it holds only scalars."""
    lines = []
    for key, value in mapping.items():
        lines += _dumped({key: value}, None if isinstance(value, (dict, list)) else False)
    return lines


def _indented(lines: list[str], first: str, rest: str) -> list[str]:
    return [(first if i == 0 else rest) + line for i, line in enumerate(lines)]


def _rules(rules: Sequence[Commented], pad: str) -> list[str]:
    lines = []
    for rule in rules:
        lines.append(f"{pad}# {' '.join(rule.comment.split())}")
        lines += _indented(_dumped([rule.entry]), pad, pad)
    return lines


def _table(table: TableOut) -> list[str]:
    lines = [f"  # note: {' '.join(note.split())}" for note in table.notes]
    lines += _indented(_mapping(table.settings), "  - ", "    ")
    if table.rules:
        lines += ["    rules:", *_rules(table.rules, "      ")]
    if table.block is not None:
        lines.append("    validations:")
        if table.block:
            lines += _indented(_mapping(table.block), "      ", "      ")
        lines += ["      rules:", *_rules(table.block_rules, "        ")]
    return lines


def document(header: Sequence[str], top: dict[str, Any], tables: Sequence[TableOut]) -> str:
    """The whole file."""
    lines = [f"# {line}".rstrip() for line in header]
    lines += _mapping({"version": 1, **top})
    lines.append("tables:")
    for table in tables:
        lines += _table(table)
    return "\n".join(lines) + "\n"

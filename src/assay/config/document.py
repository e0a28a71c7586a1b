"""Reading config files: bytes on disk -> a :class:`Node` tree, or a located ConfigError.

``.yaml``/``.yml`` are YAML, ``.json`` is JSON; any other extension is read as JSON when
the text looks like a JSON object or array and parses as one, else as YAML. Input is
capped at :data:`MAX_BYTES`. See :mod:`assay.config.yaml_reader` and
:mod:`assay.config.json_reader` for what each reader guarantees.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from assay.config.json_reader import parse_json
from assay.config.node import Node, describe, unknown_message
from assay.config.yaml_reader import MAX_ALIASES, MAX_DEPTH, MAX_VALUES, parse_yaml
from assay.errors import ConfigError
from assay.ir.origin import Origin

__all__ = [
    "MAX_ALIASES",
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_VALUES",
    "Node",
    "describe",
    "parse_text",
    "read_document",
    "unknown_message",
]

MAX_BYTES = 1 << 20
"""Config files larger than this (1 MiB) are rejected before parsing."""

Format = Literal["yaml", "json"]
_EXTENSIONS: dict[str, Format] = {".yaml": "yaml", ".yml": "yaml", ".json": "json"}


def read_document(path: str | os.PathLike[str]) -> Node:
    """The parsed tree of the config file at ``path``; its origins name ``path`` as given.

    Raises:
        ConfigError: the file cannot be read, is too large, is not UTF-8, is empty, or
            does not parse (see :func:`parse_text`).
    """
    file = os.fspath(path)
    origin = Origin(file)
    try:
        with open(file, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as e:
        raise ConfigError(f"cannot read config file: {e.strerror or e}", origin=origin) from None
    if len(data) > MAX_BYTES:
        raise ConfigError(f"config file is larger than {MAX_BYTES // 1024} KiB", origin=origin)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ConfigError(
            f"config file is not UTF-8 text (byte {e.start})", origin=origin
        ) from None
    return parse_text(text, file, _EXTENSIONS.get(Path(file).suffix.lower()))


def parse_text(text: str, file: str, fmt: Format | None = None) -> Node:
    """The tree of ``text`` read as ``fmt`` (sniffed when ``None``); ``file`` names it in
    origins.

    Raises:
        ConfigError: too large, empty, or invalid for the format.
    """
    if len(text) > MAX_BYTES:
        raise ConfigError(
            f"config file is larger than {MAX_BYTES // 1024} KiB", origin=Origin(file)
        )
    if not text.strip():
        raise ConfigError("config file is empty", origin=Origin(file))
    if fmt is None:
        root = _sniffed(text, file)
    else:
        root = parse_json(text, file) if fmt == "json" else parse_yaml(text, file)
    if root is None:
        raise ConfigError("config file is empty (it has only comments)", origin=Origin(file))
    return root


def _sniffed(text: str, file: str) -> Node | None:
    """JSON when the text looks like and parses as JSON, else YAML (JSON's superset)."""
    if text.lstrip()[:1] in ("{", "["):
        try:
            return parse_json(text, file)
        except ConfigError:
            pass
    return parse_yaml(text, file)

"""The original files, read again: the node a rule or a block was read from, found by its
origin, and plain data from nodes."""

from __future__ import annotations

from typing import Any

from assay.config.document import read_document
from assay.config.node import Node
from assay.errors import ConfigError
from assay.ir.origin import Origin
from assay.ir.values import Pairs


class Documents:
    """The files the suite was read from, each read once, their nodes by path."""

    def __init__(self) -> None:
        self._nodes: dict[str, dict[str, Node]] = {}

    def node(self, origin: Origin) -> Node | None:
        """The node written at ``origin`` (None when its file cannot be read again)."""
        if origin.file not in self._nodes:
            try:
                root = read_document(origin.file)
            except ConfigError:
                root = None
            self._nodes[origin.file] = dict(_walk(root)) if root is not None else {}
        return self._nodes[origin.file].get(origin.path)


def _walk(node: Node) -> Any:
    yield node.origin.path, node
    children = node.value.values() if isinstance(node.value, dict) else node.value
    if isinstance(children, (list, type({}.values()))):
        for child in children:
            yield from _walk(child)


def python(value: object) -> Any:
    """Plain data as YAML writes it: :class:`Pairs` (a mapping's plain form) as a dict,
    tuples as lists."""
    if isinstance(value, Pairs):
        return {k: python(v) for k, v in value}
    if isinstance(value, tuple):
        return [python(v) for v in value]
    return value

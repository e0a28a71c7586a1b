"""YAML text -> :class:`Node` tree, safely.

Guarantees: only plain data is built (a whitelist of core tags; ``!!python/...`` and every
other tag is an error, nothing is ever constructed from a tag); duplicate keys are errors;
mapping keys must be strings; at most :data:`MAX_ALIASES` aliases, :data:`MAX_DEPTH`
levels of nesting and :data:`MAX_VALUES` values once aliases are expanded (billion
laughs); every key and list item keeps its line. ``<<`` merge keys work as in YAML 1.1.
"""

from __future__ import annotations

import math
from typing import Any

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from assay.config.node import Node, describe
from assay.errors import ConfigError
from assay.ir.origin import Origin

MAX_ALIASES = 100
MAX_DEPTH = 64
MAX_VALUES = 250_000

_CORE = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_CORE + t for t in ("str", "int", "float", "bool", "null", "timestamp")}
_MERGE = _CORE + "merge"


class _LimitedLoader(yaml.SafeLoader):
    """A SafeLoader whose composer counts aliases and nesting while it builds nodes."""

    def __init__(self, stream: str, file: str) -> None:
        super().__init__(stream)
        self.file = file
        self.aliases = 0
        self.depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > MAX_ALIASES:
                raise self._limit(f"more than {MAX_ALIASES} YAML aliases")
            return super().compose_node(parent, index)
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise self._limit(f"nesting deeper than {MAX_DEPTH} levels")
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def _limit(self, message: str) -> ConfigError:
        line = self.peek_event().start_mark.line + 1  # type: ignore[no-untyped-call]
        return ConfigError(message, origin=Origin(self.file, "", line))


def parse_yaml(text: str, file: str) -> Node | None:
    """The tree of the single YAML document in ``text`` (``None`` when there is none).

    Raises:
        ConfigError: syntax errors (with line and column), unsafe tags, duplicate keys,
            non-string keys, resource limits.
    """
    try:
        loader = _LimitedLoader(text, file)
    except yaml.reader.ReaderError as e:
        raise _reader_error(e, text, file) from None
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        _measure(root, 1, {}, set(), file)
        return _Builder(loader, file).build(root, Origin(file, "", _line(root)))
    except yaml.MarkedYAMLError as e:
        raise _syntax_error(e, file) from None
    except yaml.reader.ReaderError as e:
        raise _reader_error(e, text, file) from None
    finally:
        loader.dispose()


def _reader_error(e: yaml.reader.ReaderError, text: str, file: str) -> ConfigError:
    line = text.count("\n", 0, e.position) + 1
    column = e.position - (text.rfind("\n", 0, e.position) + 1) + 1
    char = e.character if isinstance(e.character, str) else chr(e.character)
    return ConfigError(
        f"YAML syntax error at column {column}: character U+{ord(char):04X} is not allowed",
        origin=Origin(file, "", line),
    )


def _syntax_error(e: yaml.MarkedYAMLError, file: str) -> ConfigError:
    mark = e.problem_mark or e.context_mark
    problem = e.problem or e.context or "invalid YAML"
    if mark is None:
        return ConfigError(f"YAML syntax error: {problem}", origin=Origin(file))
    snippet = mark.get_snippet(indent=4, max_length=100)
    where = f"YAML syntax error at column {mark.column + 1}: {problem}"
    if e.context and e.problem and e.context_mark is not None:
        where += f" ({e.context} at line {e.context_mark.line + 1})"
    return ConfigError(where + (f"\n{snippet}" if snippet else ""), Origin(file, "", mark.line + 1))


def _measure(
    node: Any, depth: int, memo: dict[int, tuple[int, int]], active: set[int], file: str
) -> tuple[int, int]:
    """(values, height) of ``node`` once aliases are expanded; rejects cycles and bombs."""
    key = id(node)
    if depth > MAX_DEPTH:
        raise ConfigError(
            f"nesting deeper than {MAX_DEPTH} levels (after expanding aliases)",
            origin=Origin(file, "", _line(node)),
        )
    if key in active:
        raise ConfigError("recursive YAML alias", origin=Origin(file, "", _line(node)))
    if key not in memo:
        active.add(key)
        children = _children(node)
        sizes = [_measure(c, depth + 1, memo, active, file) for c in children]
        active.discard(key)
        memo[key] = (1 + sum(s for s, _ in sizes), 1 + max((h for _, h in sizes), default=0))
    size, height = memo[key]
    if depth - 1 + height > MAX_DEPTH:
        raise ConfigError(
            f"nesting deeper than {MAX_DEPTH} levels (after expanding aliases)",
            origin=Origin(file, "", _line(node)),
        )
    if size > MAX_VALUES:
        raise ConfigError(
            f"more than {MAX_VALUES} values after expanding YAML aliases",
            origin=Origin(file, "", _line(node)),
        )
    return size, height


def _children(node: Any) -> list[Any]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [v for _, v in node.value]
    return []


def _line(node: Any) -> int:
    return int(node.start_mark.line) + 1


def _tag(tag: str) -> str:
    return "!!" + tag[len(_CORE) :] if tag.startswith(_CORE) else tag


class _Builder:
    """Turns composed YAML nodes into :class:`Node` trees, checking tags and keys."""

    def __init__(self, loader: _LimitedLoader, file: str) -> None:
        self.loader = loader
        self.file = file

    def build(self, node: Any, origin: Origin) -> Node:
        if isinstance(node, ScalarNode):
            return self._scalar(node, origin)
        if isinstance(node, SequenceNode):
            self._expect_tag(node, "seq", origin)
            items = [
                self.build(item, origin.child(i, _line(item))) for i, item in enumerate(node.value)
            ]
            return Node(items, origin)
        self._expect_tag(node, "map", origin)
        return Node(self._mapping(node, origin), origin)

    def _expect_tag(self, node: Any, kind: str, origin: Origin) -> None:
        if node.tag != _CORE + kind:
            local = not node.tag.startswith(_CORE)
            raise ConfigError(
                f"unsupported YAML tag '{_tag(node.tag)}' "
                "(only plain mappings, lists and scalars are allowed)",
                origin=Origin(origin.file, origin.path, _line(node)),
                hint="quote the value if the '!' is part of the text (e.g. \"!= 0\")"
                if local
                else None,
            )

    def _scalar(self, node: ScalarNode, origin: Origin) -> Node:
        if node.tag not in _SCALAR_TAGS:
            self._expect_tag(node, "str", origin)
        try:
            value = self.loader.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError, OverflowError) as e:
            raise ConfigError(
                f"invalid {_tag(node.tag)[2:]} value '{node.value}': {e}", origin=origin
            ) from None
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"'{node.value}' is not a finite number", origin=origin)
        text = node.value if node.style is None else None
        return Node(value, origin, text)

    def _mapping(self, node: MappingNode, origin: Origin) -> dict[str, Node]:
        own: dict[str, Node] = {}
        merges: list[Any] = []
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                merges.extend(
                    value_node.value if isinstance(value_node, SequenceNode) else [value_node]
                )
                continue
            key = self._key(key_node, origin)
            line = _line(key_node)
            if key in own:
                raise ConfigError(
                    f"duplicate key '{key}' (first at line {own[key].origin.line})",
                    origin=origin.child(key, line),
                )
            own[key] = self.build(value_node, origin.child(key, line))
        for source in merges:
            if not isinstance(source, MappingNode):
                raise ConfigError(
                    "a '<<' merge needs a mapping (or a list of mappings)",
                    origin=Origin(origin.file, origin.path, _line(source)),
                )
            for key, child in self._mapping(source, origin).items():
                own.setdefault(key, child)
        return own

    def _key(self, key_node: Any, origin: Origin) -> str:
        where = Origin(origin.file, origin.path, _line(key_node))
        if not isinstance(key_node, ScalarNode):
            raise ConfigError(
                "mapping keys must be plain strings, got a "
                f"{'list' if isinstance(key_node, SequenceNode) else 'mapping'}",
                origin=where,
            )
        if key_node.tag != _CORE + "str":
            value = self._scalar(key_node, origin).value
            raise ConfigError(
                f"mapping keys must be strings, got {describe(value)} ({key_node.value})",
                origin=where,
                hint=f"quote the key: '{key_node.value}'",
            )
        return str(key_node.value)

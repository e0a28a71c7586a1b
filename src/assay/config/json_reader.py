"""JSON text -> :class:`Node` tree with the line of every key and list item.

Guarantees: strict JSON (the stdlib decoder checks the syntax first), ``NaN`` /
``Infinity`` and duplicate keys are errors, nesting is capped at :data:`MAX_DEPTH`.
"""

from __future__ import annotations

import bisect
import json
import re

from assay.config.node import Node
from assay.config.yaml_reader import MAX_DEPTH
from assay.errors import ConfigError
from assay.ir.origin import Origin

_TOKEN = re.compile(
    r'\s*(?:(?P<string>"(?:[^"\\]|\\.)*")|(?P<punct>[{}\[\]:,])|(?P<literal>[^\s{}\[\]:,"]+))',
    re.DOTALL,
)
_NON_FINITE = {"NaN", "Infinity", "-Infinity"}


def parse_json(text: str, file: str) -> Node:
    """The tree of the JSON document in ``text``.

    Raises:
        ConfigError: syntax errors (with line and column), ``NaN``/``Infinity``,
            duplicate keys, nesting deeper than :data:`MAX_DEPTH`.
    """
    try:
        json.loads(text, parse_constant=lambda name: None)
    except json.JSONDecodeError as e:
        raise ConfigError(
            f"JSON syntax error at column {e.colno}: {e.msg}", origin=Origin(file, "", e.lineno)
        ) from None
    except RecursionError:
        raise ConfigError(
            f"nesting deeper than {MAX_DEPTH} levels", origin=Origin(file, "", 1)
        ) from None
    return _Walker(text, file).document()


class _Walker:
    """A recursive-descent pass over text already known to be valid JSON."""

    def __init__(self, text: str, file: str) -> None:
        self.tokens = [
            (m.lastgroup, m.group(m.lastgroup or ""), m.start(m.lastgroup or ""))
            for m in _TOKEN.finditer(text)
            if m.lastgroup
        ]
        self.starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
        self.file = file
        self.pos = 0

    def document(self) -> Node:
        return self.value(Origin(self.file, "", self.line()), 1)

    def line(self) -> int:
        return bisect.bisect_right(self.starts, self.tokens[self.pos][2])

    def take(self) -> str:
        token = self.tokens[self.pos][1]
        self.pos += 1
        return token

    def value(self, origin: Origin, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise ConfigError(f"nesting deeper than {MAX_DEPTH} levels", origin=origin)
        token = self.take()
        if token == "{":
            return Node(self.mapping(origin, depth), origin)
        if token == "[":
            return Node(self.sequence(origin, depth), origin)
        if token in _NON_FINITE:
            raise ConfigError(
                f"{token} is not allowed in JSON (not a finite number)", origin=origin
            )
        value = json.loads(token)
        # A number keeps its text as written (``1.50``, ``1e3``), as YAML scalars do.
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        return Node(value, origin, token if number else None)

    def mapping(self, origin: Origin, depth: int) -> dict[str, Node]:
        items: dict[str, Node] = {}
        while self.tokens[self.pos][1] != "}":
            line = self.line()
            key = json.loads(self.take())
            self.take()  # ':'
            child = origin.child(key, line)
            if key in items:
                raise ConfigError(
                    f"duplicate key '{key}' (first at line {items[key].origin.line})", origin=child
                )
            items[key] = self.value(child, depth + 1)
            if self.tokens[self.pos][1] == ",":
                self.take()
        self.take()  # '}'
        return items

    def sequence(self, origin: Origin, depth: int) -> list[Node]:
        items: list[Node] = []
        while self.tokens[self.pos][1] != "]":
            items.append(self.value(origin.child(len(items), self.line()), depth + 1))
            if self.tokens[self.pos][1] == ",":
                self.take()
        self.take()  # ']'
        return items

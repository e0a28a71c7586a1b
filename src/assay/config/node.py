"""The parsed config tree: every value remembers its file, key path and line.

Readers (:mod:`assay.config.document`) build :class:`Node` trees from YAML or JSON;
dialect front ends read them only through the typed accessors below, so a value of
the wrong type is always a :class:`~assay.errors.ConfigError` that names the place,
never a silent coercion (YAML 1.1 reads ``no`` as ``False`` and ``012`` as ``10``).
"""

from __future__ import annotations

import datetime as dt
import difflib
import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TypeAlias, TypeVar

from assay.errors import ConfigError, ConfigErrors
from assay.ir.origin import Origin
from assay.ir.values import Pairs

S = TypeVar("S", bound=str)

Scalar: TypeAlias = "str | int | float | bool | None | dt.date | dt.datetime"
Value: TypeAlias = "Scalar | dict[str, Node] | list[Node]"


def describe(value: object) -> str:
    """The kind of a parsed value as an error message names it.

    >>> describe(True), describe([]), describe(dt.date(2024, 1, 1))
    ('a boolean', 'a list', 'a date')
    """
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "an empty string" if value == "" else "a string"
    if isinstance(value, dt.datetime):
        return "a timestamp"
    if isinstance(value, dt.date):
        return "a date"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return "null"


@dataclass(frozen=True, slots=True, eq=False)
class Node:
    """One parsed value with its origin.

    ``value`` is a scalar, a ``dict`` of child nodes (keys are always strings) or a
    ``list`` of child nodes. ``text`` is the scalar as written in YAML (``no`` for the
    boolean ``False``), used only to explain type errors. Containers are never mutated
    after reading.
    """

    value: Value
    origin: Origin
    text: str | None = None

    # --- errors -------------------------------------------------------------------------

    def error(self, message: str, hint: str | None = None) -> ConfigError:
        """A :class:`ConfigError` located at this node."""
        return ConfigError(message, origin=self.origin, hint=hint)

    def type_error(self, expected: str, *, text_expected: bool = False) -> ConfigError:
        """``expected <expected>, got <kind>``; with ``text_expected``, a hint to quote a
        YAML scalar that YAML 1.1 read as something else (``no``, ``012``, ``2024-01-01``).
        """
        got = describe(self.value)
        hint = None
        if self.text is not None and not isinstance(self.value, (str, dict, list)):
            got = f"{got} ({self.text})"
            if text_expected:
                hint = (
                    f"YAML reads the unquoted {self.text} as {describe(self.value)}; "
                    f"quote it: '{self.text}'"
                )
        return self.error(f"expected {expected}, got {got}", hint)

    # --- containers ---------------------------------------------------------------------

    def as_mapping(self, what: str = "a mapping") -> dict[str, Node]:
        """The child nodes by key (config order); a type error unless this is a mapping."""
        if not isinstance(self.value, dict):
            raise self.type_error(what)
        return self.value

    def as_list(self, what: str = "a list", *, non_empty: bool = False) -> list[Node]:
        """The child nodes in order; a type error unless this is a list (``non_empty``:
        an empty list is an error too)."""
        if not isinstance(self.value, list):
            raise self.type_error(what)
        if non_empty and not self.value:
            raise self.error(f"expected {what}, got an empty list")
        return self.value

    def keys(self) -> tuple[str, ...]:
        """The keys of this mapping in config order."""
        return tuple(self.as_mapping())

    def get(self, key: str) -> Node | None:
        """The child at ``key``, or ``None`` when the mapping does not have it."""
        return self.as_mapping().get(key)

    def places(self, written: Mapping[S, str | None]) -> tuple[tuple[S, Origin], ...]:
        """``(setting, origin)`` for each setting whose key (a dotted path below this
        mapping: ``source_config.file_format``) is present: where it was written."""
        found: list[tuple[S, Origin]] = []
        for setting, path in written.items():
            node: Node | None = self
            for key in (path or "").split(".") if path else ():
                node = node.get(key) if node is not None and isinstance(node.value, dict) else None
            if path and node is not None:
                found.append((setting, node.origin))
        return tuple(found)

    def require(self, key: str) -> Node:
        """The child at ``key``; ``missing required key`` (located here) when absent."""
        node = self.get(key)
        if node is None:
            raise self.error(f"missing required key '{key}'")
        return node

    def check_keys(self, allowed: Collection[str]) -> None:
        """Reject every key not in ``allowed``, each with a did-you-mean suggestion.

        Raises:
            ConfigError: one unknown key; ConfigErrors: several.
        """
        errors = [
            self.as_mapping()[key].error(unknown_message("key", key, allowed))
            for key in self.keys()
            if key not in allowed
        ]
        if len(errors) == 1:
            raise errors[0]
        if errors:
            raise ConfigErrors(errors)

    # --- scalars ------------------------------------------------------------------------

    def as_str(self, what: str = "a string", *, allow_empty: bool = False) -> str:
        """This string (empty only with ``allow_empty``)."""
        if not isinstance(self.value, str):
            raise self.type_error(what, text_expected=True)
        if not allow_empty and not self.value.strip():
            raise self.error(f"expected {what}, got an empty string")
        return self.value

    def as_int(
        self, what: str = "an integer", *, minimum: int | None = None, maximum: int | None = None
    ) -> int:
        """This integer (booleans are not integers), within the inclusive bounds given."""
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            raise self.type_error(what)
        if (minimum is not None and self.value < minimum) or (
            maximum is not None and self.value > maximum
        ):
            raise self.error(f"expected {what} {_bounds(minimum, maximum)}, got {self.value}")
        return self.value

    def as_bool(self, what: str = "true or false") -> bool:
        """This boolean."""
        if not isinstance(self.value, bool):
            raise self.type_error(what)
        return self.value

    def as_number(self, what: str = "a number") -> int | float:
        """This finite integer or float (booleans are not numbers)."""
        if isinstance(self.value, bool) or not isinstance(self.value, (int, float)):
            raise self.type_error(what)
        if isinstance(self.value, float) and not math.isfinite(self.value):
            raise self.error(f"expected {what}, got {self.value}")
        return self.value

    def is_scalar(self) -> bool:
        """Whether this is neither a mapping nor a list."""
        return not isinstance(self.value, (dict, list))

    def plain(self) -> object:
        """The value as immutable plain data: lists become tuples, mappings tuples of
        ``(key, value)`` pairs (for display in results)."""
        if isinstance(self.value, dict):
            return Pairs((k, v.plain()) for k, v in self.value.items())
        if isinstance(self.value, list):
            return tuple(v.plain() for v in self.value)
        return self.value


def unknown_message(kind: str, name: str, allowed: Collection[str]) -> str:
    """``unknown <kind> 'x' (did you mean 'y'?)``, or the allowed names when none is close.

    >>> unknown_message("key", "colums", ["column", "columns"])
    "unknown key 'colums' (did you mean 'columns'?)"
    >>> unknown_message("key", "zzz", ["b", "a"])
    "unknown key 'zzz'; expected one of: a, b"
    """
    close = difflib.get_close_matches(name, sorted(allowed), n=1, cutoff=0.6)
    if close:
        return f"unknown {kind} '{name}' (did you mean '{close[0]}'?)"
    return f"unknown {kind} '{name}'; expected one of: {', '.join(sorted(allowed))}"


def _bounds(minimum: int | None, maximum: int | None) -> str:
    if minimum is not None and maximum is not None:
        return f"between {minimum} and {maximum}"
    return f">= {minimum}" if minimum is not None else f"<= {maximum}"

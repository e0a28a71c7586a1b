"""Where an IR node came from: the config file and the path inside it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Origin:
    """A config location such as ``checks.yaml:14 tables[0].rules[3]``.

    ``path`` uses the JSONPath-like form users see in every error and result:
    keys joined with dots, list positions in brackets.

    >>> str(Origin("checks.yaml", "tables[0].rules[3]", line=14))
    'checks.yaml:14 tables[0].rules[3]'
    >>> Origin("c.yaml", "tables[0]").child("rules").child(2).path
    'tables[0].rules[2]'
    """

    file: str
    path: str = ""
    line: int | None = None

    def child(self, key: str | int, line: int | None = None) -> Origin:
        """The location of ``key`` below this one (a list index when ``key`` is an int)."""
        if isinstance(key, int):
            path = f"{self.path}[{key}]"
        else:
            path = f"{self.path}.{key}" if self.path else key
        return Origin(self.file, path, line if line is not None else self.line)

    def within(self, other: Origin) -> bool:
        """Whether this place is ``other`` or inside it (same file, a key path below).

        >>> Origin("c.yaml", "tables[1].source").within(Origin("c.yaml", "tables[1]"))
        True
        >>> Origin("c.yaml", "tables[10]").within(Origin("c.yaml", "tables[1]"))
        False
        """
        if self.file != other.file:
            return False
        p, q = self.path, other.path
        return not q or p == q or p.startswith((q + ".", q + "["))

    @property
    def location(self) -> str:
        """``file:line`` (or just ``file`` when the line is unknown)."""
        return f"{self.file}:{self.line}" if self.line is not None else self.file

    def __str__(self) -> str:
        return f"{self.location} {self.path}" if self.path else self.location


UNKNOWN = Origin("<unknown>")

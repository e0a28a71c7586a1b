"""Progress lines of a run (no pyspark here: the API builds one before Spark is imported)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Progress:
    """Progress lines on stderr (a no-op unless enabled)."""

    enabled: bool = False
    write: Callable[[str], None] = field(default=lambda line: None)

    def note(self, line: str) -> None:
        if self.enabled:
            self.write(line)

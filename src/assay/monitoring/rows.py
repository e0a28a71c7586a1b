"""A stored row as a run reads it, and the lines of a store that are not rows.

Both backends, and both readers (a run's history, ``assay history``), read a row through
:func:`checked_row`: its ``run_time`` a time, its ``value`` a finite number, its ``table``,
``rule`` and ``measure`` strings, its ``tags`` a mapping, a schema row's ``columns`` a JSON
list of columns, its ``state`` bytes or null (base64 text in a file). A row that is not
one is skipped and counted by why (:class:`Skipped`), never judged and never an internal
error: a store shared by many jobs is only as good as its worst line
(docs/monitoring.md#when-the-store-fails).
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from assay.monitoring.records import parse_time
from assay.monitoring.schemas import BAD_SCHEMA, SCHEMA_MEASURE, SCHEMA_RULE, parse

NOT_JSON = "not JSON (a line cut short, or not written by assay)"
NOT_AN_OBJECT = "not a JSON object"
NO_KEY = "no table, rule or measure"
NO_RUN_TIME = "no run_time"
BAD_RUN_TIME = "a run_time that is not an ISO 8601 time"
NO_VALUE = "no value"
BAD_VALUE = "a value that is not a finite number"
BAD_TAGS = "tags that are not a mapping"
BAD_STATE = "a state that is not bytes (base64 text in a file)"
LINES_SHOWN = 10
"""The most line numbers a skip report lists (the first ones)."""


@dataclass(frozen=True, slots=True)
class Skipped:
    """The lines (or a table's rows) read and skipped: how many, how many for each
    reason (in the order first met), and the first line numbers (a file's)."""

    count: int = 0
    reasons: tuple[tuple[str, int], ...] = ()
    lines: tuple[int, ...] = ()

    def __bool__(self) -> bool:
        return self.count > 0

    def to_dict(self) -> dict[str, Any]:
        """The summary's ``metrics.skipped``."""
        return {"count": self.count, "reasons": dict(self.reasons), "lines": list(self.lines)}

    def sentence(self, store: object) -> str:
        """``metrics store file m.jsonl: 2 lines skipped, not store rows: 1 not JSON...,
        1 no value (lines 4, 9)``."""
        noun = "line" if self.count == 1 else "lines"
        why = ", ".join(f"{n} {reason}" for reason, n in self.reasons)
        where = ""
        if self.lines:
            more = ", ..." if self.count > len(self.lines) else ""
            where = f" ({noun} {', '.join(str(n) for n in self.lines)}{more})"
        return f"metrics store {store}: {self.count} {noun} skipped, not store rows: {why}{where}"


def tally(skips: Iterable[tuple[int | None, str]]) -> Skipped:
    """The :class:`Skipped` of ``(line number or None, reason)`` pairs."""
    reasons: dict[str, int] = {}
    lines: list[int] = []
    count = 0
    for line, reason in skips:
        count += 1
        reasons[reason] = reasons.get(reason, 0) + 1
        if line is not None and len(lines) < LINES_SHOWN:
            lines.append(line)
    return Skipped(count, tuple(reasons.items()), tuple(lines))


def checked_row(raw: Any) -> dict[str, Any] | str:
    """``raw`` as a store row (its ``run_time`` an aware time, its ``value`` a float, its
    ``tags`` a dict), or the reason it is not one."""
    if not isinstance(raw, Mapping):
        return NOT_AN_OBJECT
    if not all(isinstance(raw.get(k), str) for k in ("table", "rule", "measure")):
        return NO_KEY
    moment = _time(raw.get("run_time"))
    if isinstance(moment, str):
        return moment
    value = raw.get("value")
    if value is None:
        return NO_VALUE
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return BAD_VALUE
    if not math.isfinite(value):
        return BAD_VALUE
    tags = raw.get("tags")
    if tags is not None and not isinstance(tags, Mapping):
        return BAD_TAGS
    schema = (raw["rule"], raw["measure"]) == (SCHEMA_RULE, SCHEMA_MEASURE)
    if schema and parse(raw.get("columns")) is None:
        return BAD_SCHEMA
    state = _state(raw.get("state"))
    if state == BAD_STATE:
        return BAD_STATE
    said = {"run_time": moment, "value": float(value), "tags": dict(tags or {}), "state": state}
    return {**raw, **said}


def _state(value: Any) -> bytes | str | None:
    """A row's state as bytes: a table store's binary, a file's base64 text; None when
    the row has none (a store written before the column reads as null)."""
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if not isinstance(value, str):
        return BAD_STATE
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return BAD_STATE


def _time(value: Any) -> dt.datetime | str:
    if value is None:
        return NO_RUN_TIME
    if isinstance(value, dt.datetime):  # a table store's timestamp
        return value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
    if not isinstance(value, str):
        return BAD_RUN_TIME
    try:
        return parse_time(value).astimezone(dt.timezone.utc)
    except (ValueError, OverflowError):  # not a time; a time beyond the years UTC can hold
        return BAD_RUN_TIME

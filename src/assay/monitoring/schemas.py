"""A table's schema over time (pure): the columns the metrics store records for each
table every run, read back and compared (docs/monitoring.md#schemas-over-time).

A run stores each table's schema as one row of the store: ``rule`` ``(schema)``,
``measure`` ``schema``, ``value`` the number of columns, and ``columns`` the columns as
JSON, ``[{"name": "id", "type": "bigint", "position": 1, "nullable": false}, ...]``
(``position`` counts from 1, as SQL's ``ORDINAL_POSITION``; ``type`` is Spark's simple
type string). A ``schema_change`` rule compares the table's schema with the newest
earlier one (:func:`changes`).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from assay.ir.monitoring import SCHEMA_CHANGES, ReorderedBy, SchemaChange

SCHEMA_RULE = "(schema)"
"""The ``rule`` of a table's schema rows."""
SCHEMA_MEASURE = "schema"
"""The ``measure`` of a table's schema rows (their ``value``: the number of columns)."""
BAD_SCHEMA = "a schema that is not a JSON list of columns"
"""Why a schema row whose ``columns`` cannot be read is skipped."""


@dataclass(frozen=True, slots=True)
class Column:
    """A column of a table as the store records it."""

    name: str
    type: str
    position: int
    """From 1, in the table's order."""
    nullable: bool = True


Columns = tuple[Column, ...]


def columns_of(fields: Iterable[tuple[str, str, bool]]) -> Columns:
    """``(name, Spark type, nullable)`` triples, in the table's order, as columns."""
    return tuple(Column(n, t, i, bool(null)) for i, (n, t, null) in enumerate(fields, 1))


def to_json(columns: Columns) -> str:
    """The ``columns`` text of a schema row."""
    return orjson.dumps(
        [
            {"name": c.name, "type": c.type, "position": c.position, "nullable": c.nullable}
            for c in columns
        ]  # fmt: skip
    ).decode()


def parse(text: Any) -> Columns | None:
    """A schema row's ``columns`` read back, or None when it is not a JSON list of
    columns (each with a string ``name`` and ``type``; the list's order is the table's,
    ``position`` and ``nullable`` are read when present)."""
    if not isinstance(text, str):
        return None
    try:
        found = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(found, list):
        return None
    columns = []
    for i, item in enumerate(found, 1):
        if not isinstance(item, Mapping):
            return None
        name, kind, nullable = item.get("name"), item.get("type"), item.get("nullable", True)
        if not isinstance(name, str) or not isinstance(kind, str) or not isinstance(nullable, bool):
            return None
        columns.append(Column(name, kind, i, nullable))
    return tuple(columns)


def schema_rows(
    schemas: Mapping[str, Columns], common: Mapping[str, Any], run_id: str
) -> list[dict[str, Any]]:
    """The store rows of the run's table schemas (``common``: ``run_time``, ``server``,
    ``tags``), one per table."""
    return [
        {**common, "table": table, "rule": SCHEMA_RULE, "rule_type": "schema",
         "columns": to_json(columns), "measure": SCHEMA_MEASURE, "value": float(len(columns)),
         "severity": None, "run_id": run_id}
        for table, columns in schemas.items()
    ]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Earlier:
    """The newest schema the store holds of a table, from a run before this one."""

    run_time: str
    run_id: str
    columns: Columns


def earlier_schema(history: Any, table: str) -> Earlier | str | None:
    """The newest earlier schema of ``table`` in a run's history
    (:data:`assay.monitoring.series.History`); None when the store holds none; a text
    (why the history could not be read) passed through."""
    if isinstance(history, str):
        return history
    points = history.get((table, SCHEMA_RULE), ())
    for point in reversed(points):
        columns = parse(point.columns)
        if columns is not None:
            return Earlier(point.run_time, point.run_id, columns)
    return None


@dataclass(frozen=True, slots=True)
class Changes:
    """What changed between two schemas of a table."""

    added: Columns = ()
    removed: Columns = ()
    retyped: tuple[tuple[Column, Column], ...] = ()
    """(the earlier column, the column now) of each column kept whose type changed."""
    reordered: tuple[str, ...] = ()
    """The columns kept that moved, in the table's order now."""

    def of(self, kind: SchemaChange) -> int:
        """How many changes of ``kind``."""
        return len(getattr(self, kind))

    @property
    def kinds(self) -> tuple[SchemaChange, ...]:
        """The kinds of change found, in :data:`SCHEMA_CHANGES`'s order."""
        return tuple(k for k in SCHEMA_CHANGES if self.of(k))

    def to_dict(self) -> dict[str, Any]:
        """The result's ``details.schema_change`` lists."""
        return {
            "added": [{"name": c.name, "type": c.type} for c in self.added],
            "removed": [{"name": c.name, "type": c.type} for c in self.removed],
            "retyped": [{"name": b.name, "from": a.type, "to": b.type} for a, b in self.retyped],
            "reordered": list(self.reordered),
        }

    def sentences(self, kinds: Sequence[SchemaChange] = SCHEMA_CHANGES) -> list[str]:
        """The changes of ``kinds`` in words: ``added email (string)``,
        ``amount retyped int -> bigint``..."""
        said = []
        if "added" in kinds and self.added:
            said.append("added " + ", ".join(f"{c.name} ({c.type})" for c in self.added))
        if "removed" in kinds and self.removed:
            said.append("removed " + ", ".join(f"{c.name} ({c.type})" for c in self.removed))
        if "retyped" in kinds and self.retyped:
            said.append("retyped " + ", ".join(f"{b.name} {a.type} -> {b.type}"
                                               for a, b in self.retyped))  # fmt: skip
        if "reordered" in kinds and self.reordered:
            said.append("reordered " + ", ".join(self.reordered))
        return said


def _keyed(columns: Sequence[Column]) -> dict[tuple[str, int], tuple[int, Column]]:
    """Each column by (name, its occurrence of that name): a DataFrame may hold two
    columns of one name (a join's), told apart by their order."""
    seen: dict[str, int] = {}
    keyed = {}
    for index, column in enumerate(columns):
        seen[column.name] = seen.get(column.name, 0) + 1
        keyed[(column.name, seen[column.name])] = (index, column)
    return keyed


def changes(earlier: Sequence[Column], now: Sequence[Column], order: ReorderedBy) -> Changes:
    """What changed from ``earlier`` to ``now``: columns added and removed (by name,
    compared as written), kept columns whose type differs, and kept columns reordered
    (``order``: see :class:`assay.ir.monitoring.SchemaChangeCheck`)."""
    before, after = _keyed(earlier), _keyed(now)
    kept = [key for key in after if key in before]
    if order == "index":
        moved = {key for key in kept if before[key][0] != after[key][0]}
    else:
        moved = _moved([before[key][0] for key in kept], kept)
    return Changes(
        added=tuple(column for key, (_, column) in after.items() if key not in before),
        removed=tuple(column for key, (_, column) in before.items() if key not in after),
        retyped=tuple(
            (before[k][1], after[k][1]) for k in kept if before[k][1].type != after[k][1].type
        ),  # fmt: skip
        reordered=tuple(key[0] for key in kept if key in moved),
    )


def _moved(earlier_index: list[int], keys: list[tuple[str, int]]) -> set[tuple[str, int]]:
    """The fewest kept columns whose moving explains the new order: those outside a
    longest run of kept columns still in their earlier order (a longest increasing
    subsequence of their earlier indexes, in the order now)."""
    tails: list[int] = []  # the smallest last earlier index of an increasing run of length i+1
    tail_at: list[int] = []  # where in the order now that run ends
    before: list[int] = [-1] * len(earlier_index)  # the run's previous element
    for at, index in enumerate(earlier_index):
        length = bisect.bisect_left(tails, index)
        if length == len(tails):
            tails.append(index)
            tail_at.append(at)
        else:
            tails[length] = index
            tail_at[length] = at
        before[at] = tail_at[length - 1] if length else -1
    staying = set()
    at = tail_at[-1] if tail_at else -1
    while at >= 0:
        staying.add(at)
        at = before[at]
    return {key for at, key in enumerate(keys) if at not in staying}

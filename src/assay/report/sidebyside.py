"""A comparison's sample rows side by side (the ``samples`` of a ``comparison`` line,
docs/events.md): a row per differing pair with its differing values marked on both
sides, and a row per row of one side only, ``missing`` on the other.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from assay.report.text import cell

Event = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Cell:
    """One side's value in a sample row: ``diff`` marks a value that differs from the
    other side's, ``absent`` a value the samples do not hold (the row is missing on this
    side, or the column is not among its samples)."""

    text: str
    null: bool = False
    diff: bool = False
    absent: bool = False


@dataclass(frozen=True, slots=True)
class SampleRow:
    kind: str
    """``differs``, ``missing in target`` or ``missing in source`` (a row whose key the
    other side lacks), or ``no pair in target`` / ``no pair in source``: a row of a side
    with duplicated keys, which may be an extra row of a key the other side has fewer
    rows of (``extra row of its key`` when the samples show the key paired)."""
    key: tuple[str, ...]
    cells: tuple[tuple[Cell, Cell], ...]
    """Per column, the source's and the target's value."""


@dataclass(frozen=True, slots=True)
class SideBySide:
    keys: tuple[str, ...]
    columns: tuple[str, ...]
    rows: tuple[SampleRow, ...]


def side_by_side(
    samples: dict[str, Any] | None,
    keys: Sequence[str],
    names: Sequence[str] = (),
    duplicated: tuple[bool, bool] = (False, False),
) -> SideBySide | None:
    """The sample rows as one table: a row per differing pair (its differing columns'
    values on both sides, marked) and per row of one side only (its values, the other
    side missing); the compared columns in order, those the samples hold.
    ``duplicated``: whether the source, the target has rows beyond the first of their
    key (``counts.duplicate_rows``): a row of such a side in no pair is not said to be
    missing on the other, whose rows of its key may all be paired already."""
    if not samples:
        return None
    seen: list[str] = []
    for m in samples.get("mismatched") or ():
        seen.append(str(m.get("column")))
    for side in ("missing_in_target", "missing_in_source"):
        for row in samples.get(side) or ():
            values = row.get("source" if side == "missing_in_target" else "target") or {}
            seen.extend(values)
    shown_columns = tuple(dict.fromkeys([n for n in names if n in seen] + seen))
    rows = [*_differing(samples.get("mismatched") or (), keys, shown_columns)]
    paired = {r.key for r in rows}
    for side, kind, extra in (("source", "missing_in_target", duplicated[0]),
                              ("target", "missing_in_source", duplicated[1])):  # fmt: skip
        found = _one_side(samples.get(kind) or (), keys, shown_columns, side)
        rows += [_unpaired(r, side, paired) for r in found] if extra else found
    if not rows:
        return None
    return SideBySide(tuple(keys), shown_columns, tuple(rows))


def _differing(
    mismatched: Sequence[Event], keys: Sequence[str], columns: Sequence[str]
) -> list[SampleRow]:
    """A row per differing pair: the samples of one key's columns together (a key with
    two differing pairs in one column, a duplicated key, gets a row per pair)."""
    pairs: list[tuple[tuple[str, ...], dict[str, tuple[Any, Any]]]] = []
    for m in mismatched:
        key = tuple(cell((m.get("key") or {}).get(k)) for k in keys)
        column = str(m.get("column"))
        row = next((r for k, r in pairs if k == key and column not in r), None)
        if row is None:
            row = {}
            pairs.append((key, row))
        row[column] = (m.get("source"), m.get("target"))
    out = []
    for key, row in pairs:
        cells = tuple(
            (_cell(row[c][0], diff=True), _cell(row[c][1], diff=True))
            if c in row
            else (Cell("", absent=True), Cell("", absent=True))
            for c in columns
        )
        out.append(SampleRow("differs", key, cells))
    return out


def _one_side(
    rows: Sequence[Event], keys: Sequence[str], columns: Sequence[str], side: str
) -> list[SampleRow]:
    out = []
    missing = Cell("missing", absent=True)
    for row in rows:
        values = row.get(side) or {}
        key = tuple(cell(row.get(k)) for k in keys)
        here = [_cell(values[c]) if c in values else Cell("", absent=True) for c in columns]
        cells = tuple((v, missing) if side == "source" else (missing, v) for v in here)
        other = "target" if side == "source" else "source"
        out.append(SampleRow(f"missing in {other}", key, cells))
    return out


def _unpaired(row: SampleRow, side: str, paired: set[tuple[str, ...]]) -> SampleRow:
    """A row in no pair on a side with duplicated keys: an extra row of its key when the
    samples show the key in a pair, else in no pair (its key missing on the other side,
    or there with fewer rows: the samples cannot tell)."""
    other = "target" if side == "source" else "source"
    kind = "extra row of its key" if row.key in paired else f"no pair in {other}"
    return dataclasses.replace(row, kind=kind)


def _cell(value: Any, diff: bool = False) -> Cell:
    return Cell(cell(value), null=value is None, diff=diff)

"""A table validated incrementally (docs/incremental.md): the column whose values are its
partitions, and where that was written."""

from __future__ import annotations

from dataclasses import dataclass

from assay.ir.origin import Origin


@dataclass(frozen=True, slots=True)
class Incremental:
    """``incremental: {by: <column>}``: each run scans only the partitions (values of
    ``by``) new or changed since the states stored by the last run, and judges every rule
    on the whole table by merging their states with the stored ones."""

    by: str
    origin: Origin

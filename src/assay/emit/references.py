"""Reference branches as Spark Connect DataFrames: a foreign key's anti join (a negated
one's semi join, or its matches), counted in the aggregate plan or sampled in the detail
plan, and a referenced source's row count.

The referenced side's distinct keys are built once per (source, columns) and read by
every lookup of it (:class:`References`), so Spark reuses one exchange for them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from pyspark.sql.connect import functions as F

from assay.emit.columns import balanced, col, column
from assay.emit.drift import drift_frame
from assay.ir.references import Lookup
from assay.ir.sources import Source
from assay.planner.drift import Distribution
from assay.planner.plan import ReferenceAggregate
from assay.planner.references import Matched, Unmatched

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame


class References:
    """The referenced sources of one plan: each read once (``frames``: those the run
    prepared; any other by ``read``), their distinct keys built once."""

    def __init__(
        self,
        read: Callable[[Source], DataFrame],
        frames: Mapping[Source, DataFrame] | None = None,
    ):
        self._read = read
        self._frames = dict(frames or {})
        self._keys: dict[tuple[Source, tuple[str, ...]], DataFrame] = {}

    def frame(self, source: Source) -> DataFrame:
        """The referenced source's rows."""
        if source not in self._frames:
            self._frames[source] = self._read(source)
        return self._frames[source]

    def keys(self, lookup: Lookup) -> DataFrame:
        """The referenced side's distinct keys without a null, as ``_assay_r0``... ."""
        ref = lookup.reference
        found = self._keys.get((ref.source, ref.columns))
        if found is None:
            named = [col(c).alias(f"_assay_r{i}") for i, c in enumerate(ref.columns)]
            present = [F.col(f"_assay_r{i}").isNotNull() for i in range(len(ref.columns))]
            found = (
                self.frame(ref.source)
                .select(*named)
                .where(balanced(present, lambda a, b: a & b))
                .distinct()
            )
            self._keys[(ref.source, ref.columns)] = found
        return found

    def key_counts(self, lookup: Lookup) -> DataFrame:
        """The referenced side's keys without a null, each with its rows (``_assay_c``)."""
        keys = [F.col(f"_assay_r{i}") for i in range(len(lookup.reference.columns))]
        named = [col(c).alias(f"_assay_r{i}") for i, c in enumerate(lookup.reference.columns)]
        present = [k.isNotNull() for k in keys]
        return (
            self.frame(lookup.reference.source)
            .select(*named)
            .where(balanced(present, lambda a, b: a & b))
            .groupBy(*keys)
            .agg(F.count(F.lit(1)).alias("_assay_c"))
        )


def _keyed(columns: tuple[str, ...]) -> Column:
    return balanced([col(c).isNotNull() for c in columns], lambda a, b: a & b)


def _match(left: list[Column], count: int) -> Column:
    tests = [key == F.col(f"_assay_r{i}") for i, key in enumerate(left)]
    assert len(tests) == count
    return balanced(tests, lambda a, b: a & b)


def reference_frame(df: DataFrame, branch: ReferenceAggregate, refs: References) -> DataFrame:
    """One single-row frame with the branch's slots: the referenced rows counted, or the
    table's keyed rows LEFT ANTI JOIN (a negated foreign key's LEFT SEMI JOIN) the
    referenced distinct keys, counted per slot (each over the rows its filter keeps); or
    (``join: matches``) joined with the referenced keys' counts, summed per slot."""
    if branch.lookup is None:
        if isinstance(branch.slots[0].measure, Distribution):
            return drift_frame(df, branch.slots, refs.frame(branch.source))
        (slot,) = branch.slots
        return refs.frame(branch.source).agg(F.count(F.lit(1)).alias(slot.name))
    lookup = branch.lookup
    kept = []
    for n, slot in enumerate(branch.slots):
        assert isinstance(slot.measure, (Unmatched, Matched))
        where = slot.measure.where
        if where is not None:
            kept.append(F.coalesce(column(where), F.lit(False)).alias(f"_assay_w{n}"))
    keys = [col(c).alias(f"_assay_k{i}") for i, c in enumerate(lookup.columns)]
    left = df.where(_keyed(lookup.columns)).select(*keys, *kept)
    on = _match([F.col(f"_assay_k{i}") for i in range(len(keys))], len(lookup.columns))
    if branch.join == "matches":
        joined = left.join(refs.key_counts(lookup), on=on, how="inner")
        matches = F.col("_assay_c")
        kept_matches = [
            matches if s.measure.where is None else F.when(F.col(f"_assay_w{n}"), matches)  # type: ignore[union-attr]
            for n, s in enumerate(branch.slots)
        ]
        sums = [
            F.coalesce(F.sum(m), F.lit(0)).alias(s.name)
            for m, s in zip(kept_matches, branch.slots, strict=True)
        ]
        return joined.agg(*sums)
    how = "left_anti" if branch.join == "anti" else "left_semi"
    found = left.join(refs.keys(lookup), on=on, how=how)
    counts = [
        (F.count(F.lit(1)) if s.measure.where is None else F.count_if(F.col(f"_assay_w{n}")))  # type: ignore[union-attr]
        .alias(s.name)
        for n, s in enumerate(branch.slots)
    ]
    return found.agg(*counts)


def unmatched_rows(rows: DataFrame, lookup: Lookup, refs: References) -> DataFrame:
    """``rows`` whose key (not null: the caller's test) no referenced row has."""
    on = _match([col(c) for c in lookup.columns], len(lookup.columns))
    return rows.join(refs.keys(lookup), on=on, how="left_anti")


def matched_rows(rows: DataFrame, lookup: Lookup, refs: References) -> DataFrame:
    """``rows`` whose key (not null: the caller's test) some referenced row has (each
    row once)."""
    on = _match([col(c) for c in lookup.columns], len(lookup.columns))
    return rows.join(refs.keys(lookup), on=on, how="left_semi")
